package remote

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Every lock the package takes is released by a defer: a Lock (or RLock) is
// followed at once by its deferred Unlock, and no Unlock is written by hand.
// Between a Lock and a hand-written Unlock a panic would leave the lock
// held: the relay's would stop every connection of a worker, the link's its
// pane's typing, for as long as the process lives.
//
// The check is by syntax alone: any call X.Lock() or X.RLock() without
// arguments is taken for a mutex's, which every such method in this package
// is.
func TestLocksUnlockDeferred(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var bad []string
	locks := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		// The calls deferred, and the Locks followed by their deferred
		// Unlock; any other Lock or Unlock call is a hand-held section.
		deferred := map[*ast.CallExpr]bool{}
		paired := map[*ast.CallExpr]bool{}
		ast.Inspect(af, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.DeferStmt:
				deferred[n.Call] = true
			case *ast.BlockStmt:
				for i, st := range n.List {
					es, ok := st.(*ast.ExprStmt)
					if !ok {
						continue
					}
					call, ok := es.X.(*ast.CallExpr)
					if !ok {
						continue
					}
					x, m := lockCall(call)
					if m != "Lock" && m != "RLock" || i+1 >= len(n.List) {
						continue
					}
					if d, ok := n.List[i+1].(*ast.DeferStmt); ok {
						if dx, dm := lockCall(d.Call); dx == x && dm == unlockOf[m] {
							paired[call] = true
						}
					}
				}
			}
			return true
		})
		ast.Inspect(af, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			x, m := lockCall(call)
			at := fset.Position(call.Pos()).String()
			switch m {
			case "Lock", "RLock":
				locks++
				if !paired[call] {
					bad = append(bad, at+": "+x+"."+m+"() not followed at once by defer "+x+"."+unlockOf[m]+"()")
				}
			case "Unlock", "RUnlock":
				if !deferred[call] {
					bad = append(bad, at+": "+x+"."+m+"() not deferred")
				}
			}
			return true
		})
	}
	if locks == 0 {
		t.Fatal("no Lock call found in the package's files: the check looks at nothing")
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("%d lock sites release their lock by hand (a panic in between would leave it held); take the lock in a function that defers its Unlock:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// unlockOf is the method that releases what each locking method takes.
var unlockOf = map[string]string{"Lock": "Unlock", "RLock": "RUnlock"}

// lockCall gives X and the method of a call X.M() without arguments whose
// M is a mutex's locking method; "" when it is none.
func lockCall(call *ast.CallExpr) (x, method string) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || len(call.Args) != 0 {
		return "", ""
	}
	switch sel.Sel.Name {
	case "Lock", "RLock", "Unlock", "RUnlock":
		return types.ExprString(sel.X), sel.Sel.Name
	}
	return "", ""
}
