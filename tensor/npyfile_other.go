//go:build !unix

package tensor

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// writeDescriptor: descriptor paths exist on Unix systems only.
func writeDescriptor(path string, fd int, write func(io.Writer) error) error {
	return fmt.Errorf("write %s: descriptor paths are not supported on this system", path)
}

// keepOwner: ownership is kept where the system has Unix owners.
func keepOwner(*os.File, fs.FileInfo) error { return nil }
