package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/internal/rawcount"
)

const seedsDir = "../contracts/seeds"

func call(f func([]string, *bytes.Buffer, *bytes.Buffer) int, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := f(args, &out, &errb)
	return code, out.String(), errb.String()
}

func contractsCmd(args []string, o, e *bytes.Buffer) int { return Contracts(args, o, e, nil) }
func lintCmd(args []string, o, e *bytes.Buffer) int      { return Lint(args, o, e) }
func fmtCmd(args []string, o, e *bytes.Buffer) int       { return Fmt(args, o, e) }

func TestContractsJSON(t *testing.T) {
	code, out, stderr := call(contractsCmd, "--json", seedsDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Kernels []struct {
			Kernel      string `json:"kernel"`
			Registrable bool   `json:"registrable"`
			Provider    string `json:"provider"`
			Where       string `json:"where"`
			Inputs      []struct {
				DTypes []string `json:"dtypes"`
			} `json:"inputs"`
			OpParams struct {
				Fields []struct{ Name string } `json:"fields"`
			} `json:"op_params"`
			Formulas []contract.KV `json:"formulas"`
			Bindings []struct {
				Key string `json:"key"`
			} `json:"bindings"`
			Link struct {
				Linked bool   `json:"linked"`
				Where  string `json:"where"`
			} `json:"link"`
		} `json:"kernels"`
		Summary map[string]int `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	reg := 0
	for _, k := range got.Kernels {
		if k.Registrable {
			reg++
			if len(k.Bindings) == 0 {
				t.Errorf("%s: registrable without bindings", k.Kernel)
			}
		} else if len(k.Bindings) != 0 {
			t.Errorf("%s: describe-only with bindings", k.Kernel)
		}
		if k.Provider == "" || !strings.Contains(k.Where, ".fkc.md:") || len(k.Inputs) == 0 || len(k.Inputs[0].DTypes) == 0 ||
			len(k.Formulas) == 0 || len(k.OpParams.Fields) == 0 {
			t.Errorf("%s: incomplete entry %+v", k.Kernel, k)
		}
		if k.Link.Linked || k.Link.Where != "not linked" {
			t.Errorf("%s: link %+v with no link table", k.Kernel, k.Link)
		}
	}
	files, _ := filepath.Glob(filepath.Join(seedsDir, "*.md"))
	sections, desc, bindings := blockCounts(t, files...)
	if len(got.Kernels) != sections || reg != sections-desc || got.Summary["describe_only"] != desc || got.Summary["bindings"] != bindings {
		t.Errorf("%d kernels, %d registrable, summary %v; the documents hold %d sections, %d describe-only, %d bindings",
			len(got.Kernels), reg, got.Summary, sections, desc, bindings)
	}
}

// The model listed is the same whether the seeds are loaded as given or
// after fkc fmt -w.
func TestContractsSameAfterFmt(t *testing.T) {
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(seedsDir, "*.md"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644)
	}
	if code, _, stderr := call(fmtCmd, "-w", dir); code != 0 {
		t.Fatalf("fmt -w: %d %s", code, stderr)
	}
	if code, out, _ := call(fmtCmd, "-l", dir); code != 0 || out != "" {
		t.Errorf("fmt -l after fmt -w lists %q", out)
	}
	_, a, _ := call(contractsCmd, "--json", seedsDir)
	_, b, _ := call(contractsCmd, "--json", dir)
	norm := func(s, d string) string {
		var v map[string]any
		json.Unmarshal([]byte(strings.ReplaceAll(s, d, "DIR")), &v)
		delete(v, "diagnostics")
		for _, doc := range v["documents"].([]any) {
			delete(doc.(map[string]any), "rebuilt")
		}
		out, _ := json.Marshal(v)
		return string(out)
	}
	if norm(a, seedsDir) != norm(b, dir) {
		t.Error("contracts --json differs after fmt -w")
	}
}

func TestContractsText(t *testing.T) {
	links := func(ep string) (string, bool) {
		if strings.HasSuffix(ep, "::pad_cpu") {
			return "kernels/cpu.Pad", true
		}
		return "not linked", false
	}
	code, out, stderr := call(func(args []string, o, e *bytes.Buffer) int { return Contracts(args, o, e, links) }, seedsDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(seedsDir, "*.md"))
	sections, desc, bindings := blockCounts(t, files...)
	for _, want := range []string{
		"provider fuel-vulkan-kernels (backend Vulkan", "pad_const_b1", "U8→U8 I8→I8",
		"describe-only (registrable: false)", "linked: kernels/cpu.Pad", "not linked",
		fmt.Sprintf("%d kernel sections (%d registrable, %d describe-only) in %d documents; %d bindings; %d keys bound more than once", sections, sections-desc, desc, len(files), bindings, sharedKeys(t, files...)),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// no operands: the embedded contracts (seeds + project)
	if code, out, _ := call(contractsCmd); code != 0 || !strings.Contains(out, "fuel-reference-backend") {
		t.Errorf("embedded: exit %d", code)
	}
	if code, _, _ := call(contractsCmd, "--bogus"); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
}

func TestLint(t *testing.T) {
	code, out, stderr := call(lintCmd, seedsDir)
	if code != 1 {
		t.Fatalf("lint seeds: exit %d, want 1 (the seeds' DuplicateKernelRef collisions are errors)\n%s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(seedsDir, "*.md"))
	if n, want := strings.Count(out, ": error: DuplicateKernelRef: "), sharedKeys(t, files...); n != want {
		t.Errorf("%d DuplicateKernelRef findings; the seeds share %d keys", n, want)
	}
	if !strings.Contains(out, "fuel-vulkan-kernels.fkc.md:1: info: RebuiltNesting:") {
		t.Errorf("no RebuiltNesting info:\n%s", out)
	}
	if !strings.Contains(stderr, "38 errors, 0 warnings, 2 info") {
		t.Errorf("summary: %s", stderr)
	}
	// a broken copy: exit 1, one precise finding
	src, _ := os.ReadFile(filepath.Join(seedsDir, "fuel-reference-indexing.fkc.md"))
	bad := strings.Replace(string(src), "dtypes: [F32, F64, BF16, F16, U32]", "dtypes: [F32, F64, BF16, F16, U31]", 1)
	line := strings.Count(bad[:strings.Index(bad, "U31")], "\n") + 1
	p := filepath.Join(t.TempDir(), "bad.md")
	os.WriteFile(p, []byte(bad), 0o644)
	code, out, _ = call(lintCmd, p)
	if code != 1 {
		t.Errorf("broken copy: exit %d, want 1", code)
	}
	want := p + ":" + itoa(line) + ": error: accept.inputs.0.dtypes: unknown dtype \"U31\""
	// Exactly one finding beyond the document's own DuplicateKernelRef keys.
	if !strings.HasPrefix(strings.TrimSpace(out), want) || strings.Count(out, ": error: ")-strings.Count(out, ": error: DuplicateKernelRef: ") != 1 {
		t.Errorf("lint output:\n%s\nwant a line starting %q", out, want)
	}
	if code, _, stderr := call(lintCmd, "../contracts/embed.go", seedsDir); code != 1 || !strings.Contains(stderr, "skipping") {
		t.Errorf("non-.md operand: exit %d %s", code, stderr)
	}
	// a misspelt op_kind is a warning naming the known kinds
	mis := filepath.Join(t.TempDir(), "mis.md")
	os.WriteFile(mis, []byte(strings.Replace(string(src), "op_kind: Gather", "op_kind: Gathr", 1)), 0o644)
	// at the op_kind line, not the block's fence
	opLine := 1 + strings.Count(string(src[:strings.Index(string(src), "op_kind: Gather")]), "\n")
	if _, out, _ := call(lintCmd, mis); !strings.Contains(out, mis+":"+itoa(opLine)+": warning: UnknownOpKind: op_kind Gathr is none of the kinds the shipped contracts use (ArgMaxDim,") {
		t.Errorf("misspelt op_kind at line %d: no UnknownOpKind warning there:\n%s", opLine, out)
	}
	if _, out, _ := call(lintCmd, seedsDir); strings.Contains(out, "UnknownOpKind") {
		t.Errorf("a seed's op_kind is unknown:\n%s", out)
	}
	// a missing file is an error (1), not a usage error (2)
	if code, _, _ := call(lintCmd, "/nonexistent/x.md"); code != 1 {
		t.Errorf("missing file: exit %d, want 1", code)
	}
	// The user's seeds come as .txt files: named, or in a directory, they
	// are linted as documents (the ```fkc block tells); operands with no
	// document at all are an error, not an empty success.
	txt := filepath.Join(t.TempDir(), "seed.txt")
	os.WriteFile(txt, src, 0o644)
	for _, op := range []string{txt, filepath.Dir(txt)} {
		code, _, stderr := call(lintCmd, op)
		if code != 1 || strings.Contains(stderr, "skipping") || !strings.Contains(stderr, "fkc lint: 1 documents:") {
			t.Errorf("lint %s: exit %d, want 1 (its DuplicateKernelRef keys), one document read:\n%s", op, code, stderr)
		}
	}
	if code, _, stderr := call(lintCmd, "../contracts/embed.go"); code != 1 || !strings.Contains(stderr, "no FKC document") {
		t.Errorf("only a Go file: exit %d, want 1 and 'no FKC document':\n%s", code, stderr)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestFmt(t *testing.T) {
	if code, _, _ := call(fmtCmd); code != 2 {
		t.Errorf("no operands: exit %d, want 2", code)
	}
	if code, _, _ := call(fmtCmd, "-x", "a.md"); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
	f := filepath.Join(seedsDir, "fuel-cpu-backend.fkc.md")
	code, out, _ := call(fmtCmd, f)
	src, _ := os.ReadFile(f)
	want, _ := contract.Format(src)
	if code != 0 || out != string(want) {
		t.Errorf("fmt to stdout: exit %d, output differs from contract.Format", code)
	}
	after, _ := os.ReadFile(f)
	if !bytes.Equal(after, src) {
		t.Fatal("fmt without -w modified the seed")
	}
	if code, out, _ := call(fmtCmd, "-l", seedsDir); code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("fmt -l seeds: %q (want the two flattened seeds)", out)
	}
}

// TestContractsListingIsLinear: a document holding many
// sections of one name lists each section with its own bindings only, so
// the listing grows with the file (it grew with its square: every copy
// listed every copy's bindings).
func TestContractsListingIsLinear(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(seedsDir, "fuel-cpu-backend.fkc.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	first := strings.Index(s, "\n## ")
	next := strings.Index(s[first+1:], "\n## ")
	head, sec := s[:first+1], s[first+1:first+1+next+1]
	size := map[string]map[int]int{}
	for _, n := range []int{20, 40} {
		p := filepath.Join(t.TempDir(), "copies.md")
		if err := os.WriteFile(p, []byte(head+strings.Repeat(sec, n)), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{p}, {"--json", p}} {
			_, out, _ := call(contractsCmd, args...)
			mode := strings.Join(args[:len(args)-1], "")
			if size[mode] == nil {
				size[mode] = map[int]int{}
			}
			size[mode][n] = len(out)
			if mode == "--json" {
				var got struct {
					Kernels []struct {
						Bindings []struct{ Key string } `json:"bindings"`
					} `json:"kernels"`
				}
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatal(err)
				}
				for i, k := range got.Kernels {
					if len(k.Bindings) != len(got.Kernels[0].Bindings) || len(k.Bindings) > 8 {
						t.Fatalf("n=%d: section %d lists %d bindings", n, i, len(k.Bindings))
					}
				}
			}
		}
	}
	for mode, s := range size {
		if r := float64(s[40]) / float64(s[20]); r > 2.1 {
			t.Errorf("%q: doubling the sections multiplies the listing by %.2f", mode, r)
		}
	}
}

// fmt keeps a document's meaning or leaves it alone: a block that the
// re-indentation would push past the block size limit (so its section would
// no longer load), and a block that is never closed (what follows it would
// be re-indented as YAML), are refused and the file is unchanged; a file
// that is no FKC document is skipped, not rewritten.
func TestFmtRefusesToChangeMeaning(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../contracts/project/fkc-cpu-kernels.fkc.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	open := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "```fkc") {
			open = i
			break
		}
	}
	// A deep map at one space a level: under the block limit as written,
	// over it at fmt's two spaces a level.
	var deep []string
	deep = append(deep, "notes:")
	for d := 1; d <= 300; d++ {
		deep = append(deep, strings.Repeat(" ", d)+fmt.Sprintf("n%03d:", d))
	}
	deep[len(deep)-1] += " leaf"
	big := append(append(append([]string{}, lines[:open+1]...), deep...), lines[open+1:]...)
	// A seed whose indentation was lost (fmt rebuilds it), its first block
	// left open, prose with a nested list after it.
	flat, err := os.ReadFile("../contracts/seeds/fuel-cpu-backend.fkc.md")
	if err != nil {
		t.Fatal(err)
	}
	unclosed := strings.Split(string(flat), "\n")
	open = -1
	for i, l := range unclosed {
		if strings.HasPrefix(l, "```fkc") {
			open = i
			break
		}
	}
	for i := open + 1; i < len(unclosed); i++ {
		if strings.TrimSpace(unclosed[i]) == "```" {
			unclosed[i] = ""
			break
		}
	}
	unclosed = append(unclosed, "", "Prose after it:", "  - a nested item")
	for name, body := range map[string]string{"big.md": strings.Join(big, "\n"), "unclosed.md": strings.Join(unclosed, "\n")} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runMain("fmt", "-w", p)
		got, _ := os.ReadFile(p)
		if code != 1 || !strings.Contains(errOut, "not formatted") || string(got) != body ||
			(name == "unclosed.md" && !strings.Contains(errOut, "close it first")) {
			t.Errorf("fmt -w %s: exit %d, stderr %q, file changed %v; want exit 1, not formatted, unchanged", name, code, errOut, string(got) != body)
		}
	}
	goFile := filepath.Join(dir, "y.go")
	goSrc := "package main\n---\nfoo:\n    bar: 1\n---\n"
	if err := os.WriteFile(goFile, []byte(goSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runMain("fmt", "-w", goFile)
	if got, _ := os.ReadFile(goFile); code != 1 || string(got) != goSrc || !strings.Contains(errOut, "not an FKC document") {
		t.Errorf("fmt -w y.go: exit %d, stderr %q, file %q; want it skipped and unchanged", code, errOut, got)
	}
}

// A .txt document whose first block comes after its first MiB is a
// document (it was skipped as none), and a document read from a pipe is
// read once (the sniff consumed it: lint saw an empty document).
func TestDocumentSniff(t *testing.T) {
	src, err := os.ReadFile("../contracts/project/fkc-cpu-kernels.fkc.md")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(src), "\n## ")
	late := string(src[:i+1]) + strings.Repeat(strings.Repeat("x", 99)+"\n", 11000) + string(src[i+1:])
	p := filepath.Join(t.TempDir(), "late.txt")
	if err := os.WriteFile(p, []byte(late), 0o644); err != nil {
		t.Fatal(err)
	}
	sections, _, _ := blockCounts(t, "../contracts/project/fkc-cpu-kernels.fkc.md")
	want := fmt.Sprintf("%d kernel sections", sections)
	if code, out, errOut := runMain("contracts", p); code != 0 || !strings.Contains(out, want) {
		t.Errorf("a block after the first MiB: exit %d, stdout %.200q, stderr %q", code, out, errOut)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.Write(src); w.Close() }()
	defer r.Close()
	code, out, errOut := runMain("contracts", fmt.Sprintf("/dev/fd/%d", r.Fd()))
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("a document from a pipe: exit %d, stdout %.200q, stderr %q", code, out, errOut)
	}
}

// A directory's FIFO is not a document: lint, fmt and contracts walk past
// it (opening it blocked until a writer came: `fkc lint DIR` hung), and
// follow a link to a document.
func TestDirectorySkipsSpecialFiles(t *testing.T) {
	src, err := os.ReadFile("../contracts/project/fkc-cpu-kernels.fkc.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.fkc.md"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.fkc.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "a.fkc.md"), filepath.Join(sub, "link.fkc.md")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"lint", dir}, {"fmt", dir}, {"contracts", sub}} {
		done := make(chan string, 1)
		go func() {
			code, out, errOut := runMain(args...)
			done <- fmt.Sprintf("exit %d\n%s\n%s", code, out, errOut)
		}()
		select {
		case got := <-done:
			if strings.Contains(got, "pipe.fkc.md") {
				t.Errorf("%v read the FIFO: %.300s", args, got)
			}
			if sections, _, _ := blockCounts(t, filepath.Join(dir, "a.fkc.md")); args[0] == "contracts" && !strings.Contains(got, fmt.Sprintf("%d kernel sections", sections)) {
				t.Errorf("%v did not follow the link: %.300s", args, got)
			}
		case <-time.After(20 * time.Second):
			// unblock the walk so the test process can end
			if f, err := os.OpenFile(filepath.Join(dir, "pipe.fkc.md"), os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			t.Fatalf("%v blocked on the directory's FIFO", args)
		}
	}
}

// verify, bench and judge refuse a flag given twice as fkc run does (Go's
// flag package kept the last value without a word: 'verify --seed 1
// --seed 2' ran seed 2); judge's --kernel stays repeatable, and -h still
// prints the flags with their types and defaults.
func TestFlagsGivenTwice(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", "--seed", "1", "--seed", "2"}, "fkc: verify: --seed given twice (each flag once)\n"},
		{[]string{"bench", "--reps", "2", "--reps", "1", "--op", "zzz"}, "fkc: bench: --reps given twice (each flag once)\n"},
		// A boolean's parse error is worded by the flag package as
		// "invalid boolean flag"; the refusal is worded as any other's.
		{[]string{"bench", "--json", "--json", "--op", "zzz"}, "fkc: bench: --json given twice (each flag once)\n"},
		{[]string{"judge", "--dtype", "BF16", "--dtype", "F32", "--budget", "1s"}, "fkc: judge: --dtype given twice (each flag once)\n"},
	} {
		code, _, errOut := runMain(c.args...)
		if code != 2 || !strings.HasPrefix(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
	if code, _, errOut := runMain("judge", "--kernel", "a/b", "--kernel", "c/d", "--budget", "-1s"); code != 2 || strings.Contains(errOut, "given twice") || !strings.Contains(errOut, `--budget "-1s"`) {
		t.Errorf("judge with --kernel twice: exit %d, stderr %q", code, errOut)
	}
	if code, out, _ := runMain("verify", "-h"); code != 0 || !strings.Contains(out, "-seed int") || !strings.Contains(out, "(default cpu)") {
		t.Errorf("verify -h: exit %d, %q", code, out)
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
