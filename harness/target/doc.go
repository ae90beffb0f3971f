// Package target is how a client under test is reached: the adapter
// contract v1 (see docs/client.md): the
// harness runs an adapter program once per check with MCPCONFORM_ variables
// and reads its JSON lines.
package target
