package httpclient

import (
	"bytes"
	"context"
	"net"
)

// caseSensitiveDial wraps dial for mutant HeaderNameCaseSensitive: net/http
// canonicalises the header names it reads, so the mutant hides, in the
// bytes the connection reads, every header line named Content-Type in
// another case (CONTENT-TYPE becomes XONTENT-TYPE), as a client that looks
// the name up case-sensitively would miss it (HT-83).
func caseSensitiveDial(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return caseSensitiveConn{conn}, nil
	}
}

// caseSensitiveConn is a connection whose reads hide the Content-Type
// header lines not spelled Content-Type.
type caseSensitiveConn struct{ net.Conn }

func (c caseSensitiveConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	name := []byte("\nContent-Type:")
	for i := 0; i+len(name) <= n; i++ {
		if line := p[i : i+len(name)]; bytes.EqualFold(line, name) && !bytes.Equal(line, name) {
			line[1] = 'X'
		}
	}
	return n, err
}
