"""allclose.py DIR_A DIR_B: every .npy of DIR_A is in DIR_B with the same
dtype and shape and values equal within float32's or float64's rounding
(the optimizer's stable forms and BLAS round differently)."""
import os
import sys

import numpy as np

a_dir, b_dir = sys.argv[1], sys.argv[2]
names = sorted(f for f in os.listdir(a_dir) if f.endswith(".npy"))
if not names:
    sys.exit("no .npy in " + a_dir)
for name in names:
    a = np.load(os.path.join(a_dir, name))
    b = np.load(os.path.join(b_dir, name))
    if a.dtype != b.dtype or a.shape != b.shape:
        sys.exit("%s: %s %s vs %s %s" % (name, a.dtype, a.shape, b.dtype, b.shape))
    rtol = 1e-5 if a.dtype == np.float32 else 1e-12
    if not np.allclose(a, b, rtol=rtol, atol=rtol, equal_nan=True):
        sys.exit("%s differs:\n%s\n%s" % (name, a, b))
print("%d arrays agree" % len(names))
