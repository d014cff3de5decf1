package tensor

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// A fill value is exact where it can be and an error where it cannot: never
// wrapped, never rounded through float64 on its way to an integer (as
// PyTorch: "value cannot be converted … without overflow").
func TestScalarEncode(t *testing.T) {
	bad := []struct {
		v  string
		dt DType
	}{
		{"1e10", U32}, {"-1", U32}, {"-200", I8}, {"128", I8}, {"9.3e18", I64}, {"9223372036854775808", I64},
		{"-9223372036854775809", I64}, {"18446744073709551616", I64}, {"1.5", I32}, {"nan", I32}, {"inf", U8},
		{"2", BOOL}, {"-1", BOOL}, {"70000", F16}, {"1e39", F32}, {"3.5e38", BF16}, {"65520", F16}, {"-1e309", F64},
		// past the largest finite value, though they would round to it
		// (PyTorch refuses them: "value cannot be converted to type
		// at::Half without overflow"); 65510 was rounded to 65504
		{"65505", F16}, {"65510", F16}, {"-65519", F16}, {"65504.5", F16}, {"3.39e38", BF16}, {"3.4028235e38", F32},
	}
	for _, b := range bad {
		s, err := ParseScalar(b.v)
		if err != nil {
			continue // refused at parse time (e.g. beyond float64): also an error
		}
		if _, err := s.Encode(b.dt); err == nil {
			t.Errorf("%s on %s: accepted", b.v, b.dt)
		}
	}
	good := []struct {
		v    string
		dt   DType
		bits uint64
	}{
		{"-9007199254740993", I64, negBits(9007199254740993)},
		{"9223372036854775807", I64, math.MaxInt64},
		{"-9223372036854775808", I64, 1 << 63},
		{"4294967295", U32, math.MaxUint32},
		{"-128", I8, 0x80},
		{"1e3", I32, 1000},
		{"true", BOOL, 1},
		{"-0", F32, uint64(math.Float32bits(float32(math.Copysign(0, -1))))},
		{"65504", F16, 0x7bff},
		{"3.3895313892515355e38", BF16, 0x7f7f}, // BF16's largest finite value, exactly
		{"inf", F16, 0x7c00},
		{"16777217", F32, uint64(math.Float32bits(16777216))}, // ties to even, rounded once
		// 2^60+2^52+1 is past half an ulp (2^52) of BF16 at 2^60: rounded
		// once it goes up to 2^60+2^53 (0x5d81); through float64 first it
		// became the halfway 2^60+2^52 and then, ties to even, 2^60.
		{"1157425104234217473", BF16, 0x5d81},
		{"1157425104234217472", BF16, 0x5d80}, // exactly halfway: ties to even
		{"-1157425104234217473", BF16, 0xdd81},
		{"2049", F16, 0x6800}, // 2048 + 1: halfway at 2048's ulp of 2, ties to even
		{"0.1", F64, math.Float64bits(0.1)},
	}
	for _, g := range good {
		s, err := ParseScalar(g.v)
		if err != nil {
			t.Errorf("%s: %v", g.v, err)
			continue
		}
		b, err := s.Encode(g.dt)
		if err != nil {
			t.Errorf("%s on %s: %v", g.v, g.dt, err)
			continue
		}
		var full [8]byte
		copy(full[:], b)
		if got := binary.LittleEndian.Uint64(full[:]); got != g.bits {
			t.Errorf("%s on %s: bits %#x, want %#x", g.v, g.dt, got, g.bits)
		}
	}
	for _, junk := range []string{"", "3abc", "1.2.3", "--1", "0x", " 1", "1 ", "1_0", "1_000.5", "0x1p4", "0X10", "-0x1p-2"} {
		if _, err := ParseScalar(junk); err == nil {
			t.Errorf("%q parsed", junk)
		}
	}
	s, _ := ParseScalar("-9007199254740993")
	if _, err := s.Encode(U32); err == nil || !strings.Contains(err.Error(), "U32 range: [0, 4294967295]") {
		t.Errorf("range error %v", err)
	}
	// String round-trips.
	for _, v := range []string{"-9007199254740993", "3.0", "2.5", "-0", "NaN", "+Inf", "1e+300"} {
		a, _ := ParseScalar(v)
		b, err := ParseScalar(a.String())
		if err != nil || a.String() != b.String() {
			t.Errorf("%s → %s → %v (%v)", v, a, b, err)
		}
	}
}

func negBits(m uint64) uint64 { return -m }
