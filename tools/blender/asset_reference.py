"""Blender reference for rigfit's asset support: MPFB itself fits, masks and weights MakeHuman assets.

Run inside Blender 3.4 with MPFB 2.0.4 (branch last_blender3_version) installed as the add-on "mpfb"
(make_asset_goldens.sh prepares that; see tools/blender/README.md):

    BLENDER_USER_SCRIPTS=$M/bl_user blender -b --factory-startup --python-exit-code 1 \\
        --python tools/blender/asset_reference.py -- --body base|default|max [--rig game_engine] \\
        [--asset NAME ...] [--stride 8] --golden golden.json

Everything below is done by MPFB's own services; this script only calls them and reads the result:

1. The body. `base`: ObjectService.load_base_mesh(scale_factor=0.1) (no targets, not grounded).
   `default`: HumanService.create_human() with its defaults (MPFB's new human, feet on the ground).
   `max`: HumanService.create_human(macro_detail_dict=MAX_MACROS) (same defaults otherwise).
2. The rig: HumanService.add_builtin_rig(body, RIG, import_weights=True).
3. The body proxy through HumanService._check_add_proxy (add_mhclo_asset with type Proxymeshes,
   the "Hide base mesh" mask, the proxy corrective), then every other asset through
   HumanService.add_mhclo_asset with the object type MPFB's asset library passes (Eyes, Hair,
   Clothes, ...), so MPFB fits them (ClothesService.fit_clothes_to_human), makes the delete groups
   and masks (update_delete_group, carried to the proxy for Clothes), loads sub-rigs, interpolates
   weights and loads custom .mhw weights (ClothesService.set_up_rigging).
4. Reads back: asset vertex positions (mesh `co`, the Basis), vertex groups, the body's Delete.*
   groups and the faces their MASK modifiers hide (evaluated through the depsgraph with a face
   attribute carrying the original face index), the proxy's carried-over masks, the ponytail
   sub-rig's bones.

It also re-derives, in Python double, what mpfb-assets.md says MPFB does (fit formula, interpolated
weights, conservative delete groups, proxy masks) and records the largest difference under
`checks`, so a behaviour that differs from the description shows up when the goldens are made.
The golden format is described in tools/blender/README.md ("asset goldens").
"""

import argparse
import json
import math
import os
import sys
import time

import addon_utils
import bpy

BODY_VERTICES = 13380  # hm08: vertices below this index are the body (MPFB's grounding test)

# Assets, in the order they are added: (name, path below MPFB's data folder, object type). The
# object types are the ones MPFB's asset library panels pass to add_mhclo_asset.
PROXY = ("female_generic", "proxymeshes/female_generic/female_generic.proxy", "Proxymeshes")
ASSETS = [
    ("high-poly", "eyes/high-poly/high-poly.mhclo", "Eyes"),
    ("low-poly", "eyes/low-poly/low-poly.mhclo", "Eyes"),
    ("eyebrow001", "eyebrows/eyebrow001/eyebrow001.mhclo", "Eyebrows"),
    ("eyelashes01", "eyelashes/eyelashes01/eyelashes01.mhclo", "Eyelashes"),
    ("teeth_base", "teeth/teeth_base/teeth_base.mhclo", "Teeth"),
    ("tongue01", "tongue/tongue01/tongue01.mhclo", "Tongue"),
    ("ponytail01", "hair/ponytail01/ponytail01.mhclo", "Hair"),
    ("short02", "hair/short02/short02.mhclo", "Hair"),
    ("female_casualsuit01", "clothes/female_casualsuit01/female_casualsuit01.mhclo", "Clothes"),
    ("male_casualsuit01", "clothes/male_casualsuit01/male_casualsuit01.mhclo", "Clothes"),
    ("shoes01", "clothes/shoes01/shoes01.mhclo", "Clothes"),
]

# The extreme body: MPFB's default macro dict with these values changed.
MAX_CHANGES = {"gender": 1.0, "age": 1.0, "muscle": 1.0, "weight": 1.0, "height": 1.0, "proportions": 1.0}

SMALL = 1000  # assets with fewer vertices list every vertex
SAMPLES = 400  # larger assets: about this many sampled vertices, every 8th vertex at the most


def stride_for(n, min_stride):
    """1 below SMALL vertices, else max(min_stride, ceil(n / SAMPLES))."""
    return 1 if n < SMALL else max(min_stride, -(-n // SAMPLES))


def log(*a):
    print("[asset_reference]", *a, flush=True)


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="asset_reference.py")
    p.add_argument("--body", required=True, choices=["base", "default", "max"])
    p.add_argument("--rig", default="game_engine", help="MPFB built-in rig name")
    p.add_argument("--asset", action="append", default=[],
                   help="only these assets (names as in ASSETS, or female_generic); default all")
    p.add_argument("--stride", type=int, default=8, help="smallest sample stride for assets of >= 1000 vertices")
    p.add_argument("--golden", required=True)
    return p.parse_args(argv)


# ---------------------------------------------------------------- formatting

def g9(x):
    """A float with 9 significant digits (enough to give back any float32 exactly)."""
    x = float(x)
    if x == 0.0:
        return "0"
    s = "%.9g" % x
    return s


def ranges(indices):
    """Sorted unique indices as inclusive [first, last] pairs."""
    out = []
    for i in sorted(set(indices)):
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def dump(value, indent=0):
    """JSON with floats at 9 significant digits; lists of scalars stay on one line."""
    pad = " " * indent
    if isinstance(value, float):
        return g9(value)
    if isinstance(value, (bool, int, str)) or value is None:
        return json.dumps(value)
    if isinstance(value, dict):
        if all(not isinstance(v, (dict, list)) for v in value.values()) and len(value) <= 12:
            return "{" + ", ".join(json.dumps(k) + ": " + dump(v) for k, v in value.items()) + "}"
        items = [pad + " " + json.dumps(k) + ": " + dump(v, indent + 1) for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, (list, tuple)):
        flat = all(not isinstance(v, (dict, list, tuple)) for v in value)
        if flat:
            return "[" + ", ".join(dump(v) for v in value) + "]"
        # rows: [index, {...}] or [index, x, y, z] on one line each
        rowlike = all(isinstance(v, (list, tuple)) and all(not isinstance(e, (list, tuple)) for e in v)
                      for v in value)
        if rowlike:
            return "[\n" + ",\n".join(pad + " " + compact(v) for v in value) + "\n" + pad + "]"
        return "[\n" + ",\n".join(pad + " " + dump(v, indent + 1) for v in value) + "\n" + pad + "]"
    raise TypeError(type(value))


def compact(value):
    if isinstance(value, float):
        return g9(value)
    if isinstance(value, dict):
        return "{" + ", ".join(json.dumps(k) + ": " + compact(v) for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(compact(v) for v in value) + "]"
    return json.dumps(value)


# ---------------------------------------------------------------- MPFB

def enable_mpfb():
    # The ponytail sub-rig sets rigify_type on its bones: without Rigify MPFB fails with
    # "'PoseBone' object has no attribute 'rigify_type'".
    addon_utils.enable("rigify", default_set=True)
    addon_utils.enable("mpfb", default_set=True)
    import mpfb  # noqa: F401  (fails loudly if the add-on did not load)
    from mpfb.services.locationservice import LocationService
    return LocationService


def make_body(case):
    from mpfb.services.humanservice import HumanService
    from mpfb.services.objectservice import ObjectService
    from mpfb.services.targetservice import TargetService

    info = {"case": case}
    if case == "base":
        body = ObjectService.load_base_mesh(context=bpy.context, scale_factor=0.1, load_vertex_groups=True)
        info["mpfb_call"] = "ObjectService.load_base_mesh(scale_factor=0.1, load_vertex_groups=True)"
        info["macros"] = None
        info["rigfit_macro"] = None
        info["grounded"] = False
    else:
        macros = TargetService.get_default_macro_info_dict()
        if case == "default":
            body = HumanService.create_human()
            info["mpfb_call"] = "HumanService.create_human()"
            info["rigfit_macro"] = "default"
        else:
            macros.update(MAX_CHANGES)
            body = HumanService.create_human(macro_detail_dict=macros)
            info["mpfb_call"] = ("HumanService.create_human(macro_detail_dict=MPFB's default dict with "
                                 + ", ".join("%s=%g" % kv for kv in MAX_CHANGES.items()) + ")")
            info["rigfit_macro"] = ",".join("%s=%g" % kv for kv in MAX_CHANGES.items())
        flat = {k: v for k, v in macros.items() if k != "race"}
        flat.update(macros["race"])
        info["macros"] = flat
        info["grounded"] = True
        # The targets MPFB computes for these macros, and the shape keys it left on the body.
        info["targets"] = [[t, float(w)] for t, w in
                           TargetService.calculate_target_stack_from_macro_info_dict(macros)]
        info["shape_keys"] = [[TargetService.decode_shapekey_name(k.name), float(k.value)]
                              for k in body.data.shape_keys.key_blocks[1:]]
    return body, info


def body_mix(body):
    """The body's current shape-key mix (what fit_clothes_to_human reads), as float tuples."""
    n = len(body.data.vertices)
    flat = [0.0] * (3 * n)
    had_keys = body.data.shape_keys is not None
    key = body.shape_key_add(name="asset_reference_mix", from_mix=True)
    key.data.foreach_get("co", flat)
    body.shape_key_remove(key)
    if not had_keys and body.data.shape_keys is not None:  # the only key was the one just added
        for k in list(body.data.shape_keys.key_blocks):
            body.shape_key_remove(k)
    return [(flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]) for i in range(n)]


def add_assets(body, data_dir, wanted):
    from mpfb.services.humanservice import HumanService
    objects = {}
    timing = {}
    if not wanted or PROXY[0] in wanted:
        t = time.time()
        before = set(bpy.data.objects)
        human_info = {"proxy": PROXY[1].split("/", 1)[1]}  # the fragment "female_generic/female_generic.proxy"
        HumanService._check_add_proxy(human_info, body)
        new = [o for o in bpy.data.objects if o not in before and o.type == "MESH"]
        assert len(new) == 1, new
        objects[PROXY[0]] = new[0]
        timing[PROXY[0]] = time.time() - t
    for name, rel, otype in ASSETS:
        if wanted and name not in wanted:
            continue
        t = time.time()
        obj = HumanService.add_mhclo_asset(os.path.join(data_dir, rel), body, asset_type=otype)
        objects[name] = obj
        timing[name] = time.time() - t
        log("added", name, len(obj.data.vertices), "vertices in %.2f s" % timing[name])
    return objects, timing


def load_mhclo(path):
    from mpfb.entities.clothes.mhclo import Mhclo
    m = Mhclo()
    m.load(path)
    return m


# ---------------------------------------------------------------- reading back

def vertex_groups_of(obj):
    """Per vertex: {group name: weight} of every membership (weight 0 included)."""
    names = {g.index: g.name for g in obj.vertex_groups}
    return [{names[e.group]: e.weight for e in v.groups} for v in obj.data.vertices]


def positions_of(obj):
    n = len(obj.data.vertices)
    flat = [0.0] * (3 * n)
    obj.data.vertices.foreach_get("co", flat)
    return [(flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]) for i in range(n)]


def aggregate(pos):
    s = [math.fsum(p[a] for p in pos) for a in range(3)]
    return {"sum": s, "min": [min(p[a] for p in pos) for a in range(3)],
            "max": [max(p[a] for p in pos) for a in range(3)]}


def group_stats(groups):
    out = {}
    for vg in groups:
        for g, w in vg.items():
            st = out.setdefault(g, [0, 0.0, 0])
            st[0] += 1
            st[1] += w
            if w == 0.0:
                st[2] += 1
    return {g: {"count": c, "sum": s, "zero": z} for g, (c, s, z) in sorted(out.items())}


def hidden_faces(obj, enabled_masks, attr="asset_reference_face"):
    """Faces of obj removed by the MASK modifiers named in enabled_masks (all other modifiers off)."""
    mesh = obj.data
    if attr not in mesh.attributes:
        a = mesh.attributes.new(attr, "INT", "FACE")
        a.data.foreach_set("value", list(range(len(mesh.polygons))))
    saved = [(m, m.show_viewport) for m in obj.modifiers]
    for m in obj.modifiers:
        m.show_viewport = m.type == "MASK" and m.name in enabled_masks
    dg = bpy.context.evaluated_depsgraph_get()
    dg.update()
    ev = obj.evaluated_get(dg)
    em = ev.to_mesh()
    kept = [0] * len(em.polygons)
    em.attributes[attr].data.foreach_get("value", kept)
    ev.to_mesh_clear()
    for m, s in saved:
        m.show_viewport = s
    kept = set(kept)
    return [f for f in range(len(mesh.polygons)) if f not in kept]


def group_members(obj, name):
    gi = obj.vertex_groups[name].index
    return [v.index for v in obj.data.vertices if any(e.group == gi and e.weight > 0.0 for e in v.groups)]


# ---------------------------------------------------------------- checks (mpfb-assets.md re-derived)

def check_fit(mhclo, mix, pos, scale_factor=0.1):
    """Largest |difference| between MPFB's fitted positions and the §2 formula in double."""
    n = len(mix)
    if mhclo.x_scale:
        sx = abs(mix[mhclo.x_scale[0]][0] - mix[mhclo.x_scale[1]][0]) / mhclo.x_scale[2]
        sy = abs(mix[mhclo.y_scale[0]][2] - mix[mhclo.y_scale[1]][2]) / mhclo.y_scale[2]
        sz = abs(mix[mhclo.z_scale[0]][1] - mix[mhclo.z_scale[1]][1]) / mhclo.z_scale[2]
    else:
        sx = sy = sz = scale_factor
    worst, exact_copies, exact_equal = 0.0, 0, 0
    for i, p in enumerate(pos):
        b = mhclo.verts[i]
        v, w, o = b["verts"], b["weights"], b["offsets"]
        if v[0] >= n or v[1] > n or v[2] >= n:
            continue
        q = [sum(w[k] * mix[v[k]][a] for k in range(3)) for a in range(3)]
        q[0] += o[0] * sx
        q[1] += o[1] * sz
        q[2] += o[2] * sy
        worst = max(worst, max(abs(q[a] - p[a]) for a in range(3)))
        if tuple(w) == (1, 0, 0) and tuple(o) == (0, 0, 0):
            exact_copies += 1
            exact_equal += tuple(p) == tuple(mix[v[0]])
    return {"max_abs_diff_from_double_formula": worst, "size_factors": [sx, sy, sz],
            "exact_copy_vertices": exact_copies, "exact_copies_equal_to_body": exact_equal}


def check_interpolated(mhclo, body, rig, groups, replaced):
    """§4.1 re-derived in double, compared on groups that no custom weights replaced."""
    relevant = {b.name for b in rig.data.bones}
    relevant |= {g.name for g in body.vertex_groups if g.name.startswith(("DEF-", "mhmask-"))}
    names = {g.index: g.name for g in body.vertex_groups}
    bw = [{names[e.group]: e.weight for e in v.groups if names[e.group] in relevant} for v in body.data.vertices]
    worst, mismatched = 0.0, 0
    for i, vg in enumerate(groups):
        b = mhclo.verts[i]
        acc = {}
        for k in range(3):
            for g, gw in bw[b["verts"][k]].items():
                acc[g] = acc.get(g, 0.0) + gw * b["weights"][k]
        tot = sum(b["weights"])
        # Blender stores a vertex-group weight clamped to [0, 1]: negative binding weights can
        # interpolate to more than 1.
        exp = {g: min(1.0, s / tot) for g, s in acc.items() if s / tot > 0.001 and g not in replaced}
        got = {g: w for g, w in vg.items() if g not in replaced}
        if set(exp) != set(got):
            mismatched += 1
            continue
        for g in exp:
            worst = max(worst, abs(exp[g] - got[g]))
    return {"interpolated_max_abs_diff": worst, "interpolated_vertices_with_other_groups": mismatched,
            "groups_replaced_by_custom_weights": sorted(replaced)}


def conservative(delverts, body):
    """§3's conservative delete list, re-derived from the body's faces."""
    n = len(body.data.vertices)
    listed = {v for v in delverts if v < n}
    drop = set()
    for f in body.data.polygons:
        vs = list(f.vertices)
        if any(v in listed for v in vs) and not all(v in listed for v in vs):
            drop.update(v for v in vs if v in listed)
    return sorted(listed - drop)


def mhw_replaced_groups(mhclo, rig, subrig, obj):
    """Groups of the asset that a custom .mhw file replaced (the files MPFB looked for that exist)."""
    out = set()
    arms = [rig] + ([subrig] if subrig else [])
    for suffix in (None, "force"):
        fn = mhclo.get_weights_filename(suffix)
        if os.path.isfile(fn):
            with open(fn) as fh:
                names = json.load(fh)["weights"].keys()
            for g in names:
                if suffix == "force" or g.startswith("mhmask-"):
                    out.add(g)
                    continue
                for a in arms:
                    pb = a.pose.bones.get(g) or a.pose.bones.get(g[4:] if g.startswith("DEF-") else "DEF-" + g)
                    if pb and pb.bone.use_deform:
                        out.add(pb.name)
                        break
    return out


# ---------------------------------------------------------------- main

def main():
    args = parse_args()
    t0 = time.time()
    LocationService = enable_mpfb()
    data_dir = LocationService.get_mpfb_data()
    from mpfb.services.humanservice import HumanService

    body, body_info = make_body(args.body)
    rig = HumanService.add_builtin_rig(body, args.rig, import_weights=True)
    if rig is None:
        raise SystemExit("MPFB could not add the rig " + args.rig)
    mix = body_mix(body)
    body_info["vertex_count"] = len(mix)
    body_info["face_count"] = len(body.data.polygons)
    body_info["lowest_body_z"] = min(p[2] for p in mix[:BODY_VERTICES])
    body_info["matrix_world_is_identity"] = body.matrix_world == body.matrix_world.Identity(4)
    body_info["rig_matrix_world_is_identity"] = rig.matrix_world == rig.matrix_world.Identity(4)
    log("body", args.body, "ready in %.2f s" % (time.time() - t0))

    wanted = set(args.asset)
    objects, timing = add_assets(body, data_dir, wanted)

    # The body vertices the assets measure their size factors on (x_scale, y_scale, z_scale),
    # so a test can check the body before the assets.
    refs = set()
    for name, rel, _ in [PROXY] + ASSETS:
        if name in objects:
            m = load_mhclo(os.path.join(data_dir, rel))
            for sc in (m.x_scale, m.y_scale, m.z_scale):
                if sc:
                    refs.update(sc[:2])
    body_info["scale_reference_vertices"] = [[i, mix[i][0], mix[i][1], mix[i][2]] for i in sorted(refs)]

    out = {
        "format": "rigfit-asset-golden/1",
        "blender": bpy.app.version_string,
        "mpfb": "makehumancommunity/mpfb2 0f8817e1836028d5ccdccba3d7cb77edb561f38e (2.0.4, last_blender3_version)",
        "frame": "Blender: metres, Z up; asset positions are the asset mesh's co (its Basis), in the rig's space",
        "rig": args.rig,
        "body": body_info,
        "sampling": "assets with fewer than %d vertices: every vertex (stride 1); larger ones: every "
                    "stride-th vertex index from 0, stride = max(%d, ceil(vertex_count / %d))"
                    % (SMALL, args.stride, SAMPLES),
        "assets": {},
    }

    order = ([PROXY] if PROXY[0] in objects else []) + [a for a in ASSETS if a[0] in objects]
    for name, rel, otype in order:
        obj = objects[name]
        mhclo = load_mhclo(os.path.join(data_dir, rel))
        pos = positions_of(obj)
        groups = vertex_groups_of(obj)
        n = len(pos)
        stride = stride_for(n, args.stride)
        sample = list(range(0, n, stride))
        subrig = obj.parent if obj.parent and obj.parent.type == "ARMATURE" and obj.parent != rig else None
        replaced = mhw_replaced_groups(mhclo, rig, subrig, obj)
        bone_groups = {b.name for b in rig.data.bones}
        if subrig:
            bone_groups |= {b.name for b in subrig.data.bones}
        entry = {
            "file": rel,
            "object_type": otype,
            "vertex_count": n,
            "mhclo_vertex_count": len(mhclo.verts),
            "stride": stride,
            "parent": obj.parent.name if obj.parent else None,
            "matrix_world_is_identity": obj.matrix_world == obj.matrix_world.Identity(4),
            "modifiers": [[m.name, m.type] for m in obj.modifiers],
            "aggregate": aggregate(pos),
            "positions": [[i, pos[i][0], pos[i][1], pos[i][2]] for i in sample],
            "group_stats": group_stats(groups),
            # Delete.* groups (the proxy's carried-over masks) are listed under "masks" instead.
            "weights": [[i, {g: w for g, w in sorted(groups[i].items()) if not g.startswith("Delete.")}]
                        for i in sample],
        }
        checks = check_fit(mhclo, mix, pos)
        checks.update(check_interpolated(mhclo, body, rig, [
            {g: w for g, w in vg.items() if g in bone_groups or g.startswith(("DEF-", "mhmask-"))}
            for vg in groups], replaced))
        if subrig:
            entry["subrig"] = {
                "name": subrig.name,
                "parent": subrig.parent.name if subrig.parent else None,
                "matrix_world_is_identity": subrig.matrix_world == subrig.matrix_world.Identity(4),
                "bones": [{"name": b.name, "parent": b.parent.name if b.parent else None,
                           "head": list(b.head_local), "tail": list(b.tail_local)} for b in subrig.data.bones],
            }
        dname = "Delete." + os.path.basename(rel).replace(".mhclo", "").replace(" ", "_")
        if dname in body.vertex_groups:
            members = group_members(body, dname)
            hidden = hidden_faces(body, {dname})
            exp = conservative(mhclo.delverts, body)
            mset = set(members)
            any_vertex = sorted({f.index for f in body.data.polygons if any(v in mset for v in f.vertices)})
            entry["delete_group"] = {
                "name": dname,
                "body_vertex_count": len(members),
                "body_vertices": ranges(members),
                "hidden_body_face_count": len(hidden),
                "hidden_body_faces": ranges(hidden),
            }
            checks["delete_group_equals_conservative_rule"] = members == exp
            checks["mhclo_delete_vertex_count"] = len(set(mhclo.delverts))
            checks["hidden_faces_equal_faces_with_any_group_vertex"] = hidden == any_vertex
            listed = {v for v in mhclo.delverts if v < len(mix)}
            fully = {f.index for f in body.data.polygons if all(v in listed for v in f.vertices)}
            checks["faces_with_all_vertices_in_delete_verts"] = len(fully)
            checks["hidden_faces_all_within_delete_verts"] = set(hidden) <= fully
        entry["checks"] = checks
        if name == PROXY[0]:
            masks = {}
            for g in obj.vertex_groups:
                if g.name.startswith("Delete."):
                    members = group_members(obj, g.name)
                    hidden = hidden_faces(obj, {g.name})
                    src = set(group_members(body, g.name))
                    exp = sorted(i for i in range(n) if any(v in src for v in mhclo.verts[i]["verts"]))
                    masks[g.name] = {"proxy_vertex_count": len(members), "proxy_vertices": ranges(members),
                                     "hidden_proxy_face_count": len(hidden), "hidden_proxy_faces": ranges(hidden),
                                     "equals_any_binding_vertex_rule": members == exp}
            entry["masks"] = masks
            entry["body_masks"] = [[m.name, m.vertex_group, m.invert_vertex_group]
                                   for m in body.modifiers if m.type == "MASK"]
        out["assets"][name] = entry
        log(name, "checks", json.dumps(checks, default=str))

    # Everything worn together: all Delete.* masks on the body (and on the proxy) at once.
    dnames = sorted(g.name for g in body.vertex_groups if g.name.startswith("Delete."))
    if dnames:
        hidden = hidden_faces(body, set(dnames))
        together = {"groups": dnames, "hidden_body_face_count": len(hidden), "hidden_body_faces": ranges(hidden)}
        if PROXY[0] in objects:
            proxy = objects[PROXY[0]]
            pn = sorted(g.name for g in proxy.vertex_groups if g.name.startswith("Delete."))
            ph = hidden_faces(proxy, set(pn))
            together["proxy_groups"] = pn
            together["hidden_proxy_face_count"] = len(ph)
            together["hidden_proxy_faces"] = ranges(ph)
        out["worn_together"] = together

    with open(args.golden, "w") as fh:
        fh.write(dump(out) + "\n")
    log("wrote", args.golden, os.path.getsize(args.golden), "bytes in %.1f s" % (time.time() - t0))


def run(entry):
    """Runs `entry`, printing a traceback and exiting 1 on any error (Blender would go on)."""
    try:
        entry()
    except SystemExit:
        raise
    except Exception:
        import traceback
        traceback.print_exc()
        sys.exit(1)


if __name__ == "__main__":
    run(main)
