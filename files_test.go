package sliccbrowsers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The embedded files are the repository's, and each call returns a copy of its own.
func TestEmbeddedFilesAreTheFilesAndFreshCopies(t *testing.T) {
	files := map[string]func() []byte{
		"catalog.json":                     CatalogJSON,
		"schema/catalog.schema.json":       CatalogSchemaJSON,
		"schema/browsers.schema.json":      BrowsersSchemaJSON,
		"corpus.json":                      CorpusJSON,
		"schema/corpus.schema.json":        CorpusSchemaJSON,
		"protected.json":                   ProtectedJSON,
		"schema/protected.schema.json":     ProtectedSchemaJSON,
		"guard-vectors.json":               GuardVectorsJSON,
		"schema/guard-vectors.schema.json": GuardVectorsSchemaJSON,
	}
	for name, get := range files {
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		got := get()
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the embedded copy differs from the file", name)
		}
		if !json.Valid(got) {
			t.Errorf("%s: not valid JSON", name)
		}
		for i := range got {
			got[i] = 'x'
		}
		if !bytes.Equal(get(), want) {
			t.Errorf("%s: changing one copy changed the next", name)
		}
	}
}

// generic decodes JSON with numbers as written.
func generic(t *testing.T, data []byte) interface{} {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v interface{}
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v in %.200s", err, data)
	}
	return v
}

// firstDifference is the JSON pointer of the first place a and b differ ("" when equal).
func firstDifference(path string, a, b interface{}) string {
	if reflect.DeepEqual(a, b) {
		return ""
	}
	switch x := a.(type) {
	case map[string]interface{}:
		if y, ok := b.(map[string]interface{}); ok {
			keys := make([]string, 0, len(x)+len(y))
			for k := range x {
				keys = append(keys, k)
			}
			for k := range y {
				if _, ok := x[k]; !ok {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				if d := firstDifference(path+"/"+k, x[k], y[k]); d != "" {
					return d
				}
			}
		}
	case []interface{}:
		if y, ok := b.([]interface{}); ok && len(x) == len(y) {
			for i := range x {
				if d := firstDifference(path+"/"+strconv.Itoa(i), x[i], y[i]); d != "" {
					return d
				}
			}
		}
	}
	return fmt.Sprintf("%s: %v vs %v", path, a, b)
}

// sameJSON fails unless a and b are the same JSON value.
func sameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if d := firstDifference("", generic(t, got), generic(t, want)); d != "" {
		t.Errorf("%s: re-encoded JSON differs at %s", what, d)
	}
}

// parsers is every file this package types, with its parser and a way to re-encode it.
func parsers() map[string]func([]byte) (interface{}, error) {
	return map[string]func([]byte) (interface{}, error){
		"catalog.json":       func(b []byte) (interface{}, error) { return Parse(b) },
		"protected.json":     func(b []byte) (interface{}, error) { return ParseProtected(b) },
		"guard-vectors.json": func(b []byte) (interface{}, error) { return ParseGuard(b) },
		"corpus.json": func(b []byte) (interface{}, error) {
			cases, err := ParseCorpus(b)
			if err != nil {
				return nil, err
			}
			return &corpusFile{Schema: 1, Cases: cases}, nil
		},
	}
}

// Reading a file and writing it again gives the same JSON: no member is lost or changed.
func TestReencodingAShippedFileLosesNothing(t *testing.T) {
	for name, parse := range parsers() {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := parse(text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sameJSON(t, name, out, text)
	}
}

// typedObjects lists the JSON pointer of every typed object (a struct with Extra) in v.
func typedObjects(rv reflect.Value, path string, out *[]string) {
	switch rv.Kind() {
	case reflect.Ptr:
		if !rv.IsNil() {
			typedObjects(rv.Elem(), path, out)
		}
	case reflect.Struct:
		fields, extra := fieldsOf(rv.Type())
		if extra >= 0 {
			*out = append(*out, path)
		}
		for _, f := range fields {
			typedObjects(rv.Field(f.index), path+"/"+pointerSegment(f.name), out)
		}
	case reflect.Slice:
		if rv.Type() == rawMessageType {
			return
		}
		for i := 0; i < rv.Len(); i++ {
			typedObjects(rv.Index(i), path+"/"+strconv.Itoa(i), out)
		}
	case reflect.Map:
		for _, k := range rv.MapKeys() {
			typedObjects(rv.MapIndex(k), path+"/"+pointerSegment(k.String()), out)
		}
	}
}

// addMember adds name: value to the object at pointer path in the generic JSON doc.
func addMember(t *testing.T, doc interface{}, path, name string, value interface{}) {
	t.Helper()
	node := doc
	if path != "" {
		for _, seg := range strings.Split(path[1:], "/") {
			seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
			switch n := node.(type) {
			case map[string]interface{}:
				node = n[seg]
			case []interface{}:
				i, _ := strconv.Atoi(seg)
				node = n[i]
			}
		}
	}
	obj, ok := node.(map[string]interface{})
	if !ok {
		t.Fatalf("%s is not an object", path)
	}
	obj[name] = value
}

// A member a later minor release may add, anywhere a typed object is, survives a read and a
// write: every typed object of every file gets one.
func TestUnknownMembersSurviveEveryTypedObject(t *testing.T) {
	for name, parse := range parsers() {
		text, _ := os.ReadFile(name)
		v, err := parse(text)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		typedObjects(reflect.ValueOf(v), "", &paths)
		if len(paths) < 20 {
			t.Fatalf("%s: only %d typed objects", name, len(paths))
		}
		doc := generic(t, text)
		for i, p := range paths {
			addMember(t, doc, p, "futureMember", map[string]interface{}{"n": json.Number(strconv.Itoa(i)), "s": []interface{}{"x"}})
		}
		grown, _ := json.Marshal(doc)
		v2, err := parse(grown)
		if err != nil {
			t.Fatalf("%s with new members: %v", name, err)
		}
		out, err := json.Marshal(v2)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, name+" with a new member in each of its "+strconv.Itoa(len(paths))+" typed objects", out, grown)
		if name == "catalog.json" {
			c := v2.(*Catalog)
			if string(c.Browsers[0].Macos.Extra["futureMember"]) == "" || c.Extra["futureMember"] == nil {
				t.Errorf("catalog.json: the new members are not in Extra")
			}
		}
	}
}

// Parse errors name the file and the member, and wrap what errors.Is and errors.As look for.
func TestParseErrorsNameFileAndPath(t *testing.T) {
	catalog := generic(t, CatalogJSON()).(map[string]interface{})
	with := func(change func(map[string]interface{})) []byte {
		doc := generic(t, CatalogJSON()).(map[string]interface{})
		change(doc)
		b, _ := json.Marshal(doc)
		return b
	}
	_ = catalog
	cases := []struct {
		name string
		text []byte
		is   error
		path string
		line int
	}{
		{"schema 2", with(func(d map[string]interface{}) { d["schema"] = 2 }), ErrSchema, "/schema", 0},
		{"schema as a string", with(func(d map[string]interface{}) { d["schema"] = "1" }), ErrSchema, "/schema", 0},
		{"no schema", with(func(d map[string]interface{}) { delete(d, "schema") }), ErrSchema, "/schema", 0},
		{"a browser without an id", with(func(d map[string]interface{}) {
			delete(d["browsers"].([]interface{})[2].(map[string]interface{}), "id")
		}), ErrMissing, "/browsers/2/id", 0},
		{"a bundle id that is a number", with(func(d map[string]interface{}) {
			d["browsers"].([]interface{})[1].(map[string]interface{})["macos"].(map[string]interface{})["bundleId"] = 7
		}), ErrType, "/browsers/1/macos/bundleId", 0},
		{"a Windows root that is a list", with(func(d map[string]interface{}) {
			d["platforms"].(map[string]interface{})["windows"].(map[string]interface{})["roots"].(map[string]interface{})["A/B"] = []interface{}{}
		}), ErrType, "/platforms/windows/roots/A~1B", 0},
		{"an array", []byte(`[1]`), ErrType, "", 0},
		{"bad JSON", []byte("{\n  \"schema\": 1,\n  \"x\": ]\n}"), nil, "", 3},
	}
	for _, c := range cases {
		_, err := Parse(c.text)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v is not an *Error", c.name, err)
			continue
		}
		if e.File != "catalog.json" || !strings.HasPrefix(err.Error(), "catalog.json: ") {
			t.Errorf("%s: %q does not name catalog.json", c.name, err)
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: %q is not %v", c.name, err, c.is)
		}
		if e.Path != c.path || (c.path != "" && !strings.Contains(err.Error(), c.path)) {
			t.Errorf("%s: %q: path %q, want %q", c.name, err, e.Path, c.path)
		}
		if c.line > 0 {
			var syntax *json.SyntaxError
			if !errors.As(err, &syntax) || e.Line != c.line || e.Column != 8 {
				t.Errorf("%s: %q: want a syntax error at line %d, column 8", c.name, err, c.line)
			}
		}
	}
	if _, err := ParseGuard([]byte(`{"schemaVersion": 2}`)); !errors.Is(err, ErrSchema) || !strings.HasPrefix(err.Error(), "guard-vectors.json: ") {
		t.Errorf("guard schema 2: %v", err)
	}
	if _, err := ParseProtected([]byte(`{"schema": 3}`)); !errors.Is(err, ErrSchema) || !strings.HasPrefix(err.Error(), "protected.json: ") {
		t.Errorf("protected schema 3: %v", err)
	}
	if _, err := ParseCorpus([]byte(`{"schema": 1, "cases": [{"name": "x", "case": {"description": "d", "needs": ["flag"], "auto": 3}, "expected": {}}]}`)); !errors.Is(err, ErrType) || !strings.Contains(err.Error(), "corpus.json: /cases/0/case/auto: ") {
		t.Errorf("corpus auto 3: %v", err)
	}
	if cases, err := ParseCorpus([]byte(`{"schema": 1, "cases": []}`)); err != nil || len(cases) != 0 {
		t.Errorf("an empty corpus: %v, %d cases", err, len(cases))
	}
}
