package kernels

import "time"

// The kernel lab's device interface (package lab, docs/lab.md): a user's
// WGSL module run once with the lab's bindings. It lives here, beside the
// other types the CPU and GPU sides share, so that package lab stays pure
// Go (the CLI links no GPU driver) while kernels/gpu.Device implements it
// natively and in the browser.

// LabRun is one dispatch of a complete WGSL module: bindings 0 .. len(Inputs)-1
// are the inputs (read-only storage), then the output (read_write storage:
// OutBytes of payload and the device's guard words after it, every byte
// Marker), then Params (read-only storage), then the lab's loop-budget
// binding (read_write storage: word 0 the exhausted flag, word 1 the budget),
// then Views.
type LabRun struct {
	Label    string
	Source   string // the whole module
	Entry    string // the entry point, "main"
	Inputs   [][]byte
	OutBytes int
	Params   []byte
	// Views lists further bindings after the budget's, each a second view
	// of a buffer above (an F64 module's array<f64>): input i, or -1 for
	// the output.
	Views  []int
	Marker byte   // the output's initial bytes, payload and guards
	Budget uint32 // loop iterations one invocation may run (word 1 of the budget binding)
	// Workgroups of WG invocations to launch, laid out as rows of at most
	// RowGroups (0: the adapter's maxComputeWorkgroupsPerDimension).
	Workgroups uint64
	RowGroups  uint32
	// Repeat runs the dispatch this many times in one submission and
	// times them (bench); 0 or 1 runs it once.
	Repeat int
}

// LabResult is what one LabRun read back.
type LabResult struct {
	Out []byte // the payload, OutBytes long
	// Overrun is the byte offset past the payload of the first guard byte
	// the kernel changed, or -1.
	Overrun int
	// GuardBytes is how many guard bytes followed the payload.
	GuardBytes int
	Exhausted  bool // an invocation ran out of its loop budget
	// Kernel is the GPU's time for the dispatch (timestamps; 0 where the
	// adapter has none), Wall the call's device time (submit to mapped),
	// both divided by Repeat.
	Kernel, Wall time.Duration
}

// LabAdapter describes the device a lab run uses.
type LabAdapter struct {
	Name      string
	ShaderF64 bool
	MaxGroups uint32 // maxComputeWorkgroupsPerDimension
}

// LabDevice runs lab modules (kernels/gpu.Device). A compile error is a
// *WGSLError.
type LabDevice interface {
	LabAdapter() LabAdapter
	RunLab(r *LabRun) (*LabResult, error)
	// SetLabTimeout bounds the wait for one run's results; past it the
	// run fails and the device is abandoned (it may still be running).
	SetLabTimeout(d time.Duration)
}

// LabBatcher is a LabDevice that runs several modules in one submission
// (kernels/gpu.Device): a check's cases cost one round trip per batch
// instead of one each. A compile error of any module fails the batch.
type LabBatcher interface {
	RunLabBatch(rs []*LabRun) ([]*LabResult, error)
}

// WGSLError is a shader module that did not compile: the compiler's text.
type WGSLError struct{ Msg string }

func (e *WGSLError) Error() string { return e.Msg }
