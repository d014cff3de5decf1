package tensor

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// WriteNpyFile writes t to path as a .npy file, atomically: the data goes
// to a temporary file in the same directory, is flushed to disk (fsync) and
// only then renamed over path. A write that fails — a full disk, a file-size
// limit, a crash — leaves whatever was at path as it was (the output may be
// one of the run's own inputs), and no temporary file behind; so does a
// write ended by a signal in the fkc command (RemoveTemps).
//
// An existing file keeps its permission bits; a new one gets 0666 less the
// umask, as os.Create gives. A symlink is followed: the file it points to
// is replaced and the link stays. A path that is not a regular file (a
// device such as /dev/null, a FIFO) cannot be replaced; it is written
// through directly. Hard links to a replaced file keep the old contents,
// as with any atomic save.
func WriteNpyFile(path string, t *Tensor) error {
	return WriteFileAtomic(path, func(w io.Writer) error { return WriteNpy(w, t) })
}

// WriteFileAtomic writes what write produces to path as WriteNpyFile
// does: through a temporary file, fsync and rename, so that a failure
// leaves path as it was (`fkc fmt -w` rewrites contracts with it).
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	if fd, own, ok := descriptorPath(path); ok {
		if !own {
			return fmt.Errorf("write %s: it is another process's file descriptor; give the file's own path", path)
		}
		return writeDescriptor(path, fd, write)
	}
	target, perm := path, fs.FileMode(0o666)
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		if st.IsDir() {
			return fmt.Errorf("write %s: it is a directory", path)
		}
		return writeThrough(path, write)
	case err == nil:
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		perm = st.Mode().Perm()
		// The rename needs only the directory's permission: a file the
		// user may not write would be replaced all the same (and change
		// owner). Ask for write access to it first, as a plain save does.
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("write %s: %w (it is unchanged)", path, unwrapPath(err))
		}
		f.Close()
	case errors.Is(err, fs.ErrNotExist):
		if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("write %s: it is a symlink to a missing file", path)
		}
	default:
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	dir := filepath.Dir(target)
	tmp, err := temps.create(dir, tempPrefix(filepath.Base(target)), perm)
	if err != nil {
		what := "it is unchanged"
		if st == nil {
			what = "nothing was created"
		}
		return fmt.Errorf("write %s: %w (a temporary file in %s: %s)", path, unwrapPath(err), dir, what)
	}
	defer temps.track(tmp.Name(), false)
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		what := "it is unchanged"
		if st == nil {
			what = "nothing was created"
		}
		return fmt.Errorf("write %s: %w (%s)", path, unwrapPath(err), what)
	}
	if st != nil {
		// The replacement keeps the old file's owner and group: a new file
		// is the writer's, and a shared file's group would lose its write
		// access. Where the writer may not give it them, nothing is
		// written.
		if err := keepOwner(tmp, st); err != nil {
			return fail(err)
		}
	}
	if err := write(tmp); err != nil {
		return fail(err)
	}
	if st != nil { // the umask applied to the new file's mode: restore the old one exactly
		if err := tmp.Chmod(perm); err != nil {
			return fail(err)
		}
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := temps.commit(tmp.Name(), target); err != nil {
		return fail(err)
	}
	// Make the rename itself durable. Not every file system can sync a
	// directory; the data is already safe, so an error here is not fatal.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// temps are the temporary files WriteFileAtomic is writing now.
var temps tempSet

type tempSet struct {
	sync.Mutex
	names     map[string]bool
	closed    bool // RemoveTemps ran: no write commits any more
	committed int  // writes renamed into place
}

// commit renames a finished temporary file over its target, as one step
// with respect to RemoveTemps: the rename happens and the write counts as
// committed, or RemoveTemps came first and it does not happen.
func (t *tempSet) commit(tmp, target string) error {
	t.Lock()
	defer t.Unlock()
	if t.closed {
		return errors.New("interrupted by a signal")
	}
	if err := os.Rename(tmp, target); err != nil {
		return err
	}
	delete(t.names, tmp)
	t.committed++
	return nil
}

// Committed is how many atomic writes have been renamed into place so far
// (a signal handler tells by it whether the write it interrupts is done).
func Committed() int {
	temps.Lock()
	defer temps.Unlock()
	return temps.committed
}

// create makes a new temporary file (createTemp) and tracks it, as one
// step with respect to RemoveTemps: a signal between the two left the file
// behind. After RemoveTemps no file is made.
func (t *tempSet) create(dir, prefix string, perm fs.FileMode) (*os.File, error) {
	t.Lock()
	defer t.Unlock()
	if t.closed {
		return nil, errors.New("interrupted by a signal")
	}
	f, err := createTemp(dir, prefix, perm)
	if err != nil {
		return nil, err
	}
	if t.names == nil {
		t.names = map[string]bool{}
	}
	t.names[f.Name()] = true
	return f, nil
}

func (t *tempSet) track(name string, writing bool) {
	t.Lock()
	defer t.Unlock()
	if t.names == nil {
		t.names = map[string]bool{}
	}
	if writing {
		t.names[name] = true
	} else {
		delete(t.names, name)
	}
}

// RemoveTemps deletes the temporary files of the atomic writes in progress,
// for a command about to die of a signal (SIGINT, SIGTERM): a killed write
// then leaves nothing behind either, as a failed one does. The writes
// themselves fail if they go on, and no write commits after it.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	temps.closed = true
	for name := range temps.names {
		os.Remove(name)
	}
}

// writeThrough writes to a path that is not a regular file (no rename).
func writeThrough(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return writeClose(path, f, write)
}

// writeClose writes to f and closes it; errors name path.
func writeClose(path string, f *os.File, write func(io.Writer) error) error {
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return nil
}

// tempPrefix is the temporary file's name before its random suffix: the
// target's name, cut short (at a character boundary) where the whole
// name would pass the 255-byte limit of most file systems — a target's
// own name can be 255 bytes long.
func tempPrefix(base string) string {
	const keep = 255 - len(".") - len(".tmp-") - 13 // 13: a base-36 uint64
	if len(base) > keep {
		cut := keep
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	return "." + base + ".tmp-"
}

// createTemp creates a new file prefix+random in dir with mode perm (less
// the umask). os.CreateTemp would always give 0600.
func createTemp(dir, prefix string, perm fs.FileMode) (*os.File, error) {
	for range 1000 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("no free temporary file name in %s", dir)
}

// unwrapPath drops an *fs.PathError's or a rename's *os.LinkError's paths
// (the temporary file's, which would only confuse) and keeps the cause.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// descriptorPath says whether path names an open file descriptor rather
// than a file — /dev/stdout, /dev/stderr, /dev/stdin, /dev/fd/N,
// /proc/self/fd/N, /proc/PID/fd/N, /proc/PID/task/TID/fd/N, a path through
// a directory link to one of those directories, or a symlink to one — and
// which: fd, and
// own = it is this process's. Such a path resolves to the file the
// descriptor is open on (a shell's `>> log`), which a rename would replace
// — the shell's descriptor would then write to the unlinked old file, and
// what it held before and after is lost — so it is written through the
// descriptor instead, as `-o -` writes to stdout.
func descriptorPath(path string) (fd int, own, ok bool) {
	p := path
	for range 40 { // symlink hops, as the kernel allows
		if !filepath.IsAbs(p) {
			wd, err := os.Getwd()
			if err != nil {
				return 0, false, false
			}
			p = filepath.Join(wd, p)
		}
		p = filepath.Clean(p)
		// The directory with its links resolved (a link to /proc/self/fd,
		// /proc/self itself), not the last name: that is the magic link.
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(dir, filepath.Base(p))
		}
		switch p {
		case "/dev/stdin":
			return 0, true, true
		case "/dev/stdout":
			return 1, true, true
		case "/dev/stderr":
			return 2, true, true
		}
		if n, ok := fdNumber(p, "/dev/fd/"); ok {
			return n, true, true
		}
		if n, ok := fdNumber(p, "/proc/self/fd/"); ok {
			return n, true, true
		}
		if n, ok := fdNumber(p, "/proc/thread-self/fd/"); ok {
			return n, true, true
		}
		// /proc/PID/fd/N and /proc/PID/task/TID/fd/N (a thread's table is
		// its process's)
		if rest, ok := strings.CutPrefix(p, "/proc/"); ok {
			if pid, sub, ok := strings.Cut(rest, "/"); ok {
				if task, ok := strings.CutPrefix(sub, "task/"); ok {
					if _, s, ok := strings.Cut(task, "/"); ok {
						sub = s
					}
				}
				if n, ok := fdNumber("/"+sub, "/fd/"); ok {
					if id, err := strconv.Atoi(pid); err == nil {
						return n, id == os.Getpid(), true
					}
				}
			}
		}
		li, err := os.Lstat(p)
		if err != nil || li.Mode()&fs.ModeSymlink == 0 {
			return 0, false, false
		}
		to, err := os.Readlink(p)
		if err != nil {
			return 0, false, false
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = to
	}
	return 0, false, false
}

// fdNumber reads N from prefix + N.
func fdNumber(p, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(p, prefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0 && strconv.Itoa(n) == rest
}
