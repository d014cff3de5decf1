// Command gen draws the catalog into web/static/index.html (between its
// markers), the same way the browser app would draw it at start-up, so the
// first screen needs no WebAssembly, and writes the bundled Judge reports'
// fits (points left out) to playground/judge_summaries.json, which the
// kernel pages read instead of the reports. `go generate ./web` runs it;
// tests (playground) check both files are fresh.
package main

import (
	"fmt"
	"os"

	"github.com/fkc-playground/fkc/playground"
)

func main() {
	const path = "static/index.html"
	page, err := os.ReadFile(path)
	if err == nil {
		var html, out string
		if html, err = playground.Prerender(); err == nil {
			if out, err = playground.SplicePrerendered(string(page), html); err == nil {
				err = os.WriteFile(path, []byte(out), 0o644)
			}
		}
	}
	if err == nil {
		var sums []byte
		if sums, err = playground.JudgeSummaries(); err == nil {
			err = os.WriteFile("../playground/judge_summaries.json", sums, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "web/gen:", err)
		os.Exit(1)
	}
}
