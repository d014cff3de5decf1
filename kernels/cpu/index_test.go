package cpu

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

func TestIndexHandWorked(t *testing.T) {
	d := mk(tensor.F32, []int{3, 2}, 1, 2, 3, 4, 5, 6)
	idx := u32s([]int{3}, 2, 0, 2)
	check := guard(t, d, idx)
	got, err := IndexSelect(d, idx, 0)
	check()
	wantVals(t, got, err, []int{3, 2}, 5, 6, 1, 2, 5, 6)
	got, err = IndexSelect(d, u32s([]int{1}, 1), 1)
	wantVals(t, got, err, []int{3, 1}, 2, 4, 6)
	got, err = IndexSelect(d, u32s([]int{0}), 1)
	wantVals(t, got, err, []int{3, 0})
	got, err = IndexSelect(mk(tensor.U32, []int{2}, 7, 8), u32s([]int{3}, 1, 1, 0), 0)
	wantVals(t, got, err, []int{3}, 8, 8, 7)

	// torch.gather(t, 1, [[0,0],[1,0]]) = [[1,1],[4,3]]
	tt := mk(tensor.F32, []int{2, 2}, 1, 2, 3, 4)
	got, err = Gather(tt, u32s([]int{2, 2}, 0, 0, 1, 0), 1)
	wantVals(t, got, err, []int{2, 2}, 1, 1, 4, 3)
	// dim 0, indices smaller than data on the other axis
	got, err = Gather(d, u32s([]int{2, 1}, 2, 1), 0)
	wantVals(t, got, err, []int{2, 1}, 5, 3)
	// indices longer than data along dim is fine
	got, err = Gather(mk(tensor.BF16, []int{2}, 1, 2), u32s([]int{4}, 1, 1, 0, 1), 0)
	wantVals(t, got, err, []int{4}, 2, 2, 1, 2)

	// index_add: rows 0 and 2 of the output collect src rows 0+2 and 1
	base := mk(tensor.F32, []int{3, 2}, 0, 0, 0, 0, 0, 0)
	src := mk(tensor.F32, []int{3, 2}, 1, 1, 2, 2, 3, 3)
	check = guard(t, base, src)
	got, err = IndexAdd(base, u32s([]int{3}, 0, 2, 0), src, 0)
	check()
	wantVals(t, got, err, []int{3, 2}, 4, 4, 0, 0, 2, 2)
	got, err = IndexAdd(mk(tensor.F64, []int{2, 3}, 1, 1, 1, 1, 1, 1), u32s([]int{2}, 2, 2), mk(tensor.F64, []int{2, 2}, 1, 2, 3, 4), 1)
	wantVals(t, got, err, []int{2, 3}, 1, 1, 4, 1, 1, 8)

	// scatter_add (PyTorch docs' shape of example): ones [2,5] into zeros [3,5]
	sidx := u32s([]int{2, 5}, 0, 1, 2, 0, 0, 2, 0, 0, 1, 2)
	ones := mk(tensor.F32, []int{2, 5}, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
	got, err = ScatterAdd(mk(tensor.F32, []int{3, 5}, make([]float64, 15)...), sidx, ones, 0)
	wantVals(t, got, err, []int{3, 5},
		1, 1, 1, 1, 1,
		0, 1, 0, 1, 0,
		1, 0, 1, 0, 1)
	// dim 1, src narrower than base
	got, err = ScatterAdd(mk(tensor.F16, []int{2, 3}, 0, 0, 0, 0, 0, 0), u32s([]int{1, 2}, 2, 2), mk(tensor.F16, []int{1, 2}, 5, 6), 1)
	wantVals(t, got, err, []int{2, 3}, 0, 0, 11, 0, 0, 0)

	// embedding
	table := mk(tensor.F32, []int{3, 2}, 1, 2, 3, 4, 5, 6)
	got, err = Embedding(table, u32s([]int{3}, 2, 2, 0))
	wantVals(t, got, err, []int{3, 2}, 5, 6, 5, 6, 1, 2)
	got, err = Embedding(table, u32s([]int{0}))
	wantVals(t, got, err, []int{0, 2})
}

// Collisions add in src flat order, in the dtype.
func TestIndexAddOrder(t *testing.T) {
	// f32: (0 + 1e8) + 1 = 1e8, then - 1e8 = 0; another order would give 1.
	src := mk(tensor.F32, []int{3}, 1e8, 1, -1e8)
	for _, f := range []func() (*tensor.Tensor, error){
		func() (*tensor.Tensor, error) {
			return IndexAdd(mk(tensor.F32, []int{1}, 0), u32s([]int{3}, 0, 0, 0), src, 0)
		},
		func() (*tensor.Tensor, error) {
			return ScatterAdd(mk(tensor.F32, []int{1}, 0), u32s([]int{3}, 0, 0, 0), src, 0)
		},
	} {
		got, err := f()
		wantVals(t, got, err, []int{1}, 0)
	}
	// f16 stalls at 2048 when adding ones one at a time.
	ones := tensor.New(tensor.F16, []int{10})
	for i := 0; i < 10; i++ {
		ones.Set(i, 1)
	}
	got, err := IndexAdd(mk(tensor.F16, []int{1}, 2048), u32s([]int{10}, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), ones, 0)
	wantVals(t, got, err, []int{1}, 2048)
	got, err = ScatterAdd(mk(tensor.F16, []int{1}, 2048), u32s([]int{10}, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), ones, 0)
	wantVals(t, got, err, []int{1}, 2048)
	// Untouched half elements keep base's exact bits (a signalling bf16 NaN
	// is not quieted by a widen/narrow round trip).
	b := tensor.New(tensor.BF16, []int{2})
	b.U16()[0], b.U16()[1] = 0x7f81, 0x3f80
	for _, f := range []func() (*tensor.Tensor, error){
		func() (*tensor.Tensor, error) { return IndexAdd(b, u32s([]int{1}, 1), mk(tensor.BF16, []int{1}, 1), 0) },
		func() (*tensor.Tensor, error) {
			return ScatterAdd(b, u32s([]int{1}, 1), mk(tensor.BF16, []int{1}, 1), 0)
		},
	} {
		got, err := f()
		if err != nil {
			t.Fatal(err)
		}
		if got.U16()[0] != 0x7f81 || got.U16()[1] != 0x4000 {
			t.Fatalf("got %04x %04x, want 7f81 4000", got.U16()[0], got.U16()[1])
		}
	}
}

func randIndices(rng *rand.Rand, shape []int, bound int) *tensor.Tensor {
	t := tensor.New(tensor.U32, shape)
	for i := range t.U32() {
		t.U32()[i] = uint32(rng.Intn(bound))
	}
	return t
}

// Fast index kernels are bitwise their reference walks over random shapes,
// dims and dtypes (scatter/index adds up to NaN payloads).
func TestIndexFastMatchesRef(t *testing.T) { atThreads(t, testIndexFastMatchesRef) }

func testIndexFastMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	dataDTypes := []tensor.DType{tensor.F32, tensor.F64, tensor.BF16, tensor.F16, tensor.U32}
	for iter := 0; iter < 1500; iter++ {
		rank := 1 + rng.Intn(4)
		dim := rng.Intn(rank)
		dt := dataDTypes[rng.Intn(5)]
		shape := randShape(rng, rank, 6)
		if shape[dim] == 0 {
			shape[dim] = 1 + rng.Intn(5)
		}
		data := randTensor(rng, dt, shape)
		name := fmt.Sprintf("%s %v dim %d", dt, shape, dim)

		// index_select
		idx := randIndices(rng, []int{rng.Intn(8)}, shape[dim])
		check := guard(t, data, idx)
		a, err1 := IndexSelect(data, idx, dim)
		b, err2 := IndexSelectRef(data, idx, dim)
		check()
		if err1 != nil || err2 != nil || !bitwise(a, b) {
			t.Fatalf("index_select %s: %v %v", name, err1, err2)
		}

		// gather: indices no larger than data off dim, any length along dim
		gshape := make([]int, rank)
		for d := range gshape {
			if d == dim {
				gshape[d] = rng.Intn(8)
			} else {
				gshape[d] = rng.Intn(shape[d] + 1)
			}
		}
		gidx := randIndices(rng, gshape, shape[dim])
		check = guard(t, data, gidx)
		a, err1 = Gather(data, gidx, dim)
		b, err2 = GatherRef(data, gidx, dim)
		check()
		if err1 != nil || err2 != nil || !bitwise(a, b) {
			t.Fatalf("gather %s indices %v: %v %v", name, gshape, err1, err2)
		}

		if dt == tensor.U32 {
			continue
		}
		// index_add: src equal to base off dim, len(idx) along dim (indices
		// drawn from a small range so slots collide)
		sshape := append([]int{}, shape...)
		sshape[dim] = idx.Shape[0]
		src := randTensor(rng, dt, sshape)
		check = guard(t, data, idx, src)
		a, err1 = IndexAdd(data, idx, src, dim)
		b, err2 = IndexAddRef(data, idx, src, dim)
		check()
		if err1 != nil || err2 != nil {
			t.Fatalf("index_add %s: %v %v", name, err1, err2)
		}
		if ok, i := sameFloats(a, b); !ok {
			t.Fatalf("index_add %s: fast != ref at %d", name, i)
		}

		// scatter_add: src (== indices shape) no larger than base off dim
		ssrc := randTensor(rng, dt, gshape)
		check = guard(t, data, gidx, ssrc)
		a, err1 = ScatterAdd(data, gidx, ssrc, dim)
		b, err2 = ScatterAddRef(data, gidx, ssrc, dim)
		check()
		if err1 != nil || err2 != nil {
			t.Fatalf("scatter_add %s: %v %v", name, err1, err2)
		}
		if ok, i := sameFloats(a, b); !ok {
			t.Fatalf("scatter_add %s: fast != ref at %d", name, i)
		}
	}
}

// Embedding equals index_select along dim 0.
func TestEmbeddingIsIndexSelect(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	for iter := 0; iter < 100; iter++ {
		table := randTensor(rng, floatDTypes[rng.Intn(4)], []int{1 + rng.Intn(6), rng.Intn(5)})
		ids := randIndices(rng, []int{rng.Intn(9)}, table.Shape[0])
		a, err1 := Embedding(table, ids)
		b, err2 := IndexSelect(table, ids, 0)
		if err1 != nil || err2 != nil || !bitwise(a, b) {
			t.Fatalf("embedding %v: %v %v", table, err1, err2)
		}
	}
}

func TestIndexErrors(t *testing.T) {
	d := mk(tensor.F32, []int{3, 2}, 1, 2, 3, 4, 5, 6)
	f32 := func(shape ...int) *tensor.Tensor { return tensor.New(tensor.F32, shape) }
	i32 := mk(tensor.I32, []int{1}, 0)
	cases := []struct {
		name string
		call func() error
		frag []string
	}{
		// index_select
		{"select out of range", func() error { _, err := IndexSelect(d, u32s([]int{3}, 0, 3, 9), 0); return err },
			[]string{"index_select: indices[1] = 3 is out of range (contract: indices < data.shape[dim] = 3)"}},
		{"select rank", func() error { _, err := IndexSelect(d, u32s([]int{1, 1}, 0), 0); return err },
			[]string{"index_select: indices must be rank-1, got U32[1 1] (contract: rank=1)"}},
		{"select index dtype", func() error { _, err := IndexSelect(d, i32, 0); return err },
			[]string{"index_select: indices has dtype I32 (contract: indices dtypes [U32])"}},
		{"select data dtype", func() error { _, err := IndexSelect(mk(tensor.I64, []int{1}, 0), u32s([]int{1}, 0), 0); return err },
			[]string{"index_select: data has dtype I64 (contract: data dtypes [F32, F64, BF16, F16, U32])"}},
		{"select dim", func() error { _, err := IndexSelect(d, u32s([]int{1}, 0), 2); return err },
			[]string{"index_select: dim 2 is out of range for data of rank 2 (contract: dim < data.rank)"}},
		{"select rank 0 data", func() error { _, err := IndexSelect(f32(), u32s([]int{1}, 0), 0); return err },
			[]string{"dim 0 is out of range for data of rank 0"}},
		{"select empty axis", func() error { _, err := IndexSelect(f32(0, 2), u32s([]int{1}, 0), 0); return err },
			[]string{"indices[0] = 0 is out of range (contract: indices < data.shape[dim] = 0)"}},
		// gather
		{"gather out of range", func() error { _, err := Gather(d, u32s([]int{1, 2}, 1, 2), 1); return err },
			[]string{"gather: indices[0,1] = 2 is out of range (contract: indices < data.shape[dim] = 2)"}},
		// an empty gathered axis under several index rows (it panicked in
		// the row loop's prefetch, reported as an internal error)
		{"gather empty axis", func() error { _, err := Gather(f32(3, 0), u32s([]int{3, 2}, 0, 0, 0, 0, 0, 0), 1); return err },
			[]string{"gather: indices[0,0] = 0 is out of range (contract: indices < data.shape[dim] = 0)"}},
		{"gather rank", func() error { _, err := Gather(d, u32s([]int{2}, 0, 0), 0); return err },
			[]string{"gather: indices has rank 1 but data has rank 2 (contract: indices same_rank=data)"}},
		{"gather too large", func() error { _, err := Gather(d, u32s([]int{1, 3}, 0, 0, 0), 0); return err },
			[]string{"gather: indices.shape[1] = 3 exceeds data.shape[1] = 2 (contract: indices.shape[d] <= data.shape[d] for d != dim)"}},
		{"gather dim", func() error { _, err := Gather(d, u32s([]int{1, 1}, 0), -1); return err },
			[]string{"gather: dim -1 is out of range for data of rank 2"}},
		{"gather index dtype", func() error { _, err := Gather(mk(tensor.F32, []int{1}, 0), i32, 0); return err },
			[]string{"gather: indices has dtype I32"}},
		{"gather short indices", func() error {
			_, err := Gather(d, &tensor.Tensor{DType: tensor.U32, Shape: []int{1, 2}, Data: make([]byte, 4)}, 0)
			return err
		}, []string{"gather: indices U32[1 2] holds 4 bytes, want 8"}},
		// index_add
		{"index_add out of range", func() error { _, err := IndexAdd(f32(3, 2), u32s([]int{2}, 0, 5), f32(2, 2), 0); return err },
			[]string{"index_add: indices[1] = 5 is out of range (contract: indices < base.shape[dim] = 3)"}},
		{"index_add len", func() error { _, err := IndexAdd(f32(3, 2), u32s([]int{1}, 0), f32(2, 2), 0); return err },
			[]string{"index_add: src.shape[0] = 2 but indices has 1 entries (contract: src.dim[dim] == indices.len())"}},
		{"index_add other dim", func() error { _, err := IndexAdd(f32(3, 2), u32s([]int{1}, 0), f32(1, 3), 0); return err },
			[]string{"index_add: src.shape[1] = 3 differs from base.shape[1] = 2 (contract: base and src equal in every non-dim dim)"}},
		{"index_add rank", func() error { _, err := IndexAdd(f32(3, 2), u32s([]int{1}, 0), f32(1), 0); return err },
			[]string{"index_add: src has rank 1 but base has rank 2 (contract: src same_rank=base)"}},
		{"index_add indices rank", func() error { _, err := IndexAdd(f32(3), u32s([]int{1, 1}, 0), f32(1), 0); return err },
			[]string{"index_add: indices must be rank-1"}},
		{"index_add dtype mismatch", func() error {
			_, err := IndexAdd(f32(3), u32s([]int{1}, 0), mk(tensor.F64, []int{1}, 1), 0)
			return err
		}, []string{"index_add: src has dtype F64 but base has dtype F32 (contract: src.dtype == base.dtype)"}},
		{"index_add u32 data", func() error {
			_, err := IndexAdd(mk(tensor.U32, []int{1}, 0), u32s([]int{1}, 0), mk(tensor.U32, []int{1}, 1), 0)
			return err
		}, []string{"index_add: base has dtype U32 (contract: base dtypes [F32, F64, BF16, F16])"}},
		{"index_add dim", func() error { _, err := IndexAdd(f32(3), u32s([]int{1}, 0), f32(1), 1); return err },
			[]string{"index_add: dim 1 is out of range for base of rank 1"}},
		// scatter_add
		{"scatter_add out of range", func() error { _, err := ScatterAdd(f32(2, 2), u32s([]int{1, 2}, 0, 2), f32(1, 2), 0); return err },
			[]string{"scatter_add: indices[0,1] = 2 is out of range (contract: indices < base.shape[dim] = 2)"}},
		{"scatter_add shape", func() error { _, err := ScatterAdd(f32(2, 2), u32s([]int{2, 1}, 0, 0), f32(1, 2), 0); return err },
			[]string{"scatter_add: indices shape [2 1] differs from src shape [1 2] (contract: indices same_as=src)"}},
		{"scatter_add too large", func() error { _, err := ScatterAdd(f32(2, 2), u32s([]int{1, 3}, 0, 0, 0), f32(1, 3), 0); return err },
			[]string{"scatter_add: src.shape[1] = 3 exceeds base.shape[1] = 2 (contract: src.shape[d] <= base.shape[d] for d != dim)"}},
		{"scatter_add rank", func() error { _, err := ScatterAdd(f32(2, 2), u32s([]int{2}, 0, 0), f32(2), 0); return err },
			[]string{"scatter_add: src has rank 1 but base has rank 2"}},
		{"scatter_add src dtype", func() error { _, err := ScatterAdd(f32(2), u32s([]int{1}, 0), i32, 0); return err },
			[]string{"scatter_add: src has dtype I32"}},
		// embedding
		{"embedding out of range", func() error { _, err := Embedding(d, u32s([]int{2}, 2, 3)); return err },
			[]string{"embedding: ids[1] = 3 is out of range (contract: ids < V = 3)"}},
		{"embedding table rank", func() error { _, err := Embedding(f32(3), u32s([]int{1}, 0)); return err },
			[]string{"embedding: table must be rank-2, got F32[3] (contract: rank=2)"}},
		{"embedding ids rank", func() error { _, err := Embedding(d, u32s([]int{1, 1}, 0)); return err },
			[]string{"embedding: ids must be rank-1"}},
		{"embedding dtype", func() error { _, err := Embedding(mk(tensor.U32, []int{1, 1}, 0), u32s([]int{1}, 0)); return err },
			[]string{"embedding: table has dtype U32 (contract: table dtypes [F32, F64, BF16, F16])"}},
		{"embedding nil ids", func() error { _, err := Embedding(d, nil); return err },
			[]string{"embedding: ids is missing"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantErr(t, c.call(), c.frag...) })
	}
}

// The fast gather and scatter_add check indices while they use them, on
// several workers; an out-of-range index still yields the reference's
// error, naming the first bad index in flat order, and no output.
func TestFusedIndexChecksReportFirst(t *testing.T) {
	atThreads(t, func(t *testing.T) {
		rng := rand.New(rand.NewSource(31))
		for _, dim := range []int{0, 1} {
			data := randTensor(rng, tensor.F32, []int{40, 30})
			idx := randIndices(rng, []int{40, 30}, data.Shape[dim])
			idx.U32()[37*30+2] = 999 // late
			idx.U32()[5*30+29] = 40  // first in flat order
			want := fmt.Sprintf("indices[5,29] = 40 is out of range (contract: indices < %s.shape[dim] = %d)", "data", data.Shape[dim])
			out, err := Gather(data, idx, dim)
			if out != nil {
				t.Fatalf("gather dim %d: output despite a bad index", dim)
			}
			wantErr(t, err, "gather: "+want)
			out, err = ScatterAdd(data, idx, randTensor(rng, tensor.F32, []int{40, 30}), dim)
			if out != nil {
				t.Fatalf("scatter_add dim %d: output despite a bad index", dim)
			}
			wantErr(t, err, "scatter_add: "+strings.Replace(want, "data.shape", "base.shape", 1))
		}
	})
}
