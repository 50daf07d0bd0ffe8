"""graphjit from Python: the logistic-regression train step of
examples/logistic_regression.graph, trained for a few steps, checked against
NumPy, and profiled per Apply (Theano's summary)."""
import pathlib

import numpy as np

import graphjit

HERE = pathlib.Path(__file__).resolve().parent

m = graphjit.load(HERE / "logistic_regression.graph")
stats = graphjit.ProfileStats("logistic regression")
train = m.function("train", profile=stats)
predict = m.function("predict", profile=stats)

rng = np.random.default_rng(0)
x = rng.normal(size=(400, 784))
y = (x[:, :10].sum(axis=1) > 0).astype(np.float64)
for step in range(100):
    cost = train(x, y)
    if step % 25 == 0:
        print("step %3d: cost %.5f" % (step, cost))

p = predict(x)
w, b = m.shared["w"].get_value(), m.shared["b"].get_value()
assert np.allclose(p, 1 / (1 + np.exp(-(x @ w + b))))
print("accuracy after 100 steps: %.3f" % np.mean((p > 0.5) == (y > 0.5)))

stats.summary(n_apply=6)
rows = sorted(stats.profile().rows(), key=lambda r: -r.seconds)
print("slowest Apply: %s (%s, %.1f us per call)"
      % (rows[0].name, rows[0].type, rows[0].seconds_per_call * 1e6))
