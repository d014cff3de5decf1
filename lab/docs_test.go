package lab

import (
	"os"
	"strings"
	"testing"
)

// The interface is written once in code (the prelude's struct Params) and
// stated in the two documents: both quote it as the prelude declares it.
func TestDocumentsStateTheInterface(t *testing.T) {
	for _, f := range []string{"../docs/lab.md", "../contracts/project/fkc-lab.fkc.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), paramsStruct) {
			t.Errorf("%s does not quote struct Params as the prelude declares it", f)
		}
		for _, name := range []string{"WG = 64", "0xA5", "32,768", "wid.y * nwg.x + wid.x"} {
			if !strings.Contains(string(b), name) {
				t.Errorf("%s does not state %q", f, name)
			}
		}
	}
}
