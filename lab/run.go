package lab

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
	"github.com/fkc-playground/fkc/verify"
)

// Options tune one run of a user's kernel.
type Options struct {
	// RowGroups lays the workgroups out in rows of at most this many (0:
	// the adapter's limit), so that a kernel which ignores the grid's y
	// is caught by small cases.
	RowGroups uint32
	Budget    uint32 // loop iterations an invocation may run (0: Budget)
	Repeat    int    // dispatches in one submission (bench)
}

// Outcome is one run of a user's kernel on one call.
type Outcome struct {
	Layout    *Layout
	Out       *tensor.Tensor
	Exhausted bool // an invocation ran out of the loop budget
	Budget    uint32
	// Overrun is the byte offset after the payload of the first guard
	// byte the kernel wrote, or -1.
	Overrun      int
	GuardBytes   int
	Kernel, Wall time.Duration
}

// Execute runs the user's WGSL (a module without the prelude) on one call.
// A module that does not compile is a *CompileError.
func Execute(dev kernels.LabDevice, user string, c *kernels.Call, opt Options) (*Outcome, error) {
	l, err := Plan(c, dev.LabAdapter().ShaderF64)
	if err != nil {
		return nil, err
	}
	m, err := Build(user, l)
	if err != nil {
		return nil, err
	}
	return m.Run(dev, c, l, opt)
}

// Run runs a built module on a call laid out as l.
func (m *Module) Run(dev kernels.LabDevice, c *kernels.Call, l *Layout, opt Options) (*Outcome, error) {
	r := m.labRun(c, l, opt)
	res, err := dev.RunLab(r)
	if err != nil {
		return nil, m.runErr(err)
	}
	return outcome(l, r, res), nil
}

// labRun is the device's description of one run of m on c.
func (m *Module) labRun(c *kernels.Call, l *Layout, opt Options) *kernels.LabRun {
	budget := opt.Budget
	if budget == 0 {
		budget = Budget
	}
	ins := make([][]byte, len(l.Op.Inputs))
	for i, in := range l.Op.Inputs {
		ins[i] = c.In(in.Name).Data
	}
	return &kernels.LabRun{Label: l.Op.Name, Source: m.Source, Entry: "main", Inputs: ins, OutBytes: tensor.NumElems(l.OutShape) * l.Out.Size(),
		Params: l.ParamBytes(), Views: l.Views(), Marker: Marker, Budget: budget,
		Workgroups: max(1, (l.Units+WG-1)/WG), RowGroups: opt.RowGroups, Repeat: opt.Repeat}
}

// runErr reads a device error: a compile error at the user's position.
func (m *Module) runErr(err error) error {
	var w *kernels.WGSLError
	if errors.As(err, &w) {
		return m.CompileErr(w.Msg)
	}
	return err
}

func outcome(l *Layout, r *kernels.LabRun, res *kernels.LabResult) *Outcome {
	out := tensor.New(l.Out, l.OutShape)
	copy(out.Data, res.Out)
	return &Outcome{Layout: l, Out: out, Exhausted: res.Exhausted, Budget: r.Budget, Overrun: res.Overrun,
		GuardBytes: res.GuardBytes, Kernel: res.Kernel, Wall: res.Wall}
}

// Status is a case's verdict.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "FAIL"
	Skip Status = "skip"
)

// Verdict is what one case showed.
type Verdict struct {
	Case   *Case
	Status Status
	// Why is a failure's kind in words: "wrong values", "timed out: a loop
	// ran past 32768 iterations", "wrote past its output …", "never wrote
	// 3 of 12 cells", a compile error; or why a case was skipped.
	Why   string
	Cells []Cell // the first wrong cells
	Wrong int    // every wrong cell
	// All is every wrong cell (the page marks each on its grid).
	All     []Cell
	Compile *CompileError
	Outcome *Outcome
}

// Cell is one wrong output element as the report shows it.
type Cell struct {
	Index     int
	Coord     []int
	Want, Got string // values as text
	WantBits  string // hex, as the element's bytes in little-endian order read as a number
	GotBits   string
	ULP       string // the distance in units in the last place ("" for non-floats or NaN)
	Unwritten bool   // still the marker: the kernel never wrote it
	Bound     string // the any-order bound it broke ("" when compared bit for bit)
}

// maxCells is how many wrong cells a verdict lists.
const maxCells = 16

// Judge compares an outcome with the oracle and says what it shows.
func Judge(c *Case, res *Outcome, match verify.Match) *Verdict {
	v := &Verdict{Case: c, Status: Fail, Outcome: res}
	switch {
	case res.Exhausted:
		v.Why = fmt.Sprintf("timed out: a loop ran past %d iterations (the lab's loop budget per invocation; docs/lab.md)", res.Budget)
		return v
	case res.Overrun >= 0:
		v.Why = fmt.Sprintf("wrote past its output: byte %d after the %d-byte payload (the guard words after it were overwritten)", res.Overrun, len(res.Out.Data))
		return v
	}
	d, err := verify.Cells(c.Call, res.Out, match, 0)
	if err != nil {
		v.Why = "oracle: " + err.Error()
		return v
	}
	if d == nil {
		v.Status, v.Why = Pass, ""
		return v
	}
	if d.Shape != "" {
		v.Why = d.Shape
		return v
	}
	v.Wrong = d.Total
	unwritten := 0
	es := res.Out.DType.Size()
	for i, dc := range d.Cells {
		cell := cellOf(res.Out, dc, es)
		if cell.Unwritten {
			unwritten++
		}
		if !d.Bitwise {
			cell.Bound = fmt.Sprintf("|got - f64 reference %v| <= %.3g", dc.Ref, dc.Tol)
		}
		if i < maxCells {
			v.Cells = append(v.Cells, cell)
		}
		v.All = append(v.All, cell)
	}
	n := res.Out.NumElems()
	switch {
	case unwritten == d.Total && d.Total == n:
		v.Why = fmt.Sprintf("never wrote its output: all %d cells still hold the marker %#x", n, Marker)
	case unwritten > 0:
		v.Why = fmt.Sprintf("never wrote %d of %d cells (they still hold the marker %#x); %d cells wrong in all", unwritten, n, Marker, d.Total)
	default:
		v.Why = fmt.Sprintf("wrong values in %d of %d cells", d.Total, n)
	}
	return v
}

func cellOf(out *tensor.Tensor, d verify.Cell, es int) Cell {
	c := Cell{Index: d.Index, Coord: coordOf(d.Index, out.Shape),
		Want: formatValue(out.DType, d.Want), Got: formatValue(out.DType, d.Got),
		WantBits: hexLE(d.WantBits), GotBits: hexLE(d.GotBits),
		Unwritten: bytes.Equal(d.GotBits, bytes.Repeat([]byte{Marker}, es)) && !bytes.Equal(d.WantBits, d.GotBits)}
	if out.DType.IsFloat() {
		if u, ok := ulps(out.DType, d.WantBits, d.GotBits); ok {
			c.ULP = fmt.Sprint(u)
		}
	}
	return c
}

func formatValue(dt tensor.DType, v float64) string {
	if dt.IsFloat() {
		if v == 0 && math.Signbit(v) {
			return "-0"
		}
		return fmt.Sprint(v)
	}
	return fmt.Sprint(int64(v))
}

// hexLE writes little-endian bytes as one hex number: 0x3f800000.
func hexLE(b []byte) string {
	var s strings.Builder
	s.WriteString("0x")
	for i := len(b) - 1; i >= 0; i-- {
		fmt.Fprintf(&s, "%02x", b[i])
	}
	return s.String()
}

// ulps is the distance between two floats of dt in units in the last
// place (the count of representable values between them); false for NaN.
func ulps(dt tensor.DType, a, b []byte) (uint64, bool) {
	key := func(x []byte) (int64, bool) {
		var u uint64
		for i := len(x) - 1; i >= 0; i-- {
			u = u<<8 | uint64(x[i])
		}
		bits := uint(8 * len(x))
		sign := uint64(1) << (bits - 1)
		var expMask uint64
		switch dt {
		case tensor.F16:
			expMask = 0x7c00
		case tensor.BF16:
			expMask = 0x7f80
		case tensor.F32:
			expMask = 0x7f800000
		case tensor.F64:
			expMask = 0x7ff0000000000000
		}
		mag := u &^ sign
		if mag&expMask == expMask && mag != expMask {
			return 0, false // NaN
		}
		if u&sign != 0 {
			return -int64(mag), true
		}
		return int64(mag), true
	}
	ka, oka := key(a)
	kb, okb := key(b)
	if !oka || !okb {
		return 0, false
	}
	if ka > kb {
		return uint64(ka - kb), true
	}
	return uint64(kb - ka), true
}

func coordOf(i int, shape []int) []int {
	c := make([]int, len(shape))
	for a := len(shape) - 1; a >= 0; a-- {
		if shape[a] > 0 {
			c[a] = i % shape[a]
			i /= shape[a]
		}
	}
	return c
}

// Describe is a call's operands and flags: "sum x=F32[3,5] --dim 1".
func Describe(c *kernels.Call) string { return describe(c) }

// describe is a call's operands and flags: "x=F32[3,5] --dim 1".
func describe(c *kernels.Call) string {
	o, err := ops.Of(c)
	if err != nil {
		return c.Op
	}
	parts := []string{c.Op}
	for _, in := range o.Inputs {
		parts = append(parts, in.Name+"="+c.In(in.Name).String())
	}
	return strings.Join(append(parts, ops.FormatFlags(c)...), " ")
}
