// Package sse is the Server-Sent Events wire that both sides of the
// streamable HTTP transport share: a Reader that bounds the raw size of
// every event (RM-09) and allocates nothing per event through NextBytes,
// and the Writer the reference server answers with. The client and server
// transports are packages httpclient and httpserver.
package sse
