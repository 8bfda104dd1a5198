#!/usr/bin/env python3
"""Renames the groups of MPFB's game_engine weights to the bones of another rig (default or
rigify.human), for deform-only exports of rigs whose own weights are not in the data folder.

    map_weights.py DATA {default|rigify} OUT.json

Each game_engine bone goes to the bone of the same body part; bones left without a group (the
default rig's metacarpals, spine04/spine02, face bones; Rigify's palms, spine.005, face) become
non-deforming, so a deform-only export has to re-parent across them."""
import json
import re
import sys

SIDES = {"l": "L", "r": "R"}
FINGERS = {"default": {"thumb": "finger1", "index": "finger2", "middle": "finger3", "ring": "finger4", "pinky": "finger5"},
           "rigify": {"thumb": "thumb", "index": "f_index", "middle": "f_middle", "ring": "f_ring", "pinky": "f_pinky"}}
CENTRE = {"default": {"pelvis": "root", "spine_01": "spine05", "spine_02": "spine03", "spine_03": "spine01",
                      "neck_01": "neck01", "head": "head"},
          "rigify": {"pelvis": "spine", "spine_01": "spine.001", "spine_02": "spine.002", "spine_03": "spine.003",
                     "neck_01": "spine.004", "head": "spine.006"}}
LIMBS = {"default": {"clavicle": "clavicle", "upperarm": "upperarm01", "lowerarm": "lowerarm01", "hand": "wrist",
                     "thigh": "upperleg01", "calf": "lowerleg01", "foot": "foot", "ball": "toe1-1"},
         "rigify": {"clavicle": "shoulder", "upperarm": "upper_arm", "lowerarm": "forearm", "hand": "hand",
                    "thigh": "thigh", "calf": "shin", "foot": "foot", "ball": "toe"}}


def target(name, rig):
    if name in CENTRE[rig]:
        return CENTRE[rig][name]
    m = re.fullmatch(r"(thumb|index|middle|ring|pinky)_0(\d)_([lr])", name)
    if m:
        finger = FINGERS[rig][m.group(1)]
        sep = "-" if rig == "default" else "."
        number = m.group(2) if rig == "default" else "0" + m.group(2)
        return f"{finger}{sep}{number}.{SIDES[m.group(3)]}"
    m = re.fullmatch(r"([a-z]+)_([lr])", name)
    if m and m.group(1) in LIMBS[rig]:
        return f"{LIMBS[rig][m.group(1)]}.{SIDES[m.group(2)]}"
    raise SystemExit(f"map_weights.py: no {rig} bone for game_engine group {name!r}")


def main():
    data, rig, out = sys.argv[1:4]
    with open(f"{data}/rigs/standard/weights.game_engine.json", encoding="utf-8") as f:
        weights = json.load(f)
    # Root carries no weight in game_engine; it has no counterpart.
    weights["weights"] = {target(g, rig): pairs for g, pairs in weights["weights"].items() if g != "Root"}
    weights["name"] = f"game_engine weights renamed for {rig} (test data)"
    with open(out, "w", encoding="utf-8") as f:
        json.dump(weights, f, indent=4, sort_keys=True)


main()
