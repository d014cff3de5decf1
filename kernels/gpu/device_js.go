//go:build js

package gpu

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"syscall/js"
	"time"
	"unsafe"

	"github.com/cogentcore/webgpu/jsx"
	"github.com/cogentcore/webgpu/wgpu"
)

// platform (browser): the GPUDevice js.Value, kept for error scopes and
// device.lost (the wgpu JS binding reports no errors from create* calls).
// Every call blocks its goroutine on JS promises: call kernels from a
// goroutine, never from inside a JS callback.
type platform struct {
	js js.Value
}

func (p platform) pushScopes(*Device) {
	p.js.Call("pushErrorScope", "out-of-memory")
	p.js.Call("pushErrorScope", "validation")
}

// startMaps asks, right after the submit, for every output's staging buffer
// to be mapped, before the error scopes are popped: the GPU process then
// answers both in one round trip instead of two in a row (waiting on the
// pops first cost a round trip per call on SwiftShader; measurements:
// docs/perf/gpu-device.md). readBack awaits the promises. A map that fails
// (the job failed, its buffers are destroyed) rejects into a handler that
// does nothing, so no unhandled rejection reaches the console.
func (platform) startMaps(j *job) {
	if !jsLayoutOK {
		return // readBack maps through the binding
	}
	for _, st := range j.stages() {
		pr := jsValueOf(st.b).Call("mapAsync", uint32(wgpu.MapModeRead), 0, st.size)
		pr.Call("catch", ignoreRejection)
		for _, o := range j.outs {
			if o.stage == st {
				o.mapping = pr
			}
		}
	}
}

var ignoreRejection = js.FuncOf(func(js.Value, []js.Value) any { return nil })

// popScopes pops the two scopes pushed by pushScopes and reports the first
// error either caught.
func (p platform) popScopes(*Device) error {
	var first error
	for _, kind := range []string{"validation", "out-of-memory"} {
		v, ok := jsx.Await(p.js.Call("popErrorScope"))
		if !ok {
			if first == nil {
				first = fmt.Errorf("WebGPU popErrorScope rejected: %s", jsString(v))
			}
			continue
		}
		if v.Truthy() && first == nil {
			first = fmt.Errorf("WebGPU %s error: %s", kind, jsString(v.Get("message")))
		}
	}
	return first
}

// The JS binding of webgpu v0.23.0 has no query sets or timestamp writes:
// LastKernelTime stays 0 in the browser.
func (p *platform) stampBegin(*job)                  {}
func (p *platform) stampEnd(*job) *outBuf            { return nil }
func (p *platform) kernelTime(*outBuf) time.Duration { return 0 }

func (p platform) release(d *Device) {
	if p.js.Truthy() {
		p.js.Call("destroy")
	}
}

func jsString(v js.Value) string {
	if v.Type() == js.TypeString {
		return v.String()
	}
	if v.Truthy() {
		return v.Call("toString").String()
	}
	return "<no message>"
}

// browserPoolMB is the browser's buffer pool budget (Device.poolCap). A
// new buffer's memory is touched for the first time by its upload or its
// readback; on a software adapter in a VM whose page faults are slow, a
// fresh readback buffer took over ten times longer to map and read than a
// reused one (docs/perf/gpu-device.md). 512 MiB holds the
// largest bench case's buffers (gather [4096,4096]: two inputs, an output
// and its readback, 64 MiB each; sum_all's 256 MiB input).
const browserPoolMB = 512

// browserPoolIdle: a tab that stops calling gives its pooled buffers back
// (on a laptop, a GPU's memory is often the system's).
const browserPoolIdle = 30 * time.Second

// OpenBrowser requests a WebGPU adapter and device from navigator.gpu with
// the adapter's own buffer limits. It blocks on JS promises: call it from a
// goroutine. The page must expose the wasm instance as globalThis.wasm
// (the wgpu binding's queue.writeBuffer reads the Go memory through it).
func OpenBrowser() (*Device, error) {
	gpu := js.Global().Get("navigator").Get("gpu")
	if !gpu.Truthy() {
		return nil, errors.New("WebGPU is not available in this browser (navigator.gpu is missing); the CPU path still works")
	}
	ad, ok := jsx.Await(gpu.Call("requestAdapter", map[string]any{"powerPreference": "high-performance"}))
	if !ok || !ad.Truthy() {
		return nil, errors.New("no WebGPU adapter found (navigator.gpu.requestAdapter returned null)")
	}
	al := ad.Get("limits")
	req := map[string]any{}
	for _, k := range []string{"maxStorageBufferBindingSize", "maxBufferSize", "maxComputeWorkgroupsPerDimension", "maxStorageBuffersPerShaderStage"} {
		if v := al.Get(k); v.Truthy() {
			req[k] = v
		}
	}
	var feats []any
	hasF16 := ad.Get("features").Call("has", "shader-f16").Bool()
	if hasF16 {
		feats = append(feats, "shader-f16")
	}
	dv, ok := jsx.Await(ad.Call("requestDevice", map[string]any{"requiredLimits": req, "requiredFeatures": feats}))
	if !ok || !dv.Truthy() {
		return nil, fmt.Errorf("WebGPU requestDevice failed: %s", jsString(dv))
	}
	wd := wgpu.NewDevice(dv)
	d := &Device{core: &core{dev: &wd, mapTimeout: defaultMapTimeout, plat: platform{js: dv}, poolCap: browserPoolMB << 20, poolIdle: browserPoolIdle}}
	d.self = d
	d.queue = d.dev.GetQueue()
	// device.lost resolves once; record it so later calls fail cleanly.
	var onLost js.Func
	onLost = js.FuncOf(func(this js.Value, args []js.Value) any {
		msg := "device lost"
		if len(args) > 0 && args[0].Truthy() {
			msg = "device lost: " + jsString(args[0].Get("message"))
		}
		d.setLost(errors.New(msg))
		onLost.Release()
		return nil
	})
	dv.Get("lost").Call("then", onLost)

	info := ad.Get("info")
	var names []string
	ad.Get("features").Call("forEach", js.FuncOf(func(this js.Value, args []js.Value) any {
		names = append(names, args[0].String())
		return nil
	}))
	dl := dv.Get("limits")
	num := func(v js.Value) float64 {
		if v.Type() == js.TypeNumber {
			return v.Float()
		}
		return 0
	}
	str := func(v js.Value, k string) string {
		if v.Truthy() && v.Get(k).Type() == js.TypeString {
			return v.Get(k).String()
		}
		return ""
	}
	name := browserAdapterName(str(info, "vendor"), str(info, "architecture"), str(info, "device"), str(info, "description"))
	d.info = AdapterInfo{
		Name:                              name,
		Backend:                           "WebGPU",
		Driver:                            str(info, "description"),
		Vendor:                            str(info, "vendor"),
		Architecture:                      str(info, "architecture"),
		Features:                          names,
		ShaderF16:                         hasF16,
		MaxComputeWorkgroupsPerDimension:  uint32(num(dl.Get("maxComputeWorkgroupsPerDimension"))),
		MaxComputeInvocationsPerWorkgroup: uint32(num(dl.Get("maxComputeInvocationsPerWorkgroup"))),
		MaxComputeWorkgroupStorageSize:    uint32(num(dl.Get("maxComputeWorkgroupStorageSize"))),
		MaxStorageBufferBindingSize:       uint64(num(dl.Get("maxStorageBufferBindingSize"))),
		MaxBufferSize:                     uint64(num(dl.Get("maxBufferSize"))),
	}
	return d, nil
}

// readBack maps each output's staging buffer (MapAsync blocks this
// goroutine on the JS promise) and hands its bytes to j.take. A rejected
// map surfaces as a JS exception from getMappedRange, which is turned into
// an error here.
func (platform) readBack(d *Device, j *job) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("readback failed: %v", r)
		}
	}()
	for _, b := range j.stages() {
		var o0 *outBuf
		for _, o := range j.outs {
			if o.stage == b {
				o0 = o
				break
			}
		}
		if pr, ok := o0.mapping.(js.Value); ok {
			if v, ok := jsx.Await(pr); !ok {
				return fmt.Errorf("readback failed: mapAsync rejected: %s", jsString(v))
			}
		} else if err := b.b.MapAsync(wgpu.MapModeRead, 0, b.size, func(wgpu.BufferMapAsyncStatus) {}); err != nil {
			return err
		}
		if err := d.lostErr(); err != nil {
			return err
		}
		var whole js.Value
		var raw []byte
		if jsLayoutOK {
			whole = js.Global().Get("Uint8Array").New(jsValueOf(b.b).Call("getMappedRange", 0, b.size))
		} else {
			raw = b.b.GetMappedRange(0, uint(b.size))
		}
		var err error
		for _, o := range j.outs {
			if o.stage != b || err != nil {
				continue
			}
			var m mapped
			if jsLayoutOK {
				m = jsMapped{whole.Call("subarray", o.stageOff, o.stageOff+o.size)}
			} else {
				m = goBytes(raw[o.stageOff : o.stageOff+o.size])
			}
			err = j.take(o, m)
		}
		b.b.Unmap()
		if err != nil {
			return err
		}
	}
	return nil
}

// jsMapped is a mapped staging buffer as a JS Uint8Array: take copies the
// payload out of it once, straight into its place in Go memory (the
// binding's GetMappedRange copied the whole range into a new Go slice
// first, and take copied it again).
type jsMapped struct{ a js.Value }

func (m jsMapped) read(off, n int) []byte {
	b := make([]byte, n)
	m.copyInto(b, off)
	return b
}

func (m jsMapped) copyInto(dst []byte, off int) {
	if len(dst) > 0 {
		js.CopyBytesToGo(dst, m.a.Call("subarray", off, off+len(dst)))
	}
}

// fill creates a buffer holding the regions (zero elsewhere: WebGPU
// buffers start zeroed): a plain buffer, each region written by
// queue.writeBuffer straight from the Go memory (the page's
// __fkcWriteView, app.js; a JS-owned copy without it). Where the
// regions do not start on whole words, or the binding's layout changed
// (jsLayoutOK), the buffer is mapped at creation and the bytes copied in
// (CreateBufferInit, js.CopyBytesToJS).
//
// Mapped at creation, an input took about twice as long to reach
// SwiftShader's device as written by writeBuffer (docs/perf/gpu-device.md);
// the plain buffer also spares an output uploading its full size to set
// its guard words.
//
// The binding's own Queue.WriteBuffer is avoided: it hands WebGPU a view of
// the wasm memory (jsx.BytesToJS) made before the call, which a heap growth
// in between detaches — WebGPU then sees an empty array ("Number of bytes
// to write is too large"). __fkcWriteView makes the view inside its JS
// call, after Go has made the call's arguments, and writeBuffer copies the
// bytes before it returns, while no Go code runs. The plain buffer comes
// from the pool (browserPoolMB) unless it must start zeroed.
func (j *job) fill(what string, size uint64, usage wgpu.BufferUsage, zero bool, regions []region) (*buffer, error) {
	label := j.op + ":" + what
	kept := usage
	usage |= wgpu.BufferUsageCopyDst
	aligned := true
	for _, r := range regions {
		aligned = aligned && r.offset%4 == 0
	}
	var wb *wgpu.Buffer
	var err error
	switch {
	case len(regions) == 0 || aligned && jsLayoutOK:
		b := j.get(what, size, usage, zero)
		if b == nil {
			return nil, j.err
		}
		writeRegions(j.d.queue, b.b, regions)
		return b, nil
	case len(regions) == 1 && regions[0].offset == 0 && (uint64(len(regions[0].data))+3)&^3 == size:
		wb, err = j.d.dev.CreateBufferInit(&wgpu.BufferInitDescriptor{Label: label, Contents: regions[0].data, Usage: usage})
	default:
		content := make([]byte, size)
		for _, r := range regions {
			copy(content[r.offset:], r.data)
		}
		wb, err = j.d.dev.CreateBufferInit(&wgpu.BufferInitDescriptor{Label: label, Contents: content, Usage: usage})
	}
	if err != nil {
		return nil, err
	}
	b := &buffer{b: wb, size: size, capacity: size, usage: kept}
	j.bufs = append(j.bufs, b)
	return b, nil
}

// writeRegions queues a write of each region (at a whole-word offset) into
// b: its whole words straight from the Go memory (__fkcWriteView), a last
// partial word from a JS-owned copy padded with zeros (writeBuffer takes
// whole words).
func writeRegions(q *wgpu.Queue, b *wgpu.Buffer, regions []region) {
	qjs, bjs := jsValueOf(q), jsValueOf(b)
	view := js.Global().Get("__fkcWriteView")
	copied := func(off uint64, data []byte) {
		a := js.Global().Get("Uint8Array").New(len(data))
		js.CopyBytesToJS(a, data)
		qjs.Call("writeBuffer", bjs, off, a)
	}
	for _, r := range regions {
		words := len(r.data) &^ 3
		switch {
		case words == 0:
		case view.Type() == js.TypeFunction:
			view.Invoke(qjs, bjs, r.offset, uintptr(unsafe.Pointer(&r.data[0])), words)
			runtime.KeepAlive(r.data)
		default:
			copied(r.offset, r.data[:words])
		}
		if rest := r.data[words:]; len(rest) > 0 {
			var w [4]byte
			copy(w[:], rest)
			copied(r.offset+uint64(words), w[:])
		}
	}
}

// jsValueOf is the GPU object behind a binding value. cogentcore/webgpu
// v0.23.0's JS Buffer and Queue are structs of one field, their js.Value,
// and export no way to reach it; jsLayoutOK checks that layout once, and
// fill keeps to the binding's own calls if it ever changes.
func jsValueOf[T wgpu.Buffer | wgpu.Queue](p *T) js.Value {
	return *(*js.Value)(unsafe.Pointer(p))
}

var jsLayoutOK = oneJSValue(reflect.TypeOf(wgpu.Buffer{})) && oneJSValue(reflect.TypeOf(wgpu.Queue{}))

func oneJSValue(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.NumField() == 1 && t.Field(0).Type == reflect.TypeOf(js.Value{}) && t.Size() == reflect.TypeOf(js.Value{}).Size()
}

// CompileMessage is one message of the browser's WGSL compiler.
type CompileMessage struct {
	Type      string // "error", "warning" or "info"
	Line, Col int    // 1-based, in the module's text (0: none given)
	Text      string
}

// CompileInfo compiles a WGSL module with the browser's compiler and
// returns its messages (GPUShaderModule.getCompilationInfo): every error
// and warning at its line, where a pipeline's failure names only the
// first. It blocks on a JS promise: call it from a goroutine.
func (d *Device) CompileInfo(src string) ([]CompileMessage, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.lostErr(); err != nil {
		return nil, err
	}
	p := d.plat
	if !p.js.Truthy() {
		return nil, errors.New("gpu: no WebGPU device to compile with")
	}
	mod := p.js.Call("createShaderModule", map[string]any{"code": src, "label": "lab: compile"})
	info, ok := jsx.Await(mod.Call("getCompilationInfo"))
	if !ok {
		return nil, fmt.Errorf("getCompilationInfo rejected: %s", jsString(info))
	}
	var out []CompileMessage
	for _, m := range jsArray(info.Get("messages")) {
		out = append(out, CompileMessage{Type: m.Get("type").String(), Line: m.Get("lineNum").Int(), Col: m.Get("linePos").Int(), Text: m.Get("message").String()})
	}
	return out, nil
}

func jsArray(v js.Value) []js.Value {
	if !v.Truthy() {
		return nil
	}
	out := make([]js.Value, v.Length())
	for i := range out {
		out[i] = v.Index(i)
	}
	return out
}
