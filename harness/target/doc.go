// Package target is how an implementation under test is reached. For clients
// that is the adapter contract v1 (see README, "Certify your client"): the
// harness runs an adapter program once per check with MCPCONFORM_ variables
// and reads its JSON lines.
package target
