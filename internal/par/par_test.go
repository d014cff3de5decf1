package par

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// Every index is visited exactly once, whatever the worker count and
// threshold, including n smaller than the worker count and n == 0.
func TestForCoversOnce(t *testing.T) {
	for _, th := range []int{1, 2, 3, 8} {
		for _, small := range []bool{false, true} {
			restore := SetThreads(th)
			var restoreSmall func()
			if small {
				restoreSmall = SplitSmall()
			}
			for _, n := range []int{0, 1, 2, 3, 7, 100, 1 << 20} {
				seen := make([]int32, n)
				var calls atomic.Int32
				For(n, 4, func(lo, hi int) {
					calls.Add(1)
					for i := lo; i < hi; i++ {
						atomic.AddInt32(&seen[i], 1)
					}
				})
				for i, c := range seen {
					if c != 1 {
						t.Fatalf("threads %d small %v n %d: index %d visited %d times", th, small, n, i, c)
					}
				}
				want := int32(Workers(n, 4))
				if want > 1 {
					want = int32(chunks(n, 4, int(want)))
				}
				if n > 0 && calls.Load() != want {
					t.Fatalf("threads %d n %d: %d chunks, want %d", th, n, calls.Load(), want)
				}
			}
			if restoreSmall != nil {
				restoreSmall()
			}
			restore()
		}
	}
}

func TestWorkers(t *testing.T) {
	defer SetThreads(4)()
	if w := Workers(10, 1); w != 1 {
		t.Fatalf("10 bytes split across %d workers", w)
	}
	if w := Workers(1<<30, 1); w != 4 {
		t.Fatalf("1 GiB split across %d workers, want 4", w)
	}
	defer SplitSmall()()
	if w := Workers(3, 1); w != 3 {
		t.Fatalf("SplitSmall: 3 items on %d workers, want 3", w)
	}
}

func TestFromEnv(t *testing.T) {
	for s, want := range map[string]int{"": 5, "2": 2, "0": 5, "-1": 5, "x": 5, "16": 16} {
		if got := fromEnv(s, 5); got != want {
			t.Errorf("fromEnv(%q) = %d, want %d", s, got, want)
		}
	}
}

// BenchmarkSplitThreshold times copying a buffer of each size on one
// worker and on Threads() workers; the size where the split starts to win
// is what minBytes is set from:
//
//	go test -run XXX -bench SplitThreshold ./internal/par
func BenchmarkSplitThreshold(b *testing.B) {
	defer SplitSmall()()
	for _, kib := range []int{64, 256, 1024, 4096, 16384, 65536} {
		n := kib << 10
		src, dst := make([]byte, n), make([]byte, n)
		for _, th := range []int{1, Threads()} {
			b.Run(fmt.Sprintf("%dKiB/t%d", kib, th), func(b *testing.B) {
				defer SetThreads(th)()
				b.SetBytes(int64(2 * n))
				for i := 0; i < b.N; i++ {
					For(n, 2, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
				}
			})
		}
	}
}

// Peak reports the most workers a For split over since the last call, and
// 1 when none split.
func TestPeak(t *testing.T) {
	defer SetThreads(2)()
	Peak()
	For(4, 1, func(lo, hi int) {}) // far below minBytes: one worker
	if p := Peak(); p != 1 {
		t.Errorf("after a small loop: Peak %d, want 1", p)
	}
	defer SplitSmall()()
	For(4, 1, func(lo, hi int) {})
	if p := Peak(); p != 2 {
		t.Errorf("after a split loop: Peak %d, want 2", p)
	}
	if p := Peak(); p != 1 {
		t.Errorf("Peak did not start again: %d", p)
	}
}
