package tensor

import (
	"os"
	"strings"
	"testing"
)

// With THP in "madvise" or "always" mode the advice is accepted on a large
// buffer (its aligned interior is non-empty).
func TestAdviseHugeAccepted(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skip("transparent huge pages are off here")
	}
	if err := adviseHuge(makeBytes(3 * hugeMin)); err != nil {
		t.Fatalf("madvise(MADV_HUGEPAGE): %v", err)
	}
}
