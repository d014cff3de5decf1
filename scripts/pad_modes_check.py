#!/usr/bin/env python3
"""Checks `fkc run pad --mode circular|symmetric` (and pad_backward) against
the formulas, and the formulas against the NumPy and PyTorch on the
machine, bitwise on raw bits, on every
backend given: random shapes of rank 1-4, widths from 0 to 2n+1 (unequal
too), dtypes F32/F64/F16/U32/U8. Wide pads need a NumPy with
numpy/numpy#22575 (2.x): the NumPy 1.24 Debian ships pads wide, unequal
widths wrongly, so run this where the current NumPy is (the device host).

    python3 scripts/pad_modes_check.py --fkc bin/fkc --backend cpu --backend vulkan

The backward is checked against PyTorch's autograd of F.pad where torch
has the mode (circular, pads <= n), and against a NumPy fold of the
forward's index map (np.add.at in float64, narrowed once) otherwise.
Prints one line per failing case and a summary; exits 1 on a mismatch.
Not part of make test."""
import argparse, os, subprocess, sys, tempfile

import numpy as np

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = None

NP = {"circular": "wrap", "symmetric": "symmetric"}
DTYPES = [np.float32, np.float64, np.float16, np.uint32, np.uint8]  # the contracts' pad dtypes (and BF16)


def fkc(args, binary):
    r = subprocess.run([binary] + args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(" ".join(args) + ": " + r.stderr.strip())


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def src_map(mode, n, before, after):
    """The input coordinate each output coordinate of one axis reads."""
    j = np.arange(-before, n + after)
    if mode == "circular":
        return np.mod(j, n)
    m = np.mod(j, 2 * n)
    return np.where(m < n, m, 2 * n - 1 - m)


def fold(mode, g, shape, pads):
    """pad_backward by the index map: float64 sums in flat order, narrowed."""
    idx = np.ix_(*[src_map(mode, n, b, a) for n, (b, a) in zip(shape, pads)])
    flat = np.ravel_multi_index(tuple(np.broadcast_arrays(*idx)), shape)
    acc = np.zeros(int(np.prod(shape)), np.float64)
    np.add.at(acc, flat.ravel(), g.astype(np.float64).ravel())
    out = acc.astype(np.float32) if g.dtype != np.float64 else acc
    return out.astype(g.dtype).reshape(shape)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fkc", default="bin/fkc")
    ap.add_argument("--backend", action="append", default=[])
    ap.add_argument("--cases", type=int, default=120)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    backends = a.backend or ["cpu"]
    rng = np.random.default_rng(a.seed)
    tmp = tempfile.mkdtemp()
    xin, out = os.path.join(tmp, "x.npy"), os.path.join(tmp, "o.npy")
    counts = {"forward": 0, "backward": 0, "torch": 0, "failed": 0, "numpy_differs": 0}
    for case in range(a.cases):
        mode = ["circular", "symmetric"][case % 2]
        rank = int(rng.integers(1, 5))
        shape = tuple(int(rng.integers(1, 6)) for _ in range(rank))
        pads = [(int(rng.integers(0, 2 * n + 2)), int(rng.integers(0, 2 * n + 2))) for n in shape]
        dt = DTYPES[case % len(DTYPES)]
        if np.issubdtype(dt, np.floating):
            x = (rng.standard_normal(shape) * 8).astype(dt)
        else:
            x = rng.integers(0, 100, shape).astype(dt)
        want = x[np.ix_(*[src_map(mode, n, b, e) for n, (b, e) in zip(shape, pads)])]  # the formula
        if not same_bits(np.pad(x, pads, mode=NP[mode]), want):
            counts["numpy_differs"] += 1
            print(f"NOTE np.pad {NP[mode]} differs from the formula: {list(shape)} pads {pads}")
        padding = ",".join(f"{b}:{e}" for b, e in pads)
        np.save(xin, x)
        for be in backends:
            fkc(["run", "pad", "--backend", be, "--mode", mode, "--padding", padding, "-i", "x=" + xin, "-o", out], a.fkc)
            got = np.load(out)
            counts["forward"] += 1
            if not same_bits(got, want):
                counts["failed"] += 1
                print(f"FAIL forward {mode} {be} {x.dtype}{list(shape)} pads {pads}")
        if not np.issubdtype(dt, np.floating):
            continue
        g = (rng.standard_normal(want.shape) * 4).astype(dt)
        ref = fold(mode, g, shape, pads)
        if torch is not None and mode == "circular" and all(b <= n and e <= n for n, (b, e) in zip(shape, pads)) and rank >= 1 and dt != np.float16:
            # torch pads the last dims of a batched input: [1, 1, *shape] for up to 3 padded dims
            if rank <= 3:
                t = torch.from_numpy(x.astype(np.float64)).reshape((1, 1) + shape).requires_grad_()
                flat = [p for b, e in reversed(pads) for p in (b, e)]
                y = F.pad(t, flat, mode="circular")
                if not np.array_equal(y.detach().numpy().reshape(want.shape), want.astype(np.float64)):
                    counts["failed"] += 1
                    print(f"FAIL torch circular forward {list(shape)} pads {pads}")
                y.backward(torch.from_numpy(g.astype(np.float64)).reshape(y.shape))
                tg = t.grad.numpy().reshape(shape)
                if not np.allclose(tg, ref.astype(np.float64), rtol=1e-6, atol=1e-6):
                    counts["failed"] += 1
                    print(f"FAIL torch circular backward differs from the fold {list(shape)} pads {pads}")
                counts["torch"] += 1
        np.save(xin, g)
        for be in backends:
            fkc(["run", "pad_backward", "--backend", be, "--mode", mode, "--padding", padding, "-i", "grad_out=" + xin, "-o", out], a.fkc)
            got = np.load(out)
            counts["backward"] += 1
            if not same_bits(got, ref):
                counts["failed"] += 1
                print(f"FAIL backward {mode} {be} {g.dtype}{list(shape)} pads {pads}")
    print(f"numpy {np.__version__}, torch {torch.__version__ if torch else 'absent'}: "
          f"{counts['forward']} forward and {counts['backward']} backward runs on {', '.join(backends)}, "
          f"{counts['torch']} torch circular checks, {counts['failed']} failed; "
          f"np.pad differed from the formula in {counts['numpy_differs']} of {a.cases} cases")
    sys.exit(1 if counts["failed"] else 0)


if __name__ == "__main__":
    main()
