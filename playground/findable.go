package playground

import (
	"strings"

	"github.com/fkc-playground/fkc/kernels"
)

// Search words beyond a kernel's own text: a pad kernel answers to the
// names other libraries give its mode (paddingNames, the table Learn
// padding draws), so "mirror", "edge" or "reflect padding" find it.

// padKernel reports whether Learn padding explains a kernel's op: by the
// op dispatch runs it for, or (a GPU kernel before a device is attached,
// as in the prerendered catalog) its contract's op_kind.
func padKernel(k KernelRow) bool {
	return k.Op == "pad" || k.Op == "pad_backward" || k.OpKind == "Pad" || k.OpKind == "PadBackward"
}

// padMode is the mode a pad kernel serves ("" for all of them): its form,
// or, where dispatch has not told (no device attached yet), the mode its
// name spells, as the seeds name their per-mode kernels (pad_reflect_b4).
func padMode(k KernelRow) string {
	if m := k.Form.String(); k.Form != kernels.FormOnly && k.Form.Mode().String() == m {
		return m
	}
	if k.Op != "" {
		return ""
	}
	for _, pm := range kernels.PadModes { // pad_reflect_b4, pad_const_b4, pad_circular
		if strings.Contains(k.Name, "_"+pm.Name) || strings.Contains(k.Name, "_"+pm.Tag+"_") {
			return pm.Name
		}
	}
	return ""
}

// libraries are the names of the libraries paddingNames compares.
const libraries = "numpy pytorch torch onnx tensorflow tf"

// searchWords is what a row's search matches besides its own fields: for a
// pad kernel, "padding", the libraries, and the rule and library names of
// each mode it serves (all three for a mode-unified kernel).
func searchWords(k KernelRow) string {
	if !padKernel(k) {
		return ""
	}
	mode := padMode(k)
	words := []string{"padding", libraries}
	for _, n := range paddingNames {
		if mode == "" || mode == n.Here {
			words = append(words, n.Rule, n.Here, n.NumPy, n.PyTorch, n.ONNX, n.TF)
		}
	}
	return strings.ToLower(strings.Join(words, " "))
}

// matchQuery reports whether every word of q is in text (lower-cased): a
// query of two words ("reflect padding") matched only as one phrase.
func matchQuery(q, text string) bool {
	for _, w := range strings.Fields(strings.ToLower(q)) {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// padVocabulary is every word a search about padding may use: the modes'
// rules and names here and in the libraries.
func padVocabulary() []string {
	v := append([]string{"pad", "mirror"}, strings.Fields(libraries)...)
	for _, n := range paddingNames {
		for _, s := range []string{n.Here, n.NumPy, n.PyTorch, n.ONNX, n.TF} {
			if s != "" && s != "—" && !strings.Contains(s, " ") {
				v = append(v, strings.ToLower(s))
			}
		}
	}
	return v
}

// aboutPadding reports whether a catalog query is about padding (any of
// its words is, or contains, a padding word), so the catalog offers Learn
// padding.
func aboutPadding(q string) bool {
	for _, w := range strings.Fields(strings.ToLower(q)) {
		if len(w) < 3 {
			continue
		}
		for _, p := range padVocabulary() {
			if strings.Contains(w, p) || strings.HasPrefix(p, w) {
				return true
			}
		}
	}
	return false
}
