// Command fkc is the native CLI (SPEC §5): the same packages as the browser
// playground, with the WGSL kernels run by wgpu-native on Vulkan.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/fkc-playground/fkc/cli"
	"github.com/fkc-playground/fkc/kernels/gpu"
	"github.com/fkc-playground/fkc/ops"
)

func main() {
	quietDrivers()
	cli.GPU = &cli.GPUBackend{
		Entries: gpu.Links(nil), // entry points and where, for `fkc contracts`
		Devices: func(w io.Writer) error {
			d, err := gpu.OpenNative()
			if err != nil {
				return err
			}
			defer d.Close()
			fmt.Fprint(w, d.Info().String())
			return nil
		},
		Open: func() ([]ops.Link, ops.DeviceClocks, func(), error) {
			d, err := gpu.OpenNative()
			if err != nil {
				return nil, ops.DeviceClocks{}, nil, err
			}
			return gpu.Links(d), ops.DeviceClocks{EndToEnd: d.LastGPUTime, Kernel: d.LastKernelTime}, d.Close, nil
		},
	}
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}

// quietDrivers keeps wgpu's and Mesa's chatter (window-system probing that a
// compute-only tool never uses) off stderr, where `fkc run` prints exactly
// one line.
func quietDrivers() {
	wgpu.SetLogLevel(wgpu.LogLevelError)
	if os.Getenv("XDG_RUNTIME_DIR") == "" {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("fkc-runtime-%d", os.Getuid()))
		if os.MkdirAll(dir, 0o700) == nil && os.Chmod(dir, 0o700) == nil {
			os.Setenv("XDG_RUNTIME_DIR", dir)
		}
	}
}
