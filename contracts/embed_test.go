package contracts

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/contract"
)

func TestLoad(t *testing.T) {
	docs, diags := loadSeeds()
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

// The build-time compiled contracts are what the loader makes of the
// embedded documents today: a contract edited without `go generate
// ./contracts` fails here, not silently in the browser.
func TestCompiledIsFresh(t *testing.T) {
	docs, diags := LoadAll()
	cdocs, cdiags, err := LoadCompiled()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	diff("docs", reflect.ValueOf(docs), reflect.ValueOf(cdocs), &out)
	diff("diags", reflect.ValueOf(diags), reflect.ValueOf(cdiags), &out)
	if len(out) > 0 {
		t.Fatalf("contracts/compiled.gob is stale (run go generate ./contracts): %v", out)
	}
}
