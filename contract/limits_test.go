package contract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const smallDoc = "---\nfkc_version: 1\nprovider:\n  name: p\n  backend: Cpu\n---\n# T\n\n"

func kernelSection(name, body string) string {
	return "## " + name + "\n\n```fkc\nkernel: " + name + "\nop_kind: Pad\nregistrable: true\nbackend: Cpu\nentry_point: x\n" + body + "```\n\n"
}

// TestDocumentSizeCaps: a document over a cap gets one TooLarge finding
// naming its size and the cap, from every entry point, and is not parsed;
// one just under is.
func TestDocumentSizeCaps(t *testing.T) {
	pad := func(n int) string { return smallDoc + strings.Repeat("x", n-len(smallDoc)-1) + "\n" }
	cases := []struct {
		name, src string
		want      string // "" = loads
	}{
		{"at the byte cap", pad(MaxFileBytes), ""},
		{"one byte over", pad(MaxFileBytes + 1), "is 8388609 bytes; an FKC document may be at most 8388608 bytes"},
		{"29 MB", pad(29 << 20), "is 30408704 bytes"},
		{"at the line cap", smallDoc + strings.Repeat("\n", MaxLines-strings.Count(smallDoc, "\n")), ""},
		{"one line over", smallDoc + strings.Repeat("\n", MaxLines-strings.Count(smallDoc, "\n")+1), "has 262145 lines; an FKC document may have at most 262144"},
		{"lines without a final newline", smallDoc + strings.Repeat("\n", MaxLines-strings.Count(smallDoc, "\n")) + "x", "has 262145 lines"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "doc.md")
			if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			d1, ds1 := Parse(p, []byte(c.src))
			d2, ds2 := LoadFile(p)
			_, ferr := Format([]byte(c.src))
			if c.want == "" {
				if d1 == nil || d2 == nil || ferr != nil || hasCode(ds1, "TooLarge") || hasCode(ds2, "TooLarge") {
					t.Fatalf("refused: %v %v %v", ds1, ds2, ferr)
				}
				return
			}
			for name, ds := range map[string][]Diagnostic{"Parse": ds1, "LoadFile": ds2} {
				if len(ds) != 1 || ds[0].Code != "TooLarge" || ds[0].Severity != "error" || !strings.Contains(ds[0].Msg, c.want) {
					t.Errorf("%s: %v", name, ds)
				}
			}
			if d1 != nil || d2 != nil {
				t.Error("a document over the cap was parsed")
			}
			var tl *TooLarge
			if !errors.As(ferr, &tl) {
				t.Errorf("Format: %v", ferr)
			}
		})
	}
}

func hasCode(ds []Diagnostic, code string) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}

// TestReadFileStream: a stream with no end is read only up to the cap.
func TestReadFileStream(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	_, err := ReadFile("/dev/zero")
	var tl *TooLarge
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "is more than 8388608 bytes") {
		t.Fatalf("err = %v", err)
	}
}

// TestBlockSizeCap: a block (or front matter) over MaxBlockBytes is not
// decoded — its section is not loaded, with a finding naming it — and the
// other sections load.
func TestBlockSizeCap(t *testing.T) {
	var fields strings.Builder
	fields.WriteString("accept:\n  inputs:\n    - name: x\n      dtypes: [F32]\n  op_params:\n    variant: v\n    fields:\n")
	for fields.Len() <= MaxBlockBytes {
		fields.WriteString("      f: {kind: u32}\n")
	}
	src := smallDoc + kernelSection("small", "") + kernelSection("big", fields.String()) + kernelSection("after", "")
	d, ds := Parse("doc.md", []byte(src))
	var names []string
	for _, k := range d.Kernels {
		names = append(names, k.Name)
	}
	if strings.Join(names, ",") != "small,after" {
		t.Errorf("loaded %v", names)
	}
	found := false
	for _, x := range ds {
		found = found || x.Code == "TooLarge" && strings.Contains(x.Msg, "section ## big is") && strings.Contains(x.Msg, "at most 65536")
	}
	if !found {
		t.Errorf("no TooLarge finding for ## big: %v", ds)
	}
	fm := "---\nfkc_version: 1\nprovider:\n  name: p\n" + strings.Repeat("  # a comment line\n", MaxBlockBytes/19+1) + "---\n# T\n"
	if _, ds := Parse("fm.md", []byte(fm)); !hasCode(ds, "TooLarge") {
		t.Errorf("front matter over the cap: %v", ds)
	}
}

// TestFindingsAndDTypeLists: a repeated dtype is one finding per dtype and
// one binding's worth of dtypes; findings stop at MaxDiagnostics, plus one
// that counts the rest with their gravest severity.
func TestFindingsAndDTypeLists(t *testing.T) {
	d, ds := Parse("doc.md", []byte(smallDoc+kernelSection("k", "accept:\n  inputs:\n    - name: x\n      dtypes: [F32, F64, F32, F32, F64, BF16]\n")))
	if len(d.Kernels) != 1 || len(d.Kernels[0].Inputs) != 1 || len(d.Kernels[0].Inputs[0].DTypes) != 3 {
		t.Fatalf("kernels %v", d.Kernels)
	}
	n := 0
	for _, x := range ds {
		if strings.Contains(x.Msg, "listed more than once") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d repeat findings, want 2 (F32, F64): %v", n, ds)
	}
	unknown := make([]string, 3000)
	for i := range unknown {
		unknown[i] = "Q"
	}
	_, ds = Parse("doc.md", []byte(smallDoc+kernelSection("k", "accept:\n  inputs:\n    - name: x\n      dtypes: ["+strings.Join(unknown, ", ")+"]\n")))
	last := ds[len(ds)-1]
	if len(ds) != MaxDiagnostics+1 || last.Code != "TooMany" || last.Severity != "error" || !HasErrors(ds) {
		t.Fatalf("%d findings, last %v", len(ds), last)
	}
}
