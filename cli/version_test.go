package cli

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// fkc version and fkc --version print one line: the module version, the
// VCS stamp go build embeds (revision, modified, time), the Go toolchain
// and the platform; a binary without a stamp says why it has none.
func TestVersion(t *testing.T) {
	code, out, errOut := runMain("version")
	code2, out2, _ := runMain("--version")
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "fkc ") || strings.Count(out, "\n") != 1 || !strings.Contains(out, runtime.Version()) {
		t.Errorf("fkc version: exit %d, %q, stderr %q", code, out, errOut)
	}
	if code2 != code || out2 != out {
		t.Errorf("fkc --version: exit %d, %q; fkc version: exit %d, %q", code2, out2, code, out)
	}
	if code, _, errOut := runMain("version", "x"); code != 2 || !strings.HasPrefix(errOut, "fkc: version: unexpected argument") {
		t.Errorf("fkc version x: exit %d, %q", code, errOut)
	}
	plat := " go1.26.8 " + runtime.GOOS + "/" + runtime.GOARCH
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "7897e47c5d1e"},
		{Key: "vcs.time", Value: "2025-12-04T03:46:00Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, c := range []struct {
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.2.3", nil, "fkc v1.2.3" + plat},
		{"(devel)", vcs, "fkc (devel) git 7897e47c5d1e (modified) 2025-12-04T03:46:00Z" + plat},
		{"(devel)", vcs[:3], "fkc (devel) git 7897e47c5d1e 2025-12-04T03:46:00Z" + plat},
		{"(devel)", nil, "fkc (devel) (no VCS revision recorded: built with -buildvcs=false or outside a git checkout)" + plat},
	} {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/fkc-playground/fkc", Version: c.version}, Settings: c.settings}
		if got := versionLine(bi, true); got != c.want {
			t.Errorf("versionLine(%s, %v) = %q, want %q", c.version, c.settings, got, c.want)
		}
	}
}
