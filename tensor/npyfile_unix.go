//go:build unix

package tensor

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// writeDescriptor writes through this process's descriptor fd — a
// duplicate of it, which shares its offset and flags (a shell's append) —
// and leaves fd itself open.
func writeDescriptor(path string, fd int, write func(io.Writer) error) error {
	dup, err := syscall.Dup(fd)
	if err != nil {
		return fmt.Errorf("write %s: descriptor %d: %w", path, fd, err)
	}
	return writeClose(path, os.NewFile(uintptr(dup), path), write)
}

// keepOwner gives tmp the owner and group of the file st describes, when
// they are not already its own; where the writer may not (another user's
// file, a group it is not in), it says so.
func keepOwner(tmp *os.File, st fs.FileInfo) error {
	old, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	ti, err := tmp.Stat()
	if err != nil {
		return err
	}
	cur, ok := ti.Sys().(*syscall.Stat_t)
	if !ok || (cur.Uid == old.Uid && cur.Gid == old.Gid) {
		return nil
	}
	if err := tmp.Chown(int(old.Uid), int(old.Gid)); err != nil {
		return fmt.Errorf("it belongs to uid %d, gid %d, and a replacement written by uid %d cannot be given them (%w); write it as its owner, or to another path", old.Uid, old.Gid, os.Geteuid(), unwrapPath(err))
	}
	return nil
}
