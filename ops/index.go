package ops

import (
	"fmt"
	"math/rand"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

// The gather/index family (SPEC §4): index_select, gather, index_add,
// scatter_add and embedding. The kernels take U32 index operands; I32 and
// I64 ones are checked and converted once, before a kernel runs (Resolve).

var indexFamily = []*Op{indexSelectOp, gatherOp, indexAddOp, scatterAddOp, embeddingOp}

var indexSelectOp = &Op{
	Name:    "index_select",
	Summary: "out[..k..] = data[..indices[k]..] (indices rank-1 U32; I32/I64 converted)",
	Explain: "Picks whole slices of data along --dim: output slice k is data's slice indices[k]. " +
		"The output has data's shape with axis --dim resized to len(indices).",
	Inputs: []Operand{{Name: "data", Role: "the tensor to pick from"}, {Name: "indices", Role: "rank-1 U32 (I32/I64 converted), each < data.shape[dim]", Fixed: tensor.U32, Bound: dataBound}},
	Flags:  []Use{{Flag: DimFlag, Required: true}},
	Out: func(c *kernels.Call) ([]int, tensor.DType, error) {
		d := c.In("data")
		s, err := kernels.IndexSelectShape(d, c.In("indices"), c.Dim)
		return s, d.DType, err
	},
	Oracle: func(c *kernels.Call) (*tensor.Tensor, error) {
		return cpu.IndexSelectRef(c.In("data"), c.In("indices"), c.Dim)
	},
	Tolerance: always(Bitwise),
	Random: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, maxRank int) *kernels.Call {
		s := randShape(rng, 1, min(maxRank, 3), 1, 6)
		dim := rng.Intn(len(s))
		return IndexSelect(RandTensor(rng, dt, s), RandIndices(rng, []int{rng.Intn(8)}, s[dim]), dim)
	},
	Sized: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, n int) *kernels.Call {
		r, c := grid(n, 1) // as many rows picked as data has
		return IndexSelect(TiledTensor(rng, dt, []int{r, c}), TiledIndices(rng, []int{r}, r), 0)
	},
	Example: func(_ kernels.Form, dt tensor.DType) (*kernels.Call, []Gen) {
		return IndexSelect(nil, nil, 0), []Gen{arangeGen("4,5", dt), indexGen("3", "2 0 2", 4)}
	},
	Trace: func(run Runner, c *kernels.Call) (*Trace, error) {
		t, err := traceMover(run, c, "data", false)
		if err != nil {
			return nil, err
		}
		coord := make([]int, len(t.OutShape))
		for i := range t.Sources {
			unflatten(i, t.OutShape, coord)
			if c.Dim >= 0 && c.Dim < len(coord) {
				t.add(i, Source{"indices", coord[c.Dim]})
			}
		}
		t.sourceLabels("data", c.In("data").Shape)
		t.Explain = "index_select: whole slices along --dim are picked by the indices (labels show the source)."
		return t, nil
	},
	Symbols: indexSymbols,
	Bench: []Bench{{Name: "index_select f32[100000,256] 50000 rows", Call: func(r *rand.Rand) *kernels.Call {
		return IndexSelect(TiledTensor(r, tensor.F32, []int{100000, 256}), RandIndices(r, []int{50000}, 100000), 0)
	}}},
}

// dataBound is the limit of index_select's and gather's indices.
func dataBound(c *kernels.Call) (int, string) { return c.In("data").Shape[c.Dim], "data.shape[dim]" }

// IndexSelect builds an index_select call.
func IndexSelect(data, indices *tensor.Tensor, dim int) *kernels.Call {
	return &kernels.Call{Op: "index_select", Inputs: map[string]*tensor.Tensor{"data": data, "indices": indices}, Params: kernels.Params{Dim: dim}}
}

var gatherOp = &Op{
	Name:    "gather",
	Summary: "PyTorch gather: out[p] = data[p with p[dim] ← indices[p]]",
	Explain: "Each output cell reads data at its own position with the --dim coordinate replaced by its index. " +
		"The output has the indices' shape; on every other axis indices may be no larger than data.",
	Inputs: []Operand{{Name: "data", Role: "the tensor to read"}, {Name: "indices", Role: "U32 (I32/I64 converted), data's rank, each < data.shape[dim]", Fixed: tensor.U32, Bound: dataBound}},
	Flags:  []Use{{Flag: DimFlag, Required: true}},
	Out: func(c *kernels.Call) ([]int, tensor.DType, error) {
		d := c.In("data")
		s, err := kernels.GatherShape(d, c.In("indices"), c.Dim)
		return s, d.DType, err
	},
	Oracle: func(c *kernels.Call) (*tensor.Tensor, error) {
		return cpu.GatherRef(c.In("data"), c.In("indices"), c.Dim)
	},
	Tolerance: always(Bitwise),
	Random: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, maxRank int) *kernels.Call {
		s := randShape(rng, 1, min(maxRank, 3), 1, 6)
		dim := rng.Intn(len(s))
		return Gather(RandTensor(rng, dt, s), RandIndices(rng, smallerShape(rng, s, dim), s[dim]), dim)
	},
	Sized: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, n int) *kernels.Call {
		r, c := grid(n, 1)
		return Gather(TiledTensor(rng, dt, []int{r, c}), TiledIndices(rng, []int{r, c}, c), 1)
	},
	Example: func(_ kernels.Form, dt tensor.DType) (*kernels.Call, []Gen) {
		return Gather(nil, nil, 1), []Gen{arangeGen("4,5", dt), {Shape: "4,3", DType: "U32", Kind: "random", Seed: 2, Lo: 0, Hi: 4}}
	},
	Trace: func(run Runner, c *kernels.Call) (*Trace, error) {
		t, err := traceMover(run, c, "data", false)
		if err != nil {
			return nil, err
		}
		for i := range t.Sources { // indices has the output's shape
			t.add(i, Source{"indices", i})
		}
		t.sourceLabels("data", c.In("data").Shape)
		t.Explain = "gather: each output cell reads data at its own position with the --dim coordinate replaced by its index (labels show the source)."
		return t, nil
	},
	Symbols: indexSymbols,
	Bench:   []Bench{{Name: "gather dim 1 f32[4096,4096]", N: 16 << 20}},
}

// Gather builds a gather call.
func Gather(data, indices *tensor.Tensor, dim int) *kernels.Call {
	return &kernels.Call{Op: "gather", Inputs: map[string]*tensor.Tensor{"data": data, "indices": indices}, Params: kernels.Params{Dim: dim}}
}

// addOp builds index_add / scatter_add: a copy of base with src added at
// the places the indices name, in src flat order.
func addOp(name, summary, explain string, shape func(base, indices, src *tensor.Tensor, dim int) error,
	oracle func(base, indices, src *tensor.Tensor, dim int) (*tensor.Tensor, error),
	random func(rng *rand.Rand, s []int, dim int) (idx []int, src []int),
	example func(dt tensor.DType) (*kernels.Call, []Gen), slices bool) *Op {
	return &Op{
		Name:    name,
		Summary: summary,
		Explain: explain,
		Inputs: []Operand{{Name: "base", Role: "the tensor added into (float)"}, {Name: "indices", Role: "U32 (I32/I64 converted), each < base.shape[dim]", Fixed: tensor.U32,
			Bound: func(c *kernels.Call) (int, string) { return c.In("base").Shape[c.Dim], "base.shape[dim]" }},
			{Name: "src", Role: "what is added, base's dtype"}},
		Flags: []Use{{Flag: DimFlag, Required: true}},
		Out: func(c *kernels.Call) ([]int, tensor.DType, error) {
			b := c.In("base")
			return b.Shape, b.DType, shape(b, c.In("indices"), c.In("src"), c.Dim)
		},
		Oracle: func(c *kernels.Call) (*tensor.Tensor, error) {
			return oracle(c.In("base"), c.In("indices"), c.In("src"), c.Dim)
		},
		Tolerance: always(AnyOrder),
		Random: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, maxRank int) *kernels.Call {
			s := randShape(rng, 1, min(maxRank, 3), 1, 6)
			dim := rng.Intn(len(s))
			is, ss := random(rng, s, dim)
			return AddCall(name, RandTensor(rng, dt, s), RandIndices(rng, is, s[dim]), RandTensor(rng, dt, ss), dim)
		},
		Sized: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, n int) *kernels.Call {
			// index_add: every row of src added along dim 0; scatter_add:
			// every element of src scattered along dim 1.
			r, c := grid(n, 1)
			s, dim, idx, bound := []int{r, c}, 1, []int{r, c}, c
			if slices {
				dim, idx, bound = 0, []int{r}, r
			}
			return AddCall(name, TiledTensor(rng, dt, s), TiledIndices(rng, idx, bound), TiledTensor(rng, dt, s), dim)
		},
		Example: func(_ kernels.Form, dt tensor.DType) (*kernels.Call, []Gen) { return example(dt) },
		Trace:   func(_ Runner, c *kernels.Call) (*Trace, error) { return traceAdd(c, slices) },
		Symbols: indexSymbols,
	}
}

var (
	indexAddOp = withBench(addOp("index_add", "copy of base; out[..idx[i]..] += src[..i..]",
		"A copy of base, then src slice i (along --dim) is added into base's slice indices[i], in src flat order, in the dtype.",
		kernels.CheckIndexAdd, cpu.IndexAddRef,
		func(rng *rand.Rand, s []int, dim int) ([]int, []int) {
			k := rng.Intn(8)
			ss := append([]int{}, s...)
			ss[dim] = k
			return []int{k}, ss
		},
		func(dt tensor.DType) (*kernels.Call, []Gen) {
			return AddCall("index_add", nil, nil, nil, 0), []Gen{valuesGen("4,5", dt, "0"), indexGen("3", "0 2 0", 4), arangeGen("3,5", dt)}
		},
		true),
		Bench{Name: "index_add dim 0 f32[100000,256] 50000 rows", Call: func(r *rand.Rand) *kernels.Call {
			return AddCall("index_add", TiledTensor(r, tensor.F32, []int{100000, 256}), RandIndices(r, []int{50000}, 100000), TiledTensor(r, tensor.F32, []int{50000, 256}), 0)
		}},
		Bench{Name: "index_add dim 1 f32[4096,4096]", Call: func(r *rand.Rand) *kernels.Call {
			return AddCall("index_add", TiledTensor(r, tensor.F32, []int{4096, 4096}), RandIndices(r, []int{4096}, 4096), TiledTensor(r, tensor.F32, []int{4096, 4096}), 1)
		}})
	scatterAddOp = withBench(addOp("scatter_add", "copy of base; out[p, dim←idx[p]] += src[p]",
		"A copy of base, then each src element is added where its index sends it along --dim (indices has src's shape), in src flat order.",
		kernels.CheckScatterAdd, cpu.ScatterAddRef,
		func(rng *rand.Rand, s []int, dim int) ([]int, []int) {
			ss := smallerShape(rng, s, dim)
			return ss, ss
		},
		func(dt tensor.DType) (*kernels.Call, []Gen) {
			return AddCall("scatter_add", nil, nil, nil, 0), []Gen{valuesGen("4,5", dt, "0"),
				{Shape: "2,5", DType: "U32", Kind: "random", Seed: 2, Lo: 0, Hi: 3}, arangeGen("2,5", dt)}
		},
		false),
		Bench{Name: "scatter_add dim 1 f32[4096,4096]", N: 16 << 20})
)

// AddCall builds an index_add or scatter_add call.
func AddCall(op string, base, indices, src *tensor.Tensor, dim int) *kernels.Call {
	return &kernels.Call{Op: op, Inputs: map[string]*tensor.Tensor{"base": base, "indices": indices, "src": src}, Params: kernels.Params{Dim: dim}}
}

var embeddingOp = &Op{
	Name:    "embedding",
	Summary: "rows table[ids[i]] of a [V,D] table",
	Explain: "Output row i is row ids[i] of the [V, D] table: index_select along dim 0 of a float table.",
	Inputs: []Operand{{Name: "table", Role: "[V, D], float", DTypes: kernels.FloatDTypes},
		{Name: "ids", Role: "rank-1 U32 (I32/I64 converted), each < V", Fixed: tensor.U32,
			Bound: func(c *kernels.Call) (int, string) { return c.In("table").Shape[0], "V" }}},
	Out: func(c *kernels.Call) ([]int, tensor.DType, error) {
		t := c.In("table")
		s, err := kernels.EmbeddingShape(t, c.In("ids"))
		return s, t.DType, err
	},
	Oracle:    func(c *kernels.Call) (*tensor.Tensor, error) { return cpu.Embedding(c.In("table"), c.In("ids")) },
	Tolerance: always(Bitwise),
	Random: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, _ int) *kernels.Call {
		v, d := 1+rng.Intn(9), 1+rng.Intn(9)
		return Embedding(RandTensor(rng, dt, []int{v, d}), RandIndices(rng, []int{rng.Intn(9)}, v))
	},
	Sized: func(rng *rand.Rand, _ kernels.Form, dt tensor.DType, n int) *kernels.Call {
		v, d := grid(n, 1) // as many ids as the table has rows
		return Embedding(TiledTensor(rng, dt, []int{v, d}), TiledIndices(rng, []int{v}, v))
	},
	Example: func(_ kernels.Form, dt tensor.DType) (*kernels.Call, []Gen) {
		return Embedding(nil, nil), []Gen{arangeGen("6,4", dt), indexGen("3", "4 1 4", 6)}
	},
	Trace: func(run Runner, c *kernels.Call) (*Trace, error) {
		t, err := traceMover(run, c, "table", false)
		if err != nil {
			return nil, err
		}
		if len(t.OutShape) > 0 {
			coord := make([]int, len(t.OutShape))
			for i := range t.Sources {
				unflatten(i, t.OutShape, coord)
				t.add(i, Source{"ids", coord[0]})
			}
		}
		t.sourceLabels("table", c.In("table").Shape)
		t.Explain = "embedding: row ids[i] of the table becomes output row i."
		return t, nil
	},
	Symbols: func(c *kernels.Call, out []int, s map[string]float64) {
		s["n"] = float64(tensor.NumElems(out))
		tb, ids := c.In("table"), c.In("ids")
		s["data_n"] = float64(tb.NumElems()) // embedding is index_select on the table: its formulas say data_n
		s["ids_len"] = float64(ids.NumElems())
		s["m"] = s["ids_len"]
		if len(tb.Shape) == 2 {
			s["v"], s["d"] = float64(tb.Shape[0]), float64(tb.Shape[1])
		}
	},
	Bench: []Bench{{Name: "embedding f32[4096,4096] 4096 ids", N: 16 << 20}},
}

// Embedding builds an embedding call.
func Embedding(table, ids *tensor.Tensor) *kernels.Call {
	return &kernels.Call{Op: "embedding", Inputs: map[string]*tensor.Tensor{"table": table, "ids": ids}, Params: kernels.Params{Dim: kernels.NoDim}}
}

// indexSymbols: n counts the output (select, gather), base_n and src_n the
// adds' operands, m the indices, data_n the data.
func indexSymbols(c *kernels.Call, out []int, s map[string]float64) {
	if b := c.In("base"); b != nil {
		s["base_n"] = float64(b.NumElems())
		s["src_n"] = float64(c.In("src").NumElems())
	} else {
		s["n"] = float64(tensor.NumElems(out))
	}
	if idx := c.In("indices"); idx != nil {
		s["m"] = float64(idx.NumElems())
	}
	if d := c.In("data"); d != nil {
		s["data_n"] = float64(d.NumElems())
	}
}

// smallerShape is a shape no larger than s on every axis but dim, whose
// size is free (gather's indices, scatter_add's src).
func smallerShape(rng *rand.Rand, s []int, dim int) []int {
	out := make([]int, len(s))
	for i := range s {
		if i == dim {
			out[i] = rng.Intn(7)
		} else {
			out[i] = 1 + rng.Intn(s[i])
		}
	}
	return out
}

// traceAdd traces index_add (slices: src slice k along dim lands in slice
// indices[k]) or scatter_add (each src element lands where its index sends it).
func traceAdd(c *kernels.Call, slices bool) (*Trace, error) {
	op := c.Op
	base, idx, src := c.In("base"), c.In("indices"), c.In("src")
	d := c.Dim
	if d < 0 || d >= base.Rank() || src.Rank() != base.Rank() {
		return nil, kernels.Violatef(op, "dim %d does not fit base of rank %d and src of rank %d", d, base.Rank(), src.Rank())
	}
	t := newTrace(op, "the op's shape rule, "+op+" in src flat order", base.Shape, c.Inputs)
	t.Explain = "scatter_add: a copy of base, then each src element is added where its index sends it along --dim."
	if slices {
		t.Explain = "index_add: a copy of base, then src slices are added at the rows the indices name, in src order."
	}
	for i := range t.Sources {
		t.Role[i] = RoleCopy
		t.add(i, Source{"base", i})
	}
	coord := make([]int, src.Rank())
	for i := range src.NumElems() {
		unflatten(i, src.Shape, coord)
		k := i // scatter_add: indices has src's shape
		if slices {
			k = coord[d]
		}
		if k >= idx.NumElems() {
			continue
		}
		coord[d] = int(idx.At(k))
		o, ok := flattenIn(coord, base.Shape)
		if !ok {
			continue // the kernel rejected this case before we got here
		}
		t.Role[o] = RoleAdd
		t.add(o, Source{"src", i})
		t.add(o, Source{"indices", k})
	}
	t.Label = make([]string, len(t.Sources))
	if !slices {
		for o, ss := range t.Sources {
			if n := countInput(ss, "src"); n > 0 {
				t.Label[o] = fmt.Sprintf("+%d src", n)
			}
		}
		return t, nil
	}
	// Slice k of src (along d) lands in slice indices[k] of the output, so
	// each output slice sums base and the src slices naming it.
	into := make([][]int, base.Shape[d])
	for k := 0; k < idx.NumElems() && k < src.Shape[d]; k++ {
		if r := int(idx.At(k)); r >= 0 && r < len(into) {
			into[r] = append(into[r], k)
		}
	}
	for r, ks := range into {
		terms := []string{"base" + sliceStr(base.Rank(), d, r)}
		for _, k := range ks {
			terms = append(terms, "src"+sliceStr(base.Rank(), d, k))
		}
		note := "out" + sliceStr(base.Rank(), d, r) + " = " + strings.Join(terms, " + ")
		if len(ks) == 0 {
			note += "   (no index names it: a copy of base)"
		}
		t.Notes = append(t.Notes, note)
	}
	cb := make([]int, base.Rank())
	for o := range t.Label {
		unflatten(o, base.Shape, cb)
		ks := into[cb[d]]
		if len(ks) == 0 {
			continue
		}
		var b strings.Builder
		b.WriteString("+src ")
		for j, k := range ks {
			if j == 3 {
				b.WriteString(",…")
				break
			}
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprint(&b, k)
		}
		t.Label[o] = b.String()
	}
	return t, nil
}
