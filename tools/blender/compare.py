#!/usr/bin/env python3
"""Compare a Blender reference skeleton (fit_reference.py) with a rigfit skeleton.

    python3 tools/blender/compare.py reference.json rigfit_skeleton.json [--tol 1e-6]

reference.json : {"bones": [{"name", "parent", "head", "tail", "roll", "matrix_local"}, ...]}
rigfit JSON    : {"format": "rigfit-skeleton/1", "units": "m", "up": "+Z",
                  "bones": [{"name", "parent", "head", "tail", "roll", "length", "matrix"}, ...]}

Both matrices are written as 4 rows (column vectors, translation in the last column).
Bones are matched by name.  Printed per rig: max |dhead|, max |dtail| (largest absolute
component difference), max |droll| (difference wrapped to (-pi, pi], radians), max |dmatrix|
(element-wise) with the worst bone for each, parent mismatches and bones missing on either
side.  Exit status 1 if any maximum exceeds its tolerance or if bones are missing / parents
differ (unless --allow-missing / --ignore-parents), 2 on unreadable input.
"""

import argparse
import json
import math
import os
import sys


def load_bones(path, matrix_keys):
    with open(path) as fh:
        data = json.load(fh)
    bones = data["bones"] if isinstance(data, dict) else data
    out = {}
    order = []
    for b in bones:
        m = None
        for k in matrix_keys:
            if k in b:
                m = b[k]
                break
        out[b["name"]] = {
            "parent": b.get("parent") or "",
            "head": [float(x) for x in b["head"]],
            "tail": [float(x) for x in b["tail"]],
            "roll": float(b["roll"]),
            "matrix": [[float(x) for x in row] for row in m] if m is not None else None,
            "edit_matrix": b.get("edit_matrix"),
        }
        order.append(b["name"])
    return data, out, order


def wrap_angle(a):
    """Wrap to (-pi, pi]."""
    a = math.fmod(a, 2.0 * math.pi)
    if a <= -math.pi:
        a += 2.0 * math.pi
    elif a > math.pi:
        a -= 2.0 * math.pi
    return a


def max_abs_diff(a, b):
    return max(abs(x - y) for x, y in zip(a, b))


def direction_y(b):
    d = [t - h for h, t in zip(b["head"], b["tail"])]
    ln = math.sqrt(sum(c * c for c in d))
    return d[1] / ln if ln > 0 else float("nan")


# Blender's vec_roll_to_mat3_normalized: below these, a direction counts as exactly -Y and the
# symmetric fallback frame diag(-1, -1, 1) is used.
SAFE_THRESHOLD = 6.1e-3
CRITICAL_THRESHOLD_SQ = 2.5e-4 * 2.5e-4


def minus_y_note(r, f, d):
    """Explain a roll/matrix maximum on a bone pointing close to -Y (empty if it does not)."""
    dv = [t - h for h, t in zip(r["head"], r["tail"])]
    ln = math.sqrt(sum(c * c for c in dv))
    if ln == 0.0:
        return ""
    x, y, z = (c / ln for c in dv)
    if y >= -0.9:
        return ""
    alt = x * x + z * z
    eps = math.sqrt(alt)  # angle from -Y (radians, small-angle)
    if 1.0 + y <= SAFE_THRESHOLD and alt <= CRITICAL_THRESHOLD_SQ:
        e = ""
        if r["edit_matrix"] is not None and f["matrix"] is not None:
            e = "; vs Blender's edit-bone matrix: %.1e" % max(
                max_abs_diff(ra, fa) for ra, fa in zip(r["edit_matrix"], f["matrix"]))
        return ("  (bone %.1e rad from -Y, inside Blender's singular cone (2.5e-4): the edit-bone frame is "
                "the symmetric fallback, but matrix_local is re-derived from the parent and follows the "
                "true direction, so they differ by about that angle%s)" % (eps, e))
    # Near -Y the zero-roll frame's x/z axes turn by twice the change of the direction's azimuth
    # about -Y, i.e. by about 2 * |d direction| / angle.
    fv = [t - h for h, t in zip(f["head"], f["tail"])]
    fl = math.sqrt(sum(c * c for c in fv))
    ddir = math.sqrt(sum((a / fl - c / ln) ** 2 for a, c in zip(fv, dv))) if fl > 0 else float("nan")
    return ("  (bone direction y=%.6f, %.1e rad from -Y, length %.3g m: near -Y the zero-roll frame turns by "
            "about 2*|d direction|/angle = 2*%.1e/%.1e = %.1e rad; the direction difference comes from "
            "float32 head/tail differences of %.1e m)"
            % (y, eps, ln, ddir, eps, 2 * ddir / eps if eps else float("inf"), max(d["head"], d["tail"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reference")
    ap.add_argument("rigfit")
    ap.add_argument("--tol", type=float, default=1e-6,
                    help="tolerance for head/tail/matrix (m) and roll (rad) (default 1e-6)")
    ap.add_argument("--roll-tol", type=float, help="separate roll tolerance in radians (default: --tol)")
    ap.add_argument("--matrix-tol", type=float, help="separate matrix tolerance (default: --tol)")
    ap.add_argument("--allow-missing", action="store_true", help="missing bones do not fail the check")
    ap.add_argument("--ignore-parents", action="store_true", help="parent mismatches do not fail the check")
    ap.add_argument("--name", help="label for the summary line (default: reference file name)")
    ap.add_argument("--list", type=int, default=0, metavar="N",
                    help="also list the N worst bones by matrix difference")
    args = ap.parse_args()
    roll_tol = args.tol if args.roll_tol is None else args.roll_tol
    mat_tol = args.tol if args.matrix_tol is None else args.matrix_tol

    try:
        ref_data, ref, ref_order = load_bones(args.reference, ("matrix_local", "matrix"))
        _, fit, fit_order = load_bones(args.rigfit, ("matrix", "matrix_local"))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print("compare.py: cannot read input: %r" % (exc,), file=sys.stderr)
        return 2

    label = args.name or os.path.basename(args.reference)
    missing_in_fit = [n for n in ref_order if n not in fit]
    missing_in_ref = [n for n in fit_order if n not in ref]
    common = [n for n in ref_order if n in fit]

    worst = {k: (0.0, "") for k in ("head", "tail", "roll", "matrix")}
    worst_edit = (0.0, "")  # informative: vs the edit-bone matrix (before leaving edit mode)
    parent_diff = []
    per_bone = []
    diffs = {}
    for n in common:
        r, f = ref[n], fit[n]
        d = {
            "head": max_abs_diff(r["head"], f["head"]),
            "tail": max_abs_diff(r["tail"], f["tail"]),
            "roll": abs(wrap_angle(f["roll"] - r["roll"])),
        }
        if r["matrix"] is not None and f["matrix"] is not None:
            d["matrix"] = max(max_abs_diff(ra, fa) for ra, fa in zip(r["matrix"], f["matrix"]))
        else:
            d["matrix"] = float("nan")
        for k, v in d.items():
            if v > worst[k][0] or (math.isnan(v) and not math.isnan(worst[k][0])):
                worst[k] = (v, n)
        if r["edit_matrix"] is not None and f["matrix"] is not None:
            e = max(max_abs_diff(ra, fa) for ra, fa in zip(r["edit_matrix"], f["matrix"]))
            if e > worst_edit[0]:
                worst_edit = (e, n)
        if r["parent"] != f["parent"]:
            parent_diff.append((n, r["parent"], f["parent"]))
        per_bone.append((d["matrix"], n, d))
        diffs[n] = d

    tols = {"head": args.tol, "tail": args.tol, "roll": roll_tol, "matrix": mat_tol}
    units = {"head": "m", "tail": "m", "roll": "rad", "matrix": ""}
    fails = []
    print("== %s: %d reference bones, %d rigfit bones, %d compared"
          % (label, len(ref), len(fit), len(common)))
    if ref_data.get("dropped_bones"):
        print("   Blender dropped zero-length bones: %s" % ", ".join(ref_data["dropped_bones"]))
    for k in ("head", "tail", "roll", "matrix"):
        v, n = worst[k]
        bad = not (v <= tols[k])
        if bad:
            fails.append(k)
        note = ""
        if k in ("roll", "matrix") and n and bad:
            note = minus_y_note(ref[n], fit[n], diffs[n])
        print("   max |d%-6s| = %.3e %-3s  worst: %-32s %s%s"
              % (k, v, units[k], n or "-", "FAIL" if bad else "ok", note))
    if worst_edit[1]:
        print("   (info) max |dmatrix| vs edit-bone matrix = %.3e  worst: %s" % worst_edit)
    if missing_in_fit:
        print("   missing in rigfit (%d): %s" % (len(missing_in_fit), ", ".join(missing_in_fit)))
        if not args.allow_missing:
            fails.append("missing")
    if missing_in_ref:
        print("   missing in reference (%d): %s" % (len(missing_in_ref), ", ".join(missing_in_ref)))
        if not args.allow_missing:
            fails.append("extra")
    if parent_diff:
        print("   parent differs (%d): %s" % (len(parent_diff), ", ".join(
            "%s (ref %r, rigfit %r)" % p for p in parent_diff[:20])))
        if not args.ignore_parents:
            fails.append("parent")
    if args.list:
        per_bone.sort(key=lambda x: (-(x[0]) if not math.isnan(x[0]) else -math.inf))
        for m, n, d in per_bone[:args.list]:
            print("     %-32s head %.2e tail %.2e roll %.2e matrix %.2e"
                  % (n, d["head"], d["tail"], d["roll"], d["matrix"]))
    status = "FAIL" if fails else "PASS"
    # one machine-readable line (used by run_all.sh)
    print("RESULT\t%s\t%d\t%d\t%.3e\t%.3e\t%.3e\t%.3e\t%d\t%d\t%s\t%s"
          % (label, len(ref), len(fit), worst["head"][0], worst["tail"][0], worst["roll"][0],
             worst["matrix"][0], len(missing_in_fit), len(missing_in_ref), status, ",".join(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
