//go:build js && wasm

// Command wasm is the playground app: the project's Go packages compiled to
// WebAssembly. Go does the work (contracts, registry, dispatch, CPU kernels,
// WebGPU kernels, provenance, goldmark); web/static/app.js draws the page.
//
// The bridge is one object, globalThis.__fkcGo, whose functions take and
// return JSON strings. Anything that may wait (every kernel run: WebGPU
// buffer mapping completes on the JS event loop) returns a Promise and works
// in a goroutine, so no JS callback ever blocks. Every exported function
// recovers panics into an error the page shows.
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
	"github.com/fkc-playground/fkc/registry"
)

var (
	// mu serialises engine use: GPU links are added once the device opens,
	// and a run that waits on the GPU yields to other goroutines.
	mu  sync.Mutex
	eng *engine.Engine

	gpuState = struct {
		sync.Mutex
		Done      bool   `json:"done"`
		Available bool   `json:"available"`
		Reason    string `json:"reason,omitempty"`
		Adapter   string `json:"adapter,omitempty"`
	}{}
)

func main() {
	start := time.Now()
	var err error
	if eng, err = safeEngine(); err != nil {
		fatal("fkc: loading the contracts failed: " + err.Error())
		select {}
	}
	gpuDone := make(chan struct{})
	go func() {
		defer close(gpuDone)
		openGPU()
	}()

	api := js.Global().Get("Object").New()
	api.Set("catalog", syncFunc(func([]js.Value) (any, error) { return jsonString(buildCatalog()) }))
	api.Set("providerProse", syncFunc(func(a []js.Value) (any, error) { return providerProse(arg(a, 0)) }))
	api.Set("kernel", syncFunc(func(a []js.Value) (any, error) { return kernelDetail(arg(a, 0)) }))
	api.Set("defaults", syncFunc(func(a []js.Value) (any, error) { return defaultsFor(arg(a, 0), arg(a, 1)) }))
	api.Set("tryit", asyncFunc(func(a []js.Value) (any, error) { return tryIt(arg(a, 0)) }))
	api.Set("run", asyncFunc(func(a []js.Value) (any, error) { return scriptRun(arg(a, 0)) }))
	api.Set("bench", asyncFunc(func(a []js.Value) (any, error) { return scriptBench(arg(a, 0)) }))
	api.Set("gpu", asyncFunc(func([]js.Value) (any, error) {
		<-gpuDone
		return gpuJSON()
	}))
	api.Set("loadMs", float64(time.Since(start).Microseconds())/1000)
	js.Global().Set("__fkcGo", api)
	if cb := js.Global().Get("__fkcGoStarted"); cb.Type() == js.TypeFunction {
		cb.Invoke(api)
	}
	select {} // keep the exported functions alive
}

// tabLimits bound a tab's tensors: its Go heap lives in at most 4 GiB of
// wasm memory, so every tensor is capped at 2^27 elements (512 MiB of f32)
// and a huge pad width is a clear error instead of an out-of-memory crash.
var tabLimits = engine.Limits{MaxElems: 1 << 27}

func safeEngine() (e *engine.Engine, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	docs, diags := contracts.LoadAll()
	for _, d := range diags {
		if d.Severity == "error" {
			return nil, fmt.Errorf("embedded contracts: %s", d)
		}
	}
	e = engine.NewWith(registry.Build(docs), tabLimits)
	// The GPU entry points, for link status and Try it defaults before
	// (or without) a WebGPU device; runnable once openGPU attaches one.
	e.AddEntries(gpu.Links(nil))
	return e, nil
}

func gpuJSON() (string, error) {
	gpuState.Lock()
	defer gpuState.Unlock()
	return jsonString(&gpuState)
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

func jsError(err error) js.Value {
	return js.Global().Get("Error").New(err.Error())
}

// syncFunc exports a quick function. It returns its value, or throws.
func syncFunc(f func([]js.Value) (any, error)) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) (ret any) {
		var err error
		defer func() {
			if r := recover(); r != nil {
				err = panicError(r)
			}
			if err != nil {
				// A thrown JS exception would unwind through Go's frames;
				// return a marker object the JS side rethrows instead.
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
		// Copy the arguments: js.Values stay valid, but the slice does not.
		a := append([]js.Value(nil), args...)
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
