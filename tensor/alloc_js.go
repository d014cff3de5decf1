//go:build js && wasm

package tensor

func alignedBytes(n int) []byte { return makeBytes(n) }

// uninitBytes returns n bytes with unspecified contents (large ones
// unzeroed: rawBytes).
func uninitBytes(n int) []byte {
	if n < hugeMin {
		return makeBytes(n)
	}
	return rawBytes(n)
}
