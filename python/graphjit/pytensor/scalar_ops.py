"""PyTensor's scalar ops as graphjit's: the names of the Elemwise ops, and a
Composite's inner graph written as a graphjit `composite` expression.

Scalar ops are looked up by class name, which both PyTensor 2.38 and 3.0
keep, so that neither version's module layout is imported here.
"""
import re

import numpy as np

# graphjit's dtypes (spec/graph-format.md); anything else stays in Python.
DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "float32",
          "float64"}

# PyTensor scalar op class -> graphjit elemwise op.
_NAMES = {
    "Add": "add", "Sub": "sub", "Mul": "mul", "TrueDiv": "true_div",
    "IntDiv": "int_div", "Mod": "mod", "Pow": "pow", "Neg": "neg",
    "Abs": "abs", "Exp": "exp", "Log": "log", "Log1p": "log1p",
    "Expm1": "expm1", "Sqrt": "sqrt", "Sqr": "sqr", "Sigmoid": "sigmoid",
    "Softplus": "softplus", "Tanh": "tanh", "Sin": "sin", "Cos": "cos",
    "Floor": "floor", "Ceil": "ceil", "Sign": "sign",
    "Reciprocal": "reciprocal", "Erf": "erf", "Erfc": "erfc",
    "GammaLn": "gammaln", "Log2": "log2", "Log10": "log10",
    "ScalarMaximum": "maximum",
    "ScalarMinimum": "minimum", "Maximum": "maximum", "Minimum": "minimum", "EQ": "eq", "NEQ": "neq", "LT": "lt",
    "LE": "le", "GT": "gt", "GE": "ge", "Switch": "switch", "Clip": "clip",
    "Second": "second",
    # Special functions and the rest of libm's (docs/ops-elemwise.md).
    "Psi": "psi", "TriGamma": "tri_gamma", "PolyGamma": "polygamma",
    "Gamma": "gamma", "Erfinv": "erfinv", "Erfcinv": "erfcinv",
    "Erfcx": "erfcx", "Log1mexp": "log1mexp", "XlogX": "xlogx",
    "XlogY0": "xlogy0", "I0": "i0", "I1": "i1", "GammaInc": "gammainc",
    "GammaIncC": "gammaincc", "BetaInc": "betainc", "Owens_t": "owens_t",
    "Jv": "jv", "J0": "j0", "J1": "j1", "Iv": "iv", "Ive": "ive",
    "Kve": "kve", "GammaU": "gammau", "GammaL": "gammal",
    "GammaIncInv": "gammaincinv", "GammaIncCInv": "gammainccinv",
    "BetaIncInv": "betaincinv", "Deg2Rad": "deg2rad", "Rad2Deg": "rad2deg",
    "RoundHalfAwayFromZero": "round_half_away_from_zero",
    # PyMC's own scalar ops (pymc.distributions.dist_math), SciPy's i0e and
    # i1e: the Rice distribution's log-density.
    "I0e": "i0e", "I1e": "i1e",
    "Tan": "tan",
    "ArcSin": "arcsin", "ArcCos": "arccos", "ArcTan": "arctan",
    "ArcTan2": "arctan2", "Sinh": "sinh", "Cosh": "cosh",
    "ArcSinh": "arcsinh", "ArcCosh": "arccosh", "ArcTanh": "arctanh",
    "Exp2": "exp2", "Trunc": "trunc", "RoundHalfToEven": "round_half_to_even",
}
# Bitwise in PyTensor, logical in graphjit: the same only on bools.
_BOOL_ONLY = {"AND": "and", "OR": "or", "Invert": "not", "XOR": "neq"}

# Ops whose integer inputs give a float (NumPy's rule, which graphjit keeps).
_FLOAT_FNS = {"exp", "log", "log1p", "expm1", "sqrt", "sigmoid", "softplus",
              "tanh", "sin", "cos", "floor", "ceil", "erf", "erfc", "gammaln",
              "log2", "log10", "psi", "tri_gamma", "polygamma", "gamma",
              "erfinv", "erfcinv", "erfcx", "log1mexp", "xlogx", "xlogy0",
              "i0", "i1", "gammainc", "gammaincc", "betainc", "owens_t",
              "jv", "j0", "j1", "iv", "ive", "kve", "gammau", "gammal",
              "gammaincinv", "gammainccinv", "betaincinv", "deg2rad",
              "rad2deg", "round_half_away_from_zero", "i0e", "i1e",
              "tan", "arcsin",
              "arccos", "arctan", "arctan2", "sinh", "cosh", "arcsinh",
              "arccosh", "arctanh", "exp2", "trunc", "round_half_to_even"}
_COMPARES = {"eq", "neq", "lt", "le", "gt", "ge", "and", "or", "not"}
_INFIX = {"add": "+", "sub": "-", "mul": "*", "true_div": "/",
          "int_div": "//", "mod": "%", "pow": "**", "eq": "==", "neq": "!=",
          "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def op_name(scalar_op, in_dtypes):
    """The graphjit op of a scalar op with these input dtypes, or None."""
    cls = type(scalar_op).__name__
    if cls in _NAMES:
        return _NAMES[cls]
    if cls in _BOOL_ONLY and all(d == "bool" for d in in_dtypes):
        return _BOOL_ONLY[cls]
    return None


def is_cast(scalar_op):
    return type(scalar_op).__name__ in ("Cast", "Identity")


def natural_dtype(name, in_dtypes):
    """The dtype graphjit gives `name` on these inputs (NumPy's rules)."""
    if name in _COMPARES:
        return "bool"
    if name == "switch":
        in_dtypes = in_dtypes[1:]
    if name == "second":
        return in_dtypes[1]
    t = np.result_type(*[np.dtype(d) for d in in_dtypes])
    if t.kind in "biu" and name in ("true_div", "reciprocal"):
        t = np.dtype("float64")
    elif t.kind in "biu" and name in _FLOAT_FNS:
        # NumPy gives float16 up to 2-byte ints; graphjit's f32 stands in.
        t = np.dtype("float32" if t.itemsize <= 2 else "float64")
    if name in ("int_div", "mod", "pow") and t.kind == "b":
        t = np.dtype("int8")
    if name == "sqr" and t.kind == "b":
        t = np.dtype("int8")
    return t.name


# Scalar ops graphjit spells with others: f(x, const(value, dtype)).
_SPECIAL = {
    "IsNan": lambda x, const: "(%s != %s)" % (x, x),
    "IsInf": lambda x, const: "(abs(%s) == %s)" % (x, const(np.inf,
                                                             "float64")),
}


class Unsupported(Exception):
    """A node graphjit has no op for: it runs PyTensor's perform."""


def composite_exprs(fgraph, constant_input, given=None, outputs=None):
    """A Composite's inner graph as graphjit expressions, one per output,
    each with the inputs it uses: [(expr, [input index, ...]), ...].

    `constant_input(value, dtype)` returns the index standing for an inner
    constant (the grammar has no numbers, so they become inputs). graphjit
    refuses a composite input that is never used, so each expression is
    numbered over its own inputs. `given` maps inner variables computed
    apart to the input indices that hold them (after fgraph's inputs);
    `outputs` spells these inner variables instead of fgraph's outputs.
    Raises Unsupported for an inner op graphjit lacks.
    """
    exprs = _expressions(
        fgraph, ["$%d$" % k for k in range(len(fgraph.inputs))],
        constant_input, {v: "$%d$" % k for v, k in (given or {}).items()},
        outputs)
    out = []
    for e in exprs:
        used = sorted({int(m) for m in _SLOT.findall(e)})
        renumber = {k: j for j, k in enumerate(used)}
        out.append((_SLOT.sub(lambda m: "i%d" % renumber[int(m.group(1))], e),
                    used))
    return out


_SLOT = re.compile(r"\$(\d+)\$")


def loop_exprs(fgraph, constant_input):
    """fgraph's outputs as graphjit expressions over all of its inputs
    (i0, i1, ... as fgraph lists them, then the indices constant_input
    gives): a scalar loop's programs, which share their inputs. An output
    that is an input as it is becomes a cast to its own dtype (a program
    computes something)."""
    exprs = _expressions(
        fgraph, ["$%d$" % k for k in range(len(fgraph.inputs))],
        constant_input)
    out = []
    for e, var in zip(exprs, fgraph.outputs):
        e = _SLOT.sub(lambda m: "i%s" % m.group(1), e)
        if re.fullmatch(r"i\d+", e):
            e = "Cast{%s}(%s)" % (var.type.dtype, e)
        out.append(e)
    return out


def _small_integer_power(node):
    """The exponent of an integer pow by a constant from 0 to 8 (betainc's
    gradient squares and cubes its step count), else None. graphjit's
    composite refuses integer powers, whose exponents must be checked for
    negative values first; such a power needs no check."""
    if type(node.op).__name__ != "Pow":
        return None
    base, exp = node.inputs
    if exp.owner is not None or not all(
            np.dtype(v.type.dtype).kind in "iu"
            for v in (base, exp, node.outputs[0])):
        return None
    k = int(np.asarray(exp.data))
    return k if 0 <= k <= 8 else None


def _power_as_product(base, base_dtype, out_dtype, k, constant_input):
    """base ** k as k - 1 products in the output's dtype: what NumPy's
    integer power computes, wrapping alike."""
    if k == 0:
        return "$%d$" % constant_input(np.asarray(1, out_dtype), out_dtype)
    if base_dtype != out_dtype:
        base = "Cast{%s}(%s)" % (out_dtype, base)
    return base if k == 1 else "(" + " * ".join([base] * k) + ")"


# graphjit's composite refuses a spelling longer than this; a longer one is
# replaced by a placeholder of this length plus one (never emitted: every
# caller falls back on a spelling that long). Spellings repeat shared
# subexpressions, so without the cap a deep gradient's would grow
# exponentially (a scan's gradient took 7 GB to spell).
SPELLING_CAP = 65536
_TOO_LONG = "?" * (SPELLING_CAP + 1)


def _capped(e):
    return e if len(e) <= SPELLING_CAP else _TOO_LONG


def _expressions(fgraph, inputs, constant_input, given=None, outputs=None):
    """fgraph's outputs (or `outputs`) as expressions of `inputs` (one text
    per input) and of the inner values `given` spells. A Composite inside
    is spelled out in place: graphjit's composite has no nesting, and its
    parser merges the repeated subexpressions again."""
    text = dict(zip(fgraph.inputs, inputs))
    text.update(given or {})

    def operand(v):
        if v in text:
            return text[v]
        if v.owner is None:  # an inner constant
            if v.type.dtype not in DTYPES:
                raise Unsupported("a %s constant" % v.type.dtype)
            return "$%d$" % constant_input(np.asarray(v.data, v.type.dtype),
                                          v.type.dtype)
        raise Unsupported("unordered inner graph")

    for node in fgraph.toposort():
        if all(o in text for o in node.outputs):  # computed apart
            continue
        args = [operand(i) for i in node.inputs]
        if type(node.op).__name__ == "Composite":
            for out, e in zip(node.outputs, _expressions(
                    node.op.fgraph, args, constant_input)):
                text[out] = _capped(e)
            continue
        if len(node.outputs) != 1:
            raise Unsupported("the scalar op %s, of %d outputs"
                              % (type(node.op).__name__, len(node.outputs)))
        in_dtypes = [i.type.dtype for i in node.inputs]
        out_dtype = node.outputs[0].type.dtype
        if out_dtype not in DTYPES:
            raise Unsupported("a %s result" % out_dtype)
        special = _SPECIAL.get(type(node.op).__name__)
        if special is not None:
            e = special(args[0], lambda v, d: "$%d$" % constant_input(
                np.asarray(v, d), d))
        elif is_cast(node.op):
            e = args[0] if in_dtypes[0] == out_dtype else \
                "Cast{%s}(%s)" % (out_dtype, args[0])
        elif (k := _small_integer_power(node)) is not None:
            e = _power_as_product(args[0], in_dtypes[0], out_dtype, k,
                                  constant_input)
        else:
            name = op_name(node.op, in_dtypes)
            if name is None:
                raise Unsupported("no graphjit kernel for the scalar op %s"
                                  % type(node.op).__name__)
            if name in _INFIX:
                e = "(" + (" %s " % _INFIX[name]).join(args) + ")"
            elif name == "neg":
                e = "(-%s)" % args[0]
            else:
                e = "%s(%s)" % (name, ", ".join(args))
            # PyTensor's upcasts differ from NumPy's now and then: say them.
            if natural_dtype(name, in_dtypes) != out_dtype:
                e = "Cast{%s}(%s)" % (out_dtype, e)
        text[node.outputs[0]] = _capped(e)
    return [operand(o) for o in (fgraph.outputs if outputs is None
                                 else outputs)]
