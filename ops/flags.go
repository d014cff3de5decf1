package ops

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// Flag is one op flag of `fkc run` (SPEC §5), with its one strict parser:
// the CLI, the browser's Try it and fkc.run all read flags through Parse.
type Flag struct {
	Name    string   // without dashes: "mode"
	Arg     string   // the value's placeholder in help: "B:A,…"
	Help    string   // what it means
	Choices []string // the allowed values, when they are a closed set
	set     func(p *kernels.Params, s string) error
	get     func(p *kernels.Params) string
}

// Use is one flag as one op takes it.
type Use struct {
	*Flag
	Required bool
	Note     string // op-specific help: "absent: every element (rank-0 output)"
}

// The op flags.
var (
	ModeFlag = &Flag{Name: "mode", Arg: strings.Join(kernels.ModeNames(), "|"), Help: "pad mode (" + modeAliases() + ")",
		Choices: kernels.ModeNames(),
		set: func(p *kernels.Params, s string) (err error) {
			p.Mode, err = kernels.ParseMode(s)
			return err
		},
		get: func(p *kernels.Params) string { return p.Mode.String() }}
	PaddingFlag = &Flag{Name: "padding", Arg: "B:A,…", Help: "before:after per axis, in axis order (\"\" for a rank-0 input)",
		set: func(p *kernels.Params, s string) (err error) {
			p.Padding, err = ParsePadding(s)
			return err
		},
		get: func(p *kernels.Params) string { return FormatPadding(p.Padding) }}
	ValueFlag = &Flag{Name: "value", Arg: "V", Help: "fill value: integer dtypes take it exactly (a fraction or a value out of range is an error); float dtypes round it to nearest, ties to even (past the largest finite value is an error; inf and nan pass)",
		set: func(p *kernels.Params, s string) (err error) {
			p.Fill, err = tensor.ParseScalar(s)
			return err
		},
		get: func(p *kernels.Params) string { return p.Fill.String() }}
	DimFlag = &Flag{Name: "dim", Arg: "D", Help: "axis: 0-based, or negative to count from the end (-1 is the last), as NumPy and PyTorch take it: -rank ≤ D < rank",
		set: func(p *kernels.Params, s string) error {
			d, err := tensor.ParseWhole(s)
			if errors.Is(err, strconv.ErrRange) || (err == nil && d == kernels.NoDim) {
				return fmt.Errorf("%q is out of range (-rank ≤ dim < rank)", s)
			}
			if err != nil {
				return fmt.Errorf("%q is not a whole number (dims count from 0; -1 is the last axis)", s)
			}
			p.Dim = d
			return nil
		},
		// what the call holds: the dim as given (-1) before the op
		// resolves it (Op.Resolve), the axis (1) after; Parse reads both back
		get: func(p *kernels.Params) string {
			if p.Dim == kernels.NoDim {
				return ""
			}
			return strconv.Itoa(p.Dim)
		}}
	ShapeFlag = &Flag{Name: "shape", Arg: "S", Help: "target shape, comma-separated (e.g. 1,4)",
		set: func(p *kernels.Params, s string) (err error) {
			p.Shape, err = tensor.ParseShape(s)
			return err
		},
		get: func(p *kernels.Params) string { return formatInts(p.Shape) }}
)

// Flags lists every op flag (for docs).
var Flags = []*Flag{ModeFlag, PaddingFlag, ValueFlag, DimFlag, ShapeFlag}

// modeAliases says which other names --mode takes: "edge = replicate".
func modeAliases() string {
	var s []string
	for _, pm := range kernels.PadModes {
		for _, a := range pm.Aliases {
			s = append(s, a+" = "+pm.Name)
		}
	}
	if len(s) == 0 {
		return "no aliases"
	}
	return "NumPy's names too: " + strings.Join(s, ", ")
}

// ParsePadding parses "B:A,B:A,…" in axis order (SPEC §5), strictly: each
// entry is two whole numbers around one colon, nothing else. "" is the
// empty padding of a rank-0 input.
func ParsePadding(s string) ([]kernels.Pad, error) {
	if s == "" {
		return []kernels.Pad{}, nil
	}
	parts := strings.Split(s, ",")
	pads := make([]kernels.Pad, len(parts))
	for i, part := range parts {
		b, a, ok := strings.Cut(strings.TrimSpace(part), ":")
		var err1, err2 error
		if ok {
			pads[i].Before, err1 = tensor.ParseWhole(b)
			pads[i].After, err2 = tensor.ParseWhole(a)
		}
		if !ok || err1 != nil || err2 != nil {
			why := "is not B:A (two whole numbers)"
			if ok && (isRange(err1) || isRange(err2)) {
				why = "is out of the integer range"
			}
			return nil, fmt.Errorf("axis %d entry %q %s", i, part, why)
		}
	}
	return pads, nil
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// FormatPadding is the inverse of ParsePadding.
func FormatPadding(pads []kernels.Pad) string {
	parts := make([]string, len(pads))
	for i, p := range pads {
		parts[i] = fmt.Sprintf("%d:%d", p.Before, p.After)
	}
	return strings.Join(parts, ",")
}

func formatInts(v []int) string {
	parts := make([]string, len(v))
	for i, d := range v {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, ",")
}

// Parse reads an op's flags — `--name value`, `--name=value`, one dash or
// two — into a call without inputs. An unknown flag, a flag the op does not
// take, a flag given twice, a missing required flag or a value with
// leftover characters is a usage error naming the flag.
func Parse(opName string, args []string) (*kernels.Call, error) {
	o, err := Get(opName)
	if err != nil {
		return nil, err
	}
	return o.Parse(args)
}

// Parse is the package Parse for this op.
func (o *Op) Parse(args []string) (*kernels.Call, error) {
	c := &kernels.Call{Op: o.Name, Params: kernels.Params{Dim: kernels.NoDim}}
	given := map[string]bool{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return nil, kernels.Usagef("%s: unexpected argument %q (flags are --name value)", o.Name, a)
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		u, ok := o.use(name)
		if !ok {
			if known(name) {
				return nil, kernels.Usagef("%s does not take --%s (%s)", o.Name, name, o.flagList())
			}
			return nil, kernels.Usagef("%s: unknown flag --%s (%s)", o.Name, name, o.flagList())
		}
		if given[name] {
			return nil, kernels.Usagef("%s: --%s given twice", o.Name, name)
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, kernels.Usagef("%s: --%s needs a value (%s)", o.Name, name, u.Arg)
			}
			i++
			val = args[i]
		}
		if err := u.set(&c.Params, val); err != nil {
			return nil, kernels.Usagef("%s: --%s: %v", o.Name, name, err)
		}
		given[name] = true
	}
	for _, u := range o.Flags {
		if u.Required && !given[u.Name] {
			return nil, kernels.Usagef("%s needs --%s %s", o.Name, u.Name, u.Arg)
		}
	}
	if o.Check != nil {
		if err := o.Check(&c.Params, func(n string) bool { return given[n] }); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (o *Op) use(name string) (Use, bool) {
	for _, u := range o.Flags {
		if u.Name == name {
			return u, true
		}
	}
	return Use{}, false
}

func known(name string) bool {
	for _, f := range Flags {
		if f.Name == name {
			return true
		}
	}
	return false
}

func (o *Op) flagList() string {
	if len(o.Flags) == 0 {
		return "it takes no flags"
	}
	names := make([]string, len(o.Flags))
	for i, u := range o.Flags {
		names[i] = "--" + u.Name
	}
	return "its flags: " + strings.Join(names, " ")
}

// FormatFlags renders a call's params back into `fkc run` flags, the ones
// its op takes and that are set (shareable URLs, printed commands): Parse of
// the result gives the same params.
func FormatFlags(c *kernels.Call) []string {
	o, ok := Lookup(c.Op)
	if !ok {
		return nil
	}
	f := []string{}
	for _, u := range o.Flags {
		if u.Flag == ValueFlag && !u.Required && c.Fill == (tensor.Scalar{}) {
			continue // the default fill
		}
		if u.Flag == ValueFlag && !u.Required && c.Mode != kernels.Constant {
			continue
		}
		if v := u.get(&c.Params); v != "" || u.Required {
			f = append(f, "--"+u.Name, v)
		}
	}
	return f
}

// SplitDType takes the run line's `--dtype` flag out of args: `--dtype bf16`
// says to read <u2 .npy inputs as bf16 bit patterns (NumPy has no bf16);
// no other value means anything, so any other is a usage error.
func SplitDType(args []string) (rest []string, bf16 bool, err error) {
	seen := false
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || name != "dtype" {
			rest = append(rest, args[i])
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, false, kernels.Usagef("--dtype needs a value (bf16)")
			}
			i++
			val = args[i]
		}
		if seen {
			return nil, false, kernels.Usagef("--dtype given twice")
		}
		seen = true
		if !strings.EqualFold(val, "bf16") {
			return nil, false, kernels.Usagef("--dtype %q: only --dtype bf16 means something (it reads <u2 .npy inputs as bf16); every other dtype comes from the .npy header", val)
		}
		bf16 = true
	}
	return rest, bf16, nil
}
