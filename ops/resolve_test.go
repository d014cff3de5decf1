package ops

import (
	"fmt"
	"maps"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Negative dims as NumPy and PyTorch take them: every op that takes --dim,
// on random calls along axis a, gives for dim a - rank exactly what it
// gives for a; rank and -rank-1 are refused naming the range; absent stays
// distinct from -1; the flags print back what was written, or the axis once
// resolved; and the caller's call is not changed.
func TestNegativeDims(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, o := range Table {
		if _, ok := o.use(DimFlag.Name); !ok {
			continue
		}
		f := kernels.FormOnly
		if o.Forms != nil {
			f = kernels.FormDim
		}
		for i := 0; i < 8; i++ {
			c := o.Random(rng, f, tensor.F32, 3)
			r := o.Primary(c).Rank()
			d := c.Dim - r
			want, err := o.Oracle(c)
			if err != nil {
				t.Fatalf("%s dim %d: %v", o.Name, c.Dim, err)
			}
			neg := *c
			neg.Dim = d
			got, err := Oracle(&neg)
			if err != nil {
				t.Errorf("%s dim %d of rank %d: %v", o.Name, d, r, err)
				continue
			}
			if !slices.Equal(got.Shape, want.Shape) || string(got.Data) != string(want.Data) {
				t.Errorf("%s dim %d: %s, dim %d: %s", o.Name, d, got, d+r, want)
			}
			rc, notes, err := o.Resolve(&neg)
			if err != nil || rc.Dim != d+r || !slices.Equal(notes, []string{fmt.Sprintf("dim %d → %d", d, d+r)}) {
				t.Errorf("%s dim %d: Resolve %v %v %v", o.Name, d, rc, notes, err)
				continue
			}
			if neg.Dim != d {
				t.Errorf("%s: Resolve changed the caller's dim to %d", o.Name, neg.Dim)
			}
			for _, tc := range []struct {
				c    *kernels.Call
				want int
			}{{&neg, d}, {rc, d + r}} {
				p, err := o.Parse(FormatFlags(tc.c))
				if err != nil || p.Dim != tc.want {
					t.Errorf("%s: flags %q parse to %v, %v; want dim %d", o.Name, FormatFlags(tc.c), p, err, tc.want)
				}
			}
			for _, d := range []int{-r - 1, r} {
				bad := *c
				bad.Dim = d
				want := fmt.Sprintf("%s: dim %d is out of range for %s of rank %d (%d ≤ dim < %d) (contract: dim < %s.rank)", o.Name, d, o.Inputs[0].Name, r, -r, r, o.Inputs[0].Name)
				if _, err := Oracle(&bad); err == nil || err.Error() != want {
					t.Errorf("%s dim %d of rank %d: %v\nwant %s", o.Name, d, r, err, want)
				}
			}
		}
	}
	// NumPy: x.sum(axis=-1), x.sum(axis=-2), x.sum() on [[1,2,3],[4,5,6]].
	x := tensor.New(tensor.F32, []int{2, 3})
	copy(x.F32(), []float32{1, 2, 3, 4, 5, 6})
	for _, tc := range []struct {
		dim  int
		want []float32
		form kernels.Form
	}{{-1, []float32{6, 15}, kernels.FormDim}, {-2, []float32{5, 7, 9}, kernels.FormDim}, {All, []float32{21}, kernels.FormAll}} {
		c := Sum(x, tc.dim)
		got, err := Oracle(c)
		if err != nil || !slices.Equal(got.F32(), tc.want) || sumOp.Variant(&c.Params).Form != tc.form {
			t.Errorf("sum dim %d: %v %v (form %v), want %v", tc.dim, got, err, sumOp.Variant(&c.Params).Form, tc.want)
		}
	}
	// A Go caller's gather without a dim is a usage error, not dim MinInt.
	if _, err := Oracle(Gather(x, RandIndices(rng, []int{2, 3}, 2), All)); err == nil || !strings.Contains(err.Error(), "gather needs --dim D") {
		t.Errorf("gather with no dim: %v", err)
	}
}

// I32 and I64 index operands (NumPy's default integer is int64) are
// converted to U32 once every value is checked: the results equal the U32
// call's bit for bit; a value out of range — too large, negative, or past
// U32 (which would wrap to a small, valid index) — is the U32 path's error
// at the first bad position, with the value as given; and the caller's
// tensors are left as they were.
func TestIndicesConverted(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for _, o := range Table {
		var idx *Operand
		for i := range o.Inputs {
			if o.Inputs[i].Bound != nil {
				idx = &o.Inputs[i]
			}
		}
		if idx == nil {
			continue
		}
		tested := 0
		for i := 0; i < 20 && tested < 4; i++ {
			c := o.Random(rng, kernels.FormOnly, tensor.F32, 3)
			u := c.In(idx.Name)
			if u.NumElems() == 0 {
				continue
			}
			tested++
			want, err := o.Oracle(c)
			if err != nil {
				t.Fatalf("%s: %v", o.Name, err)
			}
			bound, limit := idx.Bound(c)
			for _, dt := range kernels.ConvertedIndexDTypes {
				with := func(vals ...int64) *kernels.Call {
					w := tensor.New(dt, u.Shape)
					for k, v := range u.U32() {
						w.Set(k, float64(v))
					}
					for k, v := range vals {
						w.Set(k, float64(v))
					}
					cc := *c
					cc.Inputs = maps.Clone(c.Inputs)
					cc.Inputs[idx.Name] = w
					return &cc
				}
				cc := with()
				got, err := Oracle(cc)
				if err != nil || !slices.Equal(got.Shape, want.Shape) || string(got.Data) != string(want.Data) {
					t.Errorf("%s %s %s: %v %v, U32 gives %s", o.Name, idx.Name, dt, got, err, want)
				}
				rc, notes, err := o.Resolve(cc)
				if err != nil || rc.In(idx.Name).DType != tensor.U32 || !slices.Equal(notes, []string{idx.Name + " " + dt.String() + " → U32"}) {
					t.Errorf("%s %s: Resolve %v %v", o.Name, dt, notes, err)
				}
				if cc.In(idx.Name).DType != dt {
					t.Errorf("%s: Resolve changed the caller's %s", o.Name, idx.Name)
				}
				// The U32 path's error for a value ≥ the bound at position 0.
				uc := *c
				uc.Inputs = maps.Clone(c.Inputs)
				uu := u.Clone()
				uu.U32()[0] = uint32(bound)
				uc.Inputs[idx.Name] = uu
				_, uerr := o.Oracle(&uc)
				if uerr == nil {
					t.Fatalf("%s: index %d ran", o.Name, bound)
				}
				pos := uerr.Error()[len(o.Name)+2+len(idx.Name):]
				pos = pos[:strings.Index(pos, " = ")]
				big := int64(math.MaxUint32) + 1 + int64(min(1, bound-1)) // wraps to a valid index as a uint32
				for _, tc := range []struct {
					vals []int64
					want string
				}{
					{[]int64{int64(bound)}, uerr.Error()},
					{[]int64{int64(bound), -1}, uerr.Error()}, // the first bad position
					{[]int64{-1}, fmt.Sprintf("%s: %s%s = -1 is out of range (contract: %s < %s = %d): a negative index does not count from the end here", o.Name, idx.Name, pos, idx.Name, limit, bound)},
					{[]int64{big}, fmt.Sprintf("%s: %s%s = %d is out of range (contract: %s < %s = %d)", o.Name, idx.Name, pos, big, idx.Name, limit, bound)},
				} {
					if dt == tensor.I32 && tc.vals[0] > math.MaxInt32 {
						continue
					}
					if _, err := Oracle(with(tc.vals...)); err == nil || err.Error() != tc.want {
						t.Errorf("%s %s %v: %v\nwant %s", o.Name, dt, tc.vals, err, tc.want)
					}
				}
			}
		}
		if tested == 0 {
			t.Errorf("%s: no random call with indices", o.Name)
		}
	}
	// Other dtypes are refused, saying which are taken.
	x := tensor.New(tensor.F32, []int{3})
	_, err := Oracle(IndexSelect(x, tensor.New(tensor.U8, []int{1}), 0))
	if want := "index_select: indices has dtype U8 (contract: indices dtypes [U32]); I32 and I64 indices are accepted too, converted to U32"; err == nil || err.Error() != want {
		t.Errorf("U8 indices: %v", err)
	}
}
