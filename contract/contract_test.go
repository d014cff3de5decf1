package contract

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current Format output")

const seedDir = "../contracts/seeds"

// The four seeds: 000 and 001 lost their YAML indentation, 003 and 004
// are intact and start with a version-stamp preamble.
var seeds = []struct {
	file         string
	kernels      int
	registrable  int
	describeOnly []string
	rebuilt      bool
	preamble     string
	provider     string
}{
	{"fuel-vulkan-kernels.fkc.md", 28, 28, nil, true, "", "fuel-vulkan-kernels"},
	{"fuel-cpu-backend.fkc.md", 9, 5, []string{"pad_const_cpu", "pad_reflect_cpu", "pad_replicate_cpu", "pad_walk_cpu"}, true, "", "fuel-cpu-backend"},
	{"fuel-reference-indexing.fkc.md", 6, 6, nil, false, "fuel-dispatch 0.20.71", "fuel-reference-backend"},
	{"fuel-reference-reduce.fkc.md", 14, 14, nil, false, "fuel-dispatch 0.22.4", "fuel-reference-backend"},
}

func readSeed(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(seedDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustParse(t *testing.T, name string, src []byte) *Document {
	t.Helper()
	d, ds := Parse(name, src)
	for _, x := range ds {
		if x.Severity != "info" {
			t.Errorf("unexpected diagnostic: %s", x)
		}
	}
	return d
}

func TestSeedsLoad(t *testing.T) {
	total, reg := 0, 0
	for _, s := range seeds {
		t.Run(s.file, func(t *testing.T) {
			d := mustParse(t, s.file, readSeed(t, s.file))
			if len(d.Kernels) != s.kernels {
				t.Errorf("%d kernels, want %d", len(d.Kernels), s.kernels)
			}
			var desc []string
			r := 0
			for _, k := range d.Kernels {
				if k.Registrable {
					r++
				} else {
					desc = append(desc, k.Name)
				}
				if k.Name == "" || k.OpKind == "" || k.EntryPoint == "" || k.Backend == "" || len(k.Inputs) == 0 || len(k.Outputs) == 0 {
					t.Errorf("%s: incomplete kernel %+v", s.file, k)
				}
				if headingName(k.Heading) != k.Name {
					t.Errorf("heading %q vs kernel %q", k.Heading, k.Name)
				}
				if k.Prose == "" || k.Line == 0 || k.BlockLine <= k.Line {
					t.Errorf("%s: prose/lines not set: line %d block %d", k.Name, k.Line, k.BlockLine)
				}
				if k.Cost.BytesMoved == "" || k.Determinism == "" {
					t.Errorf("%s: cost/determinism missing", k.Name)
				}
			}
			if r != s.registrable || !reflect.DeepEqual(desc, s.describeOnly) {
				t.Errorf("registrable %d describe-only %v; want %d %v", r, desc, s.registrable, s.describeOnly)
			}
			if (len(d.Rebuilt) > 0) != s.rebuilt {
				t.Errorf("Rebuilt = %v, want rebuilt=%v", d.Rebuilt, s.rebuilt)
			}
			hasInfo := false
			for _, x := range d.Diags {
				hasInfo = hasInfo || x.Code == "RebuiltNesting"
			}
			if hasInfo != s.rebuilt {
				t.Errorf("RebuiltNesting diagnostic present=%v, want %v", hasInfo, s.rebuilt)
			}
			if s.rebuilt && (len(d.Rebuilt) != s.kernels+1 || d.Rebuilt[0] != "front matter") {
				t.Errorf("Rebuilt = %v", d.Rebuilt)
			}
			if got := strings.Join(d.Preamble, "\n"); got != s.preamble {
				t.Errorf("preamble %q, want %q", got, s.preamble)
			}
			if d.Provider.Name != s.provider || d.FKCVersion != 1 || d.Provider.Backend == "" || d.Provider.RevisionBase != "git:f41137b4" {
				t.Errorf("front matter: version %d provider %+v", d.FKCVersion, d.Provider)
			}
			if !strings.Contains(d.Title, "kernel contracts") || d.Prose == "" {
				t.Errorf("title %q / prose %d bytes", d.Title, len(d.Prose))
			}
			total += len(d.Kernels)
			reg += r
		})
	}
	if total != 57 || reg != 53 {
		t.Errorf("seeds: %d kernels (%d registrable), want 57 (53)", total, reg)
	}
}

func kernelByName(t *testing.T, d *Document, name string) *Kernel {
	t.Helper()
	for _, k := range d.Kernels {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("%s: no kernel %s", d.File, name)
	return nil
}

// Spot checks of the nesting rebuilt from the schema.
func TestRebuiltNesting(t *testing.T) {
	d000 := mustParse(t, "000", readSeed(t, "fuel-vulkan-kernels.fkc.md"))
	k := kernelByName(t, d000, "pad_const_b1")
	if len(k.Inputs) != 1 || k.Inputs[0].Name != "input" || k.Inputs[0].Rank != "1..=8" || k.Inputs[0].ShapeConstraint != "same_rank=out" {
		t.Errorf("pad_const_b1 inputs: %+v", k.Inputs)
	}
	if !reflect.DeepEqual(k.Inputs[0].DTypes, []tensor.DType{tensor.U8, tensor.I8}) {
		t.Errorf("pad_const_b1 dtypes %v", k.Inputs[0].DTypes)
	}
	if got := fieldNames(k); got != "n_out rank fill_value shape_buf" {
		t.Errorf("pad_const_b1 fields: %s", got)
	}
	if f := k.OpParams.Fields[1]; f.Kind != "u32" || f.Constraint != "<= 8" {
		t.Errorf("field rank = %+v", f)
	}
	if k.OpParams.Variant != "Pad" || k.Outputs[0].DTypeRule != (DTypeRule{Passthrough: "input"}) || k.Caps.AlignmentBytes != 16 ||
		k.Caps.AccessGranularityBits != 32 || k.Cost.Memory.DeviceBytes != "n_out * dtype_bytes" || k.Cost.OverheadNs != "" ||
		!k.Precision.Audited || !k.Precision.BitStableOnSameHardware || k.Determinism != "bitwise" {
		t.Errorf("pad_const_b1 = %+v", k)
	}
	if len(k.Inputs[0].Layout) != 5 || k.Inputs[0].Layout[0] != (KV{"contiguous", "required"}) {
		t.Errorf("layout %v", k.Inputs[0].Layout)
	}
	if c := k.Comments["accept.inputs.0.dtypes"]; !strings.Contains(c, "1-byte elements") {
		t.Errorf("comment on dtypes = %q (all: %v)", c, k.Comments)
	}
	if c := k.Comments["op_kind"]; c != "Constant mode (byte-width-keyed variant, 1B)" {
		t.Errorf("comment on op_kind = %q", c)
	}
	mf := kernelByName(t, d000, "masked_fill_b4")
	if len(mf.Inputs) < 2 {
		t.Errorf("masked_fill_b4 inputs %+v", mf.Inputs)
	}

	d001 := mustParse(t, "001", readSeed(t, "fuel-cpu-backend.fkc.md"))
	p := kernelByName(t, d001, "pad")
	if got := fieldNames(p); got != "in_shape out_shape padding mode_tag fill_bytes" {
		t.Errorf("pad fields: %s", got)
	}
	if p.Inputs[0].DTypeClass != "any" || len(p.Inputs[0].DTypes) != 6 || p.Inputs[0].Rank != "any" {
		t.Errorf("pad input %+v", p.Inputs[0])
	}
	if c := p.Comments["accept.inputs.0.dtypes"]; !strings.HasPrefix(c, "Byte-dtype-agnostic") {
		t.Errorf("full-line comments above dtypes = %q", c)
	}
	if pc := kernelByName(t, d001, "pad_const_cpu"); pc.Registrable || !strings.HasPrefix(pc.Comments["registrable"], "DESCRIBE-ONLY") {
		t.Errorf("pad_const_cpu registrable=%v comment %q", pc.Registrable, pc.Comments["registrable"])
	}

	d004 := mustParse(t, "004", readSeed(t, "fuel-reference-reduce.fkc.md"))
	am := kernelByName(t, d004, "argmax_dim")
	if r := am.Outputs[0].DTypeRule; r != (DTypeRule{Fixed: tensor.U32}) || r.String() != "fixed(U32)" {
		t.Errorf("argmax_dim dtype_rule %+v (%s)", r, r)
	}
	if dt, err := am.Outputs[0].DTypeRule.DType(am.Inputs, []tensor.DType{tensor.F32}); err != nil || dt != tensor.U32 {
		t.Errorf("argmax_dim out dtype %v %v", dt, err)
	}
	if fp := am.Caps.FastPaths; len(fp) != 1 || fp[0][1] != (KV{"class", "reduction"}) {
		t.Errorf("fast_paths %v", fp)
	}
	rb := kernelByName(t, d004, "reduce_max_to_backward")
	if !strings.Contains(rb.Comments["cost.flops"], "multi-pass") {
		t.Errorf("head comment of cost.flops = %q", rb.Comments["cost.flops"])
	}
}

func fieldNames(k *Kernel) string {
	var s []string
	for _, f := range k.OpParams.Fields {
		s = append(s, f.Name)
	}
	return strings.Join(s, " ")
}

// comparable strips what legitimately differs between a flattened file and
// its formatted version.
func comparable(d *Document) *Document {
	c := *d
	c.Rebuilt, c.Diags, c.File = nil, nil, ""
	return &c
}

func TestFormatGoldenAndRoundTrip(t *testing.T) {
	for _, s := range seeds {
		t.Run(s.file, func(t *testing.T) {
			src := readSeed(t, s.file)
			out, err := Format(src)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", strings.TrimSuffix(s.file, ".md")+".golden")
			if *update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("Format differs from %s:\n%s", golden, firstDiff(out, want))
			}
			again, _ := Format(out)
			if !bytes.Equal(again, out) {
				t.Errorf("Format is not idempotent:\n%s", firstDiff(again, out))
			}
			if !s.rebuilt && !bytes.Equal(out, src) {
				t.Errorf("Format changed an intact seed:\n%s", firstDiff(out, src))
			}
			if s.rebuilt && bytes.Equal(out, src) {
				t.Errorf("Format did not re-indent a flattened seed")
			}
			// only leading whitespace may change
			if a, b := stripLeading(out), stripLeading(src); a != b {
				t.Errorf("Format changed more than indentation")
			}
			d1, _ := Parse(s.file, src)
			d2, ds := Parse(s.file, out)
			for _, x := range ds {
				t.Errorf("formatted file: %s", x)
			}
			if !reflect.DeepEqual(comparable(d1), comparable(d2)) {
				t.Errorf("the formatted file loads to a different model")
			}
			if len(d2.Rebuilt) != 0 {
				t.Errorf("formatted file still rebuilt: %v", d2.Rebuilt)
			}
		})
	}
}

func stripLeading(b []byte) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		out = append(out, strings.TrimLeft(l, " \t"))
	}
	return strings.Join(out, "\n")
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n got %q\nwant %q", i+1, x, y)
		}
	}
	return "(equal lines)"
}

// Broken copies: each defect gets exactly one precise diagnostic (besides
// the info about rebuilt nesting) at the right line, and no panic.
func TestBrokenCopies(t *testing.T) {
	type mutation struct {
		name    string
		find    string // the first line containing this is the target
		replace func(line string) string
		line    func(target int) int // expected 1-based diagnostic line from the 1-based target line
		want    string               // substring of the message
		sev     string
	}
	same := func(l int) int { return l }
	muts := []mutation{
		{"bad dtype", "dtypes: [", func(l string) string { return strings.Replace(l, "F", "Q", 1) }, same, "unknown dtype", "error"},
		{"missing kernel", "kernel: ", func(string) string { return "" }, func(l int) int { return l - 1 }, "no required key kernel", "error"},
		{"unparsable formula", "bytes_moved:", func(l string) string { return strings.Replace(l, `"`, `"(`, 1) }, same, "cost.bytes_moved: cannot parse cost formula", "error"},
		{"duplicate key", "blurb:", func(l string) string { return "op_kind: Gather" }, same, "duplicate key op_kind", "error"},
		{"stray tab", "rank:", func(l string) string { return "\t" + strings.TrimLeft(l, " ") }, same, "stray TAB", "error"},
		{"bad determinism", "determinism:", func(l string) string { return strings.Replace(l, "determinism: ", "determinism: sometimes_", 1) }, same, "determinism", "error"},
		{"unknown top-level key", "kernel_revision_hash:", func(l string) string { return strings.Replace(l, "kernel_revision_hash", "kernel_revision_hsh", 1) }, same, "unknown top-level key kernel_revision_hsh", "warning"},
		{"heading mismatch", "## ", func(l string) string { return "## not_this_kernel (a heading)" }, same, "does not match", "warning"},
		// yaml.v3 numbers this parser error one line early (0-based)
		{"unclosed flow sequence", "blurb:", func(l string) string { return strings.Replace(l, "blurb: ", "blurb: [unclosed ", 1) }, same, "is not valid YAML: did not find expected ',' or ']'", "error"},
		{"bad dtype_rule", "dtype_rule:", func(l string) string { return strings.Replace(l, "dtype_rule: ", "dtype_rule: widen(", 1) }, same, "dtype_rule", "error"},
		// a rule naming an operand the kernel does not have: an error at its line
		{"unknown shape_rule operand", "shape_rule:", func(l string) string {
			return l[:strings.Index(l, "shape_rule:")] + "shape_rule: same_as(inptu)"
		}, same, "shape_rule: same_as(inptu …) names no input of this kernel (its input", "error"},
		{"unknown dtype_rule operand", "dtype_rule:", func(l string) string {
			return l[:strings.Index(l, "dtype_rule:")] + "dtype_rule: passthrough(inptu)"
		}, same, "dtype_rule: passthrough(inptu) names no input of this kernel (its input", "error"},
	}
	for _, s := range seeds {
		src := readSeed(t, s.file)
		lines := strings.Split(string(src), "\n")
		// target the second kernel section, past the front matter
		start := 0
		for n, i := 0, 0; i < len(lines); i++ {
			if strings.HasPrefix(lines[i], "## ") {
				if n++; n == 2 {
					start = i
					break
				}
			}
		}
		for _, m := range muts {
			t.Run(s.file+"/"+m.name, func(t *testing.T) {
				target := -1
				for i := start; i < len(lines); i++ {
					if strings.Contains(strings.TrimLeft(lines[i], " "), m.find) && (m.find == "## " || !strings.HasPrefix(lines[i], "## ")) {
						if m.find == "kernel: " && !strings.HasPrefix(strings.TrimLeft(lines[i], " "), "kernel: ") {
							continue
						}
						target = i
						break
					}
				}
				if target < 0 {
					t.Fatalf("no line with %q", m.find)
				}
				mut := append([]string(nil), lines...)
				mut[target] = m.replace(mut[target])
				_, ds := Parse("broken.md", []byte(strings.Join(mut, "\n")))
				var got []Diagnostic
				for _, d := range ds {
					if d.Severity != "info" {
						got = append(got, d)
					}
				}
				if len(got) != 1 {
					t.Fatalf("%d diagnostics, want 1: %v", len(got), got)
				}
				d := got[0]
				if d.Line != m.line(target+1) || !strings.Contains(d.Msg, m.want) || d.Severity != m.sev || d.File != "broken.md" {
					t.Errorf("got %s; want line %d, %s containing %q", d, m.line(target+1), m.sev, m.want)
				}
				if !strings.HasPrefix(d.String(), fmt.Sprintf("broken.md:%d: ", d.Line)) {
					t.Errorf("String() = %q", d.String())
				}
				// the finding names the kernel of the section it is in
				want := KernelID{s.provider, headingName(strings.TrimPrefix(lines[start], "## ")), "broken.md", start + 1}
				if len(d.Kernels) != 1 || d.Kernels[0] != want {
					t.Errorf("Kernels = %+v, want [%+v]", d.Kernels, want)
				}
			})
		}
		t.Run(s.file+"/truncated block", func(t *testing.T) {
			// cut the file in the middle of its last block
			last := -1
			for i, l := range lines {
				if strings.HasPrefix(l, "```fkc") {
					last = i
				}
			}
			cut := strings.Join(lines[:last+12], "\n")
			d, ds := Parse("cut.md", []byte(cut))
			var got []Diagnostic
			for _, x := range ds {
				if x.Severity != "info" {
					got = append(got, x)
				}
			}
			if len(got) != 1 || got[0].Line != last+1 || !strings.Contains(got[0].Msg, "never closed") {
				t.Fatalf("got %v; want one diagnostic at line %d", got, last+1)
			}
			if k := got[0].Kernels; len(k) != 1 || k[0].Kernel != headingName(strings.TrimPrefix(lines[lastHeading(lines, last)], "## ")) {
				t.Errorf("Kernels = %+v: not the unclosed block's section", k)
			}
			if len(d.Kernels) != s.kernels-1 {
				t.Errorf("%d kernels loaded, want %d", len(d.Kernels), s.kernels-1)
			}
		})
		t.Run(s.file+"/missing closing fence mid-file", func(t *testing.T) {
			mut := append([]string(nil), lines...)
			fences := 0
			at := -1
			for i, l := range mut {
				if strings.HasPrefix(l, "```") {
					fences++
					if fences == 4 { // the closing fence of the second block
						mut[i] = ""
						at = i
						break
					}
				}
			}
			d, ds := Parse("nofence.md", []byte(strings.Join(mut, "\n")))
			var got []Diagnostic
			for _, x := range ds {
				if x.Severity != "info" {
					got = append(got, x)
				}
			}
			if len(got) != 1 || !strings.Contains(got[0].Msg, "never closed") {
				t.Fatalf("got %v (fence removed at line %d)", got, at+1)
			}
			if len(d.Kernels) != s.kernels-1 {
				t.Errorf("%d kernels loaded, want %d", len(d.Kernels), s.kernels-1)
			}
		})
	}
}

// lastHeading is the index of the last "## " line before line i.
func lastHeading(lines []string, i int) int {
	for i--; i >= 0 && !strings.HasPrefix(lines[i], "## "); i-- {
	}
	return i
}

// A finding about the document as a whole concerns no kernel; the rebuilt
// nesting of a whole document is one such finding.
func TestDocumentFindingsNameNoKernel(t *testing.T) {
	_, ds := Parse("000", readSeed(t, "fuel-vulkan-kernels.fkc.md"))
	if len(ds) != 1 || ds[0].Code != "RebuiltNesting" || ds[0].Kernels != nil {
		t.Errorf("diagnostics %+v", ds)
	}
	_, ds = Parse("nofm.md", []byte("# t\n## k\n```fkc\nkernel: k\nbogus: 1\n```\n"))
	var doc, kern int
	for _, d := range ds {
		switch {
		case d.Kernels == nil:
			doc++
		case len(d.Kernels) == 1 && d.Kernels[0] == (KernelID{"", "k", "nofm.md", 2}):
			kern++
		default:
			t.Errorf("%s: Kernels %+v", d, d.Kernels)
		}
	}
	if doc != 1 || kern < 2 { // no front matter; unknown key bogus and the required keys
		t.Errorf("%d document findings, %d kernel findings: %v", doc, kern, ds)
	}
}

func TestParseOddInputs(t *testing.T) {
	for _, src := range []string{
		"", "---", "---\n---\n", "# t\n## k\n```fkc\n", "```fkc\nkernel: x\n```\n",
		"---\nprovider:\nname: p\n---\n# t\n## k\n```fkc\naccept:\n- name: x\n```\n",
		"---\nfkc_version: 1\nprovider: {name: p, backend: Cpu}\n---\n# t\n## k (x)\n```fkc\nkernel: k\n: :\n```\n",
		"---\nfkc_version: [\n---\n",
		"## a\n```fkc\n\tkernel: a\n```\n## b\n",
	} {
		d, _ := Parse("odd.md", []byte(src))
		if d == nil {
			t.Errorf("nil document for %q", src)
		}
		if _, err := Format([]byte(src)); err != nil {
			t.Errorf("Format(%q): %v", src, err)
		}
	}
}

// FuzzParse: the loader never panics, Format is idempotent, and a formatted
// document loads to the same model.
func FuzzParse(f *testing.F) {
	// Excerpts of the seeds (front matter and the first two sections): the
	// fuzzing engine crawls on whole 20-80 KB documents.
	for _, s := range seeds {
		lines := strings.SplitAfter(string(readSeed(f, s.file)), "\n")
		n, end := 0, len(lines)
		for i, l := range lines {
			if strings.HasPrefix(l, "## ") {
				if n++; n == 3 {
					end = i
					break
				}
			}
		}
		f.Add([]byte(strings.Join(lines[:end], "")))
	}
	f.Add([]byte("---\nprovider:\nname: p\n---\n# t\n## k\n```fkc\nkernel: k\naccept:\ninputs:\n- name: x\ndtypes: [F32]\n```\n"))
	f.Add([]byte("## a\n```fkc\naccept:\n  inputs:\n  - name: x\n    dtypes: [F32]\n  op_params:\n```\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		d1, _ := Parse("fuzz.md", src)
		out, err := Format(src)
		if err != nil {
			return
		}
		again, err := Format(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("Format not idempotent (%v):\n%s", err, firstDiff(again, out))
		}
		d2, _ := Parse("fuzz.md", out)
		if !reflect.DeepEqual(comparable(d1), comparable(d2)) {
			t.Fatalf("formatted document loads to a different model")
		}
	})
}

// A longer fence shows a shorter one inside it (CommonMark): a ````
// markdown block before the first section, holding a ```fkc example, is
// prose; every seed kernel still loads. The ``` inside used to close the
// outer block, and the next section's kernel was silently lost.
func TestLongerFenceHoldsAnExample(t *testing.T) {
	example := "````markdown\nA kernel section looks like this:\n\n## example\n\n```fkc\nkernel: example\n```\n````\n\n"
	for _, s := range seeds {
		src := string(readSeed(t, s.file))
		i := strings.Index(src, "\n## ")
		if i < 0 {
			t.Fatalf("%s: no section", s.file)
		}
		d, _ := Parse(s.file, []byte(src[:i+1]+example+src[i+1:]))
		if d == nil || len(d.Kernels) != s.kernels {
			n := -1
			if d != nil {
				n = len(d.Kernels)
			}
			t.Errorf("%s with a ```` example: %d kernels, want %d", s.file, n, s.kernels)
		}
	}
}

// A document's bytes that are not UTF-8 text with LF or CRLF line endings
// are named: a byte order mark is ignored (the same kernels load, an info
// finding says so), CR-only line endings are an error naming them (the file
// reads as one line), a Latin-1 line is a warning at that line.
func TestEncodingFindings(t *testing.T) {
	s := seeds[0]
	src := readSeed(t, s.file)
	find := func(ds []Diagnostic, code string) *Diagnostic {
		for i := range ds {
			if ds[i].Code == code {
				return &ds[i]
			}
		}
		return nil
	}
	codes := []string{"ByteOrderMark", "LineEndings", "NotUTF8"}

	plain, pds := Parse("plain", src)
	crlf, cds := Parse("crlf", bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")))
	for _, c := range codes {
		if find(pds, c) != nil || find(cds, c) != nil {
			t.Errorf("%s on a plain or CRLF seed", c)
		}
	}
	if len(crlf.Kernels) != len(plain.Kernels) {
		t.Errorf("CRLF: %d kernels, want %d", len(crlf.Kernels), len(plain.Kernels))
	}

	d, ds := Parse("bom", append([]byte{0xef, 0xbb, 0xbf}, src...))
	if f := find(ds, "ByteOrderMark"); f == nil || f.Line != 1 || f.Severity != "info" {
		t.Errorf("BOM: finding %v in %v", f, ds)
	}
	if HasErrors(ds) || len(d.Kernels) != s.kernels || d.Provider != plain.Provider {
		t.Errorf("BOM: %d kernels (want %d), provider %q, findings %v", len(d.Kernels), s.kernels, d.Provider, ds)
	}

	_, ds = Parse("cr", bytes.ReplaceAll(src, []byte("\n"), []byte("\r")))
	want := fmt.Sprintf("(%d in the file)", bytes.Count(src, []byte("\n")))
	if f := find(ds, "LineEndings"); f == nil || f.Severity != "error" || !strings.Contains(f.Msg, "LF or CRLF") || !strings.Contains(f.Msg, want) {
		t.Errorf("CR-only: finding %v in %v, want %s", f, ds, want)
	}
	// the file's last \r counts too: one line ending in a bare CR
	if _, ds = Parse("cr1", []byte("abc\r")); find(ds, "LineEndings") == nil {
		t.Errorf("a lone line ending in CR: %v", ds)
	}
	if _, ds = Parse("crlf-last", []byte("abc\r\nx\r\n")); find(ds, "LineEndings") != nil {
		t.Errorf("CRLF to the end: %v", ds)
	}

	lines := bytes.Split(src, []byte("\n"))
	lines[20] = append(append([]byte{}, lines[20]...), []byte(" caf\xe9")...)
	d, ds = Parse("latin1", bytes.Join(lines, []byte("\n")))
	if f := find(ds, "NotUTF8"); f == nil || f.Line != 21 || f.Severity != "warning" {
		t.Errorf("Latin-1: finding %v in %v", f, ds)
	}
	if len(d.Kernels) != s.kernels {
		t.Errorf("Latin-1: %d kernels, want %d", len(d.Kernels), s.kernels)
	}
}

// Every key of a block has its source line (Kernel.KeyLine), so that a
// finding about a key sits beside it: a list entry at its first key, a
// key the block lacks at its nearest enclosing key, or at the fence. The
// lines are checked against the text: each names the key it is for.
func TestKeyLines(t *testing.T) {
	src := []byte("---\nfkc_version: 1\nprovider:\n  name: p\n---\n# T\n\n## k\n\n```fkc\n" +
		"kernel: k\n" + // 11
		"op_kind: Pad\n" + // 12
		"backend: cpu\n" +
		"entry_point: k\n" +
		"determinism: bitwise\n" +
		"accept:\n" + // 16
		"  inputs:\n" + // 17
		"    - name: x\n" + // 18
		"      dtypes: [F32]\n" + // 19
		"return:\n" + // 20
		"  outputs:\n" +
		"    - name: out\n" + // 22
		"      dtype_rule: passthrough(x)\n" + // 23
		"      shape_rule: same_as(inptu)\n" + // 24
		"```\n")
	d, ds := Parse("k.fkc.md", src)
	k := kernelByName(t, d, "k")
	lines := strings.Split(string(src), "\n")
	for path, want := range map[string]int{"op_kind": 12, "accept": 16, "accept.inputs": 17, "accept.inputs.0": 18,
		"accept.inputs.0.dtypes": 19, "return.outputs.0.dtype_rule": 23, "return.outputs.0.shape_rule": 24,
		"cost.bytes_moved": 10, "accept.inputs.0.layout": 18, "accept.inputs.3.dtypes": 17} {
		if got := k.KeyLine(path); got != want {
			t.Errorf("KeyLine(%q) = %d (%q), want %d (%q)", path, got, lines[got-1], want, lines[want-1])
		}
	}
	var errs []Diagnostic
	for _, x := range ds {
		if x.Severity == "error" {
			errs = append(errs, x)
		}
	}
	if len(errs) != 1 || errs[0].Line != 24 || !strings.Contains(errs[0].Msg, "return.outputs.0.shape_rule: same_as(inptu …) names no input of this kernel (its input is x)") {
		t.Errorf("errors %v: want one, for same_as(inptu) at line 24", errs)
	}
}
