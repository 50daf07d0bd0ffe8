"""Seconds per call, measured round robin: every backend of a case is timed
once per round, for several rounds, and each keeps the median of its rounds,
so that the shared machine's drift falls on all of them alike."""
import statistics
import time


class Timed:
    """A backend to time. per_call(n) makes n calls and returns seconds per
    call; n is chosen once so that a round takes about `target` seconds."""

    def __init__(self, name, per_call, estimate=None):
        self.name = name
        self.per_call = per_call
        self.estimate = estimate  # seconds per call, if known beforehand
        self.n = 1
        self.samples = []

    def calibrate(self, target):
        est = self.estimate
        if est is None:
            n = 1
            while True:
                est = self.per_call(n)
                if est * n >= target / 10 or n >= 10**6:
                    break
                n *= 10
        self.n = max(1, int(target / max(est, 1e-9)))
        return self

    def median(self):
        return statistics.median(self.samples)


def python_per_call(call):
    """per_call for a Python callable: n calls timed with perf_counter."""
    def per_call(n):
        start = time.perf_counter()
        for _ in range(n):
            call()
        return (time.perf_counter() - start) / n
    return per_call


def round_robin(timed, rounds, target):
    """Calibrates each backend, warms it with one round, then times `rounds`
    rounds in alternation. Returns {name: median seconds per call}."""
    for t in timed:
        t.calibrate(target)
        t.per_call(max(1, t.n // 10))  # warm-up, not recorded
    for _ in range(rounds):
        for t in timed:
            t.samples.append(t.per_call(t.n))
    return {t.name: t.median() for t in timed}
