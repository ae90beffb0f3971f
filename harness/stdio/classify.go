package stdio

import (
	"bytes"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// classify says what a stdout line is (NG-01, NG-02). The reference is
// jsonrpc.ClassifyLine; the classifier mutants each drop one criterion, or
// take text of one shape for a fatal line.
func classify(line []byte, m mutant.Name) jsonrpc.LineClass {
	class := jsonrpc.ClassifyLine(line)
	switch {
	case class == jsonrpc.ClassNonObject && m == mutant.SkipNonObject:
		return jsonrpc.ClassText
	case class == jsonrpc.ClassDamaged && m != "" && damagedOnlyBy(jsonrpc.TrimLine(line)) == m:
		return jsonrpc.ClassText
	case class == jsonrpc.ClassText && m != "" && textFatalBy(jsonrpc.TrimLine(line)) == m:
		return jsonrpc.ClassDamaged
	}
	return class
}

// textFatalBy names the classifier mutant that ends the session on text
// line t, by its first byte or a control character in it: a careless
// client's shortcut for "this is JSON" or "this is binary".
func textFatalBy(t []byte) mutant.Name {
	switch {
	case bytes.HasPrefix(t, []byte("[")):
		return mutant.BracketTextAsBatch
	case len(t) > 0 && t[0] >= '0' && t[0] <= '9':
		return mutant.DigitTextAsJSON
	case bytes.ContainsFunc(t, func(r rune) bool { return r < ' ' && r != '\t' }):
		return mutant.EscapeTextFatal
	}
	return ""
}

// damagedOnlyBy names the classifier mutant that would skip damaged line t:
// the one whose criterion is the only reason t is possibly damaged (NG-01).
// It returns "" when several criteria hold, so each mutant forgets exactly
// its own rule.
func damagedOnlyBy(t []byte) mutant.Name {
	brace := len(t) > 0 && t[0] == '{'
	batch := opensBatch(t)
	mention := bytes.Contains(t, []byte("jsonrpc"))
	switch {
	case brace && !batch && !mention:
		return mutant.SkipDamagedBrace
	case batch && !brace && !mention:
		return mutant.SkipDamagedBatch
	case mention && !brace && !batch:
		return mutant.SkipJSONRPCMention
	}
	return ""
}

// opensBatch reports whether t starts with a '[' that opens a batch: '['
// followed, after optional white space, by '{', ']' or the end of the line.
func opensBatch(t []byte) bool {
	if len(t) == 0 || t[0] != '[' {
		return false
	}
	rest := bytes.TrimLeft(t[1:], " \t\r\n")
	return len(rest) == 0 || rest[0] == '{' || rest[0] == ']'
}
