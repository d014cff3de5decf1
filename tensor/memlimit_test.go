package tensor

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// withHeadroom stands in for the system's limits during a test.
func withHeadroom(t *testing.T, avail uint64, limit string, ok bool) {
	t.Helper()
	old := headroom
	headroom = func() (uint64, string, bool) { return avail, limit, ok }
	forgetHeadroom()
	t.Cleanup(func() { headroom = old; forgetHeadroom() })
}

// forgetHeadroom drops CheckAlloc's remembered reading.
func forgetHeadroom() {
	lastHeadroom.Lock()
	lastHeadroom.at = time.Time{}
	lastHeadroom.Unlock()
}

// TestCheckAlloc: a tensor bigger than what is left (less the runtime's
// slack) is a *MemoryError naming its size and the limit; small tensors
// and unknown limits are not refused.
func TestCheckAlloc(t *testing.T) {
	const gib = 1 << 30
	cases := []struct {
		name  string
		avail uint64
		known bool
		dt    DType
		shape []int
		want  string // "" = fits
	}{
		{"row 3: 8 GiB under 2 GiB", 2 * gib, true, F32, []int{5 + 2147483643}, "F32[2147483648] needs 8589934592 bytes"},
		{"just too big", allocSlack + 32<<20, true, U8, []int{32<<20 + 1}, "needs 33554433 bytes"},
		{"just fits", allocSlack + 32<<20, true, U8, []int{32 << 20}, ""},
		{"nothing left", 0, true, F64, []int{4 << 20}, "needs 33554432 bytes"},
		{"small is not checked", 0, true, F32, []int{1000}, ""},
		{"no known limit", 0, false, F64, []int{1 << 31}, ""},
		{"empty", 0, true, F64, []int{0, 1 << 31}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !c.known && c.want == "" && runtime.GOARCH == "wasm" {
				t.Skip("a 16 GiB slice does not exist in wasm32's 4 GiB (the tab always knows its limit: memlimit_js.go)")
			}
			withHeadroom(t, c.avail, "RLIMIT_AS (ulimit -v)", c.known)
			_, err := Alloc(c.dt, c.shape)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var me *MemoryError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "RLIMIT_AS") {
				t.Fatalf("err = %v, want a MemoryError with %q", err, c.want)
			}
			// New panics with the same error instead of aborting the process.
			func() {
				defer func() {
					p, _ := recover().(error)
					if !errors.As(p, &me) {
						t.Fatalf("New panicked with %v, want a *MemoryError", p)
					}
				}()
				New(c.dt, c.shape)
			}()
		})
	}
}

// TestReadNpyChecksMemory: a .npy whose data is all there but bigger than
// the process may hold is refused before it is allocated, file or stream.
func TestReadNpyChecksMemory(t *testing.T) {
	withHeadroom(t, 64<<20, "cgroup", true)
	b := append(numpyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2048, 2048), }"), make([]byte, 2048*2048*8)...)
	if _, err := ReadNpyBytes(b, false); err == nil || !strings.Contains(err.Error(), "F64[2048 2048] needs 33554432 bytes") {
		t.Errorf("bytes: %v", err)
	}
}

// An endless stream whose header claims more than the process may use fails
// before any of its data is read (it used to read that much first).
func TestReadNpyStreamClaimCheckedFirst(t *testing.T) {
	withHeadroom(t, 256<<20, "cgroup", true)
	hdr := numpyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2147483647,), }")
	data := &countingZeros{}
	_, err := ReadNpy(io.MultiReader(bytes.NewReader(hdr), data), false)
	if err == nil || !strings.Contains(err.Error(), "F64[2147483647] needs 17179869176 bytes") {
		t.Errorf("got %v, want the claim refused", err)
	}
	if data.n != 0 {
		t.Errorf("%d data bytes read before the claim was refused, want 0", data.n)
	}
}

// A claim the process may hold, on a stream that stops short: "truncated",
// with the count of what arrived.
func TestReadNpyStreamShort(t *testing.T) {
	hdr := numpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (40000000,), }")
	body := io.LimitReader(&countingZeros{}, npyChunk+12)
	_, err := ReadNpy(io.MultiReader(bytes.NewReader(hdr), body), false)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("needs 160000000 bytes, got %d", npyChunk+12)) {
		t.Errorf("got %v, want truncated at %d bytes", err, npyChunk+12)
	}
}

type countingZeros struct{ n int }

func (z *countingZeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += len(p)
	return len(p), nil
}
