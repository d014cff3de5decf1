package ops

import (
	"strings"
	"testing"
)

// A values fill reads the tensor's first n values and no more (a share
// link holding a million for a 10x10 input made the page parse them all,
// 0.6 s a Make natively, seconds in the tab); values past n are ignored as
// before, fewer repeat cyclically, and a bad one among the first n is an
// error.
func TestValuesReadsWhatTheTensorTakes(t *testing.T) {
	many := strings.Repeat("1.5, ", 1_000_000) + "zz"
	g := Gen{Shape: "2,2", DType: "F32", Kind: "values", Values: "1 [2] 3,4," + many}
	x, err := g.Make()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{1, 2, 3, 4} {
		if x.At(i) != want {
			t.Errorf("element %d = %v, want %v", i, x.At(i), want)
		}
	}
	if got, _ := (Gen{Shape: "5", DType: "F32", Kind: "values", Values: " 7,\t8 "}).Make(); got == nil || got.At(2) != 7 || got.At(4) != 7 {
		t.Errorf("cyclic repeat: %v", got)
	}
	if _, err := (Gen{Shape: "3", DType: "F32", Kind: "values", Values: "1 zz 3"}).Make(); err == nil || !strings.Contains(err.Error(), `"zz" is not a number`) {
		t.Errorf("a bad value among the first n: %v", err)
	}
	vals, err := ParseValues("1, true false ,, nan -inf")
	if err != nil || len(vals) != 5 || vals[1].Float64() != 1 || vals[2].Float64() != 0 {
		t.Errorf("ParseValues: %v %v", vals, err)
	}
}

func BenchmarkValuesLink(b *testing.B) {
	g := Gen{Shape: "10,10", DType: "F32", Kind: "values", Values: strings.Repeat("1.5,", 1_000_000)}
	for b.Loop() {
		if _, err := g.Make(); err != nil {
			b.Fatal(err)
		}
	}
}

// The page's typed values are rounded once from their text, as a --value
// is: F16 2049.0000001 is 2050 (0x6801), NumPy's np.float16; through f32
// it became 2048.
func TestValuesRoundOnce(t *testing.T) {
	x, err := (Gen{Shape: "3", DType: "F16", Kind: "values", Values: "2049.0000001, 1.0004882813, 2049"}).Make()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []uint16{0x6801, 0x3C01, 0x6800} {
		if got := x.U16()[i]; got != want {
			t.Errorf("value %d: %#04x, want %#04x", i, got, want)
		}
	}
}
