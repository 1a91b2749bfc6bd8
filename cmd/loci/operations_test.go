package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/httpapi"
	"github.com/loci-memory/loci/mcpserver"
)

// TestOperationsDeclaredAndUsed checks the declarations of operations
// (loci.Operations, operations.go) against their users: every route of
// the REST API and every MCP tool names a declared operation (the route
// table's and the tool table's own tests check none is left without one),
// every declaration is served by a route, a tool or a rule of rules/
// (loci.OpX in its source), names are unique, and the declared facts hold
// together (an audited operation has a name and a summary).
func TestOperationsDeclaredAndUsed(t *testing.T) {
	declared := loci.Operations()
	names := map[string]bool{}
	for _, op := range declared {
		if op.Name == "" || op.Summary == "" {
			t.Errorf("%+v: an operation needs a name and a summary", *op)
		}
		if names[op.Name] {
			t.Errorf("%s: declared twice", op.Name)
		}
		names[op.Name] = true
		if op.Role == loci.RolePublic && op.Agent != loci.AgentFree {
			t.Errorf("%s: a public operation must be free to bound keys", op.Name)
		}
	}

	used := map[*loci.Operation]string{}
	for _, op := range httpapi.Operations() {
		if !slices.Contains(declared, op) {
			t.Errorf("route operation %s is not declared in loci.Operations", op.Name)
		}
		used[op] = "REST"
	}
	for _, op := range mcpserver.Operations() {
		if !slices.Contains(declared, op) {
			t.Errorf("MCP operation %s is not declared in loci.Operations", op.Name)
		}
		used[op] = "MCP"
	}
	byVar := map[string]*loci.Operation{}
	for name := range rulesOpRefs(t) {
		byVar[name] = nil
	}
	for _, op := range declared {
		if _, ok := byVar[varName(op)]; ok {
			used[op] = "rules"
		}
	}
	for _, op := range declared {
		if used[op] == "" {
			t.Errorf("%s (loci.%s) is declared but no route, tool or rule serves it", op.Name, varName(op))
		}
	}
	for name := range byVar {
		if !slices.ContainsFunc(declared, func(op *loci.Operation) bool { return varName(op) == name }) {
			t.Errorf("rules/ names loci.%s, which does not follow the naming of a declared operation", name)
		}
	}
}

// varName is the name of the variable that declares op: "note.recall_all"
// is OpNoteRecallAll.
func varName(op *loci.Operation) string {
	out, up := []byte("Op"), true
	for i := 0; i < len(op.Name); i++ {
		c := op.Name[i]
		if c == '.' || c == '_' {
			up = true
			continue
		}
		if up && 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		out, up = append(out, c), false
	}
	return string(out)
}

// rulesOpRefs returns the operation variables (loci.OpX) the rules of
// rules/ name, outside its tests.
func rulesOpRefs(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "rules", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("rules sources: %v (%d files)", err, len(files))
	}
	refs := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if filepath.Ext(f) != ".go" || len(f) > 8 && f[len(f)-8:] == "_test.go" {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "loci" && len(sel.Sel.Name) > 2 && sel.Sel.Name[:2] == "Op" && sel.Sel.Name != "Operation" && sel.Sel.Name != "Operations" {
					refs[sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	return refs
}
