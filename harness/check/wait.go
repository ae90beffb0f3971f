package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/harness/target"
)

// Wait is a wait that a check spends on a conformant implementation, not
// only on a broken one. A check declares each one, so that `mcpconform
// list --format json` shows where the time of a run goes: a server check
// its quiet windows and the budget of a tool call slower than it; a client
// check the timeouts and graces of the client that it provokes, the delays
// it scripts (its fake server's, the call timeout it gives the client) and
// the prompt it adds to a call timeout. A server check that waits a quiet
// window or a tool budget it does not declare is a harness error. Waits
// that end at an event (an answer, a stream's end, a process exit) and
// elapse only when the implementation breaks a rule are bounds, not
// declared.
type Wait struct {
	// What the check waits for: "responses to the notifications, after the ping".
	What string
	// Setting is the configuration that gives its duration.
	Setting WaitSetting
	// Limit is the limit of the client a client-limit wait lasts, one of
	// target.TimeLimits: target.LimitStartupMS.
	Limit string
	// Duration is how long a scripted wait lasts.
	Duration time.Duration
	// Times is how many times the wait elapses in one run of the check;
	// zero means once. A fake's delay scaled from a client limit is a
	// fraction of it: 0.5 for half the limit.
	Times float64
}

// WaitSetting names the run configuration a wait takes its duration from.
// For a server check's waits it is also the flag that sets it
// (--quiet-window, --tool-budget).
type WaitSetting string

// Wait settings of server checks.
const (
	// QuietWindow is how long a check listens where nothing may arrive: it
	// always elapses in full.
	QuietWindow WaitSetting = "quiet-window"
	// ToolBudget is how long a check waits for the answer to a call of a
	// tool it does not know: it elapses only for a tool slower than that,
	// whose call is then cancelled (notifications/cancelled) and not judged.
	ToolBudget WaitSetting = "tool-budget"
)

// Wait settings of client checks. Each elapses in full on every run.
const (
	// ClientLimit is a timeout or grace the client under test declares in
	// its config line (Wait.Limit; the seed default where it declares
	// none), which the check provokes, so it elapses on a conformant
	// client; or a fake's delay the check scales from that limit.
	ClientLimit WaitSetting = "client-limit"
	// Scripted is a delay the check fixes (Wait.Duration): its fake
	// server's, or the call timeout it gives the client.
	Scripted WaitSetting = "scripted"
	// Prompt is the run's prompt, how soon "at once" must be, where the
	// check adds it to a call timeout the client waits out.
	Prompt WaitSetting = "prompt"
)

// Always reports whether a wait of the setting elapses in full on every run.
func (s WaitSetting) Always() bool { return s != ToolBudget }

// Role returns the role of the checks that may declare a wait of the
// setting, or "" for an unknown setting.
func (s WaitSetting) Role() Role {
	switch s {
	case QuietWindow, ToolBudget:
		return Server
	case ClientLimit, Scripted, Prompt:
		return Client
	}
	return ""
}

// settingsOf names the wait settings of a role's checks, for messages.
func settingsOf(r Role) string {
	if r == Server {
		return fmt.Sprintf("%s or %s", QuietWindow, ToolBudget)
	}
	return fmt.Sprintf("%s, %s or %s", ClientLimit, Scripted, Prompt)
}

// Count is how many times the wait elapses in one run of the check.
func (w Wait) Count() float64 {
	if w.Times == 0 {
		return 1
	}
	return w.Times
}

// Total is the time the wait takes in one run of the check when it lasts
// each every time it elapses.
func (w Wait) Total(each time.Duration) time.Duration {
	return time.Duration(float64(each) * w.Count())
}

func (w Wait) validate(d Descriptor) error {
	role := w.Setting.Role()
	switch {
	case w.What == "":
		return fmt.Errorf("check %s: a wait says what it waits for", d.ID)
	case role == "":
		return fmt.Errorf("check %s: wait %q has setting %q; use %s (server checks) or %s (client checks)", d.ID, w.What, w.Setting, settingsOf(Server), settingsOf(Client))
	case role != d.Role:
		return fmt.Errorf("check %s: wait %q has setting %s, which only a %s check waits; a %s check's waits are %s", d.ID, w.What, w.Setting, role, d.Role, settingsOf(d.Role))
	case w.Setting == ClientLimit && !slices.Contains(target.TimeLimits(), w.Limit):
		return fmt.Errorf("check %s: client-limit wait %q names limit %q; use one of %s", d.ID, w.What, w.Limit, strings.Join(target.TimeLimits(), ", "))
	case w.Setting != ClientLimit && w.Limit != "":
		return fmt.Errorf("check %s: wait %q names limit %q, but only a %s wait lasts a limit of the client", d.ID, w.What, w.Limit, ClientLimit)
	case w.Setting == Scripted && w.Duration <= 0:
		return fmt.Errorf("check %s: scripted wait %q has duration %s; give the delay the check scripts", d.ID, w.What, w.Duration)
	case w.Setting != Scripted && w.Duration != 0:
		return fmt.Errorf("check %s: wait %q has a duration, but a %s wait takes its own from the run; only a %s wait gives one", d.ID, w.What, w.Setting, Scripted)
	case w.Times < 0:
		return fmt.Errorf("check %s: wait %q elapses %v times; give 0 (once) or more", d.ID, w.What, w.Times)
	}
	return nil
}

// Declares reports whether the check declares a wait of setting s.
func (d Descriptor) Declares(s WaitSetting) bool {
	for _, w := range d.Waits {
		if w.Setting == s {
			return true
		}
	}
	return false
}
