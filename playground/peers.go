package playground

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// The peer programs: for the call a Try-it form describes, a runnable
// NumPy program and a runnable PyTorch program that compute the same
// output from the same .npy inputs (x.npy, …, as the `fkc run` line reads
// them) and save it as out.npy in the kernel's output dtype. Pad modes take
// their names from the mode table (kernels.PadModes: NumPy, PyTorch);
// where the libraries differ from these contracts a comment says how.

// PeerCall is what a peer program needs: the op, its parsed flags and
// each operand's shape and dtype (no data: the programs load it).
type PeerCall struct {
	Op string
	kernels.Params
	Shape map[string][]int
	DType map[string]tensor.DType
	// Files names the .npy file an operand is read from where it is not
	// NAME.npy (an input the user chose from a file).
	Files map[string]string
}

// Peers are the two programs. A library with no peer for the call has a
// program that is only comments, and its reason in NoNumPy / NoTorch.
type Peers struct {
	NumPy, Torch     string
	NoNumPy, NoTorch string
}

// PeerOf is the PeerCall of a call with its inputs.
func PeerOf(c *kernels.Call) PeerCall {
	p := PeerCall{Op: c.Op, Params: c.Params, Shape: map[string][]int{}, DType: map[string]tensor.DType{}}
	for n, t := range c.Inputs {
		if t != nil {
			p.Shape[n], p.DType[n] = t.Shape, t.DType
		}
	}
	return p
}

// PeerOfCase reads a Try-it case as a PeerCall without building its
// tensors: the flags parsed, each generator's shape and dtype.
func PeerOfCase(cs ops.Case) (PeerCall, error) {
	o, err := ops.Get(cs.Op)
	if err != nil {
		return PeerCall{}, err
	}
	c, err := o.Parse(cs.Flags)
	if err != nil {
		return PeerCall{}, err
	}
	p := PeerCall{Op: o.Name, Params: c.Params, Shape: map[string][]int{}, DType: map[string]tensor.DType{}}
	for _, n := range o.InputNames() {
		g := cs.Inputs[n]
		s, err := tensor.ParseShape(g.Shape)
		if err != nil {
			return PeerCall{}, fmt.Errorf("input %s: %v", n, err)
		}
		dt, err := tensor.ParseDType(g.DType)
		if err != nil {
			return PeerCall{}, fmt.Errorf("input %s: %v", n, err)
		}
		p.Shape[n], p.DType[n] = s, dt
		if f := InputFile(cs, n); f != n+".npy" {
			if p.Files == nil {
				p.Files = map[string]string{}
			}
			p.Files[n] = f
		}
	}
	return p, nil
}

// file is the .npy file operand n is read from.
func (p PeerCall) file(n string) string {
	if f, ok := p.Files[n]; ok {
		return f
	}
	return n + ".npy"
}

// npName is NumPy's name of a dtype's .npy elements (BF16: its uint16 bits).
var npName = map[tensor.DType]string{tensor.BOOL: "bool_", tensor.U8: "uint8", tensor.I8: "int8", tensor.I16: "int16",
	tensor.U32: "uint32", tensor.I32: "int32", tensor.I64: "int64", tensor.F16: "float16", tensor.BF16: "uint16",
	tensor.F32: "float32", tensor.F64: "float64"}

// torchName is PyTorch's dtype (U32: int64, torch 1.13 has no uint32).
var torchName = map[tensor.DType]string{tensor.BOOL: "bool", tensor.U8: "uint8", tensor.I8: "int8", tensor.I16: "int16",
	tensor.U32: "int64", tensor.I32: "int32", tensor.I64: "int64", tensor.F16: "float16", tensor.BF16: "bfloat16",
	tensor.F32: "float32", tensor.F64: "float64"}

// peerGen writes one program: its head (what it computes, the loads) and
// the body a library's op writer returns.
type peerGen struct {
	p     PeerCall
	lines []string
}

func (g *peerGen) add(format string, args ...any) {
	g.lines = append(g.lines, fmt.Sprintf(format, args...))
}

func (g *peerGen) note(format string, args ...any) {
	for _, l := range strings.Split(fmt.Sprintf(format, args...), "\n") {
		g.lines = append(g.lines, "# "+l)
	}
}

func (g *peerGen) text() string { return strings.Join(g.lines, "\n") + "\n" }

// PeerCode writes the NumPy and PyTorch programs of a call.
func PeerCode(p PeerCall) Peers {
	o, err := ops.Get(p.Op)
	if err != nil {
		msg := "# " + err.Error() + "\n"
		return Peers{NumPy: msg, Torch: msg, NoNumPy: err.Error(), NoTorch: err.Error()}
	}
	var out Peers
	for _, lib := range []string{"numpy", "torch"} {
		g := &peerGen{p: p}
		head := fmt.Sprintf("%s, as `%s` computes it", o.Name, strings.TrimPrefix(CLILine(peerCase(o, p), ""), "$ "))
		if lib == "numpy" {
			g.note("NumPy peer of %s.", head)
			g.add("import numpy as np")
		} else {
			g.note("PyTorch peer of %s.", head)
			g.add("import numpy as np")
			g.add("import torch")
			g.add("import torch.nn.functional as F")
		}
		for _, n := range o.InputNames() {
			g.load(lib, n)
		}
		why := ""
		if w, ok := peerWriters[o.Name]; !ok {
			why = "no peer is written for " + o.Name
		} else if lib == "numpy" {
			why = w.numpy(g)
		} else {
			why = w.torch(g)
		}
		if why != "" {
			g.lines = g.lines[:1]
			g.note("No %s peer: %s.", map[string]string{"numpy": "NumPy", "torch": "PyTorch"}[lib], why)
		} else {
			g.save(lib, peerOutDType(o, p))
		}
		if lib == "numpy" {
			out.NumPy, out.NoNumPy = g.text(), why
		} else {
			out.Torch, out.NoTorch = g.text(), why
		}
	}
	return out
}

// peerCase is the `fkc run` case of a PeerCall (its flags written back).
func peerCase(o *ops.Op, p PeerCall) ops.Case {
	c := &kernels.Call{Op: o.Name, Params: p.Params}
	cs := ops.Case{Op: o.Name, Flags: ops.FormatFlags(c), Order: o.InputNames(), Inputs: map[string]ops.Gen{}}
	for _, n := range cs.Order {
		g := ops.Gen{DType: p.DType[n].String()}
		if f, ok := p.Files[n]; ok {
			g.Kind, g.File = "file", f
		}
		cs.Inputs[n] = g
	}
	return cs
}

// peerOutDType is the output's dtype: the first input's, U32 for arg ops.
func peerOutDType(o *ops.Op, p PeerCall) tensor.DType {
	if o.Name == "argmax" || o.Name == "argmin" {
		return tensor.U32
	}
	return p.DType[o.Inputs[0].Name]
}

// load reads operand n: index operands as int64 (PyTorch takes int64
// indices and cannot take uint32 arrays), BF16 as its bits.
func (g *peerGen) load(lib, n string) {
	dt := g.p.DType[n]
	shape := g.p.Shape[n]
	file := g.p.file(n)
	desc := fmt.Sprintf("  # %s%s", dt, shapeText(shape))
	switch {
	case lib == "numpy" && dt == tensor.BF16:
		g.add("%s = np.load(%q)%s: bf16 has no NumPy dtype, these are its uint16 bit patterns", n, file, desc)
	case lib == "numpy":
		g.add("%s = np.load(%q)%s", n, file, desc)
	case isIndex(g.p.Op, n):
		g.add("%s = torch.from_numpy(np.load(%q).astype(np.int64))%s; PyTorch indexes with int64", n, file, desc)
	case dt == tensor.BF16:
		g.add("%s = torch.from_numpy(np.load(%q).view(np.int16)).view(torch.bfloat16)%s (the file holds its bits)", n, file, desc)
	case dt == tensor.U32:
		g.add("%s = torch.from_numpy(np.load(%q).astype(np.int64))%s: torch has no uint32", n, file, desc)
	default:
		g.add("%s = torch.from_numpy(np.load(%q))%s", n, file, desc)
	}
}

func (g *peerGen) save(lib string, dt tensor.DType) {
	switch {
	case lib == "numpy":
		g.add("np.save(%q, np.asarray(out, dtype=np.%s))", "out.npy", npName[dt])
	case dt == tensor.BF16:
		g.add("np.save(%q, out.contiguous().view(torch.int16).numpy().view(np.uint16))  # bf16 bits, as fkc writes them", "out.npy")
	default:
		g.add("np.save(%q, out.numpy().astype(np.%s))", "out.npy", npName[dt])
	}
}

func isIndex(op, n string) bool {
	o, ok := ops.Lookup(op)
	if !ok {
		return false
	}
	for _, in := range o.Inputs {
		if in.Name == n {
			return in.Bound != nil
		}
	}
	return false
}

func shapeText(s []int) string { return "[" + strings.Join(ints(s), ",") + "]" }

// pyTuple writes ints as a Python tuple ("()", "(3,)", "(1, 2)").
func pyTuple(v []int) string {
	if len(v) == 1 {
		return "(" + strconv.Itoa(v[0]) + ",)"
	}
	return "(" + strings.Join(ints(v), ", ") + ")"
}

// pyScalar writes a fill value as a Python literal of dt.
func pyScalar(s tensor.Scalar, dt tensor.DType) string {
	if dt == tensor.BOOL {
		if s.IsZero() {
			return "False"
		}
		return "True"
	}
	if dt.IsFloat() {
		f := s.Float64()
		switch {
		case math.IsNaN(f):
			return `float("nan")`
		case math.IsInf(f, 1):
			return `float("inf")`
		case math.IsInf(f, -1):
			return `float("-inf")`
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return s.String()
}

// bf16Bits is the bit pattern a BF16 fill is, for NumPy's uint16 arrays.
func bf16Bits(s tensor.Scalar) string {
	b, err := s.Encode(tensor.BF16)
	if err != nil || len(b) != 2 {
		return "0"
	}
	return fmt.Sprintf("0x%04x", uint16(b[0])|uint16(b[1])<<8)
}

// peerWriter writes an op's body (out = …) for each library, or says why
// the library has no peer.
type peerWriter struct {
	numpy, torch func(g *peerGen) (why string)
}

// peerWriters covers every op of ops.Table (TestPeerCode walks it).
var peerWriters = map[string]peerWriter{
	"pad":                    {padNumPy, padTorch},
	"pad_backward":           {padBackwardNumPy, padBackwardTorch},
	"masked_fill":            {maskedFillNumPy, maskedFillTorch},
	"sum":                    foldPeer("sum", "sum"),
	"mean":                   foldPeer("mean", "mean"),
	"max":                    foldPeer("max", "amax"),
	"min":                    foldPeer("min", "amin"),
	"argmax":                 argPeer("argmax"),
	"argmin":                 argPeer("argmin"),
	"reduce_sum_to":          toPeer("sum", "sum"),
	"reduce_max_to":          toPeer("max", "amax"),
	"reduce_min_to":          toPeer("min", "amin"),
	"reduce_max_to_backward": {maxToBackwardNumPy, maxToBackwardTorch},
	"index_select": {func(g *peerGen) string {
		g.add("out = np.take(data, indices.astype(np.int64), axis=%d)", g.p.Dim)
		return ""
	}, func(g *peerGen) string {
		g.add("out = torch.index_select(data, %d, indices)", g.p.Dim)
		return ""
	}},
	"gather": {func(g *peerGen) string {
		// NumPy's take_along_axis broadcasts; these contracts (and
		// torch.gather) read data at the index's own position, so data is
		// cut to the indices' extent on the other axes first.
		var cut []string
		for a, n := range g.p.Shape["indices"] {
			if a == dimOf(g.p.Dim, len(g.p.Shape["data"])) {
				cut = append(cut, ":")
			} else {
				cut = append(cut, ":"+strconv.Itoa(n))
			}
		}
		g.add("out = np.take_along_axis(data[%s], indices.astype(np.int64), axis=%d)", strings.Join(cut, ", "), g.p.Dim)
		return ""
	}, func(g *peerGen) string {
		g.add("out = torch.gather(data, %d, indices)", g.p.Dim)
		return ""
	}},
	"index_add": {func(g *peerGen) string {
		if g.p.DType["base"] == tensor.BF16 {
			return "bf16 has no NumPy dtype to add in"
		}
		g.add("out = base.copy()")
		g.add("np.add.at(out, (slice(None),) * %d + (indices.astype(np.int64),), src)  # in src order, in the dtype", dimOf(g.p.Dim, len(g.p.Shape["base"])))
		return ""
	}, func(g *peerGen) string {
		g.add("out = base.index_add(%d, indices, src)", g.p.Dim)
		return ""
	}},
	"scatter_add": {func(g *peerGen) string {
		if g.p.DType["base"] == tensor.BF16 {
			return "bf16 has no NumPy dtype to add in"
		}
		g.add("out = base.copy()")
		g.add("at = list(np.indices(src.shape))")
		g.add("at[%d] = indices.astype(np.int64)", dimOf(g.p.Dim, len(g.p.Shape["base"])))
		g.add("np.add.at(out, tuple(at), src)  # in src order, in the dtype")
		return ""
	}, func(g *peerGen) string {
		g.add("out = base.scatter_add(%d, indices, src)", g.p.Dim)
		return ""
	}},
	"embedding": {func(g *peerGen) string {
		g.add("out = table[ids.astype(np.int64)]")
		return ""
	}, func(g *peerGen) string {
		g.add("out = F.embedding(ids, table)")
		return ""
	}},
}

// dimOf is a dim counted from 0.
func dimOf(dim, rank int) int {
	if dim < 0 {
		return dim + rank
	}
	return dim
}

// padWidths is the (before, after) of each axis as NumPy's pad_width.
func padWidths(p []kernels.Pad) string {
	var w []string
	for _, x := range p {
		w = append(w, fmt.Sprintf("(%d, %d)", x.Before, x.After))
	}
	if len(w) == 1 {
		return "(" + w[0] + ",)"
	}
	return "(" + strings.Join(w, ", ") + ")"
}

// wideWrapNote warns of NumPy 1.24's wrong answer for a periodic pad wider
// than its axis with unequal widths (numpy/numpy#22464, fixed in 1.25).
func wideWrapNote(g *peerGen, in []int) {
	m := g.p.Mode
	if m != kernels.Circular && m != kernels.Symmetric {
		return
	}
	for a, x := range g.p.Padding {
		if a < len(in) && (x.Before > in[a] || x.After > in[a]) && x.Before != x.After {
			g.note("NumPy before 1.25 pads %q wrongly where a width exceeds the axis and the two differ (numpy#22464): axis %d here.", kernels.ModeOf(m).NumPy, a)
			return
		}
	}
}

func padNumPy(g *peerGen) string {
	pm := kernels.ModeOf(g.p.Mode)
	x := g.p.DType["x"]
	wideWrapNote(g, g.p.Shape["x"])
	if g.p.Mode == kernels.Constant {
		v := pyScalar(g.p.Fill, x)
		if x == tensor.BF16 {
			g.note("The fill as bf16 bits: %s is %s.", g.p.Fill, bf16Bits(g.p.Fill))
			v = bf16Bits(g.p.Fill)
		}
		g.add("out = np.pad(x, %s, mode=%q, constant_values=%s)", padWidths(g.p.Padding), pm.NumPy, v)
		return ""
	}
	if pm.NumPy == "—" {
		return "NumPy's np.pad has no " + pm.Name + " mode"
	}
	g.add("out = np.pad(x, %s, mode=%q)  # %s: %q in NumPy", padWidths(g.p.Padding), pm.NumPy, pm.Name, pm.NumPy)
	return ""
}

// torchPads is F.pad's pad list: (before, after) of the last axis first,
// covering the trailing k axes from the first padded one.
func torchPads(p []kernels.Pad) (list string, k int) {
	first := len(p)
	for a, x := range p {
		if x.Before != 0 || x.After != 0 {
			first = a
			break
		}
	}
	var w []string
	for a := len(p) - 1; a >= first; a-- {
		w = append(w, strconv.Itoa(p[a].Before), strconv.Itoa(p[a].After))
	}
	return "(" + strings.Join(w, ", ") + ")", len(p) - first
}

// torchPad writes out = F.pad(name, …) in mode m, as a view of rank k+2
// where PyTorch's non-constant modes need it (they pad the last 1–3 axes
// of a batch), or says why PyTorch cannot.
func torchPad(g *peerGen, name, out string, shape []int, dt tensor.DType) string {
	pm := kernels.ModeOf(g.p.Mode)
	list, k := torchPads(g.p.Padding)
	if g.p.Mode == kernels.Constant {
		v := pyScalar(g.p.Fill, dt)
		g.add("%s = F.pad(%s, %s, mode=\"constant\", value=%s)  # F.pad lists the last axis first", out, name, list, v)
		return ""
	}
	if pm.PyTorch == "—" {
		return fmt.Sprintf("PyTorch's F.pad has no %s mode (it takes constant, reflect, replicate and circular); NumPy's np.pad(mode=%q) is its peer", pm.Name, pm.NumPy)
	}
	if k == 0 {
		g.add("%s = %s.clone()  # nothing is padded", out, name)
		return ""
	}
	if k > 3 {
		return fmt.Sprintf("PyTorch pads at most the last 3 axes in %s mode; this call pads %d", pm.PyTorch, k)
	}
	if g.p.Mode == kernels.Circular {
		for a, x := range g.p.Padding {
			if x.Before > shape[a] || x.After > shape[a] {
				g.note("PyTorch refuses a circular pad wider than its axis (axis %d: %d:%d of %d); fkc wraps as often as needed.", a, x.Before, x.After, shape[a])
				break
			}
		}
	}
	lead := shape[:len(shape)-k]
	view := fmt.Sprintf("%s.reshape((1, %d) + tuple(%s.shape[%d:]))", name, prod(lead), name, len(shape)-k)
	cast, back := "", ""
	if (g.p.Mode == kernels.Reflect || g.p.Mode == kernels.Replicate) && dt != tensor.F32 && dt != tensor.F64 {
		g.note("PyTorch 1.13 pads %s only in float32/float64 on the CPU: the values go through float64 and back, exactly.", pm.PyTorch)
		cast, back = ".to(torch.float64)", ".to(torch."+torchName[dt]+")"
		if dt == tensor.I64 {
			g.note("(exact while |values| < 2**53)")
		}
	}
	outShape := slicesConcat(lead, nil)
	for a := len(shape) - k; a < len(shape); a++ {
		outShape = append(outShape, shape[a]+g.p.Padding[a].Before+g.p.Padding[a].After)
	}
	g.note("F.pad's %s mode pads the last 1–3 axes of a batch: %s is viewed as rank %d, padded, and viewed back.", pm.PyTorch, name, k+2)
	g.add("%s = F.pad(%s%s, %s, mode=%q)%s.reshape(%s)", out, view, cast, list, pm.PyTorch, back, pyTuple(outShape))
	return ""
}

func slicesConcat(a, b []int) []int { return append(append([]int{}, a...), b...) }

func prod(s []int) int {
	n := 1
	for _, v := range s {
		n *= v
	}
	return n
}

func padTorch(g *peerGen) string {
	return torchPad(g, "x", "out", g.p.Shape["x"], g.p.DType["x"])
}

// padBackwardIn is grad_in's shape.
func padBackwardIn(p PeerCall) []int {
	in := slicesConcat(p.Shape["grad_out"], nil)
	for a := range in {
		if a < len(p.Padding) {
			in[a] -= p.Padding[a].Before + p.Padding[a].After
		}
	}
	return in
}

func padBackwardNumPy(g *peerGen) string {
	pm := kernels.ModeOf(g.p.Mode)
	dt := g.p.DType["grad_out"]
	if dt == tensor.BF16 {
		return "bf16 has no NumPy dtype to add in"
	}
	if g.p.Mode != kernels.Constant && pm.NumPy == "—" {
		return "NumPy's np.pad has no " + pm.Name + " mode"
	}
	in := padBackwardIn(g.p)
	wideWrapNote(g, in)
	g.note("NumPy has no pad backward: pad the flat index of each grad_in cell as the forward pad would,\nthen add every grad_out cell into the cell it was copied from (np.add.at, in grad_out's flat order).")
	if g.p.Mode == kernels.Constant {
		g.add("src = np.pad(np.arange(%d).reshape(%s), %s, mode=\"constant\", constant_values=-1)  # -1: the fill, read from no cell", prod(in), pyTuple(in), padWidths(g.p.Padding))
	} else {
		g.add("src = np.pad(np.arange(%d).reshape(%s), %s, mode=%q)", prod(in), pyTuple(in), padWidths(g.p.Padding), pm.NumPy)
	}
	g.add("out = np.zeros(%s, dtype=grad_out.dtype)", pyTuple(in))
	g.add("read = src >= 0")
	g.add("np.add.at(out.reshape(-1), src[read], grad_out[read])")
	return ""
}

func padBackwardTorch(g *peerGen) string {
	pm := kernels.ModeOf(g.p.Mode)
	dt := g.p.DType["grad_out"]
	if pm.PyTorch == "—" {
		return fmt.Sprintf("PyTorch's F.pad has no %s mode to differentiate", pm.Name)
	}
	if (g.p.Mode == kernels.Reflect || g.p.Mode == kernels.Replicate) && dt != tensor.F32 && dt != tensor.F64 {
		return fmt.Sprintf("PyTorch 1.13 differentiates %s padding only in float32/float64 on the CPU (here %s)", pm.PyTorch, dt)
	}
	in := padBackwardIn(g.p)
	g.note("PyTorch's peer is autograd: the gradient of F.pad at grad_out.")
	g.add("x = torch.zeros(%s, dtype=grad_out.dtype, requires_grad=True)", pyTuple(in))
	if why := torchPad(g, "x", "y", in, dt); why != "" {
		return why
	}
	g.add("y.backward(grad_out)")
	g.add("out = x.grad")
	return ""
}

func maskedFillNumPy(g *peerGen) string {
	dt := g.p.DType["x"]
	v := pyScalar(g.p.Fill, dt)
	if dt == tensor.BF16 {
		g.note("The fill as bf16 bits: %s is %s.", g.p.Fill, bf16Bits(g.p.Fill))
		v = bf16Bits(g.p.Fill)
	}
	g.add("out = np.where(mask, np.array(%s, dtype=x.dtype), x)", v)
	return ""
}

func maskedFillTorch(g *peerGen) string {
	g.add("out = x.masked_fill(mask, %s)", pyScalar(g.p.Fill, g.p.DType["x"]))
	return ""
}

// nanNote says how the extrema differ from NumPy's and PyTorch's.
func nanNote(g *peerGen, fn string) {
	if fn == "max" || fn == "min" || fn == "amax" || fn == "amin" || fn == "argmax" || fn == "argmin" {
		g.note("These contracts skip NaN (an all-NaN max is -inf, min +inf); NumPy and PyTorch propagate it:\nthe answers differ where x holds a NaN.")
	}
}

func bf16None(g *peerGen, in string) string {
	if g.p.DType[in] == tensor.BF16 {
		return "bf16 has no NumPy dtype to compute in (the file holds its uint16 bits)"
	}
	return ""
}

func foldPeer(npFn, torchFn string) peerWriter {
	return peerWriter{func(g *peerGen) string {
		if why := bf16None(g, "x"); why != "" {
			return why
		}
		nanNote(g, npFn)
		if g.p.Dim == kernels.NoDim {
			g.add("out = np.%s(x)  # every element: a rank-0 result", npFn)
		} else {
			g.add("out = np.%s(x, axis=%d)", npFn, g.p.Dim)
		}
		return ""
	}, func(g *peerGen) string {
		nanNote(g, torchFn)
		if g.p.Dim == kernels.NoDim {
			g.add("out = torch.%s(x)  # every element: a rank-0 result", torchFn)
		} else {
			g.add("out = torch.%s(x, dim=%d)", torchFn, g.p.Dim)
		}
		return ""
	}}
}

func argPeer(fn string) peerWriter {
	return peerWriter{func(g *peerGen) string {
		if why := bf16None(g, "x"); why != "" {
			return why
		}
		nanNote(g, fn)
		g.add("out = np.%s(x, axis=%d)  # ties: the first index, as here", fn, g.p.Dim)
		return ""
	}, func(g *peerGen) string {
		nanNote(g, fn)
		g.add("out = torch.%s(x, dim=%d)  # ties: the first index, as here", fn, g.p.Dim)
		return ""
	}}
}

// reducedAxes are the axes reduce_*_to reduces: where the target, left-
// padded with 1s to x's rank, is 1 and x is not.
func reducedAxes(x, target []int) []int {
	var axes []int
	off := len(x) - len(target)
	for a := range x {
		t := 1
		if a >= off {
			t = target[a-off]
		}
		if t == 1 && x[a] != 1 {
			axes = append(axes, a)
		}
	}
	return axes
}

func toPeer(npFn, torchFn string) peerWriter {
	return peerWriter{func(g *peerGen) string {
		if why := bf16None(g, "x"); why != "" {
			return why
		}
		nanNote(g, npFn)
		axes := reducedAxes(g.p.Shape["x"], g.p.Shape2())
		g.add("out = np.%s(x, axis=%s, keepdims=True).reshape(%s)", npFn, pyTuple(axes), pyTuple(g.p.Params.Shape))
		return ""
	}, func(g *peerGen) string {
		nanNote(g, torchFn)
		axes := reducedAxes(g.p.Shape["x"], g.p.Shape2())
		if len(axes) == 0 {
			g.add("out = x.clone().reshape(%s)  # no axis is reduced (torch.%s with dim=() would reduce them all)", pyTuple(g.p.Params.Shape), torchFn)
			return ""
		}
		g.add("out = torch.%s(x, dim=%s, keepdim=True).reshape(%s)", torchFn, pyTuple(axes), pyTuple(g.p.Params.Shape))
		return ""
	}}
}

// Shape2 is the target shape (Params.Shape, beside the operands' shapes).
func (p PeerCall) Shape2() []int { return p.Params.Shape }

func maxToBackwardNumPy(g *peerGen) string {
	if why := bf16None(g, "x"); why != "" {
		return why
	}
	axes := pyTuple(reducedAxes(g.p.Shape["x"], g.p.Shape2()))
	g.note("Each group's upstream value, divided by how many positions hold the group's max, goes to those positions.")
	g.add("top = np.max(x, axis=%s, keepdims=True)", axes)
	g.add("hit = x == top")
	g.add("share = upstream.reshape(top.shape) / np.sum(hit, axis=%s, keepdims=True).astype(x.dtype)", axes)
	g.add("out = np.where(hit, share, x.dtype.type(0))")
	return ""
}

func maxToBackwardTorch(g *peerGen) string {
	axes := reducedAxes(g.p.Shape["x"], g.p.Shape2())
	if len(axes) == 0 {
		g.add("out = upstream.reshape(x.shape).clone()  # no axis is reduced: every position is its group's max")
		return ""
	}
	g.note("PyTorch's peer is autograd: amax's gradient is shared equally between tied maxima.")
	g.add("x.requires_grad_(True)")
	g.add("torch.amax(x, dim=%s, keepdim=True).reshape(%s).backward(upstream)", pyTuple(axes), pyTuple(g.p.Params.Shape))
	g.add("out = x.grad")
	return ""
}

func ints(v []int) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = strconv.Itoa(x)
	}
	return out
}
