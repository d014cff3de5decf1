package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func tcp(s string) net.Addr {
	a, err := net.ResolveTCPAddr("tcp", s)
	if err != nil {
		panic(err)
	}
	return a
}

// TestHostPolicy: only localhost, the bound address (any IP literal when
// bound to all interfaces) and -allow-host names are served, so that a
// DNS-rebinding page (its own name pointed at 127.0.0.1) cannot read the app.
func TestHostPolicy(t *testing.T) {
	cases := []struct {
		bound, allow string
		ok, refused  []string
	}{
		{"127.0.0.1:8080", "",
			[]string{"127.0.0.1:8080", "127.0.0.1", "localhost:8080", "localhost", "LOCALHOST", "localhost.:8080"},
			[]string{"evil.example", "evil.example:8080", "127.0.0.2:8080", "[::1]:8080", "", "localhost.evil.example", "127.0.0.1.evil.example", "0x7f.0.0.1", "2130706433",
				// malformed: brackets around a name or an IPv4 address, a port that is no port
				"]]localhost[[", "[[localhost]]", "[localhost]:8080", "[127.0.0.1]", "localhost:abc", "localhost:99999999999", "127.0.0.1:-1", "localhost:8080:1", "[::1]x"}},
		{"[::1]:8080", "", []string{"[::1]:8080", "[::1]", "localhost:8080"}, []string{"127.0.0.1:8080", "evil.example:8080"}},
		{"0.0.0.0:8080", "", []string{"10.1.2.3:8080", "127.0.0.1", "[fe80::1]:8080", "localhost"}, []string{"evil.example:8080", "printer.lan"}},
		{"127.0.0.1:8080", "playground.lan, Other.Example.", []string{"playground.lan:8080", "other.example", "localhost"}, []string{"evil.example", "lan"}},
		{"127.0.0.1:8080", "*", []string{"evil.example", "anything:1"}, nil},
	}
	for _, c := range cases {
		p := newHostPolicy(tcp(c.bound), c.allow)
		for _, h := range c.ok {
			if !p.allows(h) {
				t.Errorf("bound %s, -allow-host %q: Host %q refused", c.bound, c.allow, h)
			}
		}
		for _, h := range c.refused {
			if p.allows(h) {
				t.Errorf("bound %s, -allow-host %q: Host %q served", c.bound, c.allow, h)
			}
		}
	}
}

func TestHostCheckHandler(t *testing.T) {
	dir := testDir(t)
	fh, err := newHandler(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := hostCheck(fh, newHostPolicy(tcp("127.0.0.1:8080"), ""))
	for host, want := range map[string]int{"127.0.0.1:8080": 200, "localhost:8080": 200, "evil.example:8080": http.StatusMisdirectedRequest,
		"localhost:abc": http.StatusBadRequest, "[localhost]": http.StatusBadRequest} {
		req := httptest.NewRequest("GET", "/", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %s: %d, want %d", host, rec.Code, want)
		}
		if want == http.StatusBadRequest && !strings.Contains(rec.Body.String(), "malformed Host") {
			t.Errorf("Host %s: body %q", host, rec.Body.String())
		}
		if want == http.StatusMisdirectedRequest && (!strings.Contains(rec.Body.String(), "-allow-host") || strings.Contains(rec.Body.String(), "<title>")) {
			t.Errorf("Host %s: body %q", host, rec.Body.String())
		}
	}
}

// TestOddPaths: dotfiles (anywhere in the path), NUL and control bytes,
// backslashes, invalid UTF-8, paths that are not canonical (dot segments,
// doubled or trailing slashes) — all 404, like a missing file, even when a
// file of that name exists.
func TestOddPaths(t *testing.T) {
	dir := testDir(t)
	for _, f := range []string{".env", ".git/config", "sub/.hidden/x.js", "sub/ok.js"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("secret"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h, err := newHandler(dir)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{
		"/": 200, "/index.html": 200, "/sub/ok.js": 200,
		"/sub/./ok.js": 404, "//index.html": 404, "/sub/": 404, "/sub": 404, "/x/../index.html": 404,
		"/.env": 404, "/.git/config": 404, "/.git/": 404, "/a/../.env": 404, "/sub/.hidden/x.js": 404,
		"/index.html%00": 404, "/index.html%00.js": 404, "/%0a": 404, "/%7f": 404,
		"/sub%5cok.js": 404, "/%ff": 404, "/index.html/": 404, "/..%2f.env": 404,
	} {
		res := get(t, h, path, nil)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != want || want == 404 && strings.Contains(string(body), "secret") {
			t.Errorf("%s: %d, want %d", path, res.StatusCode, want)
		}
	}
}

// TestContentSecurityPolicy: every response carries the policy; it allows
// no inline script and no eval (only WebAssembly compilation); and the
// page as shipped satisfies it: no inline <script>, no on* handler
// attribute, no javascript: URL in index.html, no eval or new Function in
// app.js. (The e2e tests load the page under it and fail on any console
// error, which a CSP violation is.)
func TestContentSecurityPolicy(t *testing.T) {
	h, err := newHandler(testDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/", "/app.js", "/app.wasm"} {
		if got := get(t, h, p, nil).Header.Get("Content-Security-Policy"); got != contentSecurityPolicy {
			t.Errorf("%s: CSP %q", p, got)
		}
	}
	directives := map[string]string{}
	for _, d := range strings.Split(contentSecurityPolicy, ";") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), " ")
		directives[name] = val
	}
	if s := directives["script-src"]; s != "'self' 'wasm-unsafe-eval'" {
		t.Errorf("script-src %q", s)
	}
	for _, d := range []string{"default-src", "object-src", "base-uri", "frame-ancestors"} {
		if directives[d] == "" {
			t.Errorf("no %s", d)
		}
	}
	html, err := os.ReadFile("static/index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?is)<script\b[^>]*>`).FindAll(html, -1) {
		if !regexp.MustCompile(`(?i)\ssrc=`).Match(m) {
			t.Errorf("index.html: inline script %s", m)
		}
	}
	if m := regexp.MustCompile(`(?i)<[^>]*\son[a-z]+\s*=|javascript:`).Find(html); m != nil {
		t.Errorf("index.html: inline handler or javascript: URL %q", m)
	}
	js, err := os.ReadFile("static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`\beval\s*\(|new\s+Function\s*\(|setTimeout\s*\(\s*["'` + "`" + `]`).Find(js); m != nil {
		t.Errorf("app.js: %q needs 'unsafe-eval'", m)
	}
}

func TestServerDefaults(t *testing.T) {
	s := newServer(http.NotFoundHandler())
	if s.IdleTimeout <= 0 || s.ReadHeaderTimeout <= 0 || s.ReadTimeout <= 0 || s.WriteTimeout <= 0 || s.MaxHeaderBytes <= 0 || !s.DisableGeneralOptionsHandler {
		t.Fatalf("timeouts: idle %v, header %v, read %v, write %v, max header %d; OPTIONS * to the handler: %v",
			s.IdleTimeout, s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.MaxHeaderBytes, s.DisableGeneralOptionsHandler)
	}
	for addr, warn := range map[string]bool{"127.0.0.1:8080": false, "127.0.0.9:1": false, "[::1]:8080": false,
		"0.0.0.0:8080": true, "[::]:8080": true, "192.168.1.2:8080": true} {
		w := exposureWarning(tcp(addr))
		if (w != "") != warn || warn && !strings.Contains(w, "not a loopback address") {
			t.Errorf("%s: warning %q", addr, w)
		}
	}
}

// Every answer carries the security headers, the refusals included: a 404,
// a 405, and a 421 for a Host that is not served.
func TestSecurityHeadersOnErrors(t *testing.T) {
	fh, err := newHandler(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := hostCheck(fh, newHostPolicy(tcp("127.0.0.1:8080"), ""))
	for _, c := range []struct {
		method, path, host string
		status             int
	}{
		{"GET", "/nope", "127.0.0.1:8080", 404},
		{"POST", "/", "127.0.0.1:8080", 405},
		{"GET", "/", "evil.example", 421},
		{"OPTIONS", "*", "evil.example", 421},
	} {
		r := httptest.NewRequest(c.method, "http://"+c.host+c.path, nil)
		if c.path == "*" {
			r.URL.Path, r.RequestURI = "*", "*"
		}
		r.Host = c.host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		hd := w.Result().Header
		if w.Code != c.status {
			t.Errorf("%s %s (Host %s): %d, want %d", c.method, c.path, c.host, w.Code, c.status)
		}
		for _, k := range []string{"Content-Security-Policy", "Cross-Origin-Opener-Policy", "Cross-Origin-Embedder-Policy", "X-Content-Type-Options", "Referrer-Policy", "Cache-Control"} {
			if hd.Get(k) == "" {
				t.Errorf("%s %s (Host %s), %d: no %s", c.method, c.path, c.host, w.Code, k)
			}
		}
	}
}

// Accept-Encoding as RFC 9110 reads it: every header line, codings and
// parameter names in any case, q among other parameters, gzip's own entry
// before "*".
func TestAcceptsGzip(t *testing.T) {
	for _, c := range []struct {
		lines []string
		want  bool
	}{
		{[]string{"gzip"}, true},
		{[]string{"GZIP"}, true},
		{[]string{"gzip, deflate, br"}, true},
		{[]string{"br", "gzip"}, true},
		{[]string{"*"}, true},
		{[]string{"*;q=0, gzip"}, true},
		{[]string{"x-gzip"}, true},
		{nil, false},
		{[]string{"br"}, false},
		{[]string{"identity"}, false},
		{[]string{"gzip;q=0"}, false},
		{[]string{"gzip;Q=0"}, false},
		{[]string{"gzip; q=0.0"}, false},
		{[]string{"gzip;q=0;x=1"}, false},
		{[]string{"gzip;level=1;q=0"}, false},
		{[]string{"gzip", "gzip;q=0"}, true}, // the larger q of two entries
		{[]string{"*;q=0"}, false},
		{[]string{"gzip;q=0, *"}, false},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		for _, l := range c.lines {
			r.Header.Add("Accept-Encoding", l)
		}
		if got := acceptsGzip(r); got != c.want {
			t.Errorf("Accept-Encoding %q: gzip %v, want %v", c.lines, got, c.want)
		}
	}
}

// The flags: no stray arguments, no empty -addr or -dir, and -allow-host
// entries that can match a Host (a bare name or IP, or *).
func TestCheckFlags(t *testing.T) {
	for _, c := range []struct {
		addr, dir, allow string
		args             []string
		want             string // "" = accepted
	}{
		{"127.0.0.1:8080", "web/static", "", nil, ""},
		{"127.0.0.1:0", "d", "playground.lan, Other.Example., 10.0.0.7, ::1, *", nil, ""},
		{"127.0.0.1:8080", "d", "", []string{"extra"}, `unexpected argument "extra"`},
		{"", "d", "", nil, "-addr is empty"},
		{"127.0.0.1:8080", "", "", nil, "-dir is empty"},
		{"127.0.0.1:8080", "d", "example.com:8080", nil, `-allow-host "example.com:8080": want a bare host name`},
		{"127.0.0.1:8080", "d", "ok.lan,[::1]", nil, `-allow-host "[::1]"`},
		{"127.0.0.1:8080", "d", "http://bar.lan", nil, `-allow-host "http://bar.lan"`},
		{"127.0.0.1:8080", "d", "a..b", nil, `-allow-host "a..b"`},
	} {
		err := checkFlags(c.addr, c.dir, c.allow, c.args)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want %q", c, err, c.want)
		}
	}
}

// A zero-length suffix range selects nothing: alone it is answered 416
// with "bytes */size" (ServeContent answered 206 with an inverted
// Content-Range), beside a good range it is dropped; and ServeContent's
// own 416 keeps Cache-Control.
func TestRangeRepairs(t *testing.T) {
	dir := testDir(t)
	fh, err := newHandler(dir)
	if err != nil {
		t.Fatal(err)
	}
	size := func(name string) int64 {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	for _, c := range []struct {
		rng          string
		status       int
		contentRange string
	}{
		{"bytes=-0", 416, fmt.Sprintf("bytes */%d", size("app.js"))},
		{"bytes=-000", 416, fmt.Sprintf("bytes */%d", size("app.js"))},
		{"bytes=0-0,-0", 206, fmt.Sprintf("bytes 0-0/%d", size("app.js"))},
		{"bytes=99999999-", 416, fmt.Sprintf("bytes */%d", size("app.js"))},
	} {
		r := httptest.NewRequest("GET", "/app.js", nil)
		r.Header.Set("Range", c.rng)
		w := httptest.NewRecorder()
		fh.ServeHTTP(w, r)
		hd := w.Result().Header
		if w.Code != c.status || hd.Get("Content-Range") != c.contentRange || hd.Get("Cache-Control") != "no-cache" {
			t.Errorf("Range %q: %d, Content-Range %q, Cache-Control %q; want %d, %q, no-cache", c.rng, w.Code, hd.Get("Content-Range"), hd.Get("Cache-Control"), c.status, c.contentRange)
		}
	}
}

// Ranges are merged before they are served: overlapping and adjacent ones
// become one, a few disjoint ones stay a multipart 206 of the right bytes,
// and more than maxRanges after merging, ranges adding up to more than the
// file, or a header that is not bytes= with digits get the whole file.
// The precompressed twin is ranged over its own bytes the same way.
func TestRangeLimits(t *testing.T) {
	dir := testDir(t)
	file, err := os.ReadFile(filepath.Join(dir, "app.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(dir, "app.wasm"))
	var zbuf bytes.Buffer
	zw := gzip.NewWriter(&zbuf)
	zw.Write(file)
	zw.Close()
	gz := zbuf.Bytes()
	if err := os.WriteFile(filepath.Join(dir, "app.wasm.gz"), gz, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(dir, "app.wasm.gz"), fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	h, err := newHandler(dir)
	if err != nil {
		t.Fatal(err)
	}
	disjoint := func(n int) string { // n ranges of 2 bytes, 10 apart
		var s []string
		for i := range n {
			s = append(s, fmt.Sprintf("%d-%d", 10*i, 10*i+1))
		}
		return strings.Join(s, ",")
	}
	type part struct{ first, last int }
	for _, c := range []struct {
		name, rng string
		gzip      bool
		status    int
		parts     []part // 206: the parts in order; one part: not multipart
	}{
		{"single", "5-14", false, 206, []part{{5, 14}}},
		{"1000 overlapping", strings.Repeat("0-0,", 999) + "0-0", false, 206, []part{{0, 0}}},
		{"overlapping", "0-99,50-149,120-130", false, 206, []part{{0, 149}}},
		{"adjacent", "0-9,10-19,20-", false, 206, []part{{0, len(file) - 1}}},
		{"suffix overlaps", "-10,0-5", false, 206, []part{{0, 5}, {len(file) - 10, len(file) - 1}}},
		{"disjoint", "1000-1009,0-9,100-109", false, 206, []part{{0, 9}, {100, 109}, {1000, 1009}}},
		{"16 disjoint", disjoint(16), false, 206, func() (p []part) {
			for i := range 16 {
				p = append(p, part{10 * i, 10*i + 1})
			}
			return p
		}()},
		{"17 disjoint", disjoint(17), false, 200, nil},
		{"more than the file", "0-,0-", false, 200, nil},
		{"signed", "+0-+0,+0-+0", false, 200, nil},
		{"other unit", "items=0-1", false, 200, nil},
		{"past the end", fmt.Sprintf("%d-", len(file)), false, 416, nil},
		{"gzip overlapping", strings.Repeat("0-0,", 99) + "1-9", true, 206, []part{{0, 9}}},
		{"gzip more than the file", strings.Repeat("0-9,", 99), true, 200, nil},
		{"gzip disjoint", "0-9,100-109", true, 206, []part{{0, 9}, {100, 109}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/app.wasm", nil)
			r.Header.Set("Range", "bytes="+c.rng)
			if c.name == "other unit" {
				r.Header.Set("Range", c.rng)
			}
			want := file
			if c.gzip {
				r.Header.Set("Accept-Encoding", "gzip")
				want = gz
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			res := w.Result()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != c.status {
				t.Fatalf("Range %.40q: %d (%d bytes), want %d", c.rng, res.StatusCode, len(body), c.status)
			}
			if c.gzip != (res.Header.Get("Content-Encoding") == "gzip") {
				t.Fatalf("Content-Encoding %q", res.Header.Get("Content-Encoding"))
			}
			check := func(cr string, got []byte, p part) {
				t.Helper()
				if wantCR := fmt.Sprintf("bytes %d-%d/%d", p.first, p.last, len(want)); cr != wantCR {
					t.Fatalf("Content-Range %q, want %q", cr, wantCR)
				}
				if !bytes.Equal(got, want[p.first:p.last+1]) {
					t.Fatalf("bytes %d-%d differ from the file's", p.first, p.last)
				}
			}
			switch {
			case c.status == 200:
				if !bytes.Equal(body, want) {
					t.Fatalf("200 body is %d bytes, not the file's %d", len(body), len(want))
				}
			case len(c.parts) == 1:
				check(res.Header.Get("Content-Range"), body, c.parts[0])
			case len(c.parts) > 1:
				mt, params, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
				if err != nil || mt != "multipart/byteranges" {
					t.Fatalf("Content-Type %q, want multipart/byteranges", res.Header.Get("Content-Type"))
				}
				mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
				for i, p := range c.parts {
					mp, err := mr.NextPart()
					if err != nil {
						t.Fatalf("part %d: %v", i, err)
					}
					got, _ := io.ReadAll(mp)
					check(mp.Header.Get("Content-Range"), got, p)
				}
				if _, err := mr.NextPart(); err != io.EOF {
					t.Fatalf("more parts than %d: %v", len(c.parts), err)
				}
			}
		})
	}
}

// acceptsGzip reports whether a request accepts gzip when gzip alone is
// offered.
func acceptsGzip(r *http.Request) bool { return chooseEncoding(r, "gzip") == "gzip" }
