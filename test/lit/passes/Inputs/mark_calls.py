"""Marks calls in an LLVM IR file by hand, as docs/instrumentation.md says
a producer marks its Applies: `mark_calls.py IN.ll OUT.ll FUNCTION
CALLEE=NAME|LOC|KIND ...` appends !graphjit.apply to each call of CALLEE
inside FUNCTION, with ids 0, 1, ... in the order given."""
import re
import sys

src, dst, function = sys.argv[1:4]
marks = []
for spec in sys.argv[4:]:
    callee, rest = spec.split("=", 1)
    name, loc, kind = rest.split("|")
    marks.append((callee, name, loc, kind))
text = open(src).read().split("\n")
first_free = max([int(n) for n in re.findall(r"!(\d+)", "\n".join(text))] + [0]) + 1
inside = False
out = []
for line in text:
    if line.startswith("define ") and ("@%s(" % function) in line:
        inside = True
    elif line.startswith("}"):
        inside = False
    if inside and " call " in line:
        for i, (callee, _, _, _) in enumerate(marks):
            if ("@%s(" % callee) in line:
                line += ", !graphjit.apply !%d" % (first_free + i)
    out.append(line)
for i, (_, name, loc, kind) in enumerate(marks):
    out.append('!%d = !{i32 %d, !"%s", !"%s", !"%s"}'
               % (first_free + i, i, name, loc, kind))
open(dst, "w").write("\n".join(out) + "\n")
