package sliccbrowsers

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Server returns the fake server at hostPort ("host:port") and whether the case has one:
// TCP connections to it succeed, and to every other host:port they are refused. localhost
// and [::1] (or ::1) mean 127.0.0.1, and the host is compared in ASCII lower case.
func (c Case) Server(hostPort string) (*FakeServer, bool) {
	i := strings.LastIndexByte(hostPort, ':')
	if i < 0 {
		return nil, false
	}
	host, port := hostPort[:i], hostPort[i+1:]
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") && len(host) >= 2 {
		host = host[1 : len(host)-1]
	}
	host = asciiLower(host)
	if host == "localhost" || host == "::1" {
		host = "127.0.0.1"
	}
	s, ok := c.Input.HTTP[host+":"+port]
	if !ok {
		return nil, false
	}
	return &s, true
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// HTTPGet is the answer to GET http://<hostPort><path>: ok is false when the connection is
// refused; otherwise the status and body. /json/version serves Version, /json/list and /json
// serve List (compact JSON), with status 200; a missing body and every other path get 404
// with an empty body.
func (c Case) HTTPGet(hostPort, path string) (status int, body string, ok bool) {
	s, ok := c.Server(hostPort)
	if !ok {
		return 0, "", false
	}
	var b bytes.Buffer
	switch {
	case path == "/json/version" && s.Version != nil:
		if err := encodeValue(&b, reflectOf(&s.Version)); err != nil {
			return http.StatusNotFound, "", true
		}
	case (path == "/json/list" || path == "/json") && s.List != nil:
		if err := encodeValue(&b, reflectOf(&s.List)); err != nil {
			return http.StatusNotFound, "", true
		}
	default:
		return http.StatusNotFound, "", true
	}
	return http.StatusOK, b.String(), true
}

// refused is the error of a dial to a port no fake server listens on: a *net.OpError that
// wraps syscall.ECONNREFUSED, as a real refused connection does.
func refused(network, addr string) error {
	return &net.OpError{Op: "dial", Net: network, Addr: fakeAddr(addr), Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

// fakeAddr is a dialed address as the fakes report it.
type fakeAddr string

// Network is tcp.
func (a fakeAddr) Network() string { return "tcp" }

// String is the dialed host:port.
func (a fakeAddr) String() string { return string(a) }

// hostPortOf is the host:port a request goes to, with the scheme's default port when the
// URL has none.
func hostPortOf(req *http.Request) string {
	host := req.URL.Host
	if req.URL.Port() != "" {
		return host
	}
	port := "80"
	if req.URL.Scheme == "https" {
		port = "443"
	}
	return host + ":" + port
}

// Transport returns an http.RoundTripper that answers from the case's fake servers in
// memory, never over the network, as [Case.HTTPGet] does: a request to an unlisted port
// fails with an error that wraps syscall.ECONNREFUSED; any other gets the answer for its
// URL's path (a HEAD request without the body). Query strings are not looked at.
func (c Case) Transport() http.RoundTripper {
	return fakeTransport{c: c}
}

type fakeTransport struct{ c Case }

// RoundTrip answers req from the case's fake servers.
func (t fakeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	hostPort := hostPortOf(req)
	status, body, ok := t.c.HTTPGet(hostPort, req.URL.Path)
	if !ok {
		return nil, refused("tcp", hostPort)
	}
	return answer(req, status, body), nil
}

// answer is the response to req with status and body.
func answer(req *http.Request, status int, body string) *http.Response {
	if req.Method == http.MethodHead {
		body = ""
	}
	header := http.Header{}
	if status == http.StatusOK {
		header.Set("Content-Type", "application/json; charset=UTF-8")
	}
	header.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

// DialContext connects to the case's fake server at addr ("host:port") in memory: a listed
// port connects, and the connection answers HTTP/1.1 requests as [Case.Transport] does (so
// an http.Transport with this DialContext works too); an unlisted one fails with an error
// that wraps syscall.ECONNREFUSED. network must be tcp, tcp4 or tcp6. Close the connection
// when done: its server side stops then.
func (c Case) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, &net.OpError{Op: "dial", Net: network, Addr: fakeAddr(addr), Err: net.UnknownNetworkError(network)}
	}
	if err := ctx.Err(); err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: fakeAddr(addr), Err: err}
	}
	if _, ok := c.Server(addr); !ok {
		return nil, refused(network, addr)
	}
	client, server := net.Pipe()
	go c.serve(server, addr)
	return fakeConn{Conn: client, remote: fakeAddr(addr)}, nil
}

// fakeConn is the client side of a dialed fake: a pipe that reports the dialed address.
type fakeConn struct {
	net.Conn
	remote net.Addr
}

// RemoteAddr is the dialed host:port.
func (f fakeConn) RemoteAddr() net.Addr { return f.remote }

// serve answers HTTP/1.1 requests on conn until the client closes it or sends something
// that is not HTTP.
func (c Case) serve(conn net.Conn, hostPort string) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	for {
		req, err := http.ReadRequest(r)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		status, body, _ := c.HTTPGet(hostPort, req.URL.Path)
		resp := answer(req, status, body)
		resp.Close = req.Close
		if err := resp.Write(conn); err != nil || req.Close {
			return
		}
	}
}
