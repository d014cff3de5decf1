// Command gen draws the app's pages at build time, the same way the browser
// app would draw them at start-up, so no page waits for WebAssembly.
//
// Without flags (`go generate ./web`) it draws the catalog and the list of
// prerendered routes into web/static/index.html (between their markers),
// and writes the bundled Judge reports' fits (points left out) to
// playground/judge_summaries.json, which the kernel pages read instead of
// the reports; tests (playground) check both files are fresh.
//
// With -pages DIR (`make wasm`) it draws every other route into
// DIR/ROUTE.html (web/static/pre, generated, not committed), which app.js
// shows for an address until the app takes the page over.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fkc-playground/fkc/playground"
)

func main() {
	pages := flag.String("pages", "", "draw the routes' pages into this directory (replaced whole) instead of index.html")
	flag.Parse()
	var err error
	if *pages != "" {
		err = writePages(*pages)
	} else {
		err = generate()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "web/gen:", err)
		os.Exit(1)
	}
}

func generate() error {
	const path = "static/index.html"
	page, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := playground.Index(string(page))
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return err
	}
	sums, err := playground.JudgeSummaries()
	if err != nil {
		return err
	}
	return os.WriteFile("../playground/judge_summaries.json", sums, 0o644)
}

// writePages draws the pages into a fresh directory beside dir and then
// puts it in dir's place: a page of a kernel no longer in the contracts
// does not linger, and a failed run leaves the old pages whole.
func writePages(dir string) error {
	s, err := playground.StaticSite()
	if err != nil {
		return err
	}
	pages, err := s.StaticPages()
	if err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // after the rename, a no-op
	var total int
	for _, p := range pages {
		// p.File() is "pre/ROUTE.html": ROUTE's segments become directories.
		name := filepath.Join(tmp, filepath.FromSlash(p.File()[len("pre/"):]))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		text := p.Fragment()
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			return err
		}
		total += len(text)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	fmt.Printf("web/gen: %d pages in %s, %.1f MiB\n", len(pages), dir, float64(total)/(1<<20))
	return nil
}
