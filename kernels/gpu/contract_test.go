//go:build !js

package gpu

import (
	"bytes"
	"os"
	"testing"

	"github.com/fkc-playground/fkc/contract"
)

// Every GPU entry_point of the seed and of this project's WGSL contract has
// a link, and the project contract loads without diagnostics.
func TestContractsLinked(t *testing.T) {
	d := device(t)
	linked := map[string]bool{}
	for _, l := range Links(d) {
		if linked[l.EntryPoint] {
			t.Errorf("entry point %s linked twice", l.EntryPoint)
		}
		linked[l.EntryPoint] = true
	}
	for _, f := range []string{"../../contracts/seeds/fuel-vulkan-kernels.fkc.md", "../../contracts/project/fkc-wgsl-kernels.fkc.md", "../../contracts/project/fkc-lab.fkc.md"} {
		doc, ds := contract.LoadFile(f)
		for _, dg := range ds {
			if dg.Severity != "info" && f != "../../contracts/seeds/fuel-vulkan-kernels.fkc.md" {
				t.Errorf("%v", dg)
			}
		}
		if doc == nil {
			t.Fatalf("%s did not load", f)
		}
		for _, k := range doc.Kernels {
			if !linked[k.EntryPoint] {
				t.Errorf("%s: %s (%s) is not linked", f, k.Name, k.EntryPoint)
			}
		}
		t.Logf("%s: %d kernels, all linked", f, len(doc.Kernels))
	}
}

// The project's GPU contracts are already in canonical form (fkc fmt is a no-op).
func TestContractCanonical(t *testing.T) {
	for _, f := range []string{"fkc-wgsl-kernels.fkc.md", "fkc-lab.fkc.md"} {
		canonical(t, f)
	}
}

func canonical(t *testing.T, name string) {
	src, err := os.ReadFile("../../contracts/project/" + name)
	if err != nil {
		t.Fatal(err)
	}
	got, err := contract.Format(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		a, b := string(src), string(got)
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		t.Errorf("fkc fmt would change %s at byte %d: %q vs %q", name, i, a[max(0, i-40):min(len(a), i+40)], b[max(0, i-40):min(len(b), i+40)])
	}
}
