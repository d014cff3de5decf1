//go:build !amd64 || noasm

package cpu

// Without the assembly (other architectures, WASM, -tags noasm) every
// primitive is its Go loop.

var useAVX2 = false // a var, as on amd64, so the tests can set it

func sumLanesF32(x []float32, acc *[lanes]float32) { sumLanesGo(x, acc) }
func sumLanesF64(x []float64, acc *[lanes]float64) { sumLanesGo(x, acc) }

func extremeLanesF32(x []float32, acc *[lanes]float32, max bool) { extremeLanesGo(x, acc, max) }
func extremeLanesF64(x []float64, acc *[lanes]float64, max bool) { extremeLanesGo(x, acc, max) }

func sumRows8F32(x []float32, stride, cols int, acc *[8]float32) { sumRows8F32Go(x, stride, cols, acc) }

func addF32(dst, src []float32)              { addGo(dst, src) }
func addF64(dst, src []float64)              { addGo(dst, src) }
func widenAddF32(acc []float64, g []float32) { widenAddF32Go(acc, g) }
func narrowF32(dst []float32, src []float64) { narrowF32Go(dst, src) }

func prefetch(b []byte) {}

func blockSumsF32(x []float32, sums []float32) { blockSumsGo(x, sums) }

func gatherU32(dst, row []uint32, idx []uint32) bool { return gatherRow(dst, row, idx) }

func extremeF32(x []float32, max bool) float32 { return extremeGo(x, max) }

// moveBytes is copy(dst, src). Tried and dropped for WASM: 2 KiB rows as
// eight-word loop iterations instead of V8's memory.copy: faster under
// node, slower in Chromium, which pays more per loop iteration.
// Measurements: docs/perf/cpu-pad.md.
func moveBytes(dst, src []byte) { copy(dst, src) }

func firstEqualBits(x []float32, bits uint32) int { return firstEqualBitsGo(as[uint32](x), bits) }
