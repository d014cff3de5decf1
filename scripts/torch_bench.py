"""PyTorch CUDA baselines for `fkc bench` on the same shapes (issue 4).

Prints median kernel time (CUDA events) and effective GB/s using the same
byte counts as the contracts' bytes_moved formulas:
  pad_reflect_b4:  2 * n_out * 4         (fuel-vulkan-kernels)
  sum_all (wgsl):  (n + 1) * 4          (fkc-wgsl-kernels)
"""
import torch
import torch.nn.functional as F


def timed(fn, reps=20):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) * 1e6)  # ns
    times.sort()
    return times[len(times) // 2]


dev = torch.device("cuda")
print("torch", torch.__version__, torch.cuda.get_device_name(0))
x = torch.randn(8, 3, 512, 512, device=dev, dtype=torch.float32)
n_in = x.numel()
n_out = 8 * 3 * 516 * 516
ns = timed(lambda: F.pad(x, (2, 2, 2, 2), mode="reflect"))
print(f"torch F.pad reflect f32[8,3,512,512] pad 2: {ns/1e6:.4f} ms  {2 * n_out * 4 / ns:.1f} GB/s")
y = torch.randn(64 << 20, device=dev, dtype=torch.float32)
ns = timed(lambda: torch.sum(y))
print(f"torch.sum f32[64Mi]: {ns/1e6:.4f} ms  {((64 << 20) + 1) * 4 / ns:.1f} GB/s")
