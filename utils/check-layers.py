#!/usr/bin/env python3
"""Proves that graphjit's components keep to their layers.

The components and what each may use are declared once, in CMake
(lib/CMakeLists.txt, cmake/GraphjitComponent.cmake), which writes them to
graphjit-components.json. This script checks the code against them:

  includes  every #include "..." in a component's files names a file of the
            component itself or of one it depends on, directly or not;
  symbols   every symbol a component's library needs from another component
            is defined (strongly) in one it depends on;
  graph     the declared dependencies have no cycle, every header in
            include/graphjit/ belongs to a component and includes only
            other public headers (they alone are installed);
  folders   the tree says the components: each component's folders are
            lib/NAME and folders below it, and every folder under lib/
            that holds code is a component's.

Usage: check-layers.py MANIFEST SOURCE_ROOT [--nm NM]
                       [--only includes|symbols|folders]
Exits 1 with one line per violation ("file:line: ..." for includes).
"""
import argparse
import json
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def load(manifest):
    with open(manifest) as f:
        return json.load(f)


def closure(components):
    """Each component's transitive dependencies, itself included; exits on a
    cycle, naming it."""
    done, result = set(), {}

    def visit(name, path):
        if name in path:
            cycle = path[path.index(name):] + [name]
            sys.exit("graph: dependency cycle " + " -> ".join(cycle))
        if name in done:
            return result[name]
        reach = {name}
        for dep in components[name]["deps"]:
            if dep not in components:
                sys.exit(f"graph: {name} depends on undeclared {dep}")
            reach |= visit(dep, path + [name])
        done.add(name)
        result[name] = reach
        return reach

    for name in components:
        visit(name, [])
    return result


def owners(components, root):
    """Each file (relative to root) of a component: the files of its folders
    and its public headers."""
    owner = {}
    for name, c in components.items():
        for d in c["dirs"]:
            for f in sorted(os.listdir(os.path.join(root, d))):
                if f.endswith((".cpp", ".h", ".inc")):
                    owner[os.path.join(d, f)] = name
    for name, c in components.items():
        for h in c["headers"]:
            owner[h] = name
    return owner


def resolve(inc, src, root):
    """The file a quoted include names, relative to root, as the compiler
    finds it: the including file's folder, then lib/, then include/."""
    for base in (os.path.dirname(src), "lib", "include"):
        path = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(os.path.join(root, path)):
            return path
    return None


def check_includes(components, reach, root):
    owner = owners(components, root)
    errors = []
    for header in sorted(code_files(root, "include/graphjit")):
        if header not in owner:
            errors.append(f"{header}: belongs to no component (declare it "
                          "in a PUBLIC_HEADERS list)")
    for src, comp in sorted(owner.items()):
        with open(os.path.join(root, src), errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = resolve(m.group(1), src, root)
                if target is None or target not in owner:
                    continue  # LLVM's, the system's, or generated
                used = owner[target]
                if (src.startswith("include/graphjit/") and
                        not target.startswith("include/graphjit/")):
                    errors.append(
                        f"{src}:{number}: a public header includes "
                        f"{target}, which is not installed")
                elif used not in reach[comp]:
                    errors.append(
                        f"{src}:{number}: {comp} includes {target} of "
                        f"{used}, which {comp} does not depend on")
    return errors


def code_files(root, top):
    """The source files under top (relative to root), at any depth."""
    found = []
    for folder, _, files in os.walk(os.path.join(root, top)):
        rel = os.path.relpath(folder, root)
        found += [os.path.join(rel, f) for f in files
                  if f.endswith((".cpp", ".h", ".inc"))]
    return found


def check_folders(components, root):
    errors = []
    owner = {}
    for name, c in components.items():
        home = "lib/" + name
        for d in c["dirs"]:
            owner[d] = name
            if d != home and not d.startswith(home + "/"):
                errors.append(f"{d}: a folder of {name}, which lives in "
                              f"{home} (a component's folders are its own)")
    for folder in sorted({os.path.dirname(f) for f in code_files(root, "lib")}):
        if folder not in owner:
            errors.append(f"{folder}: code in a folder of no component "
                          "(declare it in a component's DIRS)")
    return errors


def symbols(nm, library):
    """(strongly defined, undefined) global symbols of a static library."""
    out = subprocess.run([nm, "-g", "-P", library], check=True,
                         capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2 or line.endswith(":"):
            continue
        name, kind = fields[0], fields[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRC":
            defined.add(name)
    return defined, undefined - defined


def check_symbols(components, reach, nm):
    definer, needs = {}, {}
    for name, c in components.items():
        if not c["library"]:
            continue
        defined, undefined = symbols(nm, c["library"])
        for s in defined:
            definer.setdefault(s, name)
        needs[name] = undefined
    errors = []
    for name, undefined in sorted(needs.items()):
        wrong = {}
        for s in undefined:
            other = definer.get(s)
            if other and other not in reach[name]:
                wrong.setdefault(other, []).append(s)
        for other, syms in sorted(wrong.items()):
            demangled = subprocess.run(
                ["c++filt"], input="\n".join(sorted(syms)[:3]),
                capture_output=True, text=True).stdout.split("\n")
            errors.append(
                f"{name}: links {len(syms)} symbol(s) of {other}, which it "
                f"does not depend on, e.g. {'; '.join(d for d in demangled if d)}")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifest")
    ap.add_argument("root")
    ap.add_argument("--nm", default="llvm-nm-19")
    ap.add_argument("--only", choices=["includes", "symbols", "folders"])
    args = ap.parse_args()
    components = load(args.manifest)
    reach = closure(components)
    errors = []
    if args.only in (None, "includes"):
        errors += check_includes(components, reach, args.root)
    if args.only in (None, "symbols"):
        errors += check_symbols(components, reach, args.nm)
    if args.only in (None, "folders"):
        errors += check_folders(components, args.root)
    for e in errors:
        print(e)
    checked = args.only or "includes, symbols and folders"
    if errors:
        print(f"check-layers: {len(errors)} violation(s) of the layering "
              f"({checked})")
        return 1
    print(f"check-layers: {len(components)} components, {checked} keep "
          "to their layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
