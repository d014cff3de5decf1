//go:build js && wasm

// Command wasm is the playground app: the project's Go packages compiled to
// WebAssembly. Go does the work and renders every page (package
// playground's templates); web/static/app.js is a bootstrap that loads this
// program, forwards DOM events to it and highlights what a cell's data
// names.
//
// The bridge is one object, globalThis.__fkcGo. route and event are called
// from DOM events and return at once: anything that may wait (every kernel
// run: WebGPU buffer mapping completes on the JS event loop) works in a
// goroutine, so no JS callback ever blocks. run and bench return Promises.
// Every exported function recovers panics into an error the page shows.
package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync"
	"syscall/js"
	"time"

	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels/gpu"
	"github.com/fkc-playground/fkc/playground"
	"github.com/fkc-playground/fkc/registry"
)

// tabLimits bound a tab's tensors (playground.TabMaxElems): a huge pad
// width is a clear error instead of an out-of-memory crash.
var tabLimits = engine.Limits{MaxElems: playground.TabMaxElems}

// state is the app: one engine shared by the pages and the scripting API
// (mu serialises its use: GPU links are attached once the device opens,
// and a run that waits on the GPU yields to other goroutines), the
// WebGPU state, and the page on screen.
type state struct {
	mu      sync.Mutex
	eng     *engine.Engine
	gpuMu   sync.Mutex
	gpuS    playground.GPUState
	gpuDone chan struct{}
	dev     *gpu.Device // the tab's WebGPU device, once open (attached to every engine that runs kernels)
	page    page
}

var app = &state{gpuDone: make(chan struct{})}

func (s *state) gpu() playground.GPUState {
	s.gpuMu.Lock()
	defer s.gpuMu.Unlock()
	return s.gpuS
}

func (s *state) site() *playground.Site { return &playground.Site{Eng: s.eng, GPU: s.gpu()} }

// pageSite is the Site of the page on screen: whose kernels its Try it runs.
func (s *state) pageSite() *playground.Site {
	if s.page.site != nil {
		return s.page.site()
	}
	return s.site()
}

// lock is playground.Site.Try's way to take the engine.
func (s *state) lock() func() {
	s.mu.Lock()
	return s.mu.Unlock
}

func main() {
	start := time.Now()
	var err error
	if app.eng, err = safeEngine(); err != nil {
		fatal("fkc: loading the contracts failed: " + err.Error())
		select {}
	}
	go func() {
		defer close(app.gpuDone)
		openGPU()
	}()
	go warmUp()
	api := js.Global().Get("Object").New()
	api.Set("route", syncFunc(func(a []js.Value) (any, error) { return nil, route(arg(a, 0)) }))
	api.Set("event", syncFunc(func(a []js.Value) (any, error) { return nil, event(arg(a, 0)) }))
	api.Set("reveal", syncFunc(func(a []js.Value) (any, error) {
		if len(a) < 2 || a[1].Type() != js.TypeNumber {
			return nil, fmt.Errorf("reveal takes a grid key and a cell index")
		}
		return reveal(arg(a, 0), a[1].Int()), nil
	}))
	api.Set("kernels", syncFunc(func([]js.Value) (any, error) { return kernelsJSON() }))
	api.Set("run", asyncFunc(func(a []js.Value) (any, error) { return scriptRun(arg(a, 0)) }))
	api.Set("bench", asyncFunc(func(a []js.Value) (any, error) { return scriptBench(arg(a, 0)) }))
	api.Set("chain", asyncFunc(func(a []js.Value) (any, error) { return scriptChain(arg(a, 0)) }))
	api.Set("verify", asyncFunc(func(a []js.Value) (any, error) {
		var progress js.Value
		if len(a) > 1 && a[1].Type() == js.TypeFunction {
			progress = a[1]
		}
		return scriptVerify(arg(a, 0), progress)
	}))
	api.Set("labTemplate", asyncFunc(func(a []js.Value) (any, error) { return scriptLabTemplate(arg(a, 0)) }))
	api.Set("labCheck", asyncFunc(func(a []js.Value) (any, error) { return scriptLabCheck(arg(a, 0)) }))
	api.Set("labBench", asyncFunc(func(a []js.Value) (any, error) { return scriptLabBench(arg(a, 0)) }))
	api.Set("gpu", asyncFunc(func([]js.Value) (any, error) {
		<-app.gpuDone
		return jsonString(app.gpu())
	}))
	api.Set("loadMs", float64(time.Since(start).Microseconds())/1000)
	js.Global().Set("__fkcGo", api)
	if cb := js.Global().Get("__fkcGoStarted"); cb.Type() == js.TypeFunction {
		cb.Invoke(api)
	}
	select {} // keep the exported functions alive
}

// warmUp does, once the page is up, what the first kernel page would
// otherwise do on the user's click: read the bundled Judge fits, build and
// render the first catalog kernel's page (goldmark, templates), run its
// Try-it case on the CPU and draw the results, all thrown away. Most of a
// cold click is first calls: V8 compiles a wasm function when it is first
// called (half of a click's Go time, in a trace), and the fits, the page and
// the first run were ten times slower cold than warm
// (docs/perf/browser-page.md). It starts shortly after the catalog is taken
// over, without waiting for WebGPU (whose start is mostly the browser's: Go
// idles meanwhile).
func warmUp() {
	defer func() { recover() }()      // best effort: a failure here shows on the real click
	time.Sleep(50 * time.Millisecond) // let the page paint and answer first
	s := app.site()
	rows := s.Rows()
	if len(rows) == 0 {
		return
	}
	s.Reports = judgeReports()
	p, err := s.KernelPage(rows[0].ID, nil)
	if err != nil {
		return
	}
	if _, err := playground.Render("kernel", p); err != nil || p.Try == nil {
		return
	}
	r := s.Try(p.Row, p.Try.Case, []string{"cpu"}, browserClock{}, app.lock)
	playground.Render("results", r)
	if v := r.Visual(nil); v != nil {
		playground.Render("visual", v)
	}
	r.PageCosts()
}

func safeEngine() (e *engine.Engine, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	// The loader ran at build time (go generate ./contracts): decoding its
	// result costs a fraction of parsing the YAML in the tab.
	docs, diags, err := contracts.LoadCompiled()
	if err != nil {
		return nil, err
	}
	for _, d := range diags {
		if d.Severity == "error" {
			return nil, fmt.Errorf("embedded contracts: %s", d)
		}
	}
	e = engine.NewWith(registry.Build(docs), tabLimits)
	// The GPU entry points, for link status and Try-it defaults before (or
	// without) a WebGPU device; runnable once openGPU attaches one.
	e.AddEntries(gpu.Links(nil))
	return e, nil
}

// kernelsJSON is fkc.kernels(): every kernel of every contract.
func kernelsJSON() (string, error) {
	rows := app.site().Rows() // sync: no lock (see route)
	type k struct {
		Name        string   `json:"name"`
		Provider    string   `json:"provider"`
		Backend     string   `json:"backend"`
		OpKind      string   `json:"op_kind"`
		Registrable bool     `json:"registrable"`
		DTypes      []string `json:"dtypes"`
	}
	out := make([]k, len(rows))
	for i, r := range rows {
		out[i] = k{r.Name, r.Provider, r.Backend, r.OpKind, r.Registrable, r.DTypes}
	}
	return jsonString(out)
}

func arg(a []js.Value, i int) string {
	if i < len(a) && a[i].Type() == js.TypeString {
		return a[i].String()
	}
	return ""
}

func jsonString(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// panicError turns a recovered panic into an error with the top of the
// stack, and tells the page (which shows it in a banner).
func panicError(r any) error {
	msg := fmt.Sprintf("fkc: internal error (a Go panic, recovered): %v", r)
	println(msg + "\n" + string(debug.Stack()))
	if f := js.Global().Get("fkcReportPanic"); f.Type() == js.TypeFunction {
		f.Invoke(msg)
	}
	return fmt.Errorf("%s", msg)
}

func jsError(err error) js.Value { return js.Global().Get("Error").New(err.Error()) }

// syncFunc exports a quick function. It returns its value, or an error
// marker the JS side rethrows (a thrown JS exception would unwind through
// Go's frames).
func syncFunc(f func([]js.Value) (any, error)) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) (ret any) {
		var err error
		defer func() {
			if r := recover(); r != nil {
				err = panicError(r)
			}
			if err != nil {
				ret = js.ValueOf(map[string]any{"__fkcError": err.Error()})
			}
		}()
		ret, err = f(args)
		return ret
	})
}

// asyncFunc exports a function that may wait: it returns a Promise at once
// and does the work in a goroutine.
func asyncFunc(f func([]js.Value) (any, error)) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) any {
		a := append([]js.Value(nil), args...) // the slice does not outlive the call
		var executor js.Func
		executor = js.FuncOf(func(_ js.Value, pr []js.Value) any {
			resolve, reject := pr[0], pr[1]
			go func() {
				defer func() {
					if r := recover(); r != nil {
						reject.Invoke(jsError(panicError(r)))
					}
				}()
				v, err := f(a)
				if err != nil {
					reject.Invoke(jsError(err))
					return
				}
				resolve.Invoke(v)
			}()
			return nil
		})
		defer executor.Release()
		return js.Global().Get("Promise").New(executor)
	})
}

func fatal(msg string) {
	println(msg)
	if f := js.Global().Get("fkcReportPanic"); f.Type() == js.TypeFunction {
		f.Invoke(msg)
	}
}
