package sliccbrowsers_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	sliccbrowsers "github.com/ai-ecoverse/slicc-browsers"
)

// The spec's example: the embedded catalog, and one browser by id.
func ExampleDefault() {
	c := sliccbrowsers.Default()
	b, ok := c.Browser("chrome")
	fmt.Println(ok, b.Name, b.Macos.BundleID)
	fmt.Println(c.Priority("chrome"), c.Priority("no-such-browser") == len(c.Browsers))
	// Output:
	// true Google Chrome com.google.Chrome
	// 0 true
}

// Errors name the file and the member, and wrap a sentinel for errors.Is.
func ExampleParse() {
	_, err := sliccbrowsers.Parse([]byte(`{"schema": 2}`))
	fmt.Println(errors.Is(err, sliccbrowsers.ErrSchema))
	fmt.Println(err)
	_, err = sliccbrowsers.Parse([]byte(`{"schema": 1}`))
	fmt.Println(errors.Is(err, sliccbrowsers.ErrMissing), err)
	// Output:
	// true
	// catalog.json: /schema: unsupported schema version: found 2 (want 1)
	// true catalog.json: /minChromiumMajor: required member is missing
}

// The protected-origin vectors every matcher runs.
func ExampleProtected() {
	v, err := sliccbrowsers.Protected()
	if err != nil {
		panic(err)
	}
	for _, u := range v.URLs {
		if u.URL == "https://seven.sliccy.ai/" {
			fmt.Println(u.URL, u.Protected)
		}
	}
	// Output: https://seven.sliccy.ai/ true
}

// The guard vectors: a vector by id, its targets and what its legs must show.
func ExampleGuard() {
	g, err := sliccbrowsers.Guard()
	if err != nil {
		panic(err)
	}
	v, _ := g.Vector("C1.script-nav")
	fmt.Println(v.Kind == sliccbrowsers.GuardKindCDP, v.Targets[0] == sliccbrowsers.GuardTargetSeven)
	fmt.Println(v.Trigger[0].Kind(), v.Control.Via == sliccbrowsers.GuardViaGuard)
	fmt.Println(v.Expected.Checks["arrived"].Matches(false), v.Control.Expected.Checks["arrived"] == sliccbrowsers.GuardTrue)
	// Output:
	// true true
	// page true
	// true true
}

// The spec's harness loop, as slicc-cli's test/integration/corpus_test.go writes it: per case
// it supports, a temporary home with the case's files, the fake process list, the fake
// servers behind an http.Client, and expected.json with its tokens expanded.
func ExampleCorpus() {
	cases, err := sliccbrowsers.Corpus()
	if err != nil {
		panic(err)
	}
	laidOut := 0
	for _, c := range cases {
		if !c.Runs("linux", sliccbrowsers.NeedUserDataDirs, sliccbrowsers.NeedProfiles, sliccbrowsers.NeedFlag, sliccbrowsers.NeedProcess) {
			continue
		}
		home, err := os.MkdirTemp("", "corpus-home-")
		if err != nil {
			panic(err)
		}
		l := sliccbrowsers.Layout{OS: "linux", Home: home, Getenv: func(k string) string { return c.Input.Env[k] }}
		for path, contents := range c.Files(l) {
			_ = os.MkdirAll(filepath.Dir(path), 0o755)
			_ = os.WriteFile(path, []byte(contents), 0o644)
		}
		_ = c.PSOutput(l, os.Getpid()) // what `ps -ax -o pid= -o command=` would print
		client := &http.Client{Transport: c.Transport()}
		for hostPort := range c.Input.HTTP {
			if resp, err := client.Get("http://" + hostPort + "/json/version"); err == nil {
				resp.Body.Close()
			}
		}
		// Discovery runs here, with c.CDP(l) as its --cdp URLs; its JSON is compared with:
		if json.Valid(c.ExpectedJSON(l)) {
			laidOut++
		}
		os.RemoveAll(home)
	}
	fmt.Println(laidOut > 0)
	// Output: true
}

// A layout on Windows, computed anywhere: paths use the OS under test's separator.
func ExampleLayout() {
	l := sliccbrowsers.Layout{OS: "windows", Home: `C:\Users\me`}
	fmt.Println(l.Config())
	fmt.Println(l.Expand("{home}/a/b --x"))
	dir, ok := l.Token("userData:chrome")
	fmt.Println(dir, ok)
	// Output:
	// C:\Users\me\AppData\Roaming
	// C:\Users\me\a\b --x
	// C:\Users\me\AppData\Local\Google\Chrome\User Data true
}
