package httpserver

import (
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// hostAllowed keeps DNS rebinding out beside the Origin check HT-03 asks
// for: the Host header must name the server by a loopback name, or be one
// of the configured hosts. The spec asks for no Host check, so the
// permitted variant no-host-check has none.
func (s *Server) hostAllowed(host string) bool {
	if s.cfg.Mutant == mutant.NoHostCheck {
		return true
	}
	if host == "" {
		return false
	}
	name := (&url.URL{Host: host}).Hostname()
	return isLoopbackName(name) || slices.Contains(s.cfg.AllowedHosts, host) || slices.Contains(s.cfg.AllowedHosts, name)
}

// originAllowed validates the Origin header (HT-03): exactly one value,
// either configured or an http(s) origin on a loopback host. Browsers send
// "null" for opaque origins; it is not allowed.
func (s *Server) originAllowed(origins []string) bool {
	if s.cfg.Mutant == mutant.NoOriginCheck {
		return true
	}
	if len(origins) != 1 {
		return false
	}
	origin := origins[0]
	if slices.Contains(s.cfg.AllowedOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return false
	}
	return isLoopbackName(u.Hostname())
}

// isLoopbackName reports whether a host name (without port or brackets) is
// localhost or a loopback IP address.
func isLoopbackName(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}
