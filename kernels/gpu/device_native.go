//go:build !js

package gpu

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

// platform (native): the instance and adapter behind the device. The
// wrapper's create*/End/Finish calls already run inside validation error
// scopes and return errors, so pushScopes/popScopes have nothing to do.
type platform struct {
	instance *wgpu.Instance
	adapter  *wgpu.Adapter

	// Kernel timing (LastKernelTime): a 2-entry timestamp query set written
	// by the command encoder around a call's compute passes, and the
	// nanoseconds per timestamp tick. nil when the adapter lacks the
	// timestamp-query feature.
	stamps *wgpu.QuerySet
	tickNs float64
}

// stampBegin writes timestamp 0 at the start of a call's encoder (after the
// queue's pending uploads, which run before the command buffer).
func (p *platform) stampBegin(j *job) {
	if p.stamps == nil || j.enc == nil {
		return
	}
	if err := j.enc.WriteTimestamp(p.stamps, 0); err != nil {
		j.fail("gpu: %s: timestamp: %v", j.op, err)
	}
}

// stampEnd writes timestamp 1 after the last compute pass and resolves both
// into a small buffer that comes back with the outputs (nil if untimed).
func (p *platform) stampEnd(j *job) *outBuf {
	if p.stamps == nil || j.enc == nil || j.err != nil {
		return nil
	}
	b := j.get("timestamps", 16, wgpu.BufferUsageQueryResolve|wgpu.BufferUsageCopySrc, false)
	if b == nil {
		return nil
	}
	if err := j.enc.WriteTimestamp(p.stamps, 1); err != nil {
		j.fail("gpu: %s: timestamp: %v", j.op, err)
		return nil
	}
	if err := j.enc.ResolveQuerySet(p.stamps, 0, 2, b.b, 0); err != nil {
		j.fail("gpu: %s: resolve timestamps: %v", j.op, err)
		return nil
	}
	o := &outBuf{buf: b, payload: 16, size: 16}
	j.outs = append(j.outs, o)
	return o
}

// kernelTime converts the two resolved timestamps to a duration.
func (p *platform) kernelTime(o *outBuf) time.Duration {
	if o == nil || len(o.data) < 16 {
		return 0
	}
	t0 := uint64(getU32(o.data[0:])) | uint64(getU32(o.data[4:]))<<32
	t1 := uint64(getU32(o.data[8:])) | uint64(getU32(o.data[12:]))<<32
	if t1 <= t0 {
		return 0
	}
	return time.Duration(float64(t1-t0) * p.tickNs)
}

// stampTicks keeps calibrateStamps' result per adapter (name, driver,
// backend) for the process: the tick is the adapter's, not the device's.
// Calibrating each device leaked native memory per OpenNative/Close cycle
// on lavapipe (its two lone timestamp submissions), and cost two map round
// trips and a sleep per open. Measurements: docs/perf/gpu-device.md.
var stampTicks sync.Map // string -> float64 (ns per tick; failures are not kept)

// calibrateStampsOnce is calibrateStamps on the first device of an
// adapter, its result after that.
func (d *Device) calibrateStampsOnce() {
	key := d.info.Name + "\x00" + d.info.Driver + "\x00" + d.info.Backend
	if v, ok := stampTicks.Load(key); ok {
		d.plat.tickNs = v.(float64)
		return
	}
	d.calibrateStamps()
	if d.plat.tickNs > 0 { // a failed calibration (a busy GPU's timeout) is tried again by the next device
		stampTicks.Store(key, d.plat.tickNs)
	}
}

// calibrateStamps measures the timestamp tick (wgpu-native v0.19 does not
// expose Vulkan's timestampPeriod): two timestamps written by two
// submissions a short sleep apart. Each GPU stamp lies between its submit
// and its map completing on the host, which brackets the period; when one
// nanosecond a tick is inside the bracket (NVIDIA, lavapipe) it is taken
// exactly, else the bracket's middle. An implausible result turns kernel
// timing off rather than report wrong figures.
func (d *Device) calibrateStamps() {
	p := &d.plat
	type sample struct {
		tick         uint64
		submit, done time.Time
		ok           bool
	}
	stamp := func(i uint32) (s sample) {
		enc, err := d.dev.CreateCommandEncoder(&wgpu.CommandEncoderDescriptor{Label: "fkc-calibrate"})
		if err != nil {
			return s
		}
		defer enc.Release()
		j := &job{d: d, op: "calibrate", enc: enc}
		defer d.recycle(j.bufs)
		res := j.get("timestamps", 16, wgpu.BufferUsageQueryResolve|wgpu.BufferUsageCopySrc, false)
		stage := j.get("readback", 16, wgpu.BufferUsageMapRead|wgpu.BufferUsageCopyDst, false)
		if j.err != nil {
			return s
		}
		// Resolve only the query written here: copying a query that was
		// never written (nor reset) waits forever on some drivers.
		if enc.WriteTimestamp(p.stamps, i) != nil || enc.ResolveQuerySet(p.stamps, i, 1, res.b, 0) != nil ||
			enc.CopyBufferToBuffer(res.b, 0, stage.b, 0, 16) != nil {
			return s
		}
		cmd, err := enc.Finish(nil)
		if err != nil {
			return s
		}
		o := &outBuf{buf: res, payload: 16, size: 16, stage: stage}
		j.outs = []*outBuf{o}
		s.submit = time.Now()
		d.queue.Submit(cmd)
		cmd.Release()
		err = p.readBack(d, j)
		s.done = time.Now()
		if err != nil {
			return s
		}
		v := o.data[:8]
		s.tick, s.ok = uint64(getU32(v))|uint64(getU32(v[4:]))<<32, true
		return s
	}
	p.tickNs = 0
	saved := d.mapTimeout
	d.mapTimeout = 5 * time.Second // a device that cannot stamp must not stall the open
	defer func() { d.mapTimeout = saved }()
	a := stamp(0)
	time.Sleep(20 * time.Millisecond)
	b := stamp(1)
	off := func() {
		p.stamps.Release()
		p.stamps = nil
	}
	if !a.ok || !b.ok || b.tick <= a.tick {
		off()
		return
	}
	ticks := float64(b.tick - a.tick)
	lo := float64(b.submit.Sub(a.done).Nanoseconds()) / ticks
	hi := float64(b.done.Sub(a.submit).Nanoseconds()) / ticks
	switch {
	case lo <= 1 && 1 <= hi:
		p.tickNs = 1
	case lo > 0.01 && hi < 1000:
		p.tickNs = (lo + hi) / 2
	default:
		off()
	}
}

func (platform) pushScopes(*Device)      {}
func (platform) popScopes(*Device) error { return nil }
func (platform) startMaps(*job)          {} // readBack maps and polls

func (p platform) release(d *Device) {
	if p.stamps != nil {
		p.stamps.Release()
	}
	if d.queue != nil {
		d.queue.Release()
	}
	if d.dev != nil {
		d.dev.Release()
	}
	if p.adapter != nil {
		p.adapter.Release()
	}
	// The instance is shared by the process (see vulkanInstance): not released.
}

var (
	instOnce sync.Once
	instance *wgpu.Instance
)

// vulkanInstance creates the process's one wgpu instance, Vulkan forced.
// One per process, because webgpu v0.23.0's CreateInstance mallocs its
// WGPUInstanceExtras without zeroing the fields it does not set: a second
// instance can read recycled heap garbage (seen here: wgpu-native aborted
// with "Unknown gles3 minor version" on the second OpenNative).
func vulkanInstance() *wgpu.Instance {
	instOnce.Do(func() {
		quietDrivers()
		instance = wgpu.CreateInstance(&wgpu.InstanceDescriptor{Backends: wgpu.InstanceBackendVulkan})
	})
	return instance
}

// quietDrivers keeps wgpu's and Mesa's chatter off the program's stderr:
// wgpu's log ("Unable to find extension: VK_EXT_swapchain_colorspace";
// "enumerate_adapters: Initialization of an object has failed" beside the
// error OpenNative returns) and the window-system probe's complaint when
// XDG_RUNTIME_DIR is unset, which a compute-only library never needs.
// Every wgpu error reaches the caller as a Go error (error scopes, request
// results), so its log would only repeat it. An unset XDG_RUNTIME_DIR is
// set to a private directory of this user's.
func quietDrivers() {
	wgpu.SetLogLevel(wgpu.LogLevelOff)
	if os.Getenv("XDG_RUNTIME_DIR") == "" {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("fkc-runtime-%d", os.Getuid()))
		if os.MkdirAll(dir, 0o700) == nil && os.Chmod(dir, 0o700) == nil {
			os.Setenv("XDG_RUNTIME_DIR", dir)
		}
	}
}

// noAdapterHint says why no adapter was found and what to do. Under an
// address-space limit (ulimit -v) a Vulkan driver that is installed fails
// the same way as none: Mesa lavapipe maps about 2 GiB (LLVM and a thread
// pool), and wgpu reports only that no adapter initialized.
func noAdapterHint(limit uint64, limited bool) string {
	const install = "install a Vulkan driver, e.g. Mesa lavapipe: apt-get install mesa-vulkan-drivers"
	if !limited {
		return " (" + install + ")"
	}
	return limitHint(limit) + "; without a limit, this error means no Vulkan driver is installed (" + install + ")"
}

// limitHint names the address-space limit a driver failed under.
func limitHint(limit uint64) string {
	return fmt.Sprintf(": the Vulkan driver could not map its memory under this process's address-space limit of %d MiB "+
		"(RLIMIT_AS, ulimit -v %d): raise it (ulimit -v unlimited; Mesa lavapipe needs about 2 GiB)", limit>>20, limit>>10)
}

// OpenNative opens the first Vulkan adapter through wgpu-native (the Vulkan
// backend is forced: no GL or other fallback). The device is requested with
// the adapter's own limits so large buffers work on real GPUs.
func OpenNative() (*Device, error) {
	inst := vulkanInstance()
	if inst == nil {
		return nil, errors.New("no Vulkan adapter found: wgpu-native could not create a Vulkan instance")
	}
	ad, err := inst.RequestAdapter(&wgpu.RequestAdapterOptions{
		PowerPreference: wgpu.PowerPreferenceHighPerformance,
	})
	if err != nil || ad == nil {
		if err == nil {
			err = errors.New("no adapter returned")
		}
		return nil, fmt.Errorf("no Vulkan adapter found: %v%s", err, noAdapterHint(addressSpaceLimit()))
	}
	ai := ad.GetInfo()
	if ai.BackendType != wgpu.BackendTypeVulkan {
		ad.Release()
		return nil, fmt.Errorf("no Vulkan adapter found: wgpu offered %q on %s", ai.Name, ai.BackendType)
	}
	lim := ad.GetLimits().Limits
	feats := ad.EnumerateFeatures()
	var want []wgpu.FeatureName
	hasF64, hasStamps := false, false
	for _, f := range feats {
		switch f {
		case wgpu.NativeFeatureShaderF64:
			hasF64 = true
			want = append(want, f)
		case wgpu.FeatureNameTimestampQuery:
			hasStamps = true
			want = append(want, f)
		}
	}
	// Ask for the adapter's compute and buffer limits; passing the whole
	// adapter limit set back makes RequestDevice fail on lavapipe, so the
	// rest stay at wgpu's defaults.
	req := wgpu.DefaultLimits()
	req.MaxStorageBufferBindingSize = lim.MaxStorageBufferBindingSize
	req.MaxBufferSize = lim.MaxBufferSize
	req.MaxStorageBuffersPerShaderStage = lim.MaxStorageBuffersPerShaderStage
	req.MaxComputeWorkgroupStorageSize = lim.MaxComputeWorkgroupStorageSize
	req.MaxComputeInvocationsPerWorkgroup = lim.MaxComputeInvocationsPerWorkgroup
	req.MaxComputeWorkgroupSizeX = lim.MaxComputeWorkgroupSizeX
	req.MaxComputeWorkgroupsPerDimension = lim.MaxComputeWorkgroupsPerDimension
	d := &Device{core: &core{mapTimeout: defaultMapTimeout, repeat: clampRepeat(envInt("FKC_KERNEL_REPEAT", 1)),
		steady: time.Duration(envInt("FKC_STEADY_CLOCKS_MS", 0)) * time.Millisecond}}
	d.self = d
	dev, err := ad.RequestDevice(&wgpu.DeviceDescriptor{
		Label:            "fkc",
		RequiredFeatures: want,
		RequiredLimits:   &wgpu.RequiredLimits{Limits: req},
		// No DeviceLostCallback: webgpu v0.23.0 stores a Go pointer in the
		// C descriptor for it and cgocheck panics. A lost device shows up
		// instead as a failed map / validation error, which become errors.
	})
	if err != nil {
		ad.Release()
		hint := ""
		if lim, limited := addressSpaceLimit(); limited {
			hint = limitHint(lim) // a driver may find the adapter, then fail to map the device's memory
		}
		return nil, fmt.Errorf("gpu: request device on %q: %v%s", ai.Name, err, hint)
	}
	d.dev = dev
	d.queue = dev.GetQueue()
	d.plat = platform{instance: inst, adapter: ad}
	names := make([]string, 0, len(feats))
	for _, f := range feats {
		names = append(names, f.String())
	}
	sort.Strings(names)
	dl := dev.GetLimits().Limits
	d.info = AdapterInfo{
		Name:                              adapterName(ai),
		Backend:                           ai.BackendType.String(),
		Driver:                            ai.DriverDescription,
		Vendor:                            ai.VendorName,
		Architecture:                      ai.Architecture,
		AdapterType:                       ai.AdapterType.String(),
		Features:                          names,
		ShaderF64:                         hasF64,
		ShaderF16:                         ad.HasFeature(wgpu.FeatureNameShaderF16),
		MaxComputeWorkgroupsPerDimension:  dl.MaxComputeWorkgroupsPerDimension,
		MaxComputeInvocationsPerWorkgroup: dl.MaxComputeInvocationsPerWorkgroup,
		MaxComputeWorkgroupStorageSize:    dl.MaxComputeWorkgroupStorageSize,
		MaxStorageBufferBindingSize:       dl.MaxStorageBufferBindingSize,
		MaxBufferSize:                     dl.MaxBufferSize,
	}
	if hasStamps && os.Getenv("FKC_NO_TIMESTAMPS") == "" {
		qs, err := dev.CreateQuerySet(&wgpu.QuerySetDescriptor{Label: "fkc-kernel-time", Type: wgpu.QueryTypeTimestamp, Count: 2})
		if err == nil {
			d.plat.stamps = qs
			d.calibrateStampsOnce()
		}
	}
	d.info.TimestampTickNs = d.plat.tickNs
	// The buffer pool's budget: 1 GiB on a GPU; 128 MiB on a software
	// adapter, whose "device" memory is the host's. FKC_GPU_POOL_MB
	// overrides (0 turns pooling off).
	poolMB := 1024
	if ai.AdapterType == wgpu.AdapterTypeCPU {
		poolMB = 128
	}
	d.poolCap = uint64(envInt("FKC_GPU_POOL_MB", poolMB)) << 20
	return d, nil
}

// envInt reads a non-negative integer setting from the environment.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= 0 {
		return v
	}
	return def
}

// spinFor is how long mapAll polls without sleeping before it backs off.
const spinFor = 4 * time.Millisecond

// mapAll maps every buffer (mode read or write) and waits for all of them.
// It polls the device without blocking (so a wedged device cannot hang the
// caller) until every MapAsync callback has fired or mapTimeout passes.
func (d *Device) mapAll(bufs []*buffer, mode wgpu.MapMode) error {
	n := len(bufs)
	status := make([]wgpu.BufferMapAsyncStatus, n)
	pending := n
	for i, b := range bufs {
		i := i
		err := b.b.MapAsync(mode, 0, b.size, func(s wgpu.BufferMapAsyncStatus) {
			status[i] = s
			pending--
		})
		if err != nil {
			return err
		}
	}
	timeout := d.mapTimeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	start := time.Now()
	deadline := start.Add(timeout)
	sleep := time.Duration(0)
	for pending > 0 {
		if !d.stallForTest {
			d.dev.Poll(false, nil)
		}
		if pending == 0 {
			break
		}
		if err := d.lostErr(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			err := fmt.Errorf("results not ready after %v (device hung or too slow); raise it with Device.SetMapTimeout", timeout)
			// Never poll this device again: a late map callback would crash
			// the process (see Device.wedged).
			d.wedged = true
			d.setLost(fmt.Errorf("gpu: device abandoned after a readback timeout: %v", err))
			return err
		}
		// Spin first: most calls finish within a few milliseconds, and a
		// sleep costs far more than asked for (the timer's slack: tens of
		// microseconds at best, hundreds on a loaded machine), which would
		// add up to the GPU's own time again on a short call.
		if time.Since(start) < spinFor {
			runtime.Gosched()
			continue
		}
		if sleep == 0 {
			sleep = time.Microsecond
		}
		time.Sleep(sleep)
		sleep = min(2*sleep, 200*time.Microsecond)
	}
	for i := range bufs {
		if status[i] != wgpu.BufferMapAsyncStatusSuccess {
			for k := range bufs {
				if status[k] == wgpu.BufferMapAsyncStatusSuccess {
					bufs[k].b.Unmap()
				}
			}
			return fmt.Errorf("map buffer: %s", status[i])
		}
	}
	return nil
}

// readBack maps every output's staging buffer and hands its bytes to
// j.take, straight from the mapping (one copy, into the result).
func (platform) readBack(d *Device, j *job) error {
	stages := j.stages()
	if err := d.mapAll(stages, wgpu.MapModeRead); err != nil {
		return err
	}
	ranges := make(map[*buffer][]byte, len(stages))
	for _, st := range stages {
		ranges[st] = st.b.GetMappedRange(0, uint(st.size))
	}
	var first error
	for _, o := range j.outs {
		m := ranges[o.stage][o.stageOff : o.stageOff+o.size]
		if err := j.take(o, goBytes(m)); err != nil && first == nil {
			first = err
		}
	}
	for _, st := range stages {
		st.b.Unmap()
	}
	return first
}

// adapterName: wgpu-native v0.19 (under webgpu v0.23.0) reports the Vulkan
// deviceName in the info's description and a hex id in its device field.
func adapterName(ai wgpu.AdapterInfo) string {
	if ai.DriverDescription != "" && (ai.Name == "" || strings.HasPrefix(ai.Name, "0x")) {
		return ai.DriverDescription
	}
	return ai.Name
}

// stagedMin: regions at least this long are uploaded through a pooled
// mapped staging buffer (one copy, no allocation once warm); shorter ones
// through Queue.WriteBuffer, whose own staging is cheap for them.
const stagedMin = 256 << 10

// fill returns a buffer (pooled unless zero) holding the regions: short
// ones queued with Queue.WriteBuffer (run at submit, before the call's
// command buffer), long ones copied into pooled staging buffers, mapped
// for writing, and copied on the GPU by the call's encoder ahead of its
// passes.
func (j *job) fill(what string, size uint64, usage wgpu.BufferUsage, zero bool, regions []region) (*buffer, error) {
	b := j.get(what, size, usage|wgpu.BufferUsageCopyDst, zero)
	if b == nil {
		return nil, j.err
	}
	var staged []region
	for _, r := range regions {
		switch {
		case len(r.data) == 0:
		case len(r.data) >= stagedMin:
			staged = append(staged, r)
		default:
			data := r.data
			if len(data)&3 != 0 {
				data = make([]byte, round4(len(r.data)))
				copy(data, r.data)
			}
			if err := j.d.queue.WriteBuffer(b.b, r.offset, data); err != nil {
				return nil, fmt.Errorf("upload: %v", err)
			}
		}
	}
	if len(staged) == 0 {
		return b, nil
	}
	// A large region streams: the GPU copies one piece while the host
	// fills the next.
	var rest []region
	for _, r := range staged {
		if j.pieces(len(r.data)) > 1 {
			if err := j.stream(b, r); err != nil {
				return nil, err
			}
		} else {
			rest = append(rest, r)
		}
	}
	if staged = rest; len(staged) == 0 {
		return b, nil
	}
	stages := make([]*buffer, len(staged))
	for i, r := range staged {
		if stages[i] = j.get("upload", uint64(round4(len(r.data))), wgpu.BufferUsageMapWrite|wgpu.BufferUsageCopySrc, false); stages[i] == nil {
			return nil, j.err
		}
	}
	if err := j.d.mapAll(stages, wgpu.MapModeWrite); err != nil {
		return nil, fmt.Errorf("upload: %v", err)
	}
	for i, r := range staged {
		st := stages[i]
		m := st.b.GetMappedRange(0, uint(st.size))
		pcopy(m[:len(r.data)], r.data)
		clear(m[len(r.data):])
		st.b.Unmap()
		if err := j.enc.CopyBufferToBuffer(st.b, 0, b.b, r.offset, st.size); err != nil {
			return nil, fmt.Errorf("upload: %v", err)
		}
	}
	return b, nil
}

// Regions of at least streamMin bytes are uploaded in pieces of about
// streamPiece bytes (at most 4, or streamPieces when that is set), each
// through its own (pooled) staging buffer and submitted as soon as it is
// filled: the GPU's copy of a piece (over PCIe on a discrete card) overlaps
// the host's filling of the next. No staging buffer is reused within a
// call, so the host never waits for the GPU. A submit costs about half a
// millisecond on a large discrete GPU, so pieces are large; several
// inputs streamed at once lost. Variables, for tests and the diag harness.
// Measurements: docs/perf/gpu-device.md.
var (
	streamMin    = 48 << 20
	streamPiece  = 48 << 20
	streamPieces = 0
)

// pieces is how many pieces a region of n bytes is uploaded in (1: not
// streamed). The one large input of a call marked soleInput (a reduction's
// x) goes in at least two from soleMin bytes.
func (j *job) pieces(n int) int {
	switch {
	case n >= streamMin && streamPieces > 0:
		return streamPieces
	case n >= streamMin:
		p := min(4, max(1, (n+streamPiece/2)/streamPiece))
		if j.soleInput && soleStream {
			p = max(p, 2)
		}
		return p
	case j.soleInput && soleStream && n >= soleMin:
		return 2
	}
	return 1
}

// soleStream: a reduction's x, its call's only large input, streams in
// two pieces from soleMin bytes, where other calls' inputs go whole below
// 72 MB (a tuning variable; false measures the whole upload). Two pieces
// shorten a reduction's wall and kernel time (the second piece's bytes are
// still in the L2 cache when the kernel reads them); the 25 MB inputs of
// the pads and pad_backward lost wall time in two pieces, so they go
// whole. Measurements: docs/perf/gpu-device.md.
var (
	soleStream = true
	soleMin    = 32 << 20
)

// stream uploads r into b piece by piece (see streamMin), queued before
// the call's own command buffer. The device clock of the call
// (LastGPUTime) starts at the first piece's submit.
func (j *job) stream(b *buffer, r region) error {
	d := j.d
	n := len(r.data)
	piece := (n/j.pieces(n) + 15) &^ 15
	// Every piece's staging buffer is mapped in one round trip, before the
	// first submit, rather than each in turn (docs/perf/gpu-device.md).
	var stages []*buffer
	var sizes []uint64
	for off := 0; off < n; off += piece {
		size := uint64(round4(min(piece, n-off)))
		st := j.get("upload", size, wgpu.BufferUsageMapWrite|wgpu.BufferUsageCopySrc, false)
		if st == nil {
			return j.err
		}
		stages, sizes = append(stages, st), append(sizes, size)
	}
	if err := d.mapAll(stages, wgpu.MapModeWrite); err != nil {
		return fmt.Errorf("upload: %v", err)
	}
	for i, off := 0, 0; off < n; i, off = i+1, off+piece {
		part := r.data[off:min(off+piece, n)]
		st, size := stages[i], sizes[i]
		m := st.b.GetMappedRange(0, uint(size))
		pcopy(m[:len(part)], part)
		clear(m[len(part):size])
		st.b.Unmap()
		enc, err := d.dev.CreateCommandEncoder(&wgpu.CommandEncoderDescriptor{Label: j.op + ":upload"})
		if err != nil {
			return fmt.Errorf("upload: %v", err)
		}
		err = enc.CopyBufferToBuffer(st.b, 0, b.b, r.offset+uint64(off), size)
		var cmd *wgpu.CommandBuffer
		if err == nil {
			cmd, err = enc.Finish(nil)
		}
		enc.Release()
		if err != nil {
			return fmt.Errorf("upload: %v", err)
		}
		if j.submitted.IsZero() {
			j.submitted = time.Now()
		}
		d.queue.Submit(cmd)
		cmd.Release()
	}
	return nil
}
