"""Writes a copy of a profile JSON written with -profile-distributions as
another run of the same graph would be: every Apply's times (seconds,
distribution and buckets) times FACTOR, and with ID:F the Apply ID's times
F times more. Usage: scale_run.py IN OUT FACTOR [ID:F]"""
import json
import sys

profile = json.load(open(sys.argv[1]))
factor = float(sys.argv[3])
extra = {}
if len(sys.argv) > 4:
    apply_id, times = sys.argv[4].split(":")
    extra[int(apply_id)] = float(times)
for f in profile["functions"]:
    for a in f["applies"]:
        k = factor * extra.get(a["id"], 1.0)
        a["seconds"] *= k
        d = a["distribution"]
        for key in ["min", "p25", "median", "p75", "p90", "max"]:
            d[key] *= k
        d["buckets"] = [[lo * k, hi * k, n] for lo, hi, n in d["buckets"]]
json.dump(profile, open(sys.argv[2], "w"))
