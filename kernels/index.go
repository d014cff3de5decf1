package kernels

import (
	"fmt"
	"slices"

	"github.com/fkc-playground/fkc/tensor"
)

// The operand rules of the indexing family (fuel-reference-indexing, and
// the project's GPU contract that mirrors it), shared by the CPU and GPU
// kernels so both reject the same call with the same words. Each validates
// everything but the index values and returns the output shape;
// CheckIndices checks the values (the GPU also checks them in the shader).

// CheckIndices reports the first index, in flat order, that is not < bound.
func CheckIndices(op, operand string, idx *tensor.Tensor, bound int, limitName string) error {
	for i, v := range idx.U32() {
		if uint64(v) >= uint64(bound) {
			return IndexOutOfRange(op, operand, idx.Shape, i, int64(v), bound, limitName)
		}
	}
	return nil
}

// IndicesToU32 converts I32 or I64 indices to the U32 the contracts take,
// checking every value first: the first, in flat order, that is negative or
// not < bound is CheckIndices' error with the value as given (a negative
// index is not wrapped to a huge U32, nor 2^32+1 to 1).
func IndicesToU32(op, operand string, idx *tensor.Tensor, bound int, limitName string) (*tensor.Tensor, error) {
	if err := CheckOperand(op, operand, idx, ConvertedIndexDTypes); err != nil {
		return nil, err
	}
	out, err := tensor.Alloc(tensor.U32, idx.Shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %s as U32: %w", op, operand, err)
	}
	var bad int
	var v int64
	if idx.DType == tensor.I32 {
		s := idx.I32()
		if bad = narrowIndices(s, out.U32(), bound); bad >= 0 {
			v = int64(s[bad])
		}
	} else {
		s := idx.I64()
		if bad = narrowIndices(s, out.U32(), bound); bad >= 0 {
			v = s[bad]
		}
	}
	if bad >= 0 {
		return nil, IndexOutOfRange(op, operand, idx.Shape, bad, v, bound, limitName)
	}
	return out, nil
}

// Every axis is shorter than 2^32 (tensor.MaxElems), so an index below
// an axis length fits a uint32: this constant does not compile otherwise.
const _ = uint32(tensor.MaxElems)

// narrowIndices copies src into dst while every value is in [0, bound); it
// returns the first position that is not (-1: none).
func narrowIndices[T int32 | int64](src []T, dst []uint32, bound int) int {
	for i, v := range src {
		if v < 0 || int64(v) >= int64(bound) {
			return i
		}
		dst[i] = uint32(v)
	}
	return -1
}

// CheckOutShape bounds an output shape (element count, no overflow).
func CheckOutShape(op string, shape []int) error {
	if err := tensor.CheckShape(shape); err != nil {
		return Violatef(op, "output: %v", err)
	}
	return nil
}

// IndexSelectShape: data any rank (F32/F64/BF16/F16/U32), indices rank-1
// U32, dim < data.rank; out = data's shape with dim → len(indices).
func IndexSelectShape(data, indices *tensor.Tensor, dim int) ([]int, error) {
	const op = "index_select"
	if err := CheckOperand(op, "data", data, IndexDataDTypes); err != nil {
		return nil, err
	}
	if err := CheckOperand(op, "indices", indices, IndexDTypes); err != nil {
		return nil, err
	}
	if err := CheckRank(op, "indices", indices, 1); err != nil {
		return nil, err
	}
	if err := CheckDim(op, "data", dim, data.Rank()); err != nil {
		return nil, err
	}
	shape := append([]int{}, data.Shape...)
	shape[dim] = indices.Shape[0]
	return shape, CheckOutShape(op, shape)
}

// GatherShape: indices U32 of data's rank, dim < data.rank, and
// indices.shape[d] <= data.shape[d] for d != dim; out = indices' shape.
func GatherShape(data, indices *tensor.Tensor, dim int) ([]int, error) {
	const op = "gather"
	if err := CheckOperand(op, "data", data, IndexDataDTypes); err != nil {
		return nil, err
	}
	if err := CheckOperand(op, "indices", indices, IndexDTypes); err != nil {
		return nil, err
	}
	if indices.Rank() != data.Rank() {
		return nil, Violatef(op, "indices has rank %d but data has rank %d (contract: indices same_rank=data)", indices.Rank(), data.Rank())
	}
	if err := CheckDim(op, "data", dim, data.Rank()); err != nil {
		return nil, err
	}
	if err := checkNotLarger(op, "indices", indices.Shape, "data", data.Shape, dim); err != nil {
		return nil, err
	}
	return append([]int{}, indices.Shape...), nil
}

// EmbeddingShape: table [V, D] (F32/F64/BF16/F16), ids rank-1 U32;
// out = [len(ids), D].
func EmbeddingShape(table, ids *tensor.Tensor) ([]int, error) {
	const op = "embedding"
	if err := CheckOperand(op, "table", table, FloatDTypes); err != nil {
		return nil, err
	}
	if err := CheckRank(op, "table", table, 2); err != nil {
		return nil, err
	}
	if err := CheckOperand(op, "ids", ids, IndexDTypes); err != nil {
		return nil, err
	}
	if err := CheckRank(op, "ids", ids, 1); err != nil {
		return nil, err
	}
	shape := []int{ids.Shape[0], table.Shape[1]}
	return shape, CheckOutShape(op, shape)
}

// CheckIndexAdd: base/src floats of one dtype and rank, indices rank-1 U32,
// src.shape[dim] == len(indices), every other axis of src equal to base's.
func CheckIndexAdd(base, indices, src *tensor.Tensor, dim int) error {
	const op = "index_add"
	if err := checkAddOperands(op, base, indices, src, dim); err != nil {
		return err
	}
	if err := CheckRank(op, "indices", indices, 1); err != nil {
		return err
	}
	if src.Shape[dim] != indices.Shape[0] {
		return Violatef(op, "src.shape[%d] = %d but indices has %d entries (contract: src.dim[dim] == indices.len())", dim, src.Shape[dim], indices.Shape[0])
	}
	for d := range src.Shape {
		if d != dim && src.Shape[d] != base.Shape[d] {
			return Violatef(op, "src.shape[%d] = %d differs from base.shape[%d] = %d (contract: base and src equal in every non-dim dim)", d, src.Shape[d], d, base.Shape[d])
		}
	}
	return nil
}

// CheckScatterAdd: base/src floats of one dtype and rank, indices U32 of
// exactly src's shape, src.shape[d] <= base.shape[d] for d != dim.
func CheckScatterAdd(base, indices, src *tensor.Tensor, dim int) error {
	const op = "scatter_add"
	if err := checkAddOperands(op, base, indices, src, dim); err != nil {
		return err
	}
	if !slices.Equal(indices.Shape, src.Shape) {
		return Violatef(op, "indices shape %v differs from src shape %v (contract: indices same_as=src)", indices.Shape, src.Shape)
	}
	return checkNotLarger(op, "src", src.Shape, "base", base.Shape, dim)
}

func checkAddOperands(op string, base, indices, src *tensor.Tensor, dim int) error {
	if err := CheckOperand(op, "base", base, FloatDTypes); err != nil {
		return err
	}
	if err := CheckOperand(op, "indices", indices, IndexDTypes); err != nil {
		return err
	}
	if err := CheckOperand(op, "src", src, FloatDTypes); err != nil {
		return err
	}
	if err := CheckSameDType(op, "base", base, "src", src); err != nil {
		return err
	}
	if err := CheckDim(op, "base", dim, base.Rank()); err != nil {
		return err
	}
	if src.Rank() != base.Rank() {
		return Violatef(op, "src has rank %d but base has rank %d (contract: src same_rank=base)", src.Rank(), base.Rank())
	}
	return nil
}

// checkNotLarger enforces a.shape[d] <= b.shape[d] for every d != dim.
func checkNotLarger(op, a string, as []int, b string, bs []int, dim int) error {
	for d := range as {
		if d != dim && as[d] > bs[d] {
			return Violatef(op, "%s.shape[%d] = %d exceeds %s.shape[%d] = %d (contract: %s.shape[d] <= %s.shape[d] for d != dim)", a, d, as[d], b, d, bs[d], a, b)
		}
	}
	return nil
}
