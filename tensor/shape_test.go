package tensor

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestCheckShapeBounds: every accepted shape has an element count, and
// strides, that fit MaxElems — whatever the order of its axes and whether
// it is empty; every refused one is refused with a message naming why.
func TestCheckShapeBounds(t *testing.T) {
	const M = 1 << 31 // MaxElems
	big := 1 << 40
	cases := []struct {
		shape []int
		want  string // "" = accepted
	}{
		{[]int{}, ""},
		{[]int{0}, ""},
		{[]int{M}, ""},
		{[]int{1, M, 1}, ""},
		{[]int{0, M}, ""},
		{[]int{M, 0}, ""},
		{[]int{2, M / 2, 0}, ""},
		{[]int{M + 1}, "more than 2147483648 elements"},
		{[]int{2, M/2 + 1}, "more than 2147483648 elements"},
		{[]int{math.MaxInt, math.MaxInt}, "more than"},
		{[]int{1 << 32, 1 << 32}, "more than"}, // the product wraps to 0 in int64
		{[]int{0, big, big}, "non-empty axes multiply"},
		{[]int{big, big, 0}, "non-empty axes multiply"},
		{[]int{big, 0, big}, "non-empty axes multiply"},
		{[]int{0, M + 1}, "non-empty axes multiply"},
		{[]int{M + 1, 0}, "non-empty axes multiply"},
		{[]int{-1}, "negative size"},
		{[]int{3, math.MinInt}, "negative size"},
	}
	for _, c := range cases {
		err := CheckShape(c.shape)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.shape, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: got %v, want an error containing %q", c.shape, err, c.want)
		case err == nil:
			for i, s := range Strides(c.shape) {
				if s < 0 || s > M {
					t.Errorf("%v: stride %d = %d escapes [0, MaxElems]", c.shape, i, s)
				}
			}
			if n := NumElems(c.shape); n < 0 || n > M {
				t.Errorf("%v: %d elements", c.shape, n)
			}
		}
	}
}

func TestParseShapeRefusesOverflow(t *testing.T) {
	for _, s := range []string{"9223372036854775808", "4294967296,4294967296", "0,1099511627776,1099511627776", "-1"} {
		if _, err := ParseShape(s); err == nil {
			t.Errorf("ParseShape(%q) accepted", s)
		}
	}
	// a dimension past the integer range is named so (it said "is not a
	// whole number")
	if _, err := ParseShape("2,99999999999999999999"); err == nil || !strings.Contains(err.Error(), `"99999999999999999999" is out of range`) {
		t.Errorf("ParseShape of a dimension past int64: %v", err)
	}
	if _, err := ParseShape("2,-99999999999999999999"); err == nil || !strings.Contains(err.Error(), "axis 1 has negative size -99999999999999999999") {
		t.Errorf("ParseShape of a dimension below int64: %v", err)
	}
}

// A shape of more axes than NumPy allows is refused (an output NumPy
// cannot load was written before), and the message names the rank, not
// the thousands of axes.
func TestCheckShapeRank(t *testing.T) {
	ones := func(n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = 1
		}
		return s
	}
	if err := CheckShape(ones(MaxRank)); err != nil {
		t.Errorf("rank %d: %v", MaxRank, err)
	}
	for _, n := range []int{MaxRank + 1, 400000} {
		err := CheckShape(ones(n))
		if err == nil || len(err.Error()) > 100 || !strings.Contains(err.Error(), "more than 64 axes") {
			t.Errorf("rank %d: %v", n, err)
		}
	}
}

// A dtype that is none of the constants is refused: New panics, as on a
// bad shape (callers validate), and FromBytes says so (both returned a
// tensor of 0 bytes).
func TestInvalidDType(t *testing.T) {
	if _, err := FromBytes(DType(99), []int{4}, nil); err == nil || !strings.Contains(err.Error(), "invalid dtype 99") {
		t.Errorf("FromBytes: %v", err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "invalid dtype 99") {
			t.Errorf("New: recovered %v", r)
		}
	}()
	New(DType(99), []int{4})
}
