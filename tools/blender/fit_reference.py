"""Blender reference fit for rigfit.

Run inside Blender (tested with 3.4.1):

    blender -b --factory-startup --python tools/blender/fit_reference.py -- \
        --data /path/to/mpfb --rig /path/to/rig.X.json [--mesh OTHER.obj] \
        [--warp lean] [--write-obj warped.obj] [--golden golden.json] \
        --out reference.json

It imports the OBJ with Blender's own importer (forward -Z, up Y, rotation and a
uniform scale of 0.1 applied to the mesh data), creates the vertex groups of
mesh_metadata/basemesh_vertex_groups.json, evaluates the rig file's head/tail
strategies on Blender's float32 vertex coordinates, builds an armature with
Blender's edit-bone API (roll, head, tail, roll strategies via
EditBone.align_roll, then parents/use_connect), leaves edit mode and writes the
resulting bones as JSON (head_local, tail_local, matrix_local and the edit-bone
roll).  The output is the reference that tools/blender/compare.py checks
rigfit's skeleton against.

--warp NAME deforms every vertex (after import and scaling, before the vertex
groups and strategies are evaluated) with a fixed analytic warp in Blender's
frame (metres, Z up); see WARPS.  --write-obj writes the mesh as Blender has
it (after the warp) as an OBJ in the MakeHuman frame, so that rigfit can fit
the same body with --mesh.  --golden writes the compact golden file used by
rigfit's tests (tests/golden/blender/).
"""

import argparse
import json
import math
import os
import struct
import sys
import time
from array import array

import bpy
from mathutils import Vector

EXPECTED_VERTS = 19158
ZERO_LENGTH = 1e-6


def _warp_lean(x, y, z):
    """The 'lean' test warp, in Blender's frame (metres, Z up), in Python double."""
    return (x * (1.0 + 0.15 * z) + 0.01 * math.sin(7.0 * z),
            y + 0.05 * math.sin(3.0 * z) - 0.03 * x * x,
            1.1 * z + 0.02 * x * x)


# name -> (function, formula as documented in tests/golden/blender/README.md)
WARPS = {
    "lean": (_warp_lean,
             "x' = x*(1 + 0.15*z) + 0.01*sin(7*z); y' = y + 0.05*sin(3*z) - 0.03*x*x; z' = 1.1*z + 0.02*x*x"),
}


def f32(x):
    """Round a Python float to the nearest float32 (as Blender stores it)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def log(*a):
    print("[fit_reference]", *a, flush=True)


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="fit_reference.py")
    p.add_argument("--data", required=True, help="MPFB data folder (3dobjs/, mesh_metadata/, rigs/)")
    p.add_argument("--rig", required=True, help="rig.X.json")
    p.add_argument("--mesh", help="OBJ to fit to (default: DATA/3dobjs/base.obj); must have hm08 vertex order")
    p.add_argument("--out", required=True, help="output JSON")
    p.add_argument("--scale", type=float, default=0.1,
                   help="mesh scale factor (default 0.1: decimetres -> metres)")
    p.add_argument("--warp", choices=sorted(WARPS),
                   help="deform all vertices with this analytic warp (Blender frame, metres) after import")
    p.add_argument("--write-obj", metavar="OBJ",
                   help="write the mesh as fitted (after --warp) as an OBJ in the MakeHuman frame "
                        "(decimetres, Y up; every other line of the input OBJ unchanged) for rigfit --mesh")
    p.add_argument("--golden", metavar="JSON",
                   help="also write the compact golden file (tests/golden/blender/<rig>.<body>.json)")
    p.add_argument("--golden-rig", metavar="NAME",
                   help="rig name in the golden file (default: from the rig path, e.g. game_engine, rigify.human)")
    p.add_argument("--golden-body", metavar="NAME",
                   help="body name in the golden file (default: the warp name, else 'base' for the data's "
                        "base.obj, else the mesh file's stem)")
    p.add_argument("--golden-digits", type=int, default=0, metavar="N",
                   help="significant digits for golden numbers (0 = full Python repr; 9 is exact for float32)")
    p.add_argument("--importer", choices=("auto", "python", "cpp"), default="auto",
                   help="OBJ importer: python = bpy.ops.import_scene.obj, cpp = bpy.ops.wm.obj_import "
                        "(auto: the python one if available, else cpp)")
    return p.parse_args(argv)


# ----------------------------------------------------------------------------------------------
# OBJ text (only for verification of Blender's import)

def read_obj_vertices(path):
    verts = []
    with open(path, "r", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith("v "):
                parts = line.split()
                verts.append((float(parts[1]), float(parts[2]), float(parts[3])))
    return verts


# ----------------------------------------------------------------------------------------------
# Scene / import

def clear_scene():
    for ob in list(bpy.data.objects):
        bpy.data.objects.remove(ob, do_unlink=True)
    for me in list(bpy.data.meshes):
        bpy.data.meshes.remove(me)
    for arm in list(bpy.data.armatures):
        bpy.data.armatures.remove(arm)


def import_obj(path, importer):
    before = set(bpy.data.objects)
    used = None
    if importer in ("auto", "python") and hasattr(bpy.ops.import_scene, "obj"):
        try:
            res = bpy.ops.import_scene.obj(
                filepath=path, split_mode='OFF', axis_forward='-Z', axis_up='Y',
                use_split_objects=False, use_split_groups=False,
                use_groups_as_vgroups=False, use_image_search=False,
                use_edges=True, use_smooth_groups=True)
            if 'FINISHED' in res:
                used = "bpy.ops.import_scene.obj (python io_scene_obj)"
        except Exception as exc:  # noqa: BLE001
            if importer == "python":
                raise
            log("python OBJ importer failed:", repr(exc))
    if used is None and importer in ("auto", "cpp"):
        kw = dict(filepath=path, forward_axis='NEGATIVE_Z', up_axis='Y',
                  use_split_objects=False, use_split_groups=False, import_vertex_groups=False,
                  validate_meshes=False)
        # Blender 3.4's C++ importer has no split options (it splits on 'o' lines only,
        # and base.obj has none); newer versions have them.  Pass only what exists.
        known = set(bpy.ops.wm.obj_import.get_rna_type().properties.keys())
        res = bpy.ops.wm.obj_import(**{k: v for k, v in kw.items() if k in known})
        if 'FINISHED' in res:
            used = "bpy.ops.wm.obj_import (C++)"
    if used is None:
        raise RuntimeError("OBJ import failed")
    new = [ob for ob in bpy.data.objects if ob not in before and ob.type == 'MESH']
    if len(new) != 1:
        raise RuntimeError("expected exactly one imported mesh object, got %d" % len(new))
    return new[0], used


def apply_scale(ob, scale):
    bpy.ops.object.select_all(action='DESELECT')
    ob.select_set(True)
    bpy.context.view_layer.objects.active = ob
    # The importers express the axis conversion either as object rotation (python importer)
    # or directly in the mesh data; apply whatever rotation there is, then the scale.
    bpy.ops.object.transform_apply(location=False, rotation=True, scale=False)
    ob.scale = (scale, scale, scale)
    bpy.ops.object.transform_apply(location=False, rotation=False, scale=True)
    ob.location = (0.0, 0.0, 0.0)


def mesh_coords(ob):
    me = ob.data
    n = len(me.vertices)
    buf = array('f', [0.0]) * (3 * n)
    me.vertices.foreach_get("co", buf)
    return [(buf[3 * i], buf[3 * i + 1], buf[3 * i + 2]) for i in range(n)]


def verify_import(coords, obj_verts, scale):
    """Return (max error of blender = scale*(x,-z,y) over all vertices, worst index)."""
    worst, worst_i = 0.0, -1
    for i, ((bx, by, bz), (x, y, z)) in enumerate(zip(coords, obj_verts)):
        e = max(abs(bx - scale * x), abs(by + scale * z), abs(bz - scale * y))
        if e > worst:
            worst, worst_i = e, i
    return worst, worst_i


def set_mesh_coords(ob, coords):
    me = ob.data
    buf = array('f', [c for v in coords for c in v])  # double -> nearest float32, as Blender stores co
    me.vertices.foreach_set("co", buf)
    me.update()


def apply_warp(ob, coords, name, groups_json):
    """Warp every vertex of ob (coords = its current float32 co) with WARPS[name], store the
    result in co, read it back and check that every vertex (body, helpers, joint cubes) holds
    exactly float32(warp(old co)).  Returns (new coords, check dict)."""
    fn = WARPS[name][0]
    expected = [fn(*c) for c in coords]
    set_mesh_coords(ob, expected)
    new = mesh_coords(ob)
    if len(new) != len(coords):
        raise RuntimeError("warp: vertex count changed %d -> %d" % (len(coords), len(new)))
    bad = [i for i, (a, e) in enumerate(zip(new, expected)) if a != tuple(f32(c) for c in e)]
    worst_dev = max(max(abs(a[k] - e[k]) for k in range(3)) for a, e in zip(new, expected))
    unmoved = [i for i, (a, o) in enumerate(zip(new, coords)) if a == o]
    # per-group summary: every member of every group (joint cubes, helpers, body) was warped
    bad_set = set(bad)
    groups_checked = {"joint": 0, "helper": 0, "other": 0}
    for gname, ranges in groups_json.items():
        members = [i for s, e in ranges for i in range(int(s), int(e) + 1)]
        if any(i in bad_set or i >= len(new) for i in members):
            raise RuntimeError("warp: group %s has vertices that were not warped" % gname)
        kind = "joint" if "joint" in gname else ("helper" if gname.lower().startswith("helper") else "other")
        groups_checked[kind] += 1
    check = {
        "vertices": len(new),
        "vertices_exact": len(new) - len(bad),
        "max_abs_minus_double": worst_dev,
        "vertices_unmoved": len(unmoved),
        "groups_checked": groups_checked,
    }
    if bad:
        raise RuntimeError("warp: %d vertices do not hold float32(warp(co)), first %d" % (len(bad), bad[0]))
    log("warp %s applied: %d/%d vertices hold float32(warp(co)) exactly (max |co - double| %.3g), "
        "%d unchanged by the warp; groups checked %s"
        % (name, check["vertices_exact"], len(new), worst_dev, len(unmoved), groups_checked))
    return new, check


def _f32_for_scaled(target, s32):
    """A float32 X (as a Python float) such that float32(X * s32) is as close as possible to the
    float32 target (equal where the float32 grid allows it): rigfit's OBJ reader computes
    float(x) * float(scale) in float."""
    x0 = f32(target / s32)
    best, best_err = x0, abs(f32(x0 * s32) - target)
    if best_err == 0.0:
        return best, 0.0
    bits = struct.unpack("<i", struct.pack("<f", x0))[0]
    for d in (-3, -2, -1, 1, 2, 3):
        b = bits + d
        x = struct.unpack("<f", struct.pack("<i", b))[0]
        if (x >= 0) != (x0 >= 0) and x0 != 0.0:
            continue
        err = abs(f32(x * s32) - target)
        if err < best_err:
            best, best_err = x, err
    return best, best_err


def _num(v):
    r = repr(float('%.9g' % v))
    return r[:-2] if r.endswith(".0") else r


def write_obj(src_path, out_path, coords, scale):
    """Copy src_path, replacing the coordinates of the v lines with coords (Blender frame, metres)
    mapped back to the MakeHuman frame: (x, y, z)_obj = (bx, bz, -by) / scale."""
    s32 = f32(scale)
    worst = 0.0
    out = []
    k = 0
    with open(src_path, "r", encoding="utf-8", errors="surrogateescape") as fh:
        for line in fh:
            if line.startswith("v "):
                bx, by, bz = coords[k]
                k += 1
                x, ex = _f32_for_scaled(bx, s32)
                y, ey = _f32_for_scaled(bz, s32)
                mz, ez = _f32_for_scaled(by, s32)  # blender y = -z_obj * scale
                worst = max(worst, ex, ey, ez)
                out.append("v %s %s %s\n" % (_num(x), _num(y), _num(-mz)))
            else:
                out.append(line)
    if k != len(coords):
        raise RuntimeError("write_obj: %d v lines, %d vertices" % (k, len(coords)))
    os.makedirs(os.path.dirname(os.path.abspath(out_path)) or ".", exist_ok=True)
    with open(out_path, "w", encoding="utf-8", errors="surrogateescape") as fh:
        fh.writelines(out)
    log("wrote %s (max |float32(x*%r) - blender co| = %.3g m)" % (out_path, s32, worst))
    return worst


# ----------------------------------------------------------------------------------------------
# Golden file

def rig_label(rig_path):
    base = os.path.basename(rig_path)
    name = base[4:] if base.startswith("rig.") else base
    name = name[:-5] if name.endswith(".json") else name
    if os.path.basename(os.path.dirname(os.path.abspath(rig_path))) == "rigify":
        name = "rigify." + name
    return name


def golden_number(v, digits):
    v = float(v)
    if digits:
        v = float('%.*g' % (digits, v))
    return repr(v)


def write_golden(path, rig_name, body, version, out_bones, digits):
    lines = []
    for b in out_bones:
        m = [x for row in b["matrix_local"][:3] for x in row]
        num = lambda v: golden_number(v, digits)  # noqa: E731
        lines.append("[%s, [%s], [%s], %s, [%s]]" % (
            json.dumps(b["name"]), ", ".join(map(num, b["head"])), ", ".join(map(num, b["tail"])),
            num(b["roll"]), ", ".join(map(num, m))))
    text = ('{"rig": %s, "body": %s, "blender": %s, "bones": [\n%s\n]}\n'
            % (json.dumps(rig_name), json.dumps(body), json.dumps(version), ",\n".join(lines)))
    json.loads(text)  # well-formed
    os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    log("wrote golden %s (%s/%s, %d bones, %d bytes)" % (path, rig_name, body, len(out_bones), len(text)))


# ----------------------------------------------------------------------------------------------
# Vertex groups and strategies

def create_vertex_groups(ob, groups_json):
    for name, ranges in groups_json.items():
        idx = []
        for start, end in ranges:
            idx.extend(range(int(start), int(end) + 1))
        vg = ob.vertex_groups.new(name=name)
        vg.add(idx, 1.0, 'REPLACE')


def cube_centres(ob, coords):
    """Mean of the member vertices of every vertex group whose name contains 'joint',
    with membership read back from Blender's mesh data."""
    joint = {vg.index: vg.name for vg in ob.vertex_groups if "joint" in vg.name}
    sums = {i: [0.0, 0.0, 0.0, 0] for i in joint}
    for v in ob.data.vertices:
        for g in v.groups:
            s = sums.get(g.group)
            if s is not None:
                c = coords[v.index]
                s[0] += c[0]
                s[1] += c[1]
                s[2] += c[2]
                s[3] += 1
    out = {}
    for gi, (sx, sy, sz, n) in sums.items():
        if n:
            out[joint[gi]] = (sx / n, sy / n, sz / n)
    return out


def vertex_at(coords, i):
    n = len(coords)
    i = int(i)
    if i >= n or i < -n:
        return None
    return coords[i]  # negative indices wrap like Python


def strategy_location(end, coords, cubes):
    s = end.get("strategy")
    if s == "CUBE":
        return cubes.get(end.get("cube_name"))
    if s == "VERTEX":
        return vertex_at(coords, end["vertex_index"])
    if s == "MEAN":
        idx = end.get("vertex_indices") or []
        if not idx:
            return None
        pts = [vertex_at(coords, i) for i in idx]
        if any(p is None for p in pts):
            return None
        n = len(pts)
        return (sum(p[0] for p in pts) / n, sum(p[1] for p in pts) / n, sum(p[2] for p in pts) / n)
    if s == "XYZ":
        idx = end.get("vertex_indices") or []
        if len(idx) < 3:
            return None
        a, b, c = (vertex_at(coords, i) for i in idx[:3])
        if a is None or b is None or c is None:
            return None
        return (a[0], b[1], c[2])
    return None


def end_position(end, coords, cubes, relative_scale, stats, key):
    loc = strategy_location(end, coords, cubes)
    if loc is None:
        stats.setdefault("default_used", []).append(key)
        dp = end.get("default_position")
        if dp is None:
            raise RuntimeError("%s: no strategy location and no default_position" % key)
        return tuple(float(x) for x in dp)
    off = end.get("offset")
    if off:
        loc = (loc[0] + off[0] * relative_scale,
               loc[1] + off[1] * relative_scale,
               loc[2] + off[2] * relative_scale)
    return loc


# ----------------------------------------------------------------------------------------------
# Roll strategies

def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _normalized(a):
    ln = math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])
    if ln == 0.0:
        return (0.0, 0.0, 0.0), 0.0
    return (a[0] / ln, a[1] / ln, a[2] / ln), ln


def apply_roll_strategy(eb, entry):
    strat = entry.get("roll_strategy")
    if not strat:
        return None
    h, t = eb.head, eb.tail
    n, ln = _normalized((t[0] - h[0], t[1] - h[1], t[2] - h[2]))
    if strat == "ALIGN_Z_WORLD_Z":
        x, _ = _normalized(_cross(n, (0.0, 0.0, 1.0)))
        z = _cross(x, n)
        eb.align_roll(Vector(z))
    elif strat == "ALIGN_X_WORLD_X":
        z, _ = _normalized(_cross((1.0, 0.0, 0.0), n))
        eb.align_roll(Vector(z))
    elif strat == "ALIGN_Z_REFERENCE_Z":
        ref = entry.get("roll_reference_z")
        if ref is None:
            ref = tuple(eb.z_axis)
        if isinstance(ref, (list, tuple)) and len(ref) == 3:
            r, rl = _normalized(tuple(float(c) for c in ref))
            if rl > 1e-6:
                eb.align_roll(Vector(r))
    else:
        return "unknown:" + str(strat)
    return strat


# ----------------------------------------------------------------------------------------------

def main():
    args = parse_args()
    t0 = time.time()
    data = os.path.abspath(args.data)
    mesh_path = os.path.abspath(args.mesh or os.path.join(data, "3dobjs", "base.obj"))
    rig_path = os.path.abspath(args.rig)
    mesh_scale = f32(args.scale)  # MPFB keeps the scale factor as a float32 property

    clear_scene()

    # 1. import
    ob, importer = import_obj(mesh_path, args.importer)
    log("imported %s with %s" % (mesh_path, importer))
    apply_scale(ob, args.scale)
    coords = mesh_coords(ob)
    obj_verts = read_obj_vertices(mesh_path)
    nv = len(coords)
    if nv != len(obj_verts):
        raise RuntimeError("vertex count %d != %d v lines in OBJ" % (nv, len(obj_verts)))
    if nv != EXPECTED_VERTS:
        log("WARNING: %d vertices, hm08 has %d" % (nv, EXPECTED_VERTS))
    map_err, map_worst = verify_import(coords, obj_verts, args.scale)
    log("vertices %d, max |blender - %g*(x,-z,y)| = %.3g (vertex %d)" % (nv, args.scale, map_err, map_worst))
    for i in (0, 1, nv // 2, 13606, nv - 1):
        if 0 <= i < nv:
            log("  v[%d] obj=%s blender=%s" % (i, obj_verts[i], tuple(round(c, 7) for c in coords[i])))
    if map_err > 1e-5 * max(1.0, args.scale * 10):
        raise RuntimeError("vertex order/mapping check failed: error %g at vertex %d" % (map_err, map_worst))

    with open(os.path.join(data, "mesh_metadata", "basemesh_vertex_groups.json")) as fh:
        groups_json = json.load(fh)

    # 1b. optional warp of all vertices (Blender frame, metres), before anything is evaluated
    warp_check = None
    if args.warp:
        coords, warp_check = apply_warp(ob, coords, args.warp, groups_json)
    obj_written = None
    if args.write_obj:
        obj_written = {"path": os.path.abspath(args.write_obj),
                       "max_error": write_obj(mesh_path, args.write_obj, coords, args.scale)}

    # 2. vertex groups and strategies
    create_vertex_groups(ob, groups_json)
    cubes = cube_centres(ob, coords)
    log("%d vertex groups, %d joint cubes" % (len(ob.vertex_groups), len(cubes)))

    with open(rig_path) as fh:
        rig = json.load(fh)
    header = rig if "bones" in rig else {}
    bones = rig["bones"] if "bones" in rig else rig
    sf = header.get("scale_factor")
    relative_scale = (mesh_scale / sf) if sf else 1.0
    log("rig %s: %d bones, scale_factor=%r, relative_scale=%r" % (rig_path, len(bones), sf, relative_scale))

    stats = {}
    positions = {}
    for name, entry in bones.items():
        positions[name] = (end_position(entry["head"], coords, cubes, relative_scale, stats, name + ".head"),
                           end_position(entry["tail"], coords, cubes, relative_scale, stats, name + ".tail"))

    # 3. armature
    arm_data = bpy.data.armatures.new("reference")
    arm = bpy.data.objects.new("reference", arm_data)
    bpy.context.scene.collection.objects.link(arm)
    arm.location = (0.0, 0.0, 0.0)
    bpy.ops.object.select_all(action='DESELECT')
    arm.select_set(True)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode='EDIT')
    ebs = arm_data.edit_bones
    for eb in list(ebs):
        ebs.remove(eb)

    for name, entry in bones.items():
        eb = ebs.new(name)
        if eb.name != name:
            raise RuntimeError("bone name %r became %r" % (name, eb.name))
        eb.roll = float(entry.get("roll", 0.0))
        head, tail = positions[name]
        eb.head = head
        eb.tail = tail

    strategies = {}
    for name, entry in bones.items():
        s = apply_roll_strategy(ebs[name], entry)
        if s:
            strategies[s] = strategies.get(s, 0) + 1

    for name, entry in bones.items():
        eb = ebs[name]
        parent = entry.get("parent") or ""
        pb = ebs.get(parent) if parent else None
        eb.parent = pb
        if pb is not None:
            eb.use_connect = bool(entry.get("use_connect", False))
        eb.use_local_location = bool(entry.get("use_local_location", True))
        eb.use_inherit_rotation = bool(entry.get("use_inherit_rotation", True))
        if "inherit_scale" in entry:
            eb.inherit_scale = entry["inherit_scale"]

    edit = {}
    zero_len = []
    for eb in ebs:
        edit[eb.name] = {"roll": eb.roll, "head": tuple(eb.head), "tail": tuple(eb.tail),
                         "use_connect": eb.use_connect,
                         "matrix": [list(row) for row in eb.matrix]}
        if eb.length <= ZERO_LENGTH:
            zero_len.append(eb.name)

    bpy.ops.object.mode_set(mode='OBJECT')

    # 4. output
    out_bones = []
    for name in bones:
        b = arm_data.bones.get(name)
        if b is None:
            continue
        e = edit[name]
        out_bones.append({
            "name": name,
            "parent": b.parent.name if b.parent else "",
            "head": list(b.head_local),
            "tail": list(b.tail_local),
            "roll": e["roll"],
            "length": b.length,
            "use_connect": b.use_connect,
            "roll_strategy": bones[name].get("roll_strategy") or "",
            "matrix_local": [list(row) for row in b.matrix_local],
            "edit_matrix": e["matrix"],
        })
    dropped = [n for n in bones if arm_data.bones.get(n) is None]

    result = {
        "format": "rigfit-blender-reference/1",
        "blender": bpy.app.version_string,
        "importer": importer,
        "mesh": mesh_path,
        "rig": rig_path,
        "vertex_count": nv,
        "import_max_error": map_err,
        "warp": args.warp or "",
        "warp_formula": WARPS[args.warp][1] if args.warp else "",
        "warp_check": warp_check,
        "obj_written": obj_written,
        "mesh_scale": mesh_scale,
        "relative_scale": relative_scale,
        "roll_strategies": strategies,
        "default_positions_used": stats.get("default_used", []),
        "zero_length_bones": zero_len,
        "dropped_bones": dropped,
        "bones": out_bones,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)) or ".", exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(result, fh, indent=1)
    if args.golden:
        if args.golden_body:
            body = args.golden_body
        elif args.warp:
            body = args.warp
        elif not args.mesh or os.path.samefile(mesh_path, os.path.join(data, "3dobjs", "base.obj")):
            body = "base"
        else:
            body = os.path.splitext(os.path.basename(mesh_path))[0]
        write_golden(args.golden, args.golden_rig or rig_label(rig_path), body,
                     bpy.app.version_string, out_bones, args.golden_digits)
    log("wrote %s: %d bones (file %d), roll strategies %s, defaults used %d, dropped %s, %.2f s"
        % (args.out, len(out_bones), len(bones), strategies, len(stats.get("default_used", [])),
           dropped, time.time() - t0))


try:
    main()
except Exception:  # make blender -b exit non-zero on failure
    import traceback
    traceback.print_exc()
    sys.stdout.flush()
    os._exit(1)
