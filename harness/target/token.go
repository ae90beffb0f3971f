package target

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/harness/reaper"
)

// The token command contract (`mcpconform server --auth-token-command
// CMD`): CMD runs under `sh -c` with these variables set and prints a
// bearer token (without "Bearer ") on the first line of its stdout; a
// status other than 0, or nothing printed, means it cannot give that
// token, and the checks that need it are UNIMPLEMENTED.
const (
	// EnvAuthResource is the resource (RFC 8707) the token is for: its
	// audience. The checks ask for the server's URL, and for another
	// resource to see the server refuse it.
	EnvAuthResource = "MCPCONFORM_AUTH_RESOURCE"
	// EnvAuthScope is the space-separated scopes the token grants; empty
	// asks for a token without scopes.
	EnvAuthScope = "MCPCONFORM_AUTH_SCOPE"
	// EnvAuthExpired is "1" when the token is to have expired already.
	EnvAuthExpired = "MCPCONFORM_AUTH_EXPIRED"
)

// TokenRequest is what a token command is asked for.
type TokenRequest struct {
	Resource string
	Scope    string // space-separated
	Expired  bool
}

// maxToken bounds what a token command's output is read of.
const maxToken = 64 << 10

// ErrNoToken: the command ran and gave no token (a status other than 0,
// or an empty first line).
var ErrNoToken = errors.New("the token command gave no token")

// RunTokenCommand runs command (a shell command line) for req within d
// and returns the token it printed. Its stderr is returned beside, for a
// message. The caller masks the token (even one returned with an error)
// in everything it shows.
func RunTokenCommand(ctx context.Context, command string, req TokenRequest, d time.Duration) (token, stderr string, err error) {
	if reaper.Stopped() {
		return "", "", reaper.ErrStopped
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	cmd := exec.Command("sh", "-c", command)
	expired := "0"
	if req.Expired {
		expired = "1"
	}
	cmd.Env = append(os.Environ(), EnvAuthResource+"="+req.Resource, EnvAuthScope+"="+req.Scope, EnvAuthExpired+"="+expired)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, errOut := &boundedBuffer{max: maxToken}, &boundedBuffer{max: maxToken}
	cmd.Stdout, cmd.Stderr = out, errOut
	if err := cmd.Start(); err != nil {
		return "", "", fmt.Errorf("token command: %w", err)
	}
	pgid := cmd.Process.Pid
	reaper.Track(pgid)
	done := make(chan error, 1)
	go func() { err := cmd.Wait(); reaper.Untrack(pgid); done <- err }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
		return "", string(errOut.Bytes()), fmt.Errorf("the token command did not finish within %s", d)
	}
	first, _, _ := strings.Cut(string(out.Bytes()), "\n")
	token = strings.TrimSpace(first)
	if err != nil || token == "" {
		why := "it printed no token"
		if err != nil {
			why = err.Error()
		}
		return token, string(errOut.Bytes()), fmt.Errorf("%w (%s)", ErrNoToken, why)
	}
	return token, string(errOut.Bytes()), nil
}
