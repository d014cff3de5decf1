// Package wgsl holds the WGSL compute shaders of this project, embedded so
// the native (wgpu-native/Vulkan) and the browser (WebGPU) builds ship the
// same source.
//
// Each file is one op family. A file is not a complete module on its own: the
// dispatcher (kernels/gpu) prepends common.wgsl and a few `const` lines that
// specialise it (element byte width EB, pad MODE, dtype DT, reduction OP, …),
// so one source yields several pipelines (pad_const_b1 … pad_const_b8).
// Textual specialisation is used instead of WGSL `override` constants because
// the GOOS=js binding of github.com/cogentcore/webgpu does not pass pipeline
// constants through.
package wgsl

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed *.wgsl
var files embed.FS

// Source returns the text of one embedded file ("pad.wgsl").
func Source(name string) (string, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("wgsl: no embedded shader %q", name)
	}
	return string(b), nil
}

// Def is one specialisation: a constant `const Name: u32 = Value;`, or,
// with Type set, a type alias `alias Name = Type;` (the element type of a
// binding: u32 words, or f64 on adapters with shader-f64), or, with Frag
// set, a fragment file included at this point (the variant of a family's
// helpers that a dtype needs: f64 code must not reach a module compiled on
// an adapter without shader-f64).
type Def struct {
	Name  string
	Value uint32
	Type  string
	Frag  string
}

// Module assembles a complete WGSL module: common.wgsl, the fragments the
// family file names on a leading `//! uses: a.wgsl b.wgsl` line, the
// specialisation constants, then the family file. A constant that
// common.wgsl declares (GUARD) is set in its place instead.
func Module(name string, defs ...Def) (string, error) {
	common, err := Source("common.wgsl")
	if err != nil {
		return "", err
	}
	body, err := Source(name)
	if err != nil {
		return "", err
	}
	// A plain constant that common.wgsl also declares replaces its line
	// there (GUARD: the guard words of a device tensor's layout differ).
	var rest []Def
	for _, d := range defs {
		decl := "const " + d.Name + ": u32 = "
		if d.Frag != "" || d.Type != "" || !strings.Contains(common, decl) {
			rest = append(rest, d)
			continue
		}
		at := strings.Index(common, decl)
		end := at + strings.Index(common[at:], ";")
		common = common[:at] + fmt.Sprintf("%s%du", decl, d.Value) + common[end:]
	}
	defs = rest
	var sb strings.Builder
	sb.WriteString(common)
	if first, _, _ := strings.Cut(body, "\n"); strings.HasPrefix(first, "//! uses:") {
		for _, inc := range strings.Fields(strings.TrimPrefix(first, "//! uses:")) {
			frag, err := Source(inc)
			if err != nil {
				return "", fmt.Errorf("wgsl: %s uses %s: %v", name, inc, err)
			}
			sb.WriteString("\n// ---- " + inc + " ----\n")
			sb.WriteString(frag)
		}
	}
	sb.WriteString("\n// ---- specialisation (set by kernels/gpu) ----\n")
	for _, d := range defs {
		switch {
		case d.Frag != "":
			frag, err := Source(d.Frag)
			if err != nil {
				return "", fmt.Errorf("wgsl: %s: %v", name, err)
			}
			sb.WriteString("\n// ---- " + d.Frag + " ----\n")
			sb.WriteString(frag)
		case d.Type != "":
			fmt.Fprintf(&sb, "alias %s = %s;\n", d.Name, d.Type)
		default:
			fmt.Fprintf(&sb, "const %s: u32 = %du;\n", d.Name, d.Value)
		}
	}
	sb.WriteString("\n// ---- ")
	sb.WriteString(name)
	sb.WriteString(" ----\n")
	sb.WriteString(body)
	return sb.String(), nil
}
