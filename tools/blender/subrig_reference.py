"""Blender reference for rigfit's asset sub-rigs: MPFB itself adds the ponytail with its sub-rig.

Run inside Blender 3.4 with MPFB 2.0.4 installed as the add-on "mpfb" (make_asset_goldens.sh
prepares that and runs this script too):

    BLENDER_USER_SCRIPTS=$M/bl_user blender -b --factory-startup --python-exit-code 1 \\
        --python tools/blender/subrig_reference.py -- --body base|default|max --rig game_engine \\
        --golden golden.json

MPFB builds the body and rig (asset_reference.make_body, HumanService.add_builtin_rig) and adds
hair/ponytail01 with HumanService.add_mhclo_asset, which loads its .mpfbskel sub-rig, resolves the
root's CHILD_OF JOINTS reference against the live main rig and binds it. The script reads back
the sub-rig's bones and constraints, then poses the main rig's CHILD_OF target bone and the
sub-rig's bones (first rigid motions of the bendy chain, then bends along it, which curve its
B-Bones) and records Blender's own result: PoseBone.matrix of the sub-rig bones and the ponytail
mesh as the depsgraph evaluates it (main Armature modifier, then the Armature Subrig modifier
mixed by mhmask-subrig).
"""

import argparse
import os
import sys
import time

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import asset_reference as ar  # noqa: E402  (Blender runs this file as a script)

# Poses: (main rig bone, or the CHILD_OF target "@target"; rig "main" or "sub"; XYZ Euler degrees).
POSES = {
    "target": [("main", "@target", (25.0, -10.0, 15.0))],
    "target_and_subrig": [("main", "@target", (-20.0, 12.0, -8.0)),
                          ("sub", "root", (0.0, 0.0, 10.0)),
                          ("sub", "ponytail", (-30.0, 5.0, 20.0))],
    # Bends along the bendy chain: the B-Bone curves of ponytail1..4 bend with them.
    "bend": [("main", "@target", (10.0, 0.0, 5.0)),
             ("sub", "ponytail1", (35.0, 0.0, 10.0)),
             ("sub", "ponytail2", (25.0, -10.0, 0.0)),
             ("sub", "ponytail3", (-20.0, 15.0, 5.0)),
             ("sub", "ponytail4", (30.0, 0.0, -25.0))],
}
STRIDE = 7  # every 7th ponytail vertex (about 530 of 3,718)


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="subrig_reference.py")
    p.add_argument("--body", required=True, choices=["base", "default", "max"])
    p.add_argument("--rig", default="game_engine")
    p.add_argument("--golden", required=True)
    return p.parse_args(argv)


def matrix(m):
    return [list(row) for row in m]


def evaluated_positions(obj):
    dg = bpy.context.evaluated_depsgraph_get()
    dg.update()
    ev = obj.evaluated_get(dg)
    mesh = ev.to_mesh()
    flat = [0.0] * (3 * len(mesh.vertices))
    mesh.vertices.foreach_get("co", flat)
    ev.to_mesh_clear()
    return [(flat[3 * i], flat[3 * i + 1], flat[3 * i + 2]) for i in range(len(flat) // 3)]


def set_pose(arms, rotations, target):
    for arm in arms.values():
        for pb in arm.pose.bones:
            pb.rotation_mode = "XYZ"
            pb.rotation_euler = (0.0, 0.0, 0.0)
            pb.location = (0.0, 0.0, 0.0)
            pb.scale = (1.0, 1.0, 1.0)
    for which, bone, euler in rotations:
        pb = arms[which].pose.bones[target if bone == "@target" else bone]
        pb.rotation_euler = tuple(v * 3.141592653589793 / 180.0 for v in euler)


def main():
    args = parse_args()
    t0 = time.time()
    LocationService = ar.enable_mpfb()
    data_dir = LocationService.get_mpfb_data()
    from mpfb.services.humanservice import HumanService

    body, body_info = ar.make_body(args.body)
    rig = HumanService.add_builtin_rig(body, args.rig, import_weights=True)
    if rig is None:
        raise SystemExit("MPFB could not add the rig " + args.rig)
    rel = "hair/ponytail01/ponytail01.mhclo"
    obj = HumanService.add_mhclo_asset(os.path.join(data_dir, rel), body, asset_type="Hair")
    sub = obj.parent
    assert sub is not None and sub.type == "ARMATURE" and sub != rig, "no sub-rig"
    constraints = []
    for pb in sub.pose.bones:
        for con in pb.constraints:
            constraints.append({"bone": pb.name, "type": con.type, "name": con.name,
                                "target": con.target.name if getattr(con, "target", None) else None,
                                "subtarget": getattr(con, "subtarget", None),
                                "influence": con.influence, "owner_space": con.owner_space,
                                "target_space": con.target_space,
                                "inverse_matrix": matrix(con.inverse_matrix) if con.type == "CHILD_OF" else None})
    target = next(c["subtarget"] for c in constraints if c["type"] == "CHILD_OF")
    out = {
        "format": "rigfit-subrig-golden/1",
        "blender": bpy.app.version_string,
        "mpfb": "makehumancommunity/mpfb2 0f8817e1836028d5ccdccba3d7cb77edb561f38e (2.0.4, last_blender3_version)",
        "frame": "Blender: metres, Z up; every object's matrix_world is the identity (checked)",
        "rig": args.rig,
        "body": body_info,
        "asset": rel,
        "identity_objects": all(o.matrix_world == o.matrix_world.Identity(4) for o in (body, rig, sub, obj)),
        "modifiers": [[m.name, m.type, getattr(m, "vertex_group", ""), getattr(m, "use_multi_modifier", False)]
                      for m in obj.modifiers],
        "subrig_bones": [{"name": b.name, "parent": b.parent.name if b.parent else None,
                          "head": list(b.head_local), "tail": list(b.tail_local), "matrix": matrix(b.matrix_local),
                          "segments": b.bbone_segments} for b in sub.data.bones],
        "constraints": constraints,
        "stride": STRIDE,
        "poses": {},
    }
    # The Subdivision modifier MPFB adds renders only (viewport level 0); the evaluated mesh keeps
    # the asset's vertices.
    arms = {"main": rig, "sub": sub}
    for name, rotations in POSES.items():
        set_pose(arms, rotations, target)
        pos = evaluated_positions(obj)
        assert len(pos) == len(obj.data.vertices), "the evaluated ponytail changed its vertex count"
        out["poses"][name] = {
            "rotations": [[w, target if b == "@target" else b, list(e)] for w, b, e in rotations],
            "subrig_pose_matrices": {pb.name: matrix(pb.matrix) for pb in sub.pose.bones},
            "target_pose_matrix": matrix(rig.pose.bones[target].matrix),
            "aggregate": ar.aggregate(pos),
            "positions": [[i, p[0], p[1], p[2]] for i, p in enumerate(pos) if i % STRIDE == 0],
        }
        ar.log(name, "posed")
    with open(args.golden, "w") as fh:
        fh.write(ar.dump(out) + "\n")
    ar.log("wrote", args.golden, os.path.getsize(args.golden), "bytes in %.1f s" % (time.time() - t0))


if __name__ == "__main__":
    ar.run(main)
