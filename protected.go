package sliccbrowsers

import "encoding/json"

// The values of a target vector's Opener, besides "" for a target without an opener.
const (
	// OpenerProtected: the target's opener is protected.
	OpenerProtected = "protected"
	// OpenerUnprotected: the target's opener is not protected.
	OpenerUnprotected = "unprotected"
	// OpenerUnknown: the opener was closed before the program saw it.
	OpenerUnknown = "unknown"
)

// ProtectedVectors is protected.json: the vectors every protected-origin matcher runs, all
// with the same extra origins.
type ProtectedVectors struct {
	// Schema is the format version; [ParseProtected] accepts only 1.
	Schema int `json:"schema"`
	// Origins are the extra origins every vector runs with.
	Origins []string `json:"origins"`
	// URLs are the URL vectors.
	URLs []URLVector `json:"urls"`
	// Targets are the CDP target vectors.
	Targets []TargetVector `json:"targets"`
	// CookieDomains are the cookie-domain vectors.
	CookieDomains []CookieDomainVector `json:"cookieDomains"`
	// StorageKeys are the storage-key vectors.
	StorageKeys []StorageKeyVector `json:"storageKeys"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// URLVector is one of urls: a URL and whether it is protected.
type URLVector struct {
	// URL is any text; text that does not parse as a URL is not protected.
	URL string `json:"url"`
	// Protected is the expected answer.
	Protected bool `json:"protected"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// TargetVector is one of targets: a CDP target's URL, whether it was protected before, its
// opener, and the expected answer.
type TargetVector struct {
	// URL is TargetInfo.url; it may be empty.
	URL string `json:"url"`
	// Previous says whether the target was protected before it went to URL.
	Previous bool `json:"previous,omitempty"`
	// Opener is [OpenerProtected], [OpenerUnprotected] or [OpenerUnknown], or "" for a
	// target without an opener.
	Opener string `json:"opener,omitempty"`
	// Protected is the expected answer.
	Protected bool `json:"protected"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// CookieDomainVector is one of cookieDomains: a cookie domain as a browser reports it.
type CookieDomainVector struct {
	// Domain may have a leading or trailing dot, or upper case.
	Domain string `json:"domain"`
	// Protected is the expected answer.
	Protected bool `json:"protected"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// StorageKeyVector is one of storageKeys: a CDP storage key.
type StorageKeyVector struct {
	// Key is an origin, then ^-separated parts (^0 the top-level site).
	Key string `json:"key"`
	// Protected is the expected answer.
	Protected bool `json:"protected"`
	// Extra holds the members this version does not name, as they were in the file.
	Extra map[string]json.RawMessage `json:"-"`
}

// Protected parses the embedded protected.json, anew on every call.
func Protected() (*ProtectedVectors, error) {
	return ParseProtected(protectedJSON)
}

// ParseProtected parses a protected.json, rejecting a schema other than 1 ([ErrSchema]).
func ParseProtected(text []byte) (*ProtectedVectors, error) {
	var v ProtectedVectors
	if err := parseVersioned("protected.json", text, "schema", &v); err != nil {
		return nil, err
	}
	return &v, nil
}
