// Command gen compiles the embedded contracts for the browser app: it runs
// the loader once, natively, and writes what it produced (documents and
// diagnostics) as contracts/compiled.gob, which the WASM app decodes
// instead of parsing YAML at start-up (the first screen's biggest cost).
// `go generate ./contracts` runs it; a test checks the file is fresh.
//
// gob writes maps in random order, so the same contracts encode to
// different bytes run to run: the file is rewritten only when what it
// decodes to changed, and regenerating an unchanged tree leaves it as it is.
package main

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"
	"reflect"

	"github.com/fkc-playground/fkc/contract"
	"github.com/fkc-playground/fkc/contracts"
)

// compiled mirrors the encoded set (gob matches fields by name).
type compiled struct {
	Docs  []*contract.Document
	Diags []contract.Diagnostic
}

func decode(b []byte) (compiled, error) {
	var s compiled
	err := gob.NewDecoder(bytes.NewReader(b)).Decode(&s)
	return s, err
}

func main() {
	out := "compiled.gob"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	b, err := contracts.Compile()
	if err == nil {
		if old, rerr := os.ReadFile(out); rerr == nil {
			was, derr := decode(old)
			now, err2 := decode(b)
			if err = err2; err == nil && derr == nil && reflect.DeepEqual(was, now) {
				return // the same contracts: leave the file's bytes alone
			}
		}
	}
	if err == nil {
		err = os.WriteFile(out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "contracts/gen:", err)
		os.Exit(1)
	}
}
