package main

import (
	"io"

	"github.com/mcpconform/mcpconform/certify"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The inputs fuzz and replay share with the certifying commands (package
// certify), under the names fuzz.go and replay.go use, until the fuzz run
// moves beside the certification.

type secretList = certify.SecretList

const secretFlagUsage = certify.SecretFlagUsage

var runSecrets = certify.RunSecrets

// maskedWriter is certify.Masked's writer, with the writer it wraps.
type maskedWriter struct {
	io.Writer
	w io.Writer
}

func masked(w io.Writer, secrets transcript.Secrets) io.Writer {
	return maskedWriter{Writer: certify.Masked(w, secrets), w: w}
}

// fixturesFile is certify.FixturesFile, under fuzz.go's field names.
type fixturesFile struct {
	roles  map[string]run.Fixture
	unsafe []string
	file   certify.FixturesFile
}

func loadFixturesFile(path string) (fixturesFile, error) {
	f, err := certify.LoadFixturesFile(path)
	return fixturesFile{roles: f.Roles, unsafe: f.Unsafe, file: f}, err
}

const callToolsUsage = certify.CallToolsUsage

type callToolsFlag struct{ certify.CallToolsFlag }

func (f callToolsFlag) over(file fixturesFile) toolpolicy.Mode { return f.Over(file.file) }
