"""Runs the command-line tour of README.md as written (issue 19: every
command shown must work, and shown output must be what it prints).

Usage: readme_tour.py README BIN_DIR PLUGIN EXAMPLES OPT PTXAS WORK_DIR

Each `$ ...` line of the "From the command line:" block (with its `\\`
continuations; `# ...` comments dropped) runs in WORK_DIR with the paths
replaced by the build's. Lines after a command up to the next one are its
expected output, compared line by line. A command that needs a real GPU is
skipped where the CUDA driver cannot be opened, and ptxas where the CUDA
toolkit is missing; both are counted and printed."""
import os
import re
import shlex
import subprocess
import sys


def tour_commands(readme):
    text = open(readme).read()
    start = text.index("From the command line:")
    block = text[text.index("```sh\n", start) + 6:]
    block = block[:block.index("```")]
    commands, current = [], None
    lines = block.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            cmd = line[2:]
            while cmd.rstrip().endswith("\\"):
                i += 1
                cmd = cmd.rstrip()[:-1] + " " + lines[i].strip()
            cmd = re.sub(r"\s+#.*$", "", cmd).strip()
            current = {"cmd": cmd, "expect": []}
            commands.append(current)
        elif line.strip() and current is not None:
            current["expect"].append(line)
        i += 1
    return commands


def main():
    readme, bin_dir, plugin, examples, opt, ptxas, work = sys.argv[1:8]
    os.makedirs(work, exist_ok=True)
    ran = skipped = 0
    for c in tour_commands(readme):
        cmd = (c["cmd"].replace("build/bin/", bin_dir + "/")
               .replace("build/lib/GraphjitPasses.so", plugin)
               .replace("examples/", examples + "/")
               .replace("opt-19", opt)
               .replace("/usr/local/cuda/bin/ptxas", ptxas))
        if ptxas in cmd and not os.path.exists(ptxas):
            print("skipped (no CUDA toolkit):", c["cmd"])
            skipped += 1
            continue
        r = subprocess.run(cmd, shell=True, cwd=work, capture_output=True,
                           text=True)
        out = r.stdout + r.stderr
        if r.returncode != 0 and "no CUDA device" in out and \
                "-device=cuda " in cmd + " ":
            print("skipped (no GPU):", c["cmd"])
            skipped += 1
            continue
        if r.returncode != 0:
            print("FAILED (exit %d): %s\n%s" % (r.returncode, c["cmd"], out))
            return 1
        got = [l for l in r.stdout.split("\n") if l.strip()]
        if c["expect"] and got[:len(c["expect"])] != c["expect"]:
            print("WRONG OUTPUT: %s\nREADME shows:\n%s\nthe command prints:\n%s"
                  % (c["cmd"], "\n".join(c["expect"]), "\n".join(got)))
            return 1
        ran += 1
    print("readme tour: %d commands ran as shown, %d skipped" % (ran, skipped))
    return 0


if __name__ == "__main__":
    sys.exit(main())
