package playground

import (
	"fmt"
	"html/template"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/lab"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// The kernel lab's pages (docs/lab.md): #/lab lists the kernels one can
// write a kernel for, #/lab/PROVIDER%2fNAME is the editor for one, and
// #/lab/puzzles the graded exercises. Package lab does the work; these are
// the pages' models, which wasm/lab.go fills and the templates draw.

// LabHome is the lab's address.
const LabHome = "#/lab"

// LabHref is the lab's page for a kernel of this site ("" when the lab
// has no plain kernel for it): #/lab/PROVIDER%2fNAME, or for the pasted
// document's kernels #/lab/mine/NAME.
func (s *Site) LabHref(provider, name string) string {
	if _, err := lab.Find(s.Eng, provider+"/"+name); err != nil {
		return ""
	}
	if s.Home == AuthorHome {
		return LabHome + "/mine/" + fragEscape(name)
	}
	return LabHome + "/" + fragEscape(provider+"/"+name)
}

// LabIndexPage lists the kernels of the lab.
type LabIndexPage struct {
	Families []LabFamily
	Mine     []LabEntry // the kernels of "Your contract"
	// MinePending: drawn before the app has read the document this
	// browser keeps, so Mine is not known yet.
	MinePending bool
	Puzzles     []PuzzleEntry
}

// LabFamily is the kernels that share one plain kernel.
type LabFamily struct {
	Template string
	Kernels  []LabEntry
}

// LabEntry is one kernel the lab takes.
type LabEntry struct {
	ID, Name, Provider, Backend, Href string
	DTypes                            []string
}

// PuzzleEntry is one puzzle in a list.
type PuzzleEntry struct {
	Name, Title, Level, Goal, Href string
}

// LabIndex is the lab's first page: the GPU kernels first, then the CPU
// contracts' (timed beside their CPU kernel), and mine's kernels.
func (s *Site) LabIndex(mine *Site) LabIndexPage {
	var p LabIndexPage
	by := map[string]*LabFamily{}
	var order []string
	entries := func(site *Site) []LabEntry {
		var out []LabEntry
		rows := site.Rows()
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].Backend == "Vulkan" && rows[j].Backend != "Vulkan" })
		for _, r := range rows {
			href := site.LabHref(r.Provider, r.Name)
			if href == "" {
				continue
			}
			out = append(out, LabEntry{ID: r.ID, Name: r.Name, Provider: r.Provider, Backend: r.Backend, Href: href, DTypes: r.DTypes})
		}
		return out
	}
	for _, e := range entries(s) {
		k, _ := lab.Find(s.Eng, e.ID)
		f := k.TemplateName()
		if by[f] == nil {
			by[f] = &LabFamily{Template: f}
			order = append(order, f)
		}
		by[f].Kernels = append(by[f].Kernels, e)
	}
	for _, f := range order {
		p.Families = append(p.Families, *by[f])
	}
	if mine != nil {
		p.Mine = entries(mine)
	}
	p.Puzzles = PuzzleList()
	return p
}

// PuzzleList is every puzzle, easy to hard.
func PuzzleList() []PuzzleEntry {
	var out []PuzzleEntry
	for _, z := range lab.Puzzles {
		out = append(out, PuzzleEntry{Name: z.Name, Title: z.Title, Level: z.Level, Goal: z.Goal, Href: LabHome + "/puzzles/" + z.Name})
	}
	return out
}

// LabPage is the editor for one kernel, or one puzzle.
type LabPage struct {
	Home       KV // the breadcrumb's first step
	ID         string
	Title      string
	KernelHref string
	Template   string // the plain kernel's file
	Code       string // what the editor opens with
	Lines      []int  // the gutter's line numbers
	Shared     bool   // the code came by a link: it runs only when Run is pressed
	Key        string // the local storage key of its code
	Variants   string
	DTypes     string
	Cases      int
	Puzzle     *PuzzleView
}

// PuzzleView is a puzzle's page.
type PuzzleView struct {
	PuzzleEntry
	Hints      []string
	Kernels    []string
	Prev, Next string
}

// NewLabPage is the editor's page for kernel k, opening with code.
func NewLabPage(home KV, k *lab.Kernel, kernelHref, code string, shared bool) *LabPage {
	p := &LabPage{Home: home, ID: k.ID, Title: "Lab: " + k.ID, KernelHref: kernelHref, Template: k.TemplateName(),
		Code: code, Lines: lineNumbers(code), Shared: shared, Key: "fkc-lab:" + k.ID, Cases: len(k.Derive(1, LabRandom))}
	var vs, ds []string
	for _, v := range k.Variants {
		vs = append(vs, v.String())
	}
	for _, d := range k.DTypes() {
		ds = append(ds, d.String())
	}
	p.Variants, p.DTypes = strings.Join(vs, ", "), strings.Join(ds, ", ")
	return p
}

// LabRandom is how many random cases per dtype and variant the page's
// check adds to the edges (fkc lab check --cases: the same cases).
const LabRandom = 20

// NewPuzzlePage is a puzzle's page, opening with code (the stub, or the
// learner's kept code).
func NewPuzzlePage(z *lab.Puzzle, eng *engine.Engine, k *lab.Kernel, code string) *LabPage {
	p := NewLabPage(KV{Key: "Puzzles", Value: LabHome + "/puzzles"}, k, "", code, false)
	p.Title, p.Key = "Puzzle: "+z.Title, "fkc-lab-puzzle:"+z.Name
	v := &PuzzleView{Hints: z.Hints, Kernels: z.Kernels}
	for i, e := range PuzzleList() {
		if e.Name == z.Name {
			v.PuzzleEntry = e
			if i > 0 {
				v.Prev = PuzzleList()[i-1].Href
			}
			if i+1 < len(lab.Puzzles) {
				v.Next = PuzzleList()[i+1].Href
			}
		}
	}
	p.Puzzle = v
	n := 0
	for _, id := range z.Kernels {
		if k, err := lab.Find(eng, id); err == nil {
			for _, c := range k.Derive(1, 5) {
				if c.DType == z.DType {
					n++
				}
			}
		}
	}
	p.Cases = n
	return p
}

func lineNumbers(code string) []int {
	n := strings.Count(code, "\n") + 1
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// LabCompile is the browser compiler's messages at the user's lines.
type LabCompile struct {
	Errors   []LabMessage
	Warnings []LabMessage
	Prelude  []LabMessage // in the lab's prelude: a name the user also declared
}

// LabMessage is one compiler message.
type LabMessage struct {
	Line, Col int
	Text      string
}

// LabResult is a check's outcome as the page shows it.
type LabResult struct {
	Kernel   string
	Cases    int
	Passed   int
	Skipped  int
	Verdicts []LabVerdictChip
	Elapsed  string
	Fail     *LabFail
	Puzzle   bool
	Solved   bool
}

// LabVerdictChip is one case's verdict in the compact list.
type LabVerdictChip struct {
	N            int
	Status, Text string
}

// LabFail is the first failing case.
type LabFail struct {
	N       int
	What    string // "pad [F32] edge"
	Call    string
	Why     string
	Grid    string // "grid: 1 workgroup(s) of 64 per row" or ""
	Cells   []lab.Cell
	More    int
	Grids   []Grid
	Repro   string
	Files   []LabFile
	Compile *lab.CompileError
}

// LabFile is a repro input offered as a download.
type LabFile struct {
	Name string
	Href template.URL // a data: URL of the .npy
}

// NewLabResult reads a check's report for the page. files are the repro
// inputs (the page makes their data: URLs), repro the fkc run line.
func NewLabResult(rep *lab.Report, elapsed time.Duration, repro string, files []LabFile) *LabResult {
	r := &LabResult{Kernel: rep.Kernel.ID, Cases: rep.Cases, Passed: rep.Passed, Skipped: rep.Skipped,
		Elapsed: fmt.Sprintf("%.2f s", elapsed.Seconds())}
	for _, v := range rep.Verdicts {
		c := v.Case
		text := fmt.Sprintf("case %d %s: %s [%s] %s", c.N, v.Status, c.Variant, c.DType, c.Note)
		if v.Why != "" {
			text += " — " + v.Why
		}
		r.Verdicts = append(r.Verdicts, LabVerdictChip{N: c.N, Status: strings.ToLower(string(v.Status)), Text: text})
	}
	if v := rep.Failed; v != nil {
		r.Fail = newLabFail(v, repro, files)
	}
	return r
}

func newLabFail(v *lab.Verdict, repro string, files []LabFile) *LabFail {
	c := v.Case
	f := &LabFail{N: c.N, What: fmt.Sprintf("%s [%s] %s", c.Variant, c.DType, c.Note), Call: lab.Describe(c.Call), Why: v.Why,
		Cells: v.Cells, More: v.Wrong - len(v.Cells), Repro: repro, Files: files, Compile: v.Compile}
	if c.RowGroups > 0 {
		f.Grid = fmt.Sprintf("grid: %d workgroup(s) of %d per row", c.RowGroups, lab.WG)
	}
	if v.Outcome == nil {
		return f
	}
	got := v.Outcome.Out
	want, err := ops.Oracle(c.Call)
	if err != nil || want.NumElems() != got.NumElems() {
		return f
	}
	wrong := map[int]lab.Cell{}
	for _, cl := range v.All {
		wrong[cl.Index] = cl
	}
	// The slice drawn of a rank >= 3 output holds the first wrong cell.
	s := DefaultSlice(got.Rank())
	if len(v.All) > 0 && got.Rank() >= 3 {
		coord := v.All[0].Coord
		for a := range s.Fixed {
			s.Fixed[a] = coord[a]
		}
	}
	o, _ := ops.Of(c.Call)
	if o != nil && len(o.Inputs) > 0 {
		x := c.Call.In(o.Inputs[0].Name)
		f.Grids = append(f.Grids, NewGrid(GridInput{Name: o.Inputs[0].Name, Title: "input " + o.Inputs[0].Name, T: x}))
	}
	for _, side := range []struct {
		name, title string
		t           *tensor.Tensor
	}{{"want", "expected (the CPU oracle)", want}, {"got", "your kernel's output", got}} {
		g := NewGrid(GridInput{Name: side.name, Title: side.title, T: side.t, Out: side.name == "got", Slice: s})
		g.Key = side.name
		for r := range g.Rows {
			for i := range g.Rows[r].Cells {
				cell := &g.Rows[r].Cells[i]
				w, bad := wrong[cell.I]
				cls := "right"
				if bad {
					cls = "wrong"
					cell.Info = cellInfo(cell.Coord, w)
				} else {
					cell.Info = cell.Coord + " = " + cell.Value + " (right)"
				}
				cell.Class = strings.TrimSpace(cell.Class + " " + cls)
			}
		}
		f.Grids = append(f.Grids, g)
	}
	return f
}

// cellInfo is a wrong cell's hover text: expected and got, with their
// bits and the distance in ULP.
func cellInfo(coord string, c lab.Cell) string {
	s := fmt.Sprintf("%s: expected %s (%s), got %s (%s)", coord, c.Want, c.WantBits, c.Got, c.GotBits)
	if c.Unwritten {
		s += " — never written (still the marker)"
	}
	if c.ULP != "" {
		s += ", " + c.ULP + " ULP apart"
	}
	if c.Bound != "" {
		s += "; bound " + c.Bound
	}
	return s
}

// LabBench is a timing's lines for the page.
type LabBench struct {
	Lines []LabBenchLine
}

// LabBenchLine is one variant timed.
type LabBenchLine struct {
	Head                    string
	Err                     string
	Mine, Builtin, Floor    string
	MineGBps, BuiltinGBps   string
	CopyGBps, Clock, Bytes  string
	Ratio                   string
	MinePct, BuiltinPct     string // of the copy ceiling
	NotCredible             bool
	Recheck, BuiltinRecheck string
}

// NewLabBench reads lab.Bench's lines.
func NewLabBench(lines []*lab.BenchLine) *LabBench {
	b := &LabBench{}
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d.Nanoseconds())/1e6, 'f', 3, 64) + " ms"
	}
	for _, l := range lines {
		x := LabBenchLine{Head: fmt.Sprintf("%s [%s] %s", l.Variant, l.DType, l.Call), Err: l.Err}
		if l.Err == "" {
			x.Mine, x.Builtin = ms(l.Mine), ms(l.Builtin)
			x.MineGBps, x.BuiltinGBps = fmt.Sprintf("%.2f GB/s", l.MineGBps), fmt.Sprintf("%.2f GB/s", l.BuiltinGBps)
			x.Clock, x.Bytes = l.Clock, fmt.Sprintf("%.0f", l.Bytes)
			if l.Mine > 0 {
				x.Ratio = fmt.Sprintf("%.2f×", float64(l.Builtin)/float64(l.Mine))
			}
			if l.CopyGBps > 0 {
				x.CopyGBps = fmt.Sprintf("%.2f GB/s", l.CopyGBps)
				x.Floor = strconv.FormatFloat(l.FloorNs/1e6, 'f', 3, 64) + " ms"
				x.MinePct = fmt.Sprintf("%.0f%%", 100*l.MineGBps/l.CopyGBps)
				x.BuiltinPct = fmt.Sprintf("%.0f%%", 100*l.BuiltinGBps/l.CopyGBps)
			}
			x.NotCredible = !l.MineCredible
			if l.Recheck != nil && l.Recheck.Status != lab.Pass {
				x.Recheck = l.Recheck.Why
			}
			x.BuiltinRecheck = l.BuiltinRecheck
		}
		b.Lines = append(b.Lines, x)
	}
	return b
}
