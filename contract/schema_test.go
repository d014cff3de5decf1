package contract

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

// sampleBlock writes an fkc block that sets every key of the schema, walking
// the table itself, with canonical indentation.
func sampleBlock(b *strings.Builder, n *keyDef, indent string) {
	for _, c := range n.children {
		b.WriteString(indent + c.key + ":")
		switch c.kind {
		case kMap:
			b.WriteString("\n")
			sampleBlock(b, c, indent+"  ")
		case kList:
			b.WriteString("\n")
			var item strings.Builder
			if c.item.kind == kFlowMap {
				for _, k := range c.item.children {
					item.WriteString(indent + "    " + k.key + ": x_" + k.key + "\n")
				}
			} else {
				sampleBlock(&item, c.item, indent+"    ")
			}
			b.WriteString(indent + "  - " + strings.TrimPrefix(item.String(), indent+"    "))
		case kFields:
			b.WriteString("\n" + indent + "  f0: {")
			for i, k := range c.children {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(k.key + ": x_" + k.key)
			}
			b.WriteString("}\n")
		default:
			b.WriteString(" " + sampleValue(c) + "\n")
		}
	}
}

func sampleValue(c *keyDef) string {
	switch c.kind {
	case kBool:
		return "true"
	case kInt:
		return "7"
	case kFormula:
		return `"n_out * ` + c.key + `"`
	case kDTypes:
		return "[F32, F64]"
	case kDTypeRule:
		return "passthrough(name)"
	case kFlowMap:
		return "{contiguous: required, offset: any}"
	}
	switch c.key {
	case "determinism":
		return Determinisms[0]
	case "name", "kernel":
		return c.key
	}
	return "x_" + c.key
}

// nonZero reports the paths of the fields of v left at their zero value.
func nonZero(v reflect.Value, path string, skip map[string]bool, out *[]string) {
	if skip[path] {
		return
	}
	if r, ok := v.Interface().(DTypeRule); ok {
		if r.String() == "" {
			*out = append(*out, path)
		}
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			nonZero(v.Field(i), join(path, v.Type().Field(i).Name), skip, out)
		}
	case reflect.Slice:
		if v.Len() == 0 {
			*out = append(*out, path)
		} else {
			nonZero(v.Index(0), path+".0", skip, out)
		}
	default:
		if v.IsZero() {
			*out = append(*out, path)
		}
	}
}

// The schema table covers the model: a block that sets every key of the
// table loads without a finding and leaves no field of the kernel unset;
// flattened, it is rebuilt (by the canonicalizer's view of the same table)
// into the same model.
func TestSchemaCoversModel(t *testing.T) {
	var b strings.Builder
	sampleBlock(&b, blockKeys, "")
	block := b.String()
	doc := func(block string) string {
		return "---\nfkc_version: 1\nprovider:\n  name: p\n  backend: Cpu\n  kernel_source: s\n  link_registry: l\n  revision_base: r\n---\n# t\n\n## kernel\n\nprose\n\n```fkc\n" + block + "```\n"
	}
	d, ds := Parse("sample.md", []byte(doc(block)))
	if len(ds) != 0 || len(d.Kernels) != 1 {
		t.Fatalf("%v\n%s", ds, block)
	}
	var unset []string
	nonZero(reflect.ValueOf(*d.Kernels[0]), "", map[string]bool{"Comments": true}, &unset)
	nonZero(reflect.ValueOf(d.Provider), "provider", nil, &unset)
	if len(unset) > 0 {
		t.Errorf("fields no schema key sets: %v\n%s", unset, block)
	}
	flat := stripLeading([]byte(block))
	f, ds := Parse("sample.md", []byte(doc(flat)))
	if len(ds) != 1 || ds[0].Code != "RebuiltNesting" || len(f.Kernels) != 1 {
		t.Fatalf("flattened: %v\n%s", ds, flat)
	}
	if !reflect.DeepEqual(f.Kernels[0], d.Kernels[0]) {
		t.Errorf("the flattened block loads to %+v, want %+v", f.Kernels[0], d.Kernels[0])
	}
	if out, _ := Format([]byte(doc(flat))); string(out) != doc(block) {
		t.Errorf("Format of the flattened block:\n%s\nwant\n%s", out, doc(block))
	}
}

func TestCostFields(t *testing.T) {
	var names []string
	for _, f := range CostFields {
		names = append(names, f.Name)
	}
	if want := "bytes_moved flops overhead_ns memory.device_bytes memory.host_bytes memory.disk_bytes"; strings.Join(names, " ") != want {
		t.Errorf("CostFields = %v", names)
	}
	// each field reads its own formula, and the loader decodes each
	var cost strings.Builder
	cost.WriteString("cost:\n  memory:\n")
	for _, f := range CostFields {
		if m, ok := strings.CutPrefix(f.Name, "memory."); ok {
			cost.WriteString("    " + m + ": " + m + "_n\n")
		}
	}
	for _, f := range CostFields {
		if !strings.Contains(f.Name, ".") {
			cost.WriteString("  " + f.Name + ": " + f.Name + "_n\n")
		}
	}
	d, _ := Parse("c.md", []byte("## k\n```fkc\n"+cost.String()+"```\n"))
	k := d.Kernels[0]
	var formulas []string
	for _, f := range CostFields {
		leaf := f.Name[strings.LastIndex(f.Name, ".")+1:]
		if got := f.Get(k.Cost); got != leaf+"_n" {
			t.Errorf("%s: Get = %q", f.Name, got)
		}
		formulas = append(formulas, "cost."+f.Name+"="+leaf+"_n")
	}
	var got []string
	for _, kv := range k.Formulas() {
		got = append(got, kv.Key+"="+kv.Value)
	}
	if !reflect.DeepEqual(got, formulas) {
		t.Errorf("Formulas = %v, want %v", got, formulas)
	}
}

func TestDTypeRule(t *testing.T) {
	inputs := []Input{{Name: "x"}, {Name: "idx"}}
	ins := []tensor.DType{tensor.BF16, tensor.U32}
	for _, c := range []struct {
		text, canon string
		out         tensor.DType
		err         string
	}{
		{"passthrough(x)", "passthrough(x)", tensor.BF16, ""},
		{" passthrough( idx ) ", "passthrough(idx)", tensor.U32, ""},
		{"fixed(U32)", "fixed(U32)", tensor.U32, ""},
		{"fixed(f64)", "fixed(F64)", tensor.F64, ""},
		{"passthrough(y)", "passthrough(y)", tensor.Invalid, "names no input"},
		{"passthrough()", "", tensor.Invalid, "names no input"},
		{"fixed(Q8)", "", tensor.Invalid, `unknown dtype "Q8"`},
		{"widen(x)", "", tensor.Invalid, "neither passthrough(INPUT) nor fixed(DTYPE)"},
		{"fixed(U32", "", tensor.Invalid, "neither"},
		{"", "", tensor.Invalid, "neither"},
	} {
		r, err := ParseDTypeRule(c.text)
		if r.String() != c.canon {
			t.Errorf("ParseDTypeRule(%q) = %q, want %q", c.text, r, c.canon)
		}
		if err != nil {
			if c.canon != "" || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseDTypeRule(%q): %v", c.text, err)
			}
			continue
		}
		again, err := ParseDTypeRule(r.String())
		if err != nil || again != r {
			t.Errorf("%q does not round-trip: %+v %v", r, again, err)
		}
		dt, err := r.DType(inputs, ins)
		if dt != c.out || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s.DType = %v, %v; want %v (%q)", r, dt, err, c.out, c.err)
		}
	}
	if _, err := (DTypeRule{}).DType(inputs, ins); err == nil {
		t.Error("the zero rule gives a dtype")
	}
	// JSON holds the rule's text, and reads it back
	b, err := json.Marshal(Output{Name: "out", DTypeRule: DTypeRule{Fixed: tensor.U32}})
	if err != nil || !strings.Contains(string(b), `"dtype_rule":"fixed(U32)"`) {
		t.Errorf("JSON %s %v", b, err)
	}
	var o Output
	if err := json.Unmarshal(b, &o); err != nil || o.DTypeRule != (DTypeRule{Fixed: tensor.U32}) {
		t.Errorf("JSON read back %+v %v", o, err)
	}
}
