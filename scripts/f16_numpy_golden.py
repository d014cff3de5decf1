#!/usr/bin/python3
"""Writes tensor/testdata/f16_numpy.txt: decimal texts near float16 ties and
the float16 bits NumPy gives them (np.float16(text)), for the fill-rounding
test. Texts sit a relative 1e-9 either side of a tie, so that their float64
is not itself the tie and NumPy's decimal -> float64 -> float16 is the
nearest float16. Run: /usr/bin/python3 scripts/f16_numpy_golden.py"""
import random
import numpy as np

rng = random.Random(7)
lines = []
for _ in range(1500):
    raw = rng.randrange(0, 0x7bff)  # positive finite, below the largest
    v = np.array([raw], dtype=np.uint16).view(np.float16)[0]
    w = np.array([raw + 1], dtype=np.uint16).view(np.float16)[0]
    m = (float(v) + float(w)) / 2  # exact in float64
    for rel in (1 - 1e-9, 1 + 1e-9):
        for sign in (1, -1):
            text = repr(sign * m * rel)
            bits = np.array([np.float16(text)]).view(np.uint16)[0]
            lines.append(f"{text} {bits:04x}")
for text in ("2049.0000001", "1.0004882813", "65504", "0.1", "-0.0", "5.96e-08", "2.98e-08"):
    bits = np.array([np.float16(text)]).view(np.uint16)[0]
    lines.append(f"{text} {bits:04x}")
with open("tensor/testdata/f16_numpy.txt", "w") as f:
    f.write("\n".join(lines) + "\n")
print(len(lines), "values, numpy", np.__version__)
