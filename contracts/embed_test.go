package contracts

import (
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/contract"
)

func TestLoad(t *testing.T) {
	docs, diags := LoadSeeds()
	n := 0
	for _, d := range docs {
		n += len(d.Kernels)
		if !strings.HasPrefix(d.File, "contracts/seeds/") {
			t.Errorf("file %q", d.File)
		}
	}
	if len(docs) != 4 || n != 57 || contract.HasErrors(diags) {
		t.Errorf("seeds: %d docs, %d kernels, diags %v", len(docs), n, diags)
	}
	all, diags := LoadAll()
	if len(all) < 4 {
		t.Errorf("LoadAll: %d docs", len(all))
	}
	for _, d := range diags {
		if d.Severity == "error" || d.Severity == "warning" {
			t.Errorf("embedded contracts: %s", d)
		}
	}
}
