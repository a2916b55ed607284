package sliccbrowsers_test

import (
	"errors"
	"fmt"

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
