//go:build !linux

package judge

// cpuModel: only Linux says it without cgo or a syscall per OS.
func cpuModel() string { return "" }
