package sliccbrowsers

import (
	"encoding/json"
	"testing"
)

// rawArray is the items of the array at key in a JSON object.
func rawArray(t *testing.T, doc []byte, key string) []json.RawMessage {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(top[key], &items); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return items
}

func TestDefaultIsTheEmbeddedCatalogParsedOnce(t *testing.T) {
	c := Default()
	again, err := Load()
	if err != nil || again != c {
		t.Fatalf("Load after Default: %p, %v; want the same catalog %p", again, err, c)
	}
	own, err := Parse(CatalogJSON())
	if err != nil {
		t.Fatal(err)
	}
	if own == c {
		t.Error("Parse returned the shared catalog")
	}
	if c.Schema != 1 || c.MinChromiumMajor < 100 {
		t.Errorf("schema %d, minChromiumMajor %d", c.Schema, c.MinChromiumMajor)
	}
	raw := rawArray(t, CatalogJSON(), "browsers")
	if len(c.Browsers) != len(raw) || len(raw) < 10 {
		t.Fatalf("%d browsers typed, %d in catalog.json", len(c.Browsers), len(raw))
	}
	for i, r := range raw {
		var b struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(r, &b)
		got, ok := c.Browser(b.ID)
		if !ok || got != &c.Browsers[i] || got.ID != b.ID {
			t.Errorf("Browser(%q) = %v, %v; want browsers[%d]", b.ID, got, ok, i)
		}
		if p := c.Priority(b.ID); p != i {
			t.Errorf("Priority(%q) = %d, want %d", b.ID, p, i)
		}
	}
	if _, ok := c.Browser("no-such-browser"); ok {
		t.Error("Browser found no-such-browser")
	}
	if p := c.Priority("no-such-browser"); p != len(c.Browsers) {
		t.Errorf("Priority(no-such-browser) = %d, want %d", p, len(c.Browsers))
	}
	chrome, _ := c.Browser(c.Rank.ChromeID)
	if chrome == nil || chrome.Macos.BundleID != "com.google.Chrome" || chrome.Windows == nil || chrome.Linux == nil {
		t.Errorf("rank.chromeId %q: %+v", c.Rank.ChromeID, chrome)
	}
	if len(c.ProtectedOrigins.Domains) == 0 || c.ProtectedOrigins.Refusal == "" {
		t.Errorf("protectedOrigins: %+v", c.ProtectedOrigins)
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal(CatalogJSON(), &top)
	var electron struct {
		MacosApps []json.RawMessage `json:"macosApps"`
	}
	_ = json.Unmarshal(top["electron"], &electron)
	if len(c.Electron.MacosApps) != len(electron.MacosApps) {
		t.Errorf("%d Electron apps typed, %d in catalog.json", len(c.Electron.MacosApps), len(electron.MacosApps))
	}
	if len(c.Extra) != 0 {
		t.Errorf("members this version does not know in the shipped catalog: %v", c.Extra)
	}
}

func TestProtectedVectors(t *testing.T) {
	v, err := Protected()
	if err != nil {
		t.Fatal(err)
	}
	text := ProtectedJSON()
	for key, n := range map[string]int{"origins": len(v.Origins), "urls": len(v.URLs), "targets": len(v.Targets), "cookieDomains": len(v.CookieDomains), "storageKeys": len(v.StorageKeys)} {
		if want := len(rawArray(t, text, key)); n != want || n == 0 {
			t.Errorf("%s: %d typed, %d in protected.json", key, n, want)
		}
	}
	openers := map[string]int{}
	for _, target := range v.Targets {
		openers[target.Opener]++
	}
	for _, o := range []string{"", OpenerProtected, OpenerUnprotected, OpenerUnknown} {
		if openers[o] == 0 {
			t.Errorf("no target vector with opener %q", o)
		}
		delete(openers, o)
	}
	if len(openers) != 0 {
		t.Errorf("openers with no constant: %v", openers)
	}
	again, _ := Protected()
	again.URLs[0].URL = "changed"
	if v.URLs[0].URL == "changed" {
		t.Error("Protected shares its result")
	}
}

func TestGuardVectors(t *testing.T) {
	g, err := Guard()
	if err != nil {
		t.Fatal(err)
	}
	text := GuardVectorsJSON()
	if g.SchemaVersion != 1 || g.SetVersion == "" {
		t.Errorf("schemaVersion %d, setVersion %q", g.SchemaVersion, g.SetVersion)
	}
	if want := len(rawArray(t, text, "vectors")); len(g.Vectors) != want || want < 50 {
		t.Errorf("%d vectors typed, %d in guard-vectors.json", len(g.Vectors), want)
	}
	var whole map[string]json.RawMessage
	_ = json.Unmarshal(text, &whole)
	top := map[string]map[string]json.RawMessage{}
	for _, key := range []string{"targets", "variants", "placeholders"} {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(whole[key], &m)
		top[key] = m
	}
	if len(g.Targets) != len(top["targets"]) || len(g.Variants) != len(top["variants"]) || len(g.Placeholders) != len(top["placeholders"]) || len(top["placeholders"]) == 0 {
		t.Errorf("targets %d/%d, variants %d/%d, placeholders %d/%d typed/in the file", len(g.Targets), len(top["targets"]), len(g.Variants), len(top["variants"]), len(g.Placeholders), len(top["placeholders"]))
	}
	if want := len(rawArray(t, text, "sources")); len(g.Sources) != want {
		t.Errorf("%d sources typed, %d in the file", len(g.Sources), want)
	}
	for _, name := range []string{GuardTargetSeven, GuardTargetVault, GuardTargetVaultX, GuardTargetApex, GuardTargetOwn, GuardOrdinary, GuardSameSite} {
		if _, ok := g.Targets[name]; !ok {
			t.Errorf("targets has no %q", name)
		}
	}
	if g.Variants["prompt"] != 0 || g.Variants["lagging"] != 8000 {
		t.Errorf("variants: %v", g.Variants)
	}
	if g.Capabilities.AutoAttach == "" || g.Capabilities.BrowserSession == "" || g.Capabilities.BrowserContexts == "" || len(g.Placeholders) == 0 {
		t.Errorf("capabilities %+v, %d placeholders", g.Capabilities, len(g.Placeholders))
	}
	seen := map[string]bool{}
	steps, checks := 0, 0
	var walk func([]GuardStep)
	walk = func(list []GuardStep) {
		for _, s := range list {
			steps++
			seen["kind:"+s.Kind()] = true
			seen["on:"+s.On()] = true
			var m map[string]json.RawMessage
			_ = json.Unmarshal(s.JSON, &m)
			var session string
			_ = json.Unmarshal(m["session"], &session)
			seen["session:"+session] = true
			for _, r := range m["requires"] {
				_ = r
			}
			if s.Kind() == "" {
				t.Errorf("a step of no kind: %s", s.JSON)
			}
			walk(s.Children())
		}
	}
	for _, v := range g.Vectors {
		seen["kind:"+v.Kind] = true
		seen["via:"+v.Control.Via] = true
		seen["scope:"+v.Scope] = true
		for _, c := range append(append([]string{}, v.Requires...), v.Targets...) {
			seen["name:"+c] = true
		}
		walk(v.Setup)
		walk(v.Trigger)
		if v.Runnable() != (v.Kind == GuardKindCDP) {
			t.Errorf("%s: Runnable", v.ID)
		}
		if v.Runnable() && (v.Expected.Checks == nil || v.Control.Expected.Checks == nil || v.LiveCheck.Kind() == "") {
			t.Errorf("%s: a cdp row without expected checks or a liveCheck", v.ID)
		}
		if !v.Runnable() && (v.Expected.Text == "" || v.Expected.Checks != nil) {
			t.Errorf("%s: a text row without an expected text", v.ID)
		}
		for name, o := range v.Observe {
			checks++
			if o.Check.Kind() == "" || o.Means == "" {
				t.Errorf("%s: observation %s: check %s", v.ID, name, o.Check.JSON)
			}
			if o.EitherWhen.JSON != nil && o.EitherWhen.Kind() == "" {
				t.Errorf("%s: %s: eitherWhen %s", v.ID, name, o.EitherWhen.JSON)
			}
		}
		for name, outcome := range v.Expected.Checks {
			if outcome == GuardEither && !contains(v.DesignDependent, name) {
				t.Errorf("%s: %s expects either but is not design-dependent", v.ID, name)
			}
		}
		if found, ok := g.Vector(v.ID); !ok || found.ID != v.ID {
			t.Errorf("Vector(%q)", v.ID)
		}
	}
	if seen["via:"] {
		t.Error("a control without via")
	}
	for _, want := range []string{
		"kind:" + GuardKindCDP, "kind:" + GuardKindText, "via:" + GuardViaGuard,
		"scope:" + GuardScopeAny, "on:" + GuardControl, "on:" + GuardGuarded,
		"name:" + GuardCapAutoAttach, "name:" + GuardCapBrowserSession, "name:" + GuardCapBrowserContexts,
		"session:" + GuardSessionBrowser, "session:" + GuardSessionChild, "session:" + GuardSessionPageOrBrowser,
		"kind:cdp", "kind:page", "kind:children", "kind:settle",
	} {
		if !seen[want] {
			t.Errorf("no %s in guard-vectors.json", want)
		}
	}
	if steps < 200 || checks < 100 {
		t.Errorf("only %d steps and %d observations read", steps, checks)
	}
	if _, ok := g.Vector("no-such-vector"); ok {
		t.Error("Vector found no-such-vector")
	}
}

func TestGuardOutcomeAndExpected(t *testing.T) {
	for _, c := range []struct {
		o    GuardOutcome
		json string
		t, f bool
	}{{GuardTrue, "true", true, false}, {GuardFalse, "false", false, true}, {GuardEither, `"either"`, true, true}} {
		if c.o.Matches(true) != c.t || c.o.Matches(false) != c.f {
			t.Errorf("%s: Matches", c.json)
		}
		out, err := json.Marshal(c.o)
		if err != nil || string(out) != c.json {
			t.Errorf("%d: %s, %v", c.o, out, err)
		}
		var back GuardOutcome
		if err := json.Unmarshal([]byte(c.json), &back); err != nil || back != c.o {
			t.Errorf("%s: read back %v, %v", c.json, back, err)
		}
	}
	var o GuardOutcome
	if err := json.Unmarshal([]byte(`"maybe"`), &o); err == nil {
		t.Error(`"maybe" read as an outcome`)
	}
	var e GuardExpected
	if err := json.Unmarshal([]byte(`{"a": true, "b": "either"}`), &e); err != nil || e.Checks["a"] != GuardTrue || e.Checks["b"] != GuardEither {
		t.Errorf("checks: %+v, %v", e, err)
	}
	if err := json.Unmarshal([]byte(`"in words"`), &e); err != nil || e.Text != "in words" || e.Checks != nil {
		t.Errorf("text: %+v, %v", e, err)
	}
	if err := json.Unmarshal([]byte(`[1]`), &e); err == nil {
		t.Error("an array read as expected")
	}
}

func TestCorpusCases(t *testing.T) {
	cases, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	raw := rawArray(t, CorpusJSON(), "cases")
	if len(cases) != len(raw) || len(raw) < 50 {
		t.Fatalf("%d cases typed, %d in corpus.json", len(cases), len(raw))
	}
	auto := 0
	for i, c := range cases {
		var r struct {
			Name string `json:"name"`
			Case struct {
				Processes []json.RawMessage          `json:"processes"`
				HTTP      map[string]json.RawMessage `json:"http"`
				Auto      json.RawMessage            `json:"auto"`
			} `json:"case"`
		}
		_ = json.Unmarshal(raw[i], &r)
		if c.Name != r.Name || len(c.Input.Processes) != len(r.Case.Processes) || len(c.Input.HTTP) != len(r.Case.HTTP) {
			t.Errorf("case %d: %s with %d processes and %d servers; the file: %s, %d, %d", i, c.Name, len(c.Input.Processes), len(c.Input.HTTP), r.Name, len(r.Case.Processes), len(r.Case.HTTP))
		}
		if c.Input.Auto.Present != contains(c.Input.Needs, NeedSix) {
			t.Errorf("%s: auto present %v, needs %v", c.Name, c.Input.Auto.Present, c.Input.Needs)
		}
		if c.Input.Auto.Present {
			auto++
			if (string(r.Case.Auto) == "null") != (c.Input.Auto.ID == "") {
				t.Errorf("%s: auto %s read as %+v", c.Name, r.Case.Auto, c.Input.Auto)
			}
		}
	}
	if auto == 0 {
		t.Error("no case with auto")
	}
}
