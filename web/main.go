// Command web is the playground's static file server: a few dozen lines of
// net/http that serve web/static (index.html, app.js, style.css, the WASM
// app and the Go toolchain's wasm_exec.js) on localhost, with the right
// MIME types, gzip and cache validation. Nothing is fetched from anywhere
// else, so the page works offline.
//
// A compressible file goes out as its precompressed brotli twin (NAME.br,
// written by `make wasm`: web/compress) or gzip twin (NAME.gz), or gzipped
// on the fly, by the client's Accept-Encoding.
//
// It serves only the app: only Host names of this machine (DNS rebinding),
// under a Content-Security-Policy the page satisfies, with no dotfile and
// no odd path (404), idle connections closed after a minute, and a warning
// when the address it binds is reachable from other machines.
//
//	go run ./web [-addr 127.0.0.1:8080] [-dir web/static] [-allow-host NAME,…]
package main

//go:generate go run ./gen

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (localhost by default; port 0 picks a free port)")
	dir := flag.String("dir", "web/static", "directory to serve")
	allow := flag.String("allow-host", "", "more Host names to serve, comma-separated (\"*\": any); by default only localhost and the bound address, so that a DNS-rebinding page cannot read the app")
	flag.Parse()
	if err := checkFlags(*addr, *dir, *allow, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}

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
	if w := exposureWarning(ln.Addr()); w != "" {
		log.Print(w)
	}
	// The e2e tests start this binary with -addr 127.0.0.1:0 and read the URL from this line.
	fmt.Printf("fkc playground: serving %s on http://%s/\n", *dir, ln.Addr())
	log.Fatal(newServer(hostCheck(h, newHostPolicy(ln.Addr(), *allow))).Serve(ln))
}

// checkFlags refuses what the flags cannot mean: arguments besides them,
// an empty -addr (net.Listen would take it as every interface, any port)
// or -dir, and -allow-host entries other than "*", a bare host name or an
// IP literal (a port, a scheme or brackets could never match a request's
// Host, which is compared without its port).
func checkFlags(addr, dir, allow string, args []string) error {
	switch {
	case len(args) > 0:
		return fmt.Errorf("web: unexpected argument %q (the flags are -addr HOST:PORT, -dir DIR, -allow-host NAME,…)", args[0])
	case addr == "":
		return fmt.Errorf("web: -addr is empty; give HOST:PORT, e.g. 127.0.0.1:8080 (port 0 picks a free port)")
	case dir == "":
		return fmt.Errorf("web: -dir is empty; give the directory to serve, e.g. web/static")
	}
	for _, n := range strings.Split(allow, ",") {
		n = strings.TrimSpace(n)
		if n == "" || n == "*" || net.ParseIP(n) != nil || hostNameOK(strings.TrimSuffix(n, ".")) {
			continue
		}
		return fmt.Errorf("web: -allow-host %q: want a bare host name or IP address (no port, scheme, path or brackets), or *", n)
	}
	return nil
}

// hostNameOK reports a DNS name: dot-separated labels of letters, digits,
// '-' and '_', none empty or longer than 63 bytes.
func hostNameOK(n string) bool {
	if n == "" || len(n) > 253 {
		return false
	}
	for _, l := range strings.Split(n, ".") {
		if l == "" || len(l) > 63 {
			return false
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// newServer bounds how long a client may hold a connection: a request's
// headers must arrive within ReadHeaderTimeout, an idle keep-alive
// connection is closed after IdleTimeout (without it it would wait on
// ReadTimeout), and a response must be written within WriteTimeout — long
// enough for app.wasm on a slow link, and a client that never reads no
// longer holds a connection and an open file forever. "OPTIONS *" goes to
// the handler too (the Host check), not to net/http's built-in answer.
func newServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:                      h,
		ReadHeaderTimeout:            10 * time.Second,
		ReadTimeout:                  30 * time.Second, // requests are GETs: no body to wait for
		WriteTimeout:                 10 * time.Minute,
		IdleTimeout:                  60 * time.Second,
		MaxHeaderBytes:               64 << 10,
		DisableGeneralOptionsHandler: true,
	}
}

// exposureWarning is a line for the log when the server is reachable from
// other machines (any non-loopback address, 0.0.0.0 and :: included).
func exposureWarning(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		return ""
	}
	return fmt.Sprintf("web: warning: listening on %s, which is not a loopback address: other machines that can reach it can use the playground (-addr 127.0.0.1:8080 keeps it on this machine)", a)
}

// hostPolicy says which Host header values are served. A DNS-rebinding
// attack points a name it controls at 127.0.0.1, so that a page of its
// origin can read this server: the browser then sends that name as Host.
// Served: localhost, the address the server is bound to, any IP literal
// when it is bound to all interfaces (an IP literal involves no DNS), and
// the names given with -allow-host ("*": everything).
type hostPolicy struct {
	bound    net.IP // nil or unspecified: all interfaces
	names    map[string]bool
	allowAll bool
}

func newHostPolicy(a net.Addr, allow string) hostPolicy {
	p := hostPolicy{names: map[string]bool{"localhost": true}}
	if ta, ok := a.(*net.TCPAddr); ok {
		p.bound = ta.IP
	}
	for _, n := range strings.Split(allow, ",") {
		switch n = strings.ToLower(strings.TrimSpace(n)); n {
		case "":
		case "*":
			p.allowAll = true
		default:
			p.names[strings.TrimSuffix(n, ".")] = true
		}
	}
	return p
}

// hostName is a Host header's name or IP, lower case, without its port,
// its IPv6 brackets or a trailing dot; an error for a malformed Host (RFC
// 9110 §7.2: uri-host [":" port], an IPv6 literal in one pair of
// brackets, the port decimal digits up to 65535).
func hostName(host string) (string, error) {
	name, port := host, ""
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 || net.ParseIP(host[1:end]) == nil || strings.Contains(host[1:end], ".") && !strings.Contains(host[1:end], ":") {
			return "", fmt.Errorf("a bracketed address must be an IPv6 literal")
		}
		name, port = host[1:end], host[end+1:]
		if port != "" && !strings.HasPrefix(port, ":") {
			return "", fmt.Errorf("want [IPv6]:PORT")
		}
		port = strings.TrimPrefix(port, ":")
	} else {
		if i := strings.LastIndexByte(host, ':'); i >= 0 {
			name, port = host[:i], host[i+1:]
		}
		if strings.ContainsAny(name, "[]:") {
			return "", fmt.Errorf("brackets or a colon in the name (an IPv6 address goes in brackets)")
		}
	}
	if port != "" {
		v, err := strconv.Atoi(port)
		if err != nil || v > 65535 || strings.TrimLeft(port, "0123456789") != "" {
			return "", fmt.Errorf("port %q is not a number from 0 to 65535", port)
		}
	}
	return strings.TrimSuffix(strings.ToLower(name), "."), nil
}

// allows reports whether a request's Host (name or IP, with or without a
// port) is served; a malformed Host is not.
func (p hostPolicy) allows(host string) bool {
	code, _ := p.refusal(host)
	return code == 0
}

// refusal is the answer to a request with this Host that is not served:
// 400 for a malformed Host, 421 for one served elsewhere, with the
// message; 0 when it is served.
func (p hostPolicy) refusal(host string) (code int, msg string) {
	if p.allowAll {
		return 0, ""
	}
	name, err := hostName(host)
	if err != nil {
		return http.StatusBadRequest, fmt.Sprintf("malformed Host %q: %v", host, err)
	}
	if !p.serves(name) {
		return http.StatusMisdirectedRequest, fmt.Sprintf("Host %q is not served here; use http://localhost or the address the server is bound to, or start it with -allow-host NAME", host)
	}
	return 0, ""
}

// serves reports whether a Host's name (hostName) is served.
func (p hostPolicy) serves(name string) bool {
	if name == "" {
		return false
	}
	if p.names[name] {
		return true
	}
	ip := net.ParseIP(name)
	if ip == nil {
		return false
	}
	return p.bound == nil || p.bound.IsUnspecified() || ip.Equal(p.bound)
}

// hostCheck refuses requests whose Host the policy does not serve.
func hostCheck(next http.Handler, p hostPolicy) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if code, msg := p.refusal(r.Host); code != 0 {
			securityHeaders(w.Header()) // as the handler sets them on its answers
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(code)
			fmt.Fprintln(w, "fkc playground: "+msg)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// contentSecurityPolicy is what the page needs and no more: its own
// scripts (no inline script, no eval; 'wasm-unsafe-eval' lets it compile
// app.wasm), fetches of its own files, inline style attributes (the page
// sets grid geometry with style="", and goldmark renders table alignment
// that way), data: images (the empty favicon), and no plugins, frames,
// forms or <base>.
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
	"style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// servable reports whether a cleaned, slash-free-at-start path may be
// served: no dotfile or dot-directory anywhere in it (.git, .env), no NUL
// or other control byte, no backslash, valid UTF-8.
func servable(name string) bool {
	if !utf8.ValidString(name) || strings.ContainsRune(name, '\\') {
		return false
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	for _, seg := range strings.Split(name, "/") {
		if strings.HasPrefix(seg, ".") {
			return false
		}
	}
	return true
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
	securityHeaders(w.Header()) // the 404s and 405s below get them too
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	// Only canonical paths: browsers resolve dot segments before they ask,
	// so /a/../x, //x, /x/. or /x/ come from elsewhere.
	canonical := path.Clean("/"+r.URL.Path) == r.URL.Path
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" {
		name = "index.html"
	}
	// The precompressed twins are an internal detail; dotfiles and odd
	// names are never part of the app. Every file that cannot be served is
	// simply not there (404): a client learns nothing about what exists.
	if !canonical || strings.HasSuffix(name, ".gz") || strings.HasSuffix(name, ".br") || !servable(name) {
		http.NotFound(w, r)
		return
	}
	f, info, err := h.open(name)
	if err != nil {
		http.NotFound(w, r)
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
	etag := fmt.Sprintf(`"%x-%x"`, info.ModTime().UnixNano(), info.Size())

	if compressible(ext) {
		hd.Set("Vary", "Accept-Encoding")
	}
	// The codings on offer, smallest first: brotli only from a
	// precompressed twin (compressing 17 MB at quality 11 takes a minute),
	// gzip from its twin or on the fly.
	var offered []string
	var br *os.File
	var brInfo fs.FileInfo
	if compressible(ext) && info.Size() > 512 {
		if br, brInfo = h.twin(name, ".br", info); br != nil {
			defer br.Close()
			offered = append(offered, "br")
		}
		offered = append(offered, "gzip")
	}
	switch chooseEncoding(r, offered...) {
	case "br":
		hd.Set("Content-Encoding", "br")
		hd.Set("ETag", fmt.Sprintf(`"%x-%x-brs-%x"`, info.ModTime().UnixNano(), info.Size(), brInfo.Size()))
		serveEncoded(w, r, info.ModTime(), br, brInfo.Size())
		return
	case "gzip":
	default:
		hd.Set("ETag", etag)
		serveContent(w, r, info.ModTime(), f, info.Size())
		return
	}
	hd.Set("Content-Encoding", "gzip")
	// Prefer a precompressed NAME.gz (twin). Its bytes are not the
	// on-the-fly ones, so neither is its ETag.
	if gf, ginfo := h.twin(name, ".gz", info); gf != nil {
		defer gf.Close()
		hd.Set("ETag", fmt.Sprintf(`"%x-%x-gzs-%x"`, info.ModTime().UnixNano(), info.Size(), ginfo.Size()))
		serveEncoded(w, r, info.ModTime(), gf, ginfo.Size())
		return
	}
	hd.Set("ETag", strings.TrimSuffix(etag, `"`)+`-gz"`)
	data, err := h.gzipped(name, etag, f)
	if err != nil {
		hd.Del("Content-Encoding")
		http.Error(w, "read error", http.StatusInternalServerError)
		return
	}
	serveEncoded(w, r, info.ModTime(), bytes.NewReader(data), int64(len(data)))
}

// twin opens the precompressed NAME+ext of a file whose time is the
// file's exactly: gzip -k and web/compress give it that time once it is
// whole (while it is still being written it is newer, and cut short).
// nil when there is none, or it is not that.
func (h *handler) twin(name, ext string, of fs.FileInfo) (*os.File, fs.FileInfo) {
	f, info, err := h.open(name + ext)
	if err != nil {
		return nil, nil
	}
	if !info.ModTime().Equal(of.ModTime()) {
		f.Close()
		return nil, nil
	}
	return f, info
}

// serveEncoded serves encoded bytes (size of them) as serveContent does,
// with their Content-Length: ServeContent leaves it out of a 200 whose
// Content-Encoding is set (it cannot know the handler did not compress on
// the fly), which sent the app chunked, its length unknown to the browser.
// A range is of the encoded bytes, as ServeContent reckons it.
func serveEncoded(w http.ResponseWriter, r *http.Request, mod time.Time, content io.ReadSeeker, size int64) {
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	serveContent(w, r, mod, content, size)
}

// serveContent is http.ServeContent (size: content's length) with its
// Range header normalized first (normalizeRange), and with Cache-Control
// kept on its error answers (416, 412), which it removes with the
// representation's headers.
func serveContent(w http.ResponseWriter, r *http.Request, mod time.Time, content io.ReadSeeker, size int64) {
	if rg := r.Header.Get("Range"); rg != "" {
		if rg, ok := normalizeRange(rg, size); !ok {
			r.Header.Del("Range")
		} else {
			r.Header.Set("Range", rg)
		}
	}
	http.ServeContent(keepCacheControl{w}, r, "", mod, content)
}

// maxRanges is how many ranges, once merged, a request is answered with in
// parts; past that it gets the whole file (Apache and nginx cap them too).
const maxRanges = 16

// normalizeRange rewrites a Range header for ServeContent, which answers
// every range it is given: 1,000 copies of "0-0" made a 206 of 11 times
// the file. Overlapping and adjacent ranges are merged, in ascending order
// (RFC 9110 §15.3.7.2); ranges that add up to more than the file, more
// than maxRanges once merged, or a header that is not "bytes=" and ranges
// of digits get the whole file (ok false: drop the header, as RFC 9110
// §14.2 allows). A range that selects no bytes is dropped: ServeContent
// answered a zero-length suffix ("bytes=-0", §14.1.2) with 206 and an
// inverted Content-Range (golang/go#81262). When none is left, the header
// becomes one that starts at the end, which ServeContent answers 416 with
// "bytes */size" after its precondition checks (200 for an empty file).
func normalizeRange(rg string, size int64) (string, bool) {
	specs, ok := strings.CutPrefix(rg, "bytes=")
	if !ok {
		return "", false
	}
	type span struct{ start, end int64 } // [start, end)
	var spans []span
	var sum int64
	for spec := range strings.SplitSeq(specs, ",") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue
		}
		first, last, ok := strings.Cut(spec, "-")
		first, last = strings.TrimSpace(first), strings.TrimSpace(last)
		if !ok || !digits(first) || !digits(last) || first == "" && last == "" {
			return "", false
		}
		a, errA := strconv.ParseInt(first, 10, 64)
		b, errB := strconv.ParseInt(last, 10, 64)
		var sp span
		switch {
		case first == "": // a suffix of b bytes
			if errB != nil {
				return "", false
			}
			sp = span{size - min(b, size), size}
		case errA != nil || last != "" && (errB != nil || b < a):
			return "", false
		case last == "":
			sp = span{a, size}
		default:
			sp = span{a, min(b, size-1) + 1}
		}
		if sp.start >= size || sp.end <= sp.start {
			continue // selects no bytes
		}
		if sum += sp.end - sp.start; sum > size {
			return "", false
		}
		spans = append(spans, sp)
	}
	if len(spans) == 0 {
		return fmt.Sprintf("bytes=%d-", size), true
	}
	slices.SortFunc(spans, func(x, y span) int { return cmp.Compare(x.start, y.start) })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		if last := &merged[len(merged)-1]; sp.start <= last.end {
			last.end = max(last.end, sp.end)
		} else {
			merged = append(merged, sp)
		}
	}
	if len(merged) > maxRanges {
		return "", false
	}
	parts := make([]string, len(merged))
	for i, sp := range merged {
		parts[i] = fmt.Sprintf("%d-%d", sp.start, sp.end-1)
	}
	return "bytes=" + strings.Join(parts, ","), true
}

// digits reports a string of ASCII digits only (empty included).
func digits(s string) bool {
	return strings.Trim(s, "0123456789") == ""
}

// keepCacheControl puts securityHeaders' Cache-Control back on a response
// that lost it (ServeContent's error answers).
type keepCacheControl struct{ http.ResponseWriter }

func (k keepCacheControl) WriteHeader(code int) {
	if k.Header().Get("Cache-Control") == "" {
		k.Header().Set("Cache-Control", cacheControl)
	}
	if code >= 300 { // a 304, 412 or 416 has no body of serveEncoded's length
		k.Header().Del("Content-Length")
	}
	k.ResponseWriter.WriteHeader(code)
}

// ReadFrom keeps the underlying writer's sendfile path for file bodies.
func (k keepCacheControl) ReadFrom(src io.Reader) (int64, error) {
	return io.Copy(k.ResponseWriter, src)
}

// securityHeaders are set on every response, errors and 304s included.
func securityHeaders(hd http.Header) {
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	hd.Set("Referrer-Policy", "no-referrer")
	// Cross-origin isolation: everything is same-origin anyway, and an
	// isolated page gets a 5 µs performance.now() (100 µs otherwise), which
	// Go's time.Now reads — the Try-it timings of fast kernels need it.
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cross-Origin-Embedder-Policy", "require-corp")
	// Every file may change on the next `make run`: the browser may keep a
	// copy but must revalidate it (a cheap 304 through the ETag).
	hd.Set("Cache-Control", cacheControl)
}

const cacheControl = "no-cache"

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

// chooseEncoding picks the content coding to send among those offered
// ("br", "gzip"; smallest first), "" for none (the file as it is). It reads
// every Accept-Encoding line (RFC 9110 §12.5.3): codings and parameter
// names are case-insensitive, "q" may follow other parameters, a coding's
// own entry outranks "*" (x-gzip is gzip), the largest q of its entries
// counts, and q=0 refuses. The highest q wins; on a tie, the coding offered
// first.
func chooseEncoding(r *http.Request, offered ...string) string {
	qs := map[string]float64{}
	for _, line := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(line, ",") {
			fields := strings.Split(part, ";")
			q := 1.0
			for _, p := range fields[1:] {
				k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
						q = f
					}
				}
			}
			enc := strings.ToLower(strings.TrimSpace(fields[0]))
			if enc == "x-gzip" {
				enc = "gzip"
			}
			if old, ok := qs[enc]; !ok || q > old {
				qs[enc] = q
			}
		}
	}
	best, bestQ := "", 0.0
	for _, c := range offered {
		q, ok := qs[c]
		if !ok {
			if q, ok = qs["*"]; !ok {
				continue
			}
		}
		if q > bestQ {
			best, bestQ = c, q
		}
	}
	return best
}
