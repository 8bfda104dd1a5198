"""Blender import check for a complete character (body and worn assets) exported by rigfit.

Run inside Blender (tested with 3.4.1):

    blender -b --factory-startup --python-exit-code 1 --python tools/blender/gltf_character_check.py -- \
        --glb character.glb --report character.report.json --skeleton skeleton.json [--tol 1e-5] [--out check.json]

`character.glb` and `character.report.json` are `rigfit export ... --asset ... --out character.glb
--report character.report.json`, `skeleton.json` is `rigfit fit ... --out skeleton.json` for the
same rig and body. The .glb is imported with Blender's own glTF importer, then:
- the scene holds one armature, whose bones are the skeleton's (matched through each joint node's
  extras "name", the MakeHuman name) plus the joint chains of baked bendy bones (NAME.bbone0..N),
  as many as the file's joints;
- the scene holds one mesh object per mesh of the report, named after it, in any order, each with
  the report's vertex count, parented to that armature with an Armature modifier on it, and
  skinned: vertex groups named after its bones, every vertex in at least one with a weight above 0;
- each mesh as evaluated with its armature modifier in the rest pose stays on its mesh data
  (within --tol metres): the skin is bound to that armature's rest pose.
Exit status 1 (with --python-exit-code 1) when any of these fails.
"""

import argparse
import json
import re
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses numpy.bool, removed in numpy 1.24

import bpy  # noqa: E402


def glb_json(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"glTF":
        raise SystemExit(f"{path}: not a .glb")
    length = int.from_bytes(data[12:16], "little")
    return json.loads(data[20:20 + length])


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    ap = argparse.ArgumentParser()
    ap.add_argument("--glb", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--skeleton", required=True)
    ap.add_argument("--tol", type=float, default=1e-5)
    ap.add_argument("--out")
    args = ap.parse_args(argv)

    gltf = glb_json(args.glb)
    node_source = {n["name"]: n.get("extras", {}).get("name", n["name"]) for n in gltf["nodes"]}
    with open(args.report, encoding="utf-8") as f:
        report = json.load(f)
    expected_meshes = {m["name"]: m["vertices"] for m in report["meshes"]}
    with open(args.skeleton, encoding="utf-8") as f:
        skeleton_names = [b["name"] for b in json.load(f)["bones"]]

    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=args.glb)
    objects = list(bpy.context.scene.objects)
    armatures = [o for o in objects if o.type == "ARMATURE"]
    problems = []
    if len(armatures) != 1:
        raise SystemExit(f"expected one armature, Blender has {len(armatures)}")
    arm = armatures[0]

    # Bones: the skeleton's, one per joint.
    bone_names = [node_source.get(b.name, b.name) for b in arm.data.bones]
    joints = len(gltf["skins"][0]["joints"])
    if len(bone_names) != joints:
        problems.append(f"Blender has {len(bone_names)} bones, the file {joints} joints")
    # A bendy bone baked to a joint chain adds joints NAME.bbone0..N under it.
    baked = [n for n in bone_names if re.fullmatch(r"(.+)\.bbone\d+", n) and
             re.fullmatch(r"(.+)\.bbone\d+", n).group(1) in skeleton_names]
    plain = [n for n in bone_names if n not in baked]
    if sorted(plain) != sorted(skeleton_names):
        missing = sorted(set(skeleton_names) - set(plain))
        extra = sorted(set(plain) - set(skeleton_names))
        problems.append(f"bones differ from the skeleton: missing {missing[:5]}, extra {extra[:5]}")
    blender_bones = {b.name for b in arm.data.bones}

    # Meshes: one object each, on the armature, skinned, at rest where the data is.
    meshes = [o for o in objects if o.type == "MESH"]
    found = {}
    depsgraph = bpy.context.evaluated_depsgraph_get()
    for o in meshes:
        name = o.name
        entry = {"vertices": len(o.data.vertices)}
        found[name] = entry
        if name not in expected_meshes:
            problems.append(f"mesh object {name!r} is not in the report")
            continue
        if entry["vertices"] != expected_meshes[name]:
            problems.append(f"{name}: {entry['vertices']} vertices, the report says {expected_meshes[name]}")
        entry["parent"] = o.parent.name if o.parent else None
        entry["armature_modifier"] = any(m.type == "ARMATURE" and m.object == arm for m in o.modifiers)
        if o.parent != arm:
            problems.append(f"{name}: parent {entry['parent']!r}, not the armature")
        if not entry["armature_modifier"]:
            problems.append(f"{name}: no Armature modifier on the armature")
        groups = [g.name for g in o.vertex_groups]
        entry["vertex_groups"] = len(groups)
        strays = [g for g in groups if g not in blender_bones]
        if strays:
            problems.append(f"{name}: vertex groups that name no bone: {strays[:5]}")
        unweighted = sum(1 for v in o.data.vertices if not any(g.weight > 0 for g in v.groups))
        entry["unweighted_vertices"] = unweighted
        if unweighted:
            problems.append(f"{name}: {unweighted} vertices in no vertex group")
        evaluated = o.evaluated_get(depsgraph)
        em = evaluated.to_mesh()
        rest = max(((a.co - b.co).length for a, b in zip(em.vertices, o.data.vertices)), default=0.0)
        evaluated.to_mesh_clear()
        entry["max_rest_skinning_error_m"] = rest
        if rest > args.tol:
            problems.append(f"{name}: the rest pose moves a vertex by {rest} m")
    for name in expected_meshes:
        if name not in found:
            problems.append(f"mesh {name!r} of the report was not imported")

    out = {
        "blender": bpy.app.version_string,
        "glb": args.glb,
        "armature": arm.name,
        "bones": len(bone_names),
        "meshes": found,
        "problems": problems,
    }
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    if problems:
        raise SystemExit("gltf_character_check: " + "; ".join(problems))


main()
