// Package sliccbrowsers is SLICC's shared browser catalog for Go: the catalog, schemas,
// protected-origin vectors, guard vectors and discovery conformance corpus of the
// slicc-browsers repository, embedded in the binary, typed, and the helpers a test harness
// needs to run each corpus case as a fake machine.
//
// It is the Go package of the same files the Rust crate slicc-browsers and the npm package
// @ai-ecoverse/slicc-browsers wrap, at the same version. It uses the standard library only.
//
//	c := sliccbrowsers.Default()
//	b, ok := c.Browser("chrome")
//
// Every parse returns an error that names the file and the JSON pointer of the member at
// fault, and wraps [ErrSchema], [ErrMissing] or [ErrType] (or a *json.SyntaxError) for
// errors.Is and errors.As. Every typed object keeps the members this version does not name
// in its Extra map, so a program that reads a file and writes it again loses nothing.
//
// The corpus helpers ([Corpus], [Case], [Layout]) answer exactly as the Rust crate's corpus
// module does, case by case; the repository's tests compare the two on every case and OS.
package sliccbrowsers
