//go:build !js

package gpu

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

var (
	devOnce sync.Once
	testDev *Device
	devErr  error
)

// device returns the shared test device, or skips with the reason when the
// machine has no Vulkan adapter (e.g. no Mesa lavapipe installed).
func device(t testing.TB) *Device {
	t.Helper()
	devOnce.Do(func() {
		testDev, devErr = OpenNative()
		if devErr == nil {
			testDev.poisonBodies = true // every overwritten output starts as poison
			fmt.Fprintf(os.Stderr, "gpu tests on: %s\n", testDev)
		}
	})
	if devErr != nil {
		if strings.HasPrefix(devErr.Error(), "no Vulkan adapter found") {
			t.Skipf("GPU tests skipped: %v", devErr)
		}
		t.Fatalf("opening the Vulkan device: %v", devErr)
	}
	return testDev
}

func randTensor(r *rand.Rand, dt tensor.DType, shape []int) *tensor.Tensor {
	x := tensor.New(dt, shape)
	r.Read(x.Data)
	return x
}

// randFloat fills a float tensor with values in [-scale, scale).
func randFloat(r *rand.Rand, dt tensor.DType, shape []int, scale float64) *tensor.Tensor {
	x := tensor.New(dt, shape)
	for i := range x.NumElems() {
		x.Set(i, (r.Float64()*2-1)*scale)
	}
	return x
}

// sameBits fails with the first few differing elements.
func sameBits(t *testing.T, what string, got, want *tensor.Tensor) bool {
	t.Helper()
	if got.DType != want.DType || !slices.Equal(got.Shape, want.Shape) {
		t.Errorf("%s: got %s, want %s", what, got, want)
		return false
	}
	if bytes.Equal(got.Data, want.Data) {
		return true
	}
	eb := got.DType.Size()
	shown := 0
	for i := 0; i < want.NumElems() && shown < 5; i++ {
		g, w := got.Data[i*eb:(i+1)*eb], want.Data[i*eb:(i+1)*eb]
		if !bytes.Equal(g, w) {
			t.Errorf("%s: element %d: got % x, want % x", what, i, g, w)
			shown++
		}
	}
	return false
}

// The test device poisons the body of every overwritten output (and only
// those): an output no kernel writes reads back as poison, an accumulator
// as zeros.
func TestOutputBodiesArePoisoned(t *testing.T) {
	d := device(t)
	d.mu.Lock()
	j := d.begin("poison_check")
	o := j.output("out", 10, nil, true)
	a := j.accumulator("acc", 8, true)
	err := j.run()
	d.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(o.data, bytes.Repeat([]byte{poison}, 10)) {
		t.Errorf("an unwritten output reads %x, want poison", o.data)
	}
	if !bytes.Equal(a.data, make([]byte, 8)) {
		t.Errorf("an accumulator starts as %x, want zeros", a.data)
	}
}
