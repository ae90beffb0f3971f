// Package mcpserver is mcpconform's reference server (Server), which the
// streamable HTTP and stdio server transports serve through its Handle
// method: version negotiation, ping, tools, resources and their
// subscriptions, prompts, completion and pagination, and a RequestContext
// for every request handler with logging, progress, cancellation and
// input from the client (CX-01 … CX-08): requests back to it in the legacy
// era, an InputRequiredResult in the 2026-07-28 one (MR-01 … MR-08).
package mcpserver
