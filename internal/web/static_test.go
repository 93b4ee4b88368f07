package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The page's files go gzipped to a browser that takes gzip, as they are to
// one that does not, with the same headers of the page's safety either way.
func TestThePageIsServedGzipped(t *testing.T) {
	r := start(t)
	cl := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(path, accept string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", r.base+path, nil)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	for _, path := range []string{"/", "/app.js", "/app.css"} {
		name := strings.TrimPrefix(path, "/")
		if name == "" {
			name = "index.html"
		}
		want, err := static.ReadFile("static/" + name)
		if err != nil {
			t.Fatal(err)
		}
		resp, b := get(path, "gzip, deflate, br")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("%s with gzip: %s %v", path, resp.Status, resp.Header)
		}
		if resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s gzipped lost the page's headers: %v", path, resp.Header)
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, _ := io.ReadAll(zr)
		if !bytes.Equal(got, want) {
			t.Errorf("%s gzipped is not the file", path)
		}
		if len(b) >= len(want) {
			t.Errorf("%s: gzipped %d bytes, plain %d", path, len(b), len(want))
		}
		for _, accept := range []string{"", "identity", "gzip;q=0", "br", "gzip;q=0, *"} {
			resp, b := get(path, accept)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(b, want) {
				t.Errorf("%s with Accept-Encoding %q: %s %v, %d bytes (want the file as it is)", path, accept, resp.Status, resp.Header, len(b))
			}
		}
	}
	if resp, _ := get("/nothing.js", "gzip"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a file the page has not: %s", resp.Status)
	}
	if !strings.Contains(staticFiles()["index.html"].ctype, "text/html") || !strings.Contains(staticFiles()["app.js"].ctype, "javascript") {
		t.Errorf("content types: %s, %s", staticFiles()["index.html"].ctype, staticFiles()["app.js"].ctype)
	}
}
