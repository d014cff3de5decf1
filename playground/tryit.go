package playground

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/ops"
	"github.com/fkc-playground/fkc/tensor"
)

// TryForm is a kernel page's Try-it panel.
type TryForm struct {
	// LinkNotes: parts of a share link the form could not take (an
	// unknown run=backend), for the page to say.
	LinkNotes       []string
	ID, Op, Command string
	KernelDTypes    []string // the page kernel's first-input dtypes
	AllDTypes       []string
	Fills           []ops.FillKind // the fills the form offers (ops.Fills)
	Inputs          []InputRow
	Flags           []FlagField
	CLI             string
	Peers           Peers // the call as NumPy and PyTorch programs
	GPU             GPUState
	Auto            []string // backends a share link (or the page's own) runs on load
	Case            ops.Case
}

// InputRow is one operand's generator.
type InputRow struct {
	Name  string
	Gen   ops.Gen
	Fixed bool // its dtype does not follow the data's (indices, a mask)
}

// FlagField is one op flag's control.
type FlagField struct {
	Name, Arg, Help, Note string
	Choices               []string
	Value                 string
	Required, Disabled    bool
}

// TryForm builds the Try-it panel of a kernel page: the op's default case
// for the kernel's preferred dtype, overridden by a share link's query.
func (s *Site) TryForm(row KernelRow, k *contract.Kernel, q url.Values) (*TryForm, error) {
	o := opOf(row)
	dt := tensor.F32
	if len(row.DTypes) > 0 && !contains(row.DTypes, "F32") {
		dt, _ = tensor.ParseDType(row.DTypes[0])
	}
	cs, _ := DefaultCase(row, dt)
	if q.Has("flags") {
		cs.Flags = strings.Fields(q.Get("flags"))
	}
	for _, n := range cs.Order {
		if q.Has(n) {
			cs.Inputs[n] = DecodeGen(q.Get(n))
		}
	}
	t := &TryForm{ID: row.ID, Op: row.Op, Command: "fkc run " + row.Op, KernelDTypes: row.DTypes, GPU: s.GPU}
	for _, f := range ops.Fills {
		if f.Form {
			t.Fills = append(t.Fills, f)
		}
	}
	for _, d := range tensor.All {
		t.AllDTypes = append(t.AllDTypes, d.String())
	}
	t.setCase(o, row, cs, k.Backend)
	own := "cpu"
	if k.Backend == "Vulkan" && row.Linked {
		own = "webgpu" // a GPU kernel's page shows that kernel (the CPU where there is no WebGPU)
	}
	t.Auto = []string{own}
	if q.Has("run") {
		t.Auto = nil
		for _, b := range strings.Split(q.Get("run"), ",") {
			if b == "cpu" || b == "webgpu" {
				t.Auto = append(t.Auto, b) // webgpu is dropped at run time if the browser has none
			} else if b != "" {
				t.LinkNotes = append(t.LinkNotes, fmt.Sprintf("This link asks to run on %q, which is not a backend here (cpu or webgpu): not run.", b))
			}
		}
	}
	return t, nil
}

// setCase fills the form's controls and command line from a case.
func (t *TryForm) setCase(o *ops.Op, row KernelRow, cs ops.Case, backend string) {
	t.Case = cs
	t.Inputs = nil
	for _, in := range o.Inputs {
		t.Inputs = append(t.Inputs, InputRow{Name: in.Name, Gen: cs.Inputs[in.Name], Fixed: in.Fixed != tensor.Invalid})
	}
	t.Flags = nil
	fixedMode := row.Form != kernels.FormOnly && row.Form != kernels.FormAll && row.Form != kernels.FormDim
	for _, u := range o.Flags {
		f := FlagField{Name: u.Name, Arg: u.Arg, Help: u.Help, Note: u.Note, Choices: u.Choices, Required: u.Required,
			Value: flagValue(cs.Flags, "--"+u.Name)}
		if u.Flag == ops.ModeFlag && fixedMode {
			f.Disabled, f.Value = true, row.Form.String()
		}
		t.Flags = append(t.Flags, f)
	}
	t.CLI = CLILine(cs, backend)
	t.Peers = CasePeers(cs)
}

// CasePeers are the NumPy and PyTorch programs of a Try-it case; a case
// whose fields do not describe a call yet gets programs that say why.
func CasePeers(cs ops.Case) Peers {
	p, err := PeerOfCase(cs)
	if err != nil {
		why := "the form does not describe a call yet: " + err.Error()
		return Peers{NumPy: "# " + why + "\n", Torch: "# " + why + "\n", NoNumPy: why, NoTorch: why}
	}
	return PeerCode(p)
}

// CLILine is the `fkc run` command of a Try-it case on a contract backend.
func CLILine(cs ops.Case, backend string) string {
	be := ""
	if backend == "Vulkan" {
		be = " --backend vulkan"
	}
	flags := cs.Flags
	var ins []string
	for _, n := range cs.Order {
		if cs.Inputs[n].DType == "BF16" && !contains(flags, "--dtype") {
			// bf16 has no NumPy dtype: its file holds <u2 bits, which
			// fkc run reads as bf16 only when told
			flags = append(slices.Clip(flags), "--dtype", "bf16")
		}
		ins = append(ins, fmt.Sprintf("-i %s=%s", n, shellJoin([]string{InputFile(cs, n)})))
	}
	return strings.Join(strings.Fields(fmt.Sprintf("$ fkc run %s%s %s", cs.Op, be, shellJoin(flags))), " ") + " " + strings.Join(ins, " ") + " -o out.npy"
}

// InputFile is the .npy file operand n is read from on the `fkc run` line
// and in the peer programs: the file it came from, else NAME.npy (what the
// page's download of the input is called).
func InputFile(cs ops.Case, n string) string {
	if g := cs.Inputs[n]; g.Kind == "file" && g.File != "" {
		return g.File
	}
	return n + ".npy"
}

// FileInputs are the operands of a case read from files the user chose,
// each as "x (from foo.npy)": a share link names them but cannot carry them.
func FileInputs(cs ops.Case) []string {
	var out []string
	for _, n := range cs.Order {
		if g := cs.Inputs[n]; g.Kind == "file" && g.File != "" {
			out = append(out, fmt.Sprintf("%s (from %s)", n, g.File))
		}
	}
	return out
}

// shellJoin quotes what a shell would split ("" for an empty padding).
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$`\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// FromForm reads the Try-it form's values (name → value, as the page
// sends them) into a case: the generators and the op's flags. A mode the
// kernel fixes comes from the kernel, not the (disabled) control.
func FromForm(row KernelRow, values map[string]string) ops.Case {
	o := opOf(row)
	cs := ops.Case{Op: o.Name, Inputs: map[string]ops.Gen{}, Order: o.InputNames(), Flags: []string{}}
	for _, n := range cs.Order {
		g := ops.Gen{Shape: strings.TrimSpace(values[n+".shape"]), DType: values[n+".dtype"], Kind: values[n+".kind"]}
		switch g.Kind {
		case "random", "uniform":
			genParam(&g, n, "seed", values[n+".seed"])
			genParam(&g, n, "lo", values[n+".lo"])
			genParam(&g, n, "hi", values[n+".hi"])
		case "values":
			g.Values = values[n+".values"]
		case "file":
			g.File = values[n+".file"]
		}
		cs.Inputs[n] = g
	}
	fixedMode := row.Form != kernels.FormOnly && row.Form != kernels.FormAll && row.Form != kernels.FormDim
	for _, u := range o.Flags {
		v := strings.TrimSpace(values[u.Name])
		if u.Flag == ops.ModeFlag && fixedMode {
			v = row.Form.String()
		}
		if v != "" || u.Flag == ops.PaddingFlag {
			cs.Flags = append(cs.Flags, "--"+u.Name, v)
		}
	}
	return cs
}

// ShareQuery is the Try-it state as a kernel page URL's query: readable
// (only what must be escaped is), e.g. flags=--mode reflect --padding
// 2:2,2:2&x=4,5|F32|arange&run=cpu.
func ShareQuery(cs ops.Case, runs []string) string {
	enc := func(v string) string {
		return strings.NewReplacer("+", "%20", "%3A", ":", "%2C", ",", "%7C", "|", "%3D", "=").Replace(url.QueryEscape(v))
	}
	q := []string{"flags=" + enc(strings.Join(cs.Flags, " "))}
	for _, n := range cs.Order {
		q = append(q, n+"="+enc(EncodeGen(cs.Inputs[n])))
	}
	if len(runs) > 0 {
		q = append(q, "run="+enc(strings.Join(runs, ",")))
	}
	return strings.Join(q, "&")
}

// EncodeGen writes a generator as shape|dtype|kind[|seed=…|lo=…|hi=…][|values].
func EncodeGen(g ops.Gen) string {
	kind := g.Kind
	if kind == "" {
		kind = "arange"
	}
	p := []string{g.Shape, g.DType, kind}
	switch kind {
	case "random", "uniform":
		for _, kv := range [][2]string{{"seed", strconv.FormatUint(g.Seed, 10)}, {"lo", fmtNum(g.Lo)}, {"hi", fmtNum(g.Hi)}} {
			if t, bad := g.Texts[kv[0]]; bad {
				// what the user wrote, which did not parse; a '|' in it
				// would end the field and leave a valid rest ("1|2" read
				// back as seed 1), so it is written escaped: still no number
				kv[1] = strings.ReplaceAll(t, "|", "%7C")
			}
			p = append(p, kv[0]+"="+kv[1])
		}
	case "values":
		p = append(p, g.Values)
	case "file":
		// the file's name only: a link cannot carry its bytes
		p = append(p, strings.ReplaceAll(g.File, "|", "%7C"))
	}
	return strings.Join(p, "|")
}

// DecodeGen is the inverse of EncodeGen (missing parts take defaults).
func DecodeGen(s string) ops.Gen {
	p := strings.Split(s, "|")
	g := ops.Gen{DType: "F32", Kind: "arange", Seed: 1}
	if len(p) > 0 {
		g.Shape = p[0]
	}
	if len(p) > 1 && p[1] != "" {
		g.DType = p[1]
	}
	if dt, err := tensor.ParseDType(g.DType); err == nil {
		g.Lo, g.Hi = ops.RandomRange(dt) // a link that names no range
	}
	if len(p) > 2 && p[2] != "" {
		g.Kind = p[2]
	}
	if g.Kind == "values" {
		g.Values = strings.Join(p[min(3, len(p)):], "|")
		return g
	}
	if g.Kind == "file" {
		g.File = strings.ReplaceAll(strings.Join(p[min(3, len(p)):], "|"), "%7C", "|")
		return g
	}
	for _, kv := range p[min(3, len(p)):] {
		k, v, _ := strings.Cut(kv, "=")
		genParam(&g, "", k, v)
	}
	return g
}

// genParam sets a random or uniform generator's seed, lo or hi from its
// text (a form field or a share link's k=v), noting in g.Bad the first
// that does not parse; an empty field is 0. Unknown keys are ignored.
func genParam(g *ops.Gen, input, key, text string) {
	text = strings.TrimSpace(text)
	var err error
	switch key {
	case "seed":
		if text != "" {
			g.Seed, err = strconv.ParseUint(text, 10, 64)
		}
	case "lo", "hi":
		var v float64
		if text != "" {
			v, err = strconv.ParseFloat(text, 64)
		}
		if key == "lo" {
			g.Lo = v
		} else {
			g.Hi = v
		}
	default:
		return
	}
	if err != nil {
		if g.Texts == nil {
			g.Texts = map[string]string{}
		}
		g.Texts[key] = text
	}
	if err != nil && g.Bad == "" {
		what := key
		if input != "" {
			what = input + " " + key
		}
		want := "a number"
		if key == "seed" {
			want = "a non-negative integer"
		}
		g.Bad = fmt.Sprintf("%s %q is not %s", what, text, want)
	}
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func flagValue(flags []string, name string) string {
	for i := 0; i+1 < len(flags); i++ {
		if flags[i] == name {
			return flags[i+1]
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
