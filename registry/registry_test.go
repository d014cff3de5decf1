package registry

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/internal/rawcount"
	"github.com/fkc-playground/fkc/tensor"
)

func loadSeeds(t *testing.T) []*contract.Document {
	t.Helper()
	files, _ := filepath.Glob("../contracts/seeds/*.md")
	if len(files) != 4 {
		t.Fatalf("seeds: %v", files)
	}
	var docs []*contract.Document
	for _, f := range files {
		d, ds := contract.LoadFile(f)
		if contract.HasErrors(ds) {
			t.Fatalf("%s: %v", f, ds)
		}
		docs = append(docs, d)
	}
	return docs
}

func dts(b *Binding) string {
	var s []string
	for _, d := range b.InputDTypes {
		s = append(s, d.String())
	}
	return strings.Join(s, ",") + "->" + b.OutDType.String()
}

func TestFanOut(t *testing.T) {
	r := Build(loadSeeds(t))
	files, _ := filepath.Glob("../contracts/seeds/*.md")
	sections, _, bindings := blockCounts(t, files...)
	if n := len(r.Kernels()); n != sections {
		t.Errorf("%d kernels, want %d", n, sections)
	}
	var desc []string
	for _, k := range r.DescribeOnly {
		desc = append(desc, k.Kernel.Name)
	}
	sort.Strings(desc)
	if want := []string{"pad_const_cpu", "pad_reflect_cpu", "pad_replicate_cpu", "pad_walk_cpu"}; !reflect.DeepEqual(desc, want) {
		t.Errorf("describe-only %v", desc)
	}
	if len(r.Bindings) != bindings {
		t.Errorf("%d bindings, want %d", len(r.Bindings), bindings)
	}
	for _, c := range []struct {
		provider, kernel string
		want             []string
		key0             string
	}{
		{"fuel-reference-backend", "index_add", []string{"F32,U32,F32->F32", "F64,U32,F64->F64", "BF16,U32,BF16->BF16", "F16,U32,F16->F16"}, "(IndexAdd, [F32, U32, F32, F32], Cpu)"},
		{"fuel-cpu-backend", "pad", []string{"U8->U8", "U32->U32", "BF16->BF16", "F16->F16", "F32->F32", "F64->F64"}, "(Pad, [U8, U8], Cpu)"},
		{"fuel-reference-backend", "argmax_dim", []string{"F32->U32", "F64->U32", "BF16->U32", "F16->U32"}, "(ArgMaxDim, [F32, U32], Cpu)"},
		{"fuel-vulkan-kernels", "pad_const_b4", []string{"F32->F32", "I32->I32", "U32->U32"}, "(Pad, [F32, F32], Vulkan)"},
		{"", "pad_const_cpu", nil, ""},
	} {
		bs := r.ByKernel(c.provider, c.kernel)
		var got []string
		for _, b := range bs {
			got = append(got, dts(b))
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: bindings %v, want %v", c.kernel, got, c.want)
		}
		if len(bs) > 0 && bs[0].Key.String() != c.key0 {
			t.Errorf("%s: key %s, want %s", c.kernel, bs[0].Key, c.key0)
		}
	}
	// masked_fill: the BOOL/U8 mask stays fixed while the data dtype varies
	for _, b := range r.ByKernel("fuel-vulkan-kernels", "masked_fill_b4") {
		if len(b.InputDTypes) < 2 || b.InputDTypes[0] != b.OutDType || b.Backend != "Vulkan" {
			t.Errorf("masked_fill_b4 binding %s", dts(b))
		}
	}
	if got := len(r.Lookup("Pad", "vulkan")); got != 30 {
		t.Errorf("Lookup(Pad, vulkan) = %d bindings, want 30", got)
	}
	if got := len(r.Lookup("Pad", "Cpu")); got != 6 {
		t.Errorf("Lookup(Pad, Cpu) = %d bindings, want 6 (describe-only sections never bind)", got)
	}
	if got := r.LookupKey(Key{"SumReduce", "F32,F32", "Cpu"}); len(got) != 2 {
		t.Errorf("LookupKey(SumReduce F32) = %d", len(got))
	}
}

// The seeds' own DuplicateKernelRef collisions are each reported once per
// key, as warnings naming every kernel and its file:line.
func TestDuplicateKernelRef(t *testing.T) {
	r := Build(loadSeeds(t))
	byKey := map[string]contract.Diagnostic{}
	for _, d := range r.Diags {
		if d.Code != "DuplicateKernelRef" || d.Severity != "error" {
			t.Errorf("unexpected diagnostic %s", d)
			continue
		}
		key := d.Msg[strings.Index(d.Msg, "("):strings.Index(d.Msg, ":")]
		if _, dup := byKey[key]; dup {
			t.Errorf("key reported twice: %s", key)
		}
		byKey[key] = d
	}
	files, _ := filepath.Glob("../contracts/seeds/*.md")
	if want := sharedKeys(t, files...); want != 38 || len(byKey) != want || len(r.Collisions()) != want {
		t.Errorf("%d collision keys (%d); the documents share %d keys (the seeds: 38)", len(byKey), len(r.Collisions()), want)
	}
	for key, kernels := range map[string][]string{
		"(SumReduce, [F32, F32], Cpu)":        {"sum_all", "sum_dim"},
		"(MeanReduce, [F16, F16], Cpu)":       {"mean_all", "mean_dim"},
		"(IndexSelect, [F32, F32], Cpu)":      {"index_select", "embedding"},
		"(ArgMaxDim, [BF16, U32], Cpu)":       {"argmax_dim", "argindex_dim"},
		"(Pad, [F32, F32], Vulkan)":           {"pad_const_b4", "pad_reflect_b4", "pad_replicate_b4"},
		"(Pad, [U8, U8], Vulkan)":             {"pad_const_b1", "pad_reflect_b1", "pad_replicate_b1"},
		"(PadBackward, [F32, F32], Vulkan)":   {"pad_backward_const_b4", "pad_backward_reflect_f32", "pad_backward_replicate_f32"},
		"(PadBackward, [BF16, BF16], Vulkan)": {"pad_backward_const_b2", "pad_backward_reflect_bf16", "pad_backward_replicate_bf16"},
	} {
		d, ok := byKey[key]
		if !ok {
			t.Errorf("no DuplicateKernelRef for %s", key)
			continue
		}
		for _, k := range kernels {
			if !strings.Contains(d.Msg, k+" (../contracts/seeds/") {
				t.Errorf("%s: message does not name %s with its file:line: %s", key, k, d.Msg)
			}
		}
		// the same kernels, structured, each once, with the place the message gives
		var names []string
		for _, id := range d.Kernels {
			names = append(names, id.Kernel)
			if id.Provider == "" || !strings.Contains(d.Msg, fmt.Sprintf("%s (%s:%d)", id.Kernel, id.File, id.Line)) {
				t.Errorf("%s: kernel %+v is not the one the message names: %s", key, id, d.Msg)
			}
		}
		if !reflect.DeepEqual(names, kernels) {
			t.Errorf("%s: Kernels %v, want %v", key, names, kernels)
		}
		if d.Line == 0 || d.File == "" {
			t.Errorf("%s: no location", key)
		}
	}
	// the CPU pad is ONE mode-unified section: no collision
	for key := range byKey {
		if strings.HasPrefix(key, "(Pad,") && strings.HasSuffix(key, "Cpu)") {
			t.Errorf("unexpected CPU pad collision %s", key)
		}
	}
}

func TestFanOutErrors(t *testing.T) {
	doc := func(body string) *contract.Document {
		src := "---\nfkc_version: 1\nprovider:\n  name: p\n  backend: Cpu\n---\n# t\n## k\n```fkc\n" + body + "```\n"
		d, _ := contract.Parse("t.md", []byte(src))
		return d
	}
	base := "kernel: k\nop_kind: K\nbackend: Cpu\nentry_point: e\ndeterminism: bitwise\nreturn:\n  outputs:\n    - name: out\n      dtype_rule: passthrough(a)\n"
	r := Build([]*contract.Document{doc(base + "accept:\n  inputs:\n    - name: a\n      dtypes: [F32, F64]\n    - name: b\n      dtypes: [F32, F64, F16]\n")})
	if len(r.Bindings) != 0 || len(r.Diags) != 1 || !strings.Contains(r.Diags[0].Msg, "jointly") {
		t.Fatalf("mismatched joint lists: %d bindings, %v", len(r.Bindings), r.Diags)
	}
	if want := (contract.KernelID{Provider: "p", Kernel: "k", File: "t.md", Line: 8}); !reflect.DeepEqual(r.Diags[0].Kernels, []contract.KernelID{want}) {
		t.Errorf("FanOut finding concerns %+v, want %+v", r.Diags[0].Kernels, want)
	}
	r = Build([]*contract.Document{doc(base + "accept:\n  inputs:\n    - name: a\n      dtypes: [F64, F16]\n    - name: b\n      dtypes: [BOOL]\n")})
	if len(r.Bindings) != 2 || r.Bindings[1].InputDTypes[1] != tensor.BOOL || r.Bindings[1].OutDType != tensor.F16 || len(r.Diags) != 0 {
		t.Errorf("fixed BOOL operand: %v %v", r.Bindings, r.Diags)
	}
}

// blockCounts and sharedKeys are package rawcount's counts, failing t on
// an unreadable document.
func blockCounts(t *testing.T, files ...string) (sections, describeOnly, bindings int) {
	t.Helper()
	sections, describeOnly, bindings, err := rawcount.Blocks(files...)
	if err != nil {
		t.Fatal(err)
	}
	return sections, describeOnly, bindings
}

func sharedKeys(t *testing.T, files ...string) int {
	t.Helper()
	n, err := rawcount.SharedKeys(files...)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
