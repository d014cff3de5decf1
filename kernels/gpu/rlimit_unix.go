//go:build unix && !js

package gpu

import "syscall"

// addressSpaceLimit is the process's RLIMIT_AS (ulimit -v) in bytes; ok is
// false when there is none.
func addressSpaceLimit() (uint64, bool) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &l); err != nil || l.Cur == ^uint64(0) {
		return 0, false
	}
	return uint64(l.Cur), true
}
