// Package rawcount counts what contract documents hold from their raw
// text, apart from the loader and the registry: the tests that check the
// loader's and the registry's counts compare them with these.
package rawcount

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Blocks reads the documents' raw text, apart from the loader: the
// ```fkc blocks, the describe-only ones among them, and the bindings the
// registrable ones fan out to (one per entry of their longest dtypes list).
func Blocks(files ...string) (sections, describeOnly, bindings int, err error) {
	fence := regexp.MustCompile("(?s)```fkc\n(.*?)```")
	desc := regexp.MustCompile(`(?m)^\s*registrable:\s*false`)
	dtypes := regexp.MustCompile(`(?m)^\s*(?:- )?dtypes:\s*\[([^\]]*)\]`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return 0, 0, 0, err
		}
		for _, b := range fence.FindAllStringSubmatch(string(src), -1) {
			sections++
			if desc.MatchString(b[1]) {
				describeOnly++
				continue
			}
			most := 0
			for _, m := range dtypes.FindAllStringSubmatch(b[1], -1) {
				most = max(most, len(strings.Split(m[1], ",")))
			}
			bindings += most
		}
	}
	return sections, describeOnly, bindings, nil
}

// SharedKeys reads the documents' raw text, apart from the loader and the
// registry: the registry keys (op_kind, input dtypes, backend) that more
// than one registrable section binds. A section's inputs list their dtypes
// jointly, entry i of each list (a one-entry list for every i).
func SharedKeys(files ...string) (int, error) {
	fence := regexp.MustCompile("(?s)```fkc\n(.*?)```")
	desc := regexp.MustCompile(`(?m)^\s*registrable:\s*false`)
	field := func(name string) *regexp.Regexp { return regexp.MustCompile(`(?m)^` + name + `:\s*(\S+)`) }
	opKind, backend := field("op_kind"), field("backend")
	dtypes := regexp.MustCompile(`(?m)^\s*(?:- )?dtypes:\s*\[([^\]]*)\]`)
	sections := map[string]int{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return 0, err
		}
		for _, b := range fence.FindAllStringSubmatch(string(src), -1) {
			if desc.MatchString(b[1]) {
				continue
			}
			var lists [][]string
			most := 0
			for _, m := range dtypes.FindAllStringSubmatch(b[1], -1) {
				l := strings.Split(m[1], ",")
				lists = append(lists, l)
				most = max(most, len(l))
			}
			ok, bk := opKind.FindStringSubmatch(b[1]), backend.FindStringSubmatch(b[1])
			if ok == nil || bk == nil {
				return 0, fmt.Errorf("%s: a section without op_kind or backend", f)
			}
			for i := range most {
				key := ok[1] + " " + bk[1]
				for _, l := range lists {
					key += " " + strings.TrimSpace(l[min(i, len(l)-1)])
				}
				sections[key]++
			}
		}
	}
	n := 0
	for _, c := range sections {
		if c > 1 {
			n++
		}
	}
	return n, nil
}
