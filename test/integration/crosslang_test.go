package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	sliccbrowsers "github.com/ai-ecoverse/slicc-browsers"
)

// dumpEnv names the file with the Rust crate's answers: what `slicc-browsers corpus dump`
// prints (slicc_browsers::corpus::dump). tests/node_go/go_module.rs writes it and sets the variable.
const dumpEnv = "SLICC_BROWSERS_CORPUS_DUMP"

// rustCase is what the Rust helpers answer for one case on one OS.
type rustCase struct {
	Name     string            `json:"name"`
	OS       string            `json:"os"`
	Home     string            `json:"home"`
	Env      map[string]string `json:"env"`
	Files    [][2]string       `json:"files"`
	CDP      []string          `json:"cdp"`
	Commands [][2]interface{}  `json:"commands"`
	PS       string            `json:"ps"`
	CIM      string            `json:"cim"`
	Expected string            `json:"expected"`
	Layout   struct {
		Config        string              `json:"config"`
		SevenProfiles string              `json:"sevenProfiles"`
		SixProfiles   string              `json:"sixProfiles"`
		UserDataDirs  map[string][]string `json:"userDataDirs"`
	} `json:"layout"`
	Tokens map[string]*string `json:"tokens"`
	HTTP   []struct {
		HostPort string `json:"hostPort"`
		Path     string `json:"path"`
		Status   int    `json:"status"`
		Body     string `json:"body"`
		Refused  bool   `json:"refused"`
	} `json:"http"`
	TCP map[string]bool `json:"tcp"`
}

// readDump reads the Rust crate's answers, or skips (fails when CI is set) without them.
func readDump(t *testing.T) (selfPID int, homes map[string]string, cases []rustCase) {
	t.Helper()
	path := os.Getenv(dumpEnv)
	if path == "" {
		msg := dumpEnv + " is not set: cargo test --all-features --test go_module runs this test with the Rust crate's answers " +
			"(or: cargo run --features cli -- corpus dump > dump.json; " + dumpEnv + "=$PWD/dump.json go test ./...)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + "; CI is set, so this is a failure")
		}
		t.Skip("skipped: " + msg)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var dump struct {
		SelfPID int               `json:"selfPid"`
		Homes   map[string]string `json:"homes"`
		Cases   []rustCase        `json:"cases"`
	}
	if err := json.Unmarshal(text, &dump); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return dump.SelfPID, dump.Homes, dump.Cases
}

// For every case of corpus.json on darwin, linux and windows, the Go helpers give exactly
// what the Rust crate's give: Files, Env, CDP, Commands, PSOutput, CIMOutput, ExpectedJSON,
// the layout's paths and tokens, and the fake servers' answers to HTTP and TCP.
func TestGoHelpersEqualTheCrates(t *testing.T) {
	selfPID, homes, dumped := readDump(t)
	cases, err := sliccbrowsers.Corpus()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]sliccbrowsers.Case{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	seen := map[string]int{}
	compared := 0
	for _, r := range dumped {
		c, ok := byName[r.Name]
		if !ok {
			t.Errorf("the crate has case %s, the Go module does not", r.Name)
			continue
		}
		seen[r.OS+" "+r.Name]++
		if homes[r.OS] != r.Home || r.Home == "" {
			t.Errorf("%s on %s: home %q, homes say %q", r.Name, r.OS, r.Home, homes[r.OS])
		}
		l := sliccbrowsers.Layout{OS: r.OS, Home: r.Home, Getenv: func(k string) string { return c.Input.Env[k] }}
		where := r.Name + " on " + r.OS
		n := compareCase(t, where, c, l, selfPID, r)
		compared += n
	}
	for _, c := range cases {
		for _, goos := range []string{"darwin", "linux", "windows"} {
			if seen[goos+" "+c.Name] != 1 {
				t.Errorf("%s on %s: %d answers from the crate, want 1", c.Name, goos, seen[goos+" "+c.Name])
			}
		}
	}
	t.Logf("%d answers compared over %d cases on 3 OSes", compared, len(cases))
	if compared < 10*len(cases) {
		t.Errorf("only %d answers compared", compared)
	}
}

// compareCase compares every answer for one case on one OS, and says how many it compared.
func compareCase(t *testing.T, where string, c sliccbrowsers.Case, l sliccbrowsers.Layout, selfPID int, r rustCase) int {
	t.Helper()
	n := 0
	eq := func(what string, got, want interface{}) {
		n++
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s:\n  Go:   %#v\n  Rust: %#v", where, what, got, want)
		}
	}
	eq("Env", c.Env(l), orEmpty(r.Env))
	wantFiles := map[string]string{}
	for _, f := range r.Files {
		wantFiles[f[0]] = f[1]
	}
	eq("Files", c.Files(l), wantFiles)
	eq("CDP", c.CDP(l), orEmptyList(r.CDP))
	var rows [][2]interface{}
	for _, row := range c.Commands(l, selfPID) {
		rows = append(rows, [2]interface{}{float64(row.PID), row.Command})
	}
	eq("Commands", fmt.Sprint(rows), fmt.Sprint(r.Commands))
	eq("PSOutput", c.PSOutput(l, selfPID), r.PS)
	eq("CIMOutput", c.CIMOutput(l, selfPID), r.CIM)
	eq("ExpectedJSON", string(c.ExpectedJSON(l)), r.Expected)
	eq("Config", l.Config(), r.Layout.Config)
	eq("SevenProfiles", l.SevenProfiles(), r.Layout.SevenProfiles)
	eq("SixProfiles", l.SixProfiles(), r.Layout.SixProfiles)
	ids := make([]string, 0, len(r.Layout.UserDataDirs))
	for id := range r.Layout.UserDataDirs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		eq("UserDataDirs("+id+")", orEmptyList(l.UserDataDirs(id)), orEmptyList(r.Layout.UserDataDirs[id]))
	}
	for name, want := range r.Tokens {
		got, ok := l.Token(name)
		if want == nil {
			eq("Token("+name+") found", ok, false)
		} else {
			eq("Token("+name+")", fmt.Sprint(got, ok), fmt.Sprint(*want, true))
		}
	}
	for _, h := range r.HTTP {
		status, body, ok := c.HTTPGet(h.HostPort, h.Path)
		what := fmt.Sprintf("HTTPGet(%s, %q)", h.HostPort, h.Path)
		if h.Refused {
			eq(what+" refused", ok, false)
			continue
		}
		eq(what+" status", fmt.Sprint(status, ok), fmt.Sprint(h.Status, true))
		n++
		if !sameJSON([]byte(body), []byte(h.Body)) && !(body == "" && h.Body == "") {
			t.Errorf("%s: %s body:\n  Go:   %s\n  Rust: %s", where, what, body, h.Body)
		}
	}
	for hostPort, want := range r.TCP {
		_, ok := c.Server(hostPort)
		eq("Server("+hostPort+")", ok, want)
	}
	if !strings.Contains(r.Expected, `"schema":1`) {
		t.Errorf("%s: the crate's expected JSON is not compact output schema 1: %.80s", where, r.Expected)
	}
	return n
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func orEmptyList(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
