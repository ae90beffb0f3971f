// Package mcpclient is mcpconform's minimal reference client session
// (Session: the initialize handshake, requests routed by id, timeouts and
// cancellation, tools, ping) over any Transport, such as the reference
// stdio client of package stdio or the streamable HTTP client. It keeps
// LC-03 … LC-13, JR-05, JR-07, CN-01, CN-02, PG-02 of the requirements
// digest and NG-07, NG-09, NG-12 of SEMANTICS.md.
package mcpclient
