// Package server holds the checks of a server's protocol behaviour, whatever
// the transport: each check runs over every transport the run names (a stdio
// command, a streamable HTTP URL, or both for the built-in reference), on a
// fresh connection, and reaches behaviours through discovery, never fixed
// tool names.
package server
