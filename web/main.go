// Command web is the playground's static file server: a few dozen lines of
// net/http that serve web/static (index.html, app.js, style.css, the WASM
// app and the Go toolchain's wasm_exec.js) on localhost, with the right
// MIME types, gzip and cache validation. Nothing is fetched from anywhere
// else, so the page works offline.
//
//	go run ./web [-addr 127.0.0.1:8080] [-dir web/static]
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (localhost by default; port 0 picks a free port)")
	dir := flag.String("dir", "web/static", "directory to serve")
	flag.Parse()

	if _, err := os.Stat(*dir + "/index.html"); err != nil {
		log.Fatalf("web: %s has no index.html (run from the repository root, or pass -dir): %v", *dir, err)
	}
	if _, err := os.Stat(*dir + "/app.wasm"); err != nil {
		log.Printf("web: warning: %s/app.wasm is missing; build it with `make run` (GOOS=js GOARCH=wasm go build -o %s/app.wasm ./wasm)", *dir, *dir)
	}
	h, err := newHandler(*dir)
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	// The e2e tests start this binary with -addr 127.0.0.1:0 and read the URL from this line.
	fmt.Printf("fkc playground: serving %s on http://%s/\n", *dir, ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}

// mimeTypes is explicit: the platform's mime table may lack application/wasm,
// and WebAssembly.instantiateStreaming refuses any other type.
var mimeTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".wasm": "application/wasm",
	".json": "application/json",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".ico":  "image/x-icon",
	".txt":  "text/plain; charset=utf-8",
	".md":   "text/markdown; charset=utf-8",
	".npy":  "application/octet-stream",
}

// compressible types get gzip; images are compressed already.
func compressible(ext string) bool {
	switch ext {
	case ".html", ".js", ".mjs", ".css", ".wasm", ".json", ".svg", ".txt", ".md", ".npy":
		return true
	}
	return false
}

type handler struct {
	root *os.Root // confines every open to dir: no ../ escapes, no symlinks out

	mu   sync.Mutex
	gzip map[string]gzEntry // on-the-fly gzip, cached per path and version
}

type gzEntry struct {
	etag string
	data []byte
}

func newHandler(dir string) (*handler, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("web: %v", err)
	}
	return &handler{root: root, gzip: map[string]gzEntry{}}, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := path.Clean("/" + r.URL.Path)
	if strings.HasSuffix(name, "/") {
		name += "index.html"
	}
	name = strings.TrimPrefix(name, "/")
	if name == "" {
		name = "index.html"
	}
	if strings.HasSuffix(name, ".gz") { // the precompressed twins are an internal detail
		http.NotFound(w, r)
		return
	}
	f, info, err := h.open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			http.NotFound(w, r)
			return
		}
		http.Error(w, "not readable", http.StatusForbidden)
		return
	}
	defer f.Close()

	ext := path.Ext(name)
	ctype := mimeTypes[ext]
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	hd := w.Header()
	hd.Set("Content-Type", ctype)
	hd.Set("X-Content-Type-Options", "nosniff")
	// Cross-origin isolation: everything is same-origin anyway, and an
	// isolated page gets a 5 µs performance.now() (100 µs otherwise), which
	// Go's time.Now reads — the Try-it timings of fast kernels need it.
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cross-Origin-Embedder-Policy", "require-corp")
	// Every file may change on the next `make run`: the browser may keep a
	// copy but must revalidate it (a cheap 304 through the ETag).
	hd.Set("Cache-Control", "no-cache")
	etag := fmt.Sprintf(`"%x-%x"`, info.ModTime().UnixNano(), info.Size())

	useGzip := compressible(ext) && acceptsGzip(r) && info.Size() > 512
	if compressible(ext) {
		hd.Set("Vary", "Accept-Encoding")
	}
	if !useGzip {
		hd.Set("ETag", etag)
		http.ServeContent(w, r, "", info.ModTime(), f)
		return
	}
	gzEtag := strings.TrimSuffix(etag, `"`) + `-gz"`
	hd.Set("ETag", gzEtag)
	hd.Set("Content-Encoding", "gzip")
	// Prefer a precompressed NAME.gz that is at least as new as NAME.
	if gf, ginfo, err := h.open(name + ".gz"); err == nil {
		defer gf.Close()
		if !ginfo.ModTime().Before(info.ModTime()) {
			http.ServeContent(w, r, "", info.ModTime(), gf)
			return
		}
	}
	data, err := h.gzipped(name, etag, f)
	if err != nil {
		hd.Del("Content-Encoding")
		http.Error(w, "read error", http.StatusInternalServerError)
		return
	}
	http.ServeContent(w, r, "", info.ModTime(), bytes.NewReader(data))
}

func (h *handler) open(name string) (*os.File, fs.FileInfo, error) {
	f, err := h.root.Open(name)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil || info.IsDir() {
		f.Close()
		if err == nil {
			err = fs.ErrNotExist
		}
		return nil, nil, err
	}
	return f, info, nil
}

// gzipped compresses a file once per version and keeps the result.
func (h *handler) gzipped(name, etag string, f io.Reader) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e, ok := h.gzip[name]; ok && e.etag == etag {
		return e.data, nil
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if _, err := io.Copy(zw, f); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	h.gzip[name] = gzEntry{etag: etag, data: buf.Bytes()}
	return buf.Bytes(), nil
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if enc = strings.TrimSpace(enc); enc != "gzip" && enc != "*" {
			continue
		}
		// "gzip;q=0" refuses gzip explicitly.
		if q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q="); ok {
			if v, err := strconv.ParseFloat(q, 64); err == nil && v == 0 {
				return false
			}
		}
		return true
	}
	return false
}
