package judge

import (
	"syscall"
	"unsafe"
)

// Linux's per-thread and per-process CPU clocks (clock_gettime(2)).
const (
	clockProcessCPUTime = 2
	clockThreadCPUTime  = 3
)

// cpuTimes is the calling thread's and the whole process's CPU time in
// ns, user and system: a kernel's time on the CPU, whatever other
// processes on the machine take meanwhile. ok is false when the clocks
// cannot be read.
func cpuTimes() (thread, process float64, ok bool) {
	read := func(clock uintptr) (float64, bool) {
		var ts syscall.Timespec
		_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clock, uintptr(unsafe.Pointer(&ts)), 0)
		return float64(ts.Nano()), errno == 0
	}
	t, ok1 := read(clockThreadCPUTime)
	p, ok2 := read(clockProcessCPUTime)
	return t, p, ok1 && ok2
}
