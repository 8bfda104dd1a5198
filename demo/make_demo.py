#!/usr/bin/env python3
"""Generate the rigfit demo character (CC0) as a miniature MPFB data folder.

Usage:  python3 demo/make_demo.py OUTPUT_DIR

The build runs it with OUTPUT_DIR = <build>/demo/character.  The output is fully
deterministic (standard library only, no randomness, fixed float formatting).

Written files (relative to OUTPUT_DIR):
  body.obj             body mesh + joint cubes (MakeHuman OBJ frame)
  vertex_groups.json   vertex group index ranges (MPFB's format)
  rig.demo.json        MPFB version 110 rig
  weights.demo.json    MPFB weights for that rig
(the build compiles them into rigfit as a data folder in MPFB's layout: see CMakeLists.txt)

Frames:
  OBJ (MakeHuman): Y up, decimetres, character faces +Z, +X is the character's left.
  Blender (MPFB):  blender = (0.1*x, -0.1*z, 0.1*y): metres, Z up, faces -Y.
"""

import json
import math
import os
import sys

SIDES = 8            # vertices per ring of every limb / trunk tube
CUBE_HALF = 0.1      # joint cubes have an edge of 0.2 dm
SCALE_FACTOR = 0.10000000149011612  # float32(0.1), as in MPFB rig files


# ---------------------------------------------------------------------------
# small vector helpers
# ---------------------------------------------------------------------------

def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def mul(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0])


def norm(a):
    return math.sqrt(dot(a, a))


def unit(a):
    n = norm(a)
    return (a[0] / n, a[1] / n, a[2] / n)


def lerp(a, b, t):
    return add(a, mul(sub(b, a), t))


def fmt(x):
    """Fixed 6-decimal float text without negative zero."""
    s = "%.6f" % x
    if s == "-0.000000":
        s = "0.000000"
    return s


def quantize(p):
    """Round a point exactly as it is written to the OBJ file."""
    return tuple(float(fmt(c)) for c in p)


def to_blender(p):
    """MPFB's conversion of MakeHuman OBJ coordinates to Blender ones."""
    return (0.1 * p[0], -0.1 * p[2], 0.1 * p[1])


def r5(x):
    v = round(x, 5)
    return 0.0 if v == 0 else v


# ---------------------------------------------------------------------------
# skeleton joints (OBJ frame, decimetres)
# ---------------------------------------------------------------------------

def mirror(p):
    return (-p[0], p[1], p[2])


def build_joints():
    j = {}
    j["joint-ground"] = (0.0, -8.1, 0.0)
    j["joint-pelvis"] = (0.0, 0.5, 0.0)
    j["joint-spine-3"] = (0.0, 1.8, -0.1)
    j["joint-spine-2"] = (0.0, 3.2, -0.2)
    j["joint-spine-1"] = (0.0, 4.5, -0.2)
    j["joint-neck"] = (0.0, 5.8, -0.2)
    j["joint-head"] = (0.0, 6.9, -0.1)
    j["joint-head-2"] = (0.0, 8.8, 0.0)
    left = {
        # arms hang in an A-pose, about 45 degrees below horizontal
        "shoulder": (1.8, 5.2, -0.2),
        "elbow": (3.92, 3.08, -0.35),
        "hand": (5.76, 1.24, -0.1),
        "hand-2": (6.96, 0.04, 0.0),
        "upper-leg": (0.9, 0.0, 0.0),
        "knee": (0.9, -3.9, 0.15),
        "ankle": (0.9, -7.4, -0.1),
        "foot-1": (0.9, -7.75, 1.1),
    }
    for name in ("shoulder", "elbow", "hand", "hand-2",
                 "upper-leg", "knee", "ankle", "foot-1"):
        j["joint-l-" + name] = left[name]
        j["joint-r-" + name] = mirror(left[name])
    return j


JOINT_ORDER = (
    ["joint-ground", "joint-pelvis", "joint-spine-1", "joint-spine-2",
     "joint-spine-3", "joint-neck", "joint-head", "joint-head-2"]
    + ["joint-%s-%s" % (s, n) for s in ("l", "r")
       for n in ("shoulder", "elbow", "hand", "hand-2",
                 "upper-leg", "knee", "ankle", "foot-1")]
)


# ---------------------------------------------------------------------------
# mesh builder
# ---------------------------------------------------------------------------

class Mesh:
    def __init__(self):
        self.verts = []      # quantized OBJ positions
        self.uvs = []        # (u, v)
        self.groups = []     # (group name, [faces]); face = [(vi, ti)] * 4 (0-based)
        self.parts = {}      # body part name -> (first vertex, last vertex)
        self.marks = {}      # named vertices used by the rig

    def add_vert(self, p):
        self.verts.append(quantize(p))
        return len(self.verts) - 1

    def add_uv(self, u, v):
        self.uvs.append((u, v))
        return len(self.uvs) - 1

    def group(self, name):
        if not self.groups or self.groups[-1][0] != name:
            self.groups.append((name, []))
        return self.groups[-1][1]


def uv_tile(index):
    """Each body part gets one 0.25 x 0.25 tile of a 4 x 4 UV atlas."""
    return (0.25 * (index % 4), 0.25 * (index // 4))


def ring_frame(d, fixed=None):
    """Right-handed (u, v) with u x v == d, for the ring perpendicular to d."""
    if fixed is not None:
        return fixed
    ref = (0.0, 0.0, 1.0) if abs(d[2]) < 0.9 else (0.0, 1.0, 0.0)
    u = unit(cross(ref, d))
    v = cross(d, u)
    return u, v


def add_tube(mesh, part, tile, rings, start_cap="flat", end_cap="flat",
             start_apex=None, end_apex=None, frame=None):
    """A closed low-poly tube through `rings` = [(centre, rx, ry), ...].

    Caps are 'flat' (an octagon split into 3 quads) or 'apex' (4 quads that
    meet at an extra apex vertex).  All faces are quads, wound so that
    normals point outwards.
    """
    faces = mesh.group("body")
    first = len(mesh.verts)
    centres = [r[0] for r in rings]
    n = len(rings)
    ring_idx = []
    for i, (c, rx, ry) in enumerate(rings):
        if frame is not None:
            u, v = frame
        else:
            a = centres[max(i - 1, 0)]
            b = centres[min(i + 1, n - 1)]
            u, v = ring_frame(unit(sub(b, a)))
        idx = []
        for k in range(SIDES):
            ang = 2.0 * math.pi * k / SIDES
            p = add(c, add(mul(u, rx * math.cos(ang)), mul(v, ry * math.sin(ang))))
            idx.append(mesh.add_vert(p))
        ring_idx.append(idx)
    apex_s = mesh.add_vert(start_apex) if start_cap == "apex" else None
    apex_e = mesh.add_vert(end_apex) if end_cap == "apex" else None
    mesh.parts[part] = (first, len(mesh.verts) - 1)

    # UVs: cylinder in the lower part of the tile, two cap discs on top
    x0, y0 = uv_tile(tile)
    side_uv = [[mesh.add_uv(x0 + 0.01 + 0.23 * k / SIDES,
                            y0 + 0.01 + 0.16 * i / (n - 1))
                for k in range(SIDES + 1)] for i in range(n)]

    def disc(cx):
        uv = [mesh.add_uv(cx + 0.035 * math.cos(2.0 * math.pi * k / SIDES),
                          y0 + 0.21 + 0.035 * math.sin(2.0 * math.pi * k / SIDES))
              for k in range(SIDES)]
        centre = mesh.add_uv(cx, y0 + 0.21)
        return uv, centre

    cap_s_uv, cap_s_c = disc(x0 + 0.0625)
    cap_e_uv, cap_e_c = disc(x0 + 0.1875)

    for i in range(n - 1):
        for k in range(SIDES):
            k1 = (k + 1) % SIDES
            faces.append([(ring_idx[i][k], side_uv[i][k]),
                          (ring_idx[i][k1], side_uv[i][k + 1]),
                          (ring_idx[i + 1][k1], side_uv[i + 1][k + 1]),
                          (ring_idx[i + 1][k], side_uv[i + 1][k])])

    def cap(ring, uv, centre_uv, kind, apex, outward_is_d):
        if kind == "flat":
            quads = [(0, 1, 2, 3), (0, 3, 4, 7), (4, 5, 6, 7)]
            for q in quads:
                f = [(ring[k], uv[k]) for k in q]
                faces.append(f if outward_is_d else f[::-1])
        elif kind == "apex":
            for k in range(0, SIDES, 2):
                ks = (k, (k + 1) % SIDES, (k + 2) % SIDES)
                f = [(ring[q], uv[q]) for q in ks] + [(apex, centre_uv)]
                faces.append(f if outward_is_d else f[::-1])

    cap(ring_idx[0], cap_s_uv, cap_s_c, start_cap, apex_s, False)
    cap(ring_idx[-1], cap_e_uv, cap_e_c, end_cap, apex_e, True)
    return ring_idx, apex_s, apex_e


def add_cube(mesh, name, centre, cube_uv):
    faces = mesh.group(name)
    h = CUBE_HALF
    idx = []
    for sx in (-h, h):
        for sy in (-h, h):
            for sz in (-h, h):
                idx.append(mesh.add_vert(add(centre, (sx, sy, sz))))
    # vertex i = 4*x + 2*y + z (0 = negative side); quads wound outwards
    quads = [(0, 1, 3, 2),   # -X
             (4, 6, 7, 5),   # +X
             (0, 4, 5, 1),   # -Y
             (2, 3, 7, 6),   # +Y
             (0, 2, 6, 4),   # -Z
             (1, 5, 7, 3)]   # +Z
    for q in quads:
        faces.append([(idx[k], cube_uv[n]) for n, k in enumerate(q)])
    return idx


def build_mesh(j):
    m = Mesh()

    # --- trunk ------------------------------------------------------------
    add_tube(m, "torso", 0, [
        ((0.0, -0.7, 0.0), 1.35, 0.85),
        ((0.0, 0.5, 0.0), 1.55, 0.95),
        ((0.0, 1.8, -0.1), 1.35, 0.85),
        ((0.0, 3.2, -0.15), 1.45, 0.95),
        ((0.0, 4.5, -0.15), 1.65, 1.0),
        ((0.0, 5.4, -0.2), 1.55, 0.85),
        ((0.0, 5.95, -0.2), 0.7, 0.55),
    ])
    add_tube(m, "neck", 1, [
        ((0.0, 5.5, -0.2), 0.42, 0.42),
        ((0.0, 6.3, -0.15), 0.38, 0.38),
        ((0.0, 7.1, -0.1), 0.42, 0.42),
    ])
    _, _, top = add_tube(m, "head", 2, [
        ((0.0, 6.7, 0.0), 0.55, 0.6),
        ((0.0, 7.3, 0.05), 0.85, 0.95),
        ((0.0, 8.1, 0.0), 0.95, 1.05),
        ((0.0, 8.75, -0.05), 0.75, 0.85),
    ], end_cap="apex", end_apex=(0.0, 9.1, 0.0))
    m.marks["head-top"] = top

    # --- limbs, left side first, then the right side (x mirrored) ---------
    tile = 3
    for s in ("l", "r"):
        sh, el = j["joint-%s-shoulder" % s], j["joint-%s-elbow" % s]
        wr, tip = j["joint-%s-hand" % s], j["joint-%s-hand-2" % s]
        d = unit(sub(el, sh))
        add_tube(m, "upperarm." + s, tile, [
            (sub(sh, mul(d, 0.35)), 0.5, 0.5),
            (sh, 0.5, 0.5),
            (lerp(sh, el, 0.5), 0.42, 0.44),
            (add(el, mul(d, 0.2)), 0.36, 0.37),
        ])
        d = unit(sub(wr, el))
        add_tube(m, "forearm." + s, tile + 1, [
            (sub(el, mul(d, 0.2)), 0.37, 0.38),
            (lerp(el, wr, 0.35), 0.36, 0.38),
            (wr, 0.26, 0.3),
            (add(wr, mul(d, 0.1)), 0.25, 0.29),
        ])
        d = unit(sub(tip, wr))
        add_tube(m, "hand." + s, tile + 2, [
            (sub(wr, mul(d, 0.1)), 0.2, 0.34),
            (lerp(wr, tip, 0.45), 0.2, 0.42),
            (tip, 0.2, 0.32),
            (add(tip, mul(d, 0.2)), 0.17, 0.24),
        ])
        tile += 3
    for s in ("l", "r"):
        ul, kn = j["joint-%s-upper-leg" % s], j["joint-%s-knee" % s]
        an = j["joint-%s-ankle" % s]
        x = ul[0]
        d = unit(sub(kn, ul))
        add_tube(m, "thigh." + s, tile, [
            (add(ul, (0.0, 0.5, 0.0)), 0.7, 0.75),
            (ul, 0.72, 0.78),
            (lerp(ul, kn, 0.5), 0.6, 0.64),
            (add(kn, mul(d, 0.25)), 0.46, 0.48),
        ])
        d = unit(sub(an, kn))
        add_tube(m, "shin." + s, tile + 1, [
            (sub(kn, mul(d, 0.25)), 0.48, 0.5),
            (kn, 0.47, 0.49),
            (lerp(kn, an, 0.35), 0.45, 0.5),
            (add(an, mul(d, 0.2)), 0.3, 0.32),
        ])
        # the foot runs along +Z; rings lie in the XY plane, soles at y = -8
        rings, _, _ = add_tube(m, "foot." + s, tile + 2, [
            ((x, -7.6, -0.55), 0.38, 0.4),     # heel
            ((x, -7.55, -0.1), 0.42, 0.45),    # ankle
            ((x, -7.75, 1.1), 0.45, 0.25),     # ball of the foot
            ((x, -7.85, 1.9), 0.4, 0.15),      # toe tip
        ], frame=((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)))
        ball, toe = rings[2], rings[3]
        # ring vertex k sits at angle 45*k degrees: 0 = +X side, 2 = top,
        # 4 = -X side, 6 = sole
        m.marks["%s-ball-top" % s] = ball[2]
        m.marks["%s-ball-sole" % s] = ball[6]
        m.marks["%s-ball-side" % s] = ball[0]
        m.marks["%s-toe-outer" % s] = toe[0]
        m.marks["%s-toe-inner" % s] = toe[4]
        tile += 3

    body_count = len(m.verts)

    # --- joint cubes (one shared UV square in the last atlas tile) ---------
    x0, y0 = uv_tile(15)
    cube_uv = [m.add_uv(x0 + 0.02, y0 + 0.02), m.add_uv(x0 + 0.23, y0 + 0.02),
               m.add_uv(x0 + 0.23, y0 + 0.23), m.add_uv(x0 + 0.02, y0 + 0.23)]
    cubes = {}
    for name in JOINT_ORDER:
        cubes[name] = add_cube(m, name, j[name], cube_uv)
    return m, body_count, cubes


# ---------------------------------------------------------------------------
# writers
# ---------------------------------------------------------------------------

def write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(obj, f, indent=4, sort_keys=True)


def obj_text(m, body_count):
    out = ["# rigfit demo character (CC0)",
           "# MakeHuman OBJ frame: Y up, decimetres, facing +Z, +X = character's left",
           "# %d body vertices (0..%d), then %d joint cubes of 8 vertices"
           % (body_count, body_count - 1, (len(m.verts) - body_count) // 8),
           "# body parts (0-based vertex ranges): " + ", ".join(
               "%s %d-%d" % (k, v[0], v[1]) for k, v in m.parts.items())]
    for p in m.verts:
        out.append("v %s %s %s" % (fmt(p[0]), fmt(p[1]), fmt(p[2])))
    for uv in m.uvs:
        out.append("vt %s %s" % (fmt(uv[0]), fmt(uv[1])))
    for name, faces in m.groups:
        out.append("g " + name)
        for f in faces:
            out.append("f " + " ".join("%d/%d" % (vi + 1, ti + 1) for vi, ti in f))
    return "\n".join(out) + "\n"


def ranges(indices):
    """Sorted indices -> inclusive [start, end] runs."""
    res = []
    for i in indices:
        if res and res[-1][1] == i - 1:
            res[-1][1] = i
        else:
            res.append([i, i])
    return res


def vertex_groups(m, body_count, cubes):
    g = {"body": [[0, body_count - 1]],
         "JointCubes": [[body_count, len(m.verts) - 1]]}
    for name, idx in cubes.items():
        g[name] = [[idx[0], idx[-1]]]
    g["Left"] = ranges([i for i, p in enumerate(m.verts) if p[0] > 0.0001])
    g["Right"] = ranges([i for i, p in enumerate(m.verts) if p[0] < -0.0001])
    g["Mid"] = ranges([i for i, p in enumerate(m.verts) if -0.0001 <= p[0] <= 0.0001])
    return g


# ---------------------------------------------------------------------------
# rig
# ---------------------------------------------------------------------------

def cube(name):
    return {"strategy": "CUBE", "cube_name": name}


def vertex(i, offset=None):
    e = {"strategy": "VERTEX", "vertex_index": i}
    if offset is not None:
        e["offset"] = offset
    return e


def mean(*idx):
    return {"strategy": "MEAN", "vertex_indices": list(idx)}


def xyz(ix, iy, iz):
    return {"strategy": "XYZ", "vertex_indices": [ix, iy, iz]}


def evaluate(end, bverts, groups):
    """Position of a bone end on the Blender-frame mesh (MPFB semantics)."""
    s = end["strategy"]
    if s == "CUBE":
        start, stop = groups[end["cube_name"]][0]
        pts = bverts[start:stop + 1]
        p = tuple(sum(q[c] for q in pts) / len(pts) for c in range(3))
    elif s == "VERTEX":
        p = bverts[end["vertex_index"]]
    elif s == "MEAN":
        pts = [bverts[i] for i in end["vertex_indices"]]
        p = tuple(sum(q[c] for q in pts) / len(pts) for c in range(3))
    elif s == "XYZ":
        pts = [bverts[i] for i in end["vertex_indices"]]
        p = (pts[0][0], pts[1][1], pts[2][2])
    else:
        raise ValueError(s)
    if "offset" in end:
        p = add(p, tuple(end["offset"]))
    return p


def build_rig(m, groups):
    mk = m.marks
    bones = {}

    def bone(name, parent, head, tail, connect, roll=0.0, roll_strategy=None):
        b = {"head": head, "tail": tail, "parent": parent,
             "use_connect": connect, "roll": roll,
             "use_inherit_rotation": True, "use_local_location": True,
             "inherit_scale": "FULL", "rigify": {}, "collections": ["Bones"]}
        if roll_strategy:
            b["roll_strategy"] = roll_strategy
        bones[name] = b

    bone("root", "", cube("joint-ground"), cube("joint-pelvis"), False)
    bone("pelvis", "root", cube("joint-pelvis"), cube("joint-spine-3"), False,
         roll_strategy="ALIGN_X_WORLD_X")
    bone("spine01", "pelvis", cube("joint-spine-3"), cube("joint-spine-2"), True)
    bone("spine02", "spine01", cube("joint-spine-2"), cube("joint-neck"), True)
    bone("neck", "spine02", cube("joint-neck"), cube("joint-head"), True)
    bone("head", "neck", cube("joint-head"),
         vertex(mk["head-top"], [0.0, 0.0, 0.01]), True)

    for s, side, sign in (("l", "L", 1.0), ("r", "R", -1.0)):
        J = lambda n: cube("joint-%s-%s" % (s, n))  # noqa: E731
        bone("upperarm." + side, "spine02", J("shoulder"), J("elbow"), False,
             roll=0.12 * sign)
        bone("forearm." + side, "upperarm." + side, J("elbow"), J("hand"), True,
             roll=0.08 * sign)
        bone("hand." + side, "forearm." + side, J("hand"), J("hand-2"), True,
             roll=0.05 * sign)
        bone("thigh." + side, "pelvis", J("upper-leg"), J("knee"), False)
        bone("shin." + side, "thigh." + side, J("knee"), J("ankle"), True)
        # foot tail: x from the top of the ball ring, Blender y (= -z_obj)
        # from its sole vertex, Blender z (= y_obj) from its side vertex;
        # this lands on the ball of the foot (where joint-s-foot-1 sits)
        ball = xyz(mk["%s-ball-top" % s], mk["%s-ball-sole" % s],
                   mk["%s-ball-side" % s])
        bone("foot." + side, "shin." + side, J("ankle"), ball, True,
             roll_strategy="ALIGN_Z_WORLD_Z")
        bone("toe." + side, "foot." + side, dict(ball),
             mean(mk["%s-toe-outer" % s], mk["%s-toe-inner" % s]), True)

    bverts = [to_blender(p) for p in m.verts]
    for b in bones.values():
        for key in ("head", "tail"):
            p = evaluate(b[key], bverts, groups)
            b[key]["default_position"] = [r5(c) for c in p]

    return {"bones": bones, "collections": ["Bones"], "is_subrig": False,
            "scale_factor": SCALE_FACTOR, "version": 110}


# ---------------------------------------------------------------------------
# weights
# ---------------------------------------------------------------------------

def seg_dist(p, a, b):
    ab = sub(b, a)
    t = dot(sub(p, a), ab) / dot(ab, ab)
    t = min(1.0, max(0.0, t))
    return norm(sub(p, add(a, mul(ab, t))))


def build_weights(m, body_count, rig):
    bones = rig["bones"]
    names = sorted(n for n in bones if n != "root")
    segs = {n: (tuple(bones[n]["head"]["default_position"]),
                tuple(bones[n]["tail"]["default_position"])) for n in names}
    weights = {n: [] for n in bones}
    for i in range(body_count):
        p = to_blender(m.verts[i])
        cand = []
        for n in names:
            d = max(seg_dist(p, *segs[n]), 0.005)
            cand.append((1.0 / d ** 4, n))
        cand.sort(key=lambda c: (-c[0], c[1]))
        top = cand[:3]
        total = sum(w for w, _ in top)
        top = [(w / total, n) for w, n in top if w / total >= 0.01]
        total = sum(w for w, _ in top)
        for w, n in top:
            weights[n].append([i, round(w / total, 5)])
    return {"copyright": "CC0 rigfit demo",
            "description": "Weights for the rigfit demo rig",
            "license": "CC0", "name": "rigfit demo weights",
            "version": 110, "weights": weights}


# ---------------------------------------------------------------------------

def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_demo.py OUTPUT_DIR")
    out_dir = sys.argv[1]

    joints = build_joints()
    m, body_count, cubes = build_mesh(joints)
    groups = vertex_groups(m, body_count, cubes)
    rig = build_rig(m, groups)
    weights = build_weights(m, body_count, rig)

    write_text(os.path.join(out_dir, "body.obj"), obj_text(m, body_count))
    write_json(os.path.join(out_dir, "vertex_groups.json"), groups)
    write_json(os.path.join(out_dir, "rig.demo.json"), rig)
    write_json(os.path.join(out_dir, "weights.demo.json"), weights)

    nfaces = sum(len(f) for _, f in m.groups)
    print("vertices %d (body %d, joint cubes %d), uvs %d, faces %d, bones %d"
          % (len(m.verts), body_count, len(cubes), len(m.uvs), nfaces,
             len(rig["bones"])))


if __name__ == "__main__":
    main()
