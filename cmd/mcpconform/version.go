package main

import (
	"fmt"
	"github.com/mcpconform/mcpconform/certify"
	"io"
	"runtime/debug"
	"strings"

	"github.com/mcpconform/mcpconform/harness/usage"
)

// versionCommand prints the version.
func versionCommand(args []string, stdout, stderr io.Writer) int {
	fs := usage.NewFlagSet("version")
	if err := versionHelp.Parse(fs, args, stdout); err != nil {
		return exitFor(err, stderr)
	}
	if fs.NArg() > 0 {
		return exitFor(errUsage{fmt.Errorf("version: unexpected argument %q; it takes none", fs.Arg(0))}, stderr)
	}
	fmt.Fprintln(stdout, "mcpconform", Version)
	return 0
}

// Version is the tool's version as reports and the version command show
// it. -ldflags "-X main.Version=v1.2.3" overrides it; otherwise init sets
// it from the build info: the module version and the commit it was built
// from.
var Version = "dev"

func init() {
	if info, ok := debug.ReadBuildInfo(); ok && Version == "dev" {
		Version = versionString(info)
	}
	certify.Version = Version
}

// versionString formats the build info: the main module's version
// ("(devel)" when built from a checkout) and, when the build recorded
// them, the commit, its time and whether the tree was modified, e.g.
// "v1.2.3 (commit abc1234, 2026-12-01T10:00:00Z)" or
// "(devel) (commit abc1234, 2026-12-01T10:00:00Z, modified)".
func versionString(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var vcs []string
	if rev := settings["vcs.revision"]; rev != "" {
		if len(rev) > 7 {
			rev = rev[:7]
		}
		vcs = append(vcs, "commit "+rev)
		if t := settings["vcs.time"]; t != "" {
			vcs = append(vcs, t)
		}
		if settings["vcs.modified"] == "true" {
			vcs = append(vcs, "modified")
		}
	}
	if len(vcs) == 0 {
		return v
	}
	return v + " (" + strings.Join(vcs, ", ") + ")"
}
