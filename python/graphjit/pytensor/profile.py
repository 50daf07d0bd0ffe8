"""graphjit's per-Apply profile of PyTensor's nodes: copied into PyTensor's
ProfileStats when its summary() runs (or sync_profile(f) is called), and
printed as graphjit's report with the rows named as PyTensor prints its
nodes."""
import atexit
import collections
import json
import re
import sys
import weakref

import numpy as np

from ..profile import Profile

_LOC = re.compile(r":(\d+)$")
_profiled = []  # weak references to the runners of profiled functions


def _node_index(apply_row):
    """The PyTensor node (its toposort index) a graphjit profile row or
    f.applies() entry stands for, or None."""
    lines = apply_row.get("lines")
    if lines is None:
        m = _LOC.search(apply_row.get("loc", ""))
        lines = [int(m.group(1))] if m else []
    return lines[0] - 1 if lines else None


def _rows_of_nodes(data, nodes):
    """(row, node index, node) for each graphjit Apply row of profile data
    that stands for one of PyTensor's nodes."""
    for fn in data["functions"]:
        if fn.get("inner_of"):  # a scan's body: its rows are not nodes
            continue
        for a in fn["applies"]:
            k = _node_index(a)
            if k is not None and 0 <= k < len(nodes):
                yield a, k, nodes[k]


def _graphjit_profile(runner):
    if runner.function is None:
        return None
    prof = runner.function.profile
    return json.loads(prof.to_json()) if prof is not None else None


def _gc_dependencies(fgraph):
    """var -> the variables computed from it (after which it can be freed),
    as PyTensor's VM gives its profile."""
    deps = {}
    for var in fgraph.variables:
        deps[var] = [o for client, _ in fgraph.clients.get(var, ())
                     if hasattr(client, "outputs") for o in client.outputs]
    return deps


class ProfileBridge:
    """Adds graphjit's per-Apply times to PyTensor's ProfileStats. Not after
    every call (reading graphjit's profile costs more than a small call):
    when the stats' summary() runs, which is how PyTensor prints them at
    exit, or when sync_profile(f) asks."""

    def __init__(self, fgraph, runner, stats):
        self.fgraph = fgraph
        self.runner = runner
        self.stats = stats
        self.seen = collections.defaultdict(lambda: (0.0, 0))
        self._deps = None
        _profiled.append(weakref.ref(runner))
        runner.bridge = self
        summary = stats.summary
        bridge = weakref.ref(self)

        def synced_summary(*args, **kwargs):
            b = bridge()
            if b is not None:
                b.update(stats)
            return summary(*args, **kwargs)

        # An attribute of this ProfileStats only; several functions sharing
        # it chain their wrappers.
        stats.summary = synced_summary
        # PyTensor's report at exit also sums its profiles, and that sum
        # raises in PyTensor 2.38 and 3.0 (it reads ``rewriter_time``, a
        # field since renamed, and calls ``getattr(ps, attr.items())``):
        # with two profiled functions the script ends in a traceback. Where
        # the field is missing, these stats stay out of that sum; each is
        # still printed, and graphjit's reports follow.
        if not hasattr(stats, "rewriter_time"):
            stats.show_sum = False

    def _dependencies(self):
        if self._deps is None:
            self._deps = _gc_dependencies(self.fgraph)
        return self._deps

    def update(self, stats):
        data = _graphjit_profile(self.runner)
        if data is None:
            return
        nodes = self.runner.translation.nodes
        compiled = self.runner.translation.compiled
        totals = collections.defaultdict(lambda: [0.0, 0])
        made = collections.defaultdict(list)  # node -> its Applies' outputs
        for a, k, node in _rows_of_nodes(data, nodes):
            tot = totals[k]
            tot[0] += a["seconds"]
            tot[1] = max(tot[1], a["calls"])
            made[k] += a.get("outputs", [])
        # A node's outputs are the last its Applies make: one Apply per
        # output of a multi-output Composite, and helper views before the
        # Apply that makes an increment's output. PyTensor's memory
        # profile needs a shape for each (summary_memory fails without).
        for k, outs in made.items():
            node = nodes[k]
            if len(outs) < len(node.outputs):
                continue
            for var, o in zip(node.outputs, outs[len(outs) -
                                                 len(node.outputs):]):
                stats.variable_shape[var] = tuple(o["shape"])
                stats.variable_strides[var] = tuple(o["strides"])
        for k, (secs, calls) in totals.items():
            node = nodes[k]
            old_s, old_c = self.seen[k]
            stats.apply_time[(self.fgraph, node)] += secs - old_s
            stats.apply_callcount[(self.fgraph, node)] += calls - old_c
            stats.apply_cimpl[node] = compiled.get(node, False)
            self.seen[k] = (secs, calls)
        # What PyTensor's memory profile reads from its VM.
        stats.node_executed_order = list(nodes)
        stats.node_cleared_order = []
        stats.dependencies = self._dependencies()
        for k, node in enumerate(nodes):  # nodes with no row (folded away)
            stats.apply_time.setdefault((self.fgraph, node), 0.0)
            stats.apply_callcount.setdefault((self.fgraph, node), 0)
            stats.apply_cimpl.setdefault(node, compiled.get(node, False))


def sync_profile(f):
    """Copies graphjit's per-node times into f.profile (PyTensor's
    ProfileStats) now; summary() does it by itself."""
    bridge = getattr(_runner_of(f), "bridge", None)
    if bridge is not None:
        bridge.update(bridge.stats)


def _runner_of(f):
    """The graphjit runner of a PyTensor Function compiled in GRAPHJIT."""
    vm = getattr(f, "vm", None) or getattr(f, "fn", None)
    runner = getattr(vm, "jit_fn", None)
    if runner is None or not hasattr(runner, "translation"):
        raise TypeError("%r was not compiled with mode='GRAPHJIT'" % (f,))
    return runner


def coverage(f):
    """The share of f's nodes run by graphjit's JIT code (C), of their
    run time (when f is profiled) and the nodes that fall back to Py."""
    return _coverage(_runner_of(f))


def _coverage(runner):
    t = runner.translation
    n = len(t.nodes)
    c = sum(1 for node in t.nodes if t.compiled.get(node))
    out = {"nodes": n, "c_nodes": c, "applies": n and c / n,
           "time": None,
           "py_ops": sorted({str(node.op) for node in t.nodes
                             if not t.compiled.get(node)}),
           # Each Py node and why graphjit left it to PyTensor's perform.
           "py_nodes": [{"node": k, "op": str(node.op),
                         "reason": t.fallback_reason.get(node, "")}
                        for k, node in enumerate(t.nodes)
                        if not t.compiled.get(node)]}
    data = _graphjit_profile(runner)
    if data is not None:
        secs = {"C": 0.0, "Py": 0.0}
        for fn in data["functions"]:
            for a in fn["applies"]:
                secs[a["type"]] = secs.get(a["type"], 0.0) + a["seconds"]
        total = secs["C"] + secs["Py"]
        out["time"] = secs["C"] / total if total > 0 else None
        # Each Py node's share of the Apply time, its calls, and its line.
        per_node = {}
        for a, k, _ in _rows_of_nodes(data, t.nodes):
            s, c = per_node.get(k, (0.0, 0))
            per_node[k] = (s + a["seconds"], max(c, a.get("calls", 0)))
        for entry in out["py_nodes"]:
            s, c = per_node.get(entry["node"], (0.0, 0))
            entry["seconds"], entry["calls"] = s, c
            entry["time"] = s / total if total > 0 else None
    for entry in out["py_nodes"]:
        entry["line"] = _user_line(t.nodes[entry["node"]]).strip(" ()")
    return out


def _fallbacks_section(cov):
    """"Python fallbacks": each node that runs PyTensor's perform, its
    share of the Apply time, and why graphjit left it there; costliest
    first. Empty when every node is C."""
    nodes = cov["py_nodes"]
    if not nodes:
        return ""
    nodes = sorted(nodes, key=lambda e: -(e.get("seconds") or 0.0))
    lines = ["", "Python fallbacks",
             "---",
             "<% time> <#call> <node> <Op> <why it is Py>"]
    for e in nodes:
        share = e.get("time")
        share = "%7.1f%%" % (100 * share) if share is not None else "     -- "
        where = "node %d" % e["node"]
        if e.get("line"):
            where += " (%s)" % e["line"]
        lines.append("  %s %7s   %s  %s: %s" % (
            share, e.get("calls", "--"), where, e["op"],
            e["reason"] or "no reason recorded"))
    return "\n".join(lines) + "\n\n"


def _coverage_line(cov):
    line = "graphjit coverage: %d of %d nodes in C (%.0f%%)" % (
        cov["c_nodes"], cov["nodes"], 100 * cov["applies"])
    if cov["time"] is not None:
        line += ", %.0f%% of the Apply time" % (100 * cov["time"])
    if cov["py_ops"]:
        reasons = {}
        for n in cov["py_nodes"]:
            reasons.setdefault(n["op"], n["reason"])
        line += "; Py: " + ", ".join(
            "%s (%s)" % (op, reasons[op]) if reasons.get(op) else op
            for op in cov["py_ops"])
    return line + "\n"


def _user_line(node):
    """ " (file:line)" of the user's code that made the node, where PyTensor
    kept it (the outputs' tag.trace, carried through its rewrites)."""
    for out in node.outputs:
        trace = getattr(out.tag, "trace", None)
        if trace and trace[0]:
            file, line = trace[0][-1][0], trace[0][-1][1]
            return " (%s:%d)" % (file, line)
    return ""


def renamed_profile(runner):
    """graphjit's Profile of the function with PyTensor's node names, one
    row per node: the Applies a node became (a Composite of several
    outputs, a costly part of it computed apart, a broadcast made
    explicit) add up in the first one's row."""
    data = _graphjit_profile(runner)
    if data is None:
        return None
    for a, k, node in _rows_of_nodes(data, runner.translation.nodes):
        a["name"] = str(node)
        a["op"] = str(node.op)
        a["op_class"] = type(node.op).__name__
        a["loc"] = "node %d" % k + _user_line(node)
        a["_node"] = (k, len(node.inputs), len(node.outputs))
        a["_constants"] = _constant_inputs(node)
    for fn in data["functions"]:
        if not fn.get("inner_of"):
            fn["applies"] = _one_row_per_node(fn["applies"])
    return Profile(data)


# What rows of one node add up; the rest is the first row's.
_ADDED = ("seconds", "first_call_seconds", "flops_per_call",
          "bytes_per_call")


def _constant_inputs(node):
    """By input of node: a tensor description for a constant (what
    graphjit may take as an attribute: a Gemm's alpha and beta), else
    None."""
    out = []
    for v in node.inputs:
        data = getattr(v, "data", None)
        if v.owner is None and data is not None and hasattr(data, "shape"):
            arr = np.asarray(data)
            c_order = np.zeros(arr.shape, arr.dtype).strides
            out.append({"dtype": str(arr.dtype), "shape": list(arr.shape),
                        "strides": list(c_order)})
        else:
            out.append(None)
    return out


def _with_constant_inputs(row, constants):
    """The row's inputs as the node lists them: where graphjit took the
    node's constants as attributes (its row reads only the others), the
    constants are put back in their places."""
    ins = row.get("inputs", [])
    others = [c for c in constants if c is None]
    if len(ins) != len(others) or len(ins) == len(constants):
        return
    given = iter(ins)
    row["inputs"] = [next(given) if c is None else c for c in constants]


def _one_row_per_node(applies):
    """Rows of the same node made one, in the first one's place: times,
    flops and bytes added; the inputs of a row that reads as many as the
    node does, and the last rows' outputs, as many as the node has (values
    computed apart come first). Rows with memory or time distributions,
    which do not add, stay apart."""
    groups, merged, node_of = {}, [], {}
    for a in applies:
        constants = a.pop("_constants", None)
        node = a.pop("_node", None)
        node_of[id(a)] = None if node is None else node[0]
        mergeable = node is not None and not any(
            f in a for f in ("distribution", "input_vars", "outputs_memory"))
        if not mergeable or node[0] not in groups:
            merged.append(a)
            if mergeable:
                groups[node[0]] = (node, constants, [a])
            elif constants is not None:
                _with_constant_inputs(a, constants)
            continue
        groups[node[0]][2].append(a)
    for (_, n_in, n_out), constants, rows in groups.values():
        if len(rows) == 1:
            _with_constant_inputs(rows[0], constants)
            continue
        into = rows[0]
        for a in rows[1:]:
            for f in _ADDED:
                if f in a or f in into:
                    into[f] = into.get(f, 0) + a.get(f, 0)
            into["calls"] = max(into.get("calls", 0), a.get("calls", 0))
            if a.get("type") == "Py":
                into["type"] = "Py"
        reads_all = [a for a in rows if len(a.get("inputs", [])) == n_in]
        into["inputs"] = (reads_all or rows)[0].get("inputs", [])
        _with_constant_inputs(into, constants)
        outputs = [o for a in rows for o in a.get("outputs", [])]
        into["outputs"] = outputs[-n_out:] if n_out else []
    # One numbering: where every row is a node of its own, a row's id is
    # the node's index in PyTensor's toposort ("node k" in the row).
    nodes = [node_of[id(a)] for a in merged]
    if None not in nodes and len(set(nodes)) == len(nodes):
        for a, k in zip(merged, nodes):
            a["id"] = k
    return merged


def _summary(runner, file=None, **options):
    out = sys.stdout if file is None else file
    prof = renamed_profile(runner)
    if prof is None:
        out.write("graphjit: the function was not profiled (profile=True)\n")
    else:
        prof.summary(file=out, **options)
        if any(fn.get("memory") for fn in prof.data.get("functions", [])):
            out.write("graphjit: the memory profile above is measured (every "
                      "allocation of the calls, hooked); PyTensor's own "
                      "report's \"Memory Profile\" is its estimate from the "
                      "output shapes and its model of freeing order.\n")
    cov = _coverage(runner)
    out.write(_fallbacks_section(cov))
    out.write(_coverage_line(cov))


def summary(f, file=None, **options):
    """Prints graphjit's Theano-style report of f, a PyTensor Function
    compiled in GRAPHJIT with profile=True, rows named as PyTensor's nodes,
    then its C coverage."""
    _summary(_runner_of(f), file, **options)


@atexit.register
def _print_at_exit():
    # PYTENSOR_FLAGS=profile=True: graphjit's reports beside PyTensor's.
    try:
        from pytensor import config
        if not config.profile:
            return
    except Exception:
        return
    for ref in _profiled:
        runner = ref()
        if runner is not None:
            _summary(runner, file=sys.stderr)


def guard_exit_report():
    """PyTensor's report at exit sums its profiles when two or more are
    printed, and that sum fails in PyTensor 2.38 and 3.0 (it reads
    ``rewriter_time``, since renamed, and calls ``getattr(ps,
    attr.items())``): a profiled ``pm.sample`` ends in a traceback, whatever
    its functions' modes. The exit hook is replaced by one that prints
    every profile as PyTensor does and leaves the sum out, in this process
    and in the processes it forks (they inherit the hook)."""
    try:
        from pytensor.compile.debug import profiling
    except ImportError:  # PyTensor 2.38
        from pytensor.compile import profiling
    import atexit
    original = profiling._atexit_print_fn
    if getattr(original, "_graphjit", False):
        return

    def print_profiles_at_exit():
        for ps in profiling._atexit_print_list:
            ps.show_sum = False
        original()

    print_profiles_at_exit._graphjit = True
    profiling._atexit_print_fn = print_profiles_at_exit
    if profiling._atexit_registered:  # registered before graphjit came
        atexit.unregister(original)
        atexit.register(print_profiles_at_exit)
