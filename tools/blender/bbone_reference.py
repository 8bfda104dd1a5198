# Blender reference for bendy bones (B-Bones): builds small armatures of bendy bones in Blender,
# poses them, and writes what Blender computes: the B-Bone joint matrices (rest and posed, as
# PoseBone.bbone_segment_matrix gives them), the pose matrices, and a point cloud deformed by the
# armature modifier with linear blending and with "preserve volume" (dual quaternions).
#
#   blender -b --factory-startup --python tools/blender/bbone_reference.py -- --out DIR
#
# Writes DIR/<case>.json for every case below. Each file holds the case as built (bones in
# parents-first order with head, tail, roll, parent, use_connect and an MPFB-style `bendy_bone`
# entry; pose channels; vertices and weights) and Blender's results; tests/bbone_test.cpp reads them.
import argparse
import json
import math
import os
import sys

import bpy
from mathutils import Matrix, Quaternion, Vector


def chain(names, start, step, segments, parent_of_first="", roll=0.0):
    bones = []
    head = list(start)
    for i, n in enumerate(names):
        tail = [head[k] + step[i][k] for k in range(3)]
        bones.append({"name": n, "head": head, "tail": tail, "roll": roll,
                      "parent": parent_of_first if i == 0 else names[i - 1],
                      "use_connect": i > 0, "bendy_bone": {"segments": segments[i]} if segments[i] != 1 else {}})
        head = tail
    return bones


def q(axis, deg):
    return list(Quaternion(Vector(axis).normalized(), math.radians(deg)))


def cases():
    out = []
    # 1. A chain of connected bendy bones (AUTO handles), a plain bone in the middle.
    bones = [{"name": "root", "head": [0, 0, 0], "tail": [0, 0, 0.1], "roll": 0.0, "parent": "", "use_connect": False,
              "bendy_bone": {}}]
    bones += chain(["a", "b", "c", "d"], [0, 0, 0.1], [[0, 0.02, 0.2], [0.01, 0.0, 0.15], [0, -0.03, 0.25], [0.02, 0, 0.1]],
                   [4, 3, 1, 5], parent_of_first="root", roll=0.3)
    bones[1]["use_connect"] = True
    out.append({"name": "chain", "bones": bones,
                "pose": {"a": {"rotation_quaternion": q([1, 0, 0], 35)},
                         "b": {"rotation_quaternion": q([0, 0.3, 1], -50)},
                         "c": {"rotation_quaternion": q([1, 1, 0], 40)},
                         "d": {"rotation_quaternion": q([0, 0, 1], 60), "scale": [1.0, 1.3, 1.0]}}})
    # 2. The ponytail's layout: 4 connected bones of 4 segments, the first with easein 0.
    bones = [{"name": "ponytail", "head": [0, 0, 1.6], "tail": [0, -0.05, 1.65], "roll": 0.0, "parent": "",
              "use_connect": False, "bendy_bone": {}}]
    bones += chain(["ponytail1", "ponytail2", "ponytail3", "ponytail4"], [0, -0.05, 1.65],
                   [[0, -0.06, -0.03], [0, -0.02, -0.08], [0, 0.0, -0.09], [0, 0.01, -0.08]], [4, 4, 4, 4],
                   parent_of_first="ponytail", roll=0.0)
    bones[1]["bendy_bone"]["easein"] = 0.0
    out.append({"name": "ponytail", "bones": bones,
                "pose": {"ponytail": {"rotation_quaternion": q([1, 0, 0], 10)},
                         "ponytail1": {"rotation_quaternion": q([1, 0, 0], 30)},
                         "ponytail2": {"rotation_quaternion": q([1, 0.2, 0], 45)},
                         "ponytail3": {"rotation_quaternion": q([0, 0, 1], 25)},
                         "ponytail4": {"rotation_quaternion": q([1, 0, 0.5], -40)}}})
    # 2b. The same layout bent 60 degrees at every bone, about axes across and along the chain.
    out.append({"name": "ponytail_bent60", "bones": bones,
                "pose": {"ponytail": {"rotation_quaternion": q([1, 0, 0], 60)},
                         "ponytail1": {"rotation_quaternion": q([1, 0, 0], -60)},
                         "ponytail2": {"rotation_quaternion": q([1, 0.3, 0.2], 60)},
                         "ponytail3": {"rotation_quaternion": q([0, 0, 1], 60)},
                         "ponytail4": {"rotation_quaternion": q([1, 0, 0.5], -60)}}})
    # 3. Custom handles of every type, handle ease and scale.
    for kind in ["ABSOLUTE", "RELATIVE", "TANGENT"]:
        bones = [
            {"name": "h1", "head": [-0.2, 0, 0], "tail": [-0.1, 0.05, 0.05], "roll": 0.2, "parent": "", "use_connect": False, "bendy_bone": {}},
            {"name": "h2", "head": [0.35, 0.02, 0.1], "tail": [0.45, 0.0, 0.2], "roll": -0.4, "parent": "", "use_connect": False, "bendy_bone": {}},
            {"name": "bb", "head": [0, 0, 0], "tail": [0.3, 0.0, 0.05], "roll": 0.5, "parent": "", "use_connect": False,
             "bendy_bone": {"segments": 6, "handle_type_start": kind, "handle_type_end": kind,
                            "custom_handle_start": "h1", "custom_handle_end": "h2", "easein": 1.4, "easeout": 0.6,
                            "handle_use_ease_start": True, "handle_use_scale_end": [True, False, True],
                            "handle_use_scale_start": [False, True, False], "handle_use_ease_end": True}},
        ]
        out.append({"name": "handles_" + kind.lower(), "bones": bones,
                    "pose": {"h1": {"rotation_quaternion": q([0, 0, 1], 30), "location": [0.02, -0.03, 0.01], "scale": [1.2, 0.8, 1.1]},
                             "h2": {"rotation_quaternion": q([1, 0, 0], -45), "location": [0.0, 0.05, -0.02], "scale": [0.7, 1.5, 1.3]},
                             "bb": {"rotation_quaternion": q([0, 1, 0], 15)}}})
    # 4. Rest-shape and pose-time B-Bone channels (roll, curve, scale, ease), no handles.
    bones = [{"name": "shape", "head": [0, 0, 0], "tail": [0, 0.1, 0.3], "roll": -0.7, "parent": "", "use_connect": False,
              "bendy_bone": {"segments": 8, "rollin": 0.3, "rollout": -0.5, "curveinx": 0.05, "curveinz": -0.02,
                             "curveoutx": -0.03, "curveoutz": 0.04, "scalein": [1.2, 0.9, 0.8], "scaleout": [0.7, 1.3, 1.1],
                             "easein": 1.5, "easeout": 0.5}}]
    out.append({"name": "channels", "bones": bones,
                "pose": {"shape": {"rotation_quaternion": q([1, 0.5, 0], 20),
                                   "bbone": {"curveinx": 0.02, "curveinz": 0.03, "curveoutx": 0.01, "curveoutz": -0.05,
                                             "rollin": 0.4, "rollout": 0.2, "easein": 0.3, "easeout": -0.2,
                                             "scalein": [1.1, 1.2, 0.9], "scaleout": [0.8, 0.9, 1.4]}}}})
    # 5. Non-uniform pose scale of a bendy bone between connected bendy neighbours.
    bones = chain(["p", "q", "r"], [0, 0, 0], [[0.1, 0, 0.1], [0.15, 0, 0], [0.1, 0.05, -0.1]], [3, 5, 2], roll=1.0)
    out.append({"name": "scaled", "bones": bones,
                "pose": {"p": {"rotation_quaternion": q([0, 1, 0], -20)},
                         "q": {"rotation_quaternion": q([0, 0, 1], 30), "scale": [1.5, 0.8, 1.2]},
                         "r": {"rotation_quaternion": q([1, 0, 0], 50)}}})
    # 6. Bone flags MPFB's bendy_bone cannot set (a case's "flags": Bone properties by name): the
    # start handle's roll out added to roll in, and scale in/out Y scaling ease and curve.
    bones = chain(["s", "t"], [0, 0, 0], [[0, 0.05, 0.2], [0.05, 0.0, 0.2]], [4, 6], roll=0.2)
    bones[0]["bendy_bone"].update({"rollout": 0.4, "curveoutx": 0.02})
    bones[1]["bendy_bone"].update({"rollin": -0.1, "curveinz": 0.03, "scalein": [1.0, 1.6, 1.0], "scaleout": [1.0, 0.7, 1.0]})
    bones[1]["flags"] = {"use_endroll_as_inroll": True, "use_scale_easing": True}
    out.append({"name": "flags", "bones": bones,
                "pose": {"s": {"rotation_quaternion": q([1, 0, 0], 25), "bbone": {"rollout": 0.3}},
                         "t": {"rotation_quaternion": q([0, 0, 1], -35), "bbone": {"scalein": [1.0, 1.4, 1.0], "easeout": 0.5}}}})
    return out


def add_points(case):
    """A few points around each bone (before, along and past it), weighted to the bone and, for
    some, to its parent too."""
    verts, weights = [], []
    for b in case["bones"]:
        h, t = Vector(b["head"]), Vector(b["tail"])
        d = t - h
        side = d.orthogonal().normalized() * 0.02
        side2 = d.cross(side).normalized() * 0.015
        for k, f in enumerate([-0.1, 0.0, 0.13, 0.27, 0.5, 0.61, 0.85, 1.0, 1.1]):
            p = h + d * f + (side if k % 2 else -side) + side2 * ((k % 3) - 1)
            verts.append([p.x, p.y, p.z])
            w = [[b["name"], 1.0]]
            if b["parent"] and k % 3 == 2:
                w = [[b["name"], 0.7], [b["parent"], 0.3]]
            weights.append(w)
    case["vertices"] = verts
    case["weights"] = weights


def build(case):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    arm = bpy.data.armatures.new("arm")
    ob = bpy.data.objects.new("arm", arm)
    bpy.context.scene.collection.objects.link(ob)
    bpy.context.view_layer.objects.active = ob
    bpy.ops.object.mode_set(mode="EDIT")
    eb = {}
    for b in case["bones"]:
        e = arm.edit_bones.new(b["name"])
        e.head, e.tail, e.roll = b["head"], b["tail"], b["roll"]
        eb[b["name"]] = e
    for b in case["bones"]:
        e = eb[b["name"]]
        if b["parent"]:
            e.parent = eb[b["parent"]]
            e.use_connect = b["use_connect"]
        for k, v in b["bendy_bone"].items():
            if k.startswith("custom_handle_"):
                v = eb[v]
            setattr(e, "bbone_" + k, v)
        for k, v in b.get("flags", {}).items():
            setattr(e, k, v)
    bpy.ops.object.mode_set(mode="OBJECT")
    for name, p in case["pose"].items():
        pb = ob.pose.bones[name]
        pb.rotation_mode = "QUATERNION"
        if "rotation_quaternion" in p:
            pb.rotation_quaternion = p["rotation_quaternion"]
        if "location" in p:
            pb.location = p["location"]
        if "scale" in p:
            pb.scale = p["scale"]
        for k, v in p.get("bbone", {}).items():
            setattr(pb, "bbone_" + k, v)
    meshes = {}
    for mode in ["lbs", "dq"]:
        me = bpy.data.meshes.new(mode)
        me.from_pydata(case["vertices"], [], [])
        mo = bpy.data.objects.new(mode, me)
        bpy.context.scene.collection.objects.link(mo)
        for b in case["bones"]:
            mo.vertex_groups.new(name=b["name"])
        for i, ws in enumerate(case["weights"]):
            for name, w in ws:
                mo.vertex_groups[name].add([i], w, "REPLACE")
        mod = mo.modifiers.new("arm", "ARMATURE")
        mod.object = ob
        mod.use_vertex_groups = True
        mod.use_bone_envelopes = False
        mod.use_deform_preserve_volume = mode == "dq"
        meshes[mode] = mo
    return ob, meshes


def flat(m):
    return [m[r][c] for r in range(4) for c in range(4)]


def run(case):
    add_points(case)
    ob, meshes = build(case)
    dg = bpy.context.evaluated_depsgraph_get()
    ob_eval = ob.evaluated_get(dg)
    res = {"rest_matrices": {}, "pose_matrices": {}, "lengths": {}, "rest_segments": {}, "pose_segments": {}}
    for b in case["bones"]:
        pb = ob_eval.pose.bones[b["name"]]
        res["rest_matrices"][b["name"]] = flat(pb.bone.matrix_local)
        res["pose_matrices"][b["name"]] = flat(pb.matrix)
        res["lengths"][b["name"]] = pb.bone.length
        n = pb.bone.bbone_segments
        if n > 1:
            res["rest_segments"][b["name"]] = [flat(pb.bbone_segment_matrix(i, rest=True)) for i in range(n + 1)]
            res["pose_segments"][b["name"]] = [flat(pb.bbone_segment_matrix(i, rest=False)) for i in range(n + 1)]
    for mode, mo in meshes.items():
        me = mo.evaluated_get(dg).to_mesh()
        res["deformed_" + mode] = [[v.co.x, v.co.y, v.co.z] for v in me.vertices]
        mo.evaluated_get(dg).to_mesh_clear()
    case["blender"] = res
    case["blender_version"] = bpy.app.version_string
    return case


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for case in cases():
        r = run(case)
        with open(os.path.join(args.out, case["name"] + ".json"), "w") as f:
            json.dump(r, f, indent=1, sort_keys=True)
        print("wrote", case["name"])


main()
