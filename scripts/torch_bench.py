"""PyTorch CUDA baselines for `fkc bench --backend vulkan` on the same shapes
(ops.BenchCases, issue 11's table).

Kernel-only times, two ways: the median of CUDA-event-timed single
launches (after a warm-up; the window also holds Python's dispatch of the
launch), and back to back (20 launches captured in one CUDA graph, its
replay timed, divided by 20), on inputs that are not zeros, the same input
every launch (as `fkc bench` does). Prints one line per case and, with --json, one JSON
object per line (case, torch_ms, what) that a table can be joined from.

Index dtypes: torch gathers/scatters with int64 indices (its native index
type; gather/scatter_add require it); fkc uses u32 indices.

Then the chains of `fkc bench --op chain` (each call on the result of the
one before), two ways: tensors already on the GPU (the ops, then a
synchronize; wall and CUDA-event times), and from NumPy to NumPy
(torch.from_numpy(x).cuda() for every input, the ops, .cpu().numpy() of the
last result; wall time). --chains runs only those; --device cpu runs them on
the CPU (no events, no graphs), to check the script where there is no GPU.
--host times each single-op case from NumPy to NumPy instead (the inputs
uploaded, the op, the result read back: wall time), beside `fkc bench`'s
wall column.
"""
import json
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F


def timed(fn, reps=50):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))  # ms
    times.sort()
    return times[len(times) // 2]


def timed_graph(fn, copies=20, reps=10):
    """Back-to-back kernel time: `copies` launches of fn captured in one CUDA
    graph, the graph replayed between two events, the median over reps
    divided by copies. No Python or launch latency inside the window (the
    per-launch column above has it: its start event is stamped while
    Python is still dispatching)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(copies):
            fn()
    g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        st, en = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        st.record()
        g.replay()
        en.record()
        torch.cuda.synchronize()
        times.append(st.elapsed_time(en) / copies)
    del g
    torch.cuda.empty_cache()
    times.sort()
    return times[len(times) // 2]


def vals(*shape):
    # like ops.fill: small multiples of 1/4, never all zeros
    return (torch.randint(-32, 32, shape, device=dev).float() / 4).contiguous()


def idx(bound, *shape):
    return torch.randint(0, bound, shape, device=dev, dtype=torch.int64)


def wall(fn, reps=20):
    """Median wall time of fn, the device's queue drained after each run."""
    for _ in range(3):
        fn()
    sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def sync():
    if dev.type == "cuda":
        torch.cuda.synchronize()


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


dev = torch.device(arg("--device", "cuda"))
as_json = "--json" in sys.argv
only_chains = "--chains" in sys.argv or dev.type != "cuda"
print("torch", torch.__version__, torch.cuda.get_device_name(0) if dev.type == "cuda" else dev, flush=True)


def chains():
    """The chain cases, tensors on the device and NumPy to NumPy."""
    def np_vals(*shape):
        return (np.random.randint(-32, 32, shape).astype(np.float32) / 4)

    def np_idx(bound, *shape):
        return np.random.randint(0, bound, shape).astype(np.int64)

    cx = np_vals(8, 3, 512, 512)
    gm, gsrc = np_vals(4096, 4096), np_vals(4096, 4096)
    ggi, gai = np_idx(4096, 4096, 4096), np_idx(4096, 4096)

    def pad_sum_argmax(x):
        return torch.argmax(torch.sum(F.pad(x, (2, 2, 2, 2), mode="reflect"), 3), 2)

    def gather_index_add(data, gi, base, ai):
        return base.index_add(1, ai, torch.gather(data, 1, gi))

    cases = [
        ("chain pad reflect 2 > sum dim 3 > argmax dim 2 f32[8,3,512,512]", "F.pad > torch.sum > torch.argmax",
         pad_sum_argmax, [cx]),
        ("chain gather dim 1 > index_add dim 1 f32[4096,4096]", "torch.gather > Tensor.index_add",
         gather_index_add, [gm, ggi, gsrc, gai]),
    ]
    for name, what, fn, inputs in cases:
        on_dev = [torch.from_numpy(a).to(dev) for a in inputs]
        ms_dev = wall(lambda: fn(*on_dev))
        ev = timed(lambda: fn(*on_dev)) if dev.type == "cuda" else None
        ms_host = wall(lambda: fn(*[torch.from_numpy(a).to(dev) for a in inputs]).cpu().numpy())
        evs = f", {ev:.4f} ms between CUDA events" if ev is not None else ""
        print(f"{name + ' (on device)':70s} {what:36s} {ms_dev:.4f} ms wall{evs}", flush=True)
        print(f"{name + ' (host to host)':70s} {what:36s} {ms_host:.4f} ms wall, NumPy to NumPy", flush=True)
        if as_json:
            print(json.dumps({"case": name + " (on device)", "torch_ms": ms_dev, "torch_event_ms": ev, "what": what, "device": str(dev)}), flush=True)
            print(json.dumps({"case": name + " (host to host)", "torch_ms": ms_host, "what": what + ", from_numpy(x).cuda() ... .cpu().numpy()", "device": str(dev)}), flush=True)
        del on_dev
        if dev.type == "cuda":
            torch.cuda.empty_cache()


if only_chains:
    chains()
    sys.exit(0)

x = vals(8, 3, 512, 512)
g = vals(8, 3, 516, 516)
big = vals(64 << 20)
m = vals(4096, 4096)
table = vals(100000, 256)
rows = idx(100000, 50000)
gi = idx(4096, 4096, 4096)
ai = idx(4096, 4096)
src = vals(4096, 4096)
rows_src = vals(50000, 256)
copy_src = torch.empty(64 << 20, device=dev).uniform_()
tiny = vals(1, 1, 4, 4)

cases = [
    ("pad constant f32[8,3,512,512] pad 2", "F.pad constant", lambda: F.pad(x, (2, 2, 2, 2), mode="constant")),
    ("pad reflect f32[8,3,512,512] pad 2", "F.pad reflect", lambda: F.pad(x, (2, 2, 2, 2), mode="reflect")),
    ("pad replicate f32[8,3,512,512] pad 2", "F.pad replicate", lambda: F.pad(x, (2, 2, 2, 2), mode="replicate")),
    ("pad circular f32[8,3,512,512] pad 2", "F.pad circular", lambda: F.pad(x, (2, 2, 2, 2), mode="circular")),
    # torch has no symmetric mode; reflect is its nearest
    ("pad constant f32[4096,4096] pad 3", "F.pad constant", lambda: F.pad(m, (3, 3, 3, 3), mode="constant")),
    ("pad_backward reflect f32[8,3,516,516] pad 2", "aten.reflection_pad2d_backward",
     lambda: torch.ops.aten.reflection_pad2d_backward(g, x, [2, 2, 2, 2])),
    ("pad_backward replicate f32[8,3,516,516] pad 2", "aten.replication_pad2d_backward",
     lambda: torch.ops.aten.replication_pad2d_backward(g, x, [2, 2, 2, 2])),
    ("sum_all f32[64Mi]", "torch.sum", lambda: torch.sum(big)),
    ("sum_dim 1 f32[4096,4096]", "torch.sum(dim=1)", lambda: torch.sum(m, 1)),
    ("max_dim 1 f32[4096,4096]", "torch.amax(dim=1)", lambda: torch.amax(m, 1)),
    ("argmax_dim 1 f32[4096,4096]", "torch.argmax(dim=1)", lambda: torch.argmax(m, 1)),
    ("index_select f32[100000,256] 50000 rows", "torch.index_select", lambda: torch.index_select(table, 0, rows)),
    ("gather dim 1 f32[4096,4096]", "torch.gather", lambda: torch.gather(m, 1, gi)),
    ("index_add dim 0 f32[100000,256] 50000 rows", "Tensor.index_add", lambda: table.index_add(0, rows, rows_src)),
    ("index_add dim 1 f32[4096,4096]", "Tensor.index_add", lambda: m.index_add(1, ai, src)),
    ("scatter_add dim 1 f32[4096,4096]", "Tensor.scatter_add", lambda: m.scatter_add(1, gi, src)),
    ("copy 256 MiB", "Tensor.clone", lambda: copy_src.clone()),
    # one launch on 16 elements: the fixed cost inside each column's window
    ("tiny pad reflect f32[4,4] pad 1", "F.pad reflect", lambda: F.pad(tiny, (1, 1, 1, 1), mode="reflect")),
]
host_args = {
    "pad constant f32[8,3,512,512] pad 2": [x], "pad reflect f32[8,3,512,512] pad 2": [x],
    "pad replicate f32[8,3,512,512] pad 2": [x], "pad circular f32[8,3,512,512] pad 2": [x],
    "pad constant f32[4096,4096] pad 3": [m], "sum_all f32[64Mi]": [big], "sum_dim 1 f32[4096,4096]": [m],
    "max_dim 1 f32[4096,4096]": [m], "argmax_dim 1 f32[4096,4096]": [m],
    "index_select f32[100000,256] 50000 rows": [table, rows], "gather dim 1 f32[4096,4096]": [m, gi],
    "index_add dim 0 f32[100000,256] 50000 rows": [table, rows, rows_src],
    "index_add dim 1 f32[4096,4096]": [m, ai, src], "scatter_add dim 1 f32[4096,4096]": [m, gi, src],
}
host_fns = {
    "pad constant f32[8,3,512,512] pad 2": lambda a: F.pad(a, (2, 2, 2, 2), mode="constant"),
    "pad reflect f32[8,3,512,512] pad 2": lambda a: F.pad(a, (2, 2, 2, 2), mode="reflect"),
    "pad replicate f32[8,3,512,512] pad 2": lambda a: F.pad(a, (2, 2, 2, 2), mode="replicate"),
    "pad circular f32[8,3,512,512] pad 2": lambda a: F.pad(a, (2, 2, 2, 2), mode="circular"),
    "pad constant f32[4096,4096] pad 3": lambda a: F.pad(a, (3, 3, 3, 3), mode="constant"),
    "sum_all f32[64Mi]": torch.sum, "sum_dim 1 f32[4096,4096]": lambda a: torch.sum(a, 1),
    "max_dim 1 f32[4096,4096]": lambda a: torch.amax(a, 1), "argmax_dim 1 f32[4096,4096]": lambda a: torch.argmax(a, 1),
    "index_select f32[100000,256] 50000 rows": lambda a, r: torch.index_select(a, 0, r),
    "gather dim 1 f32[4096,4096]": lambda a, i: torch.gather(a, 1, i),
    "index_add dim 0 f32[100000,256] 50000 rows": lambda a, r, v: a.index_add(0, r, v),
    "index_add dim 1 f32[4096,4096]": lambda a, r, v: a.index_add(1, r, v),
    "scatter_add dim 1 f32[4096,4096]": lambda a, i, v: a.scatter_add(1, i, v),
}
for name, what, fn in cases:
    if "--host" in sys.argv:
        # one call from NumPy to NumPy: every input uploaded, the result read back
        if name not in host_fns:
            continue
        arrays = [a.cpu().numpy() for a in host_args[name]]
        hfn = host_fns[name]
        ms = wall(lambda: hfn(*[torch.from_numpy(a).to(dev) for a in arrays]).cpu().numpy())
        print(f"{name:44s} {what:32s} {ms:.4f} ms wall, NumPy to NumPy", flush=True)
        if as_json:
            print(json.dumps({"case": name + " (host to host)", "torch_ms": ms, "what": what}), flush=True)
        continue
    ms = timed(fn)
    gms = timed_graph(fn)
    extra = ""
    if name == "copy 256 MiB":
        extra = f"  {2 * (256 << 20) / gms / 1e9:.0f} TB/s (read+write, back to back)"
    print(f"{name:44s} {what:32s} {ms:.4f} ms a launch, {gms:.4f} back to back{extra}", flush=True)
    if as_json:
        print(json.dumps({"case": name, "torch_ms": ms, "torch_graph_ms": gms, "what": what}), flush=True)
if "--host" not in sys.argv:
    chains()
