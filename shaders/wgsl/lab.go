package wgsl

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
)

// The kernel lab's plain kernels (lab/*.wgsl): one readable kernel per op
// family that follows the lab interface (docs/lab.md), not a tuned
// production shader. Unlike the family files above, each is a whole
// module apart from the lab's prelude, which package lab appends.
//
//go:embed lab/*.wgsl
var labFiles embed.FS

// Lab returns the text of one plain kernel ("pad.wgsl").
func Lab(name string) (string, error) {
	b, err := labFiles.ReadFile("lab/" + name)
	if err != nil {
		return "", fmt.Errorf("wgsl: no plain lab kernel %q", name)
	}
	return string(b), nil
}

// LabNames lists the plain kernels.
func LabNames() []string {
	ents, _ := fs.ReadDir(labFiles, "lab")
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".wgsl") {
			out = append(out, e.Name())
		}
	}
	return out
}
