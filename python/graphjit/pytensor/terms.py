"""Which term of a log-density each node works for: the profile's "Time by
model variable" (docs/profiling.md).

A model's log-density is a sum of terms, one per random variable and
Potential. The labels (frozensets of term names) ride on the variables'
tags, which PyTensor's clones copy:

1. label_factors tags every node of each term's graph, before any rewrite,
   with the terms whose graph it is part of (several: shared).
2. TermProvenance, attached to the graph being rewritten, carries them
   across rewrites: a replacement works for the terms of what it replaced.
3. fill_labels labels what is left (the gradient that pytensor.grad built,
   nodes a rewrite made without replacing a labelled one): a value node
   works for the terms its readers work for; a gradient node continues the
   chains of gradients it reads, each begun at one term's value.
4. variable_terms reads each variable's terms off the rewritten graph,
   with whether it is a gradient (the log-density, output 0, does not read
   it): PyTensor fuses both into one Composite, graphjit runs an Apply per
   output.
"""
import collections

from pytensor.graph.basic import Constant
from pytensor.graph.features import Feature
from pytensor.graph.rewriting.basic import GraphRewriter
from pytensor.graph.traversal import ancestors

TAG = "graphjit_terms"
GRADIENT_TAG = "graphjit_gradient"
DENSITY_TAG = "graphjit_density"


def terms_of(var):
    return getattr(var.tag, TAG, None)


def is_gradient(var):
    return getattr(var.tag, GRADIENT_TAG, False)


def _label(var, terms, gradient=False):
    setattr(var.tag, TAG, frozenset(terms))
    setattr(var.tag, GRADIENT_TAG, gradient)


def label_factors(factors, names):
    """Tags every variable of the factors' graphs (their inputs too, but
    constants) with the names of the factors it is computed for or read
    by."""
    labels = collections.defaultdict(set)
    for name, factor in zip(names, factors):
        for var in ancestors([factor]):
            if not isinstance(var, Constant):
                labels[var].add(name)
    for var, terms in labels.items():
        _label(var, terms)


def mark_density(var, names):
    """var is the sum of the terms names: the output whose graph
    fill_labels and variable_terms read as the value."""
    _label(var, names)
    setattr(var.tag, DENSITY_TAG, True)


def is_density(var):
    return getattr(var.tag, DENSITY_TAG, False)


class TermProvenance(Feature):
    """A replacement works for the terms of what it replaced. Its new
    nodes take them, narrowed to what their inputs work for (_narrowed:
    the sum of all terms, rewritten, gives back each term's own summands);
    a node it reuses adds them (it is shared now), unless one computes the
    value and the other the gradient, where the value's labels stay."""

    def on_change_input(self, fgraph, node, i, r, new_r, reason=None):
        terms = terms_of(r)
        if not terms:
            return
        gradient = is_gradient(r)
        held = terms_of(new_r)
        if held is not None:
            if is_gradient(new_r) == gradient:
                if not terms <= held:
                    _label(new_r, held | terms, gradient)
            elif not gradient:  # a gradient's node now computes the value
                _label(new_r, terms, False)
            return
        # Inputs first: each new node narrows to what its inputs work for.
        stack, seen = [(new_r, False)], set()
        while stack:
            var, ready = stack.pop()
            if var.owner is None or terms_of(var) is not None:
                continue
            if not ready:
                if var in seen:
                    continue
                seen.add(var)
                stack.append((var, True))
                stack.extend((i, False) for i in var.owner.inputs)
                continue
            _label(var, _narrowed(terms, var.owner.inputs), gradient)


def _narrowed(terms, inputs):
    """The terms of a new node that replaces one working for terms: those
    its inputs work for, when it knows them all (the sum of all terms,
    rewritten, gives back each term's own summands)."""
    labels = [terms_of(i) for i in inputs if not isinstance(i, Constant)]
    if not labels or not all(labels):
        return terms
    return (terms & frozenset().union(*labels)) or terms


def fill_labels(fgraph):
    """Labels the unlabelled nodes of fgraph, whose output 0 is a
    density, from their neighbours (3. in the module's text)."""
    density = fgraph.outputs[0]
    nodes = fgraph.toposort()
    value = {v for v in ancestors([density]) if v.owner is not None}
    _fill_values(fgraph, nodes, value, density)
    _fill_gradient(fgraph, nodes, value, density)


def _fill_values(fgraph, nodes, value, density):
    """A value works for the terms its readers work for. The node summing
    the terms tells nothing of which term a summand belongs to: its other
    readers do, where there are any."""
    total = density.owner
    for node in reversed(nodes):
        for var in node.outputs:
            if var not in value or terms_of(var) is not None:
                continue
            readers = [c for c, _ in fgraph.clients.get(var, ())
                       if getattr(c, "outputs", None)
                       and any(o in value for o in c.outputs)]
            if any(c is not total for c in readers):
                readers = [c for c in readers if c is not total]
            terms = set()
            for reader in readers:
                for out in reader.outputs:
                    terms |= terms_of(out) or set()
            if terms:
                _label(var, terms)


def _fill_gradient(fgraph, nodes, value, density):
    """A gradient node continues the chains of the gradients it reads. The
    seed (ones like the density, times constants) begins no term's chain;
    a chain's first step reads the seed and values (of one term, or
    computed from them: 2 * x for the gradient of x ** 2). A node that
    reads values only (zeros like one, a shape) takes its readers' chain."""
    seed, waiting, derived = set(), [], {}
    for node in nodes:
        if all(o in value for o in node.outputs):
            continue
        ins = [i for i in node.inputs if i.owner is not None]
        if ins and all(i is density or i in seed for i in ins):
            seed.update(node.outputs)
            continue
        read = set().union(*(terms_of(i) or derived.get(i, ()) for i in ins
                             if (i in value and i is not density)
                             or i in derived))
        chains = [terms_of(i) for i in ins
                  if i not in value and i not in seed and terms_of(i)]
        if chains:
            terms = set().union(*chains)
        elif any(i in seed for i in ins):
            terms = read
        else:
            waiting.append(node)
            derived.update((o, read) for o in node.outputs)
            continue
        _label_outputs(node, value, terms)
    for node in reversed(waiting):
        terms = set()
        for var in node.outputs:
            for reader, _ in fgraph.clients.get(var, ()):
                for out in getattr(reader, "outputs", ()):
                    terms |= terms_of(out) or set()
        _label_outputs(node, value,
                       terms or derived.get(node.outputs[0], set()))


def _label_outputs(node, value, terms):
    for var in node.outputs:
        if var not in value and terms_of(var) is None and terms:
            _label(var, terms, gradient=True)


class TermTracking(GraphRewriter):
    """The first rewrite of a function whose graph carries term labels:
    fills the gaps, then carries the labels across the rewrites that
    follow (graphjit.pymc registers it in its mode's query)."""

    def add_requirements(self, fgraph):
        pass

    def apply(self, fgraph):
        if not fgraph.outputs or not is_density(fgraph.outputs[0]):
            return
        fgraph.graphjit_terms = True
        fill_labels(fgraph)
        if not any(isinstance(f, TermProvenance) for f in fgraph._features):
            fgraph.attach_feature(TermProvenance())


def variable_terms(fgraph):
    """(terms, gradient) of each labelled variable a node of fgraph (a
    rewritten one) computes, or None when TermTracking did not rewrite it.
    Terms are sorted; a gradient is not read by the log-density."""
    if not getattr(fgraph, "graphjit_terms", False):
        return None
    fill_labels(fgraph)
    value = _read_by(fgraph.outputs[0])
    return {var: (sorted(terms_of(var)), var not in value)
            for node in fgraph.apply_nodes for var in node.outputs
            if terms_of(var)}


def _read_by(out):
    """The variables out is computed from. An output of a Composite of
    several (PyTensor fuses the value and its gradient into one) reads only
    the inputs its own scalar graph reads."""
    seen, stack = set(), [out]
    while stack:
        var = stack.pop()
        if var in seen:
            continue
        seen.add(var)
        node = var.owner
        if node is None:
            continue
        inner = getattr(getattr(node.op, "scalar_op", None), "inner_outputs",
                        None)
        if inner is not None and len(node.outputs) > 1:
            k = node.outputs.index(var)
            read = set(ancestors([inner[k]]))
            stack.extend(i for i, x in zip(node.inputs,
                                           node.op.scalar_op.inner_inputs)
                         if x in read)
        else:
            stack.extend(node.inputs)
    return seen
