"""Blender's Euler rotation matrices, for rigfit's exactness test.

Run inside Blender (tested with 3.4.1):

    blender -b --factory-startup --python tools/blender/euler_reference.py -- \
        --out tests/golden/pose/euler_matrices.json [--count 200] [--seed 3]

For each Euler order and `count` angle triples, writes mathutils.Euler(angles, order).to_matrix():
the matrix a pose bone's Euler channel becomes (the same eulO_to_mat3 as BKE_pchan_rot_to_mat3).
Angles are float32 values, as Blender stores them: random ones in [-3.2, 3.2] and [-0.5, 0.5],
signed zeros, multiples of pi/2 and tiny ones. The file:

    {"blender": "3.4.1", "cases": [["XYZ", [ax, ay, az], [m00, m01, m02, m10, ..., m22]], ...]}

(rows of the matrix, row-major; every number the Python repr of a float32.)
"""
import argparse
import json
import math
import random
import struct
import sys

import bpy
import mathutils


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def some_angle(rng):
    kind = rng.randrange(8)
    if kind == 0:
        return 0.0
    if kind == 1:
        return -0.0
    if kind == 2:
        return rng.choice([-2, -1, 1, 2]) * math.pi / 2
    if kind == 3:
        return rng.uniform(-1e-6, 1e-6)
    if kind == 4:
        return rng.uniform(-0.5, 0.5)
    return rng.uniform(-3.2, 3.2)


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    cases = []
    for order in ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"):
        for _ in range(args.count):
            angles = [f32(some_angle(rng)) for _ in range(3)]
            m = mathutils.Euler(angles, order).to_matrix()
            cases.append([order, angles, [m[r][c] for r in range(3) for c in range(3)]])
    version = ".".join(str(v) for v in bpy.app.version)
    with open(args.out, "w") as f:
        f.write('{"blender": "%s", "cases": [\n' % version)
        f.write(",\n".join(json.dumps(c) for c in cases))
        f.write("\n]}\n")


main()
