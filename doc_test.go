package sliccbrowsers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"
)

// Every exported name of the package has a doc comment (struct fields included), and every
// typed object (a struct with Extra) has the two JSON methods that keep Extra.
func TestEveryExportedNameHasADocComment(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	pkg := pkgs["sliccbrowsers"]
	if pkg == nil || len(pkg.Files) < 8 {
		t.Fatalf("package sliccbrowsers not found: %v", pkgs)
	}
	missing := func(pos token.Pos, name string) {
		t.Errorf("%s: %s has no doc comment", fset.Position(pos), name)
	}
	methods := map[string]bool{}
	withExtra := map[string]token.Pos{}
	names := 0
	for _, f := range pkg.Files {
		if f.Doc == nil && strings.HasSuffix(fset.Position(f.Pos()).Filename, "doc.go") {
			t.Error("doc.go has no package comment")
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if star, ok := recv.(*ast.StarExpr); ok {
						recv = star.X
					}
					methods[recv.(*ast.Ident).Name+"."+d.Name.Name] = true
				}
				if d.Name.IsExported() {
					names++
					if d.Doc == nil {
						missing(d.Pos(), d.Name.Name)
					}
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						names++
						if s.Doc == nil && d.Doc == nil {
							missing(s.Pos(), s.Name.Name)
						}
						st, ok := s.Type.(*ast.StructType)
						if !ok {
							continue
						}
						for _, field := range st.Fields.List {
							for _, n := range field.Names {
								if n.Name == "Extra" {
									withExtra[s.Name.Name] = s.Pos()
								}
								if n.IsExported() {
									names++
									if field.Doc == nil {
										missing(n.Pos(), s.Name.Name+"."+n.Name)
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names++
								if s.Doc == nil && d.Doc == nil {
									missing(n.Pos(), n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	for name, pos := range withExtra {
		if !methods[name+".UnmarshalJSON"] || !methods[name+".MarshalJSON"] {
			t.Errorf("%s: %s has Extra but not both UnmarshalJSON and MarshalJSON (methods.go)", fset.Position(pos), name)
		}
	}
	if names < 200 || len(withExtra) < 40 {
		t.Errorf("only %d exported names and %d typed objects seen", names, len(withExtra))
	}
}
