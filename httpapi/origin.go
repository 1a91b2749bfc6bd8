package httpapi

import (
	"net"
	"net/http"
	"strings"

	"github.com/loci-memory/loci"
)

// What a page in a browser may make loci do. loci answers programs (curl,
// the SDKs, agents), which send no Origin and no Sec-Fetch-Site, and its
// own inspector, which is same-origin; it sends no CORS headers, so another
// site's page reads nothing, but a browser sends some requests without
// asking first (a form's POST, text/plain, an img's GET), and a page whose
// name an attacker points at 127.0.0.1 (DNS rebinding) is same-origin with
// whatever answers there. With authentication off (the default on
// loopback) either would reach every memory.

// crossOrigin refuses an unsafe request (POST, PUT, PATCH, DELETE) that a
// browser sends from another origin (Sec-Fetch-Site, or an Origin that is
// not the request's host).
var crossOrigin = http.NewCrossOriginProtection()

// checkBrowser refuses (403) a request a page of another origin made: any
// whose Sec-Fetch-Site is cross-site (a GET too: a search counts the facts
// it answers as accessed), and an unsafe one from another origin.
func checkBrowser(r *http.Request) error {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return loci.Errorf(loci.EFORBIDDEN, "a page of another site cannot call loci")
	}
	if err := crossOrigin.Check(r); err != nil {
		return loci.Errorf(loci.EFORBIDDEN, "a page of another origin cannot change loci's memory (%v)", err)
	}
	return nil
}

// checkHostWithoutAuth refuses (403), while authentication is off, a
// request that reached a loopback address by a name that is not this
// machine's (localhost, a loopback address): a page whose name an
// attacker made resolve to 127.0.0.1. With authentication on, such a
// page has no key. A request whose connection is not known (in-process
// tests) passes.
func checkHostWithoutAuth(r *http.Request) error {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return nil
	}
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() || localHost(r.Host) {
		return nil
	}
	return loci.Errorf(loci.EFORBIDDEN, "host %q is not this machine: with authentication off, loci answers requests to localhost or a loopback address only", r.Host)
}

// localHost reports whether host (a Host header: name or address, with
// or without a port) names this machine.
func localHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "."), "["), "]")
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	host = strings.ToLower(host)
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}
