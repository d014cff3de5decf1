package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/judge"
)

// `fkc contracts --judge report.json`: beside each kernel's cost formulas,
// what a Judge report measured for it (package judge), marked with the
// device and the date. The report is read, never written into the
// contracts: the seeds stay as they are.

// measured indexes a report's kernels by "PROVIDER/NAME"; nil: no report.
type measured struct {
	path string
	rep  *judge.Report
	by   map[string][]judge.Kernel
}

// reportFile is contracts' --judge value: a report file, not empty.
type reportFile string

func (r *reportFile) String() string { return string(*r) }

func (r *reportFile) Set(s string) error {
	if s == "" {
		return fmt.Errorf("want a report file (fkc judge -o report.json makes one)")
	}
	*r = reportFile(s)
	return nil
}

func loadMeasured(path string) (*measured, error) {
	if path == "" {
		return nil, nil
	}
	r, err := judge.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("contracts: --judge %v", pathError(err))
	}
	m := &measured{path: path, rep: r, by: map[string][]judge.Kernel{}}
	for _, k := range r.Kernels {
		m.by[k.ID()] = append(m.by[k.ID()], k)
	}
	return m, nil
}

// text writes, under a kernel's listing, its cost formulas and every
// binding × variant the report measured.
func (m *measured) text(w io.Writer, provider string, k *contract.Kernel) {
	if m == nil {
		return
	}
	var fs []string
	for _, f := range contract.CostFields {
		if strings.Contains(f.Name, ".") {
			continue // the memory formulas: no time in them
		}
		v := f.Get(k.Cost)
		if v == "" {
			v = "~"
		}
		fs = append(fs, f.Name+" = "+v)
	}
	fmt.Fprintf(w, "      cost: %s\n", strings.Join(fs, "; "))
	ms := m.by[provider+"/"+k.Name]
	if len(ms) == 0 {
		return
	}
	fmt.Fprintf(w, "      measured on %s (copy ceiling %.3g GB/s):\n", m.rep.Marked(), m.rep.Ceiling.GBps)
	for _, mk := range ms {
		fmt.Fprintf(w, "        %-13s %-22s %s\n", strings.Join(mk.DTypes, ","), mk.Variant, mk.Measured())
	}
}

// jsonMeasured is one measured binding × variant in `fkc contracts --json`.
type jsonMeasured struct {
	DTypes  []string     `json:"dtypes"`
	Variant string       `json:"variant"`
	On      string       `json:"on"` // device and date
	Fit     *judge.Fit   `json:"fit,omitempty"`
	Flags   []judge.Flag `json:"flags,omitempty"`
	Skipped string       `json:"skipped,omitempty"`
	Error   string       `json:"error,omitempty"`
}

// jsonJudge says which report the measured values come from.
type jsonJudge struct {
	File    string        `json:"file"`
	Date    string        `json:"date"`
	Device  judge.Device  `json:"device"`
	Ceiling judge.Ceiling `json:"ceiling"`
}

func (m *measured) json(provider string, k *contract.Kernel) []jsonMeasured {
	if m == nil {
		return nil
	}
	var out []jsonMeasured
	for _, mk := range m.by[provider+"/"+k.Name] {
		out = append(out, jsonMeasured{DTypes: mk.DTypes, Variant: mk.Variant, On: m.rep.Marked(), Fit: mk.Fit, Flags: mk.Flags,
			Skipped: mk.Skipped, Error: mk.Error})
	}
	return out
}

func (m *measured) header() *jsonJudge {
	if m == nil {
		return nil
	}
	c := m.rep.Ceiling
	c.Points = nil
	return &jsonJudge{File: m.path, Date: m.rep.Date, Device: m.rep.Device, Ceiling: c}
}
