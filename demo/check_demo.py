#!/usr/bin/env python3
"""Sanity checks for the rigfit demo data (standard library only).

Usage:  python3 demo/check_demo.py [DATA_DIR]

DATA_DIR defaults to build/demo/character (what the build wrote).  Reads the
files independently of make_demo.py, then also regenerates the data into a
temporary folder and checks that the output is byte-identical.
Exits non-zero and lists the problems if anything is wrong.
"""

import filecmp
import json
import math
import os
import subprocess
import sys
import tempfile

FILES = ["body.obj", "vertex_groups.json", "rig.demo.json", "weights.demo.json"]

errors = []


def fail(msg):
    errors.append(msg)


def load_obj(path):
    verts, uvs, faces = [], [], []   # faces: (group, [(vi, ti)]), 0-based
    group = None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines[0] != "# rigfit demo character (CC0)":
        fail("OBJ header line is %r" % lines[0])
    for ln in lines:
        t = ln.split()
        if not t or t[0].startswith("#"):
            continue
        if t[0] == "v":
            verts.append(tuple(float(x) for x in t[1:4]))
        elif t[0] == "vt":
            uvs.append(tuple(float(x) for x in t[1:3]))
        elif t[0] == "g":
            group = t[1]
        elif t[0] == "f":
            corners = []
            for c in t[1:]:
                a, b = c.split("/")
                corners.append((int(a) - 1, int(b) - 1))
            faces.append((group, corners))
        else:
            fail("unexpected OBJ line: %r" % ln)
    return verts, uvs, faces


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def tris(face):
    v = [c[0] for c in face]
    return [(v[0], v[1], v[2]), (v[0], v[2], v[3])]


def components(nverts, faces):
    parent = list(range(nverts))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for _, f in faces:
        r = find(f[0][0])
        for vi, _ in f[1:]:
            parent[find(vi)] = r
    comp = {}
    for fi, (_, f) in enumerate(faces):
        comp.setdefault(find(f[0][0]), []).append(fi)
    return list(comp.values())


def ray_hits(p, verts, tri_list):
    """Crossings of a ray from p (fixed skew direction) with the triangles."""
    d = (0.1234, 0.9876, 0.0567)
    n = 0
    for a, b, c in tri_list:
        A, B, C = verts[a], verts[b], verts[c]
        e1, e2 = sub(B, A), sub(C, A)
        h = cross(d, e2)
        det = dot(e1, h)
        if abs(det) < 1e-12:
            continue
        s = sub(p, A)
        u = dot(s, h) / det
        if u < 0 or u > 1:
            continue
        q = cross(s, e1)
        v = dot(d, q) / det
        if v < 0 or u + v > 1:
            continue
        if dot(e2, q) / det > 1e-9:
            n += 1
    return n


def evaluate(end, bverts, groups):
    s = end["strategy"]
    if s == "CUBE":
        idx = [i for a, b in groups[end["cube_name"]] for i in range(a, b + 1)]
        p = [sum(bverts[i][c] for i in idx) / len(idx) for c in range(3)]
    elif s == "VERTEX":
        p = list(bverts[end["vertex_index"]])
    elif s == "MEAN":
        idx = end["vertex_indices"]
        p = [sum(bverts[i][c] for i in idx) / len(idx) for c in range(3)]
    elif s == "XYZ":
        i0, i1, i2 = end["vertex_indices"]
        p = [bverts[i0][0], bverts[i1][1], bverts[i2][2]]
    else:
        raise ValueError("unknown strategy %r" % s)
    if "offset" in end:
        p = [a + b for a, b in zip(p, end["offset"])]
    return p


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "build", "demo", "character")

    # ---------------- mesh ----------------
    verts, uvs, faces = load_obj(os.path.join(data, "body.obj"))
    nv = len(verts)
    for g, f in faces:
        if len(f) != 4:
            fail("non-quad face in %s" % g)
        for vi, ti in f:
            if not (0 <= vi < nv and 0 <= ti < len(uvs)):
                fail("face index out of range in %s" % g)
        if len({vi for vi, _ in f}) != 4:
            fail("degenerate face in %s" % g)
    # every closed shell must have outward normals (positive volume) and
    # every edge must be shared by exactly two faces
    edges = {}
    for _, f in faces:
        for k in range(4):
            a, b = f[k][0], f[(k + 1) % 4][0]
            edges[(a, b)] = edges.get((a, b), 0) + 1
    for (a, b), cnt in edges.items():
        if cnt != 1 or edges.get((b, a)) != 1:
            fail("edge %d-%d is not manifold / consistently wound" % (a, b))
            break
    shells = components(nv, faces)
    for comp in shells:
        vol = 0.0
        for fi in comp:
            for a, b, c in tris(faces[fi][1]):
                vol += dot(verts[a], cross(verts[b], verts[c])) / 6.0
        if vol <= 0:
            fail("shell with group %s has non-positive volume" % faces[comp[0]][0])

    # ---------------- vertex groups ----------------
    with open(os.path.join(data, "vertex_groups.json")) as f:
        groups = json.load(f)

    def members(name):
        return [i for a, b in groups[name] for i in range(a, b + 1)]

    body = members("body")
    if body != list(range(len(body))):
        fail("body group must be the leading vertex range")
    nbody = len(body)
    joint_names = sorted(n for n in groups if n.startswith("joint-"))
    cube_verts = sorted(i for n in joint_names for i in members(n))
    if cube_verts != list(range(nbody, nv)) or members("JointCubes") != cube_verts:
        fail("joint cubes do not exactly cover the vertices after the body")
    side = {}
    for name in ("Left", "Right", "Mid"):
        for i in members(name):
            if i in side:
                fail("vertex %d in both %s and %s" % (i, side[i], name))
            side[i] = name
    if sorted(side) != list(range(nv)):
        fail("Left/Right/Mid do not cover all vertices")
    for i, p in enumerate(verts):
        want = "Left" if p[0] > 0.0001 else "Right" if p[0] < -0.0001 else "Mid"
        if side.get(i) != want:
            fail("vertex %d should be %s" % (i, want))
            break
    body_faces = [f for g, f in faces if g == "body"]
    for g, f in faces:
        idx = {vi for vi, _ in f}
        if g == "body":
            if max(idx) >= nbody:
                fail("body face uses a cube vertex")
        elif not idx <= set(members(g)):
            fail("face of %s uses vertices outside its group" % g)
    centres = {}
    for n in joint_names:
        idx = members(n)
        if len(idx) != 8:
            fail("%s has %d vertices" % (n, len(idx)))
        centres[n] = [sum(verts[i][c] for i in idx) / 8 for c in range(3)]
        ext = [max(verts[i][c] for i in idx) - min(verts[i][c] for i in idx)
               for c in range(3)]
        if any(abs(e - 0.2) > 1e-6 for e in ext):
            fail("%s is not a 0.2 dm cube" % n)
    # cube corners (ground excepted) must be inside the body surface
    shell_tris = [[t for fi in comp for t in tris(faces[fi][1])]
                  for comp in shells if faces[comp[0]][0] == "body"]
    for n in joint_names:
        if n == "joint-ground":
            continue
        for i in members(n):
            if not any(ray_hits(verts[i], verts, st) % 2 == 1 for st in shell_tris):
                fail("corner %d of %s is outside the body" % (i, n))
                break
    ys = [verts[i][1] for i in body]
    if abs(min(ys) + 8.0) > 1e-6 or not 8.9 <= max(ys) <= 9.3:
        fail("body spans y %.3f..%.3f" % (min(ys), max(ys)))
    if abs(centres["joint-ground"][1] + 8.1) > 1e-6:
        fail("joint-ground is not at y = -8.1")

    # ---------------- rig ----------------
    with open(os.path.join(data, "rig.demo.json")) as f:
        rig_text = f.read()
    rig = json.loads(rig_text)
    if rig_text.endswith("\n"):
        fail("rig file ends with a newline")
    top = {"bones": None, "collections": ["Bones"], "is_subrig": False,
           "scale_factor": 0.10000000149011612, "version": 110}
    if set(rig) != set(top):
        fail("rig top-level keys %s" % sorted(rig))
    for k, v in top.items():
        if v is not None and rig.get(k) != v:
            fail("rig %s = %r" % (k, rig.get(k)))
    bones = rig["bones"]
    bverts = [(0.1 * x, -0.1 * z, 0.1 * y) for x, y, z in verts]
    keys = {"head", "tail", "roll", "parent", "use_connect", "use_inherit_rotation",
            "use_local_location", "inherit_scale", "rigify", "collections"}
    used = set()
    pos = {}
    for name, b in bones.items():
        if not keys <= set(b) or not set(b) <= keys | {"roll_strategy"}:
            fail("%s has keys %s" % (name, sorted(b)))
        if b.get("collections") != ["Bones"] or b.get("rigify") != {} \
                or b.get("inherit_scale") != "FULL":
            fail("%s has unexpected collections/rigify/inherit_scale" % name)
        if "roll_strategy" in b and b["roll"] != 0.0:
            fail("%s has a roll strategy and a non-zero roll" % name)
        for end in ("head", "tail"):
            e = b[end]
            used.add(e["strategy"])
            if "offset" in e:
                used.add("offset")
            if e["strategy"] == "CUBE":
                if e["cube_name"] not in groups or not e["cube_name"].startswith("joint-"):
                    fail("%s %s: unknown cube %s" % (name, end, e["cube_name"]))
                    continue
            else:
                idx = [e["vertex_index"]] if e["strategy"] == "VERTEX" else e["vertex_indices"]
                want = {"VERTEX": 1, "MEAN": 2, "XYZ": 3}[e["strategy"]]
                if len(idx) != want or len(set(idx)) != want:
                    fail("%s %s: %s needs %d distinct indices" % (name, end, e["strategy"], want))
                if any(not (0 <= i < nbody) for i in idx):
                    fail("%s %s: vertex index out of the body range" % (name, end))
                    continue
            p = evaluate(e, bverts, groups)
            if max(abs(a - b) for a, b in zip(p, e["default_position"])) > 1e-5:
                fail("%s %s: evaluates to %s, default_position %s"
                     % (name, end, p, e["default_position"]))
            if any(round(c, 5) != c for c in e["default_position"]):
                fail("%s %s: default_position not rounded to 5 decimals" % (name, end))
            pos[(name, end)] = p
        if (name, "head") in pos and (name, "tail") in pos and \
                math.dist(pos[(name, "head")], pos[(name, "tail")]) < 1e-4:
            fail("%s has zero length" % name)
    for s in ("CUBE", "VERTEX", "MEAN", "XYZ", "offset"):
        if s not in used:
            fail("rig never uses %s" % s)
    roots = [n for n, b in bones.items() if b["parent"] == ""]
    if roots != ["root"]:
        fail("roots: %s" % roots)
    for name, b in bones.items():
        if b["parent"] and b["parent"] not in bones:
            fail("%s: missing parent %s" % (name, b["parent"]))
            continue
        seen, n = set(), name
        while n:
            if n in seen:
                fail("parent cycle through %s" % name)
                break
            seen.add(n)
            n = bones[n]["parent"] if n in bones else ""
        if b["use_connect"]:
            par = bones[b["parent"]]
            same = {k: v for k, v in b["head"].items() if k != "default_position"} == \
                {k: v for k, v in par["tail"].items() if k != "default_position"}
            if not same or b["parent"] == "root":
                fail("%s is connected but its head differs from %s's tail" % (name, b["parent"]))
    strat = sorted((b.get("roll_strategy"), n) for n, b in bones.items() if b.get("roll_strategy"))
    if [s for s, _ in strat].count("ALIGN_Z_WORLD_Z") != 2 or \
            [s for s, _ in strat].count("ALIGN_X_WORLD_X") != 1:
        fail("roll strategies: %s" % strat)

    # ---------------- weights ----------------
    with open(os.path.join(data, "weights.demo.json")) as f:
        wj = json.load(f)
    for k, v in (("copyright", "CC0 rigfit demo"),
                 ("description", "Weights for the rigfit demo rig"),
                 ("license", "CC0"), ("name", "rigfit demo weights"), ("version", 110)):
        if wj.get(k) != v:
            fail("weights %s = %r" % (k, wj.get(k)))
    w = wj["weights"]
    if set(w) != set(bones):
        fail("weights bones differ from rig bones")
    if w.get("root") != []:
        fail("root should have no weights")
    per_vertex = {}
    for bn, lst in w.items():
        idx = [i for i, _ in lst]
        if idx != sorted(set(idx)):
            fail("%s: vertex list not strictly ascending" % bn)
        for i, x in lst:
            if not (0 <= i < nbody) or not (0.01 <= x <= 1.0):
                fail("%s: bad entry %s" % (bn, [i, x]))
            per_vertex.setdefault(i, []).append(x)
    if sorted(per_vertex) != list(range(nbody)):
        fail("not every body vertex is weighted")
    for i, ws in per_vertex.items():
        if not 1 <= len(ws) <= 3 or abs(sum(ws) - 1.0) > 1e-4:
            fail("vertex %d weights %s" % (i, ws))
            break

    # ---------------- determinism ----------------
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(here, "make_demo.py"), tmp],
                       check=True, stdout=subprocess.DEVNULL)
        for rel in FILES:
            if not filecmp.cmp(os.path.join(tmp, rel), os.path.join(data, rel),
                               shallow=False):
                fail("%s differs from a fresh generation" % rel)

    nfaces = len(faces)
    print("vertices %d (body %d, cubes %d x 8), uvs %d, faces %d (body %d), "
          "shells %d, bones %d, weighted vertices %d"
          % (nv, nbody, len(joint_names), len(uvs), nfaces, len(body_faces),
             len(shells), len(bones), len(per_vertex)))
    print("strategies used: %s" % ", ".join(sorted(used)))
    if errors:
        print("FAILED:")
        for e in errors:
            print("  " + e)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
