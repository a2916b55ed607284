package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	sliccbrowsers "github.com/ai-ecoverse/slicc-browsers"
)

// pinned is one layout of layout.json: an OS, a home and an environment, with the answers
// written by hand from catalog.json. The Rust crate's tests/offline/layout.rs checks the same file.
type pinned struct {
	Description   string              `json:"description"`
	OS            string              `json:"os"`
	Home          string              `json:"home"`
	Env           map[string]string   `json:"env"`
	Config        string              `json:"config"`
	SevenProfiles string              `json:"sevenProfiles"`
	SixProfiles   string              `json:"sixProfiles"`
	UserDataDirs  map[string][]string `json:"userDataDirs"`
	Tokens        map[string]*string  `json:"tokens"`
	Expand        []struct {
		Text     string `json:"text"`
		Expanded string `json:"expanded"`
	} `json:"expand"`
}

func readLayouts(t *testing.T) []pinned {
	t.Helper()
	text, err := os.ReadFile("layout.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Layouts []pinned `json:"layouts"`
	}
	if err := json.Unmarshal(text, &file); err != nil {
		t.Fatalf("layout.json: %v", err)
	}
	return file.Layouts
}

func TestLayoutAnswersMatchLayoutJSON(t *testing.T) {
	checked := 0
	for _, p := range readLayouts(t) {
		p := p
		l := sliccbrowsers.Layout{OS: p.OS, Home: p.Home, Getenv: func(k string) string { return p.Env[k] }}
		check := func(what, got, want string) {
			checked++
			if got != want {
				t.Errorf("%s (%s): %s: got %q, want %q", p.Description, p.OS, what, got, want)
			}
		}
		check("config", l.Config(), p.Config)
		check("sevenProfiles", l.SevenProfiles(), p.SevenProfiles)
		check("sixProfiles", l.SixProfiles(), p.SixProfiles)
		for id, dirs := range p.UserDataDirs {
			got := l.UserDataDirs(id)
			if len(got) == 0 && len(dirs) == 0 {
				checked++
				continue
			}
			check(fmt.Sprintf("UserDataDirs(%s)", id), fmt.Sprintf("%q", got), fmt.Sprintf("%q", dirs))
		}
		for name, want := range p.Tokens {
			got, ok := l.Token(name)
			switch {
			case want == nil:
				check(fmt.Sprintf("Token(%s) found", name), fmt.Sprint(ok), "false")
			default:
				check(fmt.Sprintf("Token(%s) found", name), fmt.Sprint(ok), "true")
				check(fmt.Sprintf("Token(%s)", name), got, *want)
			}
		}
		// The methods and their tokens agree.
		check("{config}", l.Expand("{config}"), p.Config)
		check("{sevenProfiles}", l.Expand("{sevenProfiles}"), p.SevenProfiles)
		check("{sixProfiles}", l.Expand("{sixProfiles}"), p.SixProfiles)
		for _, e := range p.Expand {
			check(fmt.Sprintf("Expand(%q)", e.Text), l.Expand(e.Text), e.Expanded)
		}
	}
	if checked < 80 {
		t.Errorf("only %d layout answers checked", checked)
	}
}

func TestLayoutJSONCoversEveryOSWithAndWithoutEnv(t *testing.T) {
	layouts := readLayouts(t)
	for _, goos := range []string{"darwin", "linux", "windows"} {
		with, without := false, false
		for _, p := range layouts {
			if p.OS == goos {
				with = with || len(p.Env) > 0
				without = without || len(p.Env) == 0
			}
		}
		if !with || !without {
			t.Errorf("%s: a layout with env %v, without %v", goos, with, without)
		}
	}
}

func TestAnUnknownOSHasNoTokens(t *testing.T) {
	l := sliccbrowsers.Layout{OS: "plan9", Home: "/usr/ada"}
	if v, ok := l.Token("home"); ok {
		t.Errorf("Token(home) = %q", v)
	}
	if l.Config() != "" || l.Expand("{home}/x") != "{home}/x" || l.UserDataDirs("chrome") != nil {
		t.Errorf("plan9: %q %q %q", l.Config(), l.Expand("{home}/x"), l.UserDataDirs("chrome"))
	}
}

// A nil Getenv is an empty environment, and a nil Catalog the default one.
func TestLayoutZeroGetenvAndCatalog(t *testing.T) {
	l := sliccbrowsers.Layout{OS: "linux", Home: "/home/ada"}
	other, err := sliccbrowsers.Parse(sliccbrowsers.CatalogJSON())
	if err != nil {
		t.Fatal(err)
	}
	withAll := sliccbrowsers.Layout{OS: "linux", Home: "/home/ada", Getenv: func(string) string { return "" }, Catalog: other}
	if l.Config() != "/home/ada/.config" || withAll.Config() != l.Config() {
		t.Errorf("config: %q and %q", l.Config(), withAll.Config())
	}
	other.Platforms.Linux.Config.Home = []string{"elsewhere"}
	if withAll.Config() != "/home/ada/elsewhere" || l.Config() != "/home/ada/.config" {
		t.Errorf("the layout's own catalog is not the one read: %q, %q", withAll.Config(), l.Config())
	}
}
