package kernels

import (
	"math"
	"strings"

	"github.com/fkc-playground/fkc/tensor"
)

// Dtype sets the seeds' contracts accept, shared by the CPU and GPU paths so
// both reject the same operand with the same words.
var (
	// FloatDTypes: the float-only kernels: the reductions, the pad
	// backwards, the index adds, embedding (contract: dtypes [F32, F64,
	// BF16, F16]).
	FloatDTypes = []tensor.DType{tensor.F32, tensor.F64, tensor.BF16, tensor.F16}
	// IndexDataDTypes: index_select_tensor and gather also carry a U32 data arm.
	IndexDataDTypes = []tensor.DType{tensor.F32, tensor.F64, tensor.BF16, tensor.F16, tensor.U32}
	// IndexDTypes: every index operand is U32.
	IndexDTypes = []tensor.DType{tensor.U32}
	// ConvertedIndexDTypes: index dtypes a call may also give (NumPy's
	// default integer is int64), converted to U32 once, before a kernel
	// runs (IndicesToU32); the kernels take U32 only.
	ConvertedIndexDTypes = []tensor.DType{tensor.I32, tensor.I64}
)

// CheckOperand validates one tensor operand before a kernel touches it: it
// is present, its dtype is one the contract lists (nil dtypes = any valid
// dtype, for the byte-agnostic movers), its shape is valid and its buffer
// holds exactly NumElems*Size bytes (contiguous, offset 0), so that no
// kernel can read out of bounds. A tensor on a device passes on its dtype
// and shape while its bytes can be read; a host kernel refuses it
// (CheckHost).
func CheckOperand(op, operand string, t *tensor.Tensor, dtypes []tensor.DType) error {
	if t == nil {
		return Violatef(op, "%s is missing", operand)
	}
	if t.DType.Size() == 0 {
		return Violatef(op, "%s has invalid dtype %s", operand, t.DType)
	}
	if dtypes != nil && !hasDType(dtypes, t.DType) {
		return Violatef(op, "%s has dtype %s (contract: %s dtypes %s)", operand, t.DType, operand, FormatDTypes(dtypes))
	}
	if err := tensor.CheckShape(t.Shape); err != nil {
		return Violatef(op, "%s: %v", operand, err)
	}
	if s := t.Storage(); s != nil {
		// on a device: its kernels bind the buffer (kernels/gpu), which
		// holds the shape's bytes by construction
		if t.Released() {
			return Usagef("%s: %s: %v", op, operand, tensor.ErrReleased)
		}
		if err := s.Err(); err != nil {
			return Usagef("%s: %s %s on %s: %v", op, operand, t, s, err)
		}
		return nil
	}
	if want := tensor.NumElems(t.Shape) * t.DType.Size(); len(t.Data) != want {
		return Violatef(op, "%s %s holds %d bytes, want %d (contract: contiguous, offset 0)", operand, t, len(t.Data), want)
	}
	return nil
}

// CheckHost refuses an operand whose bytes are not in Go memory (a tensor
// on a GPU, tensor.OnStorage) for a kernel that reads them on the host:
// the CPU kernels, whose validation (CheckOperand) takes device tensors as
// the shape rules do.
func CheckHost(op string, operands ...*tensor.Tensor) error {
	for _, t := range operands {
		if s := t.Storage(); s != nil {
			return Usagef("%s: an operand %s is on %s: the CPU kernels read Go memory (copy it back with Tensor.Host, or run the call on that device's backend)", op, t, s)
		}
	}
	return nil
}

// CheckRank validates an operand's rank (contract: rank=N).
func CheckRank(op, operand string, t *tensor.Tensor, rank int) error {
	if t.Rank() != rank {
		return Violatef(op, "%s must be rank-%d, got %s (contract: rank=%d)", operand, rank, t, rank)
	}
	return nil
}

// CheckSameDType validates that two operands share a dtype
// (contract: dtype_rule passthrough).
func CheckSameDType(op, a string, ta *tensor.Tensor, b string, tb *tensor.Tensor) error {
	if ta.DType != tb.DType {
		return Violatef(op, "%s has dtype %s but %s has dtype %s (contract: %s.dtype == %s.dtype)", b, tb.DType, a, ta.DType, b, a)
	}
	return nil
}

// CheckFill validates a pre-encoded fill element (contract: fill_bytes len
// == dtype_size).
func CheckFill(op string, fill []byte, dt tensor.DType) error {
	if len(fill) != dt.Size() {
		return Violatef(op, "fill value has %d bytes but %s elements have %d (contract: fill_bytes len == dtype_size)", len(fill), dt, dt.Size())
	}
	return nil
}

// CheckAxisIndexable validates that an axis of length n can be addressed
// by a U32 index (arg-index outputs, U32 indices).
func CheckAxisIndexable(op string, n int) error {
	if uint64(n) > math.MaxUint32+1 {
		return Violatef(op, "axis of length %d exceeds the U32 index range (contract: dtype_rule fixed(U32))", n)
	}
	return nil
}

func hasDType(set []tensor.DType, d tensor.DType) bool {
	for _, s := range set {
		if s == d {
			return true
		}
	}
	return false
}

// FormatDTypes renders a dtype list as the contracts do: [F32, F64].
func FormatDTypes(set []tensor.DType) string {
	names := make([]string, len(set))
	for i, d := range set {
		names[i] = d.String()
	}
	return "[" + strings.Join(names, ", ") + "]"
}
