//go:build js && wasm

package tensor

import "runtime"

// tabMemory is what the tab's Go program lets its heap reach: a wasm32
// module's memory ends at 4 GiB, and the browser may refuse to grow it
// before that; a quarter is left to the runtime and the browser.
const tabMemory = 3 << 30

// systemHeadroom in the browser: tabMemory less what the Go heap holds
// now (memory it took but has freed counts as free: it is reused). Past
// the module's real end Go's allocator stops the whole program ("fatal
// error: out of memory", which no recover catches): fkc.bench of an
// index_add on three 2^27-element tensors did, and every later call said
// the Go app was not running.
func systemHeadroom() (uint64, string, bool) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return sub(tabMemory, ms.Sys-ms.HeapIdle), "the tab's 3 GiB of WebAssembly memory", true
}
