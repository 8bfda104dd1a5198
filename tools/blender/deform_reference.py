"""Blender reference skinning (Armature modifier) for rigfit.

Run inside Blender (tested with 3.4.1):

    blender -b --factory-startup --python tools/blender/deform_reference.py -- \
        --data /path/to/mpfb --rig /path/to/rig.X.json [--mesh BODY.obj] [--weights weights.X.json] \
        (--pose POSE.json | --rotate BONE=RX,RY,RZ [--rotate ...]) [--dqs] \
        [--out deformed.json] [--compare rigfit_posed.obj [--tol 1e-5]] \
        [--golden golden.json [--golden-body NAME] [--golden-ground] [--golden-every 10]]

Steps, all in one Blender session:

1. The rig is built on the body (DATA/3dobjs/base.obj or --mesh) by running
   tools/blender/fit_reference.py (same import, basemesh vertex groups, strategies, edit bones and
   flags; its --out goes to Blender's temporary folder).  It leaves the body mesh object and the
   armature object "reference", both at the origin with identity transforms, so the mesh's object
   space is the rig frame (metres, Z up).
2. Standard (non-Rigify) rigs: every pose bone's rotation_mode is set to XYZ, as MPFB does when it
   adds such a rig (RigService.normalize_rotation_mode).
3. Weights are loaded as MPFB loads them: for every group of the weights file ("weights" of
   rigs/standard/weights.NAME.json, default: the one next to the rig file) that names a bone of the
   armature, a vertex group of that exact name is created and every [vertex, weight] pair is added
   with vertex_group.add([vertex], weight, 'ADD') (which clamps the stored weight to [0, 1]).
   Groups that name no bone are skipped (and listed).
4. The body is parented to the armature (identity parent inverse) and gets an Armature modifier:
   use_vertex_groups=True, use_bone_envelopes=False, use_deform_preserve_volume=False (True with
   --dqs).
5. The pose: --pose applies an MPFB pose file with pose_reference.py's apply_mpfb_pose (MPFB's
   set_pose_from_dict: select all, transforms_clear, bone_translations to location (scaled for
   "default" skeleton types), bone_rotations to the rotation channels).  --rotate BONE=RX,RY,RZ
   (degrees, XYZ Euler, repeatable; rigfit's --rotate) clears all transforms the same way and sets
   rotation_mode XYZ and rotation_euler = radians(RX, RY, RZ) on each named bone.
6. After a depsgraph update the evaluated mesh (body.evaluated_get(depsgraph).to_mesh()) is read:
   its vertex coordinates in object space, i.e. the rig frame.

--out writes every vertex (float32 values as Python floats), the rest coordinates' displacement
statistics and each vertex's influence count (bone vertex groups with a weight > 0).
--compare reads rigfit's posed OBJ (MakeHuman frame: decimetres, Y up), maps it to the rig frame
with rig = 0.1*(x, -z, y) and reports per-vertex |delta| (Euclidean): maximum, 99.9th percentile
(nearest rank) and the worst vertex with its influence count; exit status 1 if the maximum
exceeds --tol.
--golden writes the compact golden file of tests/golden/deform/ (see the README there): the case's
arguments and Blender's deformed position of every --golden-every'th vertex, one per line.
"""

import argparse
import ast
import json
import math
import os
import struct
import sys
import time
from array import array

import bpy
from mathutils import Matrix

HERE = os.path.dirname(os.path.abspath(__file__))
POSE_REFERENCE = os.path.join(HERE, "pose_reference.py")


def log(*a):
    print("[deform_reference]", *a, flush=True)


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="deform_reference.py")
    p.add_argument("--data", required=True, help="MPFB data folder")
    p.add_argument("--rig", required=True, help="rig.X.json")
    p.add_argument("--mesh", help="body OBJ (default: DATA/3dobjs/base.obj); hm08 vertex order")
    p.add_argument("--weights", help="weights JSON (default: weights.X.json next to rig.X.json)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--pose", help="MPFB pose JSON (poses/<rig>_fk/*.json format)")
    g.add_argument("--rotate", action="append", metavar="BONE=RX,RY,RZ",
                   help="XYZ Euler rotation in degrees of one pose bone (repeatable)")
    p.add_argument("--dqs", action="store_true", help="use_deform_preserve_volume (dual quaternions)")
    p.add_argument("--bendy", metavar="JSON",
                   help='B-Bone settings to add, as a rig\'s "bendy_bone" entries: {"BONE": {"segments": 4, ...}, ...}; '
                        "set on the edit bones as MPFB does (bbone_<key>)")
    p.add_argument("--golden-bones", action="store_true",
                   help="with --bendy: keep only vertices weighted to a --bendy bone in the golden")
    p.add_argument("--keep-rotation-modes", action="store_true",
                   help="do not force XYZ rotation mode on standard rigs")
    p.add_argument("--out", metavar="JSON", help="write all deformed vertices")
    p.add_argument("--compare", metavar="OBJ", help="rigfit's posed OBJ to compare with")
    p.add_argument("--tol", type=float, default=1e-5, help="tolerance for --compare (m, default 1e-5)")
    p.add_argument("--list", type=int, default=5, metavar="N", help="print the N worst vertices with --compare")
    p.add_argument("--golden", metavar="JSON", help="write the compact golden file")
    p.add_argument("--golden-rig", metavar="NAME", help="rig name in the golden (default: from the rig path)")
    p.add_argument("--golden-body", metavar="NAME",
                   help="body in the golden: 'base' (default for the data's base.obj) or the shape macro string")
    p.add_argument("--golden-ground", action="store_true", help="record ground=true (the body was made with --ground)")
    p.add_argument("--golden-every", type=int, default=10, metavar="N", help="keep every N-th vertex (default 10)")
    return p.parse_args(argv)


def load_defs(path, extra_globals=None):
    """The imports, constants and functions of a script whose module level also runs main():
    only Import/ImportFrom/FunctionDef/ClassDef/Assign nodes are executed."""
    with open(path) as fh:
        tree = ast.parse(fh.read(), path)
    keep = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign)
    tree.body = [n for n in tree.body if isinstance(n, keep)]
    ns = {"__file__": path, "__name__": os.path.splitext(os.path.basename(path))[0]}
    ns.update(extra_globals or {})
    exec(compile(tree, path, "exec"), ns)
    return ns


def default_weights_path(rig_path):
    d, base = os.path.split(rig_path)
    name = base[4:] if base.startswith("rig.") else base
    return os.path.join(d, "weights." + name)


def load_weights(body, arm, path):
    """MPFB's way: one vertex group per weights group that names a bone; vg.add(..., 'ADD')."""
    with open(path) as fh:
        wj = json.load(fh)
    groups = wj["weights"] if "weights" in wj else wj
    created, skipped, entries = [], [], 0
    for gname, pairs in groups.items():
        if arm.data.bones.get(gname) is None:
            skipped.append(gname)
            continue
        vg = body.vertex_groups.new(name=gname)
        if vg.name != gname:
            raise RuntimeError("vertex group %r became %r (name taken)" % (gname, vg.name))
        for vi, w in pairs:
            vg.add([int(vi)], float(w), 'ADD')
            entries += 1
        created.append(gname)
    log("weights %s: %d groups created (%d entries), %d skipped %s"
        % (path, len(created), entries, len(skipped), skipped[:10]))
    return created, skipped, entries


def influences(body, bone_groups):
    """Per vertex: (number of bone groups with weight > 0, sum of those weights)."""
    idx = {body.vertex_groups[n].index for n in bone_groups}
    counts, sums = [], []
    for v in body.data.vertices:
        c, s = 0, 0.0
        for g in v.groups:
            if g.group in idx and g.weight > 0.0:
                c += 1
                s += g.weight
        counts.append(c)
        sums.append(s)
    return counts, sums


def parse_rotate(spec):
    name, sep, vals = spec.rpartition("=")
    parts = vals.split(",")
    if not sep or not name or len(parts) != 3:
        raise RuntimeError("--rotate %r: expected BONE=RX,RY,RZ" % spec)
    return name, tuple(float(x) for x in parts)


def apply_rotations(arm, rotations):
    bones = arm.pose.bones
    bpy.ops.pose.select_all(action='SELECT')
    bpy.ops.pose.transforms_clear()
    bpy.ops.pose.select_all(action='DESELECT')
    for name, deg in rotations:
        pb = bones.get(name)
        if pb is None:
            raise RuntimeError("--rotate: no bone %r" % name)
        pb.rotation_mode = 'XYZ'
        pb.rotation_euler = tuple(math.radians(d) for d in deg)


def evaluated_coords(body):
    depsgraph = bpy.context.evaluated_depsgraph_get()
    ob_eval = body.evaluated_get(depsgraph)
    me = ob_eval.to_mesh()
    n = len(me.vertices)
    buf = array('f', [0.0]) * (3 * n)
    me.vertices.foreach_get("co", buf)
    ob_eval.to_mesh_clear()
    return [(buf[3 * i], buf[3 * i + 1], buf[3 * i + 2]) for i in range(n)]


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def f32_repr(v):
    """Shortest decimal that reads back (as double, then rounded to float32) as the float32 v,
    written as Python's repr of that decimal."""
    v = float(v)
    for d in range(1, 10):
        s = "%.*g" % (d, v)
        if f32(float(s)) == v:
            return repr(float(s))
    return repr(v)


def percentile(sorted_vals, q):
    """Nearest rank."""
    if not sorted_vals:
        return 0.0
    k = max(0, min(len(sorted_vals) - 1, int(math.ceil(q * len(sorted_vals))) - 1))
    return sorted_vals[k]


def compare(coords, obj_verts, counts, sums, rest, nlist):
    if len(obj_verts) != len(coords):
        raise RuntimeError("compare: OBJ has %d vertices, Blender %d" % (len(obj_verts), len(coords)))
    d = []
    comp = 0.0
    for i, ((bx, by, bz), (x, y, z)) in enumerate(zip(coords, obj_verts)):
        rx, ry, rz = 0.1 * x, -0.1 * z, 0.1 * y
        dx, dy, dz = rx - bx, ry - by, rz - bz
        comp = max(comp, abs(dx), abs(dy), abs(dz))
        d.append((math.sqrt(dx * dx + dy * dy + dz * dz), i))
    d.sort()
    vals = [x for x, _ in d]
    worst, wi = d[-1]
    moved = [math.dist(c, r) for c, r in zip(coords, rest)]
    res = {
        "max": worst,
        "max_component": comp,
        "p99_9": percentile(vals, 0.999),
        "p99": percentile(vals, 0.99),
        "mean": sum(vals) / len(vals),
        "worst_vertex": wi,
        "worst_influences": counts[wi],
        "worst_weight_sum": sums[wi],
        "worst_moved": moved[wi],
        "worst_list": [{"vertex": i, "delta": x, "influences": counts[i], "weight_sum": sums[i],
                        "moved": moved[i]} for x, i in reversed(d[-nlist:])],
    }
    return res


def main():
    args = parse_args()
    t0 = time.time()
    args.data = os.path.abspath(args.data)
    args.rig = os.path.abspath(args.rig)
    if args.mesh:
        args.mesh = os.path.abspath(args.mesh)
    wpath = os.path.abspath(args.weights or default_weights_path(args.rig))
    is_rigify = os.path.basename(os.path.dirname(args.rig)) == "rigify"

    scratch = os.path.join(bpy.app.tempdir or "/tmp", "deform_reference.fit.json")
    posing = load_defs(POSE_REFERENCE)
    fit = posing["build_rig"](args, scratch)
    arm = bpy.data.objects.get("reference")
    if arm is None or arm.type != 'ARMATURE':
        raise RuntimeError("fit_reference.py left no armature 'reference'")
    meshes = [ob for ob in bpy.data.objects if ob.type == 'MESH']
    if len(meshes) != 1:
        raise RuntimeError("expected one mesh object, got %d" % len(meshes))
    body = meshes[0]
    for ob in (arm, body):
        if ob.matrix_world != Matrix.Identity(4):
            raise RuntimeError("%s does not have an identity transform" % ob.name)

    bendy = json.loads(args.bendy) if args.bendy else {}
    if bendy:
        # MPFB sets each bendy_bone key as bbone_<key> on the edit bone.
        bpy.context.view_layer.objects.active = arm
        bpy.ops.object.mode_set(mode='EDIT')
        for name, entry in bendy.items():
            eb = arm.data.edit_bones[name]
            for k, v in entry.items():
                if k.startswith("custom_handle_"):
                    v = arm.data.edit_bones[v] if v else None
                setattr(eb, "bbone_" + k, v)
        bpy.ops.object.mode_set(mode='OBJECT')

    # weights, parent, modifier
    bone_groups, skipped, entries = load_weights(body, arm, wpath)
    counts, sums = influences(body, bone_groups)
    body.parent = arm
    body.matrix_parent_inverse.identity()
    mod = body.modifiers.new("Armature", 'ARMATURE')
    mod.object = arm
    mod.use_vertex_groups = True
    mod.use_bone_envelopes = False
    mod.use_deform_preserve_volume = bool(args.dqs)
    rest = [tuple(v.co) for v in body.data.vertices]

    # pose
    posing["set_pose_mode"](arm)
    forced = None
    if not is_rigify and not args.keep_rotation_modes:
        for pb in arm.pose.bones:
            pb.rotation_mode = 'XYZ'
        forced = "XYZ"
    rotations = None
    factors = [1.0, 1.0, 1.0]
    if args.pose:
        with open(args.pose) as fh:
            pose = json.load(fh)
        factors = posing["apply_mpfb_pose"](arm, pose, False)
    else:
        rotations = [parse_rotate(s) for s in args.rotate]
        apply_rotations(arm, rotations)
    bpy.ops.object.mode_set(mode='OBJECT')
    bpy.context.view_layer.update()

    coords = evaluated_coords(body)
    nv = len(coords)
    if nv != len(rest):
        raise RuntimeError("evaluated mesh has %d vertices, rest %d" % (nv, len(rest)))
    moved = [math.dist(c, r) for c, r in zip(coords, rest)]
    max_moved = max(moved)
    log("deformed %d vertices (%s, %s): max displacement from rest %.4f m (vertex %d), %d vertices moved > 1 mm, "
        "vertices without influence %d, min weight sum %.6g"
        % (nv, "DQS" if args.dqs else "linear", os.path.basename(args.pose) if args.pose else args.rotate,
           max_moved, moved.index(max_moved), sum(m > 1e-3 for m in moved), counts.count(0), min(sums)))

    rig_name = args.golden_rig or fit["rig_label"](args.rig)
    base_obj = os.path.join(args.data, "3dobjs", "base.obj")
    body_name = args.golden_body or ("base" if not args.mesh or os.path.samefile(args.mesh, base_obj)
                                     else os.path.splitext(os.path.basename(args.mesh))[0])
    pose_rel = None
    if args.pose:
        ap = os.path.abspath(args.pose)
        pose_rel = os.path.relpath(ap, args.data) if ap.startswith(args.data + os.sep) else args.pose

    cmp_res = None
    if args.compare:
        obj_verts = fit["read_obj_vertices"](args.compare)
        cmp_res = compare(coords, obj_verts, counts, sums, rest, args.list)
        log("compare %s: max |d| %.3g m (component %.3g), p99.9 %.3g, p99 %.3g, mean %.3g; worst vertex %d "
            "(%d influences, weight sum %.6g, moved %.4f m)"
            % (args.compare, cmp_res["max"], cmp_res["max_component"], cmp_res["p99_9"], cmp_res["p99"],
               cmp_res["mean"], cmp_res["worst_vertex"], cmp_res["worst_influences"], cmp_res["worst_weight_sum"],
               cmp_res["worst_moved"]))
        for w in cmp_res["worst_list"]:
            log("   vertex %6d |d| %.3g  influences %d  weight sum %.6g  moved %.4f"
                % (w["vertex"], w["delta"], w["influences"], w["weight_sum"], w["moved"]))
        print("RESULT\t%s\t%s\t%s\t%s\t%.3e\t%.3e\t%d\t%d\t%s" % (
            rig_name, body_name, pose_rel or ";".join(args.rotate), "dqs" if args.dqs else "lbs",
            cmp_res["max"], cmp_res["p99_9"], cmp_res["worst_vertex"], cmp_res["worst_influences"],
            "PASS" if cmp_res["max"] <= args.tol else "FAIL"), flush=True)

    if args.out:
        result = {
            "format": "rigfit-blender-deform-reference/1",
            "blender": bpy.app.version_string,
            "rig": args.rig,
            "mesh": args.mesh or base_obj,
            "weights": wpath,
            "weight_groups": len(bone_groups),
            "weight_entries": entries,
            "skipped_groups": skipped,
            "pose": os.path.abspath(args.pose) if args.pose else None,
            "rotate": args.rotate,
            "dqs": bool(args.dqs),
            "rotation_modes_forced": forced,
            "translation_factors": factors,
            "max_displacement": max_moved,
            "compare": cmp_res,
            "influences": counts,
            "coords": [list(c) for c in coords],
        }
        os.makedirs(os.path.dirname(os.path.abspath(args.out)) or ".", exist_ok=True)
        with open(args.out, "w") as fh:
            json.dump(result, fh)
        log("wrote %s" % args.out)

    if args.golden:
        every = max(1, args.golden_every)
        keep = range(0, nv, every)
        if args.golden_bones and bendy:
            groups = {body.vertex_groups[n].index for n in bendy if n in body.vertex_groups}
            hit = [i for i, v in enumerate(body.data.vertices) if any(g.group in groups and g.weight > 0 for g in v.groups)]
            keep = hit[::every]
        lines = ["[%d, %s, %s, %s]" % (i, f32_repr(coords[i][0]), f32_repr(coords[i][1]), f32_repr(coords[i][2]))
                 for i in keep]
        rigfit_args = ["pose", "--rig", rig_name]
        if body_name != "base":
            rigfit_args += ["--macro", body_name] + (["--ground"] if args.golden_ground else [])
        if args.pose:
            # rigfit's --pose takes a path, or a path relative to the data's poses/ folder
            in_poses = pose_rel.startswith("poses" + os.sep) and not os.path.isabs(pose_rel)
            rigfit_args += ["--pose", pose_rel[len("poses" + os.sep):] if in_poses else pose_rel]
        else:
            for s in args.rotate:
                rigfit_args += ["--rotate", s]
        if args.dqs:
            rigfit_args.append("--dqs")
        head = {
            "rig": rig_name,
            "body": body_name,
            "ground": bool(args.golden_ground),
            "pose": pose_rel,
            "rotate": args.rotate,
            "dqs": bool(args.dqs),
            "rigfit_args": rigfit_args,
            "blender": bpy.app.version_string,
            "frame": "rig (metres, Z up) = 0.1*(x, -z, y) of the OBJ frame",
            "vertex_count": nv,
            "every": every,
        }
        if bendy:
            head["bendy"] = bendy
        text = json.dumps(head)[:-1] + ', "vertices": [\n' + ",\n".join(lines) + "\n]}\n"
        check = json.loads(text)
        if len(check["vertices"]) != len(lines):
            raise RuntimeError("golden: bad text")
        os.makedirs(os.path.dirname(os.path.abspath(args.golden)) or ".", exist_ok=True)
        with open(args.golden, "w") as fh:
            fh.write(text)
        log("wrote golden %s (%d vertices, %d bytes)" % (args.golden, len(lines), len(text)))

    log("%s on %s: %.2f s" % (rig_name, body_name, time.time() - t0))
    if cmp_res is not None and not cmp_res["max"] <= args.tol:
        sys.stdout.flush()
        os._exit(1)


try:
    main()
except Exception:  # make blender -b exit non-zero on failure
    import traceback
    traceback.print_exc()
    sys.stdout.flush()
    os._exit(1)
