package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

// The conventions NumPy and PyTorch users bring, on files NumPy itself
// wrote (testdata/numpy/gen.py): int64 (<i8) and int32 (<i4) index files
// are converted to U32, negative dims count from the end, and the outputs
// are NumPy's answers bit for bit; the run line says what was converted.
func TestRunNumPyConventions(t *testing.T) {
	fix := func(name string) string { return filepath.Join("testdata", "numpy", name) }
	for _, tc := range []struct {
		args       []string
		want, line string // the expected .npy and stderr line
	}{
		{[]string{"index_select", "--dim", "0", "-i", "data=" + fix("data.npy"), "-i", "indices=" + fix("rows_i8.npy")},
			"want_index_select.npy", "kernel index_select_tensor (fuel-reference-backend, Cpu); indices I64 → U32"},
		{[]string{"gather", "--dim", "-1", "-i", "data=" + fix("data.npy"), "-i", "indices=" + fix("cols_i4.npy")},
			"want_gather_last.npy", "kernel gather (fuel-reference-backend, Cpu); dim -1 → 1; indices I32 → U32"},
		{[]string{"sum", "--dim=-1", "-i", "x=" + fix("data.npy")},
			"want_sum_last.npy", "kernel sum_dim (fuel-reference-backend, Cpu); dim -1 → 1"},
		{[]string{"argmax", "--dim", "-2", "-i", "x=" + fix("data.npy")},
			"want_argmax_first.npy", "kernel argmax_dim (fuel-reference-backend, Cpu); dim -2 → 0"},
	} {
		out := filepath.Join(t.TempDir(), "out.npy")
		code, _, stderr := runMain(append(append([]string{"run"}, tc.args...), "-o", out)...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, stderr)
			continue
		}
		if got := strings.TrimSpace(stderr); got != tc.line {
			t.Errorf("%v: stderr %q, want %q", tc.args, got, tc.line)
		}
		got, want := readNpy(t, out), readNpy(t, fix(tc.want))
		if got.DType != want.DType || !slices.Equal(got.Shape, want.Shape) || string(got.Data) != string(want.Data) {
			t.Errorf("%v: %s %v, NumPy says %s %v", tc.args, got, got.Data, want, want.Data)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		// NumPy's take would wrap -1 to the last row; PyTorch's index_select
		// refuses it, as the contract does: said with the value as given
		{[]string{"index_select", "--dim", "0", "-i", "data=" + fix("data.npy"), "-i", "indices=" + fix("rows_neg_i8.npy")},
			"fkc: index_select: indices[1] = -1 is out of range (contract: indices < data.shape[dim] = 3): a negative index does not count from the end here"},
		{[]string{"sum", "--dim", "-3", "-i", "x=" + fix("data.npy")},
			"fkc: sum: dim -3 is out of range for x of rank 2 (-2 ≤ dim < 2) (contract: dim < x.rank)"},
		{[]string{"gather", "--dim", "2", "-i", "data=" + fix("data.npy"), "-i", "indices=" + fix("cols_i4.npy")},
			"fkc: gather: dim 2 is out of range for data of rank 2 (-2 ≤ dim < 2) (contract: dim < data.rank)"},
	} {
		out := filepath.Join(t.TempDir(), "out.npy")
		code, _, stderr := runMain(append(append([]string{"run"}, tc.args...), "-o", out)...)
		if code != 1 || strings.TrimSpace(stderr) != tc.want {
			t.Errorf("%v: exit %d, %q; want exit 1, %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", tc.args, out)
		}
	}
}

func readNpy(t *testing.T, path string) *tensor.Tensor {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	x, err := tensor.ReadNpyBytes(b, false)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return x
}
