package sliccbrowsers

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The needs a case may have: what a program must support to run it ([Case.Runs]).
const (
	// NeedUserDataDirs: DevToolsActivePort files in browsers' default user-data dirs.
	NeedUserDataDirs = "user-data-dirs"
	// NeedProfiles: DevToolsActivePort files in SLICC's (seven's) profile roots.
	NeedProfiles = "seven-profiles"
	// NeedFlag: --cdp URLs.
	NeedFlag = "flag"
	// NeedProcess: the process-list source.
	NeedProcess = "process"
	// NeedProbe: port probing (slicc only).
	NeedProbe = "probe"
	// NeedOrigins: extra seven origins.
	NeedOrigins = "origins"
	// NeedInstalled: installed browsers take part in the ranking.
	NeedInstalled = "installed"
	// NeedSix: detecting SLICC six's profile dirs and flagging their endpoints.
	NeedSix = "six"
)

// corpusFile is corpus.json: the schema and every case (ParseCorpus returns the cases).
type corpusFile struct {
	Schema int    `json:"schema"`
	Cases  []Case `json:"cases"`
}

// Corpus parses the embedded corpus.json, anew on every call: every case, sorted by name.
func Corpus() ([]Case, error) {
	return ParseCorpus(corpusJSON)
}

// ParseCorpus parses another corpus.json, rejecting a schema other than 1 ([ErrSchema]),
// as the Rust crate's Corpus::parse does.
func ParseCorpus(text []byte) ([]Case, error) {
	var c corpusFile
	if err := parseVersioned("corpus.json", text, "schema", &c); err != nil {
		return nil, err
	}
	return c.Cases, nil
}

// Case is one conformance case: its name (the corpus/<name> dir), its input (case.json,
// a fake machine) and the ranked list it must produce (expected.json).
//
// The helpers have value receivers, so a case captured by a closure in a loop stays right.
type Case struct {
	// Name is the case's directory name, kebab-case.
	Name string `json:"name"`
	// Input is case.json: the fake machine.
	Input Input `json:"case"`
	// Expected is expected.json, an output schema 1 document with its tokens unexpanded
	// (see [Case.ExpectedJSON]).
	Expected json.RawMessage `json:"expected"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Input is case.json: a fake machine. Every member but Description and Needs is optional
// and nil when absent; an empty list or map that the file holds stays empty (not nil), so
// it is written back.
type Input struct {
	// Description says what the case pins.
	Description string `json:"description"`
	// OS is the OSes the case runs on (darwin, linux, windows); nil means all.
	OS []string `json:"os,omitempty"`
	// Needs is what a program must support to run the case (the Need* constants).
	Needs []string `json:"needs"`
	// Env is the only environment discovery sees; values may hold tokens.
	Env map[string]string `json:"env,omitempty"`
	// Files is file contents by path; each path starts with a token.
	Files map[string]string `json:"files,omitempty"`
	// CDP is the --cdp URLs, in order; they may hold tokens.
	CDP []string `json:"cdp,omitempty"`
	// Origins is the extra seven origins.
	Origins []string `json:"origins,omitempty"`
	// ProbePorts is the ports the probe tries (never 9222 to 9229).
	ProbePorts []int `json:"probePorts,omitempty"`
	// Processes is the fake process list, in order.
	Processes []FakeProcess `json:"processes,omitempty"`
	// HTTP is the fake HTTP servers by host:port; every other port refuses connections.
	HTTP map[string]FakeServer `json:"http,omitempty"`
	// Installed is the installed browsers, in output schema 1's installed shape, ranked
	// with the endpoints.
	Installed []json.RawMessage `json:"installed,omitempty"`
	// Auto is present exactly in the cases that need six: the id of the first expected
	// entry that is not six's, or null when there is none.
	Auto Auto `json:"auto,omitempty"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Auto is case.json's auto member, which has three states: absent (Present false), null
// (Present true, ID ""), or the id of an entry.
type Auto struct {
	// Present says whether case.json has the member.
	Present bool
	// ID is the entry's id; "" for null.
	ID string
}

func (a Auto) isAbsent() bool { return !a.Present }

// MarshalJSON writes the id, or null when ID is "".
func (a Auto) MarshalJSON() ([]byte, error) {
	if a.ID == "" {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	encodeString(&b, a.ID)
	return b.Bytes(), nil
}

// UnmarshalJSON reads a string or null; either makes the member present.
func (a *Auto) UnmarshalJSON(data []byte) error { return a.decodeJSON(data, "") }

func (a *Auto) decodeJSON(data []byte, path string) error {
	switch jsonKind(data) {
	case "null":
		*a = Auto{Present: true}
		return nil
	case "a string":
		*a = Auto{Present: true}
		return decodeValue(data, reflectOf(&a.ID), path)
	}
	return at(path, fmt.Errorf("%w: auto is a string or null, not %s", ErrType, jsonKind(data)))
}

// FakeProcess is one row of the fake process list: a pid, or Self for the scanning process.
type FakeProcess struct {
	// PID is the pid; nil for the self row.
	PID *int `json:"pid,omitempty"`
	// Self marks the scanning process itself; the harness fills in its real pid.
	Self bool `json:"self,omitempty"`
	// Command is the full command line; it may hold tokens.
	Command string `json:"command"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// FakeServer is a fake HTTP server: the bodies of /json/version and /json/list (also
// /json). A missing body answers 404, and so does every other path.
type FakeServer struct {
	// Version is the body of GET /json/version; nil when absent.
	Version json.RawMessage `json:"version,omitempty"`
	// List is the items of the body of GET /json/list and GET /json; nil when absent.
	List []json.RawMessage `json:"list,omitempty"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}
