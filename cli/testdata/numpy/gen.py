# Regenerates the NumPy fixtures of cli's TestRunNumPyConventions:
#   /usr/bin/python3 cli/testdata/numpy/gen.py   (NumPy 1.24)
# Index files as NumPy writes them by default (np.array of ints is <i8),
# and the answers NumPy gives, for fkc run to match bit for bit.
import os
import numpy as np

os.chdir(os.path.dirname(os.path.abspath(__file__)))
data = np.arange(12, dtype=np.float32).reshape(3, 4)
np.save("data.npy", data)
rows = np.array([2, 0, 1])  # int64: NumPy's default integer
assert rows.dtype == np.int64
np.save("rows_i8.npy", rows)
np.save("want_index_select.npy", np.take(data, rows, axis=0))
cols = np.array([[3, 0], [1, 2], [0, 0]], dtype=np.int32)
np.save("cols_i4.npy", cols)
np.save("want_gather_last.npy", np.take_along_axis(data, cols, axis=-1))
np.save("want_sum_last.npy", data.sum(axis=-1))
np.save("want_argmax_first.npy", np.argmax(data, axis=-2).astype(np.uint32))
np.save("rows_neg_i8.npy", np.array([0, -1, 2]))
