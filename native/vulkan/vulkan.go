// Package vulkan is the native GPU backend of the `fkc` command: the WGSL
// kernels of kernels/gpu run by wgpu-native (cgo) on a Vulkan adapter. It
// hands the command its GPU (cli.GPU): the link table for link status, the
// adapter listing of `fkc devices`, and the device for `--backend vulkan`.
package vulkan

import (
	"fmt"
	"io"

	"github.com/fkc-playground/fkc/cli"
	"github.com/fkc-playground/fkc/engine"
	"github.com/fkc-playground/fkc/kernels/gpu"
)

// GPU is the Vulkan backend for cli.Main.
func GPU() *cli.GPU {
	return &cli.GPU{
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
		Open: func() (engine.Device, func(), error) {
			d, err := gpu.OpenNative()
			if err != nil {
				return nil, nil, err
			}
			return d, d.Close, nil
		},
	}
}
