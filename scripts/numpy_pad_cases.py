#!/usr/bin/python3
"""Writes kernels/cpu/testdata/numpy_pad.json: NumPy's (and, for circular,
PyTorch's) answers for narrow pads (every width <= n), an independent check
of this project's own pad modes beside the formula tests.

NumPy 1.24 pads wide, unequal widths wrongly in wrap and symmetric mode
(numpy#22464), so only pads <= n are taken from it; the formula
(internal/padref) is the ground truth for wider ones.

    /usr/bin/python3 scripts/numpy_pad_cases.py
"""
import itertools, json, sys

import numpy as np

# our mode name -> NumPy's name
MODES = {"circular": "wrap", "symmetric": "symmetric"}
if len(sys.argv) > 1:
    MODES = {m: MODES[m] for m in sys.argv[1:]}

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    torch = None

cases = []
shapes = [(1,), (2,), (3,), (5,), (2, 3), (3, 1), (2, 2, 3)]
for mode, np_mode in MODES.items():
    for shape in shapes:
        x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
        widths = sorted({0, 1, shape[-1] - 1, shape[-1]})
        for combo in itertools.product(widths, repeat=2):
            pads = [(min(combo[0], n), min(combo[1], n)) for n in shape]
            pads[0] = (pads[0][1], pads[0][0])  # unequal on the first axis
            y = np.pad(x, pads, mode=np_mode)
            case = {"mode": mode, "numpy": np_mode, "shape": list(shape),
                    "pads": [list(p) for p in pads], "out_shape": list(y.shape),
                    "want": y.ravel().tolist()}
            if torch is not None and mode == "circular" and len(shape) <= 2:
                # torch pads the last len(shape) dims of an (N, C, ...) tensor,
                # last axis first
                t = torch.tensor(x).reshape((1, 1) + shape)
                flat = [w for p in reversed(pads) for w in p]
                case["torch"] = F.pad(t, flat, mode="circular").reshape(y.shape).numpy().ravel().tolist()
            cases.append(case)

out = {"numpy": np.__version__, "torch": torch.__version__ if torch else None, "cases": cases}
with open("kernels/cpu/testdata/numpy_pad.json", "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
print(len(cases), "cases")
