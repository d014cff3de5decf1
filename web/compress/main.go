// Command compress writes FILE.br beside each FILE it is given: the brotli
// twin the server (web/main.go) sends a browser that accepts "br". The twin
// is written under a temporary name and renamed into place with FILE's
// modification time, which is how the server tells a complete, current
// twin from a stale or half-written one (as gzip -k does for FILE.gz).
// A twin that already holds FILE's bytes is kept (only its time is set):
// quality 11 takes a minute or more for the app, a rebuild of the same
// app need not pay it again.
//
//	go run ./web/compress [-quality 11] FILE…
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/andybalholm/brotli"
)

func main() {
	quality := flag.Int("quality", brotli.BestCompression, "brotli quality, 0 (fastest) to 11 (smallest)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./web/compress [-quality N] FILE…")
		os.Exit(2)
	}
	if *quality < brotli.BestSpeed || *quality > brotli.BestCompression {
		fmt.Fprintf(os.Stderr, "compress: -quality %d: want 0 to 11\n", *quality)
		os.Exit(2)
	}
	for _, name := range flag.Args() {
		start := time.Now()
		in, out, kept, err := compress(name, *quality)
		if err != nil {
			fmt.Fprintln(os.Stderr, "compress:", err)
			os.Exit(1)
		}
		how := fmt.Sprintf("brotli %d, %.1f s", *quality, time.Since(start).Seconds())
		if kept {
			how = "unchanged, kept"
		}
		fmt.Printf("compress: %s.br: %d → %d bytes (%s)\n", name, in, out, how)
	}
}

// window is brotli's sliding window, 2^24 bytes (its largest): the app is
// 17 MB, and its repeats lie further apart than the default 4 MiB.
const window = 24

// compress writes name.br (or keeps it) and reports the sizes.
func compress(name string, quality int) (in, out int64, kept bool, err error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return 0, 0, false, err
	}
	info, err := os.Stat(name)
	if err != nil {
		return 0, 0, false, err
	}
	if old, err := os.ReadFile(name + ".br"); err == nil {
		if same, err := io.ReadAll(brotli.NewReader(bytes.NewReader(old))); err == nil && bytes.Equal(same, data) {
			return info.Size(), int64(len(old)), true, os.Chtimes(name+".br", info.ModTime(), info.ModTime())
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), filepath.Base(name)+".br.tmp*")
	if err != nil {
		return 0, 0, false, err
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	var buf bytes.Buffer
	zw := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: quality, LGWin: window})
	if _, err = zw.Write(data); err == nil {
		err = zw.Close()
	}
	if err == nil {
		_, err = tmp.Write(buf.Bytes())
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Chtimes(tmp.Name(), info.ModTime(), info.ModTime())
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name+".br")
	}
	return info.Size(), int64(buf.Len()), false, err
}
