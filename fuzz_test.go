package sliccbrowsers

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// No input makes a parser panic: every failure is an *Error. The seeds are the shipped files,
// cut short and with values swapped for other JSON types; `go test -fuzz FuzzParsers` explores
// further.
func FuzzParsers(f *testing.F) {
	for _, file := range [][]byte{catalogJSON, protectedJSON, guardVectorsJSON, corpusJSON} {
		f.Add(file)
		for _, n := range []int{1, 10, 100, 1000, 5000} {
			if n < len(file) {
				f.Add(file[:len(file)/n])
			}
		}
		f.Add(bytes.ReplaceAll(file, []byte(`"`), []byte(`[`)))
		f.Add(bytes.ReplaceAll(file, []byte(`true`), []byte(`"x"`)))
		f.Add(bytes.ReplaceAll(file, []byte(`: [`), []byte(`: {"a": [`)))
		f.Add(bytes.ReplaceAll(file, []byte(`: "`), []byte(`: null, "z": "`)))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		for name, parse := range map[string]func([]byte) error{
			"catalog.json":       func(b []byte) error { _, err := Parse(b); return err },
			"protected.json":     func(b []byte) error { _, err := ParseProtected(b); return err },
			"guard-vectors.json": func(b []byte) error { _, err := ParseGuard(b); return err },
			"corpus.json": func(b []byte) error {
				cases, err := ParseCorpus(b)
				for _, c := range cases {
					for _, goos := range []string{"darwin", "linux", "windows"} {
						l := Layout{OS: goos, Home: "/h", Getenv: func(k string) string { return c.Input.Env[k] }}
						_, _, _ = c.Env(l), c.Files(l), c.CDP(l)
						_, _ = c.CIMOutput(l, 1), c.PSOutput(l, 1)
						if !json.Valid(c.ExpectedJSON(l)) && json.Valid(c.Expected) {
							t.Errorf("%s: ExpectedJSON is not JSON", c.Name)
						}
						for hostPort := range c.Input.HTTP {
							_, _, _ = c.HTTPGet(hostPort, "/json")
						}
					}
				}
				return err
			},
		} {
			err := parse(text)
			var e *Error
			if err != nil && (!errors.As(err, &e) || e.File != name) {
				t.Errorf("%s: %v is not an *Error naming the file", name, err)
			}
		}
	})
}
