//go:build browserpeers

// Command browser_peers times the playground's fkc.bench (cpu and webgpu)
// beside TensorFlow.js (wasm, webgpu) and onnxruntime-web (wasm, webgpu) on
// the bench's shapes, in one headless Chromium with SwiftShader's
// WebGPU adapter, and prints a table of medians and ratios.
//
// It is benchmark-only and kept out of `make test` (the build tag). From the
// repository root:
//
//	make wasm && (cd scripts/browser_peers && npm ci)
//	go run -tags browserpeers ./scripts/browser_peers [-cases REGEXP] [-rounds 3] [-reps 2] [-json out.json]
//	go run -tags browserpeers ./scripts/browser_peers -compare a.json,b.json   # the spread of two runs
//	go run -tags browserpeers ./scripts/browser_peers -serve 127.0.0.1:8090    # the page, for a person
//
// The server is this file's, not web/: the page loads the peers' scripts
// and their worker blobs, which the playground's Content-Security-Policy
// (rightly) forbids. It sends the same cross-origin isolation headers as
// web/ (COOP same-origin, COEP require-corp), so the peers see what they
// would see beside the playground: SharedArrayBuffer, wasm threads.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/chromedp/chromedp"
)

// columns, in table order; the peers of each of ours follow it.
var columns = []string{"ours-cpu", "tfjs-wasm", "ort-wasm", "ours-webgpu", "tfjs-webgpu", "ort-webgpu"}

type column struct {
	Times      []float64 `json:"times"`
	MedianMs   *float64  `json:"median_ms"`
	Settle     []int     `json:"settle_runs,omitempty"` // ours: each fkc.bench call's untimed settle runs
	Lacks      string    `json:"lacks"`
	Error      string    `json:"error"`
	Note       string    `json:"note"`
	BytesMoved float64   `json:"bytes_moved"`
}

type caseResult struct {
	Case    string             `json:"case"`
	Shape   []int              `json:"shape"`
	Columns map[string]*column `json:"columns"`
	WallS   float64            `json:"wall_s"`
}

type report struct {
	Date    string          `json:"date"`
	Env     json.RawMessage `json:"env"`
	Rounds  int             `json:"rounds"`
	Reps    int             `json:"reps"`
	LoadAvg string          `json:"loadavg"`
	Cases   []caseResult    `json:"cases"`
}

func main() {
	var (
		casesRe  = flag.String("cases", "", "regexp: only the cases whose name matches")
		cols     = flag.String("columns", strings.Join(columns, ","), "columns to time")
		rounds   = flag.Int("rounds", 3, "rounds per case (columns interleaved, order alternating)")
		reps     = flag.Int("reps", 2, "warm runs per column per round")
		sumElems = flag.Int("sum-all-elems", 0, "run sum_all at this many elements instead of 64 Mi (for a peer that cannot hold 64 Mi)")
		jsonOut  = flag.String("json", "", "also write the results here")
		compare  = flag.String("compare", "", "A.json,B.json: print the two runs' medians side by side (no browser)")
		serve    = flag.String("serve", "", "only serve the page on this address (e.g. 127.0.0.1:8090) for a person")
		chromium = flag.String("chromium", "", "browser binary (default: FKC_CHROMIUM, else /usr/bin/chromium…)")
		static   = flag.String("static", "", "the playground's static dir (default: web/static of this repository; run `make wasm` first)")
		timeout  = flag.Duration("timeout", 20*time.Minute, "per case")
		jsFlags  = flag.String("js-flags", "", "V8 flags for the browser (e.g. --trace-gc); the browser's output then goes to stderr")
		evalJS   = flag.String("eval", "", "instead of the table: evaluate this JS expression in the page once it is ready (e.g. peers.traceCase(5, \"ours-webgpu\")) and print its JSON")
	)
	flag.Parse()
	if *compare != "" {
		a, b, _ := strings.Cut(*compare, ",")
		if err := printCompare(a, b); err != nil {
			log.Fatal(err)
		}
		return
	}

	here := scriptDir()
	if *static == "" {
		*static = filepath.Join(here, "..", "..", "web", "static")
	}
	for _, f := range []string{filepath.Join(*static, "app.wasm"), filepath.Join(*static, "wasm_exec.js")} {
		if _, err := os.Stat(f); err != nil {
			log.Fatalf("%s is missing: run `make wasm` in the repository root first", f)
		}
	}
	if _, err := os.Stat(filepath.Join(here, "node_modules", "onnxruntime-web")); err != nil {
		log.Fatalf("the peers are not installed: run `npm ci` in %s first", here)
	}
	mux := http.NewServeMux()
	mux.Handle("/app/", http.StripPrefix("/app/", http.FileServer(http.Dir(*static))))
	mux.Handle("/node_modules/", http.StripPrefix("/node_modules/", http.FileServer(http.Dir(filepath.Join(here, "node_modules")))))
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join(here, "page"))))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cross-Origin-Embedder-Policy", "require-corp")
		hd.Set("Cache-Control", "no-store")
		if strings.HasSuffix(r.URL.Path, ".mjs") {
			hd.Set("Content-Type", "text/javascript")
		}
		mux.ServeHTTP(w, r)
	})
	addr := "127.0.0.1:0"
	if *serve != "" {
		addr = *serve
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/bench.html"
	if *serve != "" {
		fmt.Println("serving", base)
		log.Fatal(http.Serve(ln, h))
	}
	go http.Serve(ln, h)

	rep, err := runBrowser(base, browserPath(*chromium), *casesRe, strings.Split(*cols, ","), *rounds, *reps, *sumElems, *timeout, *evalJS, *jsFlags)
	if rep != nil {
		printTable(os.Stdout, rep)
		if *jsonOut != "" {
			b, _ := json.MarshalIndent(rep, "", " ")
			if werr := os.WriteFile(*jsonOut, b, 0o644); werr != nil {
				log.Print(werr)
			}
		}
	}
	if err != nil {
		log.Fatal(err)
	}
}

func scriptDir() string {
	_, file, _, ok := runtime.Caller(0)
	if ok {
		if _, err := os.Stat(filepath.Join(filepath.Dir(file), "page", "bench.html")); err == nil {
			return filepath.Dir(file)
		}
	}
	return filepath.Join("scripts", "browser_peers")
}

func browserPath(flagged string) string {
	if flagged != "" {
		return flagged
	}
	if p := os.Getenv("FKC_CHROMIUM"); p != "" {
		return p
	}
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	log.Fatal("no chromium: install it or pass -chromium")
	return ""
}

func runBrowser(url, chromium, casesRe string, cols []string, rounds, reps, sumElems int, timeout time.Duration, evalJS, jsFlags string) (*report, error) {
	tmp, err := os.MkdirTemp("", "fkc-peers-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	// The e2e suite's flags (e2e/main_test.go): headless, SwiftShader WebGPU, nothing on the network.
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
		chromedp.Flag("mute-audio", true),
		chromedp.UserDataDir(filepath.Join(tmp, "profile")),
		chromedp.Flag("enable-unsafe-webgpu", true),
		chromedp.Flag("use-webgpu-adapter", "swiftshader"),
		chromedp.Flag("enable-features", "Vulkan"),
		chromedp.Flag("use-angle", "swiftshader"),
		// A background tab's timers are throttled; this one is the only tab.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
	}
	if jsFlags != "" {
		opts = append(opts, chromedp.Flag("js-flags", jsFlags), chromedp.CombinedOutput(os.Stderr))
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	// Start the browser on ctx itself: the first Run's context owns the
	// browser, and a per-step timeout must not end it.
	if err := chromedp.Do(ctx); err != nil {
		return nil, fmt.Errorf("starting %s: %v", chromium, err)
	}

	go func() { // the page's progress lines, and anything that goes wrong in it
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			if strings.HasPrefix(m.Text, "[peers] ") || m.Type == chromedp.ConsoleError || m.IsException() || jsFlags != "" {
				where := ""
				if m.Type == chromedp.ConsoleError || m.IsException() {
					where = " (" + m.URL + ")"
				}
				fmt.Fprintf(os.Stderr, "%s %s%s\n", time.Now().Format("15:04:05"), strings.TrimPrefix(m.Text, "[peers] "), where)
			}
		}
	}()

	startCtx, cancelStart := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelStart()
	if err := chromedp.Do(startCtx, chromedp.Navigate(url)); err != nil {
		return nil, fmt.Errorf("opening %s: %v", url, err)
	}
	env, err := chromedp.Run(startCtx, chromedp.Evaluate[json.RawMessage](`peers.env()`, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("the page did not start: %v", err)
	}
	if evalJS != "" {
		evalCtx, cancelEval := context.WithTimeout(ctx, timeout)
		defer cancelEval()
		v, err := chromedp.Run(evalCtx, chromedp.Evaluate[json.RawMessage](evalJS, chromedp.EvalAwaitPromise))
		if err != nil {
			return nil, err
		}
		var pretty any
		if json.Unmarshal(v, &pretty) == nil {
			v, _ = json.MarshalIndent(pretty, "", "  ")
		}
		fmt.Println(string(v))
		return nil, nil
	}
	names, err := chromedp.Run(startCtx, chromedp.Evaluate[[]string](`peers.CASES.map(c => c.name)`))
	if err != nil {
		return nil, err
	}
	var re *regexp.Regexp
	if casesRe != "" {
		if re, err = regexp.Compile(casesRe); err != nil {
			return nil, err
		}
	}
	rep := &report{Date: time.Now().Format(time.RFC3339), Env: env, Rounds: rounds, Reps: reps}
	for i, name := range names {
		if re != nil && !re.MatchString(name) {
			continue
		}
		o := map[string]any{"rounds": rounds, "reps": reps, "columns": cols}
		if sumElems > 0 && strings.HasPrefix(name, "sum_all") {
			o["shape"] = []int{sumElems}
		}
		ob, _ := json.Marshal(o)
		caseCtx, cancelCase := context.WithTimeout(ctx, timeout)
		r, err := chromedp.Run(caseCtx, chromedp.Evaluate[caseResult](fmt.Sprintf(`peers.runCase(%d, %s)`, i, ob), chromedp.EvalAwaitPromise))
		cancelCase()
		if err != nil {
			return rep, fmt.Errorf("%s: %v", name, err)
		}
		rep.Cases = append(rep.Cases, r)
	}
	endCtx, cancelEnd := context.WithTimeout(ctx, time.Minute)
	if e, err := chromedp.Run(endCtx, chromedp.Evaluate[json.RawMessage](`peers.env()`, chromedp.EvalAwaitPromise)); err == nil {
		rep.Env = e // again: onnxruntime-web reports its threads once a session has started
	}
	cancelEnd()
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		rep.LoadAvg = strings.TrimSpace(string(b))
	}
	return rep, nil
}

// best is the fastest of the named columns that ran: its name and median.
func best(r caseResult, names ...string) (string, float64) {
	bn, bm := "", math.Inf(1)
	for _, n := range names {
		if c := r.Columns[n]; c != nil && c.MedianMs != nil && *c.MedianMs < bm {
			bn, bm = n, *c.MedianMs
		}
	}
	return bn, bm
}

func cell(c *column) string {
	switch {
	case c == nil:
		return "·"
	case c.Lacks != "":
		return "lacks"
	case c.Error != "" && c.MedianMs == nil:
		return "error"
	case c.MedianMs == nil:
		return "–"
	}
	return fmt.Sprintf("%.2f", *c.MedianMs)
}

// ratio is the best peer's median over ours (> 1: ours is faster).
func ratio(r caseResult, ours string, peers ...string) string {
	o := r.Columns[ours]
	_, bm := best(r, peers...)
	if o == nil || o.MedianMs == nil || math.IsInf(bm, 1) {
		return "–"
	}
	return fmt.Sprintf("%.2f×", bm / *o.MedianMs)
}

func printTable(w *os.File, rep *report) {
	fmt.Fprintf(w, "medians in ms (%d rounds × %d warm runs per column, interleaved); ratio = best peer / ours (> 1: ours faster)\n", rep.Rounds, rep.Reps)
	fmt.Fprintf(w, "env: %s\nloadavg at the end: %s\n\n", rep.Env, rep.LoadAvg)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tours cpu\ttfjs-wasm\tort-wasm\tcpu ratio\tours webgpu\ttfjs-webgpu\tort-webgpu\twebgpu ratio\t")
	var notes []string
	for _, r := range rep.Cases {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Case,
			cell(r.Columns["ours-cpu"]), cell(r.Columns["tfjs-wasm"]), cell(r.Columns["ort-wasm"]), ratio(r, "ours-cpu", "tfjs-wasm", "ort-wasm"),
			cell(r.Columns["ours-webgpu"]), cell(r.Columns["tfjs-webgpu"]), cell(r.Columns["ort-webgpu"]), ratio(r, "ours-webgpu", "tfjs-webgpu", "ort-webgpu"))
		for _, n := range columns {
			c := r.Columns[n]
			if c == nil {
				continue
			}
			switch {
			case c.Lacks != "":
				notes = append(notes, fmt.Sprintf("%s, %s lacks it: %s", r.Case, n, c.Lacks))
			case c.Error != "":
				notes = append(notes, fmt.Sprintf("%s, %s: error: %s", r.Case, n, c.Error))
			case strings.HasPrefix(n, "ours") && c.Note != "":
				s := fmt.Sprintf("%s, %s: kernel %s, %s", r.Case, n, c.Note, spread(c.Times))
				if len(c.Settle) > 0 {
					s += fmt.Sprintf("; settle runs per call %v", c.Settle)
				}
				notes = append(notes, s)
			}
		}
	}
	tw.Flush()
	if len(notes) > 0 {
		fmt.Fprintln(w)
		sort.SliceStable(notes, func(i, j int) bool { return strings.Contains(notes[i], "ours") && !strings.Contains(notes[j], "ours") })
		for _, n := range notes {
			fmt.Fprintln(w, "- "+n)
		}
	}
}

func spread(t []float64) string {
	if len(t) == 0 {
		return "–"
	}
	s := append([]float64(nil), t...)
	sort.Float64s(s)
	return fmt.Sprintf("min %.2f max %.2f ms over %d runs", s[0], s[len(s)-1], len(s))
}

func load(p string) (*report, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var r report
	return &r, json.Unmarshal(b, &r)
}

// printCompare prints two runs' medians per case and column, and how far
// apart they are (|a−b| / min(a, b)).
func printCompare(pa, pb string) error {
	a, err := load(pa)
	if err != nil {
		return err
	}
	b, err := load(pb)
	if err != nil {
		return err
	}
	bc := map[string]caseResult{}
	for _, r := range b.Cases {
		bc[r.Case] = r
	}
	fmt.Printf("run A %s (%s), run B %s (%s): median ms A / B (spread |A−B|/min)\n\n", pa, a.Date, pb, b.Date)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\t"+strings.Join(columns, "\t")+"\tcpu ratio A / B\twebgpu ratio A / B\t")
	for _, ra := range a.Cases {
		rb, ok := bc[ra.Case]
		if !ok {
			continue
		}
		row := []string{ra.Case}
		for _, n := range columns {
			ca, cb := ra.Columns[n], rb.Columns[n]
			if ca == nil || cb == nil || ca.MedianMs == nil || cb.MedianMs == nil {
				row = append(row, cell(ca))
				continue
			}
			x, y := *ca.MedianMs, *cb.MedianMs
			row = append(row, fmt.Sprintf("%.2f / %.2f (%.0f%%)", x, y, 100*math.Abs(x-y)/math.Min(x, y)))
		}
		row = append(row, ratio(ra, "ours-cpu", "tfjs-wasm", "ort-wasm")+" / "+ratio(rb, "ours-cpu", "tfjs-wasm", "ort-wasm"))
		row = append(row, ratio(ra, "ours-webgpu", "tfjs-webgpu", "ort-webgpu")+" / "+ratio(rb, "ours-webgpu", "tfjs-webgpu", "ort-webgpu"))
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	return tw.Flush()
}
