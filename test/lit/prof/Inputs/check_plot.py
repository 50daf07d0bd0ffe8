"""Reads back the page `graphjit-prof plot` drew for a profile: every SVG
chart parses as XML, and each draws what the profile holds (a bar per Op
and per Apply, longest first; a row per Apply with a distribution; a step
per Apply of the call, the tallest marked as the peak). With --render,
each chart is also rendered by librsvg (rsvg-convert) with the page's
style, to a PNG of the chart's size.
Usage: check_plot.py PAGE.html PROFILE.json N_OPS N_APPLY [--render DIR]"""
import json
import os
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

page = open(sys.argv[1]).read()
profile = json.load(open(sys.argv[2]))
n_ops, n_apply = int(sys.argv[3]), int(sys.argv[4])
NS = "{http://www.w3.org/2000/svg}"
assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
charts = [ET.fromstring(s) for s in re.findall(r"<svg .*?</svg>", page, re.S)]
f = profile["functions"][0]
ran = [a for a in f["applies"] if a["calls"] > 0]


def widths(chart):
    return [float(g.find(NS + "rect").get("width")) for g in chart.findall(NS + "g")]


bars = [c for c in charts if c.get("class") == "bars"]
assert len(bars) == 2, [c.get("class") for c in charts]
by_op, by_apply = widths(bars[0]), widths(bars[1])
assert len(by_op) == min(n_ops, len({a["op"] for a in ran})), by_op
assert len(by_apply) == min(n_apply, len(ran)), by_apply
assert by_op == sorted(by_op, reverse=True) and by_apply == sorted(by_apply, reverse=True)
# The longest Apply bar is the Apply with the most time.
top = max(ran, key=lambda a: a["seconds"])
assert top["name"] in bars[1].find(NS + "g").find(NS + "title").text
kinds = ["bars", "bars"]
with_dist = [a for a in ran if "distribution" in a]
if with_dist:
    (dist,) = [c for c in charts if c.get("class") == "distributions"]
    assert len(dist.findall(NS + "g")) == min(n_apply, len(with_dist))
    kinds.append("distributions")
if "memory" in f:
    (mem,) = [c for c in charts if c.get("class") == "memory"]
    steps = mem.findall(NS + "rect")
    assert len(steps) == len(f["applies"]), len(steps)
    heights = [float(r.get("height")) for r in steps]
    tallest = steps[heights.index(max(heights))].find(NS + "title").text
    peak = [t for t in mem.findall(NS + "text") if t.get("class") == "peak"][0].text
    # "peak 1.2 KB at Apply #3" names the tallest step's Apply.
    assert tallest.split(" ")[0] == "#" + peak.rsplit("#", 1)[1], (tallest, peak)
    kinds.append("memory")
if len(sys.argv) > 6 and sys.argv[5] == "--render":
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    svgs = re.findall(r"<svg .*?</svg>", page, re.S)
    for i, (svg, chart) in enumerate(zip(svgs, charts)):
        name = os.path.join(sys.argv[6], "chart%d" % i)
        with open(name + ".svg", "w") as out:
            out.write(svg.replace(">", "><style>%s</style>" % style, 1))
        subprocess.run(["rsvg-convert", "-b", "white", name + ".svg",
                        "-o", name + ".png"], check=True)
        png = open(name + ".png", "rb").read()
        assert png[:8] == b"\x89PNG\r\n\x1a\n", name
        width, height = struct.unpack(">II", png[16:24])
        assert (width, height) == (int(chart.get("width")),
                                   int(chart.get("height"))), (width, height)
    kinds.append("rendered")
print("ok", " ".join(kinds))
