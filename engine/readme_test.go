package engine_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's Go program builds and runs as pasted: the first ```go block
// is written into a scratch package inside the module and run with go run.
func TestReadmeSnippet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program (-short)")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```go\n")
	src, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("README.md has no ```go block")
	}
	dir, err := os.MkdirTemp("..", "readme-snippet-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := cmdIn("..", "go", "run", "./"+filepath.Base(dir)).CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the README's program: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "[3 2 1 2 3 4 3 2] kernel pad (fuel-cpu-backend, Cpu)\n[10]\n") {
		t.Errorf("the README's program printed %q", out)
	}
}

func cmdIn(dir string, name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Dir = dir
	return c
}
