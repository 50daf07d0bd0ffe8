"""Profiles as data: the per-Apply rows as Python objects, saved and loaded
as graphjit's profile JSON (docs/profile-json.md), merged and diffed by the
same code as ``graphjit-prof``."""
import dataclasses
import json
import sys

from . import _graphjit

__all__ = ["ApplyRow", "Profile", "merge", "diff"]

_SUMMARY_DEFAULTS = dict(n_apply=20, n_ops=20, tips=True, tensor_lines=True,
                         memory=True, min_memory_size=1024, optimizer=True)


@dataclasses.dataclass
class ApplyRow:
    """One Apply of one function, summed over its calls."""
    function: str
    id: int
    name: str           # "Elemwise{add,no_inplace}(x, y)"
    op: str             # "Elemwise{add,no_inplace}"
    op_class: str       # "Elemwise"
    loc: str            # "file.graph:LINE", or ""
    type: str           # "C" (JIT code) or "Py" (a perform)
    calls: int
    seconds: float      # all calls
    flops_per_call: float
    bytes_per_call: float
    on_device: bool
    inputs: list        # [{"dtype", "shape", "strides"}, ...]
    outputs: list
    # The first call's seconds (kept apart), and with profile_distributions
    # the other calls' {"calls", "min", "p25", "median", "p75", "p90",
    # "max"} in seconds per call; None where not recorded.
    first_call_seconds: float = None
    distribution: dict = None

    @property
    def seconds_per_call(self):
        return self.seconds / self.calls if self.calls else 0.0

    @property
    def mflops(self):
        """Millions of floating-point operations per second."""
        t = self.seconds_per_call
        return self.flops_per_call / t / 1e6 if t > 0 else 0.0

    @property
    def gbps(self):
        t = self.seconds_per_call
        return self.bytes_per_call / t / 1e9 if t > 0 else 0.0


def _write(text, file):
    (sys.stdout if file is None else file).write(text)


class Profile:
    """A profile: the functions profiled, each with its Applies' numbers."""

    def __init__(self, data):
        if isinstance(data, str):
            data = json.loads(_graphjit.profile_normalize(data))
        self.data = data

    # -- reading and writing ------------------------------------------------
    @classmethod
    def loads(cls, text, name="<string>"):
        """Reads profile JSON of any version; a ValueError says where it is
        wrong."""
        return cls(json.loads(_graphjit.profile_normalize(text, name)))

    @classmethod
    def load(cls, path):
        with open(path, encoding="utf-8") as f:
            return cls.loads(f.read(), str(path))

    def to_json(self):
        return json.dumps(self.data, indent=1)

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json())

    # -- the data -----------------------------------------------------------
    @property
    def functions(self):
        return self.data["functions"]

    def rows(self):
        """Every Apply of every function as an ApplyRow."""
        out = []
        for fn in self.functions:
            for a in fn["applies"]:
                out.append(ApplyRow(
                    function=fn["name"], id=a["id"], name=a["name"],
                    op=a["op"], op_class=a["op_class"], loc=a.get("loc", ""),
                    type=a["type"], calls=a["calls"], seconds=a["seconds"],
                    flops_per_call=a.get("flops_per_call", 0.0),
                    bytes_per_call=a.get("bytes_per_call", 0.0),
                    on_device=a.get("on_device", False),
                    inputs=a.get("inputs", []), outputs=a.get("outputs", []),
                    first_call_seconds=a.get("first_call_seconds"),
                    distribution=a.get("distribution")))
        return out

    # -- views --------------------------------------------------------------
    def summary_text(self, **options):
        opts = dict(_SUMMARY_DEFAULTS, **options)
        return _graphjit.profile_summary(json.dumps(self.data), **opts)

    def summary(self, file=None, **options):
        """Theano's summary(): the same report as ``graphjit-prof summary``."""
        _write(self.summary_text(**options), file)

    def html(self, n_apply=20, n_ops=20):
        """The profile as one HTML page of SVG charts (``graphjit-prof
        plot``): time by Op and by Apply, time per call, memory over one
        call."""
        return _graphjit.profile_html(json.dumps(self.data), n_apply, n_ops)

    def plot(self, path, n_apply=20, n_ops=20):
        """Writes html() to path."""
        with open(path, "w", encoding="utf-8") as out:
            out.write(self.html(n_apply, n_ops))

    def __str__(self):
        return self.summary_text()

    def __add__(self, other):
        return merge(self, other)


def merge(*profiles, names=None):
    """Sums runs of the same functions (``graphjit-prof merge``)."""
    texts = [json.dumps(p.data) for p in profiles]
    return Profile(json.loads(_graphjit.profile_merge(texts, names or [])))


def diff(a, b, name_a="A", name_b="B", n_rows=20, file=None):
    """Prints what changed from a to b, as ``graphjit-prof diff`` does (to
    file, stdout by default), as summary() prints the report; diff_text()
    returns the same text."""
    _write(diff_text(a, b, name_a, name_b, n_rows), file)


def diff_text(a, b, name_a="A", name_b="B", n_rows=20):
    """What changed from a to b, as ``graphjit-prof diff`` prints it. Either
    side may be a list of runs, merged first: with distributions and 4 or
    more runs a side, each Apply is tested run against run
    (docs/profiling.md, "Diffs")."""
    def side(p, name):
        if isinstance(p, (list, tuple)):
            if not p:
                raise ValueError("diff: %s is an empty list of runs" % name)
            return merge(*p) if len(p) > 1 else p[0]
        return p
    a, b = side(a, "a"), side(b, "b")
    return _graphjit.profile_diff(json.dumps(a.data), json.dumps(b.data),
                                  name_a, name_b, n_rows)
