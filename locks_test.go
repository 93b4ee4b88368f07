package melmux_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Every lock the module's code takes is released by a defer: a Lock (or
// RLock) is followed at once by its deferred Unlock, and no Unlock is
// written by hand. Between a Lock and a hand-written Unlock a panic would
// leave the lock held for as long as the process lives: a session's pane
// table, a pane's emulator, a client's output, a relay's connections, all
// stopped, the recover that confined the panic notwithstanding. A section
// that must let go of its lock before a blocking call is two sections, each
// in a function that defers its Unlock.
//
// The check is by syntax alone: any call X.Lock() or X.RLock() without
// arguments is taken for a mutex's, which every such method in the module
// is. Tests are not held to it; the measuring programs of bench/ are.
func TestLocksUnlockDeferred(t *testing.T) {
	fset := token.NewFileSet()
	var bad []string
	locks := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		af, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		n, sites := handHeldLocks(fset, af)
		locks += n
		bad = append(bad, sites...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if locks == 0 {
		t.Fatal("no Lock call found in the module's files: the check looks at nothing")
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("%d lock sites release their lock by hand (a panic in between would leave it held); take the lock in a function that defers its Unlock:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// handHeldLocks counts the Lock and RLock calls of af and lists those not
// followed at once by their deferred Unlock, and every Unlock not deferred.
func handHeldLocks(fset *token.FileSet, af *ast.File) (locks int, bad []string) {
	deferred := map[*ast.CallExpr]bool{}
	paired := map[*ast.CallExpr]bool{}
	// pair marks the Locks of a statement list followed at once by their
	// deferred Unlock.
	pair := func(list []ast.Stmt) {
		for i, st := range list {
			es, ok := st.(*ast.ExprStmt)
			if !ok || i+1 >= len(list) {
				continue
			}
			call, ok := es.X.(*ast.CallExpr)
			if !ok {
				continue
			}
			x, m := lockCall(call)
			if m != "Lock" && m != "RLock" {
				continue
			}
			if d, ok := list[i+1].(*ast.DeferStmt); ok {
				if dx, dm := lockCall(d.Call); dx == x && dm == unlockOf[m] {
					paired[call] = true
				}
			}
		}
	}
	ast.Inspect(af, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.DeferStmt:
			deferred[n.Call] = true
		case *ast.BlockStmt:
			pair(n.List)
		case *ast.CaseClause: // a switch's case
			pair(n.Body)
		case *ast.CommClause: // a select's case
			pair(n.Body)
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
	return locks, bad
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
