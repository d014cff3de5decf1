package cpu

import (
	"fmt"
	"testing"

	"github.com/fkc-playground/fkc/internal/par"
)

// atThreads runs f once per worker setting: one worker, then two and three
// with every loop split however small, so the random small cases of the
// fast-vs-reference tests also run the split paths. A fast path equal to
// its reference at each setting is independent of the thread count.
func atThreads(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, th := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("threads=%d", th), func(t *testing.T) {
			defer par.SetThreads(th)()
			if th > 1 {
				defer par.SplitSmall()()
			}
			f(t)
		})
	}
}
