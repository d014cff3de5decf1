//go:build !js

package gpu

import (
	"testing"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// LastKernelTime comes from GPU timestamps around the compute passes: on an
// adapter with timestamp-query it is positive and no longer than the
// end-to-end LastGPUTime (submit -> results mapped).
func TestLastKernelTime(t *testing.T) {
	d := device(t)
	if d.Info().TimestampTickNs == 0 {
		t.Skip("adapter has no timestamp queries")
	}
	x := tensor.New(tensor.F32, []int{64, 256})
	if _, err := d.Pad(x, kernels.Reflect, pp(0, 0, 2, 2), nil); err != nil {
		t.Fatal(err)
	}
	k, e2e := d.LastKernelTime(), d.LastGPUTime()
	t.Logf("kernel %v, end-to-end %v, tick %g ns", k, e2e, d.Info().TimestampTickNs)
	if k <= 0 || k > e2e {
		t.Fatalf("LastKernelTime %v: want 0 < kernel <= end-to-end %v", k, e2e)
	}
}
