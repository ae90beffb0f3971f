package check

import "fmt"

// Wait is a wait that a check spends on a conformant implementation, not
// only on a broken one: a quiet window, or the budget of a tool call that
// is slower than the budget. A server check declares each one, so that
// `mcpconform list --format json` shows where the time of a run goes; a
// check that waits one it does not declare is a harness error. (Client
// checks declare none yet: the delays their fake servers script are not
// listed.) Waits that end at an
// event (an answer, a stream's end, a process exit) and elapse only when the
// implementation breaks a rule are bounds, not declared.
type Wait struct {
	// What the check waits for: "responses to the notifications, after the ping".
	What string
	// Setting is the configuration that gives its duration.
	Setting WaitSetting
}

// WaitSetting names the run configuration a wait takes its duration from;
// it is also the flag that sets it (--quiet-window, --tool-budget).
type WaitSetting string

// Wait settings.
const (
	// QuietWindow is how long a check listens where nothing may arrive: it
	// always elapses in full.
	QuietWindow WaitSetting = "quiet-window"
	// ToolBudget is how long a check waits for the answer to a call of a
	// tool it does not know: it elapses only for a tool slower than that,
	// whose call is then cancelled (notifications/cancelled) and not judged.
	ToolBudget WaitSetting = "tool-budget"
)

// Always reports whether a wait of the setting elapses in full on every run.
func (s WaitSetting) Always() bool { return s == QuietWindow }

func (w Wait) validate(id string) error {
	if w.What == "" {
		return fmt.Errorf("check %s: a wait says what it waits for", id)
	}
	if w.Setting != QuietWindow && w.Setting != ToolBudget {
		return fmt.Errorf("check %s: wait %q has setting %q; use %s or %s", id, w.What, w.Setting, QuietWindow, ToolBudget)
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
