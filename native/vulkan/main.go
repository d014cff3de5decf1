// Command fkc is the native CLI (SPEC §5): the same packages as the browser
// playground, with the WGSL kernels run by wgpu-native on Vulkan.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/fkc-playground/fkc/cli"
	"github.com/fkc-playground/fkc/kernels/gpu"
	"github.com/fkc-playground/fkc/ops"
)

func main() {
	cli.GPU = &cli.GPUBackend{
		Devices: func(w io.Writer) error {
			d, err := gpu.OpenNative()
			if err != nil {
				return err
			}
			defer d.Close()
			fmt.Fprintln(w, d.String())
			return nil
		},
		Open: func() ([]ops.Link, func(), error) {
			d, err := gpu.OpenNative()
			if err != nil {
				return nil, nil, err
			}
			return gpu.Links(d), d.Close, nil
		},
	}
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
