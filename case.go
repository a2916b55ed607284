package sliccbrowsers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// Runs reports whether a program on goos (darwin, linux or windows, as runtime.GOOS names
// them; macos is accepted too) that supports the needs in supported runs this case: the case
// is for that OS (or every OS) and needs nothing else.
func (c Case) Runs(goos string, supported ...string) bool {
	if goos == "macos" {
		goos = "darwin"
	}
	if len(c.Input.OS) > 0 && !contains(c.Input.OS, goos) {
		return false
	}
	for _, need := range c.Input.Needs {
		if !contains(supported, need) {
			return false
		}
	}
	return true
}

// sortedKeys is the keys of m in byte order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Env is the environment discovery sees: the case's env with its values token-expanded
// (keys as written). It is never nil.
func (c Case) Env(l Layout) map[string]string {
	env := make(map[string]string, len(c.Input.Env))
	for k, v := range c.Input.Env {
		env[k] = l.Expand(v)
	}
	return env
}

// Files is the files to write: path on the OS under test (token-expanded, with its
// separators) to contents (as written). Should two paths expand alike, the later in name
// order wins, as when the crate's list is written in order. It is never nil.
func (c Case) Files(l Layout) map[string]string {
	files := make(map[string]string, len(c.Input.Files))
	for _, path := range sortedKeys(c.Input.Files) {
		files[l.Expand(path)] = c.Input.Files[path]
	}
	return files
}

// CDP is the --cdp URLs, in order, token-expanded.
func (c Case) CDP(l Layout) []string {
	urls := make([]string, len(c.Input.CDP))
	for i, u := range c.Input.CDP {
		urls[i] = l.Expand(u)
	}
	return urls
}

// ProcessRow is one row of the fake process list, laid out: its pid and its command.
type ProcessRow struct {
	// PID is the row's pid (the scanning process's for the self row; 0 when a row has
	// neither).
	PID int
	// Command is the command line, token-expanded.
	Command string
}

// Commands is the process list as rows, in order: the self row takes selfPID, and commands
// are token-expanded. [Case.PSOutput] and [Case.CIMOutput] print these rows.
func (c Case) Commands(l Layout, selfPID int) []ProcessRow {
	rows := make([]ProcessRow, len(c.Input.Processes))
	for i, p := range c.Input.Processes {
		pid := 0
		switch {
		case p.Self:
			pid = selfPID
		case p.PID != nil:
			pid = *p.PID
		}
		rows[i] = ProcessRow{PID: pid, Command: l.Expand(p.Command)}
	}
	return rows
}

// PSOutput is the Unix process list as ps -ax -o pid= -o command= prints it: one line per
// row, the pid right-aligned to 6 characters, a space and the command.
func (c Case) PSOutput(l Layout, selfPID int) string {
	var b bytes.Buffer
	for _, row := range c.Commands(l, selfPID) {
		fmt.Fprintf(&b, "%6d %s\n", row.PID, row.Command)
	}
	return b.String()
}

// CIMOutput is the Windows process list as the catalog's CIM query prints it: a compact
// JSON array of {ProcessId, CommandLine}, starting with the {ProcessId: 4, CommandLine:
// null} row (the System process) the real output has.
func (c Case) CIMOutput(l Layout, selfPID int) string {
	var b bytes.Buffer
	b.WriteString(`[{"ProcessId":4,"CommandLine":null}`)
	for _, row := range c.Commands(l, selfPID) {
		b.WriteString(`,{"ProcessId":`)
		b.WriteString(strconv.Itoa(row.PID))
		b.WriteString(`,"CommandLine":`)
		writeQuoted(&b, row.Command)
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.String()
}

// ExpectedJSON is expected.json with every string value token-expanded (object keys are
// not), compact, members in file order: what discovery's output is compared with, as parsed
// JSON.
func (c Case) ExpectedJSON(l Layout) []byte {
	var b bytes.Buffer
	dec := json.NewDecoder(bytes.NewReader(c.Expected))
	dec.UseNumber()
	if err := expandStrings(dec, &b, l); err != nil {
		// Expected came from a parse that checked it, so this is a hand-built Case.
		return append([]byte(nil), c.Expected...)
	}
	return b.Bytes()
}

// expandStrings copies one JSON value from dec to b, expanding its string values.
func expandStrings(dec *json.Decoder, b *bytes.Buffer, l Layout) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		closing := byte(']')
		if t == '{' {
			closing = '}'
		}
		b.WriteByte(byte(t))
		for first := true; dec.More(); first = false {
			if !first {
				b.WriteByte(',')
			}
			if t == '{' {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				writeQuoted(b, key.(string))
				b.WriteByte(':')
			}
			if err := expandStrings(dec, b, l); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		b.WriteByte(closing)
	case string:
		writeQuoted(b, l.Expand(t))
	case json.Number:
		b.WriteString(t.String())
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case nil:
		b.WriteString("null")
	}
	return nil
}

// writeQuoted writes s as a JSON string the way the Rust crate's serde_json does: ", \ and
// the control characters escaped (\b \f \n \r \t, the rest as \u00xx), everything else as
// it is.
func writeQuoted(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}
