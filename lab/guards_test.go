//go:build !js

package lab

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

const reflectKernel = "fuel-vulkan-kernels/pad_reflect_b4"

// mutate returns the pad template with old replaced by new (once).
func mutate(t *testing.T, k *Kernel, old, new string) string {
	t.Helper()
	src, err := k.Template()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(src, old) != 1 {
		t.Fatalf("the template holds %q %d times", old, strings.Count(src, old))
	}
	return strings.Replace(src, old, new, 1)
}

func checkWith(t *testing.T, src string) *Report {
	t.Helper()
	k, err := Find(testEngine(t), reflectKernel)
	if err != nil {
		t.Fatal(err)
	}
	return Check(device(t), k, src, CheckOptions{Seed: 1, Random: 2})
}

func reflectLab(t *testing.T) *Kernel {
	k, err := Find(testEngine(t), reflectKernel)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// offByOne is reflect's far edge read one element too far in: 2n−1−j
// instead of 2(n−1)−j.
const offByOne = "j = 2 * n - 1 - j;"

// A reflect kernel off by one at the far edge fails, and the verdict
// lists exactly the cells whose value the mistake changes.
func TestOffByOneCellsReported(t *testing.T) {
	device(t)
	k := reflectLab(t)
	rep := Check(device(t), k, mutate(t, k, "j = 2 * (n - 1) - j;", offByOne), CheckOptions{Seed: 1, Random: 2})
	v := rep.Failed
	if v == nil {
		t.Fatal("the off-by-one kernel passed")
	}
	c := v.Case.Call
	x := c.In("x")
	want, _ := ops.Oracle(c)
	mutated := padMutated(x, c.Padding)
	var wrong []int
	for i := range want.NumElems() {
		if want.At(i) != mutated.At(i) {
			wrong = append(wrong, i)
		}
	}
	var got []int
	for _, cl := range v.Cells {
		got = append(got, cl.Index)
		if cl.ULP == "" || cl.WantBits == cl.GotBits || cl.Unwritten {
			t.Errorf("cell %d: %+v", cl.Index, cl)
		}
	}
	if v.Wrong != len(wrong) || !slices.Equal(got, wrong[:min(len(wrong), maxCells)]) {
		t.Errorf("case %d (%s): reported %d wrong cells %v, want %d: %v", v.Case.N, describe(c), v.Wrong, got, len(wrong), wrong)
	}
	if !strings.HasPrefix(v.Why, "wrong values in") {
		t.Errorf("why: %q", v.Why)
	}
}

// padMutated is reflect pad with the far edge off by one, in Go.
func padMutated(x *tensor.Tensor, pads []kernels.Pad) *tensor.Tensor {
	out, _ := kernels.PadOutShape("pad", kernels.Reflect, x.Shape, pads)
	t := tensor.New(x.DType, out)
	es, xs := x.DType.Size(), tensor.Strides(x.Shape)
	for o := range t.NumElems() {
		c := coordOf(o, out)
		src := 0
		for a := range c {
			n, j := x.Shape[a], c[a]-pads[a].Before
			if j < 0 {
				j = -j
			} else if j >= n {
				j = 2*n - 1 - j
			}
			src += j * xs[a]
		}
		copy(t.Data[o*es:(o+1)*es], x.Data[src*es:(src+1)*es])
	}
	return t
}

// An endless loop is stopped by the budget and reported as such, quickly;
// the device is fine for the next check, which passes.
func TestEndlessLoopReported(t *testing.T) {
	device(t)
	k := reflectLab(t)
	src := mutate(t, k, "    if (t >= P.units) {\n        return;\n    }\n",
		"    if (t >= P.units) {\n        return;\n    }\n    var spin = 0u;\n    loop {\n        if (P.n == 0xffffffffu) { break; }\n        spin = spin + 1u;\n    }\n")
	start := time.Now()
	rep := checkWith(t, src)
	if rep.Failed == nil || !strings.HasPrefix(rep.Failed.Why, "timed out: a loop ran past 32768 iterations") {
		t.Fatalf("endless loop: %+v", rep.Failed)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the endless loop took %v to report", d)
	}
	tpl, _ := k.Template()
	if rep := checkWith(t, tpl); rep.Failed != nil {
		t.Errorf("the next check failed: %s", rep.Failed.Why)
	}
}

// A kernel writing past its output is caught by the guard words.
func TestWritePastOutputCaught(t *testing.T) {
	device(t)
	src := mutate(t, reflectLab(t), "    if (t >= P.units) {\n        return;\n    }\n",
		"    if (t == 0u) {\n        out[P.units + 3u] = 7u;\n    }\n    if (t >= P.units) {\n        return;\n    }\n")
	rep := checkWith(t, src)
	if rep.Failed == nil || !strings.HasPrefix(rep.Failed.Why, "wrote past its output: byte ") {
		t.Fatalf("overrun: %+v", rep.Failed)
	}
}

// A kernel that never writes, or writes only some cells, is caught by the
// marker, and the verdict says which.
func TestNeverWritesCaught(t *testing.T) {
	device(t)
	k := reflectLab(t)
	rep := checkWith(t, mutate(t, k, "    if (t >= P.units) {\n        return;\n    }\n", "    if (t >= 0u) {\n        return;\n    }\n"))
	if rep.Failed == nil || !strings.HasPrefix(rep.Failed.Why, "never wrote its output") {
		t.Fatalf("never writes: %+v", rep.Failed)
	}
	rep = checkWith(t, mutate(t, k, "    if (t >= P.units) {\n        return;\n    }\n", "    if (t >= P.units || t % 3u == 1u) {\n        return;\n    }\n"))
	if v := rep.Failed; v == nil || !strings.HasPrefix(v.Why, "never wrote ") || !strings.Contains(v.Why, " of ") || !v.Cells[0].Unwritten {
		t.Fatalf("writes some: %+v", rep.Failed)
	}
}

// A compile error names its line and column in the user's file.
func TestCompileErrorLine(t *testing.T) {
	device(t)
	k := reflectLab(t)
	tpl, _ := k.Template()
	lines := strings.Split(tpl, "\n")
	at := slices.Index(lines, "    var rest = o;")
	lines[at] = "    var rest = o +;"
	rep := checkWith(t, strings.Join(lines, "\n"))
	v := rep.Failed
	if v == nil || v.Compile == nil {
		t.Fatalf("compile error: %+v", v)
	}
	if v.Compile.Line != at+1 || v.Compile.Col != len("    var rest = o +")+1 || v.Compile.Prelude {
		t.Errorf("compile error at %d:%d (%s), want %d:%d", v.Compile.Line, v.Compile.Col, v.Why, at+1, len("    var rest = o +")+1)
	}
	if !strings.Contains(v.Why, "expected expression") {
		t.Errorf("message: %q", v.Why)
	}
}

// The repro of a failing case writes its inputs as .npy files that read
// back as the case's tensors.
func TestReproWritesInputs(t *testing.T) {
	device(t)
	k := reflectLab(t)
	rep := Check(device(t), k, mutate(t, k, "j = 2 * (n - 1) - j;", offByOne), CheckOptions{Seed: 1})
	dir := t.TempDir()
	line, err := Repro(rep.Failed, "mine.wgsl", k.ID, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(line, "fkc run pad --backend vulkan --kernel "+reflectKernel+" --wgsl mine.wgsl") || !strings.Contains(line, "--mode reflect") {
		t.Errorf("repro: %s", line)
	}
	b, err := os.ReadFile(filepath.Join(dir, "x.npy"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := tensor.ReadNpyBytes(b, false)
	if err != nil || !slices.Equal(x.Data, rep.Failed.Case.Call.In("x").Data) {
		t.Errorf("x.npy: %v", err)
	}
}
