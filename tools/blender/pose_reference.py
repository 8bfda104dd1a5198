"""Blender reference poses for rigfit.

Run inside Blender (tested with 3.4.1):

    blender -b --factory-startup --python tools/blender/pose_reference.py -- \
        --data /path/to/mpfb --rig /path/to/rig.X.json --pose POSE.json \
        [--partial] [--keep-rotation-modes] [--golden golden.json] [--golden-rig NAME] \
        [--golden-pose NAME] [--out reference.json]

It first builds the rig on the base mesh exactly as tools/blender/fit_reference.py does, by
running that script (with --data/--rig/--mesh and a scratch --out) in this Blender session; the
armature object it leaves, "reference", is then posed:

1. Standard (non-Rigify) rigs: every pose bone's rotation_mode is set to XYZ, as MPFB does when
   it adds such a rig to a human (RigService.normalize_rotation_mode); --keep-rotation-modes
   skips this.
2. Test-only bone flags from the pose file's "bone_flags" ({bone: {"inherit_scale": MODE,
   "use_inherit_rotation": bool, "use_local_location": bool}}) are set on the armature's bones.
3. The pose is applied the way MPFB's RigService.set_pose_from_dict does it (re-implemented here
   with the same operators; MPFB itself is not needed): select all bones (or, with --partial, the
   bones the file mentions), bpy.ops.pose.transforms_clear(), measure the spine and shoulders on
   that pose for skeleton types containing "default", add the scaled bone_translations to
   location, then for every bone_rotations entry set rotation_mode (bone_rotation_modes, else 4
   values = QUATERNION, else XYZ) and the matching channel. Bones the armature lacks are skipped.
4. Test-only "bone_scales" ({bone: [sx, sy, sz]}) set pose_bone.scale.
5. The depsgraph is evaluated and every bone's pose_bone.matrix (armature space, from the
   evaluated object) is written, in the rig file's bone order.

--golden writes the compact golden file of tests/golden/pose (see tools/blender/README.md):

    {"rig": ..., "pose": ..., "body": "base", "blender": "3.4.1", "rotation_modes": "XYZ",
     "partial": false, "translation_factors": [fx, fy, fz], "bones": [
    ["Root", [m00, m01, m02, m03, m10, ..., m23]],
    ...
    ]}

(the top three rows of pose_bone.matrix, row-major, as Python reprs of Blender's float32s).
--out writes a fuller JSON with each bone's channels as Blender stores them, its flags,
matrix_basis and matrix.
"""

import argparse
import json
import os
import runpy
import sys
import time

import bpy
from mathutils import Vector

HERE = os.path.dirname(os.path.abspath(__file__))
FIT_REFERENCE = os.path.join(HERE, "fit_reference.py")
EULER_MODES = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")


def log(*a):
    print("[pose_reference]", *a, flush=True)


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="pose_reference.py")
    p.add_argument("--data", required=True, help="MPFB data folder")
    p.add_argument("--rig", required=True, help="rig.X.json")
    p.add_argument("--mesh", help="OBJ to fit to (default: DATA/3dobjs/base.obj)")
    p.add_argument("--pose", required=True, help="MPFB pose JSON (may carry the test-only bone_flags / bone_scales)")
    p.add_argument("--partial", action="store_true", help="apply as a partial pose (clear only the mentioned bones)")
    p.add_argument("--keep-rotation-modes", action="store_true",
                   help="do not force XYZ rotation mode on standard rigs")
    p.add_argument("--golden", metavar="JSON", help="write the compact golden file")
    p.add_argument("--golden-rig", metavar="NAME", help="rig name in the golden file (default: from the rig path)")
    p.add_argument("--golden-pose", metavar="NAME",
                   help="pose name in the golden file (default: the pose file's name without .json and .pose)")
    p.add_argument("--golden-digits", type=int, default=0, metavar="N",
                   help="significant digits for golden numbers (0 = full Python repr)")
    p.add_argument("--out", metavar="JSON", help="write the full reference JSON")
    return p.parse_args(argv)


def build_rig(args, scratch):
    """Runs fit_reference.py in this session; returns its namespace (its helper functions)."""
    argv = [sys.argv[0], "--", "--data", args.data, "--rig", args.rig, "--out", scratch]
    if args.mesh:
        argv += ["--mesh", args.mesh]
    saved = sys.argv
    sys.argv = argv
    try:
        ns = runpy.run_path(FIT_REFERENCE, run_name="fit_reference")
    finally:
        sys.argv = saved
    return ns


def set_pose_mode(arm):
    if bpy.context.object is not None and bpy.context.object.mode != 'OBJECT':
        bpy.ops.object.mode_set(mode='OBJECT')
    bpy.ops.object.select_all(action='DESELECT')
    arm.select_set(True)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode='POSE')


def apply_flags(arm, flags):
    applied = {}
    for name, f in flags.items():
        bone = arm.data.bones.get(name)
        if bone is None:
            raise RuntimeError("bone_flags: no bone %r" % name)
        for key in ("inherit_scale", "use_inherit_rotation", "use_local_location"):
            if key in f:
                setattr(bone, key, f[key])
        applied[name] = {"inherit_scale": bone.inherit_scale, "use_inherit_rotation": bone.use_inherit_rotation,
                         "use_local_location": bone.use_local_location}
    return applied


def apply_mpfb_pose(arm, pose, partial):
    """MPFB's set_pose_from_dict, step by step; returns the translation factors used."""
    bones = arm.pose.bones
    if not partial:
        bpy.ops.pose.select_all(action='SELECT')
    else:
        bpy.ops.pose.select_all(action='DESELECT')
        for name in list(pose["bone_rotations"]) + list(pose["bone_translations"]):
            if bones.get(name):
                bones[name].bone.select = True
    bpy.ops.pose.transforms_clear()
    bpy.ops.pose.select_all(action='DESELECT')
    bpy.context.view_layer.update()

    fx = fy = fz = 1.0
    if "default" in pose["skeleton_type"]:
        bottom = bones["spine05"].head
        top = bones["spine01"].tail
        left = bones["shoulder01.L"].tail
        right = bones["shoulder01.R"].tail
        spine = abs((top - bottom).length)
        shoulders = abs((left - right).length)
        if pose.get("original_spine_length", 0) > 0.0001:
            fz = spine / pose["original_spine_length"]
        if pose.get("original_shoulder_width", 0) > 0.0001:
            fx = fy = shoulders / pose["original_shoulder_width"]
        log("spine %.9g / %r, shoulders %.9g / %r" % (spine, pose.get("original_spine_length"), shoulders,
                                                      pose.get("original_shoulder_width")))

    for name, t in pose["bone_translations"].items():
        b = bones.get(name)
        if b:
            b.location = b.location + Vector((t[0] * fx, t[1] * fy, t[2] * fz))
    modes = pose.get("bone_rotation_modes", {})
    for name, value in pose["bone_rotations"].items():
        b = bones.get(name)
        if not b:
            continue
        mode = modes.get(name)
        if mode is None:
            mode = "QUATERNION" if len(value) == 4 else "XYZ"
        b.rotation_mode = mode
        if mode == "QUATERNION":
            b.rotation_quaternion = value
        elif mode == "AXIS_ANGLE":
            b.rotation_axis_angle = value
        else:
            b.rotation_euler = value
    return [fx, fy, fz]


def main():
    args = parse_args()
    t0 = time.time()
    args.data = os.path.abspath(args.data)
    args.rig = os.path.abspath(args.rig)
    scratch = os.path.join(bpy.app.tempdir or "/tmp", "pose_reference.fit.json")
    ns = build_rig(args, scratch)
    arm = bpy.data.objects.get("reference")
    if arm is None or arm.type != 'ARMATURE':
        raise RuntimeError("fit_reference.py left no armature 'reference'")

    with open(args.rig) as fh:
        rig = json.load(fh)
    rig_bones = list((rig["bones"] if "bones" in rig else rig).keys())
    is_rigify = os.path.basename(os.path.dirname(args.rig)) == "rigify"
    with open(args.pose) as fh:
        pose = json.load(fh)

    set_pose_mode(arm)
    forced = None
    if not is_rigify and not args.keep_rotation_modes:
        for pb in arm.pose.bones:
            pb.rotation_mode = 'XYZ'
        forced = "XYZ"
    flags = apply_flags(arm, pose.get("bone_flags", {}))
    factors = apply_mpfb_pose(arm, pose, args.partial)
    for name, s in pose.get("bone_scales", {}).items():
        arm.pose.bones[name].scale = s
    bpy.context.view_layer.update()

    depsgraph = bpy.context.evaluated_depsgraph_get()
    arm_eval = arm.evaluated_get(depsgraph)
    out_bones = []
    for name in rig_bones:
        pb = arm_eval.pose.bones.get(name)
        if pb is None:
            continue
        orig = arm.pose.bones[name]
        out_bones.append({
            "name": name,
            "matrix": [list(row) for row in pb.matrix],
            "matrix_basis": [list(row) for row in orig.matrix_basis],
            "rotation_mode": orig.rotation_mode,
            "location": list(orig.location),
            "rotation_quaternion": list(orig.rotation_quaternion),
            "rotation_euler": list(orig.rotation_euler),
            "rotation_axis_angle": list(orig.rotation_axis_angle),
            "scale": list(orig.scale),
            "use_connect": orig.bone.use_connect,
            "use_inherit_rotation": orig.bone.use_inherit_rotation,
            "inherit_scale": orig.bone.inherit_scale,
            "use_local_location": orig.bone.use_local_location,
            "head": list(pb.head),
            "tail": list(pb.tail),
        })
    rig_name = args.golden_rig or ns["rig_label"](args.rig)
    pose_name = args.golden_pose or os.path.basename(args.pose)
    for suffix in (".json", ".pose"):
        pose_name = pose_name[:-len(suffix)] if pose_name.endswith(suffix) else pose_name
    if args.out:
        result = {
            "format": "rigfit-blender-pose-reference/1",
            "blender": bpy.app.version_string,
            "rig": args.rig,
            "pose": os.path.abspath(args.pose),
            "partial": args.partial,
            "rotation_modes_forced": forced,
            "bone_flags": flags,
            "translation_factors": factors,
            "bones": out_bones,
        }
        os.makedirs(os.path.dirname(os.path.abspath(args.out)) or ".", exist_ok=True)
        with open(args.out, "w") as fh:
            json.dump(result, fh, indent=1)
    if args.golden:
        num = lambda v: ns["golden_number"](v, args.golden_digits)  # noqa: E731
        lines = ["[%s, [%s]]" % (json.dumps(b["name"]), ", ".join(num(x) for row in b["matrix"][:3] for x in row))
                 for b in out_bones]
        text = ('{"rig": %s, "pose": %s, "body": "base", "blender": %s, "rotation_modes": %s, "partial": %s, '
                '"translation_factors": [%s], "bones": [\n%s\n]}\n'
                % (json.dumps(rig_name), json.dumps(pose_name), json.dumps(bpy.app.version_string),
                   json.dumps(forced), json.dumps(args.partial), ", ".join(repr(float(f)) for f in factors),
                   ",\n".join(lines)))
        json.loads(text)
        os.makedirs(os.path.dirname(os.path.abspath(args.golden)) or ".", exist_ok=True)
        with open(args.golden, "w") as fh:
            fh.write(text)
        log("wrote golden %s (%s/%s, %d bones, %d bytes)" % (args.golden, rig_name, pose_name, len(out_bones), len(text)))
    log("posed %s with %s: %d bones, factors %s, %.2f s" % (rig_name, pose_name, len(out_bones), factors, time.time() - t0))


try:
    main()
except Exception:  # make blender -b exit non-zero on failure
    import traceback
    traceback.print_exc()
    sys.stdout.flush()
    os._exit(1)
