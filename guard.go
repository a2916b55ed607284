package sliccbrowsers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// The names of guard-vectors.json's vocabulary.
const (
	// GuardTargetSeven is the protected target seven: seven's own origin.
	GuardTargetSeven = "seven"
	// GuardTargetVault is the protected target vault: vault.sliccy.ai.
	GuardTargetVault = "vault"
	// GuardTargetVaultX is the protected target vault-x: a vault branch preview.
	GuardTargetVaultX = "vault-x"
	// GuardTargetApex is the protected target apex: the bare sliccy.ai.
	GuardTargetApex = "apex"
	// GuardTargetOwn is the protected target own: the client page's origin ({client}).
	GuardTargetOwn = "own"
	// GuardOrdinary is the unprotected origin a control runs on (control.origin).
	GuardOrdinary = "ordinary"
	// GuardSameSite is the unprotected origin that is same-site with the target.
	GuardSameSite = "ordinary-same-site"
	// GuardKindCDP is kind "cdp": a runnable vector.
	GuardKindCDP = "cdp"
	// GuardKindText is kind "text": a row in words, reported not-run, never pass.
	GuardKindText = "text"
	// GuardViaGuard is control.via "guard": the control runs through the guard.
	GuardViaGuard = "guard"
	// GuardViaUnguarded is control.via "unguarded": the runner drives the control over its
	// own CDP connection.
	GuardViaUnguarded = "unguarded"
	// GuardScopeAny is scope "any": the vector is for every guard.
	GuardScopeAny = "any"
	// GuardControl is the control leg (a step's on).
	GuardControl = "control"
	// GuardGuarded is the guarded leg (a step's on).
	GuardGuarded = "guarded"
	// GuardCapAutoAttach is the capability autoAttach: Target.setAutoAttach, children steps
	// and child sessions.
	GuardCapAutoAttach = "autoAttach"
	// GuardCapBrowserSession is the capability browserSession: calls on the browser session.
	GuardCapBrowserSession = "browserSession"
	// GuardCapBrowserContexts is the capability browserContexts:
	// Target.createBrowserContext and Target.disposeBrowserContext.
	GuardCapBrowserContexts = "browserContexts"
	// GuardSessionPage is session "page": the row's page (the default).
	GuardSessionPage = "page"
	// GuardSessionBrowser is session "browser": the browser session.
	GuardSessionBrowser = "browser"
	// GuardSessionPageOrBrowser is session "page-or-browser": either (drivers use the page).
	GuardSessionPageOrBrowser = "page-or-browser"
	// GuardSessionChild is session "child": the current auto-attached target.
	GuardSessionChild = "child"
)

// GuardVectors is guard-vectors.json: the vectors every CDP guard runs.
type GuardVectors struct {
	// SchemaVersion is the format version; [ParseGuard] accepts only 1.
	SchemaVersion int `json:"schemaVersion"`
	// SetVersion is the package version the set was released with (0.0.0 in git; Go code
	// gets the version from the module).
	SetVersion string `json:"setVersion"`
	// Sources say where the vectors come from.
	Sources []GuardSource `json:"sources"`
	// Targets are the names a runner maps to origins: the protected targets and the
	// ordinary origins.
	Targets map[string]GuardTargetInfo `json:"targets"`
	// Variants are the detach variants: name to the delay in ms before the client's
	// Target.detachFromTarget.
	Variants map[string]int `json:"variants"`
	// Capabilities are what a transport may lack, each with a description.
	Capabilities GuardCapabilities `json:"capabilities"`
	// Placeholders are every {name} the vectors use, with what it stands for.
	Placeholders map[string]string `json:"placeholders"`
	// Vectors are the vectors, in file order.
	Vectors []GuardVector `json:"vectors"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Vector returns the vector with this id, and whether the set has one. The pointer points
// into g.Vectors.
func (g *GuardVectors) Vector(id string) (*GuardVector, bool) {
	for i := range g.Vectors {
		if g.Vectors[i].ID == id {
			return &g.Vectors[i], true
		}
	}
	return nil, false
}

// GuardSource says where some of the vectors come from (free text).
type GuardSource struct {
	// Repo is the repository or other origin.
	Repo string `json:"repo"`
	// Ref is the commit, tag or version.
	Ref string `json:"ref"`
	// Path is the file.
	Path string `json:"path"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// GuardTargetInfo describes a name of targets that a runner maps to an origin.
type GuardTargetInfo struct {
	// Host is the default host, for the protected targets only ("" otherwise); never a URL
	// a runner must use.
	Host string `json:"host,omitempty"`
	// Description says what the name stands for.
	Description string `json:"description"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// GuardCapabilities is the capabilities a transport may lack, each with its description.
type GuardCapabilities struct {
	// AutoAttach describes [GuardCapAutoAttach].
	AutoAttach string `json:"autoAttach"`
	// BrowserSession describes [GuardCapBrowserSession].
	BrowserSession string `json:"browserSession"`
	// BrowserContexts describes [GuardCapBrowserContexts].
	BrowserContexts string `json:"browserContexts"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// GuardVector is one vector: an attack on a protected target, with its control on an
// ordinary origin.
type GuardVector struct {
	// ID is C…, E… or B…, such as C1.script-nav.
	ID string `json:"id"`
	// Family is C, E or B: the id's first letter.
	Family string `json:"family"`
	// Kind is [GuardKindCDP] or [GuardKindText].
	Kind string `json:"kind"`
	// Scope is [GuardScopeAny], or the one guard the vector is for.
	Scope string `json:"scope"`
	// Setup is the steps before the attack.
	Setup []GuardStep `json:"setup"`
	// Trigger is the attack.
	Trigger []GuardStep `json:"trigger"`
	// Targets are the protected targets the vector runs against.
	Targets []string `json:"targets"`
	// Requires are the capabilities the vector needs (nil when absent).
	Requires []string `json:"requires,omitempty"`
	// Observe is each observed name and how it is checked (nil when absent).
	Observe map[string]GuardObservation `json:"observe,omitempty"`
	// Live is the liveness condition, in prose.
	Live string `json:"live"`
	// LiveCheck is the liveness check, judged on the guarded leg (required for runnable
	// vectors; its JSON is nil when absent).
	LiveCheck GuardCheck `json:"liveCheck,omitempty"`
	// Control is the control on the ordinary origin.
	Control GuardVectorControl `json:"control"`
	// Expected is what the guarded leg must show.
	Expected GuardExpected `json:"expected"`
	// Skip is a target the vector does not apply to (nil when absent).
	Skip *GuardSkip `json:"skip,omitempty"`
	// DesignDependent names the observations that may expect "either" (nil when absent).
	DesignDependent []string `json:"designDependent,omitempty"`
	// Observable says whether the guard host's own origin can show the vector (nil when
	// absent).
	Observable *GuardObservable `json:"observable,omitempty"`
	// AppliesTo are the triggers the vector runs with: href, iframe, popup, redirect (nil
	// when absent).
	AppliesTo []string `json:"appliesTo,omitempty"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Runnable reports whether the vector is runnable (kind "cdp").
func (v *GuardVector) Runnable() bool { return v.Kind == GuardKindCDP }

// GuardVectorControl is a vector's control: the same setup and trigger against an
// unprotected origin, which must succeed.
type GuardVectorControl struct {
	// Origin is [GuardOrdinary].
	Origin string `json:"origin"`
	// Via is [GuardViaGuard] or [GuardViaUnguarded].
	Via string `json:"via"`
	// Expected is what the control leg must show.
	Expected GuardExpected `json:"expected"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// GuardSkip is a target a vector is not run against, and why.
type GuardSkip struct {
	// Target is one of the vector's targets.
	Target string `json:"target"`
	// Reason is "code: text", such as "not-applicable: …".
	Reason string `json:"reason"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// GuardObservable says whether the guard host's own origin can show a vector.
type GuardObservable struct {
	// Own is false when the own target can't show it; nil when absent.
	Own *bool `json:"own,omitempty"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// GuardObservation is an observed name: what it means and how it is checked.
type GuardObservation struct {
	// Means says what the observation means, in prose.
	Means string `json:"means"`
	// Check is how it is judged.
	Check GuardCheck `json:"check"`
	// DependsOn are refusal names: on a leg where any was recorded, the observation is
	// skipped (nil when absent; an empty list stays empty).
	DependsOn []string `json:"dependsOn,omitempty"`
	// Requires are the capabilities the observation needs (nil when absent).
	Requires []string `json:"requires,omitempty"`
	// EitherWhen, when it holds on the guarded leg, makes the expectation there "either"
	// (its JSON is nil when absent).
	EitherWhen GuardCheck `json:"eitherWhen,omitempty"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// GuardOutcome is the outcome an observation must have on a leg: false, true or "either".
type GuardOutcome int

// The outcomes of [GuardExpected.Checks].
const (
	// GuardFalse: the observation must be false.
	GuardFalse GuardOutcome = iota
	// GuardTrue: the observation must be true.
	GuardTrue
	// GuardEither: both match (only for design-dependent names).
	GuardEither
)

// Matches reports whether an observed boolean matches the outcome.
func (o GuardOutcome) Matches(observed bool) bool {
	switch o {
	case GuardEither:
		return true
	case GuardTrue:
		return observed
	}
	return !observed
}

// MarshalJSON writes true, false or "either".
func (o GuardOutcome) MarshalJSON() ([]byte, error) {
	switch o {
	case GuardFalse:
		return []byte("false"), nil
	case GuardTrue:
		return []byte("true"), nil
	case GuardEither:
		return []byte(`"either"`), nil
	}
	return nil, fmt.Errorf("sliccbrowsers: GuardOutcome %d is not false, true or either", int(o))
}

// UnmarshalJSON reads true, false or "either".
func (o *GuardOutcome) UnmarshalJSON(data []byte) error { return o.decodeJSON(data, "") }

func (o *GuardOutcome) decodeJSON(data []byte, path string) error {
	switch string(bytes.TrimSpace(data)) {
	case "false":
		*o = GuardFalse
	case "true":
		*o = GuardTrue
	case `"either"`:
		*o = GuardEither
	default:
		return at(path, fmt.Errorf("%w: an expected outcome is true, false or \"either\", not %s", ErrType, compact(data)))
	}
	return nil
}

// GuardExpected is what a leg must show: observation names to outcomes (Checks, in cdp
// rows), or words (Text, in text rows). Exactly one is set.
type GuardExpected struct {
	// Checks maps each observation name to the outcome it must have.
	Checks map[string]GuardOutcome
	// Text is a text row's expectation, in words.
	Text string
}

// MarshalJSON writes Checks as an object when it is not nil, else Text as a string.
func (e GuardExpected) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if e.Checks == nil {
		encodeString(&b, e.Text)
		return b.Bytes(), nil
	}
	names := make([]string, 0, len(e.Checks))
	for name := range e.Checks {
		names = append(names, name)
	}
	sort.Strings(names)
	b.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		encodeString(&b, name)
		b.WriteByte(':')
		out, err := e.Checks[name].MarshalJSON()
		if err != nil {
			return nil, err
		}
		b.Write(out)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object of outcomes or a string.
func (e *GuardExpected) UnmarshalJSON(data []byte) error { return e.decodeJSON(data, "") }

func (e *GuardExpected) decodeJSON(data []byte, path string) error {
	*e = GuardExpected{}
	switch jsonKind(data) {
	case "a string":
		return decodeValue(data, reflectOf(&e.Text), path)
	case "an object":
		return decodeValue(data, reflectOf(&e.Checks), path)
	}
	return at(path, fmt.Errorf("%w: expected is an object of observation names or a text, not %s", ErrType, jsonKind(data)))
}

// GuardStep is one step of a vector, kept as its JSON object so that a vector read and
// written again is the same; Kind, On and As read its common members.
type GuardStep struct {
	// JSON is the step's object, as it was in the file.
	JSON json.RawMessage
}

// Kind is the step's kind: the one of text, cdp, page, answer, children, settle, wait and
// guess that is a member of the step ("" for none or several).
func (s GuardStep) Kind() string {
	members := s.members()
	kind := ""
	for _, k := range [...]string{"text", "cdp", "page", "answer", "children", "settle", "wait", "guess"} {
		if _, ok := members[k]; ok {
			if kind != "" {
				return ""
			}
			kind = k
		}
	}
	return kind
}

// On is the leg the step runs on ([GuardControl] or [GuardGuarded]), or "" for both.
func (s GuardStep) On() string { return s.text("on") }

// As is the name the step gives its outcome, or "".
func (s GuardStep) As() string { return s.text("as") }

// Children is the nested steps of a children step (nil for any other kind).
func (s GuardStep) Children() []GuardStep {
	var steps []GuardStep
	if raw, ok := s.members()["children"]; ok {
		_ = decodeValue(raw, reflectOf(&steps), "")
	}
	return steps
}

func (s GuardStep) members() map[string]json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(s.JSON, &m)
	return m
}

func (s GuardStep) text(key string) string {
	var v string
	_ = json.Unmarshal(s.members()[key], &v)
	return v
}

// MarshalJSON writes the step's JSON ("null" when it has none).
func (s GuardStep) MarshalJSON() ([]byte, error) { return rawOrNull(s.JSON) }

// UnmarshalJSON keeps the step's JSON; it must be an object.
func (s *GuardStep) UnmarshalJSON(data []byte) error { return s.decodeJSON(data, "") }

func (s *GuardStep) decodeJSON(data []byte, path string) error {
	if jsonKind(data) != "an object" {
		return at(path, fmt.Errorf("%w: a step is an object, not %s", ErrType, jsonKind(data)))
	}
	s.JSON = append(json.RawMessage(nil), bytes.TrimSpace(data)...)
	return nil
}

// GuardCheck is a check (an observation's, a liveCheck or an eitherWhen), kept as its JSON
// object; Kind and Observer read it. The zero GuardCheck (nil JSON) is an absent one.
type GuardCheck struct {
	// JSON is the check's object, as it was in the file.
	JSON json.RawMessage
}

// Kind is the check's kind: its one member that names a check of the format (beacon,
// served, header, event, result, cookie, compare, refused, reached, attached, delivered,
// title, expression, executed, live, hops, detached, pre, loaded, registration, state,
// filtered, blocked, history, frameBlocked, all, any, not), or "" when it has none or several.
func (c GuardCheck) Kind() string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(c.JSON, &m)
	kind := ""
	for _, k := range [...]string{
		"beacon", "served", "header", "event", "result", "cookie", "compare", "refused",
		"reached", "attached", "delivered", "title", "expression", "executed", "live", "hops",
		"detached", "pre", "loaded", "registration", "state", "filtered", "blocked", "history",
		"frameBlocked", "all", "any", "not",
	} {
		if _, ok := m[k]; ok {
			if kind != "" {
				return ""
			}
			kind = k
		}
	}
	return kind
}

// Observer is who judges the check (fixture, client, unguarded, ...), or "" when it does
// not say.
func (c GuardCheck) Observer() string {
	var m struct {
		Observer string `json:"observer"`
	}
	_ = json.Unmarshal(c.JSON, &m)
	return m.Observer
}

// MarshalJSON writes the check's JSON ("null" when it has none).
func (c GuardCheck) MarshalJSON() ([]byte, error) { return rawOrNull(c.JSON) }

// UnmarshalJSON keeps the check's JSON; it must be an object.
func (c *GuardCheck) UnmarshalJSON(data []byte) error { return c.decodeJSON(data, "") }

func (c *GuardCheck) decodeJSON(data []byte, path string) error {
	if jsonKind(data) != "an object" {
		return at(path, fmt.Errorf("%w: a check is an object, not %s", ErrType, jsonKind(data)))
	}
	c.JSON = append(json.RawMessage(nil), bytes.TrimSpace(data)...)
	return nil
}

func (c GuardCheck) isAbsent() bool { return c.JSON == nil }

func rawOrNull(raw json.RawMessage) ([]byte, error) {
	if raw == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Guard parses the embedded guard-vectors.json, anew on every call.
func Guard() (*GuardVectors, error) {
	return ParseGuard(guardVectorsJSON)
}

// ParseGuard parses a guard-vectors.json, rejecting a schemaVersion other than 1
// ([ErrSchema]).
func ParseGuard(text []byte) (*GuardVectors, error) {
	var g GuardVectors
	if err := parseVersioned("guard-vectors.json", text, "schemaVersion", &g); err != nil {
		return nil, err
	}
	return &g, nil
}
