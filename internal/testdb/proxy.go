package testdb

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy is a TCP proxy to a database server that a test can cut off: while
// it blackholes, it keeps every connection open (and accepts new ones) but
// forwards nothing, in either direction, as a network partition does. No
// root privileges, no firewall: the partition is in the test's process.
type Proxy struct {
	ln     net.Listener
	target string

	mu        sync.Mutex
	blackhole bool
	refuse    bool
	resume    chan struct{} // closed when forwarding resumes
	conns     []net.Conn
}

// NewProxy listens on 127.0.0.1 and forwards to target (host:port) until
// the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, resume: make(chan struct{})}
	close(p.resume)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Blackhole stops forwarding: bytes sent either way are dropped and never
// arrive.
func (p *Proxy) Blackhole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.blackhole {
		p.blackhole = true
		p.resume = make(chan struct{})
	}
}

// Refuse closes every connection and, until Restore, each new one as
// soon as it is accepted: a server that went away and refuses (a restart),
// which a client learns at once, where a partition makes it wait.
func (p *Proxy) Refuse() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuse = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Restore forwards again, and accepts connections again after Refuse.
// Connections that lost bytes while cut off are broken for their
// protocol; new ones work.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuse = false
	if p.blackhole {
		p.blackhole = false
		close(p.resume)
	}
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.handle(c)
	}
}

func (p *Proxy) handle(c net.Conn) {
	// A connection opened while cut off connects nowhere until restored;
	// one opened while refusing is closed.
	p.mu.Lock()
	if p.refuse {
		p.mu.Unlock()
		c.Close()
		return
	}
	resume := p.resume
	p.conns = append(p.conns, c)
	p.mu.Unlock()
	<-resume
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, up)
	p.mu.Unlock()
	go p.pipe(up, c)
	p.pipe(c, up)
}

// pipe copies src to dst, dropping what arrives while cut off.
func (p *Proxy) pipe(dst io.WriteCloser, src io.ReadCloser) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			cut := p.blackhole
			p.mu.Unlock()
			if !cut {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) close() {
	p.ln.Close()
	p.Restore()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}
