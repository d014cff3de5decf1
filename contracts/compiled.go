package contracts

import (
	"bytes"
	_ "embed"
	"encoding/gob"
	"fmt"

	"github.com/fkc-playground/fkc/contract"
)

//go:generate go run ./gen compiled.gob

// compiled is LoadAll's result, encoded at build time (go generate).
//
//go:embed compiled.gob
var compiled []byte

type compiledSet struct {
	Docs  []*contract.Document
	Diags []contract.Diagnostic
}

// Compile runs the loader on every embedded document and encodes the
// result (what LoadCompiled decodes).
func Compile() ([]byte, error) {
	docs, diags := LoadAll()
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(compiledSet{docs, diags}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// LoadCompiled is LoadAll without parsing: the documents and diagnostics
// the loader produced at build time. The browser app starts from it.
func LoadCompiled() ([]*contract.Document, []contract.Diagnostic, error) {
	var s compiledSet
	if err := gob.NewDecoder(bytes.NewReader(compiled)).Decode(&s); err != nil {
		return nil, nil, fmt.Errorf("contracts/compiled.gob: %v (go generate ./contracts rebuilds it)", err)
	}
	return s.Docs, s.Diags, nil
}
