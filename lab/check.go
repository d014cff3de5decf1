package lab

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// CheckOptions tune a check.
type CheckOptions struct {
	Seed   int64
	Random int // random cases per dtype × variant, beside the edges
	// DType, when set, keeps only the cases of that dtype (a puzzle's).
	DType tensor.DType
	// Progress, when set, hears of each case as it is judged.
	Progress func(v *Verdict)
}

// Report is a check's outcome: the verdicts so far, stopping at the first
// failing case.
type Report struct {
	Kernel   *Kernel
	Cases    int // derived
	Verdicts []*Verdict
	Passed   int
	Skipped  int
	Failed   *Verdict // the first failing case, or nil
}

// OK reports whether every case that ran passed.
func (r *Report) OK() bool { return r.Failed == nil }

// Check runs the user's WGSL on every derived case and judges it, up to
// the first failing one. A module that does not compile fails the first
// case with the compile error. On a device that batches (kernels.LabBatcher)
// the cases go in batches, each one submission: the verdicts are the same,
// in the same order, as case by case.
func Check(dev kernels.LabDevice, k *Kernel, user string, opt CheckOptions) *Report {
	cases := k.Derive(opt.Seed, opt.Random)
	if opt.DType != tensor.Invalid {
		kept := cases[:0]
		for _, c := range cases {
			if c.DType == opt.DType {
				c.N = len(kept) + 1
				kept = append(kept, c)
			}
		}
		cases = kept
	}
	rep := &Report{Kernel: k, Cases: len(cases)}
	f64 := dev.LabAdapter().ShaderF64
	record := func(v *Verdict) bool {
		rep.Verdicts = append(rep.Verdicts, v)
		if opt.Progress != nil {
			opt.Progress(v)
		}
		switch v.Status {
		case Pass:
			rep.Passed++
		case Skip:
			rep.Skipped++
		default:
			rep.Failed = v
			return false
		}
		return true
	}
	b, batched := dev.(kernels.LabBatcher)
	// The first batch is small, so that a kernel wrong from the start is
	// answered at once; later ones are larger.
	size := 4
	for i := 0; i < len(cases); {
		if !batched {
			if !record(RunCase(dev, user, cases[i], k, f64)) {
				return rep
			}
			i++
			continue
		}
		n := min(size, len(cases)-i)
		for _, v := range runBatch(dev, b, user, cases[i:i+n], k, f64) {
			if !record(v) {
				return rep
			}
		}
		i += n
		size = min(2*size, maxBatch)
	}
	return rep
}

// maxBatch is the most cases one submission holds.
const maxBatch = 128

// runBatch runs and judges cases in one submission; when the batch fails
// as a whole (a compile error, a device error) its cases run one by one,
// so each verdict says what its own case did.
func runBatch(dev kernels.LabDevice, b kernels.LabBatcher, user string, cases []*Case, k *Kernel, f64 bool) []*Verdict {
	vs := make([]*Verdict, len(cases))
	type prepared struct {
		i int
		l *Layout
		r *kernels.LabRun
	}
	var ps []prepared
	var runs []*kernels.LabRun
	for i, c := range cases {
		l, m, v := prepare(user, c, f64)
		if v != nil {
			vs[i] = v
			continue
		}
		r := m.labRun(c.Call, l, Options{RowGroups: c.RowGroups})
		ps, runs = append(ps, prepared{i, l, r}), append(runs, r)
	}
	if len(runs) == 0 {
		return vs
	}
	res, err := b.RunLabBatch(runs)
	for n, p := range ps {
		if err != nil {
			vs[p.i] = RunCase(dev, user, cases[p.i], k, f64)
			continue
		}
		vs[p.i] = Judge(cases[p.i], outcome(p.l, p.r, res[n]), k.Match)
	}
	return vs
}

// prepare plans and builds one case's module, or says why it cannot run.
func prepare(user string, c *Case, f64 bool) (*Layout, *Module, *Verdict) {
	l, err := Plan(c.Call, f64)
	var u *kernels.Unavailable
	if errors.As(err, &u) {
		return nil, nil, &Verdict{Case: c, Status: Skip, Why: err.Error()}
	}
	if err != nil {
		return nil, nil, &Verdict{Case: c, Status: Fail, Why: "the case does not fit the lab interface: " + err.Error()}
	}
	m, err := Build(user, l)
	if err != nil {
		return nil, nil, failed(c, err)
	}
	return l, m, nil
}

func failed(c *Case, err error) *Verdict {
	var ce *CompileError
	if errors.As(err, &ce) {
		return &Verdict{Case: c, Status: Fail, Why: ce.Error(), Compile: ce}
	}
	return &Verdict{Case: c, Status: Fail, Why: err.Error()}
}

// RunCase runs and judges one case.
func RunCase(dev kernels.LabDevice, user string, c *Case, k *Kernel, f64 bool) *Verdict {
	l, m, v := prepare(user, c, f64)
	if v != nil {
		return v
	}
	res, err := m.Run(dev, c.Call, l, Options{RowGroups: c.RowGroups})
	if err != nil {
		return failed(c, err)
	}
	return Judge(c, res, k.Match)
}

// Print writes a verdict for people: the case, what went wrong, its wrong
// cells (flat index, coordinates, expected and got with their bits, ULP).
func (v *Verdict) Print(w io.Writer) {
	c := v.Case
	fmt.Fprintf(w, "case %d %s: %s [%s] %s\n", c.N, v.Status, c.Variant, c.DType, c.Note)
	if v.Status == Pass {
		return
	}
	fmt.Fprintf(w, "  %s: %s\n", describe(c.Call), v.Why)
	if c.RowGroups > 0 {
		fmt.Fprintf(w, "  grid: %d workgroup(s) of %d per row\n", c.RowGroups, WG)
	}
	if len(v.Cells) > 0 {
		fmt.Fprintf(w, "  %-8s %-14s %-24s %-24s %s\n", "flat", "coords", "expected (bits)", "got (bits)", "ULP")
		for _, cl := range v.Cells {
			got := fmt.Sprintf("%s (%s)", cl.Got, cl.GotBits)
			if cl.Unwritten {
				got += " unwritten"
			}
			fmt.Fprintf(w, "  %-8d %-14s %-24s %-24s %s", cl.Index, fmt.Sprint(cl.Coord), fmt.Sprintf("%s (%s)", cl.Want, cl.WantBits), got, cl.ULP)
			if cl.Bound != "" {
				fmt.Fprintf(w, "  bound: %s", cl.Bound)
			}
			fmt.Fprintln(w)
		}
		if v.Wrong > len(v.Cells) {
			fmt.Fprintf(w, "  … and %d more wrong cells\n", v.Wrong-len(v.Cells))
		}
	}
}

// Repro writes the failing case's inputs as .npy files into dir and
// returns the `fkc run` line that runs the same kernel on them natively,
// judged the same way (fkc run --wgsl).
func Repro(v *Verdict, wgslFile, kernelID, dir string) (string, error) {
	return ReproLine(v, wgslFile, kernelID, dir, tensor.WriteNpyFile)
}

// ReproLine is Repro with the inputs handed to write (path, tensor)
// instead of written as files: the page offers them as downloads.
func ReproLine(v *Verdict, wgslFile, kernelID, dir string, write func(string, *tensor.Tensor) error) (string, error) {
	c := v.Case.Call
	o, err := ops.Of(c)
	if err != nil {
		return "", err
	}
	args := []string{"fkc", "run", c.Op, "--backend", "vulkan", "--kernel", kernelID, "--wgsl", quote(wgslFile)}
	if v.Case.RowGroups > 0 {
		args = append(args, "--rows", fmt.Sprint(v.Case.RowGroups))
	}
	bf16 := false
	for _, in := range o.Inputs {
		t := c.In(in.Name)
		bf16 = bf16 || t.DType == tensor.BF16
		p := filepath.Join(dir, in.Name+".npy")
		if err := write(p, t); err != nil {
			return "", err
		}
		args = append(args, "-i", in.Name+"="+quote(p))
	}
	if bf16 {
		args = append(args, "--dtype", "bf16")
	}
	for _, f := range ops.FormatFlags(c) {
		args = append(args, quote(f))
	}
	args = append(args, "-o", quote(filepath.Join(dir, "out.npy")))
	return strings.Join(args, " "), nil
}

// quote shell-quotes an argument that needs it.
func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r == ':' || r == ',' || r == '=' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
