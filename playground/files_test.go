package playground

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// npyOf is t as the writer fkc run uses encodes it.
func npyOf(t *testing.T, x *tensor.Tensor) []byte {
	t.Helper()
	b, err := tensor.NpyBytes(x)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A Try-it input read from a .npy file: the run uses the file's values,
// shape and dtype; the command line, the peer programs and the downloads
// name the file; a share link names it and, opened, asks for it at its
// field instead of running something else.
func TestTryFileInput(t *testing.T) {
	s := site(t)
	p, err := s.KernelPage("fuel-cpu-backend/pad", nil)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.F64, []int{2, 3})
	for i := range x.NumElems() {
		x.Set(i, float64(10*i)+0.5)
	}
	form := map[string]string{"mode": "reflect", "padding": "1:1,2:2",
		"x.shape": "2,3", "x.dtype": "F64", "x.kind": "file", "x.file": "my x.npy"}
	cs := FromForm(p.Row, form)
	if g := cs.Inputs["x"]; g.Kind != "file" || g.File != "my x.npy" {
		t.Fatalf("the form's file input reads as %+v", g)
	}
	if got, want := CLILine(cs, ""), `$ fkc run pad --mode reflect --padding 1:1,2:2 -i x='my x.npy' -o out.npy`; got != want {
		t.Errorf("command line %q, want %q", got, want)
	}
	peers := CasePeers(cs)
	if !strings.Contains(peers.NumPy, `np.load("my x.npy")`) || !strings.Contains(peers.Torch, `np.load("my x.npy")`) || !strings.Contains(peers.NumPy, "-i x='my x.npy'") {
		t.Errorf("the peer programs do not read the file:\n%s\n%s", peers.NumPy, peers.Torch)
	}
	if got := FileInputs(cs); len(got) != 1 || got[0] != "x (from my x.npy)" {
		t.Errorf("FileInputs %q", got)
	}

	// Without the bytes (a share link): the run asks for the file at its field.
	q, err := url.ParseQuery(ShareQuery(cs, []string{"cpu"}))
	if err != nil {
		t.Fatal(err)
	}
	if q.Get("x") != "2,3|F64|file|my x.npy" {
		t.Errorf("the share link's x is %q", q.Get("x"))
	}
	lp, err := s.KernelPage("fuel-cpu-backend/pad", q)
	if err != nil {
		t.Fatal(err)
	}
	r := s.Try(lp.Row, lp.Try.Case, []string{"cpu"}, fixedClock{}, noLock)
	if r.ErrField != "x.file" || !strings.Contains(r.Err, "my x.npy is not loaded in this page") || !strings.Contains(r.Err, "cannot carry it") {
		t.Errorf("a link's file input ran: err %q at %q", r.Err, r.ErrField)
	}
	html, err := Render("kernel", lp)
	if err != nil || !strings.Contains(html, "my x.npy: not loaded in this page") {
		t.Errorf("the linked page does not say the file is not loaded (%v)", err)
	}

	// With the bytes: the file's tensor is run, whatever the form's shape said.
	g := cs.Inputs["x"]
	g.Data, g.Shape = npyOf(t, x), "9,9"
	cs.Inputs["x"] = g
	r = s.Try(p.Row, cs, []string{"cpu"}, fixedClock{}, noLock)
	if r.Err != "" || len(r.Runs) != 1 || r.Runs[0].Error != "" {
		t.Fatalf("run: %q %+v", r.Err, r.Runs)
	}
	if in := r.Inputs["x"]; in.DType != tensor.F64 || !bytes.Equal(in.Data, x.Data) {
		t.Errorf("the run's x is %s%v, not the file's", in.DType, in.Shape)
	}
	if out := r.Runs[0].Out; out.DType != tensor.F64 || out.Shape[0] != 4 || out.Shape[1] != 7 || out.F64()[0] != 50.5 {
		t.Errorf("out %s%v %v", out.DType, out.Shape, out.F64())
	}
	name, b, err := r.FileOf("", "cpu")
	if err != nil || name != "out.npy" || !bytes.Equal(b, npyOf(t, r.Runs[0].Out)) {
		t.Errorf("the output's download: %q, %d bytes, %v", name, len(b), err)
	}
	if name, b, err := r.FileOf("x", ""); err != nil || name != "my x.npy" || !bytes.Equal(b, npyOf(t, x)) {
		t.Errorf("the input's download: %q, %d bytes, %v", name, len(b), err)
	}
	if _, _, err := r.FileOf("", "webgpu"); err == nil {
		t.Error("a backend that did not run has an output to download")
	}

	// A bad file: the reader's error, at the file's field.
	g.Data = append([]byte("\x93NUMPY\x01\x00"), "garbage"...)
	cs.Inputs["x"] = g
	r = s.Try(p.Row, cs, []string{"cpu"}, fixedClock{}, noLock)
	if r.ErrField != "x.file" || !strings.HasPrefix(r.Err, "input x: file my x.npy: npy: ") {
		t.Errorf("a bad file: err %q at %q", r.Err, r.ErrField)
	}
}

// A "file" generator reads as `fkc run -i` does: a <u2 file only with
// dtype BF16 (the reader's own words otherwise); no file, or one past the
// page's cap, is a clear error.
func TestFileGen(t *testing.T) {
	bits := tensor.New(tensor.BF16, []int{3})
	bits.Set(0, 1.5)
	b := npyOf(t, bits) // <u2
	if _, err := (ops.Gen{Kind: "file", File: "b.npy", Data: b, DType: "F32"}).Make(); err == nil || !strings.Contains(err.Error(), "'<u2' (uint16) is not supported") {
		t.Errorf("a <u2 file read as F32: %v", err)
	}
	got, err := ops.Gen{Kind: "file", File: "b.npy", Data: b, DType: "BF16"}.Make()
	if err != nil || got.DType != tensor.BF16 || !bytes.Equal(got.Data, bits.Data) {
		t.Errorf("a <u2 file read as BF16: %v %v", got, err)
	}
	if _, err := (ops.Gen{Kind: "file"}).Make(); err == nil || !strings.Contains(err.Error(), "no .npy file chosen") {
		t.Errorf("no file: %v", err)
	}
	if _, err := (ops.Gen{Kind: "file", File: "big.npy", Data: make([]byte, ops.MaxFileBytes+1)}).Make(); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("a file past the cap: %v", err)
	}
	// A BF16 input's file is <u2 bits: the command line says --dtype bf16.
	cs := ops.Case{Op: "sum", Flags: []string{"--dim", "0"}, Order: []string{"x"}, Inputs: map[string]ops.Gen{"x": {Shape: "3", DType: "BF16"}}}
	if got := CLILine(cs, ""); got != "$ fkc run sum --dim 0 --dtype bf16 -i x=x.npy -o out.npy" {
		t.Errorf("a BF16 input's command line: %q", got)
	}
	if dg := DecodeGen(EncodeGen(ops.Gen{Shape: "2", DType: "F32", Kind: "file", File: "a|b.npy"})); dg.Kind != "file" || dg.File != "a|b.npy" {
		t.Errorf("a file name with | round-trips as %+v", dg)
	}
}
