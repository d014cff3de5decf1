package kernels

import "fmt"

// The three kinds of error a caller tells apart with errors.As (never by
// their text): a contract violation (bad input that the contract forbids,
// exit status 1), a kernel this adapter cannot run (Unavailable: the
// kernel exists, the device lacks a feature; another backend runs it), and
// a malformed call (Usage: a flag, an op name, a missing input; exit 2).
// The "fkc: " prefix is added once, at the surface (CLI, browser).

// Unavailable says a kernel cannot run on this adapter (a missing feature
// such as shader-f64 or 64-bit atomics) and where it runs instead.
type Unavailable struct {
	Kernel string // contract kernel or op, e.g. "pad_backward_reflect_f64"
	Need   string // the missing feature, e.g. "64-bit atomics"
	Msg    string // the rest of the sentence: where it runs instead
}

func (u *Unavailable) Error() string {
	s := u.Kernel + ": not available on this adapter"
	if u.Need != "" {
		s += " (needs " + u.Need + ")"
	}
	if u.Msg != "" {
		s += "; " + u.Msg
	}
	return s
}

// Usage is a malformed call: an unknown op or flag, a flag value that does
// not parse, a missing input.
type Usage struct{ Msg string }

func (e *Usage) Error() string { return e.Msg }

// Usagef builds a Usage error.
func Usagef(format string, args ...any) error { return &Usage{Msg: fmt.Sprintf(format, args...)} }
