package registry

import (
	"os"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/contract"
)

// repeated builds a document holding n copies of one seed section: every
// copy has the same name, and each its own bindings.
func repeated(t *testing.T, n int) *contract.Document {
	t.Helper()
	src, err := os.ReadFile("../contracts/seeds/fuel-vulkan-kernels.fkc.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	first := strings.Index(s, "\n## ")
	next := strings.Index(s[first+1:], "\n## ")
	head, sec := s[:first+1], s[first+1:first+1+next+1]
	d, _ := contract.Parse("repeat.md", []byte(head+strings.Repeat(sec, n)))
	if len(d.Kernels) != n {
		t.Fatalf("%d kernels, want %d", len(d.Kernels), n)
	}
	return d
}

// TestOfIsPerSection: sections that share a name (in one document or
// several) each list only their own bindings; ByKernel lists them all.
func TestOfIsPerSection(t *testing.T) {
	for _, n := range []int{1, 2, 7} {
		d := repeated(t, n)
		r := Build([]*contract.Document{d, repeated(t, 1)})
		per := len(r.Of(d.Kernels[0]))
		if per == 0 {
			t.Fatal("no bindings")
		}
		for i, k := range d.Kernels {
			bs := r.Of(k)
			if len(bs) != per {
				t.Fatalf("n=%d: section %d has %d bindings, want %d", n, i, len(bs), per)
			}
			for _, b := range bs {
				if b.Kernel != k {
					t.Fatalf("n=%d: section %d lists a binding of another section (%s:%d)", n, i, b.Doc.File, b.Kernel.Line)
				}
			}
		}
		name := d.Kernels[0].Name
		if got := len(r.ByKernel("", name)); got != (n+1)*per {
			t.Errorf("n=%d: ByKernel(\"\", %s) = %d bindings, want %d", n, name, got, (n+1)*per)
		}
		if got := len(r.ByKernel(d.Provider.Name, name)); got != (n+1)*per {
			t.Errorf("n=%d: ByKernel(provider, %s) = %d bindings, want %d", n, name, got, (n+1)*per)
		}
		if got := len(r.ByKernel("no-such-provider", name)); got != 0 {
			t.Errorf("ByKernel of another provider: %d", got)
		}
	}
}
