package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/contracts"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/registry"
	"github.com/fkc-playground/fkc/tensor"
)

// LinkFunc says which implementation of this project serves a contract
// entry_point ("kernels/cpu.Pad", …): the engine's link table
// (engine.Engine.LinkFor). nil shows every entry point as "not linked".
type LinkFunc func(entryPoint string) (where string, linked bool)

func (f LinkFunc) of(entryPoint string) (string, bool) {
	if f == nil {
		return "not linked", false
	}
	return f(entryPoint)
}

// fileError words a failed file operation "lint: nope.md: no such file or
// directory": the command, then pathError's text.
func fileError(cmd string, err error) error {
	return fmt.Errorf("%s: %v", cmd, pathError(err))
}

// pathError is an *fs.PathError as "nope.md: no such file or directory",
// the path and the cause: its own text leads with the system call ("stat
// nope.md: …"). Any other error is returned as it is.
func pathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// expand turns FILE|DIR operands into document paths: a directory
// contributes every FKC document below it (isDocument), sorted; a file is
// taken as given.
func expand(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// Only regular files (or links to them) inside a directory: a
			// FIFO there blocked the walk until a writer came (`fkc lint
			// DIR` hung), a device would be read as a document.
			if d.IsDir() || !regular(path, d) {
				return nil
			}
			if isDocument(path) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// regular reports whether a directory entry is a regular file, following a
// symbolic link.
func regular(path string, d fs.DirEntry) bool {
	if d.Type()&fs.ModeSymlink != 0 {
		st, err := os.Stat(path)
		return err == nil && st.Mode().IsRegular()
	}
	return d.Type().IsRegular()
}

// isDocument: a .md file, or any other file with a ```fkc block within
// the size a document may have (contract.MaxFileBytes: a block after the
// first MiB was missed). The user's seeds come as .txt files and must load
// as given; the sniff keeps `fkc lint contracts/*` from reading the Go
// files and the compiled cache beside the documents. A pipe or device
// named on its own is taken as given: sniffing would consume what the
// loader then reads (`fkc lint <(cat doc)` saw an empty document).
func isDocument(path string) bool {
	if strings.HasSuffix(path, ".md") {
		return true
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head, _ := io.ReadAll(io.LimitReader(f, contract.MaxFileBytes))
	return bytes.Contains(head, []byte("```fkc"))
}

// documentFiles lists the FKC documents named by FILE|DIR operands.
// Explicit files that are not FKC documents (isDocument) are skipped with
// a note on stderr (so `fkc lint contracts/*` works, and fmt rewrites no
// other file); operands that hold no document at all are an error.
func documentFiles(cmd string, paths []string, stderr io.Writer) ([]string, error) {
	var files []string
	for _, p := range paths {
		found, err := expand([]string{p})
		if err != nil {
			return nil, fileError(cmd, err)
		}
		// a directory's files are documents already (expand sniffs them);
		// a file named on its own is sniffed here
		if len(found) == 1 && found[0] == p && !isDocument(p) {
			fmt.Fprintf(stderr, "fkc %s: skipping %s: not an FKC document (neither .md nor holding a ```fkc block)\n", cmd, p)
			continue
		}
		files = append(files, found...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no FKC document in %s", cmd, strings.Join(paths, " "))
	}
	return files, nil
}

// loadPaths loads the documents named by FILE|DIR operands (documentFiles),
// or the embedded contracts when there are none.
func loadPaths(cmd string, paths []string, stderr io.Writer) ([]*contract.Document, []contract.Diagnostic, error) {
	if len(paths) == 0 {
		docs, diags := contracts.LoadAll()
		return docs, diags, nil
	}
	files, err := documentFiles(cmd, paths, stderr)
	if err != nil {
		return nil, nil, err
	}
	var docs []*contract.Document
	var diags []contract.Diagnostic
	for _, f := range files {
		d, ds := contract.LoadFile(f)
		if d != nil {
			docs = append(docs, d)
		}
		diags = append(diags, ds...)
	}
	return docs, diags, nil
}

func sortDiags(ds []contract.Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].File != ds[j].File {
			return ds[i].File < ds[j].File
		}
		return ds[i].Line < ds[j].Line
	})
}

// Contracts implements `fkc contracts [--json] [FILE|DIR ...]`: providers,
// kernels, bindings (dtypes) and link status, of the given documents or of
// the embedded ones. Exit status: 0, or 1 when a document has errors (they
// are printed to stderr; `fkc lint` explains them), 2 on usage errors.
func Contracts(args []string, stdout, stderr io.Writer, links LinkFunc) int {
	asJSON, report, paths, err := contractsFlags(args, stdout)
	if err == errHelp {
		return 0
	} else if err != nil {
		return fail(stderr, err)
	}
	m, err := loadMeasured(report)
	if err != nil {
		return fail(stderr, err)
	}
	docs, diags, err := loadPaths("contracts", paths, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	reg := registry.Build(docs)
	status := 0
	for _, d := range diags {
		if d.Severity == "error" {
			fmt.Fprintln(stderr, d)
			status = 1
		}
	}
	if asJSON {
		out := contractsJSON(docs, reg, links, append(append([]contract.Diagnostic{}, diags...), reg.Diags...), m)
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "fkc: %v\n", err)
			return 1
		}
		return status
	}
	contractsText(stdout, docs, reg, links, m)
	return status
}

// contractsFlags parses contracts' arguments: --json, --judge's report,
// the FILE|DIR operands.
func contractsFlags(args []string, help io.Writer) (asJSON bool, report string, paths []string, err error) {
	fs := newFlags("contracts")
	fs.BoolVar(&asJSON, "json", false, "JSON output")
	var r reportFile
	fs.Var(&r, "judge", "beside each kernel's cost formulas, what a fkc judge `report.json` measured")
	paths, err = flags(fs, args, help)
	return asJSON, string(r), paths, err
}

func dtypeList(b *registry.Binding) string {
	names := make([]string, 0, len(b.InputDTypes)+len(b.OutDTypes))
	for _, d := range b.InputDTypes {
		names = append(names, d.String())
	}
	ins := strings.Join(names, ",")
	names = names[:0]
	for _, d := range b.OutDTypes {
		names = append(names, d.String())
	}
	return ins + "→" + strings.Join(names, ",")
}

func contractsText(w io.Writer, docs []*contract.Document, reg *registry.Registry, links LinkFunc, m *measured) {
	nk, nreg := 0, 0
	for _, d := range docs {
		rebuilt := ""
		if len(d.Rebuilt) > 0 {
			rebuilt = " (indentation lost; nesting rebuilt)"
		}
		fmt.Fprintf(w, "provider %s (backend %s, %s) — %s: %d kernel sections%s\n",
			d.Provider.Name, d.Provider.Backend, d.Provider.KernelSource, d.File, len(d.Kernels), rebuilt)
		for _, k := range d.Kernels {
			nk++
			where, linked := links.of(k.EntryPoint)
			link := "linked: " + where
			if !linked {
				link = "not linked"
				if where != "" && where != "not linked" {
					link += " (" + where + ")"
				}
			}
			var binds []string
			if k.Registrable {
				nreg++
				for _, b := range reg.Of(k) {
					binds = append(binds, dtypeList(b))
				}
			}
			bs := strings.Join(binds, " ")
			if !k.Registrable {
				bs = "describe-only (registrable: false)"
			}
			fmt.Fprintf(w, "  %-28s %-12s %-8s %-22s %s\n      %s:%d  entry_point %s — %s\n",
				k.Name, k.OpKind, k.Backend, k.Determinism, bs, d.File, k.Line, k.EntryPoint, link)
			m.text(w, d.Provider.Name, k)
		}
	}
	dups := 0
	for _, d := range reg.Diags {
		if d.Code == "DuplicateKernelRef" {
			dups++
		}
	}
	fmt.Fprintf(w, "%d kernel sections (%d registrable, %d describe-only) in %d documents; %d bindings; %d keys bound more than once (DuplicateKernelRef, see fkc lint)\n",
		nk, nreg, nk-nreg, len(docs), len(reg.Bindings), dups)
}

type jsonBinding struct {
	Key     string   `json:"key"`
	Inputs  []string `json:"inputs"`
	Outputs []string `json:"outputs"`
}

type jsonLink struct {
	Linked bool   `json:"linked"`
	Where  string `json:"where"`
}

type jsonKernel struct {
	*contract.Kernel
	Provider string        `json:"provider"`
	File     string        `json:"file"`
	Where    string        `json:"where"` // file:line of the heading
	Formulas []contract.KV `json:"formulas"`
	Bindings []jsonBinding `json:"bindings"`
	Link     jsonLink      `json:"link"`
	// Measured: with --judge, what the report measured for this kernel.
	Measured []jsonMeasured `json:"measured,omitempty"`
}

type jsonDoc struct {
	File       string            `json:"file"`
	Preamble   []string          `json:"preamble,omitempty"`
	FKCVersion int               `json:"fkc_version"`
	Provider   contract.Provider `json:"provider"`
	Title      string            `json:"title"`
	Rebuilt    []string          `json:"rebuilt,omitempty"`
	Kernels    int               `json:"kernels"`
}

type jsonOut struct {
	Documents   []jsonDoc             `json:"documents"`
	Kernels     []jsonKernel          `json:"kernels"`
	Summary     map[string]int        `json:"summary"`
	Diagnostics []contract.Diagnostic `json:"diagnostics"`
	Judge       *jsonJudge            `json:"judge,omitempty"`
}

func contractsJSON(docs []*contract.Document, reg *registry.Registry, links LinkFunc, diags []contract.Diagnostic, m *measured) jsonOut {
	out := jsonOut{Kernels: []jsonKernel{}, Diagnostics: diags, Judge: m.header()}
	if out.Diagnostics == nil {
		out.Diagnostics = []contract.Diagnostic{}
	}
	nreg := 0
	for _, d := range docs {
		out.Documents = append(out.Documents, jsonDoc{d.File, d.Preamble, d.FKCVersion, d.Provider, d.Title, d.Rebuilt, len(d.Kernels)})
		for _, k := range d.Kernels {
			jk := jsonKernel{Kernel: k, Provider: d.Provider.Name, File: d.File,
				Where: fmt.Sprintf("%s:%d", d.File, k.Line), Formulas: k.Formulas(), Bindings: []jsonBinding{}}
			if jk.Formulas == nil {
				jk.Formulas = []contract.KV{}
			}
			jk.Link.Where, jk.Link.Linked = links.of(k.EntryPoint)
			if k.Registrable {
				nreg++
				for _, b := range reg.Of(k) {
					jb := jsonBinding{Key: b.Key.String()}
					for _, t := range b.InputDTypes {
						jb.Inputs = append(jb.Inputs, t.String())
					}
					for _, t := range b.OutDTypes {
						jb.Outputs = append(jb.Outputs, t.String())
					}
					jk.Bindings = append(jk.Bindings, jb)
				}
			}
			jk.Measured = m.json(d.Provider.Name, k)
			out.Kernels = append(out.Kernels, jk)
		}
	}
	dups := 0
	for _, d := range reg.Diags {
		if d.Code == "DuplicateKernelRef" {
			dups++
		}
	}
	out.Summary = map[string]int{"documents": len(docs), "kernels": len(out.Kernels), "registrable": nreg,
		"describe_only": len(out.Kernels) - nreg, "bindings": len(reg.Bindings), "duplicate_keys": dups}
	return out
}

// Lint implements `fkc lint [FILE|DIR ...]` (no operands: the embedded
// contracts). It prints every finding as `file:line: severity: message`,
// sorted by file and line: the loader's (bad dtype, missing key, unparsable
// cost formula, duplicate key, stray TAB, truncated block, rebuilt
// indentation, …) and the registry's: DuplicateKernelRef, two registrable
// bindings on one (op_kind, dtypes, backend) key, is an error as SPEC §2
// says — the seeds themselves contain 38 such keys, so they lint with status
// 1. (Loading and dispatch still work: every binding is kept and dispatch
// tells the pair apart by the op/variant its link serves; each kernel page
// says how.) A summary line goes to stderr.
//
// Exit status: 1 if any finding is an error; 0 if there are only warnings
// and info findings; 2 on usage errors.
func Lint(args []string, stdout, stderr io.Writer) int {
	paths, err := flags(newFlags("lint"), args, stdout)
	if err == errHelp {
		return 0
	} else if err != nil {
		return fail(stderr, err)
	}
	docs, diags, err := loadPaths("lint", paths, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	all := append(diags, registry.Build(docs).Diags...)
	all = append(all, contracts.UnknownOpKinds(docs)...)
	sortDiags(all)
	all = contract.CapFindings(all)
	count := map[string]int{}
	for _, d := range all {
		fmt.Fprintln(stdout, d)
		count[d.Severity]++
	}
	fmt.Fprintf(stderr, "fkc lint: %d documents: %d errors, %d warnings, %d info\n",
		len(docs), count["error"], count["warning"], count["info"])
	if count["error"] > 0 {
		return 1
	}
	return 0
}

// Fmt implements `fkc fmt [-w] [-l] FILE|DIR...`: rewrite into canonical
// indentation (contract.Format). Without -w the formatted text goes to
// stdout; with -w files are rewritten in place (only when they change); -l
// lists the files whose formatting differs. Exit status 1 on a read/write
// or format error, 2 on usage errors.
func Fmt(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("fmt")
	write := fs.Bool("w", false, "rewrite the files whose formatting differs, in place (atomically)")
	list := fs.Bool("l", false, "list the files whose formatting differs")
	paths, err := flags(fs, args, stdout)
	if err == errHelp {
		return 0
	} else if err != nil {
		return fail(stderr, err)
	}
	if len(paths) == 0 {
		return fail(stderr, kernels.Usagef("fmt: needs a FILE or DIR (usage: fkc %s)", commandOf("fmt").usage))
	}
	files, err := documentFiles("fmt", paths, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	status := 0
	for _, f := range files {
		src, err := contract.ReadFile(f)
		if err != nil {
			status = fail(stderr, fileError("fmt", err))
			continue
		}
		out, err := contract.Format(src)
		if err != nil {
			status = fail(stderr, fmt.Errorf("fmt: %s: %v", f, err))
			continue
		}
		changed := string(out) != string(src)
		if changed {
			if err := sameContracts(f, src, out); err != nil {
				status = fail(stderr, fmt.Errorf("fmt: %s: not formatted: %v", f, err))
				continue
			}
		}
		if *list && changed {
			fmt.Fprintln(stdout, f)
		}
		switch {
		case *write:
			if changed { // atomically: a failed write leaves the document as it was
				err := atomicWrite(func() error {
					return tensor.WriteFileAtomic(f, func(w io.Writer) error { _, err := w.Write(out); return err })
				})
				if err != nil {
					status = fail(stderr, fileError("fmt", err))
				}
			}
		case !*list:
			stdout.Write(out)
		}
	}
	return status
}

// sameContracts checks that formatting keeps a document's meaning: the
// formatted text loads the same contracts as the original (every field,
// prose and comments included; line numbers and the record of rebuilt
// indentation aside) and raises no error the original did not. A block
// that formatting pushes past a size limit, or an unclosed block whose
// following prose would be re-indented, fails it.
func sameContracts(name string, src, out []byte) error {
	a, da := contract.Parse(name, src)
	b, db := contract.Parse(name, out)
	if sa, sb := docSignature(a), docSignature(b); sa != sb {
		return fmt.Errorf("the formatted text would not load the same contracts (%s)", docDiff(a, b))
	}
	for _, d := range db {
		if d.Severity == "error" && !hasError(da, d) {
			return fmt.Errorf("the formatted text would have an error the file has not: line %d: %s", d.Line, d.Msg)
		}
	}
	for _, d := range da {
		if d.Code == "Unclosed" {
			return fmt.Errorf("line %d: %s (close it first; formatting would re-indent what follows it)", d.Line, d.Msg)
		}
	}
	return nil
}

// docSignature is what a document loads to, less where it was (its file,
// its lines) and the record of rebuilt indentation: the document's own
// fields, then each kernel's kernelSignature.
func docSignature(d *contract.Document) string {
	if d == nil {
		return ""
	}
	c := *d
	c.File, c.Rebuilt, c.Kernels = "", nil, nil
	j, _ := json.Marshal(&c)
	sig := string(j)
	for _, k := range d.Kernels {
		sig += "\n" + kernelSignature(k)
	}
	return sig
}

func kernelSignature(k *contract.Kernel) string {
	c := *k
	c.Line, c.BlockLine = 0, 0
	j, _ := json.Marshal(&c)
	return string(j)
}

// docDiff names the first thing that differs between two loads.
func docDiff(a, b *contract.Document) string {
	switch {
	case a == nil || b == nil:
		return "one of them does not load"
	case len(a.Kernels) != len(b.Kernels):
		return fmt.Sprintf("%d kernel sections against %d", len(a.Kernels), len(b.Kernels))
	}
	for i, k := range a.Kernels {
		if kernelSignature(k) != kernelSignature(b.Kernels[i]) {
			return "section ## " + k.Name + " changes"
		}
	}
	return "the front matter or the prose changes"
}

// hasError reports an error diagnostic with d's code and message in ds.
func hasError(ds []contract.Diagnostic, d contract.Diagnostic) bool {
	for _, x := range ds {
		if x.Severity == "error" && x.Code == d.Code && x.Msg == d.Msg {
			return true
		}
	}
	return false
}
