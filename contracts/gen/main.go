// Command gen compiles the embedded contracts for the browser app: it runs
// the loader once, natively, and writes what it produced (documents and
// diagnostics) as contracts/compiled.gob, which the WASM app decodes
// instead of parsing YAML at start-up (the first screen's biggest cost).
// `go generate ./contracts` runs it; a test checks the file is fresh.
package main

import (
	"fmt"
	"os"

	"github.com/fkc-playground/fkc/contracts"
)

func main() {
	out := "compiled.gob"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	b, err := contracts.Compile()
	if err == nil {
		err = os.WriteFile(out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "contracts/gen:", err)
		os.Exit(1)
	}
}
