"""The bridge's differential fuzzer (bridge_fuzz.py), a few hundred random
PyTensor graphs in CI: each compiled with GRAPHJIT must give what
PyTensor's own perform gives, or raise the same exception type. The long
runs are bridge_fuzz.py's command line (docs/fuzzing.md)."""
import pytest

pytest.importorskip("pytensor")

import bridge_fuzz  # noqa: E402


@pytest.mark.parametrize("start", range(0, 300, 50))
def test_random_graphs_agree_with_pytensor(start):
    failures = [m for m in map(bridge_fuzz.run_case, range(start, start + 50))
                if m]
    assert not failures, "\n".join(failures)


def test_seeds_that_found_bugs():
    """Seed 11357: a scan, its gradient scan and a fused Composite whose
    spelling repeats shared subexpressions; spelling it took 7 GB and 20 s
    before spellings were capped (scalar_ops.SPELLING_CAP)."""
    failures = [m for m in map(bridge_fuzz.run_case, [11357]) if m]
    assert not failures, "\n".join(failures)
