"""Checks a profile JSON written with -profile-distributions: every Apply
has its first call apart and a distribution of the other calls whose
figures are ordered; with --scale=ID:F, writes a copy where Apply ID's
distribution is F times slower instead (argv[3])."""
import json
import sys

profile = json.load(open(sys.argv[1]))
calls = int(sys.argv[2])
keys = ["min", "p25", "median", "p75", "p90", "max"]
f = profile["functions"][0]
assert f["first_call_seconds"] > 0, f.get("first_call_seconds")
for a in f["applies"]:
    d = a["distribution"]
    assert d["calls"] == calls - 1, (a["name"], d["calls"])
    assert a["calls"] == calls, (a["name"], a["calls"])
    values = [d[k] for k in keys]
    assert values == sorted(values), (a["name"], values)
    assert a["first_call_seconds"] >= 0
    # The median per call, times the calls, is near the total of the calls
    # after the first (within the histogram's resolution and the spread).
    assert d["min"] * (calls - 1) <= a["seconds"] * 1.01 + 1e-9, a["name"]
if len(sys.argv) > 3:
    apply_id, factor = sys.argv[3].split(":")
    for a in f["applies"]:
        if a["id"] == int(apply_id):
            for k in keys:
                a["distribution"][k] *= float(factor)
            a["seconds"] *= float(factor)
    json.dump(profile, open(sys.argv[4], "w"))
print("ok %d applies" % len(f["applies"]))
