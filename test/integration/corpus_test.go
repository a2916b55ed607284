package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	sliccbrowsers "github.com/ai-ecoverse/slicc-browsers"
)

// allNeeds is every need: this harness lays out every case of its OS.
var allNeeds = []string{
	sliccbrowsers.NeedUserDataDirs, sliccbrowsers.NeedProfiles, sliccbrowsers.NeedFlag,
	sliccbrowsers.NeedProcess, sliccbrowsers.NeedProbe, sliccbrowsers.NeedOrigins,
	sliccbrowsers.NeedInstalled, sliccbrowsers.NeedSix,
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	var x, y interface{}
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// wantAnswer is what a fake server must answer for path, from the case's own data.
func wantAnswer(s sliccbrowsers.FakeServer, path string) (int, []byte) {
	switch {
	case path == "/json/version" && s.Version != nil:
		return 200, s.Version
	case (path == "/json/list" || path == "/json") && s.List != nil:
		b, _ := json.Marshal(s.List)
		return 200, b
	}
	return 404, nil
}

// A harness as slicc-cli writes it (test/integration/corpus_test.go there): per case of this
// OS, a temporary home with the case's files, an http.Client on the case's Transport, and
// DialContext for TCP. Discovery itself is slicc-cli's; this checks what the helpers give it.
func TestCorpusHarness(t *testing.T) {
	cases, err := sliccbrowsers.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, c := range cases {
		if !c.Runs(runtime.GOOS, allNeeds...) {
			continue
		}
		ran++
		c := c
		t.Run(c.Name, func(t *testing.T) {
			home := t.TempDir()
			l := sliccbrowsers.Layout{OS: runtime.GOOS, Home: home, Getenv: func(k string) string { return c.Input.Env[k] }}
			writeFiles(t, c, l, home)
			checkProcesses(t, c, l)
			checkServers(t, c)
			expected := c.ExpectedJSON(l)
			var doc struct {
				Schema  int               `json:"schema"`
				Entries []json.RawMessage `json:"entries"`
			}
			if err := json.Unmarshal(expected, &doc); err != nil || doc.Schema != 1 {
				t.Fatalf("ExpectedJSON: %v, schema %d: %s", err, doc.Schema, expected)
			}
			for _, token := range []string{"{home}", "{config}", "{sevenProfiles}", "{sixProfiles}"} {
				if strings.Contains(string(expected), token) {
					t.Errorf("ExpectedJSON still holds %s", token)
				}
			}
			for _, u := range c.CDP(l) {
				if strings.Contains(u, "{home}") {
					t.Errorf("CDP still holds {home}: %s", u)
				}
			}
		})
	}
	if ran < 20 {
		t.Errorf("only %d cases run on %s", ran, runtime.GOOS)
	}
}

// writeFiles writes Files(l) under home, as a harness does, refusing any path outside it.
func writeFiles(t *testing.T, c sliccbrowsers.Case, l sliccbrowsers.Layout, home string) {
	t.Helper()
	files := c.Files(l)
	if len(files) != len(c.Input.Files) {
		t.Errorf("%d files laid out for %d in case.json", len(files), len(c.Input.Files))
	}
	for path, contents := range files {
		rel, err := filepath.Rel(home, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || !filepath.IsAbs(path) {
			t.Fatalf("%s is not under the temporary home %s", path, home)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(contents), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Each file is where its token says: the token's value, then the rest of the key.
	for key, contents := range c.Input.Files {
		name := key[1:strings.IndexByte(key, '}')]
		dir, ok := l.Token(name)
		if !ok {
			t.Errorf("%s: no token %s here", key, name)
			continue
		}
		path := filepath.Join(dir, filepath.FromSlash(key[len(name)+2:]))
		got, err := os.ReadFile(path)
		if err != nil || string(got) != contents {
			t.Errorf("%s: read back from %s: %v", key, path, err)
		}
	}
}

// checkProcesses reads PSOutput and CIMOutput back as a process scan would.
func checkProcesses(t *testing.T, c sliccbrowsers.Case, l sliccbrowsers.Layout) {
	t.Helper()
	self := os.Getpid()
	rows := c.Commands(l, self)
	ps := c.PSOutput(l, self)
	lines := strings.Split(strings.TrimSuffix(ps, "\n"), "\n")
	if ps == "" {
		lines = nil
	}
	if len(lines) != len(c.Input.Processes) || len(rows) != len(lines) {
		t.Fatalf("PSOutput has %d lines for %d processes", len(lines), len(c.Input.Processes))
	}
	for i, line := range lines {
		fields := strings.SplitN(strings.TrimLeft(line, " "), " ", 2)
		pid, err := strconv.Atoi(fields[0])
		if err != nil || pid != rows[i].PID || len(fields) != 2 || fields[1] != rows[i].Command || len(line) < 7 {
			t.Errorf("PSOutput line %d: %q for %+v", i, line, rows[i])
		}
		if c.Input.Processes[i].Self && pid != self {
			t.Errorf("PSOutput line %d: the self row has pid %d, not %d", i, pid, self)
		}
	}
	var cim []struct {
		ProcessID   int     `json:"ProcessId"`
		CommandLine *string `json:"CommandLine"`
	}
	if err := json.Unmarshal([]byte(c.CIMOutput(l, self)), &cim); err != nil {
		t.Fatalf("CIMOutput: %v", err)
	}
	if len(cim) != len(rows)+1 || cim[0].ProcessID != 4 || cim[0].CommandLine != nil {
		t.Fatalf("CIMOutput: %d rows for %d processes, first %+v", len(cim), len(rows), cim[0])
	}
	for i, row := range rows {
		if got := cim[i+1]; got.ProcessID != row.PID || got.CommandLine == nil || *got.CommandLine != row.Command {
			t.Errorf("CIMOutput row %d: %+v for %+v", i+1, got, row)
		}
	}
}

// checkServers reads every fake server through an http.Client on Transport, through an
// http.Transport on DialContext, and with a raw request on a dialed connection; and checks
// that an unlisted port refuses.
func checkServers(t *testing.T, c sliccbrowsers.Case) {
	t.Helper()
	viaTransport := &http.Client{Transport: c.Transport()}
	viaDial := &http.Client{Transport: &http.Transport{DialContext: c.DialContext}}
	defer viaDial.CloseIdleConnections()
	for hostPort, s := range c.Input.HTTP {
		_, port, _ := net.SplitHostPort(hostPort)
		hosts := []string{hostPort}
		if strings.HasPrefix(hostPort, "127.0.0.1:") {
			hosts = append(hosts, "localhost:"+port, "[::1]:"+port, "LOCALHOST:"+port)
		}
		for _, host := range hosts {
			for _, path := range []string{"/json/version", "/json/list", "/json", "/json/version/", "/other"} {
				wantStatus, wantBody := wantAnswer(s, path)
				for name, client := range map[string]*http.Client{"Transport": viaTransport, "DialContext": viaDial} {
					resp, err := client.Get("http://" + host + path)
					if err != nil {
						t.Errorf("%s: GET http://%s%s: %v", name, host, path, err)
						continue
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != wantStatus || (wantStatus == 200 && !sameJSON(body, wantBody)) || (wantStatus == 404 && len(body) != 0) {
						t.Errorf("%s: GET http://%s%s: %d %s, want %d %s", name, host, path, resp.StatusCode, body, wantStatus, wantBody)
					}
				}
			}
		}
		conn, err := c.DialContext(context.Background(), "tcp", hostPort)
		if err != nil {
			t.Fatalf("DialContext(%s): %v", hostPort, err)
		}
		fmt.Fprintf(conn, "GET /json/version HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", hostPort)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("a raw request to %s: %v", hostPort, err)
		}
		if want, _ := wantAnswer(s, "/json/version"); resp.StatusCode != want {
			t.Errorf("a raw request to %s: %d, want %d", hostPort, resp.StatusCode, want)
		}
		resp.Body.Close()
		conn.Close()
	}
	unlisted := "127.0.0.1:1"
	if _, ok := c.Input.HTTP[unlisted]; ok {
		t.Fatalf("the case lists %s", unlisted)
	}
	if _, err := viaTransport.Get("http://" + unlisted + "/json/version"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("GET on an unlisted port: %v, want a refused connection", err)
	}
	if _, err := c.DialContext(context.Background(), "tcp", unlisted); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("DialContext on an unlisted port: %v, want a refused connection", err)
	}
}

// The helpers have value receivers: a Transport or a DialContext taken in a loop keeps its
// own case after the loop moves on.
func TestHelpersTakenInALoopKeepTheirCase(t *testing.T) {
	cases, err := sliccbrowsers.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	type taken struct {
		name      string
		hostPort  string
		transport http.RoundTripper
		dial      func(context.Context, string, string) (net.Conn, error)
	}
	var all []taken
	for _, c := range cases {
		for hostPort := range c.Input.HTTP {
			all = append(all, taken{c.Name, hostPort, c.Transport(), c.DialContext})
			break
		}
	}
	if len(all) < 10 {
		t.Fatalf("only %d cases with a fake server", len(all))
	}
	for _, x := range all {
		conn, err := x.dial(context.Background(), "tcp", x.hostPort)
		if err != nil {
			t.Errorf("%s: DialContext(%s) after the loop: %v", x.name, x.hostPort, err)
			continue
		}
		conn.Close()
		req, _ := http.NewRequest(http.MethodGet, "http://"+x.hostPort+"/json", nil)
		resp, err := x.transport.RoundTrip(req)
		if err != nil {
			t.Errorf("%s: Transport after the loop: %v", x.name, err)
			continue
		}
		resp.Body.Close()
	}
	// And the last case's servers are not every case's.
	last := cases[len(cases)-1]
	for _, x := range all {
		if _, ok := last.Input.HTTP[x.hostPort]; ok {
			continue
		}
		if _, err := last.DialContext(context.Background(), "tcp", x.hostPort); err == nil {
			t.Errorf("the last case connects to %s of %s", x.hostPort, x.name)
		}
	}
}
