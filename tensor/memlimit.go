package tensor

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An allocation bigger than the process may use does not fail in Go: the
// runtime aborts ("fatal error: out of memory", exit 2) or the kernel's
// OOM killer ends the process. So a tensor's size is checked against what
// the process may still use — the address-space and data limits (ulimit -v,
// ulimit -d), the cgroup's memory limit, the memory the system has
// available — before the tensor is allocated, and a shape that does not fit
// is an error that says how many bytes it needs.

// MemoryError says an allocation needs more memory than the process may use.
type MemoryError struct {
	What  string // the tensor, e.g. "F32[5 2147483643]"
	Need  uint64 // bytes the allocation needs
	Avail uint64 // bytes left under the tightest limit
	Limit string // that limit, e.g. "RLIMIT_AS (ulimit -v)"
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("%s needs %d bytes, more than this process may use: %d bytes are left under %s (%d MiB kept for the runtime)",
		e.What, e.Need, e.Avail, e.Limit, allocSlack>>20)
}

// checkAllocAbove: smaller allocations are not checked (reading the limits
// costs a few system calls; a small allocation that fails is not a shape's
// fault).
const checkAllocAbove = 16 << 20

// allocSlack is kept free beyond the allocation itself: the Go heap grows
// in arenas, and the run still has to write its output.
const allocSlack = 64 << 20

// headroom reports the bytes this process may still allocate under its
// tightest limit, and the limit's name; ok is false when no limit is known
// (another OS, or nothing readable). It is a variable so tests can stand in
// for the system.
var headroom = systemHeadroom

// lastHeadroom remembers the last reading: reading the limits costs about
// half a millisecond (a third of a fast pad's time), and an allocation far
// below what was free a moment ago needs no fresh reading.
var lastHeadroom struct {
	sync.Mutex
	avail uint64
	at    time.Time
}

// CheckAlloc reports, as a *MemoryError, whether n more bytes (for what)
// exceed what this process may use.
func CheckAlloc(what string, n int) error {
	if n < checkAllocAbove {
		return nil
	}
	lastHeadroom.Lock()
	fresh := time.Since(lastHeadroom.at) < time.Second && uint64(n)+allocSlack < lastHeadroom.avail/4
	lastHeadroom.Unlock()
	if fresh {
		return nil // a quarter of what was free under a second ago
	}
	avail, limit, ok := headroom()
	lastHeadroom.Lock()
	lastHeadroom.avail, lastHeadroom.at = avail, time.Now()
	if !ok {
		lastHeadroom.at = time.Time{}
	}
	lastHeadroom.Unlock()
	if !ok {
		return nil
	}
	if need := uint64(n); need+allocSlack > avail {
		return &MemoryError{What: what, Need: need, Avail: avail, Limit: limit}
	}
	return nil
}

// checkAlloc is CheckAlloc for a tensor of a valid shape.
func checkAlloc(dt DType, shape []int) error {
	return CheckAlloc(fmt.Sprintf("%s%v", dt, shape), NumElems(shape)*dt.Size())
}

// Alloc is New for shapes that come from input: an invalid shape, or a
// tensor bigger than the process may use, is an error instead of a panic.
func Alloc(dt DType, shape []int) (*Tensor, error) {
	if err := CheckShape(shape); err != nil {
		return nil, err
	}
	if err := checkAlloc(dt, shape); err != nil {
		return nil, err
	}
	return New(dt, shape), nil
}

// limitSet collects candidate limits and keeps the tightest.
type limitSet struct {
	avail uint64
	name  string
	ok    bool
}

func (l *limitSet) add(avail uint64, name string) {
	if !l.ok || avail < l.avail {
		l.avail, l.name, l.ok = avail, name, true
	}
}

// sub is a-b, or 0 when b ≥ a (a limit already exceeded).
func sub(a, b uint64) uint64 {
	if b >= a {
		return 0
	}
	return a - b
}

// kvField reads "Key:   1234 kB" style fields (/proc/self/status,
// /proc/meminfo), in bytes.
func kvField(text, key string) (uint64, bool) {
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(k) != key {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			return 0, false
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		if len(f) > 1 && f[1] == "kB" {
			n <<= 10
		}
		return n, true
	}
	return 0, false
}
