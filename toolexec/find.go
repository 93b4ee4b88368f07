package toolexec

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

const findMaxResults = 500

func (e *Executor) findFiles(ctx context.Context, a args) Result {
	pattern := strings.TrimSpace(a.str("pattern"))
	if pattern == "" {
		return errResult("find_files: pattern is empty; give a glob such as *.go or cmd/**/*_test.go")
	}
	files, err := findTree(ctx, e.root, pattern, 0)
	if err != nil {
		return errResult("find_files: %v", err)
	}
	if len(files) == 0 {
		return Result{Text: fmt.Sprintf("no files match %s", quoteArg(pattern))}
	}
	var b strings.Builder
	for i, f := range files {
		if i == findMaxResults {
			fmt.Fprintf(&b, "[showing %d of %d matching files; use a more specific pattern to see the rest]\n", findMaxResults, len(files))
			break
		}
		b.WriteString(f)
		b.WriteByte('\n')
	}
	return Result{Text: b.String()}
}

// findTree returns the sorted paths under root (slash-separated, relative)
// whose path matches pattern, or whose name does when pattern has no slash.
func findTree(ctx context.Context, root, pattern string, workers int) ([]string, error) {
	pattern = strings.TrimPrefix(pattern, "./")
	if strings.HasPrefix(pattern, "/") {
		return nil, fmt.Errorf("pattern %s is absolute; patterns are relative to the workspace root (e.g. cmd/**/*.go)", quoteArg(pattern))
	}
	if !doublestar.ValidatePattern(pattern) {
		return nil, fmt.Errorf("invalid glob %s: check [ ] and { } are balanced (syntax: * ? ** [abc] {a,b})", quoteArg(pattern))
	}
	byName := !strings.Contains(pattern, "/")
	// A pattern whose leading segments are literal only needs those
	// directories walked: "cmd/melmux/*.go" reads cmd/ and cmd/melmux/ only.
	var enter func(rel string) bool
	if !byName {
		fixed := literalPrefix(pattern)
		if fixed != "" {
			enter = func(rel string) bool {
				return strings.HasPrefix(fixed+"/", rel+"/") || strings.HasPrefix(rel+"/", fixed+"/")
			}
		}
	}
	if workers <= 0 {
		workers = defaultWorkers()
	}
	var mu sync.Mutex // guards found
	var found []string
	add := func(rel string) {
		mu.Lock()
		defer mu.Unlock()
		found = append(found, rel)
	}
	err := walkTree(ctx, root, workers, enter, func(_ int, _ int, _, rel string, typ fs.FileMode) {
		target := rel
		if byName {
			target = path.Base(rel)
		}
		if ok, _ := doublestar.Match(pattern, target); ok {
			add(rel)
		}
	})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("search stopped: %w", err)
	}
	sort.Strings(found)
	return found, nil
}

// literalPrefix returns the leading path segments of pattern that hold no
// glob metacharacters.
func literalPrefix(pattern string) string {
	segs := strings.Split(pattern, "/")
	var fixed []string
	for _, s := range segs[:len(segs)-1] {
		if strings.ContainsAny(s, `*?[]{}\`) {
			break
		}
		fixed = append(fixed, s)
	}
	return strings.Join(fixed, "/")
}
