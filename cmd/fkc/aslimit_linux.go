//go:build linux && cgo

package main

// Under a small address-space limit (ulimit -v) the Go runtime cannot
// reserve its page summaries and arena index and dies before main with
// "fatal error: failed to reserve page summary memory", exit 2 — the
// usage-error code. A C constructor runs before the runtime starts (the
// dynamic loader calls it ahead of the program's entry), so fkc checks the
// limit there and says what it needs, with exit 1.
//
// The need: what is mapped already (the binary and libc, about 17 MiB),
// the runtime's reservations (page summaries, arena index, the first heap
// arena: `fkc --help` starts from 733 MiB in all on linux/amd64, go1.26)
// and a stack of 8 MiB per thread, of which the runtime starts about one
// per CPU. Above it, how much a run needs varies (README, "limits").

/*
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

enum { fkcRuntimeKiB = 720 << 10, fkcThreadKiB = 8 << 10 };

__attribute__((constructor)) static void fkc_check_address_space(void) {
	struct rlimit l;
	if (getrlimit(RLIMIT_AS, &l) != 0 || l.rlim_cur == RLIM_INFINITY) {
		return;
	}
	unsigned long long mapped = 0; // KiB
	FILE *f = fopen("/proc/self/statm", "r");
	if (f != NULL) {
		unsigned long long pages;
		if (fscanf(f, "%llu", &pages) == 1) {
			mapped = pages * (unsigned long long)sysconf(_SC_PAGESIZE) / 1024;
		}
		fclose(f);
	}
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1) {
		cpus = 1;
	}
	unsigned long long need = mapped + fkcRuntimeKiB + (unsigned long long)cpus * fkcThreadKiB;
	unsigned long long have = (unsigned long long)l.rlim_cur / 1024;
	if (have >= need) {
		return;
	}
	fprintf(stderr, "fkc: the address-space limit (RLIMIT_AS, ulimit -v) is %llu KiB; fkc needs at least %llu KiB "
		"to start (the Go runtime reserves about 720 MiB, and 8 MiB per thread with %ld CPUs): raise it, e.g. ulimit -v %llu\n",
		have, need, cpus, need);
	_exit(1);
}
*/
import "C"
