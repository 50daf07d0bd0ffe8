"""Every peer's results against graphjit's, for the same inputs and initial
shared values: the outputs of the last call and the shared variables after
it must agree within the case's float tolerance."""
import numpy as np


class NumericsError(AssertionError):
    pass


def compare(case, backend, reference, got):
    """Largest relative difference over all names; raises NumericsError
    (naming the case, the backend and the variable) when one disagrees."""
    worst = 0.0
    for name, want in reference.items():
        have = np.asarray(got[name])
        if have.shape != want.shape:
            raise NumericsError("%s, %s: %s has shape %s, graphjit's %s" % (
                case.title, backend, name, have.shape, want.shape))
        if not np.allclose(have, want, rtol=case.rtol, atol=case.atol):
            diff = np.abs(have.astype(np.float64) - want)
            i = np.unravel_index(np.argmax(diff), diff.shape) \
                if diff.ndim else ()
            raise NumericsError(
                "%s, %s: %s differs from graphjit's beyond rtol=%g atol=%g: "
                "at %s %r against %r" % (case.title, backend, name, case.rtol,
                                         case.atol, i, have[i], want[i]))
        scale = np.maximum(np.abs(want.astype(np.float64)), case.atol or 1e-300)
        rel = np.max(np.abs(have.astype(np.float64) - want) / scale) \
            if want.size else 0.0
        worst = max(worst, float(rel))
    return worst
