#!/usr/bin/env python3
"""Write a shaped body: the base OBJ with MakeHuman targets applied.

    python3 tools/blender/shape_obj.py --data DATA \\
        --target macrodetails/african-female-young:0.165 [--target PATH:WEIGHT ...] --out body.obj

A target is DATA/targets/<PATH>.target.gz: gzip text, one line per moved vertex,
"index dx dy dz" in the OBJ frame (decimetres, Y up); lines starting with '#' and blank
lines are skipped.  The shaped vertex is base vertex + sum(weight * offset), computed
in Python double in the OBJ frame (no mirroring, no normalisation of weights: exactly the
weights given).  Every line of the base OBJ other than the "v" lines is copied
unchanged; vertex coordinates are written with repr() (shortest round-trip form).

Standard library only.  --mesh selects another base OBJ (default DATA/3dobjs/base.obj).
"""

import argparse
import gzip
import os
import sys


def parse_target_arg(text):
    path, sep, weight = text.rpartition(":")
    if not sep or not path:
        raise argparse.ArgumentTypeError("expected PATH:WEIGHT, got %r" % text)
    try:
        w = float(weight)
    except ValueError:
        raise argparse.ArgumentTypeError("bad weight in %r" % text) from None
    if path.endswith(".target.gz"):
        path = path[:-len(".target.gz")]
    return path, w


def read_target(path, nverts):
    offsets = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            parts = s.split()
            if len(parts) != 4:
                raise ValueError("%s:%d: expected 'index dx dy dz', got %r" % (path, lineno, s))
            i = int(parts[0])
            if not 0 <= i < nverts:
                raise ValueError("%s:%d: vertex index %d out of range (0..%d)" % (path, lineno, i, nverts - 1))
            if i in offsets:
                raise ValueError("%s:%d: vertex %d listed twice" % (path, lineno, i))
            offsets[i] = (float(parts[1]), float(parts[2]), float(parts[3]))
    return offsets


def fmt(v):
    if v == 0.0:
        v = 0.0  # no "-0.0"
    return repr(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="MPFB data folder (targets/, 3dobjs/)")
    ap.add_argument("--mesh", help="base OBJ (default DATA/3dobjs/base.obj)")
    ap.add_argument("--target", action="append", type=parse_target_arg, default=[], metavar="PATH:WEIGHT",
                    help="target path below DATA/targets without .target.gz, and its weight (repeatable)")
    ap.add_argument("--out", required=True, help="output OBJ")
    args = ap.parse_args()

    base = args.mesh or os.path.join(args.data, "3dobjs", "base.obj")
    with open(base, "r", encoding="utf-8", errors="surrogateescape", newline="") as fh:
        lines = fh.readlines()
    vline = [k for k, line in enumerate(lines) if line.startswith("v ")]
    verts = []
    for k in vline:
        p = lines[k].split()
        verts.append([float(p[1]), float(p[2]), float(p[3])])
    n = len(verts)

    for path, w in args.target:
        full = os.path.join(args.data, "targets", path + ".target.gz")
        if not os.path.isfile(full):
            print("shape_obj.py: no such target: %s" % full, file=sys.stderr)
            return 2
        offs = read_target(full, n)
        for i, (dx, dy, dz) in offs.items():
            v = verts[i]
            v[0] += w * dx
            v[1] += w * dy
            v[2] += w * dz
        print("shape_obj.py: %s x %r: %d vertices" % (path, w, len(offs)), file=sys.stderr)

    for k, v in zip(vline, verts):
        line = lines[k]
        eol = "\r\n" if line.endswith("\r\n") else ("\n" if line.endswith("\n") else "")
        lines[k] = "v %s %s %s%s" % (fmt(v[0]), fmt(v[1]), fmt(v[2]), eol)

    os.makedirs(os.path.dirname(os.path.abspath(args.out)) or ".", exist_ok=True)
    with open(args.out, "w", encoding="utf-8", errors="surrogateescape", newline="") as fh:
        fh.writelines(lines)
    lo = [min(v[c] for v in verts) for c in range(3)]
    hi = [max(v[c] for v in verts) for c in range(3)]
    print("shape_obj.py: wrote %s: %d vertices, %d targets, bbox min %s max %s (dm, OBJ frame)"
          % (args.out, n, len(args.target), ["%.4f" % x for x in lo], ["%.4f" % x for x in hi]),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
