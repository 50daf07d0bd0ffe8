"""A strict reader of the trace-event JSON graphjit writes (Chrome's
format, which Perfetto's UI opens): checks every event's fields and
types, that each thread's Apply slices lie inside its call slices, that
each device's slices (process 2) follow one another as its stream runs
them, and, given the profile JSON of the same run, that every Apply has
one slice per call on its thread, and every GPU Apply one more on its
device. Prints "ok", the slice count and the dropped count (and the
device slices and live-bytes samples, where there are any).

    check_trace.py TRACE.json [PROFILE.json]
"""
import json
import sys

EPS = 0.002  # microseconds: the writer rounds to nanoseconds


def fail(msg):
    sys.exit("check_trace: " + msg)


def main():
    trace = json.load(open(sys.argv[1]))
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        fail("no traceEvents list")
    other = trace.get("otherData", {})
    calls, applies, device = {}, {}, {}
    samples = 0
    for e in trace["traceEvents"]:
        ph = e.get("ph")
        if ph == "C":
            # A counter sample: live bytes, never negative.
            if not (isinstance(e.get("name"), str) and
                    isinstance(e.get("ts"), (int, float)) and e["ts"] >= 0
                    and isinstance(e.get("args", {}).get("bytes"), int)
                    and e["args"]["bytes"] >= 0):
                fail("a bad counter sample: %r" % e)
            samples += 1
            continue
        if ph == "M":
            if e.get("name") not in ("process_name", "thread_name"):
                fail("unknown metadata %r" % e)
            if not isinstance(e.get("args", {}).get("name"), str):
                fail("metadata without a name: %r" % e)
            continue
        if ph != "X":
            fail("unexpected phase %r" % e)
        for key, kind in (("name", str), ("cat", str), ("pid", int),
                          ("tid", int), ("ts", (int, float)),
                          ("dur", (int, float)), ("args", dict)):
            if not isinstance(e.get(key), kind):
                fail("%s missing or mistyped in %r" % (key, e))
        if e["ts"] < 0 or e["dur"] < 0:
            fail("negative time in %r" % e)
        if e["pid"] == 2:
            if e["cat"] not in ("device", "transfer") or \
                    not isinstance(e["args"].get("id"), int):
                fail("a bad device slice: %r" % e)
            device.setdefault(e["tid"], []).append(e)
        elif e["pid"] != 1:
            fail("unknown process in %r" % e)
        elif e["cat"] == "call":
            calls.setdefault(e["tid"], []).append(e)
        elif e["cat"] in ("apply", "transfer"):
            if not isinstance(e["args"].get("id"), int):
                fail("an Apply slice without its id: %r" % e)
            applies.setdefault(e["tid"], []).append(e)
        else:
            fail("unknown category %r" % e)
    n = 0
    for tid, slices in applies.items():
        spans = sorted((c["ts"], c["ts"] + c["dur"]) for c in calls.get(tid, []))
        for s in slices:
            n += 1
            if not any(a - EPS <= s["ts"] and s["ts"] + s["dur"] <= b + EPS
                       for a, b in spans):
                fail("Apply slice outside every call: %r" % s)
    n += sum(len(c) for c in calls.values())
    for tid, slices in device.items():
        # One stream: each slice starts once the one before has ended.
        for a, b in zip(slices, slices[1:]):
            if b["ts"] + EPS < a["ts"] + a["dur"]:
                fail("device slices overlap: %r, %r" % (a, b))
        n += len(slices)
    if n != other.get("slices"):
        fail("%d slices, otherData says %r" % (n, other.get("slices")))
    if len(sys.argv) > 2:
        profile = json.load(open(sys.argv[2]))
        want, want_device = {}, {}
        for f in profile["functions"]:
            for a in f["applies"]:
                want[(f["name"], a["id"])] = a["calls"]
                if a.get("on_device"):
                    want_device[(f["name"], a["id"])] = a["calls"]
            want[(f["name"], "call")] = f["calls"]
        got = {}
        for slices in applies.values():
            for s in slices:
                key = (s["args"]["function"], s["args"]["id"])
                got[key] = got.get(key, 0) + 1
        for slices in calls.values():
            for s in slices:
                key = (s["args"]["function"], "call")
                got[key] = got.get(key, 0) + 1
        if got != want:
            fail("slices per Apply %r, the profile's calls %r" % (got, want))
        got = {}
        for slices in device.values():
            for s in slices:
                key = (s["args"]["function"], s["args"]["id"])
                got[key] = got.get(key, 0) + 1
        if got != want_device:
            fail("device slices per Apply %r, the profile's calls %r"
                 % (got, want_device))
    if samples != other.get("samples", 0):
        fail("%d samples, otherData says %r" % (samples, other.get("samples")))
    on_device = sum(len(s) for s in device.values())
    print("ok %d slices, %d dropped" % (n, other.get("dropped", -1)) +
          (", %d on devices" % on_device if on_device else "") +
          (", %d live-bytes samples" % samples if samples else ""))


if __name__ == "__main__":
    main()
