package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
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
