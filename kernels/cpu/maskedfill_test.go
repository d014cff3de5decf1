package cpu

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

func TestMaskedFillHandWorked(t *testing.T) {
	x := mk(tensor.F32, []int{2, 3}, 1, 2, 3, 4, 5, 6)
	mask := mk(tensor.BOOL, []int{2, 3}, 1, 0, 0, 0, 1, 1)
	mask.Data[5] = 7 // any nonzero byte selects the fill
	check := guard(t, x, mask)
	got, err := MaskedFill(x, mask, tensor.Encode(tensor.F32, -1))
	check()
	wantVals(t, got, err, []int{2, 3}, -1, 2, 3, 4, -1, -1)

	got, err = MaskedFill(mk(tensor.F64, []int{}, 3), mk(tensor.BOOL, []int{}, 1), tensor.Encode(tensor.F64, negZero))
	wantVals(t, got, err, []int{}, negZero)

	got, err = MaskedFill(mk(tensor.I16, []int{0, 4}), mk(tensor.BOOL, []int{0, 4}), tensor.Encode(tensor.I16, 1))
	wantVals(t, got, err, []int{0, 4})
}

// Every element width, random data and masks, against the prose.
func TestMaskedFillRandom(t *testing.T) { atThreads(t, testMaskedFillRandom) }

func testMaskedFillRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for iter := 0; iter < 500; iter++ {
		dt := tensor.All[rng.Intn(len(tensor.All))]
		shape := randShape(rng, rng.Intn(5), 7)
		x := randTensor(rng, dt, shape)
		mask := tensor.New(tensor.BOOL, shape)
		for i := range mask.Data {
			if rng.Intn(3) == 0 {
				mask.Data[i] = byte(1 + rng.Intn(255))
			}
		}
		fill := make([]byte, dt.Size())
		rng.Read(fill)
		check := guard(t, x, mask)
		got, err := MaskedFill(x, mask, fill)
		check()
		if err != nil {
			t.Fatal(err)
		}
		es := dt.Size()
		for i, m := range mask.Data {
			want := x.Data[i*es : (i+1)*es]
			if m != 0 {
				want = fill
			}
			if !bytes.Equal(got.Data[i*es:(i+1)*es], want) {
				t.Fatalf("%s %v: element %d wrong", dt, shape, i)
			}
		}
	}
}

func TestMaskedFillErrors(t *testing.T) {
	x := mk(tensor.F32, []int{2, 2}, 1, 2, 3, 4)
	f := tensor.Encode(tensor.F32, 0)
	cases := []struct {
		name      string
		x, mask   *tensor.Tensor
		fill      []byte
		fragments []string
	}{
		{"mask dtype", x, mk(tensor.U8, []int{2, 2}, 0, 1, 0, 1), f, []string{"masked_fill: mask has dtype U8 (contract: mask dtypes [BOOL])"}},
		{"broadcast", x, mk(tensor.BOOL, []int{2}, 0, 1), f, []string{"mask shape [2] differs from input shape [2 2]", "no broadcasting"}},
		{"same count other shape", x, mk(tensor.BOOL, []int{4}, 0, 1, 0, 1), f, []string{"mask shape [4] differs"}},
		{"fill width", x, mk(tensor.BOOL, []int{2, 2}, 0, 1, 0, 1), []byte{0}, []string{"fill value has 1 bytes but F32 elements have 4"}},
		{"nil mask", x, nil, f, []string{"mask is missing"}},
		{"short mask", x, &tensor.Tensor{DType: tensor.BOOL, Shape: []int{2, 2}, Data: []byte{1}}, f, []string{"mask BOOL[2 2] holds 1 bytes, want 4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := MaskedFill(c.x, c.mask, c.fill)
			wantErr(t, err, c.fragments...)
		})
	}
}
