package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// FuzzRunFlags throws arbitrary flags at every op of `fkc run` and holds
// the command to its exit-status contract (SPEC §5): 0 with one "kernel …"
// line, 1 with one "fkc: …" line (a contract violation), or 2 with one
// "fkc: …" line (a usage error) — never a panic, never a second line —
// or, asked for -h or --help, 0 with the usage on stdout.
// fuzzConfig keeps outputs small: a wide pad is checked against the limit,
// not allocated.
var fuzzConfig = Config{Limits: engine.Limits{MaxElems: 1 << 16}}

func FuzzRunFlags(f *testing.F) {
	for _, seed := range []string{
		"--mode reflect --padding 1:1,1:1", "--mode constant --padding 9223372036854775807:9223372036854775806",
		"--dim 1", "--dim 1.5", "--value 1e10", "--value -9007199254740993", "--padding 1:1:7", "--shape 1,3",
		"--mode=replicate --padding=0:4294967296,1:1", "--dtype bf16 --dim 0", "--value", "",
	} {
		for i := range ops.Table {
			f.Add(uint8(i), seed)
		}
	}
	dir := f.TempDir()
	x := tensor.New(tensor.F32, []int{2, 3})
	copy(x.F32(), []float32{1, 2, 3, 4, 5, 6})
	mask := tensor.New(tensor.BOOL, []int{2, 3})
	idx := tensor.New(tensor.U32, []int{2, 3})
	files := map[string]string{}
	for name, t := range map[string]*tensor.Tensor{"x": x, "grad_out": x, "data": x, "base": x, "src": x, "table": x, "upstream": x, "mask": mask, "indices": idx, "ids": idx} {
		p := filepath.Join(dir, name+".npy")
		var b bytes.Buffer
		if err := tensor.WriteNpy(&b, t); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			f.Fatal(err)
		}
		files[name] = p
	}
	out := filepath.Join(dir, "out.npy")
	f.Fuzz(func(t *testing.T, which uint8, flags string) {
		o := ops.Table[int(which)%len(ops.Table)]
		args := []string{"run", o.Name}
		for _, in := range o.Inputs {
			args = append(args, "-i", in.Name+"="+files[in.Name])
		}
		args = append(append(args, "-o", out), strings.Fields(flags)...)
		var so, se bytes.Buffer
		code := Main(args, &so, &se, fuzzConfig)
		lines := strings.Split(strings.TrimRight(se.String(), "\n"), "\n")
		switch {
		case code == 0 && len(lines) == 1 && strings.HasPrefix(lines[0], "kernel "):
		case code == 0 && se.Len() == 0 && strings.HasPrefix(so.String(), "usage: fkc run ") && (slices.Contains(args, "-h") || slices.Contains(args, "--help")):
			// -h or --help after the op asks for the usage
		case (code == 1 || code == 2) && len(lines) == 1 && strings.HasPrefix(lines[0], "fkc: "):
		default:
			t.Fatalf("%q: exit %d, stderr %q", args, code, se.String())
		}
	})
}
