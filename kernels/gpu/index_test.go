//go:build !js

package gpu

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

func randIdx(r *rand.Rand, shape []int, bound int) *tensor.Tensor {
	t := tensor.New(tensor.U32, shape)
	u := t.U32()
	for i := range u {
		u[i] = uint32(r.Intn(max(bound, 1)))
	}
	return t
}

var moverTypes = []tensor.DType{tensor.F32, tensor.F16, tensor.BF16, tensor.U32, tensor.F64}

func TestIndexSelectGatherEmbeddingBitwise(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(10))
	// {7, 8}, {300, 4, 4}, {2, 3, 1, 2, 3, 2, 1, 3}: slices of whole
	// 16-byte units for some dims and dtypes (index_rows.wgsl).
	shapes := [][]int{{1}, {7}, {257}, {5, 3}, {3, 513}, {2, 3, 1, 2, 3, 2, 1, 3}, {600, 5}, {7, 8}, {300, 4, 4}}
	for _, dt := range moverTypes {
		for _, sh := range shapes {
			data := randTensor(r, dt, sh)
			if dt.IsFloat() {
				data = randFloat(r, dt, sh, 10)
			}
			for dim := range sh {
				for _, m := range []int{0, 1, 3, 255, 256, 257} {
					idx := randIdx(r, []int{m}, sh[dim])
					name := fmt.Sprintf("index_select/%v%v/dim=%d/m=%d", dt, sh, dim, m)
					want, err := cpu.IndexSelect(data, idx, dim)
					if err != nil {
						t.Fatalf("%s: cpu: %v", name, err)
					}
					got, err := d.IndexSelect(data, idx, dim)
					if err != nil {
						t.Errorf("%s: %v", name, err)
						continue
					}
					sameBits(t, name, got, want)
				}
				// gather: indices same rank, each axis <= data's (odd sizes)
				ish := append([]int{}, sh...)
				for a := range ish {
					if a != dim {
						ish[a] = max(1, ish[a]-r.Intn(2))
					} else {
						ish[a] = 1 + r.Intn(5)
					}
				}
				idx := randIdx(r, ish, sh[dim])
				name := fmt.Sprintf("gather/%v%v/dim=%d/idx%v", dt, sh, dim, ish)
				want, err := cpu.Gather(data, idx, dim)
				if err != nil {
					t.Fatalf("%s: cpu: %v", name, err)
				}
				got, err := d.Gather(data, idx, dim)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				sameBits(t, name, got, want)
			}
		}
		if dt.IsFloat() {
			for _, c := range [][3]int{{1, 1, 1}, {10, 3, 7}, {50, 129, 300}, {4, 1, 1025}} {
				table := randFloat(r, dt, []int{c[0], c[1]}, 5)
				ids := randIdx(r, []int{c[2]}, c[0])
				name := fmt.Sprintf("embedding/%v[%d %d]/ids=%d", dt, c[0], c[1], c[2])
				want, err := cpu.Embedding(table, ids)
				if err != nil {
					t.Fatal(err)
				}
				got, err := d.Embedding(table, ids)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				sameBits(t, name, got, want)
			}
		}
	}
}

func TestIndexAddScatterAddBitwise(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(11))
	shapes := [][]int{{1}, {9}, {4, 257}, {3, 5, 2}, {2, 1, 3, 2, 1, 2, 3, 2}, {300, 3}}
	for _, dt := range floatTypes(d) {
		for _, sh := range shapes {
			base := randFloat(r, dt, sh, 3)
			for dim := range sh {
				for _, m := range []int{0, 1, 5, 40} {
					ssh := append([]int{}, sh...)
					ssh[dim] = m
					src := randFloat(r, dt, ssh, 3)
					idx := randIdx(r, []int{m}, sh[dim]) // collisions: many adds per slot
					name := fmt.Sprintf("index_add/%v%v/dim=%d/m=%d", dt, sh, dim, m)
					want, err := cpu.IndexAdd(base, idx, src, dim)
					if err != nil {
						t.Fatalf("%s: cpu: %v", name, err)
					}
					got, err := d.IndexAdd(base, idx, src, dim)
					if err != nil {
						t.Errorf("%s: %v", name, err)
						continue
					}
					sameBits(t, name, got, want)
				}
				ssh := append([]int{}, sh...)
				for a := range ssh {
					if a == dim {
						ssh[a] = 1 + r.Intn(6)
					} else {
						ssh[a] = max(1, ssh[a]-r.Intn(2))
					}
				}
				src := randFloat(r, dt, ssh, 3)
				idx := randIdx(r, ssh, sh[dim])
				name := fmt.Sprintf("scatter_add/%v%v/dim=%d/src%v", dt, sh, dim, ssh)
				want, err := cpu.ScatterAdd(base, idx, src, dim)
				if err != nil {
					t.Fatalf("%s: cpu: %v", name, err)
				}
				got, err := d.ScatterAdd(base, idx, src, dim)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				sameBits(t, name, got, want)
			}
		}
	}
}

// TestIndexOutOfRangeCaughtOnGPU: there is no host check; the error comes
// from the shader's error word, and reads exactly as the CPU path's.
func TestIndexOutOfRangeCaughtOnGPU(t *testing.T) {
	d := device(t)
	data := randFloat(rand.New(rand.NewSource(12)), tensor.F32, []int{4, 300}, 1)
	bad := func(shape []int, bound int, at map[int]uint32) *tensor.Tensor {
		idx := randIdx(rand.New(rand.NewSource(13)), shape, bound)
		for p, v := range at {
			idx.U32()[p] = v
		}
		return idx
	}
	type tc struct {
		name string
		g, c func() error
	}
	idx1 := bad([]int{700}, 300, map[int]uint32{650: 300, 401: 7777, 699: 1 << 31})
	idxG := bad([]int{4, 260}, 300, map[int]uint32{1000: 301, 900: 400})
	idxS := bad([]int{3, 260}, 300, map[int]uint32{700: 301, 600: 999}) // fewer rows: the general path
	rows4 := &tensor.Tensor{DType: tensor.F32, Shape: []int{300, 4}, Data: data.Data}
	ids := bad([]int{30}, 4, map[int]uint32{29: 4, 17: 9})
	base := randFloat(rand.New(rand.NewSource(14)), tensor.F16, []int{4, 300}, 1)
	srcA := randFloat(rand.New(rand.NewSource(15)), tensor.F16, []int{4, 700}, 1)
	srcS := randFloat(rand.New(rand.NewSource(16)), tensor.F16, []int{4, 260}, 1)
	cases := []tc{
		{"index_select", func() error { _, e := d.IndexSelect(data, idx1, 1); return e }, func() error { _, e := cpu.IndexSelect(data, idx1, 1); return e }},
		{"gather", func() error { _, e := d.Gather(data, idxG, 1); return e }, func() error { _, e := cpu.Gather(data, idxG, 1); return e }},
		{"index_select (16-byte rows)", func() error { _, e := d.IndexSelect(rows4, idx1, 0); return e }, func() error { _, e := cpu.IndexSelect(rows4, idx1, 0); return e }},
		{"gather (general path)", func() error { _, e := d.Gather(data, idxS, 1); return e }, func() error { _, e := cpu.Gather(data, idxS, 1); return e }},
		{"embedding", func() error { _, e := d.Embedding(data, ids); return e }, func() error { _, e := cpu.Embedding(data, ids); return e }},
		{"index_add", func() error { _, e := d.IndexAdd(base, idx1, srcA, 1); return e }, func() error { _, e := cpu.IndexAdd(base, idx1, srcA, 1); return e }},
		{"scatter_add", func() error { _, e := d.ScatterAdd(base, idxG, srcS, 1); return e }, func() error { _, e := cpu.ScatterAdd(base, idxG, srcS, 1); return e }},
		// empty output, bad index: only the check pass sees it
		{"index_select empty rows", func() error {
			_, e := d.IndexSelect(tensor.New(tensor.F32, []int{0, 3}), bad([]int{2}, 3, map[int]uint32{1: 3}), 1)
			return e
		}, func() error {
			_, e := cpu.IndexSelect(tensor.New(tensor.F32, []int{0, 3}), bad([]int{2}, 3, map[int]uint32{1: 3}), 1)
			return e
		}},
	}
	for _, c := range cases {
		ge, ce := c.g(), c.c()
		if ge == nil || ce == nil || ge.Error() != ce.Error() {
			t.Errorf("%s: gpu %v\n                cpu %v", c.name, ge, ce)
		} else if _, ok := ge.(*kernels.Violation); !ok {
			t.Errorf("%s: gpu error is %T, want *kernels.Violation", c.name, ge)
		}
	}
}

func TestIndexErrorsMatchCPU(t *testing.T) {
	d := device(t)
	data := tensor.New(tensor.F32, []int{3, 4})
	type errCase struct {
		name string
		g, c func() error
	}
	cases := []errCase{
		{"indices rank", func() error { _, e := d.IndexSelect(data, tensor.New(tensor.U32, []int{1, 1}), 0); return e }, func() error { _, e := cpu.IndexSelect(data, tensor.New(tensor.U32, []int{1, 1}), 0); return e }},
		{"dim", func() error { _, e := d.Gather(data, tensor.New(tensor.U32, []int{1, 1}), 5); return e }, func() error { _, e := cpu.Gather(data, tensor.New(tensor.U32, []int{1, 1}), 5); return e }},
		{"gather larger", func() error { _, e := d.Gather(data, tensor.New(tensor.U32, []int{4, 1}), 1); return e }, func() error { _, e := cpu.Gather(data, tensor.New(tensor.U32, []int{4, 1}), 1); return e }},
		{"I32 indices", func() error { _, e := d.IndexSelect(data, tensor.New(tensor.I32, []int{1}), 0); return e }, func() error { _, e := cpu.IndexSelect(data, tensor.New(tensor.I32, []int{1}), 0); return e }},
		{"index_add src", func() error {
			_, e := d.IndexAdd(data, tensor.New(tensor.U32, []int{2}), tensor.New(tensor.F32, []int{3, 3}), 1)
			return e
		}, func() error {
			_, e := cpu.IndexAdd(data, tensor.New(tensor.U32, []int{2}), tensor.New(tensor.F32, []int{3, 3}), 1)
			return e
		}},
		{"embedding rank", func() error {
			_, e := d.Embedding(tensor.New(tensor.F32, []int{3}), tensor.New(tensor.U32, []int{1}))
			return e
		}, func() error {
			_, e := cpu.Embedding(tensor.New(tensor.F32, []int{3}), tensor.New(tensor.U32, []int{1}))
			return e
		}},
	}
	// Adds into an empty axis: every index is out of range. scatter_add
	// along an empty last axis divided by its length (0) choosing its
	// rows kernel, a panic.
	for _, e := range []struct {
		base, idx []int
		dt        tensor.DType
		dim       int
	}{
		{[]int{1, 0}, []int{1, 1}, tensor.F32, 1},
		{[]int{64, 0}, []int{64, 1}, tensor.F32, 1},
		{[]int{0}, []int{1}, tensor.F16, 0},
		{[]int{3, 0}, []int{3, 2}, tensor.F16, 1},
	} {
		base, idx, src := tensor.New(e.dt, e.base), tensor.New(tensor.U32, e.idx), tensor.New(e.dt, e.idx)
		cases = append(cases, errCase{fmt.Sprintf("scatter_add into %v along %d", e.base, e.dim),
			func() error { _, err := d.ScatterAdd(base, idx, src, e.dim); return err },
			func() error { _, err := cpu.ScatterAdd(base, idx, src, e.dim); return err }})
		if len(e.idx) == 1 || e.dim == 0 {
			continue
		}
		src2 := tensor.New(e.dt, []int{e.base[0], 1})
		idx2 := tensor.New(tensor.U32, []int{1})
		cases = append(cases, errCase{fmt.Sprintf("index_add into %v along %d", e.base, e.dim),
			func() error { _, err := d.IndexAdd(base, idx2, src2, e.dim); return err },
			func() error { _, err := cpu.IndexAdd(base, idx2, src2, e.dim); return err }})
	}
	for _, c := range cases {
		ge, ce := c.g(), c.c()
		if ge == nil || ce == nil || ge.Error() != ce.Error() {
			t.Errorf("%s: gpu %v, cpu %v", c.name, ge, ce)
		}
	}
}

// Along the last axis with many rows, gather and index_add stage each row
// in workgroup memory (index.wgsl gather_rows, index_add_rows): bitwise
// equal to the CPU, every dtype, and a bad index still reported exactly.
func TestIndexRowsStaged(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(17))
	for _, dt := range append([]tensor.DType{tensor.U32}, floatTypes(d)...) {
		data := randTensor(r, dt, []int{70, 64})
		if dt.IsFloat() {
			data = randFloat(r, dt, []int{70, 64}, 4)
		}
		idx := randIdx(r, []int{70, 62}, 64)
		want, _ := cpu.Gather(data, idx, 1)
		got, err := d.Gather(data, idx, 1)
		if err != nil {
			t.Fatalf("gather %v: %v", dt, err)
		}
		sameBits(t, fmt.Sprintf("gather rows %v", dt), got, want)
		if !dt.IsFloat() {
			continue
		}
		src := randFloat(r, dt, []int{70, 40}, 4)
		ai := randIdx(r, []int{40}, 64)
		want, _ = cpu.IndexAdd(data, ai, src, 1)
		got, err = d.IndexAdd(data, ai, src, 1)
		if err != nil {
			t.Fatalf("index_add %v: %v", dt, err)
		}
		sameBits(t, fmt.Sprintf("index_add rows %v", dt), got, want)
	}
	// scatter_add_rows: many adds per column (90 into 64, and 300 into
	// one), rows wider than the workgroup-memory tile (5000 columns), ragged
	// chunks (j up to 300).
	for _, dt := range floatTypes(d) {
		for _, c := range []struct {
			base, src []int
			bound     int
		}{{[]int{70, 64}, []int{70, 90}, 64}, {[]int{64, 5000}, []int{64, 300}, 5000}, {[]int{66, 8}, []int{66, 300}, 1}} {
			base := randFloat(r, dt, c.base, 4)
			src := randFloat(r, dt, c.src, 4)
			idx := randIdx(r, c.src, c.bound)
			want, _ := cpu.ScatterAdd(base, idx, src, 1)
			got, err := d.ScatterAdd(base, idx, src, 1)
			if err != nil {
				t.Fatalf("scatter_add %v %v: %v", dt, c.src, err)
			}
			sameBits(t, fmt.Sprintf("scatter_add rows %v %v->%v", dt, c.src, c.base), got, want)
		}
	}
	data := randFloat(r, tensor.F32, []int{80, 300}, 1)
	idx := randIdx(r, []int{80, 300}, 300)
	idx.U32()[9000], idx.U32()[7001] = 300, 5000
	_, ge := d.Gather(data, idx, 1)
	_, ce := cpu.Gather(data, idx, 1)
	if ge == nil || ce == nil || ge.Error() != ce.Error() {
		t.Errorf("bad index, staged rows: gpu %v, cpu %v", ge, ce)
	}
	_, ge = d.ScatterAdd(data, idx, data, 1)
	_, ce = cpu.ScatterAdd(data, idx, data, 1)
	if ge == nil || ce == nil || ge.Error() != ce.Error() {
		t.Errorf("bad index, scatter_add rows: gpu %v, cpu %v", ge, ce)
	}
}

// The tuning variables of the movers change only how the work is split:
// index_select with several units per thread, gather_rows with several
// batch sizes give the CPU's bits, and report a bad index as it does.
func TestMoverTuningVariants(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(18))
	defer func(u, g int) { selectUnits, gatherBatch = u, g }(selectUnits, gatherBatch)
	table := randFloat(r, tensor.F32, []int{300, 12}, 4)
	ids := randIdx(r, []int{1000}, 300)
	data := randFloat(r, tensor.F16, []int{70, 64}, 4)
	gi := randIdx(r, []int{70, 1030}, 64)
	bad := randIdx(r, []int{70, 1030}, 64)
	bad.U32()[5000], bad.U32()[4000] = 64, 99
	for _, v := range []int{1, 3, 4, 8} {
		selectUnits, gatherBatch = v, v
		want, _ := cpu.IndexSelect(table, ids, 0)
		got, err := d.IndexSelect(table, ids, 0)
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, fmt.Sprintf("index_select units %d", v), got, want)
		want, _ = cpu.Gather(data, gi, 1)
		if got, err = d.Gather(data, gi, 1); err != nil {
			t.Fatal(err)
		}
		sameBits(t, fmt.Sprintf("gather_rows batch %d", v), got, want)
		_, ge := d.Gather(data, bad, 1)
		_, ce := cpu.Gather(data, bad, 1)
		if ge == nil || ce == nil || ge.Error() != ce.Error() {
			t.Errorf("batch %d, bad index: gpu %v, cpu %v", v, ge, ce)
		}
	}
}

// scatter_add_rows with and without the next chunk's loads in flight, at
// two chunk sizes, bitwise against the CPU oracle: many chunks per row,
// columns contended past the bidding rounds (40 columns), and a bad index.
func TestScatterRowsVariants(t *testing.T) {
	d := device(t)
	if d.threadsOverTrees() {
		t.Skip("this adapter takes scatter_add_seq")
	}
	r := rand.New(rand.NewSource(19))
	defer func(sq, pf int) { addSQ, addPF = sq, pf }(addSQ, addPF)
	for _, dt := range []tensor.DType{tensor.F32, tensor.F16} {
		for _, cols := range []int{40, 600} {
			base := randFloat(r, dt, []int{70, cols}, 4)
			src := randFloat(r, dt, []int{70, 2600}, 4)
			idx := randIdx(r, []int{70, 2600}, cols)
			bad := idx.Clone()
			bad.U32()[3*2600+2000] = uint32(cols)
			want, _ := cpu.ScatterAdd(base, idx, src, 1)
			_, ce := cpu.ScatterAdd(base, bad, src, 1)
			for _, sq := range []int{4, 8} {
				for _, pf := range []int{0, 1, 2} {
					addSQ, addPF = sq, pf
					name := fmt.Sprintf("scatter_add %v cols %d sq %d pf %d", dt, cols, sq, pf)
					got, err := d.ScatterAdd(base, idx, src, 1)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					sameBits(t, name, got, want)
					if _, ge := d.ScatterAdd(base, bad, src, 1); ge == nil || ce == nil || ge.Error() != ce.Error() {
						t.Errorf("%s, bad index: gpu %v, cpu %v", name, ge, ce)
					}
				}
			}
		}
	}
}

// The kernel choices of an adapter that runs threads over trees (the
// browser's SwiftShader: seq reductions, per-element gather, scatter_add
// one thread per row), taken on this adapter and checked bitwise against
// the CPU oracle, with enough rows to reach them.
func TestThreadsOverTreesChoices(t *testing.T) {
	d := device(t)
	d.forceThreads = true
	defer func() { d.forceThreads = false }()
	r := rand.New(rand.NewSource(17))
	for _, dt := range floatTypes(d) {
		for _, sh := range [][]int{{seqSegsEmulated, 6}, {seqSegsEmulated + 3, 40}} {
			base := randFloat(r, dt, sh, 3)
			for _, m := range []int{0, 1, 7, 90} {
				ssh := []int{sh[0], m}
				src := randFloat(r, dt, ssh, 3)
				idx := randIdx(r, ssh, sh[1])
				name := fmt.Sprintf("scatter_add/%v%v/src%v", dt, sh, ssh)
				want, err := cpu.ScatterAdd(base, idx, src, 1)
				if err != nil {
					t.Fatalf("%s: cpu: %v", name, err)
				}
				got, err := d.ScatterAdd(base, idx, src, 1)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				sameBits(t, name, got, want)
			}
		}
	}
	// Rows folded one thread each (max, argmax: bitwise) and gather read
	// per element.
	x := randFloat(r, tensor.F32, []int{seqSegsEmulated, 3000}, 3)
	specialGrads(r, x)
	for name, f := range map[string][2]func(*tensor.Tensor, int) (*tensor.Tensor, error){
		"max_dim": {d.MaxDim, cpu.MaxDim}, "argmax_dim": {d.ArgMaxDim, cpu.ArgMaxDim},
	} {
		got, err := f[0](x, 1)
		want, werr := f[1](x, 1)
		if err != nil || werr != nil {
			t.Fatalf("%s: gpu %v, cpu %v", name, err, werr)
		}
		sameBits(t, name, got, want)
	}
	gi := randIdx(r, []int{seqSegsEmulated, 500}, 3000)
	got, err := d.Gather(x, gi, 1)
	want, werr := cpu.Gather(x, gi, 1)
	if err != nil || werr != nil {
		t.Fatalf("gather: gpu %v, cpu %v", err, werr)
	}
	sameBits(t, "gather", got, want)
	// The per-element movers at several elements a thread (moverEPT): a
	// thread's last elements past the end, 2-, 4- and 8-byte elements, the
	// general path (dim in the middle), and a bad index in a thread's run.
	for _, dt := range floatTypes(d) {
		for _, tc := range []struct {
			shape, ishape []int
			dim           int
		}{{[]int{7, 13}, []int{7, 11}, 1}, {[]int{9, 5}, []int{13, 5}, 0}, {[]int{3, 6, 5}, []int{3, 4, 5}, 1}} {
			data := randFloat(r, dt, tc.shape, 3)
			gi := randIdx(r, tc.ishape, tc.shape[tc.dim])
			si := randIdx(r, []int{tc.ishape[tc.dim]}, tc.shape[tc.dim])
			name := fmt.Sprintf("%v%v dim %d", dt, tc.shape, tc.dim)
			for op, f := range map[string][2]func(*tensor.Tensor, *tensor.Tensor, int) (*tensor.Tensor, error){
				"gather":       {d.Gather, func(a, b *tensor.Tensor, dim int) (*tensor.Tensor, error) { return cpu.Gather(a, b, dim) }},
				"index_select": {d.IndexSelect, func(a, b *tensor.Tensor, dim int) (*tensor.Tensor, error) { return cpu.IndexSelect(a, b, dim) }},
			} {
				idx := gi
				if op == "index_select" {
					idx = si
				}
				want, werr := f[1](data, idx, tc.dim)
				got, err := f[0](data, idx, tc.dim)
				if err != nil || werr != nil {
					t.Fatalf("%s %s: gpu %v, cpu %v", op, name, err, werr)
				}
				sameBits(t, op+" "+name, got, want)
				bad := idx.Clone()
				bad.U32()[bad.NumElems()-2] = uint32(tc.shape[tc.dim])
				_, werr = f[1](data, bad, tc.dim)
				_, err = f[0](data, bad, tc.dim)
				if werr == nil || err == nil || err.Error() != werr.Error() {
					t.Errorf("%s %s, bad index: gpu %v, cpu %v", op, name, err, werr)
				}
			}
		}
	}
	// A bad index: the first one (flat position) is reported, as on CPU.
	base := randFloat(r, tensor.F32, []int{seqSegsEmulated, 4}, 3)
	src := randFloat(r, tensor.F32, []int{seqSegsEmulated, 3}, 3)
	idx := randIdx(r, []int{seqSegsEmulated, 3}, 4)
	idx.U32()[3*700+2], idx.U32()[3*900] = 4, 9
	_, werr = cpu.ScatterAdd(base, idx, src, 1)
	_, err = d.ScatterAdd(base, idx, src, 1)
	if werr == nil || err == nil || err.Error() != werr.Error() {
		t.Errorf("bad index: gpu %v, cpu %v", err, werr)
	}
}

// index_rows.wgsl with its divisions folded (R's shift, one outer slice)
// and without gives the CPU's bits, and reports a bad index as it does:
// R a power of two or not, along dim 0 and dim 1 (several outer slices).
func TestSelectRowsConsts(t *testing.T) {
	d := device(t)
	r := rand.New(rand.NewSource(31))
	defer func(v bool) { selectConsts = v }(selectConsts)
	for _, tc := range []struct {
		shape []int
		dim   int
	}{{[]int{300, 16}, 0}, {[]int{300, 12}, 0}, {[]int{5, 40, 8}, 1}, {[]int{6, 30, 12}, 1}, {[]int{4, 9, 64}, 1}} {
		data := randFloat(r, tensor.F32, tc.shape, 4)
		ids := randIdx(r, []int{77}, tc.shape[tc.dim])
		bad := ids.Clone()
		bad.U32()[40] = uint32(tc.shape[tc.dim])
		want, _ := cpu.IndexSelect(data, ids, tc.dim)
		_, ce := cpu.IndexSelect(data, bad, tc.dim)
		for _, consts := range []bool{false, true} {
			selectConsts = consts
			name := fmt.Sprintf("index_select %v dim %d consts %v", tc.shape, tc.dim, consts)
			got, err := d.IndexSelect(data, ids, tc.dim)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sameBits(t, name, got, want)
			if _, ge := d.IndexSelect(data, bad, tc.dim); ge == nil || ce == nil || ge.Error() != ce.Error() {
				t.Errorf("%s, bad index: gpu %v, cpu %v", name, ge, ce)
			}
		}
	}
}
