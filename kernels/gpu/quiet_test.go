//go:build !js

package gpu

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A Go program that opens the device prints nothing to stderr on its own:
// wgpu's warnings ("Unable to find extension: VK_EXT_swapchain_colorspace")
// and the window-system probe's "XDG_RUNTIME_DIR is invalid" reached it,
// where only the fkc command silenced them. The open runs in a child
// process with XDG_RUNTIME_DIR unset and its stderr kept apart.
func TestOpenNativeQuiet(t *testing.T) {
	if os.Getenv("FKC_QUIET_CHILD") == "1" {
		d, err := OpenNative()
		if err != nil {
			os.Stdout.WriteString("open: " + err.Error() + "\n")
			os.Exit(3)
		}
		d.Close()
		os.Exit(0)
	}
	device(t) // skips without an adapter
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenNativeQuiet$")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "FKC_QUIET_CHILD=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	if stderr.Len() != 0 {
		t.Errorf("opening the device wrote to stderr: %q", stderr.String())
	}
}
