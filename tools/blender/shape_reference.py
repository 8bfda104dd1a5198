"""Blender reference for rigfit's body shapes: MakeHuman targets mixed as shape keys.

Run inside Blender (tested with 3.4.1):

    blender -b --factory-startup --python-exit-code 1 --python tools/blender/shape_reference.py -- \\
        --data DATA --target macrodetails/african-female-young:0.165 [--target PATH:WEIGHT ...] \\
        [--case NAME] [--macro SPEC] [--every 40] --golden golden.json

1. Imports DATA/3dobjs/base.obj exactly as fit_reference.py does (Blender's OBJ importer, forward
   -Z, up Y, rotation applied, scale 0.1 applied), so the basis is Blender's float32 `co`.
2. Adds a "Basis" shape key and one relative shape key per --target, in the order given. A key's
   vertex is the basis `co` plus float32(0.1)*(dx, -dz, dy) of the target line (the target's
   offsets in Blender's frame), added in double and stored as float32 like any `co`. Targets are
   DATA/targets/PATH.target.gz (or .target); lines starting '#' or '"' and blank lines are skipped;
   indices beyond the mesh are ignored.
3. Sets each key's value (float32 in Blender; Blender clamps it to the slider range [0, 1]) and
   reads the evaluated mesh: Blender's own shape-key mix, basis + sum value*(key - basis) in float32.

The weights are given, not computed here: make_shape_goldens.sh takes them from `rigfit shape`
(which writes the exact (target, weight) list into its OBJ header), so the golden checks the mix.
--golden writes the compact file read by tests/shape_golden_test.cpp (tests/golden/shape/README.md).
"""

import argparse
import ast
import gzip
import json
import os
import struct
import sys
from array import array

import bpy

HERE = os.path.dirname(os.path.abspath(__file__))
BODY_VERTICES = 13380  # hm08: vertices below this index are the body (MPFB's grounding test)


def log(*a):
    print("[shape_reference]", *a, flush=True)


def load_defs(path):
    """The imports, constants and functions of a script whose module level also runs main()."""
    with open(path) as fh:
        tree = ast.parse(fh.read(), path)
    keep = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign)
    tree.body = [n for n in tree.body if isinstance(n, keep)]
    ns = {"__file__": path, "__name__": "fit_reference_defs"}
    exec(compile(tree, path, "exec"), ns)
    return ns


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def f32_repr(v):
    """Shortest decimal that reads back as the float32 v."""
    v = float(v)
    for d in range(1, 10):
        s = "%.*g" % (d, v)
        if f32(float(s)) == v:
            return repr(float(s))
    return repr(v)


def parse_target(text):
    path, sep, weight = text.rpartition(":")
    if not sep or not path:
        raise SystemExit("--target: expected PATH:WEIGHT, got %r" % text)
    return path, float(weight)


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="shape_reference.py")
    p.add_argument("--data", required=True, help="MPFB data folder")
    p.add_argument("--target", action="append", default=[], type=parse_target, metavar="PATH:WEIGHT",
                   help="target relative to DATA/targets, no extension, and its shape-key value (repeatable)")
    p.add_argument("--case", default="", help="case name recorded in the golden")
    p.add_argument("--macro", default="", help="rigfit --macro string the weights came from (recorded)")
    p.add_argument("--every", type=int, default=40, help="golden: keep every N-th vertex (default 40)")
    p.add_argument("--golden", required=True, help="output golden JSON")
    p.add_argument("--compare", metavar="OBJ",
                   help="rigfit's shaped body (rigfit shape --out): print the largest |difference| over all vertices")
    return p.parse_args(argv)


def read_target(data, path, nverts):
    base = os.path.join(data, "targets", path)
    if os.path.exists(base + ".target.gz"):
        fh = gzip.open(base + ".target.gz", "rt", encoding="utf-8")
    else:
        fh = open(base + ".target", "r", encoding="utf-8")
    out = []
    with fh:
        for line in fh:
            s = line.strip()
            if not s or s[0] in "#\"":
                continue
            i, dx, dy, dz = s.split()
            i = int(i)
            if 0 <= i < nverts:
                out.append((i, float(dx), float(dy), float(dz)))
    return out


def main():
    args = parse_args()
    fit = load_defs(os.path.join(HERE, "fit_reference.py"))
    fit["clear_scene"]()
    obj_path = os.path.join(args.data, "3dobjs", "base.obj")
    ob, importer = fit["import_obj"](obj_path, "auto")
    fit["apply_scale"](ob, 0.1)
    basis = fit["mesh_coords"](ob)
    n = len(basis)
    import_err, _ = fit["verify_import"](basis, fit["read_obj_vertices"](obj_path), 0.1)
    log("imported", n, "vertices with", importer, "; max |co - 0.1*(x,-z,y)| =", import_err)

    scale = f32(0.1)
    ob.shape_key_add(name="Basis", from_mix=False)
    for path, weight in args.target:
        offsets = read_target(args.data, path, n)
        kb = ob.shape_key_add(name=path[-60:], from_mix=False)
        co = [c for v in basis for c in v]
        for i, dx, dy, dz in offsets:
            co[3 * i] = basis[i][0] + scale * dx
            co[3 * i + 1] = basis[i][1] - scale * dz
            co[3 * i + 2] = basis[i][2] + scale * dy
        kb.data.foreach_set("co", array('f', co))
        kb.value = weight
        log("key", path, "value", kb.value, "vertices", len(offsets))
    ob.data.update()

    depsgraph = bpy.context.evaluated_depsgraph_get()
    ob_eval = ob.evaluated_get(depsgraph)
    me = ob_eval.to_mesh()
    buf = array('f', [0.0]) * (3 * len(me.vertices))
    me.vertices.foreach_get("co", buf)
    ob_eval.to_mesh_clear()
    coords = [(buf[3 * i], buf[3 * i + 1], buf[3 * i + 2]) for i in range(n)]

    if args.compare:
        # rigfit's OBJ is in MakeHuman's frame; its reader maps (x, y, z) to float32(0.1)*(x, -z, y).
        theirs = fit["read_obj_vertices"](args.compare)
        worst, worst_i = 0.0, -1
        for i, ((bx, by, bz), (x, y, z)) in enumerate(zip(coords, theirs)):
            d = max(abs(bx - f32(scale * f32(x))), abs(by + f32(scale * f32(z))), abs(bz - f32(scale * f32(y))))
            if d > worst:
                worst, worst_i = d, i
        log("RESULT\t%s\tall %d vertices\tmax |d| %.3g m\tvertex %d" % (args.case, len(theirs), worst, worst_i))

    zs = [c[2] for c in coords]
    lowest_body = min(zs[:BODY_VERTICES])
    stats = {
        "lowest_body_z": f32_repr(lowest_body),
        "min": [f32_repr(min(c[k] for c in coords)) for k in range(3)],
        "max": [f32_repr(max(c[k] for c in coords)) for k in range(3)],
        "centroid": [repr(sum(c[k] for c in coords) / n) for k in range(3)],
        # The body's height as docs/mpfb-behaviour.md §11.2 measures it: over all vertices.
        "height": repr(max(zs) - min(zs)),
    }
    picks = set(range(0, n, args.every))
    for k in range(3):
        picks.add(min(range(n), key=lambda i: coords[i][k]))
        picks.add(max(range(n), key=lambda i: coords[i][k]))
    rows = ["[%d, %s, %s, %s]" % (i, f32_repr(coords[i][0]), f32_repr(coords[i][1]), f32_repr(coords[i][2]))
            for i in sorted(picks)]
    header = {
        "format": "rigfit-shape-golden/1",
        "blender": bpy.app.version_string,
        "importer": importer,
        "case": args.case,
        "macro": args.macro,
        "targets": [[p, w] for p, w in args.target],
        "vertex_count": n,
        "every": args.every,
    }
    text = json.dumps(header, indent=1)[:-2] + ",\n"
    text += ' "stats": {%s},\n' % ", ".join(
        '"%s": %s' % (k, ("[%s]" % ", ".join(v)) if isinstance(v, list) else v) for k, v in stats.items())
    text += ' "vertices": [\n  ' + ",\n  ".join(rows) + "\n ]\n}\n"
    json.loads(text)  # well-formed
    with open(args.golden, "w") as fh:
        fh.write(text)
    log("wrote", args.golden, len(rows), "vertices; lowest body z", stats["lowest_body_z"],
        "height", stats["height"])


try:
    main()
except SystemExit:
    raise
except Exception:  # noqa: BLE001
    import traceback
    traceback.print_exc()
    sys.exit(1)
