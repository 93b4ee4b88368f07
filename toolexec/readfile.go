package toolexec

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/melmux/melmux/internal/filekind"
)

// Limits of read_file and list_dir, as their descriptions promise.
const (
	readDefaultLimit = 2000
	readMaxLineBytes = 2000
	readMaxBytes     = 100 << 10
	listDirMax       = 1000
	sniffLen         = 8000 // bytes inspected for a NUL to call a file binary
)

func (e *Executor) readFile(ctx context.Context, a args) Result {
	path := a.str("path")
	offset := a.integer("offset", 0)
	limit := a.integer("limit", readDefaultLimit)
	if offset < 0 {
		return errResult("read_file: offset must be 0 or more (lines to skip), got %d", offset)
	}
	if limit <= 0 {
		return errResult("read_file: limit must be 1 or more (lines to return), got %d", limit)
	}
	t, err := e.resolve(path)
	if err != nil {
		return errResult("read_file: %v", err)
	}
	shown := t.shown
	f, fi, err := e.openRegular(t, "use list_dir to see its entries")
	if err != nil {
		return errResult("read_file: %s", describeOpenErr(shown, err))
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(sniffLen)
	if bytes.IndexByte(head, 0) >= 0 {
		return errResult("read_file: %s is a binary file (%d bytes); read_file reads text only", shown, fi.Size())
	}
	if fi.Size() == 0 {
		return Result{Text: fmt.Sprintf("(%s is empty)", shown)}
	}

	var out strings.Builder
	var lineNo int64
	var returned int64
	cutLines := 0
	stoppedEarly := false
	for {
		if lineNo%4096 == 0 && ctx.Err() != nil {
			return errResult("read_file: %s: stopped: %v", shown, ctx.Err())
		}
		line, total, err := readLine(br)
		if len(line) == 0 && err != nil {
			if err != io.EOF {
				return errResult("read_file: %s: %v", shown, err)
			}
			break
		}
		lineNo++
		if lineNo <= offset {
			continue
		}
		if returned >= limit || out.Len() >= readMaxBytes {
			stoppedEarly = true
			break
		}
		text := line
		if total == len(line) {
			text = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			total = len(text)
		} else if err == nil {
			total-- // the newline is not part of the line
		}
		cut := ""
		if len(text) > readMaxLineBytes {
			n := readMaxLineBytes
			for n > 0 && !utf8.RuneStart(text[n]) {
				n--
			}
			cut = fmt.Sprintf(" [line cut: %d of %d bytes shown]", n, total)
			text = text[:n]
			cutLines++
		}
		fmt.Fprintf(&out, "%6d\t%s%s\n", lineNo, bytes.ToValidUTF8(text, []byte("\uFFFD")), cut)
		returned++
		if err == io.EOF {
			break
		}
	}
	if returned == 0 {
		return errResult("read_file: %s has %d lines; offset %d is past the end", shown, lineNo, offset)
	}
	if stoppedEarly {
		rest := int64(1) // the line that stopped the loop
		for ctx.Err() == nil {
			line, _, err := readLine(br)
			if len(line) > 0 {
				rest++
			}
			if err != nil {
				break
			}
		}
		next := offset + returned
		fmt.Fprintf(&out, "[read stopped after line %d; %d more lines follow: call read_file with offset=%d to continue]\n",
			next, rest, next)
	}
	return Result{Text: out.String()}
}

// readLine returns the next line including its newline and io.EOF with the
// last unterminated line. A line longer than the reader's buffer keeps only
// its first readMaxLineBytes+4 bytes (enough to cut it at a rune boundary),
// so a minified file of one huge line costs no more memory than a short
// one; total is the line's full length.
func readLine(br *bufio.Reader) (line []byte, total int, err error) {
	line, err = br.ReadSlice('\n')
	total = len(line)
	if err != bufio.ErrBufferFull {
		return line, total, err
	}
	keep := readMaxLineBytes + utf8.UTFMax
	buf := append([]byte(nil), line[:min(len(line), keep)]...)
	for err == bufio.ErrBufferFull {
		line, err = br.ReadSlice('\n')
		total += len(line)
		if room := keep - len(buf); room > 0 {
			buf = append(buf, line[:min(len(line), room)]...)
		}
	}
	return buf, total, err
}

// describeOpenErr words an open error; errors that already name the path
// (a refused type, a path that left the workspace) pass through.
func describeOpenErr(shown string, err error) string {
	switch {
	case errors.Is(err, errNotRegular), errors.Is(err, ErrOutsideWorkspace), errors.Is(err, errTooBig):
		return err.Error()
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("no such file: %s", shown)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("permission denied: %s", shown)
	}
	return fmt.Sprintf("%s: %v", shown, err)
}

// listDirBatch is how many entries list_dir reads between checks of its
// context.
const listDirBatch = 4096

func (e *Executor) listDir(ctx context.Context, a args) Result {
	path := a.str("path")
	if path == "" {
		path = "."
	}
	t, err := e.resolve(path)
	if err != nil {
		return errResult("list_dir: %v", err)
	}
	shown := t.shown
	if fi, err := e.statAt(t); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errResult("list_dir: no such directory: %s", shown)
		}
		return errResult("list_dir: %s", describeOpenErr(shown, err))
	} else if !fi.IsDir() {
		return errResult("list_dir: %s", notDir(t, fi.Mode()))
	}
	f, err := e.openAt(t, os.O_RDONLY|syscall.O_DIRECTORY)
	if err != nil {
		return errResult("list_dir: %s", describeOpenErr(shown, err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() { // replaced since the check
		return errResult("list_dir: %s is no longer a directory", shown)
	}
	var entries []fs.DirEntry
	for {
		if err := ctx.Err(); err != nil {
			return errResult("list_dir: %s: stopped: %v", shown, err)
		}
		batch, err := f.ReadDir(listDirBatch)
		entries = append(entries, batch...)
		if err == io.EOF {
			break
		}
		if err != nil {
			if len(entries) == 0 {
				return errResult("list_dir: %s: %v", shown, err)
			}
			break
		}
	}
	if len(entries) == 0 {
		return Result{Text: fmt.Sprintf("(%s is empty)", shown)}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var out strings.Builder
	fmt.Fprintf(&out, "%s:\n", shown)
	for i, d := range entries {
		if i == listDirMax {
			fmt.Fprintf(&out, "[listing cut at %d of %d entries]\n", listDirMax, len(entries))
			break
		}
		name := d.Name()
		switch typ := d.Type(); {
		case typ.IsDir():
			fmt.Fprintf(&out, "dir   %10s  %s/\n", "-", name)
		case typ&fs.ModeSymlink != 0:
			dest, _ := e.readlinkAt(t, name)
			fmt.Fprintf(&out, "link  %10s  %s -> %s\n", "-", name, dest)
		case typ.IsRegular():
			size := "?"
			if info, err := d.Info(); err == nil {
				size = fmt.Sprint(info.Size())
			}
			fmt.Fprintf(&out, "file  %10s  %s\n", size, name)
		default:
			fmt.Fprintf(&out, "other %10s  %s (%s)\n", "-", name, typ)
		}
	}
	return Result{Text: out.String()}
}

// notDir is list_dir's error for a path that is something else.
func notDir(t target, m fs.FileMode) string {
	if m.IsRegular() {
		return fmt.Sprintf("%s is a file, not a directory; use read_file to read it", t.shown)
	}
	return fmt.Sprintf("%s is %s, not a directory", t.shown, filekind.Of(m))
}
