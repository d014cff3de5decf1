package registry

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
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

// TestLoadMemoryBound: what a document's load keeps (the
// model, its findings, its bindings) stays within a small multiple of the
// document's size, for the shapes where a few bytes of source would make
// many objects: long dtype lists (each listed dtype a binding), unknown
// names (each a finding), many fields, many sections.
func TestLoadMemoryBound(t *testing.T) {
	src, err := os.ReadFile("../contracts/seeds/fuel-vulkan-kernels.fkc.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	first := strings.Index(s, "\n## ")
	head, sections := s[:first+1], s[first+1:]
	block := func(body string) string {
		return "## t\n\n```fkc\nkernel: t\nop_kind: Pad\nregistrable: true\nbackend: Cpu\nentry_point: x\n" + body + "```\n"
	}
	list := func(item string, n int) string {
		items := make([]string, n)
		for i := range items {
			items[i] = strings.ReplaceAll(item, "#", strconv.Itoa(i))
		}
		return strings.Join(items, ", ")
	}
	var fields strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&fields, "      f%d: {kind: u32, constraint: \"x < 3\", note: \"n\"}\n", i)
	}
	const size = 1 << 20
	for _, c := range []struct{ name, unit string }{
		{"a dtype listed 12000 times", block("accept:\n  inputs:\n    - name: x\n      dtypes: [" + list("F32", 12000) + "]\n")},
		{"a list of F32, F64 pairs", block("accept:\n  inputs:\n    - name: x\n      dtypes: [" + list("F32, F64", 6000) + "]\n")},
		{"9000 unknown dtypes", block("accept:\n  inputs:\n    - name: x\n      dtypes: [" + list("Q#", 9000) + "]\n")},
		{"1000 fields", block("accept:\n  inputs:\n    - name: x\n      dtypes: [F32]\n  op_params:\n    variant: v\n    fields:\n" + fields.String())},
		{"seed sections", sections},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := head + strings.Repeat(c.unit, size/len(c.unit))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			d, diags := contract.Parse("big.md", []byte(doc))
			r := Build([]*contract.Document{d})
			runtime.GC()
			runtime.ReadMemStats(&after)
			kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			runtime.KeepAlive(d)
			runtime.KeepAlive(diags)
			runtime.KeepAlive(r)
			if ratio := float64(kept) / float64(len(doc)); ratio > 10 {
				t.Errorf("%d bytes of document keep %d bytes (%.0f×): %d kernels, %d findings, %d bindings",
					len(doc), kept, ratio, len(d.Kernels), len(diags), len(r.Bindings))
			}
		})
	}
}
