"""Seeded random generator of well-typed `.graph` functions and their inputs.

`generate(seed)` returns a `Case`: the text of one function `f` with random
inputs (every dtype, ranks 0-3, known, symbolic and size-1 broadcast dims),
1-15 random statements drawn from every op family (elemwise unary, binary,
n-ary, switch, clip, cast, second with broadcasting and number literals;
dimshuffle, transpose, reshape, flatten, shape, alloc, zeros_like, ones_like,
subtensor with negative and reversed steps, concatenate; reductions with axis
lists, negative axes and keepdims; argmax, argmin, max_and_argmax; dot on
ranks 0-2; softmax, log_softmax; named literals; statements in any order,
nested calls, outputs named twice), the input values as arrays, the sizes of
symbolic dims that only ops use (for `-dim=`), and how many calls to make.
One graph in five also declares a shared variable `s0` that the function
reads and updates; one in ten holds an elemwise op whose operands' shapes
clash only at run time (both linkers must then fail alike). Input values
include NaN, infinities, signed zeros and integer extremes in three graphs
in ten. The -O level and -allow-gc setting for the compiled run come from
the seed too.

The generator tracks every value's dtype, its static dims (a known size, a
symbol, or None for unknown) and its concrete shape, so that it only builds
graphs that type-check and run; it follows docs/ops-elemwise.md and
docs/ops-structural.md for the dtype rules. Where its model is off, graphjit's
type checker rejects the graph and the caller drops it. Values avoid domain
noise: integer `pow` only gets a literal exponent 0-3. Shapes stay small
(dims at most 6, except a last dim of up to 40 in one graph in twenty; at
most 400 elements per value).

The same seed always gives the same case. To look at one:

    python3 randgraph.py SEED [DIR]     # prints the graph; writes DIR/*.npy
"""
import os
import random
import re
import sys

import numpy as np

NP = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
      "i32": np.int32, "i64": np.int64, "u8": np.uint8, "bool": np.bool_}
NAME = {np.dtype(t): n for n, t in NP.items()}
DTYPES = list(NP)
FLOATS = ("f32", "f64")
SYMBOLS = ("n", "m", "k")
OP_ONLY_SYMBOL = "p"   # a dim named only inside ops, bound with -dim=p=SIZE
MAX_RANK = 4
MAX_ELEMENTS = 400


def promote(*dtypes):
    return NAME[np.result_type(*(NP[d] for d in dtypes))]


def float_of(dt):
    if dt in FLOATS:
        return dt
    return "f64" if dt in ("i32", "i64") else "f32"


class Val:
    """A value of the graph: its name (None while it is a nested call), its
    dtype, static dims (int, symbol or None) and concrete shape."""

    def __init__(self, dtype, dims, shape, node=None, name=None):
        self.dtype, self.dims, self.shape = dtype, list(dims), tuple(shape)
        self.node, self.name = node, name
        self.uses = 0

    @property
    def rank(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))


class Lit:
    """A number literal operand (or the name of a named literal)."""

    def __init__(self, text, is_float):
        self.text, self.is_float = text, is_float


class Node:
    """One Apply: op name, operands (Val or Lit), attribute strings, outputs."""

    def __init__(self, op, args, attrs=()):
        self.op, self.args, self.attrs = op, list(args), list(attrs)
        self.outs = []


def broadcast_dim(a, b):
    """Static broadcasting of two dims, as docs/ops-elemwise.md says."""
    if a == 1:
        return b
    if b == 1 or a == b:
        return a
    if isinstance(a, int) and not isinstance(b, int):
        return a
    if isinstance(b, int) and not isinstance(a, int):
        return b
    return None


def broadcast(vals):
    """(static dims, concrete shape) of Vals broadcast together, or None."""
    rank = max(v.rank for v in vals)
    dims, shape = [], []
    for i in range(rank):
        d, s = 1, 1
        for v in vals:
            j = i - (rank - v.rank)
            if j < 0:
                continue
            vs = v.shape[j]
            if vs != 1 and s != 1 and vs != s:
                return None
            s = vs if s == 1 else s
            d = broadcast_dim(d, v.dims[j])
        dims.append(d)
        shape.append(s)
    return dims, tuple(shape)


def statically_fine(a, b):
    """True unless broadcasting a with b is a static error (two known sizes
    that differ, neither 1)."""
    for da, db in zip(reversed(a.dims), reversed(b.dims)):
        if isinstance(da, int) and isinstance(db, int) and 1 not in (da, db) and da != db:
            return False
    return True


def literal_dtype(lit, others):
    """The dtype a literal takes among operands of these dtypes."""
    base = promote(*others)
    if lit.is_float and base not in FLOATS:
        return "f64"
    if not lit.is_float and base == "bool":
        return "i64"
    return base


class Generator:
    """Builds one random function. The pool holds every value made so far
    (inputs, the shared variable, results); each gen_* method draws operands
    from it for one op family, adds one node (or none, when nothing fits)
    and puts its results in the pool."""

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.vals = []          # every non-literal Val in the pool
        self.nodes = []
        self.named_lits = []    # (name, Lit)
        self.counter = 0
        self.sizes = {}         # symbol -> concrete size

    # --- naming and the pool -------------------------------------------------

    def fresh(self, prefix="v"):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def pick(self, pred=lambda v: True):
        """A pool value, favouring recent ones; None if none qualifies."""
        cands = [v for v in self.vals if pred(v)]
        if not cands:
            return None
        weights = [1.0 + i for i in range(len(cands))]
        return self.r.choices(cands, weights)[0]

    def add(self, op, args, attrs, outs):
        """Records a node with outputs given as (dtype, dims, shape)."""
        n = Node(op, args, attrs)
        for dt, dims, shape in outs:
            if int(np.prod(shape, dtype=np.int64)) > MAX_ELEMENTS or len(shape) > MAX_RANK:
                return None
        for a in args:
            if isinstance(a, Val):
                a.uses += 1
        for dt, dims, shape in outs:
            v = Val(dt, dims, shape, node=n)
            n.outs.append(v)
            self.vals.append(v)
        self.nodes.append(n)
        return n.outs[0]

    # --- inputs -----------------------------------------------------------------

    def make_inputs(self):
        r = self.r
        base_rank = r.randint(0, 3)
        base = []
        for _ in range(base_rank):
            s = r.choice([0] + [1] * 2 + [2, 3, 4, 5, 6] * 4)
            base.append(s)
        if base and r.random() < 0.05:
            # Now and then a longer last dim, so that rows reach the
            # vectorized bodies of JIT loops, not only their remainders.
            base[-1] = r.randint(7, 40)
        syms = {}
        for i in range(base_rank):
            if r.random() < 0.5:
                sym = SYMBOLS[i]
                syms[i] = sym
                self.sizes[sym] = base[i]
        self.inputs = []
        for j in range(r.randint(1, 4)):
            if r.random() < 0.15:   # an unrelated shape
                rank = r.randint(0, 3)
                shape = [r.randint(1, 6) for _ in range(rank)]
                dims = list(shape)
            else:
                rank = r.randint(0, base_rank)
                dims, shape = [], []
                for i in range(base_rank - rank, base_rank):
                    if r.random() < 0.2 or base[i] == 1:
                        dims.append(1)
                        shape.append(1)
                    elif i in syms and r.random() < 0.75:
                        dims.append(syms[i])
                        shape.append(base[i])
                    else:
                        dims.append(base[i])
                        shape.append(base[i])
            v = Val(r.choice(DTYPES), dims, shape, name="x%d" % j)
            self.inputs.append(v)
            self.vals.append(v)
        self.shared = None
        if r.random() < 0.2:    # a shared variable that the function updates
            rank = r.randint(0, base_rank)
            shape = [1 if r.random() < 0.2 else base[i]
                     for i in range(base_rank - rank, base_rank)]
            dt = r.choice(DTYPES)
            if dt in FLOATS:
                init = r.choice(["zeros", "ones", "-2.5",
                                 "uniform(-2, 2, seed=%d)" % r.randint(0, 99),
                                 "normal(0, 1.5, seed=%d)" % r.randint(0, 99)])
            else:
                init = r.choice(["zeros", "ones", str(r.randint(0, 1))])
            self.shared = Val(dt, shape, shape, name="s0")
            self.shared_init = init
            self.vals.append(self.shared)
        self.special = r.random() < 0.3
        # A few graphs hold one elemwise op whose operands' shapes only
        # clash at run time, to compare the linkers' error messages.
        self.wants_error = r.random() < 0.1
        self.clash = None

    def input_value(self, v):
        rng, dt, shape = self.np_rng, v.dtype, v.shape
        if dt == "bool":
            return np.array(rng.random(shape) < 0.5)
        if dt in FLOATS:
            a = np.array(rng.standard_normal(shape) * 3, dtype=NP[dt])
            if self.special and a.size:
                specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30,
                                     -1e30, 1e-40, 100.0, -100.0], dtype=NP[dt])
                mask = rng.random(shape) < 0.3
                a[mask] = rng.choice(specials, size=int(mask.sum()))
            return a
        info = np.iinfo(NP[dt])
        if self.special:
            lo, hi = int(info.min), int(info.max)
        else:
            lo, hi = max(int(info.min), -10), min(int(info.max), 10)
        return np.array(rng.integers(lo, hi, size=shape, endpoint=True), dtype=NP[dt])

    # --- operands ---------------------------------------------------------------

    def literal(self, dtypes, allow_float=True, nonneg=False):
        """A literal that fits the dtype it will take among `dtypes`."""
        r = self.r
        base = promote(*dtypes)
        if allow_float and (base in FLOATS or r.random() < 0.2):
            lit = Lit(r.choice(["0.5", "2.0", "-1.5", "3.0", "1e-3", "0.0",
                                "-0.25", "10.0", "2."]), True)
        else:
            signed = base not in ("u8", "bool") and not nonneg
            lo = -5 if signed else 0
            lit = Lit(str(r.randint(lo, 7)), False)
        if r.random() < 0.15:   # as a named literal
            name = self.fresh("c")
            self.named_lits.append((name, lit))
            lit = Lit(name, lit.is_float)
        return lit

    def partners(self, x, count):
        """`count` pool values that broadcast with x and each other."""
        out = []
        for _ in range(count):
            group = [x] + out
            y = self.pick(lambda v: broadcast(group + [v]) is not None)
            out.append(y if y is not None else x)
        return out

    def elemwise(self, op, args, dtype):
        vals = [a for a in args if isinstance(a, Val)]
        dims, shape = broadcast(vals)
        return self.add(op, args, [], [(dtype, dims, shape)])

    # --- op families --------------------------------------------------------------

    def gen_unary(self):
        x = self.pick()
        ops = ["abs", "exp", "log", "log1p", "expm1", "sqrt", "sqr", "sigmoid",
               "softplus", "tanh", "sin", "cos", "floor", "ceil", "reciprocal",
               "erf", "not"]
        if x.dtype != "bool":
            ops += ["neg", "sign"]
        op = self.r.choice(ops)
        if op in ("neg", "abs", "sign"):
            dt = x.dtype
        elif op == "sqr":
            dt = "i8" if x.dtype == "bool" else x.dtype
        elif op == "not":
            dt = "bool"
        elif op == "reciprocal":
            dt = x.dtype if x.dtype in FLOATS else "f64"
        else:
            dt = float_of(x.dtype)
        return self.elemwise(op, [x], dt)

    def gen_binary(self):
        r = self.r
        x = self.pick()
        op = r.choice(["add", "sub", "mul", "true_div", "int_div", "mod", "pow",
                       "maximum", "minimum", "eq", "neq", "lt", "le", "gt",
                       "ge", "and", "or"])
        if r.random() < 0.25:
            y = self.literal([x.dtype])
        else:
            y = self.partners(x, 1)[0]
        args = [x, y]
        if op == "pow":
            if isinstance(y, Val) and promote(x.dtype, y.dtype) not in FLOATS:
                y = args[1] = self.literal([x.dtype], allow_float=False, nonneg=True)
            if isinstance(y, Lit) and not y.is_float:
                y = args[1] = Lit(str(r.randint(0, 3)), False)
        elif r.random() < 0.3:
            args.reverse()
        dts = [a.dtype for a in args if isinstance(a, Val)]
        dts += [literal_dtype(a, dts) for a in args if isinstance(a, Lit)]
        if op == "sub" and all(d == "bool" for d in dts):
            op = "add"
        p = promote(*dts)
        if op in ("eq", "neq", "lt", "le", "gt", "ge", "and", "or"):
            dt = "bool"
        elif op == "true_div":
            dt = p if p in FLOATS else "f64"
        elif op in ("int_div", "mod", "pow") and p == "bool":
            dt = "i8"
        else:
            dt = p
        return self.elemwise(op, args, dt)

    def gen_clash(self):
        """An elemwise op whose operands' static dims agree but whose shapes
        clash at run time; what follows it never runs."""
        r = self.r
        x = self.pick(lambda v: any(isinstance(d, str) and s >= 3
                                    for d, s in zip(v.dims, v.shape)))
        if x is None:
            return None
        y = self.pick(lambda v: broadcast([x, v]) is None and statically_fine(x, v))
        if y is None:   # x[1:] along a symbolic dim
            ax = [i for i in range(x.rank)
                  if isinstance(x.dims[i], str) and x.shape[i] >= 3][0]
            y = self.add("subtensor", [x], ["axis=%d" % ax, "start=1"], [
                (x.dtype, x.dims[:ax] + [None] + x.dims[ax + 1:],
                 x.shape[:ax] + (x.shape[ax] - 1,) + x.shape[ax + 1:])])
        op = r.choice(["add", "mul", "maximum", "eq", "and", "true_div"])
        dt = {"eq": "bool", "and": "bool"}.get(op, promote(x.dtype, y.dtype))
        if op == "true_div" and dt not in FLOATS:
            dt = "f64"
        v = self.add(op, [x, y], [], [(dt, x.dims, x.shape)])
        if v is not None:
            # Its shape is no shape: no op may use it, but it is an output
            # (so that it runs).
            self.vals.remove(v)
            self.clash = v
        return v

    def gen_nary(self):
        x = self.pick()
        args = [x] + self.partners(x, self.r.randint(2, 3))
        if self.r.random() < 0.3:
            args.insert(self.r.randint(0, len(args)), self.literal([x.dtype]))
        dts = [a.dtype for a in args if isinstance(a, Val)]
        dts += [literal_dtype(a, dts) for a in args if isinstance(a, Lit)]
        return self.elemwise(self.r.choice(["add", "mul"]), args, promote(*dts))

    def gen_ternary(self):
        r = self.r
        x = self.pick()
        op = r.choice(["switch", "clip", "second", "cast"])
        if op == "cast":
            dt = r.choice(DTYPES)
            return self.add("cast", [x], ["dtype=" + dt], [(dt, x.dims, x.shape)])
        if op == "second":
            y = self.partners(x, 1)[0]
            args = [x, y] if r.random() < 0.5 else [y, x]
            return self.elemwise("second", args, args[1].dtype)
        a, b = self.partners(x, 2)
        if op == "switch":
            args = [x, a, b]
            if r.random() < 0.3:
                args[2] = self.literal([x.dtype, a.dtype])
            dts = [a.dtype] + ([b.dtype] if isinstance(args[2], Val) else [])
            if isinstance(args[2], Lit):
                # A literal takes the dtype of all the other operands, the
                # condition's too.
                dts.append(literal_dtype(args[2], [x.dtype, a.dtype]))
            return self.elemwise("switch", args, promote(*dts))
        args = [x, a, b]
        for i in (1, 2):
            if r.random() < 0.5:
                args[i] = self.literal([x.dtype])
        dts = [v.dtype for v in args if isinstance(v, Val)]
        dts += [literal_dtype(v, dts) for v in args if isinstance(v, Lit)]
        return self.elemwise("clip", args, promote(*dts))

    def gen_dimshuffle(self):
        r = self.r
        x = self.pick()
        if r.random() < 0.3:
            return self.add("transpose", [x], [],
                            [(x.dtype, x.dims[::-1], x.shape[::-1])])
        keep = [i for i in range(x.rank) if x.dims[i] != 1 or r.random() < 0.5]
        r.shuffle(keep)
        pattern = list(keep)
        for _ in range(r.choice([0, 0, 1, 2])):
            pattern.insert(r.randint(0, len(pattern)), "x")
        dims = [1 if p == "x" else x.dims[p] for p in pattern]
        shape = [1 if p == "x" else x.shape[p] for p in pattern]
        text = "pattern=[%s]" % ",".join(str(p) for p in pattern)
        return self.add("dimshuffle", [x], [text], [(x.dtype, dims, shape)])

    def sym_for(self, size):
        """A symbol whose concrete size is `size`, or None."""
        names = sorted(s for s, v in self.sizes.items() if v == size)
        return self.r.choice(names) if names else None

    def gen_reshape(self):
        r = self.r
        x = self.pick()
        if r.random() < 0.25:
            n = x.size
            known = all(isinstance(d, int) for d in x.dims)
            return self.add("flatten", [x], [],
                            [(x.dtype, [n if known else None], (n,))])
        total = x.size
        shape = []
        rest = total
        for _ in range(r.randint(0, 3)):
            divs = [d for d in range(1, 7) if rest and rest % d == 0]
            if total == 0:
                divs = [0, 1, 2, 3]
            if not divs:
                break
            d = r.choice(divs)
            shape.append(d)
            rest = rest // d if d else rest
        if total:
            shape.append(rest)
        elif 0 not in shape:
            shape.append(0)
        if rest > 6 and total:
            r.shuffle(shape)
        if total == 1 and r.random() < 0.3:
            shape = []   # to 0-d
        words, dims = [], []
        minus = r.randrange(len(shape)) if shape and total and r.random() < 0.5 else -1
        for i, s in enumerate(shape):
            sym = self.sym_for(s) if r.random() < 0.4 else None
            if i == minus:
                words.append("-1")
                dims.append(None)
            elif sym:
                words.append(sym)
                dims.append(sym)
            else:
                words.append(str(s))
                dims.append(s)
        if r.random() < 0.1 and total and shape and minus != 0:
            # a dim named only here, bound with -dim
            self.sizes.setdefault(OP_ONLY_SYMBOL, shape[0])
            if self.sizes[OP_ONLY_SYMBOL] == shape[0]:
                words[0], dims[0] = OP_ONLY_SYMBOL, OP_ONLY_SYMBOL
        others = x.dims + dims[:minus] + dims[minus + 1:]
        if minus >= 0 and all(isinstance(d, int) for d in others):
            dims[minus] = shape[minus]   # -1 is known statically only from known sizes
        return self.add("reshape", [x], ["shape=[%s]" % ",".join(words)],
                        [(x.dtype, dims, tuple(shape))])

    def gen_shape(self):
        x = self.pick(lambda v: v.rank > 0)
        if x is None:
            return None
        axis = self.r.randrange(-x.rank, x.rank)
        return self.add("shape", [x], ["axis=%d" % axis], [("i64", [], ())])

    def gen_alloc(self):
        r = self.r
        x = self.pick()
        op = r.choice(["alloc", "alloc", "zeros_like", "ones_like"])
        if op != "alloc":
            return self.add(op, [x], [], [(x.dtype, x.dims, x.shape)])
        words, dims, shape = [], [], []
        for _ in range(r.randint(0, MAX_RANK - x.rank)):
            s = r.randint(1, 4)
            sym = self.sym_for(s) if r.random() < 0.3 else None
            words.append(sym or str(s))
            dims.append(sym or s)
            shape.append(s)
        for d, s in zip(x.dims, x.shape):
            if s == 1 and r.random() < 0.5:
                s = r.randint(1, 4)
                sym = self.sym_for(s) if r.random() < 0.3 else None
                words.append(sym or str(s))
                dims.append(sym or s)
            elif d is not None and (s != 1 or r.random() < 0.5):
                words.append(str(d))
                dims.append(d)
            else:
                words.append(str(s))
                dims.append(s)
            shape.append(s)
        return self.add("alloc", [x], ["shape=[%s]" % ",".join(words)],
                        [(x.dtype, dims, shape)])

    def gen_subtensor(self):
        r = self.r
        x = self.pick(lambda v: v.rank > 0)
        if x is None:
            return None
        axis = r.randrange(-x.rank, x.rank)
        ax = axis % x.rank
        start = r.choice([None, None, 0, 1, 2, -1, -2, -7, 7])
        stop = r.choice([None, None, 0, 1, 3, -1, -3, 7, -7])
        step = r.choice([None, None, 1, 2, 3, -1, -1, -2])
        attrs = ["axis=%d" % axis] if r.random() < 0.8 or axis != 0 else []
        for k, v in (("start", start), ("stop", stop), ("step", step)):
            if v is not None:
                attrs.append("%s=%d" % (k, v))
        n = len(range(*slice(start, stop, step).indices(x.shape[ax])))
        d = x.dims[ax]
        if isinstance(d, int):
            sd = n
        elif start is None and stop is None and step is None:
            sd = d
        else:
            sd = None
        dims = x.dims[:ax] + [sd] + x.dims[ax + 1:]
        shape = x.shape[:ax] + (n,) + x.shape[ax + 1:]
        return self.add("subtensor", [x], attrs, [(x.dtype, dims, shape)])

    def gen_concatenate(self):
        r = self.r
        x = self.pick(lambda v: v.rank > 0)
        if x is None:
            return None
        axis = r.randrange(-x.rank, x.rank)
        ax = axis % x.rank

        def fits(v):
            return v.rank == x.rank and all(
                v.shape[i] == x.shape[i] for i in range(x.rank) if i != ax)
        args = [x] + [self.pick(fits) for _ in range(r.randint(0, 2))]
        dims = []
        for i in range(x.rank):
            ds = [a.dims[i] for a in args]
            if i == ax:
                dims.append(sum(ds) if all(isinstance(d, int) for d in ds) else None)
            else:
                known = [d for d in ds if isinstance(d, int)]
                dims.append(known[0] if known else ds[0] if len(set(ds)) == 1 else None)
        shape = list(x.shape)
        shape[ax] = sum(a.shape[ax] for a in args)
        attrs = ["axis=%d" % axis] if r.random() < 0.8 or axis != 0 else []
        return self.add("concatenate", args, attrs,
                        [(promote(*(a.dtype for a in args)), dims, shape)])

    def axes(self, rank, single=False):
        """(attribute text or None, reduced axes) for a reduction."""
        r = self.r
        if rank == 0 or r.random() < 0.25:
            return None, list(range(rank))
        if single:
            a = r.randrange(-rank, rank)
            return ("axis=%d" % a if r.random() < 0.5 else "axis=[%d]" % a), [a % rank]
        if r.random() < 0.3:
            a = r.randrange(-rank, rank)
            return "axis=%d" % a, [a % rank]
        chosen = r.sample(range(rank), r.randint(0, rank))
        words = [str(a - rank if r.random() < 0.4 else a) for a in chosen]
        return "axis=[%s]" % ",".join(words), chosen

    def gen_reduction(self):
        r = self.r
        x = self.pick()
        op = r.choice(["sum", "prod", "max", "min", "mean", "all", "any",
                       "argmax", "argmin", "max_and_argmax"])
        single = op in ("argmax", "argmin", "max_and_argmax")
        attr, red = self.axes(x.rank, single)
        if op == "max_and_argmax" and attr is None:
            op = "argmax"
        # Reductions without identity over nothing are errors: mostly avoid
        # them, and always where the dims say so statically.
        empty = any(x.shape[i] == 0 for i in red)
        if empty and op in ("max", "min", "argmax", "argmin", "max_and_argmax"):
            if r.random() < 0.9 or any(x.dims[i] == 0 for i in red):
                op, single = "sum", False
        keep = op != "max_and_argmax" and r.random() < 0.3
        attrs = [attr] if attr else []
        if keep:
            attrs.append("keepdims=true")
        elif op != "max_and_argmax" and r.random() < 0.1:
            attrs.append("keepdims=false")
        if single and attr is None:
            red = list(range(x.rank))
        dims = [1 if i in red else x.dims[i] for i in range(x.rank) if keep or i not in red]
        shape = [1 if i in red else x.shape[i] for i in range(x.rank) if keep or i not in red]
        if op in ("sum", "prod"):
            dt = x.dtype if x.dtype in FLOATS else "i64"
        elif op == "mean":
            dt = x.dtype if x.dtype in FLOATS else "f64"
        elif op in ("all", "any"):
            dt = "bool"
        elif op in ("argmax", "argmin"):
            dt = "i64"
        else:
            dt = x.dtype
        if op == "max_and_argmax":
            return self.add(op, [x], attrs, [(x.dtype, dims, shape), ("i64", dims, shape)])
        return self.add(op, [x], attrs, [(dt, dims, shape)])

    def gen_dot(self):
        r = self.r
        a = self.pick(lambda v: v.rank <= 2)
        if a is None:
            return None
        if a.rank == 0:
            b = self.pick(lambda v: v.rank <= 2)
        else:
            k = a.shape[-1]
            b = self.pick(lambda v: v.rank == 0 or (0 < v.rank <= 2 and v.shape[0] == k))
            if b is None or (b is a and r.random() < 0.5):
                if a.rank == 2:
                    b = self.add("transpose", [a], [],
                                 [(a.dtype, a.dims[::-1], a.shape[::-1])])
                else:
                    b = a
        args = [a, b]
        if a.rank == 0 or b.rank == 0:
            o = b if a.rank == 0 else a
            dims, shape = o.dims, o.shape
        else:
            dims = a.dims[:-1] + b.dims[1:]
            shape = a.shape[:-1] + b.shape[1:]
        return self.add("dot", args, [], [(promote(a.dtype, b.dtype), dims, shape)])

    def gen_softmax(self):
        r = self.r
        x = self.pick(lambda v: v.rank > 0)
        if x is None:
            return None
        attrs = []
        if r.random() < 0.7:
            attrs.append("axis=%d" % r.randrange(-x.rank, x.rank))
        return self.add(r.choice(["softmax", "log_softmax"]), [x], attrs,
                        [(float_of(x.dtype), x.dims, x.shape)])

    FAMILIES = [("gen_unary", 3), ("gen_binary", 4), ("gen_nary", 1),
                ("gen_ternary", 2), ("gen_dimshuffle", 2), ("gen_reshape", 2),
                ("gen_shape", 1), ("gen_alloc", 1), ("gen_subtensor", 2),
                ("gen_concatenate", 1), ("gen_reduction", 3), ("gen_dot", 1),
                ("gen_softmax", 1)]

    # --- the whole function ----------------------------------------------------

    def generate(self):
        r = self.r
        self.make_inputs()
        target = r.randint(1, 15)
        names, weights = zip(*self.FAMILIES)
        clash_at = r.randrange(target) if self.wants_error else -1
        tries = 0
        while len(self.nodes) < target and tries < 200:
            tries += 1
            if len(self.nodes) == clash_at:
                clash_at = -1
                if self.gen_clash():
                    continue
            getattr(self, r.choices(names, weights)[0])()
        self.last = self.nodes[-1]
        self.update = None
        if self.shared is not None:
            sv = self.shared
            v = self.pick(lambda v: (broadcast([sv, v]) or (0, None))[1] == sv.shape)
            u = self.add("second", [sv, v], [], [(v.dtype, sv.dims, sv.shape)])
            if u is not None and u.dtype != sv.dtype:
                u = self.add("cast", [u], ["dtype=" + sv.dtype], [(sv.dtype, sv.dims, sv.shape)])
            if u is not None:
                self.update = u
                u.uses += 1
        return self.render()

    def render(self):
        r = self.r
        results = [v for n in self.nodes for v in n.outs if v is not self.update]
        outs = list(self.last.outs)
        for v in r.sample(results, min(len(results), r.randint(0, 2))):
            if v not in outs:
                outs.append(v)
        if r.random() < 0.1:
            outs.append(r.choice(self.inputs))
        if r.random() < 0.05:
            outs.append(outs[0])   # the same output twice
        if self.shared is not None and r.random() < 0.2:
            outs.append(self.shared)   # its value before the call
        if self.clash is not None and self.clash not in outs:
            outs.append(self.clash)
        lit_out = None
        if self.named_lits and r.random() < 0.2:
            lit_out = self.named_lits[0][0]
        # Single results used once and not output may be written nested.
        for n in self.nodes:
            for v in n.outs:
                inline = (len(n.outs) == 1 and v.uses == 1 and v not in outs
                          and r.random() < 0.4)
                inline = inline or (v is self.update and r.random() < 0.5)
                if not inline:
                    v.name = self.fresh()
        statements = ["%s = %s" % (name, lit.text) for name, lit in self.named_lits]
        for n in self.nodes:
            if n.outs[0].name is None:
                continue
            lhs = ", ".join(v.name for v in n.outs)
            statements.append("%s = %s" % (lhs, self.call_text(n)))
        if self.update is not None:
            statements.append("update s0 = " + self.arg_text(self.update))
        if r.random() < 0.2:
            r.shuffle(statements)   # statements are declarations, not a sequence
        decl = ", ".join("%s: %s[%s]" % (v.name, v.dtype, ", ".join(map(str, v.dims)))
                         for v in self.inputs)
        out_names = [v.name for v in outs] + ([lit_out] if lit_out else [])
        text = "func f(%s) -> (%s) {\n%s\n}\n" % (
            decl, ", ".join(out_names), "\n".join("  " + s for s in statements))
        if self.update is not None:
            sv = self.shared
            shared = "shared s0: %s[%s] = %s\n" % (sv.dtype, ", ".join(map(str, sv.shape)),
                                                  self.shared_init)
            text = shared + text if r.random() < 0.7 else text + shared
        return text

    def arg_text(self, a):
        if isinstance(a, Lit):
            return a.text
        if a.name is None:
            return self.call_text(a.node)
        return a.name

    def call_text(self, n):
        return "%s(%s)" % (n.op, ", ".join([self.arg_text(a) for a in n.args] + n.attrs))


class Case:
    """One generated function: its text, input arrays by name, the -dim
    bindings it needs (symbols used only inside ops), the number of calls,
    and the -O level and -allow-gc setting for the compiled run."""

    def __init__(self, seed):
        g = Generator(seed)
        self.seed = seed
        self.text = g.generate()
        self.inputs = {v.name: g.input_value(v) for v in g.inputs}
        # Symbols that shape= attributes name but no input binds: -dim.
        bound = {d for v in g.inputs for d in v.dims if isinstance(d, str)}
        named = {w for attr in re.findall(r"shape=\[([^\]]*)\]", self.text)
                 for w in attr.split(",") if w[:1].isalpha()}
        self.dims = {s: g.sizes[s] for s in sorted(named - bound)}
        # Run-time flags for the compiled run; results must not depend on them.
        self.opt_level = g.r.choice([0, 1, 2, 2, 3])
        self.allow_gc = g.r.random() < 0.8
        # Several calls: the updates feed the next call, and nothing a call
        # leaves behind may change the next one's results.
        self.calls = g.r.choice([1, 1, 2, 3])

    def write(self, folder):
        """Writes f.graph and one .npy per input into folder; returns the
        graphjit arguments that run it (graph path, -function, -input, -dim,
        -calls), without the linker and its flags."""
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "f.graph")
        with open(path, "w") as f:
            f.write(self.text)
        args = [path, "-function=f"]
        for name, a in self.inputs.items():
            p = os.path.join(folder, "%s.npy" % name)
            np.save(p, a)
            args.append("-input=%s=%s" % (name, p))
        for name, size in self.dims.items():
            args.append("-dim=%s=%d" % (name, size))
        return args + ["-calls=%d" % self.calls]


def generate(seed):
    return Case(seed)


if __name__ == "__main__":
    case = generate(int(sys.argv[1]))
    sys.stdout.write(case.text)
    if len(sys.argv) > 2:
        print(" ".join(case.write(sys.argv[2])))
    else:
        for name, a in case.inputs.items():
            print("# %s = np.array(%r, dtype=%s)" % (name, a.tolist(), a.dtype))
