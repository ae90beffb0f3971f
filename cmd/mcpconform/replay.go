package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/certify"
	"github.com/mcpconform/mcpconform/harness/fuzz"
	"github.com/mcpconform/mcpconform/harness/usage"
)

func replayCommand(args []string, stdout, stderr io.Writer) int {
	fs := usage.NewFlagSet("replay")
	timeout := fs.Duration("timeout", fuzz.DefaultTimeout, "how long a request's answer may take")
	rss := fs.String("max-rss", "256MiB", "the most resident memory the server's process group may hold (stdio); 0 turns the check off")
	url := fs.String("url", "", "replay against the streamable HTTP server at `URL`")
	var secrets certify.SecretList
	fs.Var(&secrets, "secret", certify.SecretFlagUsage)
	rest, command := splitCommand(args)
	// Flags may follow the files.
	files, err := replayHelp.ParseInterspersed(fs, rest, stdout)
	if err != nil {
		return exitFor(err, stderr)
	}
	maxRSS, err := parseBytes(*rss)
	if err != nil {
		return exitFor(errUsage{fmt.Errorf("replay: --max-rss %q: %v", *rss, err)}, stderr)
	}
	mask := certify.RunSecrets(secrets, *url)
	stdout, stderr = certify.Masked(stdout, mask), certify.Masked(stderr, mask)
	if len(files) == 0 {
		return exitFor(errUsage{errors.New("replay: name at least one case file, e.g. mcpconform replay corpus/*.case")}, stderr)
	}
	broke, err := certify.Replay(files, certify.FuzzOptions{URL: *url, Command: command, Mask: mask, Timeout: *timeout, MaxRSS: maxRSS}, stdout)
	switch {
	case err != nil:
		return exitFor(err, stderr)
	case broke:
		return 1
	}
	return 0
}
