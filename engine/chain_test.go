package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/kernels/gpu"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// A chain is refused on the CPU and without a device, and a chain call
// with an output tensor in Go memory is refused: its results stay on the
// device.
func TestChainRefusals(t *testing.T) {
	eng, err := engine.New()
	if err != nil {
		t.Fatal(err)
	}
	var u *kernels.Usage
	if _, err := eng.Chain(engine.CPU); !errors.As(err, &u) {
		t.Errorf("a chain on the CPU: %v, want a usage error", err)
	}
	var un *kernels.Unavailable
	if _, err := eng.Chain(engine.Vulkan); !errors.As(err, &un) {
		t.Errorf("a chain without a device: %v, want unavailable", err)
	}
	dev, err := gpu.OpenNative()
	if err != nil {
		t.Skipf("no Vulkan adapter: %v", err)
	}
	defer dev.Close()
	eng.Attach(dev)
	ch, err := eng.Chain(engine.Vulkan)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Discard()
	x := tensor.New(tensor.F32, []int{3})
	c := ops.Sum(x, 0)
	c.Out = tensor.New(tensor.F32, []int{})
	if _, err := ch.Run(c); !errors.As(err, &u) || !strings.Contains(err.Error(), "stay on the device") {
		t.Errorf("a chain call with an output tensor: %v", err)
	}
	// a host input is uploaded with its call
	res, err := ch.Run(ops.Sum(x, 0))
	if err != nil {
		t.Fatal(err)
	}
	if res.Out.Storage() == nil {
		t.Errorf("a chain's result is in Go memory: %v", res.Out)
	}
}
