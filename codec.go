package sliccbrowsers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// ErrSchema is wrapped by the error of a file whose schema member (schema, or schemaVersion
// in guard-vectors.json) is missing or is not 1, the only version this package reads.
var ErrSchema = errors.New("unsupported schema version")

// ErrMissing is wrapped by the error of a required member that is absent.
var ErrMissing = errors.New("required member is missing")

// ErrType is wrapped by the error of a member whose JSON type is not the one the format
// gives it (an array where an object belongs, a string where a number belongs, ...).
var ErrType = errors.New("wrong JSON type")

// Error is the error of every parse in this package: the file, the JSON pointer (RFC 6901)
// of the member at fault, and the cause. It unwraps to the cause, so errors.Is finds
// [ErrSchema], [ErrMissing] and [ErrType], and errors.As finds a *json.SyntaxError or
// *json.UnmarshalTypeError.
type Error struct {
	// File is the file the text was read as, such as "catalog.json"; empty when unknown.
	File string
	// Path is the JSON pointer of the member at fault, such as "/browsers/3/macos/bundleId";
	// empty for the whole text.
	Path string
	// Line and Column (1-based) locate a syntax error in the text; 0 otherwise.
	Line, Column int
	// Err is the cause.
	Err error
}

// Error says where and what: "catalog.json: /browsers/3/id: required member is missing".
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Column)
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// pointerSegment escapes one JSON pointer segment (RFC 6901: ~ as ~0, / as ~1).
func pointerSegment(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// at wraps err with the pointer path; an *Error already carries its own (deeper) path.
func at(path string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Path: path, Err: err}
}

// inFile sets the file (and, for a syntax error, the line and column) of a parse error.
func inFile(file string, text []byte, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Err: err}
	}
	e.File = file
	var syntax *json.SyntaxError
	if errors.As(e.Err, &syntax) && e.Line == 0 {
		e.Line, e.Column = lineColumn(text, syntax.Offset)
	}
	return e
}

// lineColumn turns a byte offset into a 1-based line and column.
func lineColumn(text []byte, offset int64) (int, int) {
	if offset > int64(len(text)) {
		offset = int64(len(text))
	}
	before := text[:offset]
	line := bytes.Count(before, []byte{'\n'}) + 1
	column := int(offset) - (bytes.LastIndexByte(before, '\n') + 1)
	if column < 1 {
		column = 1
	}
	return line, column
}

// parseVersioned checks that text is a JSON object whose member key is the number 1, then
// decodes it into v; every error names file.
func parseVersioned(file string, text []byte, key string, v interface{}) error {
	if err := checkSyntax(text); err != nil {
		return inFile(file, text, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(text, &top); err != nil {
		return inFile(file, text, &Error{Err: fmt.Errorf("%w: the file must be a JSON object", ErrType)})
	}
	raw, ok := top[key]
	if !ok {
		return inFile(file, text, &Error{Path: "/" + key, Err: fmt.Errorf("%w: missing (want 1)", ErrSchema)})
	}
	if strings.TrimSpace(string(raw)) != "1" {
		var n float64
		if json.Unmarshal(raw, &n) != nil || n != 1 {
			return inFile(file, text, &Error{Path: "/" + key, Err: fmt.Errorf("%w: found %s (want 1)", ErrSchema, compact(raw))})
		}
	}
	return inFile(file, text, decodeValue(text, reflect.ValueOf(v).Elem(), ""))
}

// checkSyntax reports the first syntax error of text, as a *json.SyntaxError.
func checkSyntax(text []byte) error {
	if json.Valid(text) {
		return nil
	}
	var v interface{}
	if err := json.Unmarshal(text, &v); err != nil {
		return err
	}
	return errors.New("not valid JSON")
}

// compact is raw without insignificant white space (raw itself when it does not compact).
func compact(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// jsonKind names the JSON type of a raw value, for error messages.
func jsonKind(raw []byte) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// customDecoder is a type that reads its own JSON (such as [GuardExpected]).
type customDecoder interface {
	decodeJSON(data []byte, path string) error
}

var (
	rawMessageType = reflect.TypeOf(json.RawMessage(nil))
	extraType      = reflect.TypeOf(map[string]json.RawMessage(nil))
	decoderType    = reflect.TypeOf((*customDecoder)(nil)).Elem()
	marshalerType  = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
)

// decodeValue decodes data into rv, naming path in its errors: structs member by member
// (exact, case-sensitive names; unknown members into Extra), arrays and objects element by
// element, everything else with encoding/json.
func decodeValue(data []byte, rv reflect.Value, path string) error {
	if rv.CanAddr() && rv.Addr().Type().Implements(decoderType) {
		return rv.Addr().Interface().(customDecoder).decodeJSON(data, path)
	}
	switch {
	case rv.Type() == rawMessageType:
		rv.SetBytes(append(json.RawMessage(nil), bytes.TrimSpace(data)...))
		return nil
	case rv.Kind() == reflect.Ptr:
		if jsonKind(data) == "null" {
			rv.Set(reflect.Zero(rv.Type()))
			return nil
		}
		p := reflect.New(rv.Type().Elem())
		if err := decodeValue(data, p.Elem(), path); err != nil {
			return err
		}
		rv.Set(p)
		return nil
	case rv.Kind() == reflect.Struct:
		return decodeStruct(data, rv, path)
	case rv.Kind() == reflect.Slice:
		var items []json.RawMessage
		if jsonKind(data) != "an array" || json.Unmarshal(data, &items) != nil {
			return at(path, fmt.Errorf("%w: want an array, found %s", ErrType, jsonKind(data)))
		}
		s := reflect.MakeSlice(rv.Type(), len(items), len(items))
		for i, item := range items {
			if err := decodeValue(item, s.Index(i), path+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
		rv.Set(s)
		return nil
	case rv.Kind() == reflect.Map && rv.Type().Key().Kind() == reflect.String:
		var members map[string]json.RawMessage
		if jsonKind(data) != "an object" || json.Unmarshal(data, &members) != nil {
			return at(path, fmt.Errorf("%w: want an object, found %s", ErrType, jsonKind(data)))
		}
		m := reflect.MakeMapWithSize(rv.Type(), len(members))
		for k, item := range members {
			elem := reflect.New(rv.Type().Elem()).Elem()
			if err := decodeValue(item, elem, path+"/"+pointerSegment(k)); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k).Convert(rv.Type().Key()), elem)
		}
		rv.Set(m)
		return nil
	}
	if err := json.Unmarshal(data, rv.Addr().Interface()); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return at(path, fmt.Errorf("%w: want %s, found %s (%v)", ErrType, rv.Type(), jsonKind(data), err))
		}
		return at(path, err)
	}
	return nil
}

// field is one struct field as the codec sees it.
type field struct {
	index    int
	name     string
	optional bool
}

// fieldsOf lists the JSON fields of a struct type: exported fields with a json tag other
// than "-"; omitempty marks an optional member.
func fieldsOf(t reflect.Type) (fields []field, extra int) {
	extra = -1
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Name == "Extra" && f.Type == extraType {
			extra = i
			continue
		}
		tag, ok := f.Tag.Lookup("json")
		if !ok || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fields = append(fields, field{index: i, name: name, optional: strings.Contains(","+opts+",", ",omitempty,")})
	}
	return fields, extra
}

// decodeStruct decodes a JSON object into a struct: each field from the member of exactly
// its tag's name (absent optional members keep the zero value; a null optional member reads
// as absent unless its type reads null itself, as [Auto] does), and every other member into
// Extra when the struct has one.
func decodeStruct(data []byte, rv reflect.Value, path string) error {
	var members map[string]json.RawMessage
	if jsonKind(data) != "an object" || json.Unmarshal(data, &members) != nil {
		return at(path, fmt.Errorf("%w: want an object, found %s", ErrType, jsonKind(data)))
	}
	fields, extra := fieldsOf(rv.Type())
	for _, f := range fields {
		raw, ok := members[f.name]
		sub := path + "/" + pointerSegment(f.name)
		delete(members, f.name)
		custom := reflect.PtrTo(rv.Field(f.index).Type()).Implements(decoderType)
		if !ok || (f.optional && !custom && jsonKind(raw) == "null") {
			if !f.optional {
				return at(sub, ErrMissing)
			}
			continue
		}
		if err := decodeValue(raw, rv.Field(f.index), sub); err != nil {
			return err
		}
	}
	if extra >= 0 {
		var kept map[string]json.RawMessage
		if len(members) > 0 {
			kept = make(map[string]json.RawMessage, len(members))
			for k, v := range members {
				kept[k] = append(json.RawMessage(nil), bytes.TrimSpace(v)...)
			}
		}
		rv.Field(extra).Set(reflect.ValueOf(kept))
	}
	return nil
}

// encodeValue appends the JSON of rv: structs with encodeStruct, slices and maps element by
// element (map keys sorted), raw messages as they are, the rest with encoding/json (no HTML
// escaping).
func encodeValue(b *bytes.Buffer, rv reflect.Value) error {
	switch {
	case rv.Type() == rawMessageType:
		if rv.IsNil() {
			b.WriteString("null")
			return nil
		}
		return json.Compact(b, rv.Bytes())
	case rv.Kind() == reflect.Ptr:
		if rv.IsNil() {
			b.WriteString("null")
			return nil
		}
		return encodeValue(b, rv.Elem())
	case rv.Kind() == reflect.Struct && !rv.Type().Implements(marshalerType):
		return encodeStruct(b, rv)
	case rv.Kind() == reflect.Struct:
		if _, extra := fieldsOf(rv.Type()); extra >= 0 {
			return encodeStruct(b, rv)
		}
	case rv.Kind() == reflect.Slice:
		if rv.IsNil() {
			b.WriteString("null")
			return nil
		}
		b.WriteByte('[')
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encodeValue(b, rv.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case rv.Kind() == reflect.Map && rv.Type().Key().Kind() == reflect.String:
		if rv.IsNil() {
			b.WriteString("null")
			return nil
		}
		keys := make([]string, 0, rv.Len())
		for _, k := range rv.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			encodeString(b, k)
			b.WriteByte(':')
			if err := encodeValue(b, rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key()))); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	}
	return encodeLeaf(b, rv.Interface())
}

// encodeLeaf appends v as encoding/json writes it, without HTML escaping.
func encodeLeaf(b *bytes.Buffer, v interface{}) error {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Write(bytes.TrimRight(out.Bytes(), "\n"))
	return nil
}

// encodeString appends s as a JSON string, without HTML escaping.
func encodeString(b *bytes.Buffer, s string) {
	_ = encodeLeaf(b, s)
}

// encodeStruct appends a struct as a JSON object: its fields in declaration order (an
// optional field only when it is not absent: not nil, not "", not false, not 0), then the
// members of Extra in name order.
func encodeStruct(b *bytes.Buffer, rv reflect.Value) error {
	fields, extra := fieldsOf(rv.Type())
	b.WriteByte('{')
	first := true
	member := func(name string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		encodeString(b, name)
		b.WriteByte(':')
	}
	for _, f := range fields {
		v := rv.Field(f.index)
		if f.optional && absent(v) {
			continue
		}
		member(f.name)
		if err := encodeValue(b, v); err != nil {
			return err
		}
	}
	if extra >= 0 {
		m := rv.Field(extra).Interface().(map[string]json.RawMessage)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			member(k)
			if err := json.Compact(b, m[k]); err != nil {
				return fmt.Errorf("Extra[%q]: %w", k, err)
			}
		}
	}
	b.WriteByte('}')
	return nil
}

// absent reports whether an optional field is left out when written: nil slices, maps,
// pointers and raw messages (an empty but non-nil one was in the file and is written back),
// empty strings, false and zero numbers.
func absent(v reflect.Value) bool {
	if a, ok := v.Interface().(interface{ isAbsent() bool }); ok {
		return a.isAbsent()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.Ptr, reflect.Interface:
		return v.IsNil()
	case reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	}
	return false
}

// reflectOf is the value p points to, settable.
func reflectOf(p interface{}) reflect.Value { return reflect.ValueOf(p).Elem() }

// unmarshalObject is what every typed object's UnmarshalJSON calls.
func unmarshalObject(data []byte, v interface{}) error {
	return decodeValue(data, reflect.ValueOf(v).Elem(), "")
}

// marshalObject is what every typed object's MarshalJSON calls.
func marshalObject(v interface{}) ([]byte, error) {
	var b bytes.Buffer
	if err := encodeStruct(&b, reflect.ValueOf(v)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
