// Command fkc is the native CLI (SPEC §5): the same packages as the browser
// playground, with the WGSL kernels run by wgpu-native on Vulkan.
//
//	go install ./cmd/fkc   # from a clone (cgo: needs gcc)
//	fkc run pad --mode reflect --padding 0:0,2:2 -i x=in.npy -o out.npy
package main

import (
	"os"

	"github.com/fkc-playground/fkc/cli"
	"github.com/fkc-playground/fkc/native/vulkan"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Config{GPU: vulkan.GPU()}))
}
