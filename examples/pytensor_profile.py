"""A PyTensor script, unchanged, on graphjit: the logistic-regression train
step of PyTensor's tutorial. Run it under graphjit's mode with PyTensor's
own flags; graphjit's per-node profile of PyTensor's nodes is printed at
exit (with PyTensor's report, which now has graphjit's times):

    PYTENSOR_FLAGS=mode=GRAPHJIT,profile=True \\
        .venv/bin/python examples/pytensor_profile.py

Without the flags it runs in PyTensor's default mode.
"""
import numpy as np
import pytensor
import pytensor.tensor as pt

rng = np.random.default_rng(0)
N, FEATS = 400, 784
D = (rng.normal(size=(N, FEATS)), rng.integers(0, 2, N).astype("float64"))

x, y = pt.dmatrix("x"), pt.dvector("y")
w = pytensor.shared(rng.normal(scale=0.01, size=FEATS), name="w")
b = pytensor.shared(0.0, name="b")
p_1 = 1 / (1 + pt.exp(-pt.dot(x, w) - b))
prediction = p_1 > 0.5
xent = -y * pt.log(p_1) - (1 - y) * pt.log(1 - p_1)
cost = xent.mean() + 0.01 * (w ** 2).sum()
gw, gb = pt.grad(cost, [w, b])
train = pytensor.function([x, y], [prediction, xent],
                          updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)],
                          name="train")
predict = pytensor.function([x], prediction, name="predict")

for step in range(100):
    pred, err = train(D[0], D[1])
print("linker: %s" % type(pytensor.compile.mode.get_default_mode().linker).__name__)
print("final cost %.5f, accuracy %.3f" % (err.mean(),
                                          np.mean(predict(D[0]) == D[1])))
