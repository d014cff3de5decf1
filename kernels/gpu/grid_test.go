//go:build !js

package gpu

import (
	"math/rand"
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/cpu"
	"github.com/fkc-playground/fkc/tensor"
)

// TestTwoDimensionalGrid lowers the device's per-dimension workgroup limit
// so that ordinary sizes need the 2-D grid split (x = limit, y = ceil(g/limit),
// tail workgroups idle) and checks the results are unchanged.
func TestTwoDimensionalGrid(t *testing.T) {
	d := device(t)
	saved := d.info.MaxComputeWorkgroupsPerDimension
	lim := func(n uint32) { d.info.MaxComputeWorkgroupsPerDimension = n }
	lim(7)
	defer func() { d.info.MaxComputeWorkgroupsPerDimension = saved }()
	r := rand.New(rand.NewSource(20))

	x := randTensor(r, tensor.F16, []int{61, 157}) // 10k outputs, 20+ workgroups
	f := []byte{1, 2}
	want, _ := cpu.Pad(x, kernels.Reflect, pp(3, 2, 5, 7), f)
	got, err := d.Pad(x, kernels.Reflect, pp(3, 2, 5, 7), f)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "pad_reflect_b2 on a 2-D grid", got, want)

	y := specialFloat(r, tensor.F32, []int{300, 70}, false)
	lim(19) // 300 workgroups -> 19 x 16
	wantM, _ := cpu.MaxDim(y, 1)
	gotM, err := d.MaxDim(y, 1)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "max_dim on a 2-D grid", gotM, wantM)
	lim(5) // 21 workgroups -> 5 x 5
	wantA, _ := cpu.MaxAll(y)
	gotA, err := d.MaxAll(y) // 21 level-0 workgroups
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "max_all on a 2-D grid", gotA, wantA)

	lim(50) // 1368 workgroups -> 50 x 28
	idx := randIdx(r, []int{5000}, 300)
	wantI, _ := cpu.IndexSelect(y, idx, 0)
	gotI, err := d.IndexSelect(y, idx, 0)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "index_select on a 2-D grid", gotI, wantI)
}
