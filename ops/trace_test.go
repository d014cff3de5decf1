package ops

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/internal/padref"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// refRun is a slow reference for the data movers, written from SPEC §4, so
// the trace tests do not depend on the kernels under development. Like the
// real kernels it copies raw element bytes, whatever the dtype.
func refRun(c *kernels.Call) (*tensor.Tensor, error) {
	in := c.Inputs
	switch c.Op {
	case "pad":
		x := in["x"]
		shape, err := kernels.PadOutShape(c.Op, c.Mode, x.Shape, c.Padding)
		if err != nil {
			return nil, err
		}
		v := c.Fill.Float64()
		out := tensor.New(x.DType, shape)
		oc, ic := make([]int, len(shape)), make([]int, len(shape))
		for i := range out.NumElems() {
			unflatten(i, shape, oc)
			fill := false
			for a := range oc {
				j, n := oc[a]-c.Padding[a].Before, x.Shape[a]
				if j = padref.Source(c.Mode, j, n); j < 0 {
					fill = true
				}
				ic[a] = j
			}
			if fill {
				out.Set(i, v)
			} else {
				k, _ := flattenIn(ic, x.Shape)
				out.Set(i, x.At(k))
			}
		}
		return out, nil
	case "masked_fill":
		x, m := in["x"], in["mask"]
		out := x.Clone()
		for i := range out.NumElems() {
			if m.At(i) != 0 {
				out.Set(i, c.Fill.Float64())
			}
		}
		return out, nil
	case "gather":
		data, idx, d := in["data"], in["indices"], c.Dim
		out := tensor.New(data.DType, idx.Shape)
		co := make([]int, idx.Rank())
		for i := range out.NumElems() {
			unflatten(i, idx.Shape, co)
			co[d] = int(idx.At(i))
			k, ok := flattenIn(co, data.Shape)
			if !ok {
				return nil, fmt.Errorf("gather: index out of range")
			}
			out.Set(i, data.At(k))
		}
		return out, nil
	case "index_select":
		data, idx, d := in["data"], in["indices"], c.Dim
		shape := append([]int{}, data.Shape...)
		shape[d] = idx.NumElems()
		out := tensor.New(data.DType, shape)
		co := make([]int, len(shape))
		for i := range out.NumElems() {
			unflatten(i, shape, co)
			co[d] = int(idx.At(co[d]))
			k, _ := flattenIn(co, data.Shape)
			out.Set(i, data.At(k))
		}
		return out, nil
	}
	return nil, fmt.Errorf("refRun: no %s", c.Op)
}

func mk(t *testing.T, g Gen) *tensor.Tensor {
	t.Helper()
	x, err := g.Make()
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// traceOf parses an op's flags (as the page sends them) and traces the call.
func traceOf(t *testing.T, run Runner, op string, flags []string, inputs map[string]*tensor.Tensor) (*Trace, error) {
	t.Helper()
	c, err := Parse(op, flags)
	if err != nil {
		t.Fatal(err)
	}
	c.Inputs = inputs
	o, _ := Lookup(op)
	return o.Trace(run, c)
}

func TestTracePadModes(t *testing.T) {
	x := mk(t, Gen{Shape: "2,3", DType: "F32", Kind: "arange"})
	for _, tc := range []struct {
		mode string
		// row 0 of the 4x7 output of pad 1:1,2:2 (flat source index or -1)
		row1  []int
		roles []string
	}{
		{"constant", []int{-1, -1, 0, 1, 2, -1, -1}, []string{"fill", "fill", "copy", "copy", "copy", "fill", "fill"}},
		{"reflect", []int{2, 1, 0, 1, 2, 1, 0}, []string{"mirror", "mirror", "copy", "copy", "copy", "mirror", "mirror"}},
		{"replicate", []int{0, 0, 0, 1, 2, 2, 2}, []string{"clamp", "clamp", "copy", "copy", "copy", "clamp", "clamp"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			flags := []string{"--mode", tc.mode, "--padding", "1:1,2:2"}
			tr, err := traceOf(t, refRun, "pad", flags, map[string]*tensor.Tensor{"x": x})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tr.OutShape, []int{4, 7}) {
				t.Fatalf("out shape %v", tr.OutShape)
			}
			// Output row 1 is input row 0.
			for c := range 7 {
				i := 7 + c
				got := -1
				if len(tr.Sources[i]) == 1 {
					got = tr.Sources[i][0].Index
				}
				if got != tc.row1[c] || tr.Role[i] != tc.roles[c] {
					t.Errorf("out[1,%d]: source %d role %s, want %d %s", c, got, tr.Role[i], tc.row1[c], tc.roles[c])
				}
			}
			if !reflect.DeepEqual(tr.Interior, [][2]int{{1, 3}, {2, 5}}) {
				t.Errorf("interior %v", tr.Interior)
			}
			if tr.Method != "pad ran a second time, on a U32 tensor holding each x cell's own flat index (0, 1, 2, …), so each output cell names the x cell it copied" {
				t.Errorf("method %q", tr.Method)
			}
		})
	}
}

// A kernel that takes no U32 gets an F32 index tensor.
func TestTraceFallsBackToF32(t *testing.T) {
	floatsOnly := func(c *kernels.Call) (*tensor.Tensor, error) {
		if c.In("x").DType == tensor.U32 {
			return nil, fmt.Errorf("no Cpu binding for pad/constant with dtype U32")
		}
		return refRun(c)
	}
	x := mk(t, Gen{Shape: "3", DType: "F16", Kind: "arange"})
	tr, err := traceOf(t, floatsOnly, "pad", []string{"--mode", "constant", "--padding", "1:0", "--value", "7"}, map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Role[0] != RoleFill || tr.Sources[3][0].Index != 2 || !strings.HasPrefix(tr.Method, "pad ran a second time, on a F32 tensor") {
		t.Fatalf("%+v", tr)
	}
}

func TestTracePadBackwardHeat(t *testing.T) {
	// 1-D reflect 2:2 on n=3: out = x2 x1 | x0 x1 x2 | x1 x0 → x0 ×2, x1 ×3, x2 ×2.
	g := mk(t, Gen{Shape: "7", DType: "F32", Kind: "values", Values: "1"})
	tr, err := traceOf(t, refRun, "pad_backward", []string{"--mode", "reflect", "--padding", "2:2"}, map[string]*tensor.Tensor{"grad_out": g})
	if err != nil {
		t.Fatal(err)
	}
	var counts []int
	for _, s := range tr.Sources {
		counts = append(counts, len(s))
	}
	if !reflect.DeepEqual(counts, []int{2, 3, 2}) || !reflect.DeepEqual(tr.Role, []string{"fold", "fold", "fold"}) {
		t.Fatalf("counts %v roles %v", counts, tr.Role)
	}
	// Constant: every grad_in element reads exactly its interior twin.
	tr, err = traceOf(t, refRun, "pad_backward", []string{"--mode", "constant", "--padding", "2:2"}, map[string]*tensor.Tensor{"grad_out": g})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Sources[0][0].Index != 2 || tr.Sources[2][0].Index != 4 || tr.Role[1] != RoleCopy {
		t.Fatalf("%+v", tr)
	}
	if h := tr.Heat["grad_out"]; !reflect.DeepEqual(h, []int{0, 0, 1, 1, 1, 0, 0}) {
		t.Fatalf("heat %v", h)
	}
}

func TestTraceMovers(t *testing.T) {
	data := mk(t, Gen{Shape: "3,4", DType: "F32", Kind: "arange"})
	idx := mk(t, Gen{Shape: "3,2", DType: "U32", Kind: "values", Values: "3 0 1 1 2 0"})
	tr, err := traceOf(t, refRun, "gather", []string{"--dim", "1"}, map[string]*tensor.Tensor{"data": data, "indices": idx})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{3, 0, 5, 5, 10, 8} // data[r, idx[r,c]]
	for i, w := range want {
		if tr.Sources[i][0] != (Source{"data", w}) || tr.Sources[i][1] != (Source{"indices", i}) {
			t.Errorf("out %d: %v, want data %d", i, tr.Sources[i], w)
		}
	}
	mask := mk(t, Gen{Shape: "3,4", DType: "BOOL", Kind: "values", Values: "1 0"})
	tr, err = traceOf(t, refRun, "masked_fill", []string{"--value", "-5"}, map[string]*tensor.Tensor{"x": data, "mask": mask})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Role[0] != RoleFill || tr.Role[1] != RoleCopy || tr.Sources[1][0] != (Source{"x", 1}) || tr.Sources[0][0] != (Source{"mask", 0}) {
		t.Fatalf("%v %v", tr.Role, tr.Sources)
	}
	sel := mk(t, Gen{Shape: "2", DType: "U32", Kind: "values", Values: "2 0"})
	tr, err = traceOf(t, refRun, "index_select", []string{"--dim", "0"}, map[string]*tensor.Tensor{"data": data, "indices": sel})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Sources[0][0] != (Source{"data", 8}) || tr.Sources[5][0] != (Source{"data", 1}) || tr.Sources[5][1] != (Source{"indices", 1}) {
		t.Fatalf("%v", tr.Sources)
	}
}

func TestTraceReductions(t *testing.T) {
	x := mk(t, Gen{Shape: "2,3", DType: "F32", Kind: "values", Values: "1 5 5 nan -2 -2"})
	tr, err := traceOf(t, nil, "argmax", []string{"--dim", "1"}, map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	// Row 0: tie 5,5 → first (1). Row 1: element 0 is NaN, nothing is > NaN → 0 (index 3).
	if tr.Winner[0].Index != 1 || tr.Winner[1].Index != 3 || !reflect.DeepEqual(tr.Reduced, []int{1}) || len(tr.Sources[0]) != 3 {
		t.Fatalf("%+v", tr)
	}
	tr, _ = traceOf(t, nil, "max", []string{"--dim", "1"}, map[string]*tensor.Tensor{"x": x})
	if tr.Winner[1].Index != 4 { // NaN skipped; first of the -2 tie
		t.Fatalf("max winner %v", tr.Winner)
	}
	tr, _ = traceOf(t, nil, "min", nil, map[string]*tensor.Tensor{"x": x})
	if tr.Winner[0].Index != 4 || len(tr.OutShape) != 0 || len(tr.Sources[0]) != 6 {
		t.Fatalf("min_all %+v", tr)
	}
	tr, err = traceOf(t, nil, "reduce_max_to", []string{"--shape", "3"}, map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr.Reduced, []int{0}) || tr.Winner[0].Index != 0 || tr.Winner[1].Index != 1 || tr.Winner[2].Index != 2 {
		t.Fatalf("reduce_max_to %+v", tr)
	}
	// x = [[1 5 5] [nan -2 -2]]: column minima are 1 (row 0), -2, -2 (row 1).
	tr, err = traceOf(t, nil, "reduce_min_to", []string{"--shape", "3"}, map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Winner[0].Index != 0 || tr.Winner[1].Index != 4 || tr.Winner[2].Index != 5 {
		t.Fatalf("reduce_min_to winners %+v", tr.Winner)
	}
	up := mk(t, Gen{Shape: "1,3", DType: "F32", Kind: "arange"})
	tr, err = traceOf(t, nil, "reduce_max_to_backward", []string{"--shape", "1,3"}, map[string]*tensor.Tensor{"x": x, "upstream": up})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr.Role, []string{"route", "route", "route", "blocked", "blocked", "blocked"}) {
		t.Fatalf("roles %v", tr.Role)
	}
}

func TestTraceIndexAdd(t *testing.T) {
	base := mk(t, Gen{Shape: "3,2", DType: "F32", Kind: "values", Values: "0"})
	idx := mk(t, Gen{Shape: "2", DType: "U32", Kind: "values", Values: "2 2"})
	src := mk(t, Gen{Shape: "2,2", DType: "F32", Kind: "arange"})
	tr, err := traceOf(t, nil, "index_add", []string{"--dim", "0"}, map[string]*tensor.Tensor{"base": base, "indices": idx, "src": src})
	if err != nil {
		t.Fatal(err)
	}
	// Row 2 receives src rows 0 and 1.
	want := []Source{{"base", 4}, {"src", 0}, {"indices", 0}, {"src", 2}, {"indices", 1}}
	if !reflect.DeepEqual(tr.Sources[4], want) || tr.Role[4] != RoleAdd || tr.Role[0] != RoleCopy {
		t.Fatalf("%v %v", tr.Sources[4], tr.Role)
	}
	// The picture's words: which src rows accumulate into each output row.
	if want := []string{"", "", "", "", "+src 0,1", "+src 0,1"}; !reflect.DeepEqual(tr.Label, want) {
		t.Errorf("labels %q, want %q", tr.Label, want)
	}
	wantNotes := []string{"out[0,:] = base[0,:]   (no index names it: a copy of base)", "out[1,:] = base[1,:]   (no index names it: a copy of base)", "out[2,:] = base[2,:] + src[0,:] + src[1,:]"}
	if !reflect.DeepEqual(tr.Notes, wantNotes) {
		t.Errorf("notes %q, want %q", tr.Notes, wantNotes)
	}
	// Along dim 1, the slices are columns.
	base1 := mk(t, Gen{Shape: "2,3", DType: "F32", Kind: "values", Values: "0"})
	src1 := mk(t, Gen{Shape: "2,2", DType: "F32", Kind: "arange"})
	idx1 := mk(t, Gen{Shape: "2", DType: "U32", Kind: "values", Values: "2 0"})
	tr, err = traceOf(t, nil, "index_add", []string{"--dim", "1"}, map[string]*tensor.Tensor{"base": base1, "indices": idx1, "src": src1})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"+src 1", "", "+src 0", "+src 1", "", "+src 0"}; !reflect.DeepEqual(tr.Label, want) || tr.Notes[2] != "out[:,2] = base[:,2] + src[:,0]" {
		t.Errorf("dim 1: labels %q notes %q", tr.Label, tr.Notes)
	}
	sidx := mk(t, Gen{Shape: "2,2", DType: "U32", Kind: "values", Values: "1 0 1 2"})
	tr, err = traceOf(t, nil, "scatter_add", []string{"--dim", "0"}, map[string]*tensor.Tensor{"base": base, "indices": sidx, "src": src})
	if err != nil {
		t.Fatal(err)
	}
	// src[0,0]→out[1,0]; src[0,1]→out[0,1]; src[1,0]→out[1,0]; src[1,1]→out[2,1]
	if len(tr.Sources[2]) != 5 || tr.Sources[5][1] != (Source{"src", 3}) || tr.Role[4] != RoleCopy {
		t.Fatalf("%v", tr.Sources)
	}
}

func TestGen(t *testing.T) {
	a := mk(t, Gen{Shape: "2,3", DType: "I32", Kind: "random", Seed: 7, Lo: -3, Hi: 3})
	b := mk(t, Gen{Shape: "2,3", DType: "I32", Kind: "random", Seed: 7, Lo: -3, Hi: 3})
	if !reflect.DeepEqual(a.Data, b.Data) {
		t.Fatal("same seed, different data")
	}
	for i := range a.NumElems() {
		if v := a.At(i); v < -3 || v > 3 || v != math.Trunc(v) {
			t.Fatalf("random value %v outside [-3, 3]", v)
		}
	}
	v := mk(t, Gen{Shape: "5", DType: "BF16", Kind: "values", Values: "1, nan -inf"})
	if got := fmt.Sprint([]float64{v.At(0), v.At(1), v.At(2), v.At(3)}); got != "[1 NaN -Inf 1]" {
		t.Fatalf("%v", got)
	}
	if s := mk(t, Gen{Shape: "", DType: "F64", Kind: "arange"}); s.NumElems() != 1 || s.Rank() != 0 {
		t.Fatal("rank 0")
	}
	for _, bad := range []Gen{{Shape: "2,x", DType: "F32"}, {Shape: "2", DType: "Q8"}, {Shape: "2", DType: "F32", Kind: "values", Values: "1 zz"}, {Shape: "2", DType: "F32", Kind: "random", Lo: 3, Hi: 1}, {Shape: "2000,2000", DType: "F32"}} {
		if _, err := bad.Make(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	// Values the dtype cannot hold are refused, as a --value is, not
	// wrapped (a U8 300 became 44) or saturated; a range too wide to count
	// (it panicked in Uint64N) or with a NaN or infinite end is refused.
	for _, c := range []struct {
		g    Gen
		want string
	}{
		{Gen{Shape: "300", DType: "U8", Kind: "arange"}, "arange: 299.0 cannot be converted to U8 without overflow"},
		{Gen{Shape: "4", DType: "U8", Kind: "values", Values: "1 300"}, "values: 300 cannot be converted to U8"},
		{Gen{Shape: "4", DType: "U32", Kind: "values", Values: "nan"}, "values: NaN is not an integer"},
		{Gen{Shape: "4", DType: "F16", Kind: "values", Values: "70000"}, "largest finite F16: 65504"},
		{Gen{Shape: "4", DType: "U8", Kind: "random", Lo: -100, Hi: 1000}, "random: -100.0 cannot be converted to U8"},
		{Gen{Shape: "4", DType: "U8", Kind: "uniform", Lo: 0, Hi: 1000}, "uniform: 999.0 cannot be converted to U8"},
		{Gen{Shape: "4", DType: "F32", Kind: "random", Lo: 0, Hi: 1e30}, "more than 2^53 integers"},
		{Gen{Shape: "4", DType: "F32", Kind: "random", Lo: 0, Hi: 18446744073709551615}, "more than 2^53 integers"},
		{Gen{Shape: "4", DType: "F32", Kind: "random", Lo: math.NaN(), Hi: 3}, "finite ends"},
		{Gen{Shape: "4", DType: "F32", Kind: "random", Lo: math.Inf(-1), Hi: math.Inf(1)}, "finite ends"},
		{Gen{Shape: "4", DType: "F32", Kind: "uniform", Lo: 0, Hi: math.Inf(1)}, "unbounded"},
	} {
		if _, err := c.g.Make(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error containing %q", c.g, err, c.want)
		}
	}
	for _, ok := range []Gen{{Shape: "4", DType: "U8", Kind: "uniform", Lo: 0, Hi: 256}, {Shape: "256", DType: "U8", Kind: "arange"}, {Shape: "4", DType: "BOOL", Kind: "values", Values: "true false"}} {
		if _, err := ok.Make(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}
