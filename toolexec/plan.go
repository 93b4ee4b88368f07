package toolexec

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
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

func (e *Executor) writePlan(a args) Result {
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
	dir, _, err := e.resolve(PlansDir)
	if err != nil {
		return errResult("write_plan: %v", err)
	}
	slug := Slug(title)
	// The same title replaces its plan (a revision); another title that
	// happens to give the same slug gets the next free number.
	var target string
	for n := 1; ; n++ {
		name := slug
		if n > 1 {
			name = fmt.Sprintf("%s-%d", slug, n)
		}
		p := filepath.Join(dir, name+".md")
		existing, err := readFirstLine(p)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && existing == heading) {
			target = p
			break
		}
		if err != nil {
			return errResult("write_plan: %s: %v", e.display(p), err)
		}
		if n > 1000 {
			return errResult("write_plan: too many plans named %s", slug)
		}
	}
	real, shown, err := e.resolve(target)
	if err != nil {
		return errResult("write_plan: %v", err)
	}
	existed, err := WriteFileAtomic(real, []byte(content), 0o644)
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

func readFirstLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	if sc.Scan() {
		return strings.TrimRight(sc.Text(), "\r "), nil
	}
	return "", sc.Err()
}
