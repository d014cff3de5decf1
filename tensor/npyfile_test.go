package tensor

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func arange(n int) *Tensor {
	x := New(F32, []int{n})
	for i := range n {
		x.Set(i, float64(i))
	}
	return x
}

// dirNames lists a directory, to show that no temporary file is left.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteNpyFile(t *testing.T) {
	x := arange(100)
	want := mustNpy(x)
	t.Run("new file gets os.Create's mode", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "out.npy")
		if err := WriteNpyFile(p, x); err != nil {
			t.Fatal(err)
		}
		ref, _ := os.Create(filepath.Join(dir, "ref"))
		ref.Close()
		got, _ := os.ReadFile(p)
		st, _ := os.Stat(p)
		rst, _ := os.Stat(filepath.Join(dir, "ref"))
		if !bytes.Equal(got, want) || st.Mode() != rst.Mode() {
			t.Fatalf("mode %v (os.Create: %v), %d bytes", st.Mode(), rst.Mode(), len(got))
		}
		if names := dirNames(t, dir); len(names) != 2 {
			t.Fatalf("left behind: %v", names)
		}
	})
	t.Run("replaces, keeping the mode", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "out.npy")
		os.WriteFile(p, []byte("old"), 0o600)
		os.Chmod(p, 0o640)
		if err := WriteNpyFile(p, x); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(p)
		st, _ := os.Stat(p)
		if !bytes.Equal(got, want) || st.Mode().Perm() != 0o640 {
			t.Fatalf("mode %v, %d bytes", st.Mode(), len(got))
		}
		if names := dirNames(t, dir); len(names) != 1 {
			t.Fatalf("left behind: %v", names)
		}
	})
	t.Run("through a symlink", func(t *testing.T) {
		dir := t.TempDir()
		real := filepath.Join(dir, "real.npy")
		os.WriteFile(real, []byte("old"), 0o644)
		link := filepath.Join(dir, "link.npy")
		if err := os.Symlink("real.npy", link); err != nil {
			t.Skip(err)
		}
		if err := WriteNpyFile(link, x); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(real)
		li, _ := os.Lstat(link)
		if !bytes.Equal(got, want) || li.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("link mode %v, target %d bytes", li.Mode(), len(got))
		}
	})
	t.Run("a device is written through", func(t *testing.T) {
		if _, err := os.Stat(os.DevNull); err != nil {
			t.Skip(err)
		}
		if err := WriteNpyFile(os.DevNull, x); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(os.DevNull); st.Mode().IsRegular() {
			t.Fatal("/dev/null was replaced by a file")
		}
	})
	// Failures change nothing and leave nothing behind.
	for _, c := range []struct {
		name  string
		setup func(dir string) string // returns the output path
		want  string
	}{
		{"a directory", func(dir string) string { os.Mkdir(filepath.Join(dir, "d"), 0o755); return filepath.Join(dir, "d") }, "is a directory"},
		{"a dangling symlink", func(dir string) string {
			os.Symlink("missing.npy", filepath.Join(dir, "l"))
			return filepath.Join(dir, "l")
		}, "missing file"},
		{"a missing directory", func(dir string) string { return filepath.Join(dir, "no", "out.npy") }, "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := c.setup(dir)
			before := dirNames(t, dir)
			err := WriteNpyFile(p, x)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if after := dirNames(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Fatalf("directory changed: %v -> %v", before, after)
			}
		})
	}
}

// TestWriteFileAtomicFailingWriter: whatever makes a write fail midway
// (here the producer itself), the file keeps its old bytes and mode, and
// no temporary file is left.
func TestWriteFileAtomicFailingWriter(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "doc.md")
	os.WriteFile(p, []byte("old contents"), 0o600)
	boom := errors.New("disk on fire")
	err := WriteFileAtomic(p, func(w io.Writer) error {
		w.Write(bytes.Repeat([]byte("new "), 1000))
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "it is unchanged") {
		t.Fatalf("err = %v", err)
	}
	got, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(got) != "old contents" || st.Mode().Perm() != 0o600 {
		t.Fatalf("%q, mode %v", got, st.Mode())
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Fatalf("left behind: %v", names)
	}
}

// A file name of up to 255 bytes can be written and replaced: the
// temporary file's name, the target's plus 19 bytes, is cut to fit (a
// 237-byte name failed with "file name too long"). Multi-byte names are
// cut at a character boundary.
func TestWriteFileAtomicLongName(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		strings.Repeat("a", 251) + ".npy",
		strings.Repeat("é", 125) + ".npy", // 254 bytes
		strings.Repeat("b", 232) + ".npy", // 236: fitted before
	} {
		p := filepath.Join(dir, name)
		for _, body := range []string{"first", "second"} {
			if err := WriteFileAtomic(p, func(w io.Writer) error { _, err := io.WriteString(w, body); return err }); err != nil {
				t.Fatalf("%d-byte name: %v", len(name), err)
			}
			if got, _ := os.ReadFile(p); string(got) != body {
				t.Fatalf("%d-byte name: read back %q, want %q", len(name), got, body)
			}
		}
	}
	if names := dirNames(t, dir); len(names) != 3 {
		t.Fatalf("left behind: %v", names)
	}
	if p := tempPrefix(strings.Repeat("é", 125)); !utf8.ValidString(p) || len(p)+13 > 255 {
		t.Errorf("prefix %d bytes, valid UTF-8 %v", len(p), utf8.ValidString(p))
	}
}

// A tensor whose data does not match its dtype and shape is refused before
// anything is written (it was written as a file no reader loads, over the
// good one; a negative axis NumPy even loads, as empty).
func TestWriteNpyFileInconsistentTensor(t *testing.T) {
	p := filepath.Join(t.TempDir(), "good.npy")
	good := mustNpy(arange(3))
	for _, c := range []struct {
		name string
		x    *Tensor
		want string
	}{
		{"short data", &Tensor{DType: F32, Shape: []int{3}, Data: make([]byte, 4)}, "holds 4 data bytes, not the 12"},
		{"long data", &Tensor{DType: F32, Shape: []int{1}, Data: make([]byte, 12)}, "holds 12 data bytes, not the 4"},
		{"negative axis", &Tensor{DType: F32, Shape: []int{-1}}, "negative size"},
		{"no dtype", &Tensor{DType: Invalid, Shape: []int{1}, Data: make([]byte, 4)}, "not one of the tensor dtypes"},
		{"dtype 99", &Tensor{DType: 99, Shape: []int{1}, Data: make([]byte, 4)}, "not one of the tensor dtypes"},
		{"nil", nil, "no tensor"},
	} {
		if err := os.WriteFile(p, good, 0o644); err != nil {
			t.Fatal(err)
		}
		err := WriteNpyFile(p, c.x)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "it is unchanged") {
			t.Errorf("%s: %v; want %q and unchanged", c.name, err, c.want)
		}
		if got, _ := os.ReadFile(p); !bytes.Equal(got, good) {
			t.Errorf("%s: the file changed", c.name)
		}
		if b, err := NpyBytes(c.x); err == nil || b != nil {
			t.Errorf("%s: NpyBytes gave %d bytes, %v", c.name, len(b), err)
		}
	}
}

// A temporary file is made and tracked as one step: after RemoveTemps (a
// signal) none is made — one made in between was left behind.
func TestNoTempAfterRemoveTemps(t *testing.T) {
	defer func() {
		temps.Lock()
		temps.closed = false
		temps.Unlock()
	}()
	dir := t.TempDir()
	RemoveTemps()
	err := WriteNpyFile(filepath.Join(dir, "x.npy"), arange(2))
	// refused when the temporary file would be made, not at the rename
	if err == nil || !strings.Contains(err.Error(), "interrupted by a signal (a temporary file in") {
		t.Errorf("a write after RemoveTemps: %v", err)
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("%d files left", len(names))
	}
}
