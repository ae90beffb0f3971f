// Package mcpserver is mcpconform's reference server (Server), which the
// streamable HTTP and stdio server transports serve through its Handle
// method: version negotiation, ping, tools, resources and their
// subscriptions, prompts, completion and pagination, and a RequestContext
// for every request handler with logging, progress, cancellation and
// requests back to the client (CX-01 … CX-08).
package mcpserver
