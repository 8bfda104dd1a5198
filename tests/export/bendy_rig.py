#!/usr/bin/env python3
"""Writes the game_engine rig with B-Bone settings added to a few bones (the `bendy` entries of
tests/golden/bbones/character/game_engine.bendy.json): python3 bendy_rig.py DATA SRC OUT.json"""
import json
import sys

data, src, out = sys.argv[1:4]
with open(f"{data}/rigs/standard/rig.game_engine.json") as f:
    rig = json.load(f)
with open(f"{src}/tests/golden/bbones/character/game_engine.bendy.json") as f:
    bendy = json.load(f)["bendy"]
for bone, entry in bendy.items():
    rig[bone]["bendy_bone"] = entry
with open(out, "w") as f:
    json.dump(rig, f, indent=4, sort_keys=True)
