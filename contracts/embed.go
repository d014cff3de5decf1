// Package contracts embeds the FKC documents this project ships: the four
// seed contracts (seeds/, byte-identical copies of the user's documents,
// never edited) and this project's own contracts (project/*.md, for the
// implementations no seed describes).
package contracts

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/fkc-playground/fkc/contract"
)

// FS holds seeds/*.md and project/ (all:project keeps the directory
// embeddable while it only holds .keep).
//
//go:embed seeds/*.md all:project
var FS embed.FS

// JudgeFS holds the Judge's reports shipped with the app (judge/*.json:
// `fkc judge -o` on the machines named in their file names).
//
//go:embed judge/*.json
var JudgeFS embed.FS

// JudgeReports lists the shipped reports by file name.
func JudgeReports() []string {
	ents, _ := fs.ReadDir(JudgeFS, "judge")
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// Dir is the repository path of this package; documents are reported as
// "contracts/seeds/NAME.md" so diagnostics point at the real files.
const Dir = "contracts"

// Files lists the embedded FKC documents (seeds first, then project), by
// their path inside FS.
func Files() []string {
	var out []string
	for _, dir := range []string{"seeds", "project"} {
		ents, err := fs.ReadDir(FS, dir)
		if err != nil {
			continue
		}
		var names []string
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
				names = append(names, path.Join(dir, e.Name()))
			}
		}
		sort.Strings(names)
		out = append(out, names...)
	}
	return out
}

// LoadAll parses every embedded document: the seeds and the project's own.
func LoadAll() ([]*contract.Document, []contract.Diagnostic) { return load(Files()) }

// loadSeeds parses only the four seed documents.
func loadSeeds() ([]*contract.Document, []contract.Diagnostic) {
	var seeds []string
	for _, f := range Files() {
		if strings.HasPrefix(f, "seeds/") {
			seeds = append(seeds, f)
		}
	}
	return load(seeds)
}

func load(files []string) ([]*contract.Document, []contract.Diagnostic) {
	var docs []*contract.Document
	var diags []contract.Diagnostic
	for _, f := range files {
		src, err := FS.ReadFile(f)
		if err != nil {
			diags = append(diags, contract.Diagnostic{File: path.Join(Dir, f), Severity: "error", Msg: err.Error()})
			continue
		}
		d, ds := contract.Parse(path.Join(Dir, f), src)
		docs = append(docs, d)
		diags = append(diags, ds...)
	}
	return docs, diags
}

// UnknownOpKinds warns of kernels whose op_kind none of the shipped
// contracts (the seeds and this project's own) uses: a misspelt kind
// ("MaskedFil") keys the kernel's bindings apart from its op's others, so
// DuplicateKernelRef and the catalog's op filter no longer see them
// together. A warning, not an error: a contract may describe an op this
// project does not run. fkc lint and the page's contract editor both
// report it.
func UnknownOpKinds(docs []*contract.Document) []contract.Diagnostic {
	known, names := shippedOpKinds()
	var out []contract.Diagnostic
	for _, d := range docs {
		for _, k := range d.Kernels {
			if k.OpKind != "" && !known[k.OpKind] {
				out = append(out, contract.Diagnostic{File: d.File, Line: k.KeyLine("op_kind"), Severity: "warning", Code: "UnknownOpKind",
					Msg:     fmt.Sprintf("op_kind %s is none of the kinds the shipped contracts use (%s)", k.OpKind, strings.Join(names, ", ")),
					Kernels: []contract.KernelID{d.KernelID(k)}})
			}
		}
	}
	return out
}

// shippedOpKinds is the set of op_kinds of the shipped contracts and its
// sorted list, read once: loading every document is not free, and the
// page's editor lints at each change.
var shippedOpKinds = sync.OnceValues(func() (map[string]bool, []string) {
	shipped, _ := LoadAll()
	known := map[string]bool{}
	for _, d := range shipped {
		for _, k := range d.Kernels {
			known[k.OpKind] = true
		}
	}
	names := make([]string, 0, len(known))
	for k := range known {
		names = append(names, k)
	}
	sort.Strings(names)
	return known, names
})
