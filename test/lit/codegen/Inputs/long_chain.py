"""Prints a graph of a chain of N Applies (python3 long_chain.py N): planned
element-wise Applies, views (subtensor, planned; reshape to a symbolic
dim p that no input binds, which gj_prepare makes: run it with -dim=p=N), planned calls of library code (cumsum), a
prepare-then-compute Apply (gemm in place), a planned argmax and, near the
end, an add of the input y, which fails when y's length differs from x's."""
import sys

n = int(sys.argv[1])
lines = ["func f(x: f64[n], y: f64[m], a: f64[n, n]) -> (t%d, s) {" % (n - 1),
         "  t0 = add(x, 1.0)"]
for i in range(1, n):
    prev = "t%d" % (i - 1)
    if i == n - 50:
        expr = "add(%s, y)" % prev
    else:
        expr = ["add(reshape(subtensor(%s, step=-1), shape=[p]), x)" % prev,
                "mul(%s, 0.5)" % prev,
                "cumsum(%s)" % prev if i % 8 == 2 else
                "gemm(mul(%s, 1.0), a, %s, alpha=0.25, inplace=true)" % (prev, prev),
                "tanh(%s)" % prev][i % 4]
    lines.append("  t%d = %s" % (i, expr))
lines.append("  s = argmax(t%d, axis=0)" % (n - 1))
lines.append("}")
print("\n".join(lines))
