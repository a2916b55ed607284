package sliccbrowsers

import _ "embed" // the shipped files, embedded

var (
	//go:embed catalog.json
	catalogJSON []byte
	//go:embed schema/catalog.schema.json
	catalogSchemaJSON []byte
	//go:embed schema/browsers.schema.json
	browsersSchemaJSON []byte
	//go:embed corpus.json
	corpusJSON []byte
	//go:embed schema/corpus.schema.json
	corpusSchemaJSON []byte
	//go:embed protected.json
	protectedJSON []byte
	//go:embed schema/protected.schema.json
	protectedSchemaJSON []byte
	//go:embed guard-vectors.json
	guardVectorsJSON []byte
	//go:embed schema/guard-vectors.schema.json
	guardVectorsSchemaJSON []byte
)

// fresh returns a copy, so no caller can change what the next one gets.
func fresh(b []byte) []byte { return append([]byte(nil), b...) }

// CatalogJSON returns a copy of catalog.json: the browsers, Electron apps, ranking,
// discovery rules, seven's flags and prefs, the protected origins, profiles and platforms.
func CatalogJSON() []byte { return fresh(catalogJSON) }

// CatalogSchemaJSON returns a copy of schema/catalog.schema.json, the JSON Schema (2020-12)
// of catalog.json.
func CatalogSchemaJSON() []byte { return fresh(catalogSchemaJSON) }

// BrowsersSchemaJSON returns a copy of schema/browsers.schema.json, the JSON Schema of
// output schema 1 (slicc browsers --json, playwright-cli list --json, and every corpus
// case's expected.json).
func BrowsersSchemaJSON() []byte { return fresh(browsersSchemaJSON) }

// CorpusJSON returns a copy of corpus.json: every conformance case as
// {"name", "case", "expected"}, tokens unexpanded. [Corpus] parses it.
func CorpusJSON() []byte { return fresh(corpusJSON) }

// CorpusSchemaJSON returns a copy of schema/corpus.schema.json, the JSON Schema of
// corpus.json.
func CorpusSchemaJSON() []byte { return fresh(corpusSchemaJSON) }

// ProtectedJSON returns a copy of protected.json, the protected-origin test vectors.
// [Protected] parses it.
func ProtectedJSON() []byte { return fresh(protectedJSON) }

// ProtectedSchemaJSON returns a copy of schema/protected.schema.json, the JSON Schema of
// protected.json.
func ProtectedSchemaJSON() []byte { return fresh(protectedSchemaJSON) }

// GuardVectorsJSON returns a copy of guard-vectors.json, the vectors every CDP guard runs.
// [Guard] parses it.
func GuardVectorsJSON() []byte { return fresh(guardVectorsJSON) }

// GuardVectorsSchemaJSON returns a copy of schema/guard-vectors.schema.json, the JSON Schema
// of guard-vectors.json.
func GuardVectorsSchemaJSON() []byte { return fresh(guardVectorsSchemaJSON) }
