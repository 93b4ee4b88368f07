package server

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/melmux/melmux/internal/proto"
)

// unlockAllowed lists the files that still lock or unlock Server.mu by
// hand, and at how many places each may: none.
var unlockAllowed = map[string]int{}

// Every Server.mu.Unlock in the package is deferred (melAgents.mu's too),
// and every Lock is followed at once by its deferred Unlock: between a Lock
// and a hand-written Unlock, a panic (which the request's or goroutine's
// recover confines) would leave the lock held, and the whole session waiting
// on it.
func TestServerMuUnlocksDeferred(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
	}
	// Only the package's own types matter here: imports are stand-ins, and
	// the errors they cause are ignored.
	conf := types.Config{Importer: blankImporter{}, Error: func(error) {}}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
	pkg, _ := conf.Check("server", fset, parsed, info)
	// field is the field name of the package's struct type typ.
	field := func(typ, name string) *types.Var {
		if obj := pkg.Scope().Lookup(typ); obj != nil {
			if st, ok := obj.Type().Underlying().(*types.Struct); ok {
				for f := range st.Fields() {
					if f.Name() == name {
						return f
					}
				}
			}
		}
		t.Fatalf("%s has no field %s", typ, name)
		return nil
	}
	mu := field("Server", "mu")
	// The melmux agents' lock is held by the agent's own calls and read_agent
	// alone: held after a panic, it would stop every agent and every
	// decision. The same rule holds for it.
	melMu := field("melAgents", "mu")
	// So does each pane's agent lock: held after a panic, it would stop
	// the pane's decisions, its borders and every frame that draws it.
	agentMu := field("paneAgent", "agentMu")
	// serverMu reports whether call is X.mu.METHOD() on a Server's mu.
	serverMu := func(call *ast.CallExpr, method string) bool {
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != method {
			return false
		}
		inner, ok := sel.X.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		s, ok := info.Selections[inner]
		return ok && (s.Obj() == mu || s.Obj() == melMu || s.Obj() == agentMu)
	}
	handWritten := map[string][]string{}
	for _, af := range parsed {
		name := fset.Position(af.Pos()).Filename
		deferred := map[*ast.CallExpr]bool{}
		ast.Inspect(af, func(n ast.Node) bool {
			if d, ok := n.(*ast.DeferStmt); ok {
				deferred[d.Call] = true
			}
			return true
		})
		ast.Inspect(af, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if serverMu(n, "Unlock") && !deferred[n] {
					handWritten[name] = append(handWritten[name], fset.Position(n.Pos()).String()+": Server.mu.Unlock() (or melAgents.mu's) not deferred")
				}
			case *ast.BlockStmt:
				for i, st := range n.List {
					es, ok := st.(*ast.ExprStmt)
					if !ok {
						continue
					}
					call, ok := es.X.(*ast.CallExpr)
					if !ok || !serverMu(call, "Lock") {
						continue
					}
					if i+1 < len(n.List) {
						if d, ok := n.List[i+1].(*ast.DeferStmt); ok && serverMu(d.Call, "Unlock") {
							continue
						}
					}
					handWritten[name] = append(handWritten[name], fset.Position(call.Pos()).String()+": Server.mu.Lock() (or melAgents.mu's) not followed by defer ….mu.Unlock()")
				}
			}
			return true
		})
	}
	var bad []string
	for name, sites := range handWritten {
		if len(sites) <= unlockAllowed[name] {
			continue
		}
		bad = append(bad, sites...)
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("Server.mu must be taken through withLock, withFresh, or a Lock directly followed by defer Unlock (a panic in between would leave the session locked):\n%s", strings.Join(bad, "\n"))
	}
	if len(handWritten) == 0 && len(unlockAllowed) > 0 {
		t.Errorf("no file unlocks Server.mu by hand any more: empty unlockAllowed (%v)", unlockAllowed)
	}
}

// blankImporter gives every import as an empty package.
type blankImporter struct{}

func (blankImporter) Import(path string) (*types.Package, error) {
	name := filepath.Base(path)
	if strings.HasPrefix(name, "v") && strings.Trim(name[1:], "0123456789") == "" {
		name = filepath.Base(filepath.Dir(path))
	}
	p := types.NewPackage(path, name)
	p.MarkComplete()
	return p, nil
}

// A command that panics while it holds Server.mu, or a pane's agent lock,
// answers with an internal error, and the session goes on: every other
// command still gets the lock.
func TestPanicUnderTheLockLeavesTheSessionUsable(t *testing.T) {
	t.Parallel()
	// The hook panics once armed, only in a request (under Server.call):
	// the panes' watchers take the lock too.
	var armed atomic.Bool
	hook := func() {
		if armed.Load() && strings.Contains(string(debug.Stack()), "(*Server).call(") && armed.Swap(false) {
			var m map[string]int
			m["boom"]++
		}
	}
	s, c := startServer(t)
	s.hooks.lock.Store(&hook)
	s.hooks.agentLock.Store(&hook) // the pane's agent lock, which wait and read_agent take alone
	newPane(t, c, "sh", "-c", "PS1='$ ' exec sh -i")
	waitLine(t, c, 1, `^\$`)
	ctx := context.Background()
	for _, req := range []struct {
		method string
		params any
	}{
		{"list_panes", nil},
		{"send_agent", proto.SendAgentParams{Pane: 1, Text: "echo hi"}},
		{"read_agent", proto.ReadAgentParams{Pane: 1, WaitMS: -1}},
		{"explain", proto.PaneRef{Pane: 1}},
		{"wait", proto.WaitParams{Pane: 1, State: "idle", TimeoutMS: 1000}},
		{"send_keys", proto.SendKeysParams{Pane: 1, Text: "echo hi", NoWait: true}},
		{"kill_pane", proto.PaneRef{Pane: 1}},
	} {
		armed.Store(true)
		err := c.Call(ctx, req.method, req.params, nil)
		if armed.Load() {
			t.Fatalf("%s never took Server.mu through withLock, nor a pane's agent lock through agentDo (err %v)", req.method, err)
		}
		want := req.method + " failed inside the server: assignment to entry in nil map (the session goes on)"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s panicking under the lock answered %v, want %q", req.method, err, want)
		}
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		var panes []proto.PaneInfo
		err = c.Call(lctx, "list_panes", nil, &panes)
		cancel()
		if err != nil {
			if !s.mu.TryLock() {
				s.mu.Unlock() // the cleanup's Shutdown needs it
				t.Fatalf("after %s panicked, Server.mu stayed locked: list_panes did not answer in 10s (%v)", req.method, err)
			}
			s.mu.Unlock()
			t.Fatalf("list_panes after %s panicked: %v", req.method, err)
		}
		if len(panes) == 0 || panes[0].ID != 1 {
			t.Fatalf("list_panes after %s panicked: %+v", req.method, panes)
		}
	}
}
