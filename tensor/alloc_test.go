package tensor

import (
	"runtime"
	"testing"
	"unsafe"
)

// Sizes on both sides of hugeMin, odd lengths included.
var allocSizes = []int{0, 1, 7, 8, 4095, hugeMin - 1, hugeMin, hugeMin + 3, 3*hugeMin + 5, 9 << 20}

func TestAllocLengthAndAlignment(t *testing.T) {
	for _, n := range allocSizes {
		for name, f := range map[string]func(int) []byte{"aligned": alignedBytes, "uninit": uninitBytes} {
			b := f(n)
			if len(b) != n {
				t.Fatalf("%s(%d): len %d", name, n, len(b))
			}
			if n > 0 && uintptr(unsafe.Pointer(&b[0]))%8 != 0 {
				t.Fatalf("%s(%d): %p is not 8-byte aligned", name, n, &b[0])
			}
			// Every byte is writable and reads back.
			for i := range b {
				b[i] = byte(i)
			}
			for i := range b {
				if b[i] != byte(i) {
					t.Fatalf("%s(%d): byte %d reads %d", name, n, i, b[i])
				}
			}
		}
	}
}

// New is zeroed even when the heap hands back memory a dropped tensor
// dirtied, which is exactly what Empty does not promise.
func TestNewIsZeroAfterReuse(t *testing.T) {
	for round := 0; round < 4; round++ {
		for _, n := range allocSizes {
			d := Empty(U8, []int{n})
			for i := range d.Data {
				d.Data[i] = 0xa5
			}
			d = nil
			runtime.GC()
			z := New(U8, []int{n})
			for i, v := range z.Data {
				if v != 0 {
					t.Fatalf("round %d: New(%d) byte %d is %#x", round, n, i, v)
				}
			}
		}
	}
}

// A slice view keeps the storage alive after its *Tensor is gone: the
// buffer belongs to the Go heap, so nothing frees it under the view.
func TestViewOutlivesTensor(t *testing.T) {
	v := Empty(F32, []int{3 << 20}).F32()
	for i := range v {
		v[i] = float32(i)
	}
	for i := 0; i < 3; i++ {
		runtime.GC()
		_ = make([]byte, 16<<20) // churn: reuse of a freed buffer would overwrite v
	}
	for i, x := range v {
		if x != float32(i) {
			t.Fatalf("view element %d changed to %v after GC", i, x)
		}
	}
}

func TestCloneAndFromBytes(t *testing.T) {
	for _, n := range []int{0, 5, hugeMin/4 + 1} {
		x := New(F32, []int{n})
		for i := range x.F32() {
			x.F32()[i] = float32(i) * 0.5
		}
		c := x.Clone()
		f, err := FromBytes(F32, []int{n}, x.Data)
		if err != nil {
			t.Fatal(err)
		}
		for i := range x.Data {
			if c.Data[i] != x.Data[i] || f.Data[i] != x.Data[i] {
				t.Fatalf("n %d: byte %d differs", n, i)
			}
		}
	}
}
