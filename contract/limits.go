package contract

import (
	"fmt"
	"io"
	"os"
)

// Size caps of an FKC document, so that loading one takes memory within a
// small multiple of its size, whatever it holds. The seeds are at most 76 KB
// and 1,700 lines, with blocks of at most 3 KB: the caps leave two orders of
// magnitude of room. A YAML block decodes to a node tree of about sixty
// times its size, so blocks have a cap of their own; a line costs a string
// header beyond its bytes, so lines have one too.
const (
	MaxFileBytes  = 8 << 20  // a document's size
	MaxLines      = 1 << 18  // a document's lines
	MaxBlockBytes = 64 << 10 // one ```fkc block, or the front matter
	// MaxDiagnostics bounds the findings listed for one document (a
	// finding's message is far longer than the few bytes that can cause
	// it); one more finding counts the rest.
	MaxDiagnostics = 1000
)

// TooLarge says a document is over MaxFileBytes or MaxLines.
type TooLarge struct {
	File  string
	Size  int64 // bytes (more than this many when MoreThan)
	Lines int   // lines, when that is the cap exceeded
	// MoreThan: the file was read only up to the cap (it is not a regular
	// file, or it grew): it has more than Size bytes.
	MoreThan bool
}

func (e *TooLarge) Error() string {
	if e.Lines > 0 {
		return fmt.Sprintf("%s has %d lines; an FKC document may have at most %d (contract.MaxLines)", e.File, e.Lines, MaxLines)
	}
	more := ""
	if e.MoreThan {
		more = "more than "
	}
	return fmt.Sprintf("%s is %s%d bytes; an FKC document may be at most %d bytes (8 MiB, contract.MaxFileBytes)", e.File, more, e.Size, MaxFileBytes)
}

// CheckSize refuses a document over MaxFileBytes or MaxLines (a
// *TooLarge), as Parse does, without parsing it.
func CheckSize(file string, src []byte) error { return checkSize(file, src) }

// checkSize applies the document caps to src.
func checkSize(file string, src []byte) error {
	if len(src) > MaxFileBytes {
		return &TooLarge{File: file, Size: int64(len(src))}
	}
	lines := 0
	for _, c := range src {
		if c == '\n' {
			lines++
		}
	}
	if len(src) > 0 && src[len(src)-1] != '\n' {
		lines++
	}
	if lines > MaxLines {
		return &TooLarge{File: file, Lines: lines}
	}
	return nil
}

// ReadFile reads an FKC document, refusing one over MaxFileBytes before
// reading it (a regular file) or as soon as the cap is passed (a pipe, a
// device): `fkc lint /dev/zero` is an error, not a hang.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxFileBytes {
		return nil, &TooLarge{File: path, Size: st.Size()}
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(src) > MaxFileBytes {
		return nil, &TooLarge{File: path, Size: MaxFileBytes, MoreThan: true}
	}
	return src, checkSize(path, src)
}
