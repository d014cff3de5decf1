// Package e2e drives the real playground — the web/ server serving the
// GOOS=js build of wasm/ — in one headless Chromium with SwiftShader's
// WebGPU adapter. TestMain owns the browser; every test gets its own tab,
// and any JS exception, console error or Go panic in that tab fails it.
//
// The tests skip (saying why) only when Chromium is missing; `make test`
// installs it. FKC_CHROMIUM overrides the browser path.
package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var (
	skipReason string
	baseURL    string // http://127.0.0.1:PORT/
	browserCtx context.Context
	wasmPath   string
	chromium   string
)

// chromeFlags are the browser's flags: headless, SwiftShader WebGPU, and
// nothing that talks to the network.
func chromeFlags(userDataDir string, webgpu bool) []chromedp.ExecAllocatorOption {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(userDataDir),
		chromedp.WindowSize(1400, 1000),
	}
	if webgpu {
		opts = append(opts,
			chromedp.Flag("enable-unsafe-webgpu", true),
			chromedp.Flag("use-webgpu-adapter", "swiftshader"),
			chromedp.Flag("enable-features", "Vulkan"),
			chromedp.Flag("use-angle", "swiftshader"),
		)
	} else {
		opts = append(opts, chromedp.Flag("disable-webgpu", true))
	}
	return opts
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	chromium = os.Getenv("FKC_CHROMIUM")
	if chromium == "" {
		for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"} {
			if _, err := os.Stat(p); err == nil {
				chromium = p
				break
			}
		}
	}
	if chromium == "" {
		skipReason = "chromium is not installed (apt-get install chromium, or set FKC_CHROMIUM); `make test` installs it"
		return m.Run()
	}
	tmp, err := os.MkdirTemp("", "fkc-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)

	static := filepath.Join(tmp, "static")
	if err := buildSite(static, tmp); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building the site:", err)
		return 1
	}
	wasmPath = filepath.Join(static, "app.wasm")

	// The real server, on a free port.
	srv := exec.Command(filepath.Join(tmp, "fkcweb"), "-addr", "127.0.0.1:0", "-dir", static)
	out, _ := srv.StdoutPipe()
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: starting the server:", err)
		return 1
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if i := strings.Index(line, "http://"); err != nil || i < 0 {
		fmt.Fprintf(os.Stderr, "e2e: the server did not say where it listens: %q %v\n", line, err)
		return 1
	} else {
		baseURL = strings.TrimSpace(line[i:])
	}
	go io.Copy(io.Discard, out)

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromeFlags(filepath.Join(tmp, "profile"), true)...)
	defer cancelAlloc()
	var cancelBrowser context.CancelFunc
	browserCtx, cancelBrowser = chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Do(browserCtx); err != nil { // start the browser now
		fmt.Fprintln(os.Stderr, "e2e: starting chromium:", err)
		return 1
	}
	return m.Run()
}

// buildSite assembles what `make run` serves into dir: the static files,
// the toolchain's wasm_exec.js, the GOOS=js app, and the server binary.
func buildSite(dir, tmp string) error {
	root, err := filepath.Abs("..")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"index.html", "app.js", "style.css"} {
		if err := copyFile(filepath.Join(root, "web", "static", f), filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	goroot := runtime.GOROOT()
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		goroot = strings.TrimSpace(string(out))
	}
	if err := copyFile(filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"), filepath.Join(dir, "wasm_exec.js")); err != nil {
		return err
	}
	build := func(env []string, args ...string) error {
		cmd := exec.Command("go", append([]string{"build"}, args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	// As `make wasm` builds it: the time-to-interactive figures are those
	// of what users load.
	wasmFlags := []string{"-trimpath", "-ldflags=-s -w"}
	if err := build([]string{"GOOS=js", "GOARCH=wasm"}, append(wasmFlags, "-o", filepath.Join(dir, "app.wasm"), "./wasm")...); err != nil {
		return err
	}
	// floor/: the same page with the catalog cut out, booting a Go program
	// that does nothing (TestTimeToInteractive's floor).
	floor := filepath.Join(dir, "floor")
	if err := os.MkdirAll(floor, 0o755); err != nil {
		return err
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		return err
	}
	from, to := bytes.Index(page, []byte("<!-- catalog:")), bytes.Index(page, []byte("<!-- /catalog -->"))
	if from < 0 || to < from {
		return fmt.Errorf("index.html: no catalog markers")
	}
	page = append(append(bytes.ReplaceAll(page[:from:from], []byte(`href="style.css"`), []byte(`href="../style.css"`)), `<span id="count"></span>`...), page[to:]...)
	if err := os.WriteFile(filepath.Join(floor, "index.html"), page, 0o644); err != nil {
		return err
	}
	for _, f := range []string{"app.js", "wasm_exec.js"} {
		if err := copyFile(filepath.Join(dir, f), filepath.Join(floor, f)); err != nil {
			return err
		}
	}
	if err := build([]string{"GOOS=js", "GOARCH=wasm"}, append(wasmFlags, "-o", filepath.Join(floor, "app.wasm"), "./e2e/testdata/floor")...); err != nil {
		return err
	}
	// As `make wasm` finishes it: every route's page drawn (pre/), and the
	// brotli twins. The app's twin is `make wasm`'s when it holds the same
	// bytes (web/compress keeps it; compressing anew takes minutes).
	run := func(args ...string) error {
		cmd := exec.Command("go", append([]string{"run"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go run %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := run("./web/gen", "-pages", filepath.Join(dir, "pre")); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(root, "web", "static", "app.wasm.br"), filepath.Join(dir, "app.wasm.br")); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := run("./web/compress", filepath.Join(dir, "app.wasm"), filepath.Join(floor, "app.wasm")); err != nil {
		return err
	}
	return build(nil, "-o", filepath.Join(tmp, "fkcweb"), "./web")
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// tab opens a new tab in the shared browser (or in parent's browser) and
// fails the test on any JS exception, console error or Go panic in it.
func tab(t *testing.T, parent context.Context) context.Context {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	if parent == nil {
		parent = browserCtx
	}
	ctx, cancel := chromedp.NewContext(parent)
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	msgs := chromedp.Console(ctx)
	var (
		mu   sync.Mutex
		bad  []string
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			text := m.Text
			if m.Exception != nil && m.Exception.Exception != nil && m.Exception.Exception.Description != "" {
				text += " " + m.Exception.Exception.Description
			}
			isPanic := strings.Contains(text, "panic:") || strings.Contains(text, "fatal error:") || strings.Contains(text, "fkc: internal error")
			if m.Type == chromedp.ConsoleError || m.IsException() || isPanic {
				mu.Lock()
				bad = append(bad, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line+1))
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancelT()
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bad {
			t.Errorf("browser console: %s", b)
		}
	})
	return ctx
}

// open navigates to a page of the app and waits for fkc.ready.
func open(t *testing.T, ctx context.Context, hash string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(baseURL+hash)); err != nil {
		t.Fatalf("navigate %s: %v", hash, err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`fkc.ready.then(() => true)`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("fkc.ready: %v", err)
	}
}

// eval evaluates a JS expression, awaiting a Promise result.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", short(expr), err)
	}
	return v
}

// waitFor polls a JS predicate.
func waitFor(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		t.Fatalf("waiting for %s: %v", short(expr), err)
	}
}

func short(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// screenshot saves the whole page as screenshots/NAME.png, and the first
// screenful (what a visitor sees) as screenshots/NAME-top.png.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if top, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
		os.MkdirAll("screenshots", 0o755)
		os.WriteFile(filepath.Join("screenshots", name+"-top.png"), top, 0o644)
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.MkdirAll("screenshots", 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join("screenshots", name+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s (%d KiB)", p, len(buf)/1024)
}

func gzipSize(b []byte) int {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Len()
}
