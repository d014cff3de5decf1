package playground

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/fkc-playground/fkc/ops"
)

//go:embed templates/*.html
var templateFS embed.FS

// templates parses the page templates on first use (not at start-up: the
// browser app's first screen waits for package initialisation).
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("pages").Funcs(funcs).ParseFS(templateFS, "templates/*.html"))
})

var funcs = template.FuncMap{
	"opts": func(name, label, value string, options []string) map[string]any {
		return map[string]any{"Name": name, "Label": label, "Value": value, "Options": options}
	},
	"pathEscape": url.PathEscape,
	"dtClass":    DTypeClass,
	"detClass":   DetClass,
	"join":       strings.Join,
	"ints": func(v []int) []string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.Itoa(x)
		}
		return s
	},
	"sub":      func(a, b int) int { return a - b },
	"maxIndex": func(n int) int { return max(0, n-1) },
	"safeCSS":  func(s string) template.CSS { return template.CSS(s) },
	"flagClass": func(v string) string {
		switch v {
		case "required", "accepted", "true":
			return "yes"
		case "rejected", "false":
			return "no"
		}
		return ""
	},
	"inputSize": func(arg string) int { return max(4, len(arg)+4) },
	"fmtTime":   fmtTime,
	"fmtRate":   fmtRate,
	"fmtBytes":  fmtBytes,
	"list":      func(v ...string) []string { return v },
	"seq": func(n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = i
		}
		return s
	},
}

// Render executes one named template.
func Render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := templates().ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// API is the scripting-API page's model.
type API struct {
	Ops                         []*ops.Op
	Flags                       []*ops.Flag
	Fills                       []ops.FillKind // what a script's input spec may ask for
	MaxElems, MaxTry, MaxResult string
}

// APIPage builds the scripting-API page for a tab whose tensors hold at
// most maxElems elements and whose fkc.run returns at most maxResult bytes.
func APIPage(maxElems int, maxResult int64) API {
	var fills []ops.FillKind
	for _, f := range ops.Fills {
		if f.Script {
			fills = append(fills, f)
		}
	}
	return API{Ops: ops.Table, Flags: ops.Flags, Fills: fills, MaxElems: fmt.Sprintf("2^%d", log2(maxElems)),
		MaxTry: fmt.Sprintf("2^%d", log2(ops.MaxTryElems)), MaxResult: fmtBytes(float64(maxResult))}
}

func log2(n int) int {
	k := 0
	for n > 1 {
		n >>= 1
		k++
	}
	return k
}

// fmtTime is a run's time per call: µs below 1 ms (never "0 µs": below the
// clock's resolution it says so), ms above.
func fmtTime(r RunResult) string {
	us, res := r.Ms*1000, r.ResolutionUs
	if !(us > 0) || us*float64(max(r.Reps, 1)) < res {
		if res >= 100 {
			return fmt.Sprintf("< %.1f ms", res/1000)
		}
		return fmt.Sprintf("< %.0f µs", max(res, 1))
	}
	switch {
	case us < 10:
		return fmt.Sprintf("%.2f µs", us)
	case us < 1000:
		return fmt.Sprintf("%.1f µs", us)
	case r.Ms < 100:
		return fmt.Sprintf("%.2f ms", r.Ms)
	}
	return fmt.Sprintf("%.0f ms", r.Ms)
}

func fmtRate(r RunResult) string {
	us := r.Ms * 1000
	if !(us > 0) || us*float64(max(r.Reps, 1)) < r.ResolutionUs {
		return "too fast to time"
	}
	bps := r.TensorBytes / (r.Ms / 1000)
	for _, u := range []struct {
		name string
		f    float64
	}{{"GB/s", 1e9}, {"MB/s", 1e6}, {"kB/s", 1e3}} {
		if bps >= u.f {
			v := bps / u.f
			if v >= 100 {
				return fmt.Sprintf("%.0f %s", v, u.name)
			}
			return strconv.FormatFloat(v, 'g', 3, 64) + " " + u.name
		}
	}
	return fmt.Sprintf("%.0f B/s", bps)
}

func fmtBytes(b float64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MiB", b/(1<<20))
	case b >= 1024:
		return fmt.Sprintf("%.1f KiB", b/1024)
	}
	return fmt.Sprintf("%.0f B", b)
}

// FmtNum shows a cost value: integers grouped, others to 6 digits.
func FmtNum(v float64, bytes bool) string {
	s := strconv.FormatFloat(v, 'g', 6, 64)
	if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
		s = group(strconv.FormatInt(int64(v), 10))
	}
	if bytes {
		s += " B"
	}
	return s
}

func group(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
