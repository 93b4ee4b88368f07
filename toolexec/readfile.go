package toolexec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"unicode/utf8"
)

// Limits of read_file and list_dir, as their descriptions promise.
const (
	readDefaultLimit = 2000
	readMaxLineBytes = 2000
	readMaxBytes     = 100 << 10
	listDirMax       = 1000
	sniffLen         = 8000 // bytes inspected for a NUL to call a file binary
)

func (e *Executor) readFile(a args) Result {
	path := a.str("path")
	offset := a.integer("offset", 0)
	limit := a.integer("limit", readDefaultLimit)
	if offset < 0 {
		return errResult("read_file: offset must be 0 or more (lines to skip), got %d", offset)
	}
	if limit <= 0 {
		return errResult("read_file: limit must be 1 or more (lines to return), got %d", limit)
	}
	real, shown, err := e.resolve(path)
	if err != nil {
		return errResult("read_file: %v", err)
	}
	f, err := os.Open(real)
	if err != nil {
		return errResult("read_file: %s", describeOpenErr(shown, err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return errResult("read_file: %s: %v", shown, err)
	}
	if fi.IsDir() {
		return errResult("read_file: %s is a directory; use list_dir to see its entries", shown)
	}
	if !fi.Mode().IsRegular() {
		return errResult("read_file: %s is not a regular file (%s)", shown, fi.Mode().Type())
	}
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
		for {
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

func describeOpenErr(shown string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("no such file: %s", shown)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("permission denied: %s", shown)
	}
	return fmt.Sprintf("%s: %v", shown, err)
}

func (e *Executor) listDir(a args) Result {
	path := a.str("path")
	if path == "" {
		path = "."
	}
	real, shown, err := e.resolve(path)
	if err != nil {
		return errResult("list_dir: %v", err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errResult("list_dir: no such directory: %s", shown)
		}
		return errResult("list_dir: %s: %v", shown, err)
	}
	if !fi.IsDir() {
		return errResult("list_dir: %s is a file, not a directory; use read_file to read it", shown)
	}
	f, err := os.Open(real)
	if err != nil {
		return errResult("list_dir: %s", describeOpenErr(shown, err))
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil && len(entries) == 0 {
		return errResult("list_dir: %s: %v", shown, err)
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
		switch t := d.Type(); {
		case t.IsDir():
			fmt.Fprintf(&out, "dir   %10s  %s/\n", "-", name)
		case t&fs.ModeSymlink != 0:
			target, _ := os.Readlink(real + string(os.PathSeparator) + name)
			fmt.Fprintf(&out, "link  %10s  %s -> %s\n", "-", name, target)
		case t.IsRegular():
			size := "?"
			if info, err := d.Info(); err == nil {
				size = fmt.Sprint(info.Size())
			}
			fmt.Fprintf(&out, "file  %10s  %s\n", size, name)
		default:
			fmt.Fprintf(&out, "other %10s  %s (%s)\n", "-", name, t)
		}
	}
	return Result{Text: out.String()}
}
