package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// drainTimeout bounds how long loci mcp waits, once its input has ended,
// for the answers to requests it has already read.
const drainTimeout = 30 * time.Second

// stdioPipe sits between stdin/stdout and the MCP transport. It counts the
// requests read and the answers written, and holds back the end of input
// until every request read has been answered: the transport closes its
// connection at end of input, and a client that writes its requests and
// closes stdin at once (a script, `printf … | loci mcp`) would otherwise
// lose every answer.
type stdioPipe struct {
	in  *bufio.Reader
	out io.Writer

	mu       sync.Mutex
	cond     *sync.Cond
	requests int // requests read (messages with an id and a method)
	answers  int // answers written (messages with an id and no method)
	buf      []byte
}

func newStdioPipe(in io.Reader, out io.Writer) *stdioPipe {
	p := &stdioPipe{in: bufio.NewReaderSize(in, 1<<16), out: out}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// kind tells a JSON-RPC request from an answer: a request has an id and a
// method, an answer an id and no method; notifications have no id.
func kind(line []byte) (request, answer bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return false, false
	}
	return m.Method != "", m.Method == ""
}

// Read passes input through a line at a time; at its end it waits (at most
// drainTimeout) until every request read has its answer.
func (p *stdioPipe) Read(b []byte) (int, error) {
	if len(p.buf) == 0 {
		line, err := p.in.ReadBytes('\n')
		if len(line) > 0 {
			if req, _ := kind(line); req {
				p.mu.Lock()
				p.requests++
				p.mu.Unlock()
			}
			p.buf = line
		} else if err != nil {
			if err == io.EOF {
				p.drain()
			}
			return 0, err
		}
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	return n, nil
}

func (p *stdioPipe) drain() {
	timer := time.AfterFunc(drainTimeout, func() {
		p.mu.Lock()
		p.answers = max(p.answers, p.requests) // give up waiting
		p.mu.Unlock()
		p.cond.Broadcast()
	})
	defer timer.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.answers < p.requests {
		p.cond.Wait()
	}
}

// Write passes output through, counting the answers in it.
func (p *stdioPipe) Write(b []byte) (int, error) {
	n, err := p.out.Write(b)
	answers := 0
	for _, line := range bytes.Split(b[:n], []byte("\n")) {
		if _, ans := kind(line); ans {
			answers++
		}
	}
	if answers > 0 {
		p.mu.Lock()
		p.answers += answers
		p.mu.Unlock()
		p.cond.Broadcast()
	}
	return n, err
}
