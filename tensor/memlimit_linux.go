//go:build linux

package tensor

import (
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
)

// sysProbe reads the limits of this process: files under /proc and
// /sys/fs/cgroup, and resource limits. Tests give it fake ones.
type sysProbe struct {
	read   func(path string) ([]byte, error)
	rlimit func(resource int) (cur uint64, ok bool) // ok: a finite limit is set
}

var realProbe = sysProbe{
	read: os.ReadFile,
	rlimit: func(resource int) (uint64, bool) {
		var l syscall.Rlimit
		if err := syscall.Getrlimit(resource, &l); err != nil || l.Cur == ^uint64(0) {
			return 0, false
		}
		return l.Cur, true
	},
}

func systemHeadroom() (uint64, string, bool) { return realProbe.headroom() }

// headroom is the least of: the address-space limit less the address
// space in use, the data limit less the data in use, each enclosing
// cgroup's memory limit less its usage (v2 and v1), and the system's
// available memory (which already excludes what this process uses).
func (p sysProbe) headroom() (uint64, string, bool) {
	var l limitSet
	status, _ := p.read("/proc/self/status")
	for _, r := range []struct {
		res        int
		field, why string
	}{
		{syscall.RLIMIT_AS, "VmSize", "RLIMIT_AS (ulimit -v)"},
		{syscall.RLIMIT_DATA, "VmData", "RLIMIT_DATA (ulimit -d)"},
	} {
		if lim, ok := p.rlimit(r.res); ok {
			if used, ok := kvField(string(status), r.field); ok {
				l.add(sub(lim, used), r.why)
			}
		}
	}
	p.cgroups(&l)
	if mi, err := p.read("/proc/meminfo"); err == nil {
		if avail, ok := kvField(string(mi), "MemAvailable"); ok {
			swap, _ := kvField(string(mi), "SwapFree")
			l.add(avail+swap, "the system's available memory (MemAvailable + SwapFree, /proc/meminfo)")
		}
	}
	return l.avail, l.name, l.ok
}

// cgroups adds the memory limit of every cgroup enclosing this process.
func (p sysProbe) cgroups(l *limitSet) {
	b, err := p.read("/proc/self/cgroup")
	if err != nil {
		return
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[2], "/") {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "": // v2 (unified, or hybrid under unified/)
			for _, mount := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
				p.walk(l, mount, parts[2], "memory.max", "memory.current")
			}
		case hasWord(parts[1], "memory"): // v1
			p.walk(l, "/sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes", "memory.usage_in_bytes")
		}
	}
}

// walk adds limit - usage for dir and each of its ancestors.
func (p sysProbe) walk(l *limitSet, mount, dir, limitFile, usageFile string) {
	for {
		d := path.Join(mount, dir)
		lim, ok1 := p.number(path.Join(d, limitFile))
		used, ok2 := p.number(path.Join(d, usageFile))
		if ok1 && ok2 && lim < 1<<62 { // v1 writes "unlimited" as a huge number
			l.add(sub(lim, used), "the cgroup limit "+path.Join(d, limitFile))
		}
		if dir == "/" || dir == "." || dir == "" {
			return
		}
		dir = path.Dir(dir)
	}
}

// number reads a file holding one decimal number ("max" is no number).
func (p sysProbe) number(file string) (uint64, bool) {
	b, err := p.read(file)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}

func hasWord(list, w string) bool {
	for _, x := range strings.Split(list, ",") {
		if x == w {
			return true
		}
	}
	return false
}
