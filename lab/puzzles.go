package lab

import (
	"embed"
	"fmt"
	"strings"

	"github.com/fkc-playground/fkc/tensor"
)

// Puzzles are graded exercises on the lab: a kernel around one function
// that the learner writes (the stub between the "your code" markers),
// checked on a contract kernel's derived cases (F32 only) cell by cell.
// lab/puzzles/NAME.wgsl is the puzzle as handed out; NAME.answer.wgsl the
// reference answer's text for the marked region.

//go:embed puzzles/*.wgsl
var puzzleFS embed.FS

// Puzzle is one exercise.
type Puzzle struct {
	Name    string
	Title   string
	Level   string   // easy, medium, hard
	Goal    string   // one sentence
	Kernels []string // the contract kernels whose cases grade it, in turn
	DType   tensor.DType
	Hints   []string
}

// Puzzles lists the exercises, easy to hard.
var Puzzles = []*Puzzle{
	{Name: "reflect", Title: "Reflect's source index", Level: "easy", DType: tensor.F32,
		Goal:    "Write the input coordinate a reflect-padded coordinate copies from.",
		Kernels: []string{"fuel-vulkan-kernels/pad_reflect_b4"},
		Hints: []string{"Only j < 0 and j >= n reach your function; each side is one mirror.",
			"Left of the input, j = -1 copies 1, j = -2 copies 2: the edge element 0 is not repeated.",
			"Right of it, j = n copies n-2: the mirror is at n-1, so the source is (n-1) - (j-(n-1))."}},
	{Name: "replicate", Title: "Replicate's clamp", Level: "easy", DType: tensor.F32,
		Goal:    "Write the input coordinate a replicate-padded coordinate copies from.",
		Kernels: []string{"fuel-vulkan-kernels/pad_replicate_b4"},
		Hints: []string{"Every padded cell copies the nearest edge element, however far out it is.",
			"WGSL has clamp(e, low, high) for i32."}},
	{Name: "wrap", Title: "Circular and symmetric", Level: "medium", DType: tensor.F32,
		Goal:    "Write the source coordinate of circular and symmetric padding, for padding wider than the input.",
		Kernels: []string{"fkc-cpu-kernels/pad_circular", "fkc-cpu-kernels/pad_symmetric"},
		Hints: []string{"Circular has period n, symmetric period 2n: reduce j into [0, period) first.",
			"i32 % keeps the sign of j: -1 % 3 is -1, not 2. Bring a negative remainder up by one period.",
			"Within symmetric's period, m < n is the input itself and m >= n its mirror image 2n-1-m."}},
	{Name: "gather", Title: "Gather's address", Level: "medium", DType: tensor.F32,
		Goal:    "Write the element of data that a gather output element copies.",
		Kernels: []string{"fuel-reference-backend/gather"},
		Hints: []string{"Split o into coordinates with % and / over P.out_shape, last axis first.",
			"On axis P.dim the coordinate is indices[o] (indices has the output's shape, so o indexes it too).",
			"data's strides are not the output's: sum coordinate × P.a_strides[a]."}},
	{Name: "pad_backward", Title: "Pad backward as a gather", Level: "hard", DType: tensor.F32,
		Goal:    "Write, per axis, the range of grad_out cells that replicate padding copied from one input cell, so each gradient cell gathers its sum without atomics.",
		Kernels: []string{"fuel-vulkan-kernels/pad_backward_replicate_f32"},
		Hints: []string{"An interior cell c has one source on the axis: grad_out coordinate c + b.",
			"The first cell (c = 0) was also copied into all b cells before it: its range starts at 0.",
			"The last cell (c = n-1) was also copied into all f cells after it: its range ends at b+n-1+f. With n = 1 both apply."}},
	{Name: "row_sum", Title: "A row sum with a workgroup reduction", Level: "hard", DType: tensor.F32,
		Goal:    "Sum 64 values in workgroup memory in six steps, with barriers in uniform control flow.",
		Kernels: []string{"fuel-reference-backend/sum_dim"},
		Hints: []string{"for (var s = WG / 2u; s > 0u; s = s / 2u) { … } runs the same six steps in every invocation.",
			"Inside it, only lid < s adds: if (lid < s) { partial[lid] = partial[lid] + partial[lid + s]; }",
			"workgroupBarrier() goes after the if, inside the loop: every invocation must reach it, every step."}},
}

// PuzzleNamed finds a puzzle.
func PuzzleNamed(name string) (*Puzzle, error) {
	var names []string
	for _, p := range Puzzles {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("no puzzle %q (the puzzles: %s)", name, strings.Join(names, ", "))
}

const (
	stubBegin = "// ---- your code ----\n"
	stubEnd   = "// ---- end of your code ----\n"
)

// Stub is the puzzle as handed out: the kernel with the stub to fill in.
func (p *Puzzle) Stub() string {
	b, err := puzzleFS.ReadFile("puzzles/" + p.Name + ".wgsl")
	if err != nil {
		panic("lab: puzzle " + p.Name + " has no file: " + err.Error())
	}
	return string(b)
}

// Answer is the kernel with the reference answer in the marked region.
func (p *Puzzle) Answer() string {
	a, err := puzzleFS.ReadFile("puzzles/" + p.Name + ".answer.wgsl")
	if err != nil {
		panic("lab: puzzle " + p.Name + " has no answer: " + err.Error())
	}
	s := p.Stub()
	i, j := strings.Index(s, stubBegin), strings.Index(s, stubEnd)
	if i < 0 || j < i {
		panic("lab: puzzle " + p.Name + " has no marked region")
	}
	return s[:i+len(stubBegin)] + string(a) + s[j:]
}
