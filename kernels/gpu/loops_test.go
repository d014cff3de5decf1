//go:build !js

package gpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

// lavapipe stops a shader invocation silently after 65,535 loop
// iterations in all (every loop of the invocation counts, a loop of
// constant trip count unrolled by the compiler does not): the tests here
// give kernels the inputs whose loops run longest — long contribution
// chains onto one slot, long rows, subnormal halves — and compare with the
// CPU oracle, which a truncated loop cannot match.

// The limit itself, as the kernels' budgets assume it: one loop of
// 70,000 iterations stops at 65,535, and two loops share the count.
func TestLavapipeLoopLimit(t *testing.T) {
	d := device(t)
	if !d.softwareAdapter() {
		t.Skip("the limit is lavapipe's")
	}
	body := `
@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> outp: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= 1u) { return; }
    var c = 0u;
    for (var i = 0u; i < inp[0]; i = i + 1u) { c = c + 1u; }
    outp[GUARD] = c;
    for (var i = 0u; i < inp[1]; i = i + 1u) { c = c + 1u; }
    outp[GUARD + 1u] = c;
}`
	in := make([]byte, 8)
	binary.LittleEndian.PutUint32(in[0:], 40000)
	binary.LittleEndian.PutUint32(in[4:], 40000)
	out := runExact(t, d, "loop_limit", body, in, 8)
	a, b := binary.LittleEndian.Uint32(out), binary.LittleEndian.Uint32(out[4:])
	if a == 40000 && b == 80000 {
		t.Skip("this lavapipe has no loop limit")
	}
	if a != 40000 || b != 65535-1 {
		t.Errorf("two loops of 40,000: %d, %d; the budgets assume 40000, 65534", a, b)
	}
}

// Every f16 widens exactly (the subnormal branch normalises with one
// shift: it used to loop once per leading zero).
func TestHalfWideningExhaustive(t *testing.T) {
	d := device(t)
	body := `
@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> outp: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = thread_id(wid, nwg, lid);
    if (t >= 65536u) { return; }
    outp[GUARD + t] = f16_bits_to_f32_bits(t);
}`
	out := runExact(t, d, "f16_widen", body, make([]byte, 4), 4*65536)
	for h := range 65536 {
		got := binary.LittleEndian.Uint32(out[4*h:])
		want := math.Float32bits(tensor.F16ToF32(uint16(h)))
		if got != want && !(math.IsNaN(float64(math.Float32frombits(got))) && got == uint32(h&0x8000)<<16|0x7f800000|uint32(h&0x3ff)<<13) {
			t.Fatalf("f16 %#04x: got %#08x, want %#08x", h, got, want)
		}
	}
}

// A pad backward slot that gathers 20,001 subnormal halves (replicate 20000
// onto a 2-element input): every widening of a subnormal half used to spend
// up to 10 loop iterations, so a pass of 16,384 adds ran out of budget.
func TestLoopBudgetPadGatherHalves(t *testing.T) {
	d := device(t)
	if !d.Info().ShaderF64 {
		t.Skip("the bitwise comparison needs shader-f64")
	}
	r := rand.New(rand.NewSource(90))
	for _, dt := range []tensor.DType{tensor.F16, tensor.BF16} {
		g := tensor.New(dt, []int{40002})
		u := g.U16()
		for i := range u {
			u[i] = uint16(1 + r.Intn(0x3ff)) // subnormal (f16) / tiny (bf16)
		}
		pads := pp(20000, 20000)
		want, err := cpu.PadBackward(g, kernels.Replicate, pads)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.PadBackwardGather(g, kernels.Replicate, pads)
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, dt.String()+" replicate 20000 of subnormals", got, want)
	}
}

// smallFloats fills a float tensor with small values (subnormal halves
// among them), so long sums stay finite and every add rounds.
func smallFloats(r *rand.Rand, dt tensor.DType, shape []int) *tensor.Tensor {
	x := tensor.New(dt, shape)
	for i := range x.NumElems() {
		v := (r.Float64()*2 - 1) * 0x1p-10
		if r.Intn(4) == 0 {
			v *= 0x1p-16 // subnormal in f16
		}
		x.Set(i, v)
	}
	return x
}

// 70,000 contributions onto one output element, on every add path: the
// general kernels (a host bucket table; the chain continues over passes),
// scatter_add_rows (a row's contributions in passes of whole chunks, one
// column contended in every chunk), index_add_rows (a 16 KiB src row onto
// one column). The old kernels stopped at 65,535 adds.
func TestLoopBudgetAdds(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(91))
	const heavy = 70000
	onto := func(shape []int, bound int, slot uint32, share int) *tensor.Tensor {
		idx := randIdx(r, shape, bound)
		for i, u := 0, idx.U32(); i < len(u); i++ {
			if r.Intn(100) < share {
				u[i] = slot
			}
		}
		return idx
	}
	for _, dt := range floatTypes(d) {
		check := func(name string, got *tensor.Tensor, err error, want *tensor.Tensor, werr error) {
			t.Helper()
			if werr != nil {
				t.Fatalf("%s: cpu: %v", name, werr)
			}
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			sameBits(t, name, got, want)
		}
		name := func(s string) string { return dt.String() + " " + s }
		// index_add, general: base [3, 5] along dim 0, 70,000 indices, all
		// but a few onto row 1.
		base := smallFloats(r, dt, []int{3, 5})
		idx := onto([]int{heavy}, 3, 1, 98)
		src := smallFloats(r, dt, []int{heavy, 5})
		got, err := d.IndexAdd(base, idx, src, 0)
		want, werr := cpu.IndexAdd(base, idx, src, 0)
		check(name("index_add [3 5] dim 0, 70000 indices onto row 1"), got, err, want, werr)
		// The same with slices of whole 16-byte units (F32: index_add4.wgsl).
		base = smallFloats(r, dt, []int{3, 8})
		src = smallFloats(r, dt, []int{heavy, 8})
		got, err = d.IndexAdd(base, idx, src, 0)
		want, werr = cpu.IndexAdd(base, idx, src, 0)
		check(name("index_add [3 8] dim 0, 70000 indices onto row 1"), got, err, want, werr)
		// scatter_add, general: 70,000 onto element 2 of 5.
		base = smallFloats(r, dt, []int{5})
		idx = onto([]int{heavy}, 5, 2, 100)
		src = smallFloats(r, dt, []int{heavy})
		got, err = d.ScatterAdd(base, idx, src, 0)
		want, werr = cpu.ScatterAdd(base, idx, src, 0)
		check(name("scatter_add [5], 70000 onto element 2"), got, err, want, werr)
		// scatter_add_rows: 64 rows of 2 columns, 70,000 contributions per
		// row, 90 % onto column 1.
		base = smallFloats(r, dt, []int{64, 2})
		idx = onto([]int{64, heavy}, 2, 1, 90)
		src = smallFloats(r, dt, []int{64, heavy})
		got, err = d.ScatterAdd(base, idx, src, 1)
		want, werr = cpu.ScatterAdd(base, idx, src, 1)
		check(name("scatter_add rows [64 2] <- [64 70000]"), got, err, want, werr)
		// index_add_rows: a whole 16 KiB src row onto one column.
		m := 16 << 10 / dt.Size()
		base = smallFloats(r, dt, []int{64, 4})
		idx = onto([]int{m}, 4, 3, 100)
		src = smallFloats(r, dt, []int{64, m})
		got, err = d.IndexAdd(base, idx, src, 1)
		want, werr = cpu.IndexAdd(base, idx, src, 1)
		check(name("index_add rows [64 4], a 16 KiB row onto column 3"), got, err, want, werr)
	}
}

// The pass plans stay within the loop budget and cover every column and
// contribution once, in order.
func TestScatterRowsPasses(t *testing.T) {
	for _, c := range [][3]int{{2, 70000, 2048}, {4096, 4096, 4096}, {4096, 4096, 2048}, {100000, 300, 256}, {5, 1, 4096}, {9000, 5000, 1024}} {
		C, J, sct := c[0], c[1], c[2]
		ps := scatterRowsPasses(C, J, sct)
		covered := map[[2]uint32]bool{}
		lastJ := map[uint32]uint32{}
		for _, p := range ps {
			tiles, chunks := int(p[1]-p[0])/sct, int(p[3]-p[2])/(addSQ*wgSize)
			if cost := tiles * (scatterTileCost() + chunks*scatterChunkCost()); cost > loopBudget && (tiles > 1 || chunks > 1) {
				t.Errorf("C=%d J=%d: pass %v costs %d > %d", C, J, p, cost, loopBudget)
			}
			for c0 := p[0]; c0 < p[1]; c0 += uint32(sct) {
				if lastJ[c0] != p[2] {
					t.Errorf("C=%d J=%d: tile %d resumes at %d, left at %d", C, J, c0, p[2], lastJ[c0])
				}
				lastJ[c0] = p[3]
				covered[[2]uint32{c0, p[2]}] = true
			}
		}
		for c0 := 0; c0 < C; c0 += sct {
			if int(lastJ[uint32(c0)]) < J {
				t.Errorf("C=%d J=%d: tile %d ends at %d", C, J, c0, lastJ[uint32(c0)])
			}
		}
	}
}

// Rows of 200,000 elements, contiguous and strided, every reduction:
// extrema and arg-indices bitwise, sums within the contract's bound, and
// reduce_max_to_backward bitwise (the tree levels bound every invocation's
// loops; subnormal halves used to spend loop iterations in every widening).
func TestLoopBudgetReductions(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(92))
	const K = 200000
	for _, dt := range floatTypes(d) {
		for _, sh := range [][]int{{2, K}, {K, 2}, {K}} {
			x := specialFloat(r, dt, sh, false)
			if dt == tensor.F16 {
				for i := 0; i < x.NumElems(); i += 3 {
					x.U16()[i] = uint16(r.Intn(0x400)) | uint16(r.Intn(2))<<15 // subnormal halves
				}
			}
			dim := 0
			if sh[0] == 2 {
				dim = 1
			}
			for _, f := range []dimFns{{"max_dim", (*Device).MaxDim, cpu.MaxDim}, {"min_dim", (*Device).MinDim, cpu.MinDim},
				{"argmax_dim", (*Device).ArgMaxDim, cpu.ArgMaxDim}, {"argmin_dim", (*Device).ArgMinDim, cpu.ArgMinDim}} {
				want, werr := f.cpu(x, dim)
				got, err := f.gpu(d, x, dim)
				if werr != nil || err != nil {
					t.Fatalf("%s %v%v: gpu %v, cpu %v", f.name, dt, sh, err, werr)
				}
				sameBits(t, fmt.Sprintf("%s %v%v dim %d", f.name, dt, sh, dim), got, want)
			}
			for _, f := range []redFns{{"max_all", (*Device).MaxAll, cpu.MaxAll}, {"min_all", (*Device).MinAll, cpu.MinAll}} {
				want, _ := f.cpu(x)
				got, err := f.gpu(d, x)
				if err != nil {
					t.Fatal(err)
				}
				sameBits(t, fmt.Sprintf("%s %v%v", f.name, dt, sh), got, want)
			}
			// sums: finite values
			y := randFloat(r, dt, sh, 1)
			cell := func(c []int) int {
				if len(c) == 2 {
					return c[1-dim]
				}
				return 0
			}
			ncell := x.NumElems() / K
			sum, mag := exactSums(y, sh, cell, ncell)
			got, err := d.SumDim(y, dim)
			if err != nil {
				t.Fatal(err)
			}
			checkSums(t, fmt.Sprintf("sum_dim %v%v", dt, sh), got, sum, mag, K, false)
			got, err = d.MeanDim(y, dim)
			if err != nil {
				t.Fatal(err)
			}
			checkSums(t, fmt.Sprintf("mean_dim %v%v", dt, sh), got, sum, mag, K, true)
			// reduce_max_to_backward on values with few ties (the oracle
			// counts ties in the dtype: past 256 bf16 / 2048 f16 ties in
			// a cell it differs, by contract)
			target := []int{1}
			if len(sh) == 2 {
				target = []int{1, 1}
				target[1-dim] = sh[1-dim]
			}
			up := randFloat(r, dt, target, 1)
			want, werr := cpu.ReduceMaxToBackward(y, up, target)
			got, err = d.ReduceMaxToBackward(y, up, target)
			if werr != nil || err != nil {
				t.Fatalf("reduce_max_to_backward %v%v: gpu %v, cpu %v", dt, sh, err, werr)
			}
			sameBitsOrNaN(t, fmt.Sprintf("reduce_max_to_backward %v%v->%v", dt, sh, target), got, want)
		}
	}
}
