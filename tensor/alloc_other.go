//go:build !linux && !(js && wasm)

package tensor

func alignedBytes(n int) []byte { return makeBytes(n) }

func uninitBytes(n int) []byte { return makeBytes(n) }
