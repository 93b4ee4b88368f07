package web

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

// staticFile is one of the page's files, as it is and gzipped.
type staticFile struct {
	ctype     string
	plain, gz []byte
}

// staticFiles are the page's files, gzipped once in the process's life
// (at its first page): a phone on a slow link loads a third of the bytes
// (docs/benchmarks.md, "melmux web"), and the files are embedded, so
// they never change while it runs.
var staticFiles = sync.OnceValue(func() map[string]*staticFile {
	files := map[string]*staticFile{}
	_ = fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(static, p)
		if err != nil {
			return err
		}
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		ctype := mime.TypeByExtension(path.Ext(p))
		if ctype == "" {
			ctype = http.DetectContentType(b)
		}
		files[strings.TrimPrefix(p, "static/")] = &staticFile{ctype: ctype, plain: b, gz: gz.Bytes()}
		return nil
	})
	return files
})

// serveStatic serves the page's files, gzipped to a browser that takes
// gzip.
func serveStatic(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" {
		name = "index.html"
	}
	f := staticFiles()[name]
	if f == nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Vary", "Accept-Encoding")
	body := f.plain
	if acceptsGzip(r.Header.Values("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// acceptsGzip reads Accept-Encoding: gzip (or *) with a q-value above 0.
func acceptsGzip(values []string) bool {
	star := false
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			ok := true
			for _, p := range strings.Split(params, ";") {
				k, q, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(k, "q") {
					f, err := strconv.ParseFloat(strings.TrimSpace(q), 64)
					ok = err == nil && f > 0
				}
			}
			switch strings.ToLower(strings.TrimSpace(coding)) {
			case "gzip", "x-gzip":
				return ok
			case "*":
				star = ok
			}
		}
	}
	return star
}
