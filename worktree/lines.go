package worktree

import "strings"

// LineKind is what a line of Diff's text is, for colouring it.
type LineKind uint8

// The kinds of diff lines.
const (
	LineText    LineKind = iota // outside any file: the --stat summary, notes
	LineFile                    // "diff --git a/x b/x": a file begins
	LineHeader                  // the file's other header lines: index, mode, rename, ---, +++, Binary files
	LineHunk                    // "@@ -1,3 +1,4 @@"
	LineAdded                   // "+..."
	LineDeleted                 // "-..."
	LineContext                 // " ..." and "\ No newline at end of file"
)

// Classifier tells the kind of each line of a diff's text, fed in order. A
// file's header runs from its "diff --git" line to its first hunk; inside
// hunks every line starts with '+', '-', ' ' or '\', so an added line that
// reads "+++ x" is never taken for a header.
type Classifier struct{ in LineKind } // LineText, LineHeader or LineHunk

// Next classifies the next line (without its newline).
func (c *Classifier) Next(line string) LineKind {
	if strings.HasPrefix(line, "diff --git ") {
		c.in = LineHeader
		return LineFile
	}
	if c.in != LineText && strings.HasPrefix(line, "@@") {
		c.in = LineHunk
		return LineHunk
	}
	switch c.in {
	case LineHeader:
		return LineHeader
	case LineHunk:
		if line == "" {
			return LineContext // an empty context line (some tools trim its space)
		}
		switch line[0] {
		case '+':
			return LineAdded
		case '-':
			return LineDeleted
		case ' ', '\\':
			return LineContext
		}
		c.in = LineText // the patch ended: what follows is text
	}
	return LineText
}

// StatBar splits a line of git's --stat summary (" a.go | 12 +++++--") into
// what precedes its bar, the bar's '+' run and its '-' run. ok is false for
// any other line.
func StatBar(line string) (head, plus, minus string, ok bool) {
	bar := strings.LastIndex(line, " | ")
	if bar < 0 {
		return "", "", "", false
	}
	rest := line[bar+3:]
	i := 0
	for i < len(rest) && (rest[i] == ' ' || rest[i] >= '0' && rest[i] <= '9') {
		i++
	}
	if i == 0 {
		return "", "", "", false
	}
	j := i
	for j < len(rest) && rest[j] == '+' {
		j++
	}
	k := j
	for k < len(rest) && rest[k] == '-' {
		k++
	}
	if k != len(rest) {
		return "", "", "", false
	}
	return line[:bar+3+i], rest[i:j], rest[j:k], true
}
