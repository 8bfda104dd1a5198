"""Blender reference pose matrices for rigfit's constraint evaluation.

Run inside Blender (tested with 3.4.1):

    # (a) small armatures: every evaluated constraint type in every owner/target space, with
    #     influences, head_tail, mix modes, posed owners and targets
    blender -b --factory-startup --python tools/blender/constraint_reference.py -- \
        --synthetic --seed 1 --golden tests/golden/constraints/synthetic.json

    # (a') bendy targets: constraints with use_bbone_shape following posed B-Bone curves
    blender -b --factory-startup --python tools/blender/constraint_reference.py -- \
        --bbone-shape --seed 1 --poses 4 --golden tests/golden/constraints/bbone_shape.json

    # (a'') ARMATURE constraints deforming owners by bendy targets' B-Bone segments
    blender -b --factory-startup --python tools/blender/constraint_reference.py -- \
        --armature-bbone --seed 1 --poses 5 --golden tests/golden/constraints/armature_bbone.json

    # (b) a rig file fitted by rigfit (rest data from `rigfit fit --skeleton`), posed with random
    #     rotations (and optionally an MPFB pose file's rotations on top of the rest)
    rigfit fit --data DATA --rig rigify/rig.human.json --skeleton human.skeleton.json
    blender -b --factory-startup --python tools/blender/constraint_reference.py -- \
        --rig DATA/rigs/rigify/rig.human.json --skeleton human.skeleton.json \
        --poses 3 --seed 7 --golden tests/golden/constraints/rigify_human.json

The armature is built in edit mode from heads, tails, rolls, parents and use_connect (synthetic:
the generated rig's default_position values; (b): rigfit's fitted skeleton, so the reference
isolates constraint evaluation from fitting), with the rig's flags, rotation modes and `bendy_bone`
settings (set as `bbone_<key>` on the edit bones, as MPFB does). Each
bone's constraints are created from the rig JSON the way MPFB's Rig._apply_constraint_info does
(docs/mpfb-behaviour.md §8.2): a constraint of `type`, `name`, ARMATURE `targets` on the own
armature, `target: true` = the own armature, then every other key assigned in key order;
CHILD_OF gets set_inverse_pending = True (bound at rest, as MPFB does). The depsgraph is then
evaluated once at rest (binding CHILD_OF inverses and STRETCH_TO rest lengths), and for each pose
the channels are set, the depsgraph evaluated and every PoseBone.matrix read back.

The golden file (compact JSON):

    {"blender": "3.4.1", "rig": {...rig JSON, synthetic only...}, "rig_file": "rigify/rig.human.json",
     "bones": [names in rig order],
     "poses": [{"name": ..., "channels": {bone: {"mode": M, "rotation": [...], "location": [...],
                                                 "scale": [...], "bbone": {PoseBone.bbone_<key>: v}}},
                "matrices": [[12 numbers: top three rows of PoseBone.matrix, row-major], ...]}]}
"""

import argparse
import json
import math
import os
import random
import sys

import bpy

EULER = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
BBONE_CHANNELS = ("curveinx", "curveinz", "curveoutx", "curveoutz", "rollin", "rollout", "easein", "easeout", "scalein",
                  "scaleout")
SPACES_OWNER = ("WORLD", "POSE", "LOCAL_WITH_PARENT", "LOCAL")
SPACES_TARGET = ("WORLD", "POSE", "LOCAL_WITH_PARENT", "LOCAL", "LOCAL_OWNER_ORIENT")


def log(*a):
    print("[constraint_reference]", *a, flush=True)


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="constraint_reference.py")
    p.add_argument("--synthetic", action="store_true", help="generate the small test armatures")
    p.add_argument("--bbone-shape", action="store_true", help="generate the bendy-target armature (use_bbone_shape)")
    p.add_argument("--armature-bbone", action="store_true", help="generate ARMATURE constraints on bendy targets")
    p.add_argument("--rig", help="rig.X.json (with --skeleton)")
    p.add_argument("--rig-name", help="name recorded in the golden (default: the last two path parts)")
    p.add_argument("--skeleton", help="rigfit fit --skeleton output for --rig")
    p.add_argument("--pose-file", action="append", default=[], help="MPFB pose JSON to add as a pose (repeatable)")
    p.add_argument("--poses", type=int, default=3, help="random poses")
    p.add_argument("--max-angle", type=float, default=60.0, help="random rotations up to this many degrees per axis")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--golden", required=True)
    return p.parse_args(argv)


# ---- The synthetic rig --------------------------------------------------------------------------

def bone_entry(head, tail, roll, parent="", connect=False, rotation_mode=None, constraints=None, inherit_scale="FULL",
               bendy_bone=None):
    e = {
        "head": {"strategy": "DEFAULT", "default_position": list(head)},
        "tail": {"strategy": "DEFAULT", "default_position": list(tail)},
        "roll": roll, "parent": parent, "use_connect": connect, "use_local_location": True,
        "use_inherit_rotation": True, "inherit_scale": inherit_scale, "rigify": {}, "collections": [],
    }
    if rotation_mode:
        e["rotation_mode"] = rotation_mode
    if constraints:
        e["constraints"] = constraints
    if bendy_bone:
        e["bendy_bone"] = bendy_bone
    return e


def synthetic_rig(rng):
    """A rig with target bones and one owner bone per constraint case."""
    def rv(scale=1.0):
        return [round(rng.uniform(-scale, scale), 4) for _ in range(3)]

    bones = {}
    bones["root"] = bone_entry((0, 0, 0), (0, 0.2, 0.05), 0.0)
    bones["arm"] = bone_entry((0.1, 0.1, 0.3), (0.3, 0.2, 0.6), 0.3, parent="root")
    bones["fore"] = bone_entry((0.3, 0.2, 0.6), (0.2, 0.5, 0.9), -0.4, parent="arm", connect=True, rotation_mode="ZXY")
    bones["tgt"] = bone_entry((-0.4, 0.3, 0.2), (-0.5, 0.1, 0.55), 1.1, parent="root", rotation_mode="YXZ")
    bones["tgt_child"] = bone_entry((-0.5, 0.1, 0.55), (-0.3, -0.2, 0.7), 0.0, parent="tgt", connect=True)
    bones["spaceb"] = bone_entry((0.6, -0.3, 0.1), (0.7, -0.1, 0.3), 0.5, parent="root")
    cases = []

    def owner(name, constraints, parent=None, rotation_mode=None, connect=False):
        parent = parent or rng.choice(["root", "arm", "fore"])
        h = [round(x, 4) for x in (rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), rng.uniform(0.0, 1.0))]
        d = [round(x, 4) for x in (rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2), rng.uniform(0.05, 0.3))]
        if connect:
            h = bones[parent]["tail"]["default_position"]
        t = [h[k] + d[k] for k in range(3)]
        bones[name] = bone_entry(h, t, round(rng.uniform(-math.pi, math.pi), 4), parent=parent, connect=connect,
                                 rotation_mode=rotation_mode or rng.choice(EULER + ("QUATERNION",)), constraints=constraints)
        cases.append(name)

    influences = (1.0, 0.5, 0.25, 0.8)
    head_tails = (0.0, 0.4, 1.0)
    n = 0
    def base(ctype, own, tar, k, target="tgt", **extra):
        c = {"name": f"{ctype.title()}", "type": ctype, "target": True, "subtarget": target,
             "owner_space": own, "target_space": tar}
        inf = influences[k % len(influences)]
        if inf != 1.0:
            c["influence"] = inf
        c.update(extra)
        return c

    k = 0
    for own in SPACES_OWNER:
        for tar in SPACES_TARGET:
            ht = head_tails[k % 3]
            # Tracking the target's origin from the same local space is degenerate at rest (both at 0).
            ht_track = 0.4 if own == tar and own in ("LOCAL_WITH_PARENT", "LOCAL") else ht
            tb = "tgt" if k % 2 == 0 else "tgt_child"
            owner(f"loc{k}", [base("COPY_LOCATION", own, tar, k, tb, head_tail=ht, use_offset=k % 4 == 1,
                                   invert_y=k % 5 == 2, use_z=k % 7 != 3)])
            owner(f"rot{k}", [base("COPY_ROTATION", own, tar, k, tb,
                                   mix_mode=("REPLACE", "ADD", "BEFORE", "AFTER")[k % 4],
                                   euler_order=("AUTO", "XYZ", "ZXY", "YZX")[(k // 4) % 4], invert_x=k % 6 == 1,
                                   use_y=k % 5 != 4)])
            owner(f"scl{k}", [base("COPY_SCALE", own, tar, k, tb, use_offset=k % 3 == 1, use_add=k % 6 == 4,
                                   power=(1.0, 0.5, 2.0)[k % 3], use_make_uniform=k % 4 == 3, use_x=k % 5 != 1)])
            owner(f"trs{k}", [base("COPY_TRANSFORMS", own, tar, k, tb, head_tail=ht,
                                   mix_mode=("REPLACE", "BEFORE_FULL", "BEFORE", "BEFORE_SPLIT", "AFTER_FULL", "AFTER",
                                             "AFTER_SPLIT")[k % 7], remove_target_shear=k % 2 == 1)])
            owner(f"chd{k}", [base("CHILD_OF", own, tar, k, tb, use_rotation_y=k % 4 != 2, use_scale_z=k % 3 != 1,
                                   use_location_x=k % 5 != 3)])
            owner(f"dmp{k}", [base("DAMPED_TRACK", own, tar, k, tb, head_tail=ht_track,
                                   track_axis=("TRACK_X", "TRACK_Y", "TRACK_Z", "TRACK_NEGATIVE_X", "TRACK_NEGATIVE_Y",
                                               "TRACK_NEGATIVE_Z")[k % 6])])
            owner(f"str{k}", [base("STRETCH_TO", own, tar, k, tb, head_tail=ht_track,
                                   volume=("VOLUME_XZX", "VOLUME_X", "VOLUME_Z", "NO_VOLUME")[k % 4],
                                   keep_axis=("PLANE_X", "PLANE_Z", "SWING_Y")[k % 3], bulge=(1.0, 2.0, 0.5)[k % 3],
                                   use_bulge_min=k % 2 == 0, use_bulge_max=k % 3 == 0, bulge_min=0.6, bulge_max=1.5,
                                   bulge_smooth=(0.0, 0.5)[k % 2])])
            frm = ("LOCATION", "ROTATION", "SCALE")[k % 3]
            to = ("LOCATION", "ROTATION", "SCALE")[(k // 3) % 3]
            tr = base("TRANSFORM", own, tar, k, tb, map_from=frm, map_to=to,
                      map_to_x_from=("X", "Y", "Z")[k % 3], map_to_y_from=("Z", "X", "Y")[k % 3],
                      map_to_z_from=("Y", "Z", "X")[k % 3], use_motion_extrapolate=k % 4 == 1,
                      from_rotation_mode=("AUTO", "XYZ", "ZYX", "QUATERNION", "SWING_TWIST_Y", "SWING_TWIST_X")[k % 6],
                      to_euler_order=("AUTO", "XYZ", "ZYX", "YXZ")[k % 4],
                      mix_mode=("ADD", "REPLACE")[k % 2], mix_mode_rot=("ADD", "REPLACE", "BEFORE", "AFTER")[k % 4],
                      mix_mode_scale=("MULTIPLY", "REPLACE")[k % 2])
            fr = {"LOCATION": (-0.5, 0.5), "ROTATION": (-1.5, 1.5), "SCALE": (0.5, 1.5)}[frm]
            tt = {"LOCATION": (-0.3, 0.4), "ROTATION": (-1.0, 0.8), "SCALE": (0.7, 1.4)}[to]
            sfx = {"LOCATION": "", "ROTATION": "_rot", "SCALE": "_scale"}
            for ax in "xyz":
                tr[f"from_min_{ax}{sfx[frm]}"] = fr[0]
                tr[f"from_max_{ax}{sfx[frm]}"] = fr[1]
                tr[f"to_min_{ax}{sfx[to]}"] = tt[0]
                tr[f"to_max_{ax}{sfx[to]}"] = tt[1]
            owner(f"tfm{k}", [tr])
            k += 1
    for j, own in enumerate(SPACES_OWNER):
        owner(f"llim{j}", [{"name": "LimLoc", "type": "LIMIT_LOCATION", "owner_space": own, "use_min_x": True,
                            "min_x": -0.1, "use_max_y": True, "max_y": 0.05, "use_min_z": j % 2 == 0, "min_z": 0.2,
                            "use_max_z": True, "max_z": 0.4, "influence": influences[j]}])
        owner(f"rlim{j}", [{"name": "LimRot", "type": "LIMIT_ROTATION", "owner_space": own, "use_limit_x": True,
                            "min_x": -0.3, "max_x": 0.2, "use_limit_z": j % 2 == 1, "min_z": -0.1, "max_z": 0.5,
                            "euler_order": ("AUTO", "XYZ", "ZXY", "YZX")[j], "influence": influences[j]}])
        owner(f"slim{j}", [{"name": "LimScale", "type": "LIMIT_SCALE", "owner_space": own, "use_min_x": True,
                            "min_x": 0.9, "use_max_y": True, "max_y": 1.05, "use_max_z": j % 2 == 0, "max_z": 0.95,
                            "influence": influences[j]}])
    for j in range(4):
        owner(f"arm{j}", [{"name": "Armature", "type": "ARMATURE",
                           "targets": [{"subtarget": "arm", "weight": 0.65}, {"subtarget": "tgt_child", "weight": 0.35}]
                           + ([{"subtarget": "fore", "weight": 1.0}] if j >= 2 else []),
                           "use_deform_preserve_volume": j % 2 == 1, "use_bone_envelopes": False,
                           "use_current_location": False}] + ([base("COPY_SCALE", "LOCAL", "LOCAL", j, "tgt")] if j == 3 else []),
              parent="root")
    # Stacks: several constraints in order, and owners targeting other owners (evaluation order).
    owner("stack0", [base("COPY_ROTATION", "LOCAL", "LOCAL", 1, "tgt", mix_mode="ADD"),
                     base("COPY_LOCATION", "WORLD", "WORLD", 2, "tgt_child", head_tail=0.5),
                     {"name": "LimRot", "type": "LIMIT_ROTATION", "owner_space": "LOCAL", "use_limit_y": True, "min_y": -0.2,
                      "max_y": 0.2}])
    owner("stack1", [base("COPY_TRANSFORMS", "LOCAL", "LOCAL_OWNER_ORIENT", 1, "stack0"),
                     base("DAMPED_TRACK", "WORLD", "WORLD", 0, "loc0", head_tail=1.0)], parent="arm")
    owner("conn0", [base("COPY_LOCATION", "WORLD", "WORLD", 0, "tgt"), base("COPY_ROTATION", "POSE", "POSE", 2, "tgt_child")],
          parent="fore", connect=True)
    owner("spc0", [base("COPY_TRANSFORMS", "CUSTOM", "CUSTOM", 1, "tgt", space_object=True, space_subtarget="spaceb")])
    owner("muted", [base("COPY_LOCATION", "WORLD", "WORLD", 0, "tgt", mute=True)])
    # MPFB's Rigify helper pattern: COPY_TRANSFORMS 0.5 + TRANSFORM rotations.
    owner("helper", [{"head_tail": 0.0, "influence": 0.5, "mix_mode": "REPLACE", "name": "Copy", "owner_space": "LOCAL",
                      "remove_target_shear": False, "subtarget": "fore", "target": True,
                      "target_space": "LOCAL_OWNER_ORIENT", "type": "COPY_TRANSFORMS", "use_bbone_shape": False},
                     {"map_from": "ROTATION", "map_to": "ROTATION", "mix_mode": "ADD", "mix_mode_rot": "ADD",
                      "mix_mode_scale": "REPLACE", "name": "SideRot", "owner_space": "LOCAL", "subtarget": "fore",
                      "target": True, "target_space": "LOCAL_OWNER_ORIENT", "to_euler_order": "ZYX", "type": "TRANSFORM",
                      "from_rotation_mode": "SWING_TWIST_Y", "from_max_x_rot": 1.5707963705062866,
                      "to_max_z_rot": -0.5, "to_min_z_rot": 0.0}], parent="root", rotation_mode="QUATERNION")
    return {"bones": bones, "collections": [], "is_subrig": False, "version": 110}, cases


def add_bendy_targets(bones):
    """The bendy bones the B-Bone cases follow: `bt` (6 segments between a plain connected parent
    and child: AUTO handles; ease, roll, curve and scale settings), `bh` (4 segments; ABSOLUTE and
    TANGENT custom handle bones `h1`, `h2`, handle ease and scale), `bs` (8 segments, its end handle
    the bendy `bs2`) and `bs2` (5 segments, its start handle the bendy `bs`), under `root`."""
    bones["root"] = bone_entry((0, 0, 0), (0, 0.2, 0.05), 0.0)
    bones["pa"] = bone_entry((-0.3, 0.2, 0.2), (-0.35, 0.1, 0.45), 0.2, parent="root", rotation_mode="XYZ")
    bones["bt"] = bone_entry((-0.35, 0.1, 0.45), (-0.2, -0.1, 0.75), 0.4, parent="pa", connect=True, rotation_mode="XYZ",
                             bendy_bone={"segments": 6, "easein": 1.3, "easeout": 0.7, "rollin": 0.2, "rollout": -0.3,
                                         "curveinx": 0.03, "curveoutz": -0.02, "scalein": [1.1, 1.2, 0.9],
                                         "scaleout": [0.9, 0.8, 1.2]})
    bones["bc"] = bone_entry((-0.2, -0.1, 0.75), (-0.1, -0.3, 0.85), -0.5, parent="bt", connect=True, rotation_mode="ZXY")
    bones["h1"] = bone_entry((0.3, 0.4, 0.1), (0.35, 0.5, 0.25), 0.3, parent="root", rotation_mode="YXZ")
    bones["h2"] = bone_entry((0.6, 0.3, 0.5), (0.7, 0.35, 0.6), -0.8, parent="root", rotation_mode="XYZ")
    bones["bh"] = bone_entry((0.35, 0.45, 0.3), (0.55, 0.3, 0.5), -0.2, parent="root", rotation_mode="QUATERNION",
                             bendy_bone={"segments": 4, "handle_type_start": "ABSOLUTE", "handle_type_end": "TANGENT",
                                         "custom_handle_start": "h1", "custom_handle_end": "h2", "easein": 1.6,
                                         "easeout": 0.5, "handle_use_ease_start": True,
                                         "handle_use_scale_end": [True, False, True]})
    bones["bs"] = bone_entry((0.0, -0.4, 0.2), (0.05, -0.35, 0.5), 1.0, parent="root", rotation_mode="YZX",
                             bendy_bone={"segments": 8, "easein": 0.8, "curveinz": 0.04})
    bones["bs2"] = bone_entry((0.05, -0.35, 0.5), (0.2, -0.3, 0.65), 0.0, parent="bs", connect=True, rotation_mode="XYZ",
                              bendy_bone={"segments": 5, "rollin": -0.4, "easeout": 1.4})


def bbone_shape_rig(rng):
    """Bendy target bones (AUTO handles from a plain parent and child, custom handles, a bendy
    neighbour, rest curve settings) and owners following their curves with use_bbone_shape."""
    bones = {}
    owners = []

    def owner(name, constraints, parent="root"):
        h = [round(x, 4) for x in (rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), rng.uniform(0.0, 1.0))]
        d = [round(x, 4) for x in (rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2), rng.uniform(0.05, 0.3))]
        t = [h[k] + d[k] for k in range(3)]
        owners.append((name, bone_entry(h, t, round(rng.uniform(-math.pi, math.pi), 4), parent=parent,
                                        rotation_mode=rng.choice(EULER + ("QUATERNION",)), constraints=constraints)))

    def con(ctype, target, head_tail, own="WORLD", tar="WORLD", influence=1.0, **extra):
        c = {"name": ctype.title(), "type": ctype, "target": True, "subtarget": target, "owner_space": own,
             "target_space": tar, "head_tail": head_tail, "use_bbone_shape": True}
        if influence != 1.0:
            c["influence"] = influence
        c.update(extra)
        return c

    # Owners before the targets in the file: the curve's handle bones must be evaluated first.
    owner("early0", [con("COPY_LOCATION", "bt", 0.5)])
    owner("early1", [con("COPY_TRANSFORMS", "bt", 0.0)])
    add_bendy_targets(bones)
    cases = [
        ("COPY_LOCATION", [0.3, 0.55, 1.0, 0.8]),
        ("COPY_TRANSFORMS", [0.0, 0.4, 0.85, 1.0]),
        ("DAMPED_TRACK", [0.25, 0.7]),
        ("STRETCH_TO", [0.5, 1.0]),
    ]
    spaces = [("WORLD", "WORLD"), ("WORLD", "LOCAL"), ("LOCAL", "LOCAL_OWNER_ORIENT"), ("POSE", "LOCAL_WITH_PARENT"),
              ("LOCAL", "LOCAL"), ("WORLD", "POSE")]
    mixes = ("REPLACE", "BEFORE_FULL", "AFTER", "AFTER_FULL", "BEFORE_SPLIT")
    k = 0
    for target in ("bt", "bh", "bs", "bs2"):
        for ctype, head_tails in cases:
            for ht in head_tails:
                own, tar = spaces[k % len(spaces)]
                if ctype in ("DAMPED_TRACK", "STRETCH_TO"):
                    own, tar = "WORLD", ("WORLD", "POSE")[k % 2]  # tracking needs the owner's head apart from the point
                extra = {}
                if ctype == "COPY_TRANSFORMS":
                    extra = {"mix_mode": mixes[k % len(mixes)], "remove_target_shear": k % 3 == 1}
                elif ctype == "DAMPED_TRACK":
                    extra = {"track_axis": ("TRACK_Y", "TRACK_NEGATIVE_Z", "TRACK_X")[k % 3]}
                elif ctype == "STRETCH_TO":
                    extra = {"volume": ("VOLUME_XZX", "NO_VOLUME")[k % 2], "keep_axis": ("PLANE_X", "SWING_Y", "PLANE_Z")[k % 3]}
                elif ctype == "COPY_LOCATION":
                    extra = {"use_offset": k % 5 == 3}
                owner(f"{ctype.lower()[:4]}_{target}_{k}",
                      [con(ctype, target, ht, own, tar, influence=(1.0, 1.0, 0.6)[k % 3], **extra)],
                      parent=("root", "pa", "h1")[k % 3])
                k += 1
    # A stack: a point on one curve, then the whole transform of another.
    owner("stack0", [con("COPY_LOCATION", "bs", 0.6), con("COPY_TRANSFORMS", "bh", 0.3, "LOCAL", "LOCAL", 0.5,
                                                         mix_mode="AFTER")])
    rig_bones = dict(owners[:2])
    rig_bones.update(bones)
    rig_bones.update(owners[2:])
    return {"bones": rig_bones, "collections": [], "is_subrig": False, "version": 110}


def armature_bbone_rig(rng):
    """ARMATURE constraints whose targets are bendy bones: the targets of add_bendy_targets and `b3`
    (3 segments), owners with their rest heads along a target (before its head, along it, past its
    tail, off its axis), one target or two (a bendy and a plain bone, two bendy bones), linear and
    use_deform_preserve_volume, some with use_current_location or an influence below 1."""
    bones = {}
    owners = []
    add_bendy_targets(bones)
    bones["b3"] = bone_entry((0.2, -0.1, 0.9), (0.45, 0.05, 1.05), 0.7, parent="root", rotation_mode="ZYX",
                             bendy_bone={"segments": 3, "easein": 1.2, "easeout": 0.9, "rollout": 0.3, "curveoutx": 0.03})

    def owner(name, targets, dq, current=False, influence=1.0, parent="root"):
        h0 = bones[targets[0][0]]["head"]["default_position"]
        t0 = bones[targets[0][0]]["tail"]["default_position"]
        f = rng.uniform(-0.15, 1.15)
        h = [round(h0[k] + f * (t0[k] - h0[k]) + rng.uniform(-0.08, 0.08), 4) for k in range(3)]
        d = [round(x, 4) for x in (rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1), rng.uniform(0.05, 0.15))]
        c = {"name": "Armature", "type": "ARMATURE",
             "targets": [{"subtarget": n, "weight": w} for n, w in targets],
             "use_deform_preserve_volume": dq, "use_bone_envelopes": False, "use_current_location": current}
        if influence != 1.0:
            c["influence"] = influence
        owners.append((name, bone_entry(h, [h[k] + d[k] for k in range(3)], round(rng.uniform(-math.pi, math.pi), 4),
                                        parent=parent, rotation_mode=rng.choice(EULER + ("QUATERNION",)),
                                        constraints=[c])))

    # Before its target in the file: the target and its handles must be evaluated first.
    owner("early", [("bt", 1.0)], False)
    k = 0
    for target in ("bt", "bh", "bs", "bs2", "b3"):
        for dq in (False, True):
            for j in range(3):
                owner(f"one_{target}_{'dq' if dq else 'lin'}{j}", [(target, round(rng.uniform(0.3, 1.0), 3))], dq,
                      parent=("root", "pa", "h1")[k % 3])
                k += 1
    for first, second in (("bt", "pa"), ("bs", "bs2"), ("bh", "b3"), ("b3", "h1")):
        for dq in (False, True):
            for j in range(2):
                w = round(rng.uniform(0.2, 0.8), 3)
                owner(f"two_{first}_{second}_{'dq' if dq else 'lin'}{j}", [(first, w), (second, round(1.0 - w + 0.1 * j, 3))],
                      dq, parent=("root", "pa", "h1")[k % 3])
                k += 1
    for dq in (False, True):
        owner(f"current_{'dq' if dq else 'lin'}", [("bs", 1.0)], dq, current=True, parent="pa")
        owner(f"influence_{'dq' if dq else 'lin'}", [("bh", 0.7), ("bt", 0.3)], dq, influence=0.6)
    rig_bones = dict(owners[:1])
    rig_bones.update(bones)
    rig_bones.update(owners[1:])
    return {"bones": rig_bones, "collections": [], "is_subrig": False, "version": 110}


# ---- Building and posing in Blender ----------------------------------------------------------

def build_armature(bones, rests):
    """`rests`: {name: (head, tail, roll)}; `bones`: rig JSON entries (parents, flags, constraints)."""
    arm = bpy.data.armatures.new("reference")
    ob = bpy.data.objects.new("reference", arm)
    bpy.context.scene.collection.objects.link(ob)
    bpy.context.view_layer.objects.active = ob
    bpy.ops.object.mode_set(mode="EDIT")
    for name in bones:
        eb = arm.edit_bones.new(name)
        head, tail, roll = rests[name]
        eb.head = head
        eb.tail = tail
        eb.roll = roll
    for name, b in bones.items():
        eb = arm.edit_bones[name]
        if b["parent"]:
            eb.parent = arm.edit_bones[b["parent"]]
            eb.use_connect = b["use_connect"]
        eb.use_local_location = b["use_local_location"]
        eb.use_inherit_rotation = b["use_inherit_rotation"]
        eb.inherit_scale = b["inherit_scale"]
        for key, value in b.get("bendy_bone", {}).items():
            if key.startswith("custom_handle_"):
                value = arm.edit_bones[value] if value else None
            setattr(eb, "bbone_" + key, value)
    bpy.ops.object.mode_set(mode="POSE")
    for name, b in bones.items():
        pb = ob.pose.bones[name]
        pb.rotation_mode = b.get("rotation_mode", "QUATERNION")
        for info in b.get("constraints", []):
            add_constraint(ob, pb, info)
    return ob


def add_constraint(ob, pb, info):
    con = pb.constraints.new(info["type"])
    con.name = info.get("name", con.name)
    if info["type"] == "ARMATURE":
        for t in info.get("targets", []):
            tgt = con.targets.new()
            tgt.target = ob
            tgt.subtarget = t["subtarget"]
            tgt.weight = t["weight"]
    elif info.get("target") is True:
        con.target = ob
    if info.get("space_object") is True:
        con.space_object = ob
    for key, value in info.items():
        if key in ("type", "name", "targets", "target", "space_object"):
            continue
        setattr(con, key, value)
    if info["type"] == "CHILD_OF":
        con.set_inverse_pending = True


def set_channels(ob, channels):
    for pb in ob.pose.bones:
        pb.location = (0, 0, 0)
        pb.rotation_quaternion = (1, 0, 0, 0)
        pb.rotation_euler = (0, 0, 0)
        pb.rotation_axis_angle = (0, 0, 1, 0)
        pb.scale = (1, 1, 1)
        for key in BBONE_CHANNELS:
            setattr(pb, "bbone_" + key, (1, 1, 1) if key.startswith("scale") else 0.0)
    for name, ch in channels.items():
        pb = ob.pose.bones[name]
        pb.rotation_mode = ch["mode"]
        if ch["mode"] == "QUATERNION":
            pb.rotation_quaternion = ch["rotation"]
        else:
            pb.rotation_euler = ch["rotation"]
        pb.location = ch.get("location", (0, 0, 0))
        pb.scale = ch.get("scale", (1, 1, 1))
        for key, value in ch.get("bbone", {}).items():
            setattr(pb, "bbone_" + key, value)


def evaluated_matrices(ob, names):
    bpy.context.view_layer.update()
    dg = bpy.context.evaluated_depsgraph_get()
    ev = ob.evaluated_get(dg)
    out = []
    for n in names:
        m = ev.pose.bones[n].matrix
        out.append([float("%.8g" % m[r][c]) for r in range(3) for c in range(4)])
    return out


def random_bbone_channels(rng):
    """PoseBone.bbone_* channels that bend, roll, ease and scale a curve."""
    ch = {k: round(rng.uniform(-0.05, 0.05), 4) for k in ("curveinx", "curveinz", "curveoutx", "curveoutz")}
    ch.update({k: round(rng.uniform(-0.5, 0.5), 4) for k in ("rollin", "rollout", "easein", "easeout")})
    ch.update({k: [round(rng.uniform(0.8, 1.25), 4) for _ in range(3)] for k in ("scalein", "scaleout")})
    return ch


def random_channels(rng, names, modes, max_angle, with_loc_scale):
    ch = {}
    a = math.radians(max_angle)
    for n in names:
        mode = modes.get(n, "QUATERNION")
        if mode == "AXIS_ANGLE":
            mode = "QUATERNION"
        if mode == "QUATERNION":
            ax = [rng.gauss(0, 1) for _ in range(3)]
            ln = math.sqrt(sum(x * x for x in ax)) or 1.0
            ang = rng.uniform(-a, a)
            s = math.sin(ang / 2)
            rot = [round(math.cos(ang / 2), 6)] + [round(s * x / ln, 6) for x in ax]
        else:
            rot = [round(rng.uniform(-a, a), 5) for _ in range(3)]
        c = {"mode": mode, "rotation": rot}
        if with_loc_scale:
            c["location"] = [round(rng.uniform(-0.05, 0.05), 5) for _ in range(3)]
            c["scale"] = [round(rng.uniform(0.8, 1.25), 4) for _ in range(3)]
        ch[n] = c
    return ch


def main():
    args = parse_args()
    rng = random.Random(args.seed)
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    golden = {"blender": bpy.app.version_string.split()[0]}
    generated = args.synthetic or args.bbone_shape or args.armature_bbone
    if generated:
        if args.synthetic:
            rig = synthetic_rig(rng)[0]
        elif args.bbone_shape:
            rig = bbone_shape_rig(rng)
        else:
            rig = armature_bbone_rig(rng)
        bones = rig["bones"]
        rests = {n: (b["head"]["default_position"], b["tail"]["default_position"], b["roll"]) for n, b in bones.items()}
        golden["rig"] = rig
    else:
        with open(args.rig) as f:
            rig = json.load(f)
        bones = rig["bones"]
        with open(args.skeleton) as f:
            sk = json.load(f)
        rests = {b["name"]: (b["head"], b["tail"], b["roll"]) for b in sk["bones"]}
        missing = [n for n in bones if n not in rests]
        if missing:
            raise SystemExit(f"skeleton lacks {missing[:5]}")
        golden["rig_file"] = args.rig_name or "/".join(args.rig.split(os.sep)[-2:])
    ob = build_armature(bones, rests)
    names = list(bones)
    golden["bones"] = names
    modes = {n: b.get("rotation_mode", "QUATERNION") for n, b in bones.items()}
    # Bind at rest first (CHILD_OF inverses, STRETCH_TO rest lengths), as MPFB's creation does.
    set_channels(ob, {})
    evaluated_matrices(ob, names)
    # Read the rest pose on a second evaluation, after binding (a filtered CHILD_OF differs).
    set_channels(ob, {})
    ob.update_tag()
    golden["poses"] = [{"name": "rest", "channels": {}, "matrices": evaluated_matrices(ob, names)}]
    for p in range(args.poses):
        ch = random_channels(rng, names, modes, args.max_angle, with_loc_scale=generated or p % 2 == 1)
        if args.bbone_shape or args.armature_bbone:
            for n, b in bones.items():
                if b.get("bendy_bone", {}).get("segments", 1) > 1:
                    ch[n]["bbone"] = random_bbone_channels(rng)
        set_channels(ob, ch)
        golden["poses"].append({"name": f"random{p}", "channels": ch, "matrices": evaluated_matrices(ob, names)})
    for path in args.pose_file:
        with open(path) as f:
            pose = json.load(f)
        ch = {}
        for n, r in pose.get("bone_rotations", {}).items():
            if n in bones:
                mode = pose.get("bone_rotation_modes", {}).get(n, "QUATERNION" if len(r) == 4 else "XYZ")
                ch[n] = {"mode": mode, "rotation": r}
        set_channels(ob, ch)
        golden["poses"].append({"name": os.path.basename(path), "channels": ch, "matrices": evaluated_matrices(ob, names)})
    os.makedirs(os.path.dirname(os.path.abspath(args.golden)), exist_ok=True)
    with open(args.golden, "w") as f:
        json.dump(golden, f, separators=(",", ":"))
        f.write("\n")
    log("wrote", args.golden, len(names), "bones,", len(golden["poses"]), "poses")


main()
