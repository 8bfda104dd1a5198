"""Blender import check for rigfit's glTF export.

Run inside Blender (tested with 3.4.1):

    blender -b --factory-startup --python-exit-code 1 --python tools/blender/gltf_import_check.py -- \
        --glb character.glb --skeleton skeleton.json --obj DATA/3dobjs/base.obj \
        [--heuristic BLENDER|TEMPERANCE|FORTUNE] [--tol 1e-5] [--out report.json]

`character.glb` is `rigfit export ... --out character.glb`, `skeleton.json` is
`rigfit fit ... --out skeleton.json` for the same rig and body (rig frame = Blender's: Z up,
metres), and `--obj` the body OBJ that was fitted (MakeHuman frame; converted to Blender's as
rigfit and MPFB do: 0.1 * (x, -z, y) in float32).

The .glb is imported with Blender's own glTF importer (io_import_scene_gltf2, which converts
glTF's Y up back to Z up) and compared with rigfit:
- bones, matched through each joint node's extras "name" (the MakeHuman name; Blender names the
  bone after the node): head (armature object's world matrix @ Bone.head_local) against rigfit's
  head; the bone frame (matrix_local's axes, so direction and roll) against rigfit's rest matrix;
  tail and direction against rigfit's tail. Blender rebuilds bones from the joint nodes; its
  "Bone Dir" option (bone_heuristic) decides their axes and lengths. With the default, BLENDER,
  each bone points along its node's local +Y, which is rigfit's (Blender's) bone frame, so the
  frames are checked (--frame-tol); the length is Blender's guess (glTF has none), so tails are
  reported, not checked. TEMPERANCE and FORTUNE re-orient bones towards children: frames and
  tails are reported only;
- mesh: each imported vertex against the nearest vertex of the body OBJ (the export drops helpers
  and joint cubes and splits vertices at UV seams, so the match is by position), and the mesh as
  evaluated with its armature modifier in the rest pose against the mesh data (skin bound right:
  the rest pose does not move it);
- morph targets: a shape key per target, named from extras.targetNames, moving as many vertices
  as far as the file's deltas.
Exit status 1 (with --python-exit-code 1) when a head, a mesh vertex or the rest-pose skinning is
off by more than --tol metres.
"""

import argparse
import json
import struct
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses numpy.bool, removed in numpy 1.24

import bpy  # noqa: E402
from mathutils import Vector, kdtree  # noqa: E402


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def glb_chunks(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"glTF":
        raise SystemExit(f"{path}: not a .glb")
    length = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + length]), data[20 + length + 8:]


def morph_deltas(gltf, binary):
    """Per morph target of the first primitive: the largest delta length and how many vertices move."""
    out = []
    for target in gltf["meshes"][0]["primitives"][0].get("targets", []):
        sparse = gltf["accessors"][target["POSITION"]].get("sparse")
        if not sparse:
            out.append((0.0, 0))
            continue
        view = gltf["bufferViews"][sparse["values"]["bufferView"]]
        start = view.get("byteOffset", 0) + sparse["values"].get("byteOffset", 0)
        values = struct.unpack_from(f"<{3 * sparse['count']}f", binary, start)
        lengths = [Vector(values[3 * k:3 * k + 3]).length for k in range(sparse["count"])]
        out.append((max(lengths), sum(1 for x in lengths if x > 0)))
    return out


def obj_vertices(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("v "):
                x, y, z = (float(t) for t in line.split()[1:4])
                # rigfit / Blender + MPFB: 0.1 * (x, -z, y) in float32
                out.append(Vector((f32(f32(x) * f32(0.1)), f32(-f32(z) * f32(0.1)), f32(f32(y) * f32(0.1)))))
    return out


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    ap = argparse.ArgumentParser()
    ap.add_argument("--glb", required=True)
    ap.add_argument("--skeleton", required=True)
    ap.add_argument("--obj", required=True)
    ap.add_argument("--heuristic", default="BLENDER", choices=["BLENDER", "TEMPERANCE", "FORTUNE"])
    ap.add_argument("--tol", type=float, default=1e-5)
    ap.add_argument("--frame-tol", type=float, default=1e-4)
    ap.add_argument("--out")
    args = ap.parse_args(argv)

    gltf, binary = glb_chunks(args.glb)
    node_source = {n["name"]: n.get("extras", {}).get("name", n["name"]) for n in gltf["nodes"]}
    with open(args.skeleton, encoding="utf-8") as f:
        rigfit_bones = {b["name"]: b for b in json.load(f)["bones"]}

    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=args.glb, bone_heuristic=args.heuristic)
    arm = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    body = next(o for o in bpy.context.scene.objects if o.type == "MESH")

    # Bones.
    worst = {"head": (0.0, ""), "tail": (0.0, ""), "direction_deg": (0.0, ""), "frame": (0.0, "")}
    matched = 0
    for bone in arm.data.bones:
        src = node_source.get(bone.name)
        ref = rigfit_bones.get(src)
        if ref is None:
            raise SystemExit(f"bone {bone.name!r} (MakeHuman {src!r}) is not in {args.skeleton}")
        matched += 1
        head = arm.matrix_world @ bone.head_local
        tail = arm.matrix_world @ bone.tail_local
        rh, rt = Vector(ref["head"]), Vector(ref["tail"])
        # The bone frame (axes of matrix_local, roll included) against rigfit's rest matrix.
        mine = (arm.matrix_world @ bone.matrix_local).to_3x3().normalized()
        theirs = [[ref["matrix"][r][c] for c in range(3)] for r in range(3)]
        frame = max(abs(mine[r][c] - theirs[r][c]) for r in range(3) for c in range(3))
        for key, value in (("head", (head - rh).length), ("tail", (tail - rt).length),
                           ("direction_deg", (tail - head).angle(rt - rh, 0.0) * 57.29577951308232),
                           ("frame", frame)):
            if value > worst[key][0]:
                worst[key] = (value, src)
    joints = len(gltf["skins"][0]["joints"])
    if matched != joints:  # every joint became a bone (a --deform-only file has fewer than the rig)
        raise SystemExit(f"Blender has {matched} bones, the file {joints} joints")

    # Mesh: every vertex on a body vertex.
    ref = obj_vertices(args.obj)
    tree = kdtree.KDTree(len(ref))
    for i, co in enumerate(ref):
        tree.insert(co, i)
    tree.balance()
    mesh_world = [body.matrix_world @ v.co for v in body.data.vertices]
    mesh_err = max(tree.find(co)[2] for co in mesh_world)
    # The skinned mesh at rest stays where it is.
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = body.evaluated_get(depsgraph)
    em = evaluated.to_mesh()
    rest_err = max((body.matrix_world @ a.co - co).length for a, co in zip(em.vertices, mesh_world))
    has_armature_modifier = any(m.type == "ARMATURE" and m.object == arm for m in body.modifiers)
    evaluated.to_mesh_clear()

    # Morph targets: one shape key each, named from extras.targetNames, moving as many vertices
    # as far as the file says (compared order-free: lengths do not depend on the vertex order).
    names = gltf["meshes"][0].get("extras", {}).get("targetNames", [])
    keys = body.data.shape_keys.key_blocks if body.data.shape_keys else []
    shape_err = 0.0
    shape_keys_ok = len(keys) == (len(names) + 1 if names else 0)
    if names and shape_keys_ok:
        basis = keys[0].data
        for name, (longest, moved), key in zip(names, morph_deltas(gltf, binary), keys[1:]):
            shape_keys_ok = shape_keys_ok and key.name == name
            lengths = [(k.co - b.co).length for k, b in zip(key.data, basis)]
            shape_err = max(shape_err, abs(max(lengths) - longest))
            shape_keys_ok = shape_keys_ok and sum(1 for x in lengths if x > 0) == moved

    report = {
        "blender": bpy.app.version_string,
        "glb": args.glb,
        "bone_heuristic": args.heuristic,
        "bones": matched,
        "max_head_error_m": worst["head"][0], "worst_head_bone": worst["head"][1],
        "max_tail_error_m": worst["tail"][0], "worst_tail_bone": worst["tail"][1],
        "max_direction_error_deg": worst["direction_deg"][0], "worst_direction_bone": worst["direction_deg"][1],
        "max_frame_error": worst["frame"][0], "worst_frame_bone": worst["frame"][1],
        "mesh_vertices": len(mesh_world),
        "max_mesh_error_m": mesh_err,
        "armature_modifier": has_armature_modifier,
        "max_rest_skinning_error_m": rest_err,
        "shape_keys": [k.name for k in keys],
        "max_shape_key_error_m": shape_err,
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    ok = (worst["head"][0] <= args.tol and mesh_err <= args.tol and rest_err <= args.tol and has_armature_modifier
          and shape_keys_ok and shape_err <= args.tol)
    if args.heuristic == "BLENDER":  # only this option keeps the nodes' bone frames
        ok = ok and worst["frame"][0] <= args.frame_tol
    if not ok:
        raise SystemExit(f"gltf_import_check: difference above {args.tol} m / {args.frame_tol} (or no armature modifier, or shape keys that do not match)")


main()
