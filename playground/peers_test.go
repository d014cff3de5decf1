package playground

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// peerTestCase is one call whose peer programs are run.
type peerTestCase struct {
	name string
	call *kernels.Call
}

// peerCases are every op's Example on every form (F32), and calls that
// take the other paths: rank 3, dtypes torch loads differently (U32 as
// int64, BF16 as bits) or pads only through float64, a negative dim.
func peerCases(t *testing.T) []peerTestCase {
	var out []peerTestCase
	for _, o := range ops.Table {
		forms := o.Forms
		if forms == nil {
			forms = []kernels.Form{kernels.FormOnly}
		}
		for _, f := range forms {
			for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
				c, gens := o.Example(f, dt)
				c.Inputs = map[string]*tensor.Tensor{}
				for i, n := range o.InputNames() {
					x, err := gens[i].Make()
					if err != nil {
						t.Fatalf("%s/%s: %v", o.Name, f, err)
					}
					c.Inputs[n] = x
				}
				out = append(out, peerTestCase{fmt.Sprintf("%s/%s/%s", o.Name, f, dt), c})
			}
		}
	}
	small := func(dt tensor.DType, shape ...int) *tensor.Tensor {
		x := tensor.New(dt, shape)
		for i := range x.NumElems() {
			x.Set(i, float64((i*7)%11))
		}
		return x
	}
	pads3 := []kernels.Pad{{Before: 1, After: 0}, {Before: 2, After: 1}, {Before: 0, After: 3}}
	for _, pm := range kernels.PadModes {
		for _, dt := range []tensor.DType{tensor.U32, tensor.F16, tensor.BF16, tensor.U8} {
			c := ops.Pad(small(dt, 2, 3, 4), pm.Mode, pads3...)
			if pm.Mode == kernels.Constant {
				c.Fill = tensor.IntScalar(7)
			}
			out = append(out, peerTestCase{fmt.Sprintf("pad/%s/%s/rank3", pm.Name, dt), c})
		}
		g, err := kernels.PadOutShape("pad", pm.Mode, []int{2, 3, 4}, pads3)
		if err != nil {
			t.Fatal(err)
		}
		for _, dt := range []tensor.DType{tensor.F32, tensor.F16} {
			out = append(out, peerTestCase{fmt.Sprintf("pad_backward/%s/%s/rank3", pm.Name, dt), ops.PadBackward(small(dt, g...), pm.Mode, pads3...)})
		}
	}
	out = append(out,
		peerTestCase{"max/dim-1/F16", ops.Max(small(tensor.F16, 3, 4), -1)},
		peerTestCase{"argmin/dim0/F32", ops.ArgMin(small(tensor.F32, 3, 4), 0)},
		peerTestCase{"masked_fill/BF16", ops.MaskedFill(small(tensor.BF16, 2, 3), maskOf(2, 3), tensor.FloatScalar(-2.5))},
		peerTestCase{"index_select/BF16", ops.IndexSelect(small(tensor.BF16, 4, 3), idxOf(2, 0, 3, 3), 0)},
		peerTestCase{"reduce_max_to_backward/ties", ops.ReduceMaxToBackward(tiesOf(), small(tensor.F32, 1, 4), []int{1, 4})},
	)
	return out
}

func maskOf(shape ...int) *tensor.Tensor {
	m := tensor.New(tensor.BOOL, shape)
	for i := range m.NumElems() {
		m.Set(i, float64(i%2))
	}
	return m
}

func idxOf(v ...int) *tensor.Tensor {
	x := tensor.New(tensor.U32, []int{len(v)})
	for i, n := range v {
		x.Set(i, float64(n))
	}
	return x
}

func tiesOf() *tensor.Tensor {
	x := tensor.New(tensor.F32, []int{3, 4})
	for i, v := range []float64{1, 2, 2, 0, 1, 2, 1, 0, 1, 0, 2, 0} {
		x.Set(i, v)
	}
	return x
}

// TestPeerCode runs the NumPy and PyTorch programs PeerCode writes, on the
// .npy inputs of every case, and holds each saved out.npy to the CPU
// kernel's output bit for bit. A library with no peer for a case must say
// why; every op of the table has a writer.
func TestPeerCode(t *testing.T) {
	for _, o := range ops.Table {
		if _, ok := peerWriters[o.Name]; !ok {
			t.Errorf("op %s has no peer writer", o.Name)
		}
	}
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3: the peer programs cannot be run here")
	}
	if out, err := exec.Command(py, "-c", "import numpy, torch").CombinedOutput(); err != nil {
		t.Skipf("python3 lacks numpy or torch: %s", out)
	}
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	type job struct {
		name, dir string
		want      *tensor.Tensor
	}
	var jobs []job
	ran := map[string]int{}
	for i, pc := range peerCases(t) {
		res, err := eng.Run(engine.CPU, pc.call)
		if err != nil {
			t.Fatalf("%s: the CPU refuses the case: %v", pc.name, err)
		}
		p := PeerCode(PeerOf(pc.call))
		for lib, prog := range map[string]string{"numpy": p.NumPy, "torch": p.Torch} {
			why := map[string]string{"numpy": p.NoNumPy, "torch": p.NoTorch}[lib]
			if why != "" {
				if !strings.Contains(prog, why) {
					t.Errorf("%s: the %s program does not say why it has no peer (%s):\n%s", pc.name, lib, why, prog)
				}
				t.Logf("%s: no %s peer: %s", pc.name, lib, why)
				continue
			}
			dir := filepath.Join(root, fmt.Sprintf("%03d-%s", i, lib))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for n, x := range pc.call.Inputs {
				b, err := tensor.NpyBytes(x)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(dir, n+".npy"), b, 0o644)
			}
			os.WriteFile(filepath.Join(dir, "peer.py"), []byte(prog), 0o644)
			jobs = append(jobs, job{pc.name + " (" + lib + ")", dir, res.Out})
			ran[lib]++
		}
	}
	// One interpreter runs every program, each in its own directory (an
	// interpreter per program spends seconds importing torch each time).
	var dirs bytes.Buffer
	for _, j := range jobs {
		dirs.WriteString(j.dir + "\n")
	}
	driver := `import os, sys, traceback
for d in sys.stdin.read().split():
    os.chdir(d)
    try:
        exec(compile(open("peer.py").read(), d + "/peer.py", "exec"), {"__name__": "__main__"})
    except Exception:
        open("error.txt", "w").write(traceback.format_exc())
`
	cmd := exec.Command(py, "-W", "ignore", "-c", driver)
	cmd.Stdin = &dirs
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	for _, j := range jobs {
		if e, err := os.ReadFile(filepath.Join(j.dir, "error.txt")); err == nil {
			prog, _ := os.ReadFile(filepath.Join(j.dir, "peer.py"))
			t.Errorf("%s: the program failed:\n%s\n%s", j.name, prog, e)
			continue
		}
		b, err := os.ReadFile(filepath.Join(j.dir, "out.npy"))
		if err != nil {
			t.Errorf("%s: no out.npy: %v", j.name, err)
			continue
		}
		got, err := tensor.ReadNpyBytes(b, j.want.DType == tensor.BF16)
		if err != nil {
			t.Errorf("%s: out.npy: %v", j.name, err)
			continue
		}
		if got.DType != j.want.DType || !slices.Equal(got.Shape, j.want.Shape) || !bytes.Equal(got.Data, j.want.Data) {
			prog, _ := os.ReadFile(filepath.Join(j.dir, "peer.py"))
			t.Errorf("%s: the peer saved %s%v %v; the CPU kernel gives %s%v %v\n%s", j.name, got.DType, got.Shape, head(got), j.want.DType, j.want.Shape, head(j.want), prog)
		}
	}
	t.Logf("ran %d NumPy and %d PyTorch programs", ran["numpy"], ran["torch"])
}

func head(t *tensor.Tensor) []string {
	var out []string
	for i := 0; i < t.NumElems() && i < 12; i++ {
		out = append(out, Format(t, i))
	}
	return out
}

// The programs name the modes as the other libraries do, and say where
// these contracts differ.
func TestPeerCodeNames(t *testing.T) {
	x := tensor.New(tensor.F32, []int{4, 5})
	for _, c := range []struct {
		call       *kernels.Call
		np, torch  string
		noTorchHas string
	}{
		{ops.Pad(x, kernels.Replicate, kernels.Pad{Before: 1, After: 1}, kernels.Pad{Before: 2, After: 2}), `mode="edge"`, `mode="replicate"`, ""},
		{ops.Pad(x, kernels.Circular, kernels.Pad{Before: 1, After: 1}, kernels.Pad{Before: 6, After: 6}), `mode="wrap"`, "PyTorch refuses a circular pad wider than its axis", ""},
		{ops.Pad(x, kernels.Symmetric, kernels.Pad{Before: 1, After: 1}, kernels.Pad{Before: 2, After: 2}), `mode="symmetric"`, "", "no symmetric mode"},
		{ops.Max(x, 1), "skip NaN", "skip NaN", ""},
		{ops.ArgMax(x, 1), "skip NaN", "skip NaN", ""},
		{ops.Sum(tensor.New(tensor.BF16, []int{3}), kernels.NoDim), "bf16 has no NumPy dtype", "torch.sum(x)", ""},
		{ops.IndexSelect(x, idxOf(1, 2), 0), "np.take", ".astype(np.int64)", ""},
	} {
		p := PeerCode(PeerOf(c.call))
		if !strings.Contains(p.NumPy, c.np) {
			t.Errorf("%s: the NumPy program lacks %q:\n%s", c.call.Op, c.np, p.NumPy)
		}
		if c.torch != "" && !strings.Contains(p.Torch, c.torch) {
			t.Errorf("%s: the PyTorch program lacks %q:\n%s", c.call.Op, c.torch, p.Torch)
		}
		if c.noTorchHas != "" && !strings.Contains(p.NoTorch, c.noTorchHas) {
			t.Errorf("%s: no PyTorch reason %q, got %q", c.call.Op, c.noTorchHas, p.NoTorch)
		}
	}
}
