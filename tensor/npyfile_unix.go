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
// they are not already its own. Another user's file whose owner the
// replacement cannot be given (a writer without the privilege) is
// refused: the shared file would become the writer's. The writer's own
// file keeps its group where the writer may set it (a group it is in),
// else takes the writer's, as before this check.
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
	if cur.Uid == old.Uid {
		tmp.Chown(-1, int(old.Gid)) // best effort: the owner's own file
		return nil
	}
	if err := tmp.Chown(int(old.Uid), int(old.Gid)); err != nil {
		return fmt.Errorf("it belongs to uid %d (gid %d), and this process (uid %d) cannot give a replacement that owner (%w); write to another path, or as that user", old.Uid, old.Gid, os.Geteuid(), unwrapPath(err))
	}
	return nil
}
