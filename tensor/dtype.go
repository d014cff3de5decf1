// Package tensor holds the data model shared by every backend: dtypes with the
// contracts' names and byte widths, contiguous row-major tensors, half-precision
// conversions and NumPy .npy I/O. It is pure Go (no cgo) so the WASM app, the
// CPU kernels and the native CLI all use the same code.
package tensor

import (
	"fmt"
	"strings"
)

// DType is an element type, named as in the FKC contracts.
type DType uint8

const (
	Invalid DType = iota
	BOOL
	U8
	I8
	I16
	U32
	I32
	I64
	F16
	BF16
	F32
	F64
)

// All lists every dtype in SPEC §3 order.
var All = []DType{BOOL, U8, I8, I16, U32, I32, I64, F16, BF16, F32, F64}

var dtypeNames = [...]string{"INVALID", "BOOL", "U8", "I8", "I16", "U32", "I32", "I64", "F16", "BF16", "F32", "F64"}
var dtypeSizes = [...]int{0, 1, 1, 1, 2, 4, 4, 8, 2, 2, 4, 8}

func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// Size is the element width in bytes.
func (d DType) Size() int {
	if int(d) < len(dtypeSizes) {
		return dtypeSizes[d]
	}
	return 0
}

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool { return d == F16 || d == BF16 || d == F32 || d == F64 }

// IsHalf reports whether d is a 16-bit float.
func (d DType) IsHalf() bool { return d == F16 || d == BF16 }

// ParseDType accepts the contract spelling (F32, BF16, BOOL) case-insensitively,
// plus the common lower-case aliases (f32, bool, u8, …).
func ParseDType(s string) (DType, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	for i, n := range dtypeNames {
		if i > 0 && n == u {
			return DType(i), nil
		}
	}
	return Invalid, fmt.Errorf("unknown dtype %q (known: %s)", s, KnownDTypes())
}

// KnownDTypes lists the dtypes by their contract spelling, comma-separated.
func KnownDTypes() string {
	names := make([]string, len(All))
	for i, d := range All {
		names[i] = d.String()
	}
	return strings.Join(names, ", ")
}
