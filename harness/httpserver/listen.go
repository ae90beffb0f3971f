package httpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/mcp"
)

// Timeouts of the HTTP server that Listen starts.
const (
	// listenReadHeaderTimeout bounds reading a request's headers.
	listenReadHeaderTimeout = 10 * time.Second
	// listenIdleTimeout closes keep-alive connections left idle.
	listenIdleTimeout = 2 * time.Minute
	// listenShutdownGrace bounds a graceful shutdown; then connections are
	// closed.
	listenShutdownGrace = 5 * time.Second
)

// ListenLoopback serves h as the MCP endpoint at /mcp on 127.0.0.1 with a
// port the system picks (HT-05). See Listen.
func ListenLoopback(h http.Handler) (url string, shutdown func() error, err error) {
	return Listen("127.0.0.1:0", h)
}

// Listen serves h as the MCP endpoint at /mcp on addr, which must be a
// loopback IP address with a port (0 picks one); other paths get 404. It
// returns the endpoint URL and a shutdown function that ends every request
// in flight, SSE streams included, closes h when it is an io.Closer (such as
// *Server), and waits for the connections to end.
func Listen(addr string, h http.Handler) (url string, shutdown func() error, err error) {
	return listen(addr, h, func(_ string, mux *http.ServeMux) { mux.Handle(mcp.EndpointPath, h) })
}

// ListenProtected is Listen with the endpoint a protected resource behind
// p: it also serves the Protected Resource Metadata at the path-suffixed
// and the root well-known URIs (AU-03, AU-05).
func ListenProtected(addr string, h http.Handler, p Protection) (url string, shutdown func() error, err error) {
	return listen(addr, h, func(endpoint string, mux *http.ServeMux) {
		ph := protect(h, endpoint, p)
		mux.Handle(mcp.EndpointPath, ph)
		mux.HandleFunc(mcp.WellKnownPRM+mcp.EndpointPath, ph.serveMetadata)
		mux.HandleFunc(mcp.WellKnownPRM, ph.serveMetadata)
	})
}

// listen listens on addr and serves what route puts on the mux, given the
// endpoint's URL; h is closed at shutdown when it is an io.Closer.
func listen(addr string, h http.Handler, route func(endpoint string, mux *http.ServeMux)) (url string, shutdown func() error, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil, fmt.Errorf("listen address %q: %w; give host:port, such as 127.0.0.1:0", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return "", nil, fmt.Errorf("listen address %q is not a loopback IP address; the server listens on loopback only, such as 127.0.0.1:0", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	url = "http://" + ln.Addr().String() + mcp.EndpointPath
	ctx, cancel := context.WithCancel(context.Background())
	mux := http.NewServeMux()
	route(url, mux)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: listenReadHeaderTimeout,
		IdleTimeout:       listenIdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	shutdown = sync.OnceValue(func() error {
		cancel()
		var errs []error
		if c, ok := h.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
		graceful, stop := context.WithTimeout(context.Background(), listenShutdownGrace)
		defer stop()
		if err := srv.Shutdown(graceful); err != nil {
			errs = append(errs, err, srv.Close())
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	})
	return url, shutdown, nil
}
