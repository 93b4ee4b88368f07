package toolexec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode"

	"github.com/melmux/melmux/internal/filekind"
)

// PlansDir is where write_plan saves plans, relative to the workspace.
const PlansDir = ".melmux/plans"

const slugMax = 60

// Slug makes a file name from a title: lower-case letters and digits joined
// by single hyphens, at most 60 bytes; "plan" when nothing is left.
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			if b.Len()+len(string(r)) > slugMax {
				break
			}
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		return "plan"
	}
	return s
}

func (e *Executor) writePlan(ctx context.Context, a args) Result {
	title := strings.TrimSpace(a.str("title"))
	body := a.str("markdown")
	if title == "" {
		return errResult("write_plan: title is empty; give the plan a short title")
	}
	if strings.TrimSpace(body) == "" {
		return errResult("write_plan: markdown is empty; give the plan's content")
	}
	if strings.ContainsAny(title, "\n\r") {
		return errResult("write_plan: title must be one line")
	}
	heading := "# " + title
	content := body
	if firstLine(body) != heading {
		content = heading + "\n\n" + body
	}
	if !strings.HasSuffix(content, "\n") {
		content += "\n"
	}
	// Every plan is read and written through one descriptor of the plans
	// directory.
	dt, err := e.resolve(PlansDir)
	if err != nil {
		return errResult("write_plan: %v", err)
	}
	dir, err := e.openDir(dt, true)
	if err != nil {
		return errResult("write_plan: %v", err)
	}
	defer dir.Close()
	shownDir := dt.shown
	slug := Slug(title)
	// The same title replaces its plan (a revision); another title that
	// happens to give the same slug gets the next free number.
	var name string
	for n := 1; ; n++ {
		name = slug + ".md"
		if n > 1 {
			name = fmt.Sprintf("%s-%d.md", slug, n)
		}
		existing, err := readFirstLine(dir, name)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && existing == heading) {
			break
		}
		if err != nil {
			return errResult("write_plan: %s/%s: %v", shownDir, name, err)
		}
		if n > 1000 {
			return errResult("write_plan: too many plans named %s", slug)
		}
	}
	shown := shownDir + "/" + name
	existed, err := writeAtomicAt(ctx, dir, name, shown, strings.NewReader(content), 0o644)
	if err != nil {
		return errResult("write_plan: %v", err)
	}
	verb := "saved"
	if existed {
		verb = "updated"
	}
	return Result{Text: fmt.Sprintf("%s plan %q at %s (%d bytes)", verb, title, shown, len(content))}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimRight(s, "\r ")
}

// readFirstLine reads the first line of the regular file name in dir.
func readFirstLine(dir *os.Root, name string) (string, error) {
	f, err := dir.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return "", err
	} else if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%w: it is %s", errNotRegular, filekind.Of(fi.Mode()))
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	if sc.Scan() {
		return strings.TrimRight(sc.Text(), "\r "), nil
	}
	return "", sc.Err()
}
