//go:build debugpage

// A developer's tool, not a check: screenshot any page of the playground.
//
//	FKC_DEBUG_HASH='#/k/fuel-reference-backend%2Fsum_all' go test -tags debugpage -run Debug ./e2e
//
// It writes e2e/screenshots/debug.png and logs the Try-it panel's text.

package e2e

import (
	"os"
	"testing"
)

func TestDebugPage(t *testing.T) {
	h := os.Getenv("FKC_DEBUG_HASH")
	if h == "" {
		t.Skip("set FKC_DEBUG_HASH")
	}
	ctx := tab(t, nil)
	open(t, ctx, h)
	eval[bool](t, ctx, `new Promise(r => setTimeout(() => r(true), 1500))`)
	t.Log(eval[string](t, ctx, `document.getElementById("try") ? document.getElementById("try").innerText.slice(0, 1500) : document.body.innerText.slice(0, 1500)`))
	screenshot(t, ctx, "debug")
}
