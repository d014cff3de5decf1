package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

func testDir(t *testing.T) string {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("\x00asm wasm bytes "), 4096)
	for name, data := range map[string][]byte{
		"index.html": []byte("<!doctype html><title>fkc</title>" + string(bytes.Repeat([]byte(" "), 1024))),
		"app.wasm":   big,
		"app.js":     []byte("console.log(1)"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func get(t *testing.T, h http.Handler, path string, hdr map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func TestServe(t *testing.T) {
	dir := testDir(t)
	h, err := newHandler(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "app.wasm"))

	// Plain: correct MIME type, revalidation, no encoding.
	res := get(t, h, "/app.wasm", nil)
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/wasm" || !bytes.Equal(body, want) {
		t.Fatalf("plain app.wasm: %d %q %d bytes", res.StatusCode, res.Header.Get("Content-Type"), len(body))
	}
	if res.Header.Get("Cross-Origin-Opener-Policy") != "same-origin" || res.Header.Get("Cross-Origin-Embedder-Policy") != "require-corp" {
		t.Fatalf("app.wasm is served without cross-origin isolation: %v", res.Header)
	}
	if res.Header.Get("Content-Encoding") != "" || res.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("plain app.wasm headers: %v", res.Header)
	}

	// gzip on the fly, cached, 304 on revalidation.
	res = get(t, h, "/app.wasm", map[string]string{"Accept-Encoding": "gzip, deflate, br"})
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("no gzip: %v", res.Header)
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(zr)
	if !bytes.Equal(got, want) {
		t.Fatal("gzip body differs from the file")
	}
	etag := res.Header.Get("ETag")
	res = get(t, h, "/app.wasm", map[string]string{"Accept-Encoding": "gzip", "If-None-Match": etag})
	if res.StatusCode != http.StatusNotModified {
		t.Fatalf("revalidation: %d, want 304", res.StatusCode)
	}
	if res = get(t, h, "/app.wasm", map[string]string{"Accept-Encoding": "gzip;q=0"}); res.Header.Get("Content-Encoding") != "" {
		t.Fatal("gzip;q=0 must not get gzip")
	}

	// A precompressed twin with the file's own time (gzip -k gives it that
	// time once it is complete) is preferred, under an ETag of its own; one
	// that is newer is still being written and is not used; the twin itself
	// is not served.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("PRECOMPRESSED"))
	zw.Close()
	gz := filepath.Join(dir, "app.wasm.gz")
	os.WriteFile(gz, buf.Bytes(), 0o644)
	later := time.Now().Add(time.Minute)
	os.Chtimes(gz, later, later)
	res = get(t, h, "/app.wasm", map[string]string{"Accept-Encoding": "gzip"})
	zr, _ = gzip.NewReader(res.Body)
	if got, _ := io.ReadAll(zr); !bytes.Equal(got, want) || res.Header.Get("ETag") != etag {
		t.Fatalf("a twin newer than the file (being written) was used: %d bytes, ETag %s", len(got), res.Header.Get("ETag"))
	}
	st, _ := os.Stat(filepath.Join(dir, "app.wasm"))
	os.Chtimes(gz, st.ModTime(), st.ModTime())
	res = get(t, h, "/app.wasm", map[string]string{"Accept-Encoding": "gzip"})
	zr, _ = gzip.NewReader(res.Body)
	if got, _ := io.ReadAll(zr); string(got) != "PRECOMPRESSED" {
		t.Fatalf("precompressed twin not used: %d bytes", len(got))
	}
	if e := res.Header.Get("ETag"); e == etag || e == "" {
		t.Errorf("the twin's bytes carry ETag %s, the on-the-fly gzip's is %s: want a different one", e, etag)
	}
	if res := get(t, h, "/app.wasm.gz", nil); res.StatusCode != 404 {
		t.Fatalf("app.wasm.gz served directly: %d", res.StatusCode)
	}

	// index, MIME of js, traversal and missing files.
	if res := get(t, h, "/", nil); res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("/: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if res := get(t, h, "/app.js", nil); res.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Fatalf("app.js: %q", res.Header.Get("Content-Type"))
	}
	if res := get(t, h, "/../../etc/passwd", nil); res.StatusCode != 404 {
		t.Fatalf("traversal: %d", res.StatusCode)
	}
	if res := get(t, h, "/nope.js", nil); res.StatusCode != 404 {
		t.Fatalf("missing: %d", res.StatusCode)
	}
	req := httptest.NewRequest("POST", "/", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", rec.Code)
	}
}

// brotliTwin writes dir/name.br, brotli of the file, with the file's time.
func brotliTwin(t *testing.T, dir, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := brotli.NewWriterLevel(&buf, 5)
	zw.Write(src)
	zw.Close()
	twin := filepath.Join(dir, name+".br")
	if err := os.WriteFile(twin, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(filepath.Join(dir, name))
	if err := os.Chtimes(twin, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The brotli twin goes to a client that prefers br (or ties it with gzip),
// with its own ETag and Content-Length, ranged over its own bytes; gzip or
// the plain file to one that refuses br by its q-value; never a twin that
// is not the file's (another time: stale or still being written); and the
// twin itself is not served.
func TestServeBrotli(t *testing.T) {
	dir := testDir(t)
	want, _ := os.ReadFile(filepath.Join(dir, "app.wasm"))
	br := brotliTwin(t, dir, "app.wasm")
	h, err := newHandler(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ accept, enc string }{
		{"gzip, deflate, br", "br"}, // Chromium's
		{"br", "br"},
		{"*", "br"},
		{"gzip;q=0.5, br;q=0.8", "br"},
		{"gzip, br;q=0.5", "gzip"},
		{"br;q=0, *", "gzip"},
		{"BR;Q=0", ""},
		{"identity", ""},
		{"", ""},
	} {
		res := get(t, h, "/app.wasm", map[string]string{"Accept-Encoding": c.accept})
		body, _ := io.ReadAll(res.Body)
		if got := res.Header.Get("Content-Encoding"); got != c.enc {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want %q", c.accept, got, c.enc)
			continue
		}
		if res.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("Accept-Encoding %q: Vary %q", c.accept, res.Header.Get("Vary"))
		}
		if cl := res.Header.Get("Content-Length"); cl != strconv.Itoa(len(body)) {
			t.Errorf("Accept-Encoding %q: Content-Length %q for a body of %d bytes", c.accept, cl, len(body))
		}
		var plain []byte
		switch c.enc {
		case "br":
			plain, _ = io.ReadAll(brotli.NewReader(bytes.NewReader(body)))
			if !bytes.Equal(body, br) {
				t.Errorf("Accept-Encoding %q: the body is not the twin's bytes", c.accept)
			}
		case "gzip":
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			plain, _ = io.ReadAll(zr)
		default:
			plain = body
		}
		if !bytes.Equal(plain, want) {
			t.Errorf("Accept-Encoding %q: the body does not decode to the file", c.accept)
		}
	}

	// The twin's own ETag revalidates it (304, no length), and a range is
	// of its bytes.
	res := get(t, h, "/app.wasm", map[string]string{"Accept-Encoding": "br"})
	etag := res.Header.Get("ETag")
	if !strings.Contains(etag, "-brs-") {
		t.Fatalf("the twin's ETag %q", etag)
	}
	res = get(t, h, "/app.wasm", map[string]string{"Accept-Encoding": "br", "If-None-Match": etag})
	if res.StatusCode != http.StatusNotModified || res.Header.Get("Content-Length") != "" {
		t.Fatalf("revalidation: %d, Content-Length %q; want 304 without one", res.StatusCode, res.Header.Get("Content-Length"))
	}
	res = get(t, h, "/app.wasm", map[string]string{"Accept-Encoding": "br", "If-Match": `"other"`})
	if res.StatusCode != http.StatusPreconditionFailed || res.Header.Get("Content-Length") == strconv.Itoa(len(br)) {
		t.Fatalf("If-Match another: %d, Content-Length %q; want 412 without the twin's", res.StatusCode, res.Header.Get("Content-Length"))
	}
	res = get(t, h, "/app.wasm", map[string]string{"Accept-Encoding": "br", "Range": "bytes=10-19"})
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 206 || res.Header.Get("Content-Encoding") != "br" || !bytes.Equal(body, br[10:20]) ||
		res.Header.Get("Content-Range") != fmt.Sprintf("bytes 10-19/%d", len(br)) || res.Header.Get("Content-Length") != "10" {
		t.Fatalf("a range of the twin: %d %q %q, %d bytes", res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("Content-Range"), len(body))
	}
	res = get(t, h, "/app.wasm", map[string]string{"Accept-Encoding": "br", "Range": fmt.Sprintf("bytes=%d-", len(br))})
	if res.StatusCode != http.StatusRequestedRangeNotSatisfiable || res.Header.Get("Content-Range") != fmt.Sprintf("bytes */%d", len(br)) {
		t.Fatalf("past the twin's end: %d %q", res.StatusCode, res.Header.Get("Content-Range"))
	}
	req := httptest.NewRequest("HEAD", "/app.wasm", nil)
	req.Header.Set("Accept-Encoding", "br")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Header().Get("Content-Encoding") != "br" || rec.Header().Get("Content-Length") != strconv.Itoa(len(br)) {
		t.Fatalf("HEAD: %v", rec.Header())
	}
	if res := get(t, h, "/app.wasm.br", map[string]string{"Accept-Encoding": "br"}); res.StatusCode != 404 {
		t.Fatalf("app.wasm.br served directly: %d", res.StatusCode)
	}

	// A twin of another time is not the file's: gzip instead.
	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(dir, "app.wasm.br"), later, later)
	if res := get(t, h, "/app.wasm", map[string]string{"Accept-Encoding": "gzip, br"}); res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("a stale twin: Content-Encoding %q, want gzip", res.Header.Get("Content-Encoding"))
	}
	if res := get(t, h, "/app.wasm", map[string]string{"Accept-Encoding": "br"}); res.Header.Get("Content-Encoding") != "" {
		t.Fatalf("a stale twin, br only: Content-Encoding %q, want none", res.Header.Get("Content-Encoding"))
	}
}

// The codings a request accepts, chosen by q among those on offer.
func TestChooseEncoding(t *testing.T) {
	for _, c := range []struct {
		lines   []string
		offered []string
		want    string
	}{
		{[]string{"gzip, deflate, br, zstd"}, []string{"br", "gzip"}, "br"},
		{[]string{"gzip, deflate, br"}, []string{"gzip"}, "gzip"},
		{[]string{"br;q=0.9", "gzip"}, []string{"br", "gzip"}, "gzip"},
		{[]string{"br;q=1.0, gzip;q=1.0"}, []string{"br", "gzip"}, "br"},
		{[]string{"x-gzip;q=0.7, br;q=0.6"}, []string{"br", "gzip"}, "gzip"},
		{[]string{"br;level=5;q=0.2, *;q=0.1"}, []string{"br", "gzip"}, "br"},
		{[]string{"*;q=0.3, gzip;q=0.4"}, []string{"br", "gzip"}, "gzip"},
		{[]string{"br;q=0, br"}, []string{"br", "gzip"}, "br"}, // the larger q of two entries
		{[]string{"br;q=0, gzip;q=0"}, []string{"br", "gzip"}, ""},
		{[]string{"br"}, nil, ""},
		{nil, []string{"br", "gzip"}, ""},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		for _, l := range c.lines {
			r.Header.Add("Accept-Encoding", l)
		}
		if got := chooseEncoding(r, c.offered...); got != c.want {
			t.Errorf("Accept-Encoding %q, offered %q: %q, want %q", c.lines, c.offered, got, c.want)
		}
	}
}
