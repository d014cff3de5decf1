package playground

import (
	"strings"
	"testing"
)

// The catalog's search finds pad kernels by their mode's names in other
// libraries and offers Learn padding; "reflect padding" found 0 of 75.
func TestCatalogSearchPadding(t *testing.T) {
	s := site(t)
	shown := func(q string) (map[string]bool, Catalog) {
		c := s.CatalogPage(Filter{Q: q})
		ids := map[string]bool{}
		for _, p := range c.Providers {
			for _, r := range p.Rows {
				ids[r.ID] = true
			}
		}
		return ids, c
	}
	for _, tc := range []struct {
		q        string
		has, not []string
	}{
		{"reflect padding", []string{"fuel-vulkan-kernels/pad_reflect_b4", "fuel-cpu-backend/pad"}, []string{"fuel-vulkan-kernels/pad_replicate_b4"}},
		{"mirror", []string{"fuel-vulkan-kernels/pad_reflect_b4"}, []string{"fuel-vulkan-kernels/pad_replicate_b4"}},
		{"edge", []string{"fuel-vulkan-kernels/pad_replicate_b4", "fuel-cpu-backend/pad_replicate_cpu"}, []string{"fuel-vulkan-kernels/pad_const_b4"}},
		{"numpy", []string{"fuel-cpu-backend/pad"}, nil},
		{"torch replicate", []string{"fuel-vulkan-kernels/pad_replicate_b4"}, nil},
		{"wrap", []string{"fkc-cpu-kernels/pad_circular", "fkc-wgsl-kernels/pad_circular"}, []string{"fuel-vulkan-kernels/pad_reflect_b4", "fkc-wgsl-kernels/pad_symmetric"}},
		{"symmetric padding", []string{"fkc-cpu-kernels/pad_symmetric", "fkc-wgsl-kernels/pad_symmetric"}, []string{"fkc-wgsl-kernels/pad_circular"}},
	} {
		ids, c := shown(tc.q)
		for _, id := range tc.has {
			if !ids[id] {
				t.Errorf("%q does not find %s (%d shown)", tc.q, id, c.Shown)
			}
		}
		for _, id := range tc.not {
			if ids[id] {
				t.Errorf("%q finds %s", tc.q, id)
			}
		}
		if !c.LearnPadding {
			t.Errorf("%q does not offer Learn padding", tc.q)
		}
		html, err := Render("catalog-list", c)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(html, `href="#/learn/padding"`) {
			t.Errorf("%q: the list has no Learn padding link", tc.q)
		}
	}
	for _, q := range []string{"sum", "gather", "argmax", ""} {
		if _, c := shown(q); c.LearnPadding {
			t.Errorf("%q offers Learn padding", q)
		}
	}
	// Every pad kernel's page links to Learn padding; a sum's does not.
	for _, r := range s.Rows() {
		p, err := s.KernelPage(r.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		html, err := Render("kernel", p)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(html, `<a href="#/learn/padding">Learn padding</a>`); got != padKernel(r) {
			t.Errorf("%s (op %q): links to Learn padding: %v", r.ID, r.Op, got)
		}
	}
}
