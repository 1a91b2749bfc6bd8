package rules_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestMain runs the package's tests and examples in a temporary working
// directory: Example opens loci.db in the working directory, as a program
// would.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "loci-memory-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.Chdir(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sourceDir is this package's directory (the tests run elsewhere).
func sourceDir(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the test's source")
	}
	return filepath.Dir(file)
}

// TestREADMEGoExample: the README's Go library section is a complete
// program whose imports are Example's and whose main is Example's body,
// so what the README shows compiles and prints what Example checks.
func TestREADMEGoExample(t *testing.T) {
	dir := sourceDir(t)
	readme, err := os.ReadFile(filepath.Join(dir, "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Go library\n")
	if !ok {
		t.Fatal("README has no \"## Go library\" section")
	}
	_, code, ok := strings.Cut(section, "\n```go\n")
	code, _, closed := strings.Cut(code, "\n```\n")
	if !ok || !closed {
		t.Fatal("the Go library section has no ```go block")
	}
	fset := token.NewFileSet()
	prog, err := parser.ParseFile(fset, "README.md", code, 0)
	if err != nil {
		t.Fatalf("the README's Go example does not parse: %v", err)
	}
	ex, err := parser.ParseFile(fset, filepath.Join(dir, "example_test.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if prog.Name.Name != "main" {
		t.Errorf("the README's program is package %s, want main", prog.Name.Name)
	}
	if got, want := importPaths(prog), importPaths(ex); !slices.Equal(got, want) {
		t.Errorf("imports: README %q, Example %q", got, want)
	}
	main, example := funcBody(t, fset, prog, "main"), funcBody(t, fset, ex, "Example")
	if main != example {
		t.Errorf("the README's main differs from Example:\n--- README\n%s\n--- Example\n%s", main, example)
	}
}

func importPaths(f *ast.File) []string {
	var out []string
	for _, im := range f.Imports {
		out = append(out, im.Path.Value)
	}
	slices.Sort(out)
	return out
}

// funcBody prints the statements of the named function, one per line,
// without comments or blank lines.
func funcBody(t *testing.T, fset *token.FileSet, f *ast.File, name string) string {
	t.Helper()
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == name {
			var buf bytes.Buffer
			for _, st := range fn.Body.List {
				if err := printer.Fprint(&buf, fset, st); err != nil {
					t.Fatal(err)
				}
				buf.WriteByte('\n')
			}
			return buf.String()
		}
	}
	t.Fatalf("no func %s", name)
	return ""
}
