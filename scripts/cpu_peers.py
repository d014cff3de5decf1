#!/usr/bin/python3
"""Time NumPy and PyTorch (1 and 2 threads) on the CPU cases of issue 10.

Each case is the shape and operation of one line of kernels/cpu's
BenchmarkCases; every call allocates its output, as our kernels do. Each
figure is the median of --reps timed calls after one warm-up call.

With --go FILE (the output of `go test -bench Cases ...`, any -count), the
table also shows our median per case and its same-process memory limit, and
the ratios the issue asks for: ours against the fastest peer, and ours
against the limit. Run both back to back in one shell command, e.g.

  go test -run XXX -bench 'Cases/.*/(fast|limit|fresh)' -benchtime 15x ./kernels/cpu \\
      > /tmp/go.txt && /usr/bin/python3 scripts/cpu_peers.py --go /tmp/go.txt

Needs python3-numpy and python3-torch (Debian packages). Not part of make test.
"""
import argparse
import re
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F


def median_ms(fn, reps):
    fn()  # warm-up
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def cases(rng):
    """name -> (numpy call or None, torch call), on freshly built inputs."""
    def f32(*shape):
        return rng.standard_normal(shape, dtype=np.float32)

    def idx(bound, *shape):
        return rng.integers(0, bound, size=shape, dtype=np.int64)

    out = {}
    img = f32(8, 3, 512, 512)
    timg = torch.from_numpy(img)
    p2 = ((0, 0), (0, 0), (2, 2), (2, 2))
    for name, npmode, tmode in (("constant", "constant", "constant"), ("reflect", "reflect", "reflect"),
                                ("replicate", "edge", "replicate"), ("circular", "wrap", "circular"),
                                ("symmetric", "symmetric", None)):  # torch has no symmetric pad
        out["pad_%s_8x3x512x512" % name] = (
            lambda m=npmode: np.pad(img, p2, mode=m),
            None if tmode is None else (lambda m=tmode: F.pad(timg, (2, 2, 2, 2), mode=m)))
    sq = f32(4096, 4096)
    tsq = torch.from_numpy(sq)
    out["pad_constant_4096x4096_p3"] = (lambda: np.pad(sq, 3), lambda: F.pad(tsq, (3, 3, 3, 3)))
    g = torch.from_numpy(f32(8, 3, 516, 516))
    out["pad_backward_reflect_8x3x512x512"] = (
        None, lambda: torch.ops.aten.reflection_pad2d_backward(g, timg, [2, 2, 2, 2]))
    out["pad_backward_replicate_8x3x512x512"] = (
        None, lambda: torch.ops.aten.replication_pad2d_backward(g, timg, [2, 2, 2, 2]))
    big = f32(64 << 20)
    tbig = torch.from_numpy(big)
    out["sum_all_64Mi"] = (lambda: big.sum(), lambda: tbig.sum())
    # Our contracted fast sum against the same peers (their sums are not
    # flat folds either: NumPy's is pairwise, torch's multi-accumulator).
    out["sum_all_blocked_64Mi"] = out["sum_all_64Mi"]
    out["sum_dim1_4096x4096"] = (lambda: sq.sum(axis=1), lambda: tsq.sum(1))
    out["max_dim1_4096x4096"] = (lambda: sq.max(axis=1), lambda: tsq.amax(1))
    out["argmax_dim1_4096x4096"] = (lambda: sq.argmax(axis=1), lambda: tsq.argmax(1))
    data, rows = f32(100000, 256), idx(100000, 50000)
    tdata, trows = torch.from_numpy(data), torch.from_numpy(rows)
    out["index_select_dim0_100000x256_50000"] = (
        lambda: np.take(data, rows, axis=0), lambda: torch.index_select(tdata, 0, trows))
    gi = idx(4096, 4096, 4096)
    tgi = torch.from_numpy(gi)
    out["gather_dim1_4096x4096"] = (
        lambda: np.take_along_axis(sq, gi, axis=1), lambda: torch.gather(tsq, 1, tgi))
    src = f32(50000, 256)
    tsrc = torch.from_numpy(src)

    def np_index_add():
        o = data.copy()
        np.add.at(o, rows, src)
        return o
    out["index_add_dim0_100000x256_50000"] = (np_index_add, lambda: tdata.index_add(0, trows, tsrc))
    ssrc = f32(4096, 4096)
    tssrc = torch.from_numpy(ssrc)
    row_of = np.arange(4096)[:, None]

    def np_scatter_add():
        o = sq.copy()
        np.add.at(o, (row_of, gi), ssrc)
        return o
    out["scatter_add_dim1_4096x4096"] = (np_scatter_add, lambda: tsq.scatter_add(1, tgi, tssrc))
    dst, tdst = np.empty_like(big), torch.empty_like(tbig)
    out["copy_256MiB_new"] = (lambda: big.copy(), lambda: tbig.clone())
    out["copy_256MiB_existing"] = (lambda: np.copyto(dst, big), lambda: tdst.copy_(tbig))
    return out


def go_medians(path):
    """case -> {"fast": ms, "limit": ms, "fresh": ms}: the median call
    (ms-median), the median of those over -count runs."""
    runs = {}
    pat = re.compile(r"^BenchmarkCases/([^/]+)/(fast|ref|released|into|limit|fresh)-\d+\s.*\s([\d.]+) ms-median")
    with open(path) as f:
        for line in f:
            m = pat.match(line)
            if m:
                runs.setdefault(m.group(1), {}).setdefault(m.group(2), []).append(float(m.group(3)))
    return {c: {k: statistics.median(v) for k, v in d.items()} for c, d in runs.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=11, help="timed calls per case and peer (default 11)")
    ap.add_argument("--slow-reps", type=int, default=3, help="for calls over 200 ms (NumPy's add.at)")
    ap.add_argument("--go", help="go test -bench output to put beside the peers")
    ap.add_argument("--only", default="", help="run only cases whose name contains this")
    ap.add_argument("--threads", default="1,2", help="torch thread counts, a column each (e.g. 1,16)")
    args = ap.parse_args()
    ours = go_medians(args.go) if args.go else {}
    rng = np.random.default_rng(1)
    table = cases(rng)
    threads = [int(t) for t in args.threads.split(",")]
    cols = ["numpy"] + ["torch t=%d" % t for t in threads]
    head = "%-36s" % "case (median ms)" + "".join(" %10s" % c for c in cols)
    if ours:
        head += " %9s %9s %9s %9s %8s %8s %8s" % ("ours", "released", "into", "limit", "best/rel", "t1/rel", "lim/into")
    print(head)
    for name, (np_fn, t_fn) in table.items():
        if args.only not in name:
            continue
        row = []
        for col in cols:
            fn = np_fn
            if col != "numpy":
                torch.set_num_threads(int(col.split("=")[1]))
                fn = t_fn
            if fn is None:
                row.append(None)
                continue
            probe = median_ms(fn, 1)
            row.append(median_ms(fn, args.slow_reps if probe > 200 else args.reps))
        line = "%-36s" % name + "".join(" %10s" % ("-" if v is None else "%.2f" % v) for v in row)
        if name in ours:
            o = ours[name]
            fmt = lambda v: "%9s" % ("-" if v is None else "%.2f" % v)
            rel, into, lim = o.get("released", o.get("fast")), o.get("into"), o.get("limit")
            peers = [v for v in row if v is not None]
            t1 = row[cols.index("torch t=1")] if "torch t=1" in cols else None
            line += " " + " ".join(fmt(v) for v in (o.get("fast"), o.get("released"), into, lim))
            line += " %8s %8s %8s" % ("%.2f" % (min(peers) / rel) if peers and rel else "-",
                                      "%.2f" % (t1 / rel) if t1 and rel else "-",
                                      "%.2f" % (lim / into) if lim and into else "-")
        print(line, flush=True)
    if ours:
        print("best/rel: the fastest peer's time over ours with released results (goal >= 1.0); "
              "t1/rel: torch at one thread over ours (run ours with GOMAXPROCS=1 for the one-thread goal); "
              "lim/into: the 2-goroutine copy/read limit's time over ours writing into an owned output (goal >= 0.85)")


if __name__ == "__main__":
    sys.exit(main())
