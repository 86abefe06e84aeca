#!/usr/bin/env python3
"""tilec's benchmark suite for one NVIDIA GPU (the H200), in one device call.

    python3 bench/suite.py --out DIR [--budget S] [--shapes anchors|all] [--seed N]
                           [--skip-checks] [--torch-compile all|anchors|none] [--torch-compile-timeout S]
                           [--anchor-parts mqa,paged_mqa,tq|none]
    python3 bench/suite.py --report JSON     # print the tables of an earlier run again
    python3 bench/suite.py --self-test       # parsing, goals and tables on a made-up run (no GPU)

On the GPU machine, from the repository root, with .carry/payload.tar.xz carried (built here by
scripts/gpu-artifacts.sh; bench/README.md has the exact device command), in this order:

1. unpacks the payload into .carry/ (PTX of every norm kernel, norm-gpu, launch-overhead, the AOT
   example, compile times measured on the build machine, the build's commit, the anchors);
2. checks every tilec kernel's results: `norm-gpu --check-only` (937 cases: every norm kernel,
   bf16/f16/f32, generic and div16 builds, odd and large shapes, strided rows, tier A against
   float64 references), split over the CPU cores with --shard; `layout-gpu` (the 2-D layout
   kernels of tests/gpu/kernels/layouts.tile); `mqa-gpu` (fp8_mqa_logits and the paged variant:
   tier B, then their timings at the spec's and the anchors' paged shapes); `tq-gpu` when the
   payload has it (turboquant_decode: tier C, then `TQ-JSON {...}` timing rows); the AOT examples
   (rms_norm, and the tuned launcher of tests/aot/tuned, which must run the configuration tuned
   for each key);
3. measures the ceilings in the same process as the timings: device-to-device copy bandwidth, fp8
   and bf16 matmul rates through torch (triton_anchors.part_ceilings), and Triton's launch overhead
   (part_launch); runs launch-overhead for tile::Runtime::launch and bare cuLaunchKernel;
4. times tilec's norm kernels (its PTX loaded through the driver with ctypes) next to the
   same-semantics Triton kernels, PyTorch eager and torch.compile(dynamic=True) of the anchors'
   PyTorch versions (8 compiles in all; a compile that fails or runs past --torch-compile-timeout
   makes that kernel's cells "n/a" with the reason), with one harness: fresh random inputs rotated
   over sets that together exceed 3x the L2 cache, warm-up, CUDA-graph replay (median per call
   over replays; per-launch CUDA events are kept as well); every timed tilec build and the Triton
   kernel are first checked against the float64 reference on the timing inputs (tier_a: the spec's
   tier A, with its f32-sum term; the worst element and the failing elements' causes go to
   suite.json and check.log); fused_add_rms_norm, which its timing applies in place to the shared
   inputs, runs last at each shape;
   then runs the anchors' TurboQuant kernel at the goal's shapes (tq_goal: the anchor's own
   run_tq_preset at B 8, 32, 128 x seq_len 8192, 32768, for k4v4, k3v4 and k8v4) and its mqa,
   paged_mqa and tq parts (the Triton kernels tilec's MQA and TurboQuant timings are compared
   with, --anchor-parts) before the norms' extra shapes, so that the time budget, when it runs
   out, skips extra norm shapes rather than a goal's yardstick, and the full tq sweep (small
   shapes first) last;
5. writes DIR/suite.json (every number), DIR/suite.md (the tables), DIR/check.log and
   DIR/launch.log, and prints the tables last, with pass/short for each goal.

Nothing here asserts a time: goals are reported, not enforced. Exit status: 0 every check passed,
3 a correctness check failed, 2 a part of the suite raised or a program is missing.
"""
import argparse
import datetime
import json
import math
import os
import re
import statistics
import shutil
import subprocess
import sys
import tarfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CARRY = os.path.join(ROOT, ".carry")
GPU_DIR = os.path.join(CARRY, "gpu")
PAYLOAD = os.path.join(CARRY, "payload.tar.xz")

NORM_KINDS = ["rms_norm", "fused_add_rms_norm", "rms_norm_gelu", "embed_sum_rms_norm"]
# The order the suite runs them in at each shape: fused_add_rms_norm, which works in place on the
# shared inputs, last (Suite.norm_shape says why).
EXEC_ORDER = ["rms_norm", "rms_norm_gelu", "embed_sum_rms_norm", "fused_add_rms_norm"]
# Kernels held to the bandwidth goal; embed_sum_rms_norm gathers K = 80 table rows per output row
# from L2, so its bytes formula is a low bound and copy bandwidth is not its ceiling.
BANDWIDTH_KINDS = ["rms_norm", "fused_add_rms_norm", "rms_norm_gelu"]
ANCHOR_SHAPES = [(1, 4096), (128, 7168), (4096, 5120), (32768, 4096), (8192, 16384)]
EXTRA_SHAPES = [(4096, 4096), (4096, 8192), (4096, 16384), (32768, 8192), (32768, 16384)]
TIMING_NS = [4096, 5120, 7168, 8192, 16384]  # row lengths with timing builds in the payload
EMBED_K, EMBED_VOCAB = 80, 16

GOAL_BW_FRACTION = 0.90
GOAL_LAUNCH_US = 2.0
GOAL_COLD_COMPILE_MS = 30.0
GOAL_HIT_MS = 0.5
NOT_BUILT = []  # (kernel, what): goals of kernels that do not exist yet
GOAL_MQA_FP8_FRACTION = 0.50
GOAL_TQ_COPY_FRACTION = 0.70
GOAL_TQ_MIN_TOKENS = 32 * 8192  # the TurboQuant goal holds at B x seq_len >= 32 x 8192
DEFAULT_ANCHOR_PARTS = "tq_goal,mqa,paged_mqa,tq"

T0 = time.time()


def log(*a):
    print(" ".join(str(x) for x in a), flush=True)


def elapsed():
    return time.time() - T0


def median(v):
    return statistics.median(v) if v else None


class CompileTimeout(Exception):
    pass


class time_limit:
    """`with time_limit(seconds):` raises CompileTimeout in the main thread once the seconds have
    passed (SIGALRM; the suite runs in the main thread). Used around torch.compile's compiles."""

    def __init__(self, seconds):
        self.seconds = max(0.001, float(seconds))

    def _fire(self, signum, frame):
        raise CompileTimeout(f"over its {self.seconds:.0f} s")

    def __enter__(self):
        import signal
        self.old = signal.signal(signal.SIGALRM, self._fire)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc):
        import signal
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.old)
        return False


def rel_iqr(v):
    """(p75 - p25) / median of the samples: the spread a difference must exceed."""
    if len(v) < 4:
        return 0.0
    q = statistics.quantiles(v, n=4)
    m = statistics.median(v)
    return (q[2] - q[0]) / m if m else 0.0


# =============================================================================================
# parsing the programs' output (no GPU needed; --self-test covers these)
# =============================================================================================

def parse_norm_gpu(text):
    """(passed, failed) from norm-gpu's 'gpu checks: P passed, F failed' line, or None."""
    m = re.search(r"gpu checks: (\d+) passed, (\d+) failed", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def parse_launch(text):
    """launch-overhead's output: per-round microseconds of both paths, and its own check."""
    out = {"runtime_us": [float(x) for x in re.findall(r"tile::Runtime::launch: ([0-9.]+) us", text)],
           "driver_us": [float(x) for x in re.findall(r"cuLaunchKernel alone: ([0-9.]+) us", text)]}
    m = re.search(r"kernel wrote ([-0-9.na]+) \(expected 1\.0\)", text)
    out["kernel_ok"] = bool(m) and m.group(1) == "1.0"
    return out


def parse_layout_gpu(text):
    """(passed, failed) from layout-gpu's 'layout checks: P passed, F failed' line, or None."""
    m = re.search(r"layout checks: (\d+) passed, (\d+) failed", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def parse_mqa_gpu(text):
    """mqa-gpu's verdict and timing rows: {'passed', 'failed', 'rows': [{build, S, T, pattern,
    us, tflops}], 'paged_rows': [{build, B, next_n, ctx, us, tflops, gbps}]}, or None without its
    'mqa checks' line."""
    m = re.search(r"mqa checks: (\d+) passed, (\d+) failed", text)
    if not m:
        return None
    rows, paged = [], []
    for r in re.finditer(r"^\| (\S+) \| S=(\d+) T=(\d+) (\w+) \| ([0-9.]+) us \| ([0-9.]+) TFLOP/s \|$",
                         text, re.M):
        rows.append({"build": r.group(1), "S": int(r.group(2)), "T": int(r.group(3)),
                     "pattern": r.group(4), "us": float(r.group(5)), "tflops": float(r.group(6))})
    for r in re.finditer(r"^\| (\S+) \| B=(\d+) next_n=(\d+) ctx=(\d+) \| ([0-9.]+) us \| ([0-9.]+) TFLOP/s "
                         r"\| ([0-9.]+) GB/s \|$", text, re.M):
        paged.append({"build": r.group(1), "B": int(r.group(2)), "next_n": int(r.group(3)),
                      "ctx": int(r.group(4)), "us": float(r.group(5)), "tflops": float(r.group(6)),
                      "gbps": float(r.group(7))})
    return {"passed": int(m.group(1)), "failed": int(m.group(2)), "rows": rows, "paged_rows": paged}


def parse_tq_gpu(text):
    """tq-gpu's timing rows, one 'TQ-JSON {...}' line each (preset, B, seq_len, HEADS, splits, ms,
    bytes, GB/s), normalised to {preset, B, seq_len, heads, splits, us, bytes, gbps, raw}; and its
    verdict when it prints 'tq checks: P passed, F failed'. None when it printed neither."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("TQ-JSON "):
            continue
        try:
            raw = json.loads(line[len("TQ-JSON "):])
            us = float(raw["ms"]) * 1e3 if "ms" in raw else float(raw["us"])
            nbytes = raw.get("bytes")
            gbps = raw.get("GB/s", raw.get("GBps", raw.get("gbps")))
            if gbps is None and nbytes and us:
                gbps = float(nbytes) / (us * 1e-6) / 1e9
            rows.append({"preset": str(raw["preset"]), "B": int(raw["B"]),
                         "seq_len": int(raw.get("seq_len", raw.get("seq"))),
                         "heads": raw.get("HEADS", raw.get("heads")), "splits": raw.get("splits"),
                         "us": us, "bytes": nbytes, "gbps": None if gbps is None else float(gbps),
                         "check_ok": None if raw.get("check") is None else bool(raw["check"]), "raw": raw})
        except (ValueError, KeyError, TypeError) as e:
            rows.append({"error": f"{type(e).__name__}: {e}", "line": line[:300]})
    m = re.search(r"tq checks: (\d+) passed, (\d+) failed", text)
    if not m and not rows:
        return None
    return {"passed": int(m.group(1)) if m else None, "failed": int(m.group(2)) if m else None,
            "rows": [r for r in rows if "error" not in r], "bad_lines": [r for r in rows if "error" in r]}


def _anchor_paged(rep):
    """The anchors' timed paged_mqa rows by (B, next_n, ctx) (uniform contexts only)."""
    out = {}
    for a in rep.get("anchor_rows") or []:
        m = re.match(r"B=(\d+) next_n=(\d+) ctx=(\d+)$", str(a.get("shape", "")))
        if a.get("part") == "paged_mqa" and m and a.get("us"):
            out[(int(m.group(1)), int(m.group(2)), int(m.group(3)))] = a
    return out


def paged_rows(rep):
    """One row per paged shape tilec timed: its fastest build next to the anchor's row."""
    mq = (rep.get("checks") or {}).get("mqa_gpu") or {}
    ce = rep.get("ceilings") or {}
    copy, fp8 = ce.get("copy_GBps"), ce.get("fp8_TFLOPs")
    best = {}
    for r in mq.get("paged_rows") or []:
        key = (r["B"], r["next_n"], r["ctx"])
        if key not in best or r["us"] < best[key]["us"]:
            best[key] = r
    anchors = _anchor_paged(rep)
    rows = []
    for key in sorted(best):
        r = dict(best[key])
        a = anchors.get(key) or {}
        r["triton_us"] = a.get("us")
        r["ratio"] = r["us"] / a["us"] if a.get("us") else None
        # roofline as the anchors count it: max(bytes / copy, FLOPs / fp8) over the time
        if copy and fp8 and r["gbps"] and r["tflops"]:
            t_roof = max(r["gbps"] / copy, r["tflops"] / fp8)  # (bytes/copy)/t, (flops/fp8)/t
            r["roofline"] = t_roof
        r["triton_roofline"] = a.get("frac_ceil")
        rows.append(r)
    return rows


def mqa_goals(rep):
    """fp8_mqa_logits against the Triton anchor rows (same run) and the fp8 rate; the paged
    variant is checked but not timed."""
    mq = (rep.get("checks") or {}).get("mqa_gpu") or {}
    goals = []
    if not mq.get("rows"):
        goals.append({"goal": "fp8_mqa_logits: faster than the Triton anchor at every spec shape",
                      "target": "-", "measured": "not measured (no mqa-gpu run)", "status": "not measured"})
    else:
        anchors = {}
        for a in rep.get("anchor_rows") or []:
            m = re.match(r"(causal|window\d+) S=(\d+) T=(\d+)", str(a.get("shape", "")))
            if a.get("part") == "mqa" and m and a.get("us"):
                anchors[(m.group(1).startswith("causal"), int(m.group(2)), int(m.group(3)))] = a
        best = {}
        for r in mq["rows"]:
            key = (r["pattern"] == "causal", r["S"], r["T"])
            if key not in best or r["us"] < best[key]["us"]:
                best[key] = r
        ratios = [(best[k]["us"] / anchors[k]["us"], k) for k in best if k in anchors]
        if ratios:
            worst = max(ratios)
            goals.append({"goal": "fp8_mqa_logits: faster than the Triton anchor at every spec shape",
                          "target": "tilec/Triton <= 1.00",
                          "measured": f"{min(ratios)[0]:.2f}-{worst[0]:.2f}x Triton's time (worst "
                                      f"{'causal' if worst[1][0] else 'windows'} S={worst[1][1]} T={worst[1][2]})",
                          "status": "pass" if worst[0] <= 1.0 else "short"})
        else:
            goals.append({"goal": "fp8_mqa_logits: faster than the Triton anchor at every spec shape",
                          "target": "tilec/Triton <= 1.00", "measured": "no anchor rows (--anchor-parts mqa)",
                          "status": "not measured"})
        fp8 = (rep.get("ceilings") or {}).get("fp8_TFLOPs")
        top = max(r["tflops"] for r in best.values())
        goals.append({"goal": "fp8_mqa_logits: at least 50% of the fp8 matrix-unit rate",
                      "target": f">= {GOAL_MQA_FP8_FRACTION:.0%} of {fmt(fp8)} TFLOP/s" if fp8 else "-",
                      "measured": f"{top:.1f} TFLOP/s at best" + (f" ({top / fp8:.1%})" if fp8 else ""),
                      "status": ("pass" if top >= GOAL_MQA_FP8_FRACTION * fp8 else "short") if fp8
                                else "not measured"})
    pg = "fp8_paged_mqa_logits: faster than the Triton anchor at every paged shape"
    prow = paged_rows(rep)
    cmp = [r for r in prow if r.get("ratio")]
    if not prow:
        goals.append({"goal": pg, "target": "tilec/Triton <= 1.00",
                      "measured": "not measured (no paged timing rows from mqa-gpu)", "status": "not measured"})
    elif not cmp:
        goals.append({"goal": pg, "target": "tilec/Triton <= 1.00",
                      "measured": "no anchor rows (--anchor-parts paged_mqa)", "status": "not measured"})
    else:
        worst = max(cmp, key=lambda r: r["ratio"])
        roof = [r["roofline"] for r in prow if r.get("roofline")]
        goals.append({"goal": pg, "target": "tilec/Triton <= 1.00",
                      "measured": f"{min(r['ratio'] for r in cmp):.2f}-{worst['ratio']:.2f}x Triton's time over "
                                  f"{len(cmp)} shapes (worst B={worst['B']} next_n={worst['next_n']} "
                                  f"ctx={worst['ctx']})"
                                  + (f"; {min(roof):.1%}-{max(roof):.1%} of the roofline" if roof else ""),
                      "status": "pass" if worst["ratio"] <= 1.0 else "short"})
    return goals


def tq_rows(rep):
    """One row per (preset, B, seq_len) tq-gpu timed: its fastest row next to the anchor's fastest
    (grouped or per-head grid) at the same shape."""
    tq = (rep.get("checks") or {}).get("tq_gpu") or {}
    copy = (rep.get("ceilings") or {}).get("copy_GBps")
    best = {}
    for r in tq.get("rows") or []:
        # the fastest row whose own tier C check passed (a failed one only when no other exists)
        key, rank = (r["preset"], r["B"], r["seq_len"]), (r.get("check_ok") is False, r["us"])
        if key not in best or rank < (best[key].get("check_ok") is False, best[key]["us"]):
            best[key] = r
    anchors = {}
    for a in rep.get("anchor_rows") or []:
        if a.get("part") != "tq" or not a.get("us") or a.get("preset") is None:
            continue
        key = (str(a["preset"]), int(a["B"]), int(a["seq"]))
        if key not in anchors or a["us"] < anchors[key]["us"]:
            anchors[key] = a
    order = {"k4v4": 0, "k3v4": 1, "k8v4": 2, "k3v3": 3}
    rows = []
    for key in sorted(best, key=lambda k: (order.get(k[0], 9), k[0], k[1], k[2])):
        r = dict(best[key])
        r.pop("raw", None)
        a = anchors.get(key) or {}
        r["triton_us"] = a.get("us")
        r["triton_gbps"] = a.get("GBps")
        r["triton_grid"] = None if not a else ("B,Hkv,splits" if a.get("grouped", True) else "B,Hq,splits")
        r["ratio"] = r["us"] / a["us"] if a.get("us") else None
        r["copy_frac"] = r["gbps"] / copy if copy and r.get("gbps") else None
        r["large"] = r["B"] * r["seq_len"] >= GOAL_TQ_MIN_TOKENS
        rows.append(r)
    return rows


def tq_goals(rep):
    """TurboQuant decode: faster than Triton and >= 70% of copy over bytes read at B x seq_len >=
    32 x 8192 (one verdict; both halves must hold at every such shape)."""
    goal = (f"TurboQuant decode: faster than Triton and >= {GOAL_TQ_COPY_FRACTION:.0%} of copy bandwidth over "
            f"bytes read at B x seq_len >= 32 x 8192")
    target = f"tilec/Triton <= 1.00 and >= {GOAL_TQ_COPY_FRACTION:.0%} of copy"
    tq = (rep.get("checks") or {}).get("tq_gpu")
    if not tq:
        return [{"goal": goal, "target": target, "measured": "not measured (no tq-gpu in the payload)",
                 "status": "not measured"}]
    rows = tq_rows(rep)
    large = [r for r in rows if r["large"]]
    if not large:
        return [{"goal": goal, "target": target,
                 "measured": f"no tq-gpu row at B x seq_len >= 32 x 8192 ({len(rows)} rows)",
                 "status": "not measured"}]
    parts, verdicts = [], []
    failed = [r for r in large if r.get("check_ok") is False]
    if failed:
        parts.append(f"{len(failed)} shapes failed tier C (first {failed[0]['preset']} B={failed[0]['B']} "
                     f"seq={failed[0]['seq_len']})")
        verdicts.append(False)
    cmp = [r for r in large if r["ratio"] is not None]
    if cmp:
        worst = max(cmp, key=lambda r: r["ratio"])
        fast = sum(1 for r in cmp if r["ratio"] <= 1.0)
        parts.append(f"{fast}/{len(cmp)} shapes faster than Triton ({min(r['ratio'] for r in cmp):.2f}-"
                     f"{worst['ratio']:.2f}x its time; worst {worst['preset']} B={worst['B']} "
                     f"seq={worst['seq_len']})")
        verdicts.append(fast == len(cmp))
    else:
        parts.append("no anchor rows to compare (--anchor-parts tq)")
        verdicts.append(None)
    bw = [r for r in large if r["copy_frac"] is not None]
    if bw:
        low = min(bw, key=lambda r: r["copy_frac"])
        ok = sum(1 for r in bw if r["copy_frac"] >= GOAL_TQ_COPY_FRACTION)
        parts.append(f"{ok}/{len(bw)} at >= {GOAL_TQ_COPY_FRACTION:.0%} of copy (lowest {low['preset']} B={low['B']} "
                     f"seq={low['seq_len']} at {low['copy_frac']:.1%}, {low['gbps']:.0f} GB/s)")
        verdicts.append(ok == len(bw))
    else:
        parts.append("no copy bandwidth or bytes to compare")
        verdicts.append(None)
    status = "short" if False in verdicts else "not measured" if None in verdicts else "pass"
    return [{"goal": goal, "target": target, "measured": "; ".join(parts), "status": status}]


SASS_OPCODE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)")
# The opcode families the issue's "disassembly is the oracle" asks about: matrix units (mma.sync:
# HMMA; fp8 mma.sync on sm_89+: QMMA; wgmma: HGMMA/QGMMA), cp.async (LDGSTS), cp.async.bulk
# (UBLKCP), ldmatrix (LDSM), and barriers.
SASS_FAMILIES = ("HMMA", "QMMA", "HGMMA", "QGMMA", "IMMA", "LDGSTS", "UBLKCP", "LDSM", "BAR")


def parse_sass(text):
    """cuobjdump -sass output -> {opcode: count} for SASS_FAMILIES (opcode without modifiers)."""
    counts = {}
    for m in SASS_OPCODE.finditer(text):
        op = m.group(1)
        if op in SASS_FAMILIES:
            counts[op] = counts.get(op, 0) + 1
    return counts


def parse_aot(text):
    """The AOT example's verdict: its max relative error line ends in '(pass)'."""
    return bool(re.search(r"max relative error .*\(pass\)", text))


# What tests/aot/tuned/tuned.txt makes the tuned AOT launcher run on an sm_90a device, by n.
AOT_TUNED_EXPECTED = {4096: "BLOCK=512 num_warps=8", 8192: "BLOCK=1024 num_warps=4",
                      1000: "BLOCK=256 num_warps=4", 70000: "BLOCK=256 num_warps=4"}


def parse_aot_tuned(text):
    """aot-tuned-scale's lines 'scale n=N: CONFIG, W wrong elements (pass)': {n: (config, passed)}."""
    return {int(n): (cfg, res == "pass")
            for n, cfg, res in re.findall(r"scale n=(\d+): (.*?), \d+ wrong elements \((pass|FAIL)\)", text)}


def aot_tuned_ok(text):
    got = parse_aot_tuned(text)
    return all(got.get(n, ("", False)) == (cfg, True) for n, cfg in AOT_TUNED_EXPECTED.items())


def parse_build_info(text):
    info = {}
    for line in text.splitlines():
        if " " in line:
            k, v = line.split(" ", 1)
            info[k] = v.strip()
    return info


def parse_meta(text):
    """A .ptx.meta file of `tilec compile`: kernel, threads, shared_bytes and typed params."""
    meta = {"params": []}
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "param" and len(parts) == 3:
            meta["params"].append((parts[1], parts[2]))
        elif len(parts) == 2:
            meta[parts[0]] = int(parts[1]) if parts[1].isdigit() else parts[1]
    return meta


# =============================================================================================
# tier A on the timed inputs (torch, imported by the caller; --self-test runs it when torch exists)
# =============================================================================================

# Explicit mantissa bits and the smallest normal exponent of each activation type.
_FMT_BITS = {"torch.bfloat16": (7, -126), "torch.float16": (10, -14), "torch.float32": (23, -126)}
ACC_EPS = 2.0 ** -24  # the f32 unit roundoff of the spec's accumulation term
SQRT1_2 = 0.7071067811865476


def _ulp(torch, v, dtype):
    """ulp_T(v): the spacing of dtype at |v| (float64 in and out); subnormal spacing below the normals."""
    mbits, emin = _FMT_BITS[str(dtype)]
    a = v.abs()
    _, e = torch.frexp(a)
    e = torch.where(a == 0, torch.full_like(e, emin), e - 1).to(torch.float64).clamp_min(emin)
    return torch.exp2(e - mbits)


def _round_to(torch, v, dtype):
    """float64 v rounded to the nearest dtype value (ties to even), kept in float64."""
    u = _ulp(torch, v, dtype)
    return torch.round(v / u) * u


def _neighbours(torch, h, dtype):
    """The dtype values next to h (a dtype value in float64): away from zero and toward zero."""
    s = torch.where(h < 0, -torch.ones_like(h), torch.ones_like(h))
    a = h.abs()
    up = s * (a + _ulp(torch, a, dtype))
    dn = s * (a - _ulp(torch, a - _ulp(torch, a, dtype) / 2, dtype))
    return up, dn


def _gelu(torch, z):
    return 0.5 * z * torch.erfc(-z * SQRT1_2)


def tier_a(torch, kind, inp, out, out_res=None, eps=1e-6, detail=4):
    """Tier A of ../shared/spec/kernels.md ("Accuracy tiers") against float64, chunked over rows:
        |out - ref| <= 2 ulp_T(ref) + |d out/d h| ulp_T(h) + |d out/d x| K 2^-24 sum_k |term_k|
    with h = T(x r), slope |w| (|w gelu'(z)| for rms_norm_gelu); the last term only where the kernel
    forms an f32 sum first: the K = 80 embedding rows of embed_sum_rms_norm, the residual add of
    fused_add_rms_norm (K = 2), as the spec says. The anchors' norm_check computes the same reference
    and bound without that term (it predates it in the spec): its ratio is kept as
    `max_ratio_without_sum_term`.

    Returns {tier, ok, n, n_fail, n_nan, max_ratio, max_abs, max_rel, x_absmax, worst, failures,
    causes}: `worst` is the element of largest err/bound (row, col, got, expected, bound, ratio, abs
    error, the float64 x, r, h and w, z for gelu, the f32 sum the kernels form for embed, and its
    cause when it fails); `failures` the first `detail` failing elements alike; `causes` counts the
    failing elements by cause: `nan`, `zero` (0 where the reference is not, e.g. a flush to zero of
    a subnormal), `h_flip` (exactly the output of an h one ulp off the reference's: T(x r) rounded
    the other way), `other`."""
    import torch.nn.functional as F
    dtype = inp["w"].dtype
    f64 = torch.float64
    w64 = inp["w"].to(f64)
    M, N = out.shape
    per = max(1, (1 << 23) // N)
    st = {"n": 0, "n_fail": 0, "n_nan": 0, "max_ratio": 0.0, "max_abs": 0.0, "max_rel": 0.0,
          "max_ratio_without_sum_term": 0.0, "x_absmax": 0.0}
    res_st = dict(st)
    worst, failures, causes = None, [], {}
    K = inp["ids"].shape[1] if kind == "embed_sum_rms_norm" else 2

    def element(i, j, r0, t, why=None):
        d = {"row": r0 + i, "col": j, "got": float(t["out"][i, j]), "expected": float(t["ref"][i, j]),
             "bound": float(t["bound"][i, j]), "ratio": float(t["ratio"][i, j]), "abs_err": float(t["err"][i, j]),
             "x64": float(t["x64"][i, j]), "r64": float(t["r"][i, 0]), "h_ref": float(t["h"][i, j]),
             "w": float(w64[j])}
        if kind == "rms_norm_gelu":
            d["z"] = float(t["z"][i, j])
        if t.get("sum_term") is not None:
            d["sum_term"] = float(t["sum_term"][i, j])
        if kind == "embed_sum_rms_norm":  # the f32 sum as the kernels form it, one row after the other
            rows = inp["ids"][r0 + i].long()
            vals = inp["table"][rows, j].float().cpu()
            s = torch.zeros((), dtype=torch.float32)
            for v in vals:
                s = s + v
            d["x_f32_sum"] = float(s)
            d["sum_abs_terms"] = float(inp["table"][rows, j].to(f64).abs().sum())
        if why:
            d["cause"] = why
        return d

    for r0 in range(0, M, per):
        r1 = min(M, r0 + per)
        sum_term = None
        if kind == "embed_sum_rms_norm":
            ids = inp["ids"][r0:r1].long()
            table64 = inp["table64"] if "table64" in inp else inp["table"].to(f64)
            x64 = F.embedding_bag(ids, table64, mode="sum")
            sum_term = K * ACC_EPS * F.embedding_bag(ids, table64.abs(), mode="sum")
        elif kind == "fused_add_rms_norm":
            a, b = inp["x"][r0:r1].to(f64), inp["res"][r0:r1].to(f64)
            x64 = _round_to(torch, a + b, dtype)
            sum_term = K * ACC_EPS * (a.abs() + b.abs())
            ro = out_res[r0:r1].to(f64)
            rb0 = 2 * _ulp(torch, x64, dtype)
            rb = rb0 + sum_term
            rerr = torch.where(torch.isnan(ro), torch.full_like(ro, math.inf), (ro - x64).abs())
            res_st["n"] += ro.numel()
            res_st["n_fail"] += int((rerr > rb).sum())
            res_st["n_nan"] += int(torch.isnan(ro).sum())
            res_st["max_ratio"] = max(res_st["max_ratio"], float((rerr / rb).max()))
            res_st["max_ratio_without_sum_term"] = max(res_st["max_ratio_without_sum_term"],
                                                       float((rerr / rb0).max()))
        else:
            x64 = inp["x"][r0:r1].to(f64)
            st["x_absmax"] = max(st["x_absmax"], float(x64.abs().max()))
        r = torch.rsqrt(x64.square().mean(-1, keepdim=True) + eps)
        h = _round_to(torch, x64 * r, dtype)
        z = h * w64
        if kind == "rms_norm_gelu":
            y = _gelu(torch, z)
            slope = (w64 * (0.5 * torch.erfc(-z * SQRT1_2) + z * torch.exp(-0.5 * z * z) / math.sqrt(2 * math.pi))).abs()
        else:
            y = z
            slope = w64.abs().expand_as(z)
        ref = _round_to(torch, y, dtype)
        bound0 = 2 * _ulp(torch, ref, dtype) + slope * _ulp(torch, h, dtype)
        bound = bound0 if sum_term is None else bound0 + slope * r * sum_term
        o = out[r0:r1].to(f64)
        nan = torch.isnan(o)
        err = torch.where(nan, torch.full_like(o, math.inf), (o - ref).abs())
        ratio = err / bound
        bad = err > bound
        st["n"] += o.numel()
        st["n_fail"] += int(bad.sum())
        st["n_nan"] += int(nan.sum())
        st["max_ratio"] = max(st["max_ratio"], float(ratio.max()))
        st["max_ratio_without_sum_term"] = max(st["max_ratio_without_sum_term"], float((err / bound0).max()))
        fin = torch.isfinite(err)
        if bool(fin.any()):
            st["max_abs"] = max(st["max_abs"], float(err[fin].max()))
            rel = err / ref.abs()
            relf = fin & (ref != 0)
            if bool(relf.any()):
                st["max_rel"] = max(st["max_rel"], float(rel[relf].max()))
        t = {"out": o, "ref": ref, "bound": bound, "ratio": ratio, "err": err, "x64": x64, "r": r, "h": h, "z": z,
             "sum_term": None if sum_term is None else slope * r * sum_term}
        def cause(bi, bj):
            """Labels of failing elements (index tensors): nan, zero (0 where the reference is not),
            h_flip (exactly the output of the neighbouring h), other."""
            ob, refb, hb, wb = o[bi, bj], ref[bi, bj], h[bi, bj], w64[bj]
            up, dn = _neighbours(torch, hb, dtype)
            f = (lambda v: _round_to(torch, _gelu(torch, v * wb), dtype)) if kind == "rms_norm_gelu" else \
                (lambda v: _round_to(torch, v * wb, dtype))
            isnan = torch.isnan(ob)
            zero = ~isnan & (ob == 0) & (refb != 0)
            flip = ~isnan & ~zero & ((ob == f(up)) | (ob == f(dn)))
            return {"nan": isnan, "zero": zero, "h_flip": flip, "other": ~(isnan | zero | flip)}

        def label(i, j):
            if not bool(bad[i, j]):
                return None
            c = cause(torch.tensor([i], device=o.device), torch.tensor([j], device=o.device))
            return next(k for k, v in c.items() if bool(v[0]))

        if bool(bad.any()):
            idx = bad.nonzero()
            for k, v in cause(idx[:, 0], idx[:, 1]).items():
                if int(v.sum()):
                    causes[k] = causes.get(k, 0) + int(v.sum())
            for (i, j) in idx[:max(0, detail - len(failures))].tolist():
                failures.append(element(i, j, r0, t, label(i, j)))
        k = int(ratio.flatten().argmax())
        i, j = divmod(k, N)
        if worst is None or float(ratio[i, j]) > worst["ratio"]:
            worst = element(i, j, r0, t, label(i, j))
    acc = {"tier": "A", "n": st["n"], "n_fail": st["n_fail"], "n_nan": st["n_nan"], "max_ratio": st["max_ratio"],
           "max_abs": st["max_abs"], "max_rel": st["max_rel"], "worst": worst, "failures": failures, "causes": causes}
    if sum_term is not None:
        acc["max_ratio_without_sum_term"] = st["max_ratio_without_sum_term"]
    if kind != "embed_sum_rms_norm" and kind != "fused_add_rms_norm":
        acc["x_absmax"] = st["x_absmax"]
    if out_res is not None:
        acc["residual"] = {k: res_st[k] for k in ("n", "n_fail", "n_nan", "max_ratio", "max_ratio_without_sum_term")}
        acc["n"] += res_st["n"]
        acc["n_fail"] += res_st["n_fail"]
        acc["n_nan"] += res_st["n_nan"]
        acc["max_ratio"] = max(acc["max_ratio"], res_st["max_ratio"])
    acc["ok"] = acc["n"] > 0 and acc["n_fail"] == 0 and acc["n_nan"] == 0
    return acc


def tier_a_line(x):
    """One line of check.log / the log for a timed-path check (pass or FAIL with the worst element)."""
    s = (f"{x['kernel']} {x['shape']} {x['impl']}: tier A {'pass' if x['ok'] else 'FAIL'} max err/bound "
         f"{x['max_ratio']:.4f}")
    if x.get("n_fail") or x.get("n_nan"):
        s += f"; {x.get('n_fail', '?')} of {x.get('n', '?')} elements fail ({x.get('n_nan', 0)} NaN)"
        if x.get("causes"):
            s += " [" + ", ".join(f"{k} {v}" for k, v in sorted(x["causes"].items())) + "]"
    if x.get("max_ratio_without_sum_term") is not None:
        s += f"; without the spec's f32-sum term {x['max_ratio_without_sum_term']:.4f}"
    wv = x.get("worst")
    if wv and not x["ok"]:
        s += (f"; worst [{wv['row']}, {wv['col']}]: got {wv['got']:.6g}, expected {wv['expected']:.6g}, bound "
              f"{wv['bound']:.3g}, abs err {wv['abs_err']:.3g}" + (f", z {wv['z']:.5g}" if "z" in wv else "")
              + f", h {wv['h_ref']:.6g}, w {wv['w']:.4g}" + (f", cause {wv['cause']}" if wv.get("cause") else ""))
    if x.get("x_absmax") is not None:
        s += f"; max |x| of the inputs {x['x_absmax']:.3g}"
    return s


# =============================================================================================
# goals and tables (pure functions of the report: record.py and --report use them too)
# =============================================================================================

def shape_text(r):
    return f"{r['M']}x{r['N']}"


def evaluate_goals(rep):
    """Fills each norm row's goal cells and returns the list of goal verdicts."""
    goals = []
    copy = (rep.get("ceilings") or {}).get("copy_GBps")
    rows = [r for r in rep.get("norms", []) if (r.get("tilec") or {}).get("us")]
    # 1. bandwidth
    bw = []
    for r in rows:
        r["goal_bw"] = None
        if r["kernel"] not in BANDWIDTH_KINDS:
            r["goal_bw"] = "n/a" if r["M"] >= 4096 and r["N"] >= 4096 else None
            continue
        if copy and r["M"] >= 4096 and r["N"] >= 4096:
            frac = r["bytes"] / (r["tilec"]["us"] * 1e-6) / 1e9 / copy
            r["goal_bw"] = "pass" if frac >= GOAL_BW_FRACTION else "short"
            bw.append((frac, r))
    if bw:
        worst = min(bw, key=lambda t: t[0])
        n_pass = sum(1 for f, _ in bw if f >= GOAL_BW_FRACTION)
        goals.append({"goal": "norms: >= 90% of copy bandwidth (M >= 4096, N >= 4096)",
                      "target": f">= {GOAL_BW_FRACTION:.0%} of {copy:.0f} GB/s",
                      "measured": f"{n_pass}/{len(bw)} rows; lowest {worst[1]['kernel']} "
                                  f"{shape_text(worst[1])} at {worst[0]:.1%}",
                      "status": "pass" if n_pass == len(bw) else "short"})
    else:
        goals.append({"goal": "norms: >= 90% of copy bandwidth (M >= 4096, N >= 4096)",
                      "target": f">= {GOAL_BW_FRACTION:.0%}", "measured": "not measured",
                      "status": "not measured"})
    # 2. no slower than Triton, at every shape
    cmp = []
    for r in rows:
        r["goal_triton"] = None
        t = (r.get("triton") or {}).get("us")
        if not t:
            continue
        ratio = r["tilec"]["us"] / t
        noise = max(r["tilec"].get("rel_iqr") or 0.0, r["triton"].get("rel_iqr") or 0.0, 0.005)
        r["goal_triton"] = "pass" if ratio <= 1.0 else "noise" if ratio <= 1.0 + noise else "short"
        cmp.append((ratio, r))
    if cmp:
        worst = max(cmp, key=lambda t: t[0])
        n_short = sum(1 for _, r in cmp if r["goal_triton"] == "short")
        n_noise = sum(1 for _, r in cmp if r["goal_triton"] == "noise")
        goals.append({"goal": "norms: no slower than Triton at every shape",
                      "target": "tilec/Triton <= 1.00",
                      "measured": f"{len(cmp) - n_short - n_noise}/{len(cmp)} faster or equal, "
                                  f"{n_noise} slower within the timing spread, {n_short} slower; "
                                  f"worst {worst[1]['kernel']} {shape_text(worst[1])} {worst[0]:.2f}x",
                      "status": "short" if n_short else "pass"})
    else:
        goals.append({"goal": "norms: no slower than Triton at every shape", "target": "tilec/Triton <= 1.00",
                      "measured": "not measured", "status": "not measured"})
    # 3. launch overhead
    la = rep.get("launch") or {}
    if la.get("runtime_us"):
        us = min(la["runtime_us"])
        drv = min(la["driver_us"]) if la.get("driver_us") else None
        goals.append({"goal": "launch overhead (tile::Runtime::launch, host time per launch)",
                      "target": f"<= {GOAL_LAUNCH_US:g} us",
                      "measured": f"{us:.2f} us" + (f" (bare cuLaunchKernel {drv:.2f} us: tilec adds "
                                                     f"{us - drv:.2f} us)" if drv else ""),
                      "status": "pass" if us <= GOAL_LAUNCH_US else "short"})
    else:
        goals.append({"goal": "launch overhead (tile::Runtime::launch)", "target": f"<= {GOAL_LAUNCH_US:g} us",
                      "measured": "not measured", "status": "not measured"})
    # 4. compile time (measured on the build machine)
    ct = ((rep.get("compile") or {}).get("tilec") or {}).get("kernels") or []
    if ct:
        # The build machine is shared (other builds run beside it): each kernel's best of its
        # runs is the figure least disturbed by them; the medians are in the JSON.
        cold = [(min(k["cold_ms"]), k["kernel"]) for k in ct if k.get("cold_ms")]
        hit = [(min(k["hit_ms"]), k["kernel"]) for k in ct if k.get("hit_ms")]
        worst_cold, worst_hit = max(cold), max(hit)
        info = rep["compile"]["tilec"]
        goals.append({"goal": f"cold compile to PTX ({info.get('target', '')}; build machine: "
                              f"{info.get('machine', '?')})",
                      "target": f"<= {GOAL_COLD_COMPILE_MS:g} ms",
                      "measured": f"{min(cold)[0]:.1f}-{worst_cold[0]:.1f} ms (best of "
                                  f"{len(ct[0]['cold_ms'])} per kernel; slowest {worst_cold[1]})",
                      "status": "pass" if worst_cold[0] <= GOAL_COLD_COMPILE_MS else "short"})
        goals.append({"goal": "disk cache hit (build machine)", "target": f"<= {GOAL_HIT_MS:g} ms",
                      "measured": f"{min(hit)[0]:.2f}-{worst_hit[0]:.2f} ms",
                      "status": "pass" if worst_hit[0] <= GOAL_HIT_MS else "short"})
    else:
        goals.append({"goal": "cold compile to PTX", "target": f"<= {GOAL_COLD_COMPILE_MS:g} ms",
                      "measured": "not measured", "status": "not measured"})
    # 5. the MQA kernels, TurboQuant; kernels that do not exist yet
    goals += mqa_goals(rep)
    goals += tq_goals(rep)
    for name, what in NOT_BUILT:
        goals.append({"goal": f"{name}: {what}", "target": "-", "measured": "-", "status": "not built yet"})
    return goals


ANCHOR_PARTS = ("tq_goal", "mqa", "paged_mqa", "tq")
# The TurboQuant goal's shapes (and 8 x 8192 beside them) the tq_goal part times the anchor at.
TQ_GOAL_PRESETS, TQ_GOAL_BS, TQ_GOAL_SEQS = ("k4v4", "k3v4", "k8v4"), [8, 32, 128], [8192, 32768]


def anchor_part_list(text):
    """The anchor parts --anchor-parts names, in the order they run (ANCHOR_PARTS)."""
    names = [p.strip() for p in (text or "").split(",") if p.strip() and p.strip() != "none"]
    bad = [p for p in names if p not in ANCHOR_PARTS]
    if bad:
        raise ValueError(f"--anchor-parts: unknown part(s) {', '.join(bad)} ({', '.join(ANCHOR_PARTS)})")
    return [p for p in ANCHOR_PARTS if p in names]


def fmt(v, nd=1):
    if v is None:
        return "-"
    if isinstance(v, float):
        if v != v:
            return "nan"
        if abs(v) >= 100:
            return f"{v:.0f}"
        if abs(v) >= 1:
            return f"{v:.{nd}f}"
        return f"{v:.3g}"
    return str(v)


def compiled_cell(c):
    """The torch.compile cell: the time, or "n/a (reason)" when torch.compile failed or ran out."""
    if not c:
        return "-"
    if c.get("na"):
        why = str(c["na"]).replace("|", "/")
        return f"n/a ({why[:70] + '...' if len(why) > 70 else why})"
    return fmt(c.get("us"), 2)


def norm_table(rep):
    copy = (rep.get("ceilings") or {}).get("copy_GBps")
    L = ["| kernel | M x N | tilec us | warps | Triton us | tilec/Triton | vs Triton | GB/s | tilec/copy "
         "| >= 90% copy | eager us | torch.compile us | checks |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rep.get("norms", []):
        t, tr = r.get("tilec") or {}, r.get("triton") or {}
        us, tus = t.get("us"), tr.get("us")
        gbps = r["bytes"] / (us * 1e-6) / 1e9 if us else None
        frac = f"{gbps / copy:.1%}" if gbps and copy else "-"
        ratio = f"{us / tus:.2f}" if us and tus else "-"
        warps = f"{t.get('warps')} (best of {len(t.get('candidates', []))})" if t.get("warps") else "-"
        checks = "pass" if r.get("checks_ok") else "FAIL" if r.get("checks_ok") is False else "-"
        L.append(f"| {r['kernel']} | {shape_text(r)} | {fmt(us, 2)} | {warps} | {fmt(tus, 2)} | {ratio} | "
                 f"{r.get('goal_triton') or '-'} | {fmt(gbps)} | {frac} | {r.get('goal_bw') or '-'} | "
                 f"{fmt((r.get('eager') or {}).get('us'), 2)} | {compiled_cell(r.get('compiled'))} | {checks} |")
    return L


def mqa_table(rep):
    """fp8_mqa_logits (fastest build per spec shape) and fp8_paged_mqa_logits (fastest build per
    anchor paged shape) next to the anchor rows of the same run."""
    mq = (rep.get("checks") or {}).get("mqa_gpu") or {}
    if not mq.get("rows") and not mq.get("paged_rows"):
        return []
    ce = rep.get("ceilings") or {}
    fp8 = ce.get("fp8_TFLOPs")
    L = ["| kernel | shape | tilec build | tilec us | TFLOP/s | GB/s | % roofline | Triton us | tilec/Triton |",
         "|---|---|---|---|---|---|---|---|---|"]
    anchors = {}
    for a in rep.get("anchor_rows") or []:
        m = re.match(r"(causal|window\d+) S=(\d+) T=(\d+)", str(a.get("shape", "")))
        if a.get("part") == "mqa" and m and a.get("us"):
            anchors[(m.group(1).startswith("causal"), int(m.group(2)), int(m.group(3)))] = a
    best = {}
    for r in mq.get("rows") or []:
        key = (r["pattern"] == "causal", r["S"], r["T"])
        if key not in best or r["us"] < best[key]["us"]:
            best[key] = r
    for key, r in best.items():
        a = anchors.get(key) or {}
        frac = f"{r['tflops'] / fp8:.1%} fp8" if fp8 else "-"
        L.append(f"| fp8_mqa_logits | {r['pattern']} S={r['S']} T={r['T']} | {r['build'].split('.', 1)[-1]} | "
                 f"{fmt(r['us'])} | {fmt(r['tflops'])} | - | {frac} | {fmt(a.get('us'))} | "
                 f"{format(r['us'] / a['us'], '.2f') if a.get('us') else '-'} |")
    for r in paged_rows(rep):
        L.append(f"| fp8_paged_mqa_logits | B={r['B']} next_n={r['next_n']} ctx={r['ctx']} | "
                 f"{r['build'].split('.', 1)[-1]} | {fmt(r['us'])} | {fmt(r['tflops'])} | {fmt(r['gbps'])} | "
                 f"{format(r['roofline'], '.1%') if r.get('roofline') else '-'} | {fmt(r['triton_us'])} | "
                 f"{format(r['ratio'], '.2f') if r.get('ratio') else '-'} |")
    return L


def tq_table(rep):
    """turboquant_decode: tq-gpu's fastest row per (preset, B, seq_len) next to the anchor's."""
    rows = tq_rows(rep)
    if not rows:
        return []
    copy = (rep.get("ceilings") or {}).get("copy_GBps")
    L = [f"| TurboQuant preset | B x seq_len | HEADS | splits | tilec us | GB/s (bytes read) | % of copy "
         f"({fmt(copy)} GB/s) | Triton us | Triton grid | tilec/Triton | goal shape | tier C |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        L.append(f"| {r['preset']} | {r['B']}x{r['seq_len']} | {fmt(r.get('heads'))} | {fmt(r.get('splits'))} | "
                 f"{fmt(r['us'], 2)} | {fmt(r.get('gbps'))} | "
                 f"{format(r['copy_frac'], '.1%') if r.get('copy_frac') is not None else '-'} | "
                 f"{fmt(r.get('triton_us'), 2)} | {r.get('triton_grid') or '-'} | "
                 f"{format(r['ratio'], '.2f') if r.get('ratio') else '-'} | {'yes' if r['large'] else '-'} | "
                 f"{ {True: 'pass', False: 'FAIL'}.get(r.get('check_ok'), '-')} |")
    return L


def summary_lines(rep):
    m, c = rep.get("meta", {}), rep.get("checks", {})
    b = m.get("build", {})
    L = [f"device: {m.get('device', '?')} ({m.get('driver_clocks_start', '?')}); torch {m.get('torch', '?')}, "
         f"triton {m.get('triton', '?')}; tilec commit {b.get('short', '?')}"
         + (f" + {b['dirty']} modified files" if b.get("dirty") not in (None, "0") else "")
         + f"; suite wall {fmt(m.get('wall_s'))} s"]
    ng = c.get("norm_gpu") or {}
    if ng:
        L.append(f"correctness: norm-gpu {ng.get('passed', '?')} passed, {ng.get('failed', '?')} failed "
                 f"({ng.get('shards', '?')} shards, {fmt(ng.get('wall_s'))} s)"
                 + (f" ERROR {ng['error']}" if ng.get("error") else ""))
    if c.get("layout_gpu"):
        lg = c["layout_gpu"]
        L.append(f"correctness: layout-gpu {lg.get('passed', '?')} passed, {lg.get('failed', '?')} failed "
                 f"(2-D tiles, reductions, layout conversions)" + ("" if lg.get("ok") else " FAIL"))
    if c.get("mqa_gpu"):
        mg = c["mqa_gpu"]
        L.append(f"correctness: mqa-gpu {mg.get('passed', '?')} passed, {mg.get('failed', '?')} failed "
                 f"(fp8_mqa_logits and the paged variant, tier B)" + ("" if mg.get("ok") else " FAIL"))
    if c.get("tq_gpu"):
        tg = c["tq_gpu"]
        L.append(f"correctness: tq-gpu {tg.get('passed', '?')} passed, {tg.get('failed', '?')} failed "
                 f"(turboquant_decode, tier C; exit {tg.get('exit_code', '?')}; {len(tg.get('rows') or [])} "
                 f"timing rows)" + ("" if tg.get("ok") else " FAIL"))
    tp = c.get("timed_path") or []
    if tp:
        bad = [f"{x['kernel']} {x['shape']} {x['impl']} ({x['max_ratio']:.2f})" for x in tp if not x["ok"]]
        L.append(f"timed inputs, tier A: {len(tp) - len(bad)}/{len(tp)} pass" +
                 (f"; FAIL (max err/bound): {', '.join(bad)}" if bad else ""))
    tc = rep.get("torch_compile")
    if tc:
        if tc.get("shapes") == "none":
            L.append("torch.compile: not run (--torch-compile none)")
        else:
            L.append(f"torch.compile (dynamic={tc.get('dynamic')}, {tc.get('shapes')} shapes): "
                     f"{len(tc.get('compiles') or [])} first calls that compiled, {fmt(tc.get('compile_s'))} s in all "
                     f"(limit {fmt(tc.get('timeout_s'))} s)"
                     + ("; n/a: " + "; ".join(f"{k}: {v}" for k, v in tc["na"].items()) if tc.get("na") else ""))
    if c.get("aot_example"):
        a = c["aot_example"]
        L.append(f"AOT example (rms_norm f32, launcher without LLVM): {'pass' if a.get('ok') else 'FAIL'}")
    if c.get("aot_tuned"):
        L.append("AOT launcher with tuned configurations (dispatch on the key, results): "
                 + ("pass" if c["aot_tuned"].get("ok") else "FAIL"))
    ce = rep.get("ceilings") or {}
    if ce:
        L.append(f"ceilings (same process): copy {fmt(ce.get('copy_GBps'))} GB/s, fp8 {fmt(ce.get('fp8_TFLOPs'))} "
                 f"TFLOP/s, bf16 {fmt(ce.get('bf16_TFLOPs'))} TFLOP/s; copy again at the end "
                 f"{fmt(ce.get('copy_again_GBps'))} GB/s")
    la = rep.get("launch") or {}
    if la and not la.get("runtime_us"):
        L.append(f"launch-overhead: no result (exit {la.get('exit_code', '?')}; launch.log)")
    elif la:
        L.append("launch, host us per launch: tile::Runtime " + "/".join(fmt(x, 2) for x in la.get("runtime_us", []))
                 + ", cuLaunchKernel " + "/".join(fmt(x, 2) for x in la.get("driver_us", []))
                 + f", Triton JIT {fmt(la.get('triton_jit_us'), 2)}, Triton CompiledKernel "
                 f"{fmt(la.get('triton_compiledkernel_us'), 2)}")
    co = rep.get("compile") or {}
    if co.get("triton_cold_ms"):
        L.append(f"Triton rms_norm -> sm_90 cold compile {fmt(co['triton_cold_ms'])} ms, cache hit "
                 f"{fmt(co.get('triton_hit_ms'), 2)} ms (this process)")
    sa = c.get("sass") or {}
    if sa:
        L.append("SASS (cuobjdump -sass of the cubins): " + ("; ".join(
            f"{k}: " + (", ".join(f"{op} {n}" for op, n in sorted(v.items())) or "none of "
                        + "/".join(SASS_FAMILIES)) for k, v in sa.items() if k != "error")
            or sa.get("error", "")))
    L.append(f"timing: {rep.get('method', '-')}")
    return L


def tier_a_table(rep):
    """The failing tier-A checks of the timed inputs, one row each, with the worst element and
    the failing elements counted by cause (tier_a's `causes`)."""
    bad = [x for x in (rep.get("checks") or {}).get("timed_path") or [] if not x.get("ok")]
    if not bad:
        return []
    L = ["| tier A FAIL | M x N | impl | failing / checked | max err/bound | worst at [row, col] | got | expected "
         "| bound | z or x | h, w | causes |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in bad:
        wv = x.get("worst") or {}
        zx = f"z {wv['z']:.5g}" if "z" in wv else (f"x {wv['x64']:.4g}" if "x64" in wv else "-")
        if "x_f32_sum" in wv:
            zx += f" (f32 sum {wv['x_f32_sum']:.4g}, sum abs {wv.get('sum_abs_terms', 0):.3g})"
        causes = ", ".join(f"{k} {v}" for k, v in sorted((x.get("causes") or {}).items())) or "-"
        L.append(f"| {x['kernel']} | {x['shape']} | {x['impl']} | {x.get('n_fail', '?')} / {x.get('n', '?')} | "
                 f"{x['max_ratio']:.4f} | " + (f"[{wv['row']}, {wv['col']}]" if wv else "-") + " | "
                 f"{fmt(wv.get('got'))} | {fmt(wv.get('expected'))} | {fmt(wv.get('bound'))} | {zx} | "
                 + (f"{wv['h_ref']:.5g}, {wv['w']:.4g}" if wv else "-") + f" | {causes} |")
    return L


def goal_table(goals):
    L = ["| goal | target | measured | status |", "|---|---|---|---|"]
    for g in goals:
        L.append(f"| {g['goal']} | {g['target']} | {g['measured']} | {g['status']} |")
    return L


def render_markdown(rep):
    goals = evaluate_goals(rep)
    rep["goals"] = goals
    L = summary_lines(rep) + [""] + norm_table(rep)
    for extra in (tier_a_table(rep), mqa_table(rep), tq_table(rep)):
        if extra:
            L += [""] + extra
    L += [""] + goal_table(goals)
    if rep.get("errors"):
        L.append("")
        L.append("ERRORS: " + "; ".join(f"{k}: {str(v)[:200]}" for k, v in rep["errors"].items()))
    if rep.get("skipped"):
        L.append("SKIPPED: " + "; ".join(rep["skipped"]))
    return "\n".join(L) + "\n"


# =============================================================================================
# the GPU side
# =============================================================================================

class Suite:
    def __init__(self, args):
        self.args = args
        self.rep = {"suite": 1, "meta": {}, "checks": {}, "ceilings": {}, "launch": {}, "compile": {},
                    "norms": [], "anchor_rows": [], "errors": {}, "skipped": [],
                    "method": "CUDA-graph replay of L calls rotating over S input sets of fresh random data "
                              "(S sets > 3x L2 together), median per call over replays; per-launch CUDA-event "
                              "medians in the JSON (us_events)"}
        self.deadline = T0 + args.budget

    # ---- helpers -----------------------------------------------------------------------------
    def error(self, where, e):
        self.rep["errors"][where] = f"{type(e).__name__}: {e}"[:1500]
        log(f"[{where}] ERROR {type(e).__name__}: {str(e)[:400]}")
        log(traceback.format_exc())

    def out(self, name):
        return os.path.join(self.args.out, name)

    def save(self):
        try:
            with open(self.out("suite.json"), "w") as f:
                json.dump(self.rep, f, indent=1, default=str)
        except Exception as e:
            log("saving the JSON failed:", e)

    def run(self, cmd, timeout):
        """(exit code, stdout + stderr, seconds); a program past `timeout` is killed and reported
        with the exit code "timeout" and what it printed until then."""
        t0 = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            text = "".join(x.decode(errors="replace") if isinstance(x, bytes) else (x or "")
                           for x in (e.stdout, e.stderr))
            return "timeout", text + f"\n[killed after {timeout} s]\n", time.time() - t0
        return p.returncode, p.stdout + p.stderr, time.time() - t0

    def run_check(self, name, cmd):
        """Runs a check program (300 s at most) and appends its output to check.log."""
        rc, text, secs = self.run(cmd, 300)
        with open(self.out("check.log"), "a") as f:
            f.write(f"\n==== {name} (exit {rc})\n{text}")
        return rc, text, secs

    # ---- 1. payload ----------------------------------------------------------------------------
    def unpack(self):
        if os.path.exists(PAYLOAD):
            with tarfile.open(PAYLOAD) as t:
                try:
                    t.extractall(CARRY, filter="data")
                except TypeError:  # Python without extraction filters
                    t.extractall(CARRY)
            log(f"unpacked {os.path.relpath(PAYLOAD, ROOT)}")
        info = os.path.join(GPU_DIR, "BUILD_INFO")
        if not os.path.exists(info):
            raise RuntimeError(f"no {info}: run scripts/gpu-artifacts.sh here and carry .carry/payload.tar.xz")
        self.rep["meta"]["build"] = parse_build_info(open(info).read())
        ct = os.path.join(GPU_DIR, "compile-times.json")
        if os.path.exists(ct):
            self.rep["compile"]["tilec"] = json.load(open(ct))

    # ---- 2. correctness ------------------------------------------------------------------------
    def checks(self):
        exe = os.path.join(GPU_DIR, "norm-gpu")
        shards = max(1, min(self.args.shards or (os.cpu_count() or 1), 32))
        t0 = time.time()
        import tempfile
        files = [tempfile.TemporaryFile(mode="w+") for _ in range(shards)]
        procs = [subprocess.Popen([exe, GPU_DIR, "--check-only", "--shard", f"{i}/{shards}"],
                                  stdout=files[i], stderr=subprocess.STDOUT, text=True)
                 for i in range(shards)]
        texts, passed, failed, error = [], 0, 0, None
        for i, p in enumerate(procs):
            try:
                p.wait(timeout=max(60, self.deadline - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                error = f"shard {i} timed out"
            files[i].seek(0)
            text = files[i].read()
            texts.append(f"==== shard {i}/{shards} (exit {p.returncode})\n{text}")
            r = parse_norm_gpu(text)
            if r is None:
                error = error or f"shard {i} printed no result (exit {p.returncode}): {text.strip()[-300:]}"
            else:
                passed += r[0]
                failed += r[1]
        with open(self.out("check.log"), "w") as f:
            f.write("\n".join(texts))
        ok = error is None and failed == 0 and passed > 0
        self.rep["checks"]["norm_gpu"] = {"passed": passed, "failed": failed, "shards": shards,
                                          "wall_s": round(time.time() - t0, 1), "ok": ok, "error": error}
        log(f"norm-gpu checks: {passed} passed, {failed} failed ({shards} shards, {time.time() - t0:.0f} s)"
            + (f" ERROR {error}" if error else ""))
        layout = os.path.join(GPU_DIR, "layout-gpu")
        if os.path.exists(layout):
            rc, text, secs = self.run_check("layout-gpu", [layout, os.path.join(GPU_DIR, "layouts")])
            r = parse_layout_gpu(text)
            self.rep["checks"]["layout_gpu"] = {"passed": r[0] if r else "?", "failed": r[1] if r else "?",
                                                "ok": rc == 0 and bool(r) and r[1] == 0 and r[0] > 0,
                                                "wall_s": round(secs, 1)}
            log(f"layout-gpu checks: {r[0] if r else '?'} passed, {r[1] if r else '?'} failed (exit {rc})")
        mqa = os.path.join(GPU_DIR, "mqa-gpu")
        if os.path.exists(mqa):
            rc, text, secs = self.run_check("mqa-gpu", [mqa, GPU_DIR])
            r = parse_mqa_gpu(text)
            self.rep["checks"]["mqa_gpu"] = {
                "passed": r["passed"] if r else "?", "failed": r["failed"] if r else "?",
                "rows": r["rows"] if r else [], "paged_rows": r["paged_rows"] if r else [],
                "wall_s": round(secs, 1),
                "ok": rc == 0 and bool(r) and r["failed"] == 0 and r["passed"] > 0}
            log(f"mqa-gpu checks: {r['passed'] if r else '?'} passed, {r['failed'] if r else '?'} failed (exit {rc})")
            for p in paged_rows(self.rep):  # the fastest build per shape (all of them in check.log)
                log(f"  paged B={p['B']} next_n={p['next_n']} ctx={p['ctx']} {p['build']}: {p['us']:.1f} us "
                    f"{p['tflops']:.1f} TFLOP/s {p['gbps']:.0f} GB/s")
        tq = os.path.join(GPU_DIR, "tq-gpu")
        if os.path.exists(tq):
            rc, text, secs = self.run_check("tq-gpu", [tq, GPU_DIR])
            r = parse_tq_gpu(text)
            self.rep["checks"]["tq_gpu"] = {
                "passed": r["passed"] if r else "?", "failed": r["failed"] if r else "?",
                "rows": r["rows"] if r else [], "bad_lines": r["bad_lines"] if r else [],
                "exit_code": rc, "wall_s": round(secs, 1),
                # the verdict: exit 0, its own count when it prints one, and no unreadable row
                "ok": rc == 0 and bool(r) and not r["bad_lines"] and (r["failed"] in (None, 0))}
            log(f"tq-gpu: exit {rc}, {len(r['rows']) if r else 0} timing rows"
                + (f", checks {r['passed']} passed, {r['failed']} failed" if r and r["passed"] is not None else ""))
        else:
            log("tq-gpu: not in the payload (TurboQuant not measured)")
        self.sass()
        aot = os.path.join(GPU_DIR, "aot-rms-norm")
        if os.path.exists(aot):
            text = ""
            for m, n in ((4096, 4096), (7, 769)):
                rc, t, _ = self.run([aot, str(m), str(n)], 120)
                text += f"$ aot-rms-norm {m} {n}\n{t}exit code {rc}\n"
            runs = text.split("$ aot-rms-norm")[1:]
            ok_aot = len(runs) == 2 and all(parse_aot(t) for t in runs)
            self.rep["checks"]["aot_example"] = {"ok": ok_aot, "output": text[-2000:]}
            log(text.rstrip())
        tuned = os.path.join(GPU_DIR, "aot-tuned-scale")
        if os.path.exists(tuned):
            rc, text, _ = self.run([tuned], 120)
            self.rep["checks"]["aot_tuned"] = {"ok": rc == 0 and aot_tuned_ok(text), "output": text[-2000:],
                                               "expected": {str(k): v for k, v in AOT_TUNED_EXPECTED.items()}}
            log(text.rstrip())

    def sass(self):
        """The opcode families of the cubins scripts/gpu-artifacts.sh built (the machine code the
        driver would run), by cuobjdump -sass on this machine."""
        folder = os.path.join(GPU_DIR, "sass")
        tool = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
        if not os.path.isdir(folder):
            return
        if not os.path.exists(tool):
            self.rep["checks"]["sass"] = {"error": "no cuobjdump on this machine"}
            log("sass: no cuobjdump")
            return
        out = {}
        for name in sorted(f for f in os.listdir(folder) if f.endswith(".cubin")):
            rc, text, _ = self.run([tool, "-sass", os.path.join(folder, name)], 120)
            out[name[:-len(".cubin")]] = parse_sass(text) if rc == 0 else {"error": text.strip()[-200:]}
            log(f"sass {name}: {out[name[:-len('.cubin')]]}")
        self.rep["checks"]["sass"] = out

    def launch_overhead(self):
        exe = os.path.join(GPU_DIR, "launch-overhead")
        rc, text, _ = self.run([exe, GPU_DIR], 300)
        with open(self.out("launch.log"), "w") as f:
            f.write(text)
        self.rep["launch"].update(parse_launch(text))
        self.rep["launch"]["exit_code"] = rc
        log(text.rstrip())

    # ---- 3. torch, anchors, ceilings ----------------------------------------------------------
    def import_anchors(self):
        for d in (os.path.join(CARRY, "anchors"), os.path.join(ROOT, "shared", "anchors"),
                  os.path.join(os.path.dirname(ROOT), "shared", "anchors")):
            if os.path.exists(os.path.join(d, "triton_anchors.py")):
                sys.path.insert(0, d)
                break
        import triton_anchors as ta  # noqa: E402  (sets fresh Triton/inductor cache dirs)
        import torch
        import triton
        self.ta, self.torch, self.triton = ta, torch, triton
        torch.backends.cuda.matmul.allow_tf32 = False
        ta.REPORT["meta"] = ta.meta()
        m = self.rep["meta"]
        m.update({k: ta.REPORT["meta"][k] for k in ("device", "cc", "sms", "mem_GiB", "torch", "torch_cuda",
                                                    "triton", "python", "driver_clocks_start")})
        p = torch.cuda.get_device_properties(0)
        self.l2 = int(getattr(p, "L2_cache_size", 50 << 20))
        m["l2_bytes"] = self.l2

    def ceilings(self):
        ta = self.ta
        ta.part_ceilings()
        c = self.rep["ceilings"]
        c.update({k: ta.CEIL.get(k) for k in ("copy_GBps", "fp8_TFLOPs", "bf16_TFLOPs")})
        c["detail"] = ta.REPORT["ceilings"]
        log(f"ceilings: copy {c['copy_GBps']:.0f} GB/s, fp8 {c['fp8_TFLOPs']:.0f} TFLOP/s, "
            f"bf16 {c['bf16_TFLOPs']:.0f} TFLOP/s")

    def triton_launch_and_compile(self):
        ta = self.ta
        ta.part_launch(cold=True)
        L = ta.REPORT["details"].get("launch", {})
        self.rep["launch"].update({"triton_jit_us": L.get("triton_jit_launch_us"),
                                   "triton_compiledkernel_us": L.get("triton_compiledkernel_launch_us"),
                                   "torch_add_us": L.get("torch_add_out_us"),
                                   "triton_first_call_s": L.get("first_triton_call_s")})
        from triton.backends.compiler import GPUTarget
        sig = {"X": "*bf16", "W": "*bf16", "Y": "*bf16", "stride_x": "i32", "stride_y": "i32", "N": "i32",
               "eps": "fp32", "BLOCK": "constexpr"}
        rec = ta.cross_compile(ta._rms_norm_kernel, sig, {"BLOCK": 4096}, (0, 1, 2), GPUTarget("cuda", 90, 32),
                               {"num_warps": 8})
        self.rep["compile"]["triton_cold_ms"] = rec["cold_ms"]
        self.rep["compile"]["triton_hit_ms"] = rec["hit_ms"]

    # ---- 4. the driver, for tilec's PTX ---------------------------------------------------------
    def open_driver(self):
        import ctypes as C
        self.C = C
        cu = C.CDLL("libcuda.so.1")
        cu.cuInit.argtypes = [C.c_uint]
        cu.cuCtxGetCurrent.argtypes = [C.POINTER(C.c_void_p)]
        cu.cuModuleLoadData.argtypes = [C.POINTER(C.c_void_p), C.c_char_p]
        cu.cuModuleGetFunction.argtypes = [C.POINTER(C.c_void_p), C.c_void_p, C.c_char_p]
        cu.cuLaunchKernel.argtypes = [C.c_void_p, C.c_uint, C.c_uint, C.c_uint, C.c_uint, C.c_uint, C.c_uint,
                                      C.c_uint, C.c_void_p, C.POINTER(C.c_void_p), C.POINTER(C.c_void_p)]
        cu.cuGetErrorString.argtypes = [C.c_int, C.POINTER(C.c_char_p)]
        self.cu = cu
        self.torch.zeros(1, device="cuda")  # torch makes the primary context current
        self.check(cu.cuInit(0), "cuInit")
        ctx = C.c_void_p()
        self.check(cu.cuCtxGetCurrent(C.byref(ctx)), "cuCtxGetCurrent")
        if not ctx.value:
            raise RuntimeError("no current CUDA context after torch initialised the device")
        self.kernels = {}

    def check(self, status, what):
        if status:
            s = self.C.c_char_p()
            self.cu.cuGetErrorString(status, self.C.byref(s))
            raise RuntimeError(f"{what} failed: CUDA error {status} ({(s.value or b'?').decode()})")

    def load(self, key):
        """The tilec build KEY (KEY.ptx + KEY.ptx.meta in .carry/gpu), loaded; None if absent."""
        if key in self.kernels:
            return self.kernels[key]
        path = os.path.join(GPU_DIR, key + ".ptx")
        if not os.path.exists(path):
            return None
        C = self.C
        meta = parse_meta(open(path + ".meta").read())
        mod, fn = C.c_void_p(), C.c_void_p()
        self.check(self.cu.cuModuleLoadData(C.byref(mod), open(path, "rb").read() + b"\0"), f"load {key}")
        self.check(self.cu.cuModuleGetFunction(C.byref(fn), mod, meta["kernel"].encode()), f"function of {key}")
        meta["fn"], meta["key"] = fn, key
        self.kernels[key] = meta
        return meta

    def tilec_call(self, k, grid, values):
        """A launcher of tilec build k with its parameters taken by name from `values`."""
        C = self.C
        keep, ptrs = [], []
        for name, ty in k["params"]:
            v = values[name]
            if ty.startswith("ptr<"):
                c = C.c_uint64(v.data_ptr())
            elif ty == "f32":
                c = C.c_float(v)
            elif ty == "i64":
                c = C.c_int64(v)
            elif ty == "i32":
                c = C.c_int32(v)
            else:
                raise RuntimeError(f"{k['key']}: parameter {name} of type {ty} is not handled")
            keep.append(c)
            ptrs.append(C.cast(C.pointer(c), C.c_void_p))
        params = (C.c_void_p * len(ptrs))(*ptrs)
        fn, threads, cu, torch = k["fn"], int(k["threads"]), self.cu, self.torch
        gx, gy, gz = grid

        def call():
            st = torch.cuda.current_stream().cuda_stream
            r = cu.cuLaunchKernel(fn, gx, gy, gz, threads, 1, 1, 0, st, params, None)
            if r:
                self.check(r, f"launch of {k['key']}")
        call.keep = (keep, params)
        return call

    # ---- the timing harness ------------------------------------------------------------------
    def measure(self, calls):
        """calls[i] launches on input set i. Returns us per call (graph replay median), the event
        median, spread and the sizes used."""
        torch = self.torch
        n = len(calls)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):  # warm-up (compiles, autotunes, allocates) off the capture path
            for i in range(min(n, 3)):
                calls[i]()
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        ev = []
        reps = 40
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        for j in range(reps):
            starts[j].record()
            calls[(j + 3) % n]()
            ends[j].record()
        torch.cuda.synchronize()
        ev = [a.elapsed_time(b) for a, b in zip(starts, ends)]
        ev_ms = median(ev[5:])
        res = {"us_events": ev_ms * 1e3, "sets": n}
        try:
            L = int(min(20000, max(n, math.ceil(1.0 / max(ev_ms, 1e-4)))))
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for j in range(L):
                    calls[j % n]()
            g.replay()
            torch.cuda.synchronize()
            R = int(max(7, min(30, math.ceil(150.0 / (L * ev_ms)))))
            e0 = [torch.cuda.Event(enable_timing=True) for _ in range(R)]
            e1 = [torch.cuda.Event(enable_timing=True) for _ in range(R)]
            for r in range(R):
                e0[r].record()
                g.replay()
                e1[r].record()
            torch.cuda.synchronize()
            per = [a.elapsed_time(b) / L * 1e3 for a, b in zip(e0, e1)]
            del g
            res.update({"us": median(per), "rel_iqr": rel_iqr(per), "timer": "graph", "calls_per_replay": L,
                        "replays": R})
        except Exception as e:  # keep the event timing
            res.update({"us": ev_ms * 1e3, "rel_iqr": rel_iqr(ev[5:]), "timer": "events",
                        "graph_error": f"{type(e).__name__}: {str(e)[:300]}"})
            log(f"  graph timing failed, events kept: {res['graph_error']}")
            try:
                torch.cuda.synchronize()
            except Exception:
                pass
        return res

    # ---- 5. the norms ------------------------------------------------------------------------
    def norm_inputs(self, M, N, nsets, gen):
        torch = self.torch
        bf16 = torch.bfloat16

        def rand(shape, scale=1.0):
            out = torch.empty(shape, device="cuda", dtype=bf16)
            if nsets <= 16:
                for i in range(shape[0]):
                    out[i].copy_(torch.randn(shape[1:], device="cuda", generator=gen) * scale)
            else:
                out.copy_(torch.randn(shape, device="cuda", generator=gen) * scale)
            return out

        inp = {"x": rand((nsets, M, N)), "res": rand((nsets, M, N)),
               "y": torch.empty((nsets, M, N), device="cuda", dtype=bf16),
               "w": (1.0 + 0.5 * torch.randn(N, device="cuda", generator=gen)).to(bf16)}
        u = torch.randint(0, EMBED_VOCAB, (nsets, M, EMBED_K), device="cuda", generator=gen, dtype=torch.int32)
        inp["ids"] = u + torch.arange(EMBED_K, device="cuda", dtype=torch.int32) * EMBED_VOCAB
        inp["table"] = (0.25 * torch.randn(EMBED_K * EMBED_VOCAB, N, device="cuda", generator=gen)).to(bf16)
        return inp

    def set_bytes(self, kind, M, N):
        if kind == "embed_sum_rms_norm":
            return M * EMBED_K * 4 + M * N * 2
        return 4 * M * N  # x and y (or x and res), bf16

    def nsets_for(self, kind, M, N):
        return int(min(16384, max(2, math.ceil(3 * self.l2 / self.set_bytes(kind, M, N)))))

    def norm_shape(self, M, N, gen, compiled):
        ta, torch = self.ta, self.torch
        nsets = {k: self.nsets_for(k, M, N) for k in NORM_KINDS}
        inp = self.norm_inputs(M, N, max(nsets.values()), gen)
        table = inp["table"]
        table64 = table.double()
        first = len(self.rep["norms"])
        # fused_add_rms_norm runs last: its timing applies it in place, hundreds of times, to x and
        # res, which then hold its outputs (normalised sums of an ever larger residual), not fresh
        # random data. Runs 7, 12 and 13 checked and timed rms_norm_gelu on those: in a CPU
        # emulation of those applications max |x| grows from ~5 to 40-190 and z = T(x r) w spans
        # +-200, which put elements in gelu's far negative tail (RESULTS.md, 2026-12-01, "tier-A
        # FAILs"). The table keeps the NORM_KINDS order.
        for kind in EXEC_ORDER:
            if time.time() > self.deadline:
                self.rep["skipped"].append(f"{kind} {M}x{N} (time budget)")
                continue
            row = {"kernel": kind, "M": M, "N": N, "bytes": ta.norm_bytes(kind, M, N, 2), "sets": nsets[kind]}
            self.rep["norms"].append(row)
            try:
                self.norm_row(kind, M, N, nsets[kind], inp, table64, compiled, row)
            except Exception as e:
                self.error(f"norms {kind} {M}x{N}", e)
            self.rep["norms"][first:] = sorted(self.rep["norms"][first:], key=lambda r: NORM_KINDS.index(r["kernel"]))
            self.save()
        del inp
        torch.cuda.empty_cache()

    def norm_row(self, kind, M, N, S, inp, table64, compiled, row):
        ta, torch = self.ta, self.torch
        x, res, y, ids, w, table = inp["x"], inp["res"], inp["y"], inp["ids"], inp["w"], inp["table"]
        fused = kind == "fused_add_rms_norm"
        # Set 0 as the anchors' checks expect it, and pristine copies for the in-place kernel.
        ref_inp = {"x": x[0].clone(), "res": res[0].clone(), "w": w, "ids": ids[0], "table": table,
                   "table64": table64}

        def check(impl, run):
            """Runs `run(xc, rc, yc)` on fresh copies of set 0 and checks tier A (tier_a: the spec's
            bound, the worst element and each failure's cause go to suite.json and check.log)."""
            xc, rc = ref_inp["x"].clone(), ref_inp["res"].clone()
            yc = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
            run(xc, rc, yc)
            torch.cuda.synchronize()
            acc = tier_a(torch, kind, ref_inp, xc, rc, eps=float(ta.EPS)) if fused else \
                tier_a(torch, kind, ref_inp, yc, eps=float(ta.EPS))
            entry = {"kernel": kind, "shape": f"{M}x{N}", "impl": impl, "ok": bool(acc["ok"]), **acc}
            self.rep["checks"].setdefault("timed_path", []).append(entry)
            line = tier_a_line(entry)
            with open(self.out("check.log"), "a") as f:
                f.write(line + "\n")
            if not acc["ok"]:
                log("  " + line)
            return acc

        def values(i, xc=None, rc=None, yc=None):
            return {"x": x[i] if xc is None else xc, "res": res[i] if rc is None else rc,
                    "y": y[i] if yc is None else yc, "w": w, "ids": ids[i], "table": table, "N": N, "K": EMBED_K,
                    "x_stride": N, "y_stride": N, "res_stride": N, "ids_stride": EMBED_K, "table_stride": N,
                    "eps": float(ta.EPS)}

        # tilec: every timing build of this row length (the default warps and the sweep)
        base = f"{kind}.bf16.n{N}"
        builds = [b for b in [self.load(base)] + [self.load(f"{base}.w{wp}") for wp in (4, 8, 16)] if b]
        if not builds:
            raise RuntimeError(f"no timing build {base}.ptx in {GPU_DIR}")
        cands, checks_ok = [], True
        for b in builds:
            acc = check(f"tilec {int(b['threads']) // 32} warps",
                        lambda xc, rc, yc: self.tilec_call(b, (M, 1, 1), values(0, xc, rc, yc))())
            checks_ok &= bool(acc["ok"])
            r = self.measure([self.tilec_call(b, (M, 1, 1), values(i)) for i in range(S)])
            r.update({"warps": int(b["threads"]) // 32, "build": b["key"], "tier_a": acc["max_ratio"]})
            cands.append(r)
        best = min(cands, key=lambda r: r["us"])
        row["tilec"] = dict(best, candidates=[{"warps": c["warps"], "us": c["us"], "us_events": c["us_events"]}
                                              for c in cands])

        # Triton (the anchors' kernels and launch wrappers)
        def tri(i, xc=None, rc=None, yc=None):
            v = values(i, xc, rc, yc)
            if kind == "rms_norm":
                return lambda: ta.tri_rms_norm(v["x"], w, v["y"])
            if kind == "rms_norm_gelu":
                return lambda: ta.tri_rms_norm_gelu(v["x"], w, v["y"])
            if fused:
                return lambda: ta.tri_fused_add_rms_norm(v["x"], v["res"], w)
            return lambda: ta.tri_embed_sum_rms_norm(v["ids"], table, w, v["y"], check=False)

        acc = check("triton", lambda xc, rc, yc: tri(0, xc, rc, yc)())
        checks_ok &= bool(acc["ok"])
        row["triton"] = self.measure([tri(i) for i in range(S)])
        row["checks_ok"] = checks_ok

        # PyTorch eager and torch.compile of the same formulas (context, no goal)
        fns = {"rms_norm": ta.torch_rms_norm, "fused_add_rms_norm": ta.torch_fused_add_rms_norm,
               "rms_norm_gelu": ta.torch_rms_norm_gelu, "embed_sum_rms_norm": ta.torch_embed_sum_rms_norm}

        def pt(f, i):
            if kind == "embed_sum_rms_norm":
                return lambda: f(ids[i], table, w)
            if fused:
                return lambda: f(x[i], res[i], w)
            return lambda: f(x[i], w)

        try:
            row["eager"] = self.measure([pt(fns[kind], i) for i in range(S)])
        except Exception as e:
            self.error(f"eager {kind} {M}x{N}", e)
        if compiled is not None:
            self.compiled_row(kind, M, N, S, pt, row)
        t, tr = row["tilec"], row["triton"]
        gbps = row["bytes"] / (t["us"] * 1e-6) / 1e9
        log(f"  {kind:20s} {M:6d}x{N:<6d} tilec {t['us']:9.2f} us ({t['warps']} warps, {t['timer']}) "
            f"{gbps:6.0f} GB/s | Triton {tr['us']:9.2f} us -> {t['us'] / tr['us']:.2f}x | eager "
            f"{fmt((row.get('eager') or {}).get('us'), 1)} | compile {fmt((row.get('compiled') or {}).get('us'), 1)}"
            f" | S={S} checks {'pass' if checks_ok else 'FAIL'}")

    # ---- torch.compile of the PyTorch versions ---------------------------------------------
    def compile_setup(self):
        """torch.compile(dynamic=True) of the anchors' four PyTorch norm versions: one graph per
        kernel serves every M >= 2 and N (symbolic sizes), and M = 1, which torch always specialises,
        gets one more: 8 compiles in all, at the first two shapes. Each compile (the first call at a
        new shape) runs under what is left of --torch-compile-timeout seconds, shared by all of them;
        one that fails or runs out makes that kernel's later cells "n/a" with the reason, and the
        suite goes on."""
        torch = self.torch
        tc = self.rep["torch_compile"] = {"shapes": self.args.torch_compile, "dynamic": True,
                                          "timeout_s": self.args.torch_compile_timeout, "compiles": [],
                                          "na": {}, "compile_s": 0.0}
        self.compiled, self.compile_left = None, float(self.args.torch_compile_timeout)
        self.compile_seen = set()  # (kernel, "M=1" or "M>=2") whose first call has been made
        if self.args.torch_compile == "none":
            return
        try:
            import torch._dynamo
            torch._dynamo.reset()
            ta = self.ta
            fns = {"rms_norm": ta.torch_rms_norm, "fused_add_rms_norm": ta.torch_fused_add_rms_norm,
                   "rms_norm_gelu": ta.torch_rms_norm_gelu, "embed_sum_rms_norm": ta.torch_embed_sum_rms_norm}
            self.compiled = {k: torch.compile(f, dynamic=True) for k, f in fns.items()}
        except Exception as e:
            for k in NORM_KINDS:
                tc["na"][k] = f"torch.compile unavailable: {type(e).__name__}: {str(e)[:200]}"
            self.compiled = {}
            log(f"torch.compile: {tc['na'][NORM_KINDS[0]]}")

    def dynamo_graphs(self):
        """Graphs dynamo has compiled so far in this process (None if torch does not say)."""
        try:
            from torch._dynamo.utils import counters
            return int(counters["stats"]["unique_graphs"])
        except Exception:
            return None

    def compiled_row(self, kind, M, N, S, pt, row):
        """The torch.compile cell of a norm row: its first call (a compile when the shape is new to
        the graph), under the compile time left, then timed like the other columns; "n/a" with the
        reason when torch.compile fails, runs out of compile time or the suite's budget."""
        torch, tc = self.torch, self.rep["torch_compile"]
        if tc["shapes"] == "anchors" and (M, N) not in ANCHOR_SHAPES:
            return
        if kind in tc["na"]:
            row["compiled"] = {"na": tc["na"][kind]}
            return
        if time.time() > self.deadline:
            row["compiled"] = {"na": "suite time budget"}
            return
        cf = self.compiled[kind]
        g0 = self.dynamo_graphs()
        # A call that finds its graph takes milliseconds; one that compiles gets what is left of the
        # compile time (at least 2 s, so that a kernel whose graphs exist is still timed when another
        # used the time up).
        left = max(self.compile_left, 2.0)
        family = "M=1" if M == 1 else "M>=2"
        if (kind, family) not in self.compile_seen:
            self.compile_seen.add((kind, family))
            log(f"  torch.compile {kind} {M}x{N}: first call at {family} (a compile; limit {left:.0f} s) ...")
        t0 = time.time()
        try:
            with time_limit(left):
                pt(cf, 0)()
                torch.cuda.synchronize()
        except Exception as e:
            first = time.time() - t0
            self.compile_left -= first
            tc["compile_s"] += first
            why = (f"compile timed out at {M}x{N} ({e})" if isinstance(e, CompileTimeout) else
                   f"compile failed at {M}x{N}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
            tc["na"][kind] = why
            tc.setdefault("tracebacks", {})[kind] = traceback.format_exc()[-4000:]
            row["compiled"] = {"na": why}
            log(f"  torch.compile {kind} {M}x{N}: n/a, {why} (after {first:.1f} s)")
            try:
                torch.cuda.synchronize()
            except Exception:
                pass
            return
        first = time.time() - t0
        g1 = self.dynamo_graphs()
        new = None if g0 is None or g1 is None else g1 - g0
        if (new or 0) > 0 or first > 0.5:  # a new graph, or a first call that long (a compile all the same)
            self.compile_left -= first
            tc["compile_s"] += first
            tc["compiles"].append({"kernel": kind, "M": M, "N": N, "first_call_s": round(first, 3), "graphs": new})
        log(f"  torch.compile {kind} {M}x{N}: first call {first:.2f} s"
            + (f", {new} new graph(s)" if new else ", no new graph" if new == 0 else "")
            + f"; compile time left {max(self.compile_left, 0):.0f} s")
        try:
            row["compiled"] = self.measure([pt(cf, i) for i in range(S)])
            row["compiled"]["first_call_s"] = first
            g2 = self.dynamo_graphs()
            if g1 is not None and g2 is not None and g2 > g1:  # a recompile while timing: say so
                row["compiled"]["graphs_while_timing"] = g2 - g1
                log(f"  torch.compile {kind} {M}x{N}: {g2 - g1} more graph(s) compiled while timing")
        except Exception as e:
            row["compiled"] = {"na": f"timing failed: {type(e).__name__}: {str(e)[:200]}"}
            log(f"  torch.compile {kind} {M}x{N}: n/a, {row['compiled']['na']}")

    def norms(self):
        torch = self.torch
        seed = self.args.seed if self.args.seed is not None else int(time.time()) % 1000003
        self.rep["meta"]["seed"] = seed
        gen = torch.Generator(device="cuda")
        gen.manual_seed(seed)
        with open(self.out("check.log"), "a") as f:
            f.write("\n==== tier A on the timed inputs (bench/suite.py: set 0 of each norm row, every timed "
                    "tilec build and the Triton anchor)\n")
        self.compile_setup()
        self.gen = gen
        self.norm_shapes(ANCHOR_SHAPES)

    def norm_shapes(self, shapes):
        gen, compiled = self.gen, getattr(self, "compiled", None)
        for M, N in shapes:
            if N not in TIMING_NS:
                continue
            if time.time() > self.deadline:
                self.rep["skipped"].append(f"norms {M}x{N} (time budget)")
                continue
            try:
                self.norm_shape(M, N, gen, compiled)
            except Exception as e:
                self.error(f"norms {M}x{N}", e)

    def extra_norms(self):
        self.norm_shapes(EXTRA_SHAPES)

    def anchor_parts(self):
        ta = self.ta
        for part in anchor_part_list(self.args.anchor_parts):
            if time.time() > self.deadline:
                self.rep["skipped"].append(f"anchors {part} (time budget)")
                continue
            try:
                ta.BUDGET = self.deadline - ta.T_START
                {"tq_goal": self.tq_goal_anchor, "mqa": ta.part_mqa, "paged_mqa": ta.part_paged_mqa,
                 "tq": ta.part_tq}[part]()
            except Exception as e:
                self.error(f"anchors {part}", e)
        self.rep["anchor_rows"] = [r for r in ta.REPORT["rows"] if r["part"] in ("mqa", "paged_mqa", "tq")]

    def tq_goal_anchor(self):
        """The anchor's TurboQuant kernel at the goal's shapes first (its own run_tq_preset, seeded
        as its tq part is), so that a short budget still compares every goal shape."""
        ta = self.ta
        gen = ta.torch.Generator(device=ta.DEV)
        gen.manual_seed(ta.SEED + 4)
        for p in TQ_GOAL_PRESETS:
            if time.time() > self.deadline:
                self.rep["skipped"].append(f"anchors tq_goal {p} (time budget)")
                continue
            ta.run_tq_preset(p, gen, TQ_GOAL_BS, TQ_GOAL_SEQS)

    # ---- all of it ---------------------------------------------------------------------------
    def main(self):
        os.makedirs(self.args.out, exist_ok=True)
        m = self.rep["meta"]
        m["date_utc"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
        m["argv"] = sys.argv[1:]
        steps = [("payload", self.unpack)]
        if not self.args.skip_checks:
            steps.append(("checks", self.checks))
        steps += [("launch-overhead", self.launch_overhead), ("torch", self.import_anchors),
                  ("ceilings", self.ceilings), ("triton launch and compile", self.triton_launch_and_compile),
                  ("driver", self.open_driver), ("norms", self.norms)]
        # The anchors' mqa, paged_mqa and tq parts are the yardsticks of goals: they run before
        # the norms' extra shapes, which the time budget skips first.
        if anchor_part_list(self.args.anchor_parts):
            steps.append(("anchor parts", self.anchor_parts))
        if self.args.shapes == "all":
            steps.append(("norms, extra shapes", self.extra_norms))
        for name, fn in steps:
            log(f"== {name} at {elapsed():.0f} s")
            try:
                fn()
            except Exception as e:
                self.error(name, e)
                if name in ("payload", "torch", "driver"):
                    break
            self.save()
        if "copy_GBps" in self.rep["ceilings"]:
            try:
                self.rep["ceilings"]["copy_again_GBps"] = self.ta.copy_gbps(1 << 31, 200)[1]
            except Exception as e:
                self.error("copy at the end", e)
        if hasattr(self, "ta"):
            m["driver_clocks_end"] = self.ta.smi("driver_version,clocks.sm,clocks.mem,clocks.max.sm,power.limit")
        m["wall_s"] = round(elapsed(), 1)
        text = render_markdown(self.rep)
        self.save()
        with open(self.out("suite.md"), "w") as f:
            f.write(text)
        print("\n" + text, flush=True)
        c = self.rep["checks"]
        failed = (c.get("norm_gpu") and not c["norm_gpu"]["ok"]) or \
            (c.get("layout_gpu") and not c["layout_gpu"]["ok"]) or \
            (c.get("mqa_gpu") and not c["mqa_gpu"]["ok"]) or \
            (c.get("tq_gpu") and not c["tq_gpu"]["ok"]) or \
            any(not x["ok"] for x in c.get("timed_path", [])) or \
            (c.get("aot_example") and not c["aot_example"]["ok"]) or \
            (c.get("aot_tuned") and not c["aot_tuned"]["ok"]) or \
            (self.rep["launch"].get("kernel_ok") is False)
        return 3 if failed else 2 if self.rep["errors"] else 0


# =============================================================================================
# self-test: parsing, goals and tables on a made-up run (no GPU, no torch; run by ctest)
# =============================================================================================

# Made-up program output of the right form (not measurements), for the self-test.
FAKE_MQA_GPU = (
    "| fp8_mqa_logits.bt64.c1024 | S=4096 T=4096 causal | 1677.0 us | 82.0 TFLOP/s |\n"
    "| fp8_mqa_logits.bt128.c4096 | S=4096 T=4096 causal | 1600.0 us | 86.0 TFLOP/s |\n"
    "| fp8_mqa_logits.bt64.c1024 | S=4096 T=16384 windows | 1800.0 us | 76.0 TFLOP/s |\n"
    "fp8_paged_mqa_logits.bt64.c1024 B=32   next_n=2 block=64  max ctx 8192   err/bound 0.010  pass\n"
    "| fp8_paged_mqa_logits.bt64.c1024 | B=32 next_n=1 ctx=8192 | 95.1 us | 90.3 TFLOP/s | 381 GB/s |\n"
    "| fp8_paged_mqa_logits.bt64.c256 | B=32 next_n=1 ctx=8192 | 60.0 us | 143.2 TFLOP/s | 604 GB/s |\n"
    "| fp8_paged_mqa_logits.bt64.c1024 | B=128 next_n=2 ctx=32768 | 1700.0 us | 81.0 TFLOP/s | 340 GB/s |\n"
    "\nmqa checks: 33 passed, 0 failed\n")
FAKE_ANCHOR_ROWS = [
    {"part": "mqa", "shape": "causal S=4096 T=4096", "us": 400.0},
    {"part": "mqa", "shape": "window2048 S=4096 T=16384", "us": 450.0},
    {"part": "paged_mqa", "shape": "B=32 next_n=1 ctx=8192", "us": 50.0, "frac_ceil": 0.4},
    {"part": "paged_mqa", "shape": "B=128 next_n=2 ctx=32768", "us": 1000.0, "frac_ceil": 0.3},
    {"part": "paged_mqa", "shape": "B=3 next_n=1 ctx=<=300", "us": 9.0},
    {"part": "tq", "shape": "smoke k4v4 D=128", "us": None},
    {"part": "tq", "shape": "k4v4 B=32 seq=8192", "us": 2000.0, "GBps": 141.0, "preset": "k4v4", "B": 32,
     "seq": 8192, "splits": 4, "grouped": True},
    {"part": "tq", "shape": "k4v4 B=32 seq=8192 per-head", "us": 3000.0, "preset": "k4v4", "B": 32,
     "seq": 8192, "splits": 2, "grouped": False},
    {"part": "tq", "shape": "k4v4 B=128 seq=32768", "us": 30000.0, "preset": "k4v4", "B": 128, "seq": 32768,
     "splits": 1, "grouped": True},
    {"part": "tq", "shape": "k8v4 B=32 seq=8192", "us": 100.0, "preset": "k8v4", "B": 32, "seq": 8192,
     "splits": 4, "grouped": True},
    {"part": "tq", "shape": "k3v4 B=8 seq=1024", "us": 50.0, "preset": "k3v4", "B": 8, "seq": 1024,
     "splits": 8, "grouped": True},
]
FAKE_TQ_GPU = (
    "turboquant_decode k4v4 D=128 B=4 ... tier C err/bound 0.2 pass\n"
    'TQ-JSON {"preset": "k4v4", "B": 32, "seq_len": 8192, "HEADS": 4, "splits": 4, "ms": 0.08, '
    '"bytes": 281018368, "GB/s": 3512.7}\n'
    'TQ-JSON {"preset": "k4v4", "B": 32, "seq_len": 8192, "heads": 1, "splits": 2, "ms": 0.2, '
    '"stage1_ms": 0.15, "bytes": 281018368, "GBps": 1405.1, "check": true, "checked_seqs": 4, '
    '"max_err_over_bound": 0.25}\n'
    'TQ-JSON {"preset": "k4v4", "B": 32, "seq_len": 8192, "heads": 2, "splits": 2, "ms": 0.05, '
    '"bytes": 281018368, "GBps": 5620.4, "check": false}\n'
    'TQ-JSON {"preset": "k4v4", "B": 128, "seq_len": 32768, "HEADS": 4, "splits": 1, "ms": 1.2, '
    '"bytes": 4496293888, "GB/s": 3746.9}\n'
    'TQ-JSON {"preset": "k8v4", "B": 32, "seq_len": 8192, "HEADS": 4, "splits": 4, "ms": 0.15, '
    '"bytes": 411041792, "GB/s": 2740.3}\n'
    'TQ-JSON {"preset": "k3v4", "B": 8, "seq_len": 1024, "HEADS": 4, "splits": 8, "ms": 0.01, '
    '"bytes": 7733248}\n'
    "tq checks: 40 passed, 0 failed\n")


def fake_report():
    """A made-up run: shapes and numbers of the right kinds, not measurements."""
    rows = []
    for kind in NORM_KINDS:
        for M, N in ANCHOR_SHAPES:
            nbytes = (4 if kind == "fused_add_rms_norm" else 2) * M * N * 2 + N * 2
            us = max(2.0, nbytes / 4.0e6 * (3.3 if kind == "rms_norm_gelu" else 1.0))  # 4000 GB/s or 1/3.3
            rows.append({"kernel": kind, "M": M, "N": N, "bytes": nbytes, "sets": 2,
                         "tilec": {"us": us, "rel_iqr": 0.002, "warps": 8, "timer": "graph",
                                   "candidates": [{"warps": 8, "us": us}, {"warps": 4, "us": us * 1.1}]},
                         "triton": {"us": us / 1.33 if kind == "rms_norm_gelu" and M == 32768 else us * 1.02,
                                    "rel_iqr": 0.003},
                         "eager": {"us": us * 10}, "checks_ok": True})
    return {"suite": 1, "meta": {"device": "NVIDIA H200", "driver_clocks_start": "580.159.04, 1980 MHz",
                                 "torch": "2.11.0", "triton": "3.6.0", "date_utc": "2026-12-01 10:00:00",
                                 "build": {"commit": "0" * 40, "short": "0000000", "dirty": "0"}, "wall_s": 300.0,
                                 "argv": ["--out", "/out"]},
            "checks": {"norm_gpu": {"passed": 937, "failed": 0, "shards": 16, "wall_s": 20.0, "ok": True},
                       "timed_path": [{"kernel": "rms_norm", "shape": "1x4096", "impl": "triton", "ok": True,
                                       "max_ratio": 0.5}],
                       "aot_example": {"ok": True},
                       "mqa_gpu": dict(parse_mqa_gpu(FAKE_MQA_GPU), ok=True),
                       "tq_gpu": dict(parse_tq_gpu(FAKE_TQ_GPU), ok=True, exit_code=0)},
            "anchor_rows": [dict(a) for a in FAKE_ANCHOR_ROWS],
            "ceilings": {"copy_GBps": 4250.0, "fp8_TFLOPs": 1300.0, "bf16_TFLOPs": 700.0, "copy_again_GBps": 4240.0},
            "launch": {"runtime_us": [3.9, 3.95, 4.0], "driver_us": [3.5, 3.6, 3.55], "kernel_ok": True,
                       "triton_jit_us": 13.8, "triton_compiledkernel_us": 9.5},
            "compile": {"tilec": {"target": "sm_90a", "kernels": [
                {"kernel": k, "cold_ms": [38.0, 39.0, 40.0], "hit_ms": [0.3, 0.25, 0.31]} for k in NORM_KINDS]},
                "triton_cold_ms": 250.0, "triton_hit_ms": 2.0},
            "norms": rows, "errors": {}, "skipped": [], "method": "made up"}


def self_test():
    assert parse_norm_gpu("...\ngpu checks: 937 passed, 0 failed\n") == (937, 0)
    assert parse_norm_gpu("shard 1/4: 3 of 900 cases\n\ngpu checks: 2 passed, 1 failed") == (2, 1)
    assert parse_norm_gpu("norm-gpu: no CUDA driver") is None
    assert parse_layout_gpu("softmax_rows.BM4 M=3 N=5 shared=0 pass\n\nlayout checks: 64 passed, 0 failed\n") == (64, 0)
    la = parse_launch("device: NVIDIA H200 (sm_90a)\ntile::Runtime::launch: 3.930 us per launch (10000 launches, "
                      "host time)\ntile::Runtime::launch: 3.951 us per launch\ncuLaunchKernel alone: 3.540 us per "
                      "launch\nkernel wrote 1.0 (expected 1.0)\n")
    assert la == {"runtime_us": [3.93, 3.951], "driver_us": [3.54], "kernel_ok": True}, la
    assert parse_launch("kernel wrote 0.0 (expected 1.0)")["kernel_ok"] is False
    assert parse_aot("max relative error 2.76e-07 (pass)\nexit code 0")
    assert not parse_aot("max relative error 0.5 (FAIL)")
    meta = parse_meta("kernel rms_norm\ntarget sm_90a\nthreads 256\nshared_bytes 128\nparam x ptr<bf16>\n"
                      "param N i32\nparam eps f32\n")
    assert meta == {"kernel": "rms_norm", "target": "sm_90a", "threads": 256, "shared_bytes": 128,
                    "params": [("x", "ptr<bf16>"), ("N", "i32"), ("eps", "f32")]}, meta
    tuned = ("device: NVIDIA H200 (sm_90a)\n  tuning scale [n=4096]: BLOCK=512 num_warps=8 (from the cache)\n"
             "scale n=4096: BLOCK=512 num_warps=8, 0 wrong elements (pass)\n"
             "scale n=8192: BLOCK=1024 num_warps=4, 0 wrong elements (pass)\n"
             "scale n=1000: BLOCK=256 num_warps=4, 0 wrong elements (pass)\n"
             "scale n=4096: BLOCK=512 num_warps=8, 0 wrong elements (pass)\n"
             "scale n=70000: BLOCK=256 num_warps=4, 0 wrong elements (pass)\n")
    assert parse_aot_tuned(tuned)[8192] == ("BLOCK=1024 num_warps=4", True) and aot_tuned_ok(tuned)
    assert not aot_tuned_ok(tuned.replace("n=1000: BLOCK=256", "n=1000: BLOCK=512"))
    assert not aot_tuned_ok(tuned.replace("n=70000: BLOCK=256 num_warps=4, 0 wrong elements (pass)",
                                          "n=70000: BLOCK=256 num_warps=4, 3 wrong elements (FAIL)"))
    assert parse_build_info("commit abc\nshort a\ndirty 2\n") == {"commit": "abc", "short": "a", "dirty": "2"}
    sass = ("        /*0a70*/                   LDGSTS.E.BYPASS.128 [R3], desc[UR4][R4.64], P0 ;\n"
            "        /*0a80*/                   LDGDEPBAR ;\n"
            "        /*0b00*/              @!P1 BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
            "        /*0c10*/                   HMMA.16816.F32 R8, R12, R16, R8 ;\n"
            "        /*0c20*/                   QMMA.16832.F32.E4M3.E4M3 R8, R12, R16, R8 ;\n"
            "        /*0c30*/                   QMMA.16832.F32.E4M3.E4M3 R20, R12, R18, R20 ;\n"
            "        /*0c40*/                   FFMA R1, R2, R3, R4 ;\n")
    assert parse_sass(sass) == {"LDGSTS": 1, "BAR": 1, "HMMA": 1, "QMMA": 2}, parse_sass(sass)
    assert rel_iqr([1.0, 1.0, 1.0, 1.0]) == 0.0 and rel_iqr([1.0]) == 0.0

    rep = fake_report()
    text = render_markdown(rep)
    g = {x["goal"].split(":")[0].split(" (")[0]: x for x in rep["goals"]}
    bw = [x for x in rep["goals"] if "copy bandwidth" in x["goal"]][0]
    # 3 kernels x 3 shapes with M, N >= 4096; rms_norm_gelu is below 90% of copy
    assert bw["status"] == "short" and bw["measured"].startswith("6/9 rows"), bw
    tri = [x for x in rep["goals"] if "Triton" in x["goal"]][0]
    assert tri["status"] == "short" and "worst rms_norm_gelu 32768x4096" in tri["measured"], tri
    assert g["launch overhead"]["status"] == "short"
    assert "adds 0.40 us" in g["launch overhead"]["measured"], g["launch overhead"]
    assert g["cold compile to PTX"]["status"] == "short" and g["disk cache hit"]["status"] == "pass"
    parsed = parse_mqa_gpu(FAKE_MQA_GPU)
    assert parsed["passed"] == 33 and len(parsed["rows"]) == 3 and len(parsed["paged_rows"]) == 3, parsed
    assert parsed["paged_rows"][1] == {"build": "fp8_paged_mqa_logits.bt64.c256", "B": 32, "next_n": 1,
                                       "ctx": 8192, "us": 60.0, "tflops": 143.2, "gbps": 604.0}, parsed
    mrep = {"checks": {"mqa_gpu": parsed}, "ceilings": {"fp8_TFLOPs": 1300.0, "copy_GBps": 4250.0},
            "anchor_rows": [dict(a) for a in FAKE_ANCHOR_ROWS]}
    mg = mqa_goals(mrep)
    assert mg[0]["status"] == "short" and "4.00-4.00x" in mg[0]["measured"], mg
    assert mg[1]["status"] == "short" and "86.0 TFLOP/s" in mg[1]["measured"], mg
    # paged: the fastest build per shape (c256 at B=32) against the anchor's uniform-context rows
    assert mg[2]["goal"].startswith("fp8_paged_mqa_logits") and mg[2]["status"] == "short", mg
    assert "1.20-1.70x Triton's time over 2 shapes (worst B=128 next_n=2 ctx=32768)" in mg[2]["measured"], mg
    pr = paged_rows(mrep)
    assert [(r["build"], round(r["ratio"], 2)) for r in pr] == [
        ("fp8_paged_mqa_logits.bt64.c256", 1.2), ("fp8_paged_mqa_logits.bt64.c1024", 1.7)], pr
    assert abs(pr[0]["roofline"] - 604.0 / 4250.0) < 1e-9, pr  # the binding limit: max(bytes, FLOPs)
    def paged_anchors_times(f):
        return dict(mrep, anchor_rows=[dict(a, us=a["us"] * f) if a["part"] == "paged_mqa" else a
                                       for a in FAKE_ANCHOR_ROWS])
    assert mqa_goals(paged_anchors_times(1.5))[2]["status"] == "short"  # 60 us vs 75: 0.80; 1700 vs 1500: 1.13
    assert mqa_goals(paged_anchors_times(2.0))[2]["status"] == "pass"  # 0.60 and 0.85
    assert mqa_goals(dict(mrep, anchor_rows=[]))[2]["status"] == "not measured"
    assert mqa_goals({})[0]["status"] == "not measured" and mqa_goals({})[-1]["status"] == "not measured"
    # an mqa-gpu without paged rows (older builds) still parses
    assert parse_mqa_gpu("mqa checks: 27 passed, 0 failed")["paged_rows"] == []
    assert sum(1 for x in rep["goals"] if x["status"] == "not built yet") == len(NOT_BUILT)

    # TurboQuant: tq-gpu's TQ-JSON rows, the anchor's tq rows, the goal at B x seq_len >= 32 x 8192
    tq = parse_tq_gpu(FAKE_TQ_GPU)
    assert tq["passed"] == 40 and tq["failed"] == 0 and len(tq["rows"]) == 6 and not tq["bad_lines"], tq
    assert tq["rows"][1]["heads"] == 1 and tq["rows"][1]["gbps"] == 1405.1 and tq["rows"][1]["check_ok"], tq
    assert tq["rows"][2]["check_ok"] is False and tq["rows"][0]["check_ok"] is None, tq
    assert tq["rows"][0]["us"] == 80.0 and tq["rows"][0]["heads"] == 4 and tq["rows"][0]["gbps"] == 3512.7
    assert abs(tq["rows"][5]["gbps"] - 7733248 / 10e-6 / 1e9) < 1e-6  # GB/s from bytes when not printed
    bad = parse_tq_gpu('TQ-JSON {"preset": "k4v4"}\nTQ-JSON {not json\n')
    assert len(bad["bad_lines"]) == 2 and not bad["rows"] and bad["passed"] is None, bad
    assert parse_tq_gpu("tq-gpu: no CUDA driver\n") is None
    trep = {"checks": {"tq_gpu": tq}, "ceilings": {"copy_GBps": 4250.0},
            "anchor_rows": [dict(a) for a in FAKE_ANCHOR_ROWS]}
    rows = tq_rows(trep)
    assert [(r["preset"], r["B"], r["seq_len"]) for r in rows] == [
        ("k4v4", 32, 8192), ("k4v4", 128, 32768), ("k3v4", 8, 1024), ("k8v4", 32, 8192)], rows
    k4 = rows[0]
    assert k4["heads"] == 4 and k4["triton_us"] == 2000.0 and abs(k4["ratio"] - 0.04) < 1e-9 and k4["large"], k4
    assert not rows[2]["large"] and abs(rows[2]["ratio"] - 0.2) < 1e-9, rows[2]
    tg = tq_goals(trep)[0]
    assert tg["goal"].startswith("TurboQuant decode: faster than Triton and >= 70% of copy") and \
        tg["status"] == "short", tg
    assert "2/3 shapes faster than Triton" in tg["measured"] and "worst k8v4 B=32 seq=8192" in tg["measured"], tg
    assert "2/3 at >= 70% of copy (lowest k8v4 B=32 seq=8192 at 64.5%" in tg["measured"], tg
    ok = dict(trep, checks={"tq_gpu": dict(tq, rows=[r for r in tq["rows"] if r["preset"] != "k8v4"])})
    assert tq_goals(ok)[0]["status"] == "pass", tq_goals(ok)
    assert tq_goals(dict(ok, anchor_rows=[]))[0]["status"] == "not measured"  # bandwidth holds, no Triton
    assert tq_goals(dict(trep, anchor_rows=[]))[0]["status"] == "short"  # bandwidth short without Triton
    assert tq_goals({})[0]["status"] == "not measured" and "no tq-gpu" in tq_goals({})[0]["measured"]
    small = dict(trep, checks={"tq_gpu": dict(tq, rows=[tq["rows"][5]])})
    # a faster row that failed its check is not the one compared; alone, it fails the goal
    only_bad = dict(ok, checks={"tq_gpu": dict(tq, rows=[tq["rows"][2], tq["rows"][3]])})
    assert tq_goals(only_bad)[0]["status"] == "short" and "1 shapes failed tier C" in tq_goals(only_bad)[0]["measured"]
    assert tq_goals(small)[0]["status"] == "not measured"
    assert anchor_part_list(DEFAULT_ANCHOR_PARTS) == ["tq_goal", "mqa", "paged_mqa", "tq"]
    assert anchor_part_list("tq,mqa") == ["mqa", "tq"] and anchor_part_list("none") == [] == anchor_part_list("")
    assert anchor_part_list("tq,tq_goal") == ["tq_goal", "tq"]
    assert all(b * s >= GOAL_TQ_MIN_TOKENS or (b, s) == (8, 8192) for b in TQ_GOAL_BS for s in TQ_GOAL_SEQS)
    try:
        anchor_part_list("mqa,tqq")
        raise AssertionError("an unknown anchor part was accepted")
    except ValueError:
        pass
    gelu = [r for r in rep["norms"] if r["kernel"] == "rms_norm_gelu" and r["M"] == 32768][0]
    assert gelu["goal_triton"] == "short" and gelu["goal_bw"] == "short"
    embed = [r for r in rep["norms"] if r["kernel"] == "embed_sum_rms_norm" and r["M"] == 32768][0]
    assert embed["goal_bw"] == "n/a"
    small = [r for r in rep["norms"] if r["M"] == 1][0]
    assert small["goal_bw"] is None
    # a tilec time within the measured spread of Triton's is "noise", not "short"
    r = dict(rep["norms"][0], tilec={"us": 100.4, "rel_iqr": 0.006}, triton={"us": 100.0, "rel_iqr": 0.001})
    evaluate_goals({"norms": [r], "ceilings": {"copy_GBps": 4000.0}})
    assert r["goal_triton"] == "noise", r
    assert "| rms_norm | 32768x4096 |" in text and "| goal | target | measured | status |" in text
    assert "norm-gpu 937 passed, 0 failed" in text and "tq-gpu 40 passed, 0 failed" in text
    assert "| fp8_paged_mqa_logits | B=32 next_n=1 ctx=8192 | bt64.c256 | 60.0 | 143 | 604 | 14.2% | 50.0 | 1.20 |" \
        in text, text
    assert "| k4v4 | 32x8192 | 4 | 4 | 80.00 | 3513 | 82.7% | 2000 | B,Hkv,splits | 0.04 | yes | - |" in text, text
    assert "| TurboQuant decode: faster than Triton and >= 70% of copy" in text
    # an empty run renders and says what was not measured
    assert "not measured" in render_markdown({"norms": []})
    # bench/record.py: the section it appends to RESULTS.md
    sys.dont_write_bytecode = True  # no __pycache__ in the working tree
    import record
    assert record.next_run_number("## a (run 5)\n## b (run 12)\n") == 13
    assert record.command_of(rep) == ("set -o pipefail; PYTHONUNBUFFERED=1 python3 bench/suite.py --out $OUT "
                                      "2>&1 | tee $OUT/suite.log")
    sec = record.section(fake_report(), 7, "runs/2026-12-01-suite")
    assert sec.startswith("## 2026-12-01 (run 7) — benchmark suite at 0000000\n"), sec[:80]
    assert "runs/2026-12-01-suite/" in sec and "| rms_norm | 32768x4096 |" in sec and "| k8v4 | 32x8192 |" in sec
    assert "| fp8_paged_mqa_logits | B=128 next_n=2 ctx=32768 |" in sec
    doc = record.insert("# Measured results\n\nintro\n\n## older run\n\ntext\n", sec)
    assert doc.index("(run 7)") > doc.index("## older run") and doc.endswith(sec)

    # torch.compile: options, n/a cells, the summary line; the compile time limit
    ap = arg_parser()
    assert ap.parse_args([]).torch_compile == "all"
    assert ap.parse_args(["--no-torch-compile"]).torch_compile == "none"
    assert ap.parse_args(["--torch-compile", "anchors"]).torch_compile == "anchors"
    assert sorted(EXEC_ORDER) == sorted(NORM_KINDS) and EXEC_ORDER[-1] == "fused_add_rms_norm"
    assert compiled_cell(None) == "-" and compiled_cell({"us": 12.345}) == "12.35"
    assert compiled_cell({"na": "compile failed at 1x4096: RuntimeError: x|y"}) == \
        "n/a (compile failed at 1x4096: RuntimeError: x/y)"
    trep = fake_report()
    trep["norms"][0]["compiled"] = {"na": "compile timed out at 1x4096 (over its 240 s)"}
    trep["norms"][1]["compiled"] = {"us": 3.5}
    trep["torch_compile"] = {"shapes": "all", "dynamic": True, "timeout_s": 240.0, "compile_s": 251.0,
                             "compiles": [{"kernel": "fused_add_rms_norm", "M": 1, "N": 4096}],
                             "na": {"rms_norm": "compile timed out at 1x4096 (over its 240 s)"}}
    ttext = render_markdown(trep)
    assert "| n/a (compile timed out at 1x4096 (over its 240 s)) | pass |" in ttext, ttext
    assert "| 3.50 | pass |" in ttext
    assert "torch.compile (dynamic=True, all shapes): 1 first calls that compiled, 251 s in all (limit 240 s); " \
           "n/a: rms_norm: compile timed out" in ttext, ttext
    t0 = time.time()
    try:
        with time_limit(0.05):
            while time.time() - t0 < 5:
                pass
        raise AssertionError("time_limit did not fire")
    except CompileTimeout:
        assert time.time() - t0 < 2
    with time_limit(5):
        pass  # disarmed on exit: nothing fires later
    time.sleep(0.01)

    # a failing tier-A check of the timed inputs: summary, the table of failures, check.log's line
    failing = {"kernel": "rms_norm_gelu", "shape": "128x7168", "impl": "triton", "ok": False, "tier": "A",
               "n": 917504, "n_fail": 3, "n_nan": 0, "max_ratio": 1.1426, "max_abs": 3.1e-38, "max_rel": 1.0,
               "causes": {"zero": 2, "h_flip": 1}, "x_absmax": 150.0,
               "worst": {"row": 17, "col": 4242, "got": 0.0, "expected": -3.104e-38, "bound": 2.77e-38,
                         "ratio": 1.1217, "abs_err": 3.104e-38, "x64": -40.0, "r64": 0.3, "h_ref": -12.0,
                         "w": 1.09, "z": -13.072, "cause": "zero"}}
    trep["checks"]["timed_path"].append(failing)
    ttext = render_markdown(trep)
    assert "FAIL (max err/bound): rms_norm_gelu 128x7168 triton (1.14)" in ttext, ttext
    assert "| rms_norm_gelu | 128x7168 | triton | 3 / 917504 | 1.1426 | [17, 4242] | 0 | -3.1e-38 | 2.77e-38 | " \
           "z -13.072 | -12, 1.09 | h_flip 1, zero 2 |" in ttext, ttext
    line = tier_a_line(failing)
    assert line.startswith("rms_norm_gelu 128x7168 triton: tier A FAIL max err/bound 1.1426; 3 of 917504 elements "
                           "fail (0 NaN) [h_flip 1, zero 2]; worst [17, 4242]: got 0, expected -3.104e-38"), line
    assert "cause zero" in line and "max |x| of the inputs 150" in line, line
    tier_a_self_test()
    print("bench/suite.py self-test: ok")
    return 0


def tier_a_self_test():
    """tier_a on small CPU tensors, when torch is importable (the GPU machine has it; ctest's Python
    may not, and then this part is skipped and says so)."""
    try:
        import torch
    except ImportError:
        print("bench/suite.py self-test: no torch here, tier_a's own checks skipped")
        return
    bf16 = torch.bfloat16
    g = torch.Generator().manual_seed(1)
    M, N, K = 4, 256, 80
    x = torch.randn(M, N, generator=g).to(bf16)
    w = (1 + 0.5 * torch.randn(N, generator=g)).to(bf16)
    ids = (torch.randint(0, 16, (M, K), generator=g) + 16 * torch.arange(K)[None]).to(torch.int32)
    table = (0.25 * torch.randn(16 * K, N, generator=g)).to(bf16)
    inp = {"x": x, "res": torch.randn(M, N, generator=g).to(bf16), "w": w, "ids": ids, "table": table}
    f64 = torch.float64

    def ref_out(kind, xx):
        x64 = xx.to(f64)
        h = _round_to(torch, x64 * torch.rsqrt(x64.square().mean(-1, keepdim=True) + 1e-6), bf16)
        z = h * w.to(f64)
        return h, _round_to(torch, _gelu(torch, z) if kind == "rms_norm_gelu" else z, bf16).to(bf16)

    h, y = ref_out("rms_norm", x)
    acc = tier_a(torch, "rms_norm", inp, y)
    assert acc["ok"] and acc["max_ratio"] == 0.0 and acc["n"] == M * N and acc["x_absmax"] > 1, acc
    # a NaN, a zero and an h one ulp off are each found and named
    bad = y.clone()
    bad[0, 0] = float("nan")
    bad[1, 1] = 0.0
    up, dn = _neighbours(torch, h[2, 2:3], bf16)
    bad[2, 2] = _round_to(torch, dn * w[2].to(f64), bf16).to(bf16)[0]
    acc = tier_a(torch, "rms_norm", inp, bad)
    assert not acc["ok"] and acc["n_nan"] == 1 and acc["worst"]["row"] == 0 and acc["worst"]["cause"] == "nan", acc
    assert acc["causes"].get("nan") == 1 and acc["causes"].get("zero") == 1, acc
    assert acc["causes"].get("h_flip", 0) + acc["n_fail"] - 2 >= 0 and len(acc["failures"]) == acc["n_fail"], acc
    # gelu: the neighbours of h; in the negative tail a one-ulp flip toward zero exceeds the spec's
    # linear bound (the output changes by a factor exp(|z| w ulp(h)) there); a flush to zero of a
    # tiny reference fails too, and both are named
    hh = torch.tensor([-6.0, -8.0, 1.5, 1.0], dtype=f64)
    up, dn = _neighbours(torch, hh, bf16)
    assert up.tolist() == [-6.03125, -8.0625, 1.5078125, 1.0078125], up
    assert dn.tolist() == [-5.96875, -7.96875, 1.4921875, 0.99609375], dn
    xg = torch.full((1, N), 0.5).to(bf16)
    xg[0, 0] = -3.875  # h = T(x r) = -7 with the other 255 entries 0.5; z = h w = -10.5
    wg = torch.ones(N).to(bf16)
    wg[0] = 1.5
    ig = dict(inp, x=xg, w=wg)
    x64 = xg.to(f64)
    hg = _round_to(torch, x64 * torch.rsqrt(x64.square().mean(-1, keepdim=True) + 1e-6), bf16)
    yg = _round_to(torch, _gelu(torch, hg * wg.to(f64)), bf16).to(bf16)
    assert tier_a(torch, "rms_norm_gelu", ig, yg)["ok"]
    flip = yg.clone()
    flip[0, 0] = _round_to(torch, _gelu(torch, _neighbours(torch, hg[0, :1], bf16)[1] * 1.5), bf16).to(bf16)[0]
    acc = tier_a(torch, "rms_norm_gelu", ig, flip)
    assert float(hg[0, 0]) == -7.0 and not acc["ok"] and acc["causes"] == {"h_flip": 1}, acc
    assert 1.2 < acc["max_ratio"] < 1.3 and acc["worst"]["z"] == -10.5, acc  # 1.2523
    # z = -7.9375 * 1.640625 = -13.02: erfc(-z/sqrt 2) is below 2^-126 in f32, the reference -6e-38; a
    # kernel that flushes it to zero exceeds the bound (err/bound 1.474)
    xz, wz = xg.clone(), wg.clone()
    xz[0, 0], wz[0] = -4.5625, 1.640625
    iz = dict(ig, x=xz, w=wz)
    x64 = xz.to(f64)
    hz = _round_to(torch, x64 * torch.rsqrt(x64.square().mean(-1, keepdim=True) + 1e-6), bf16)
    zero = _round_to(torch, _gelu(torch, hz * wz.to(f64)), bf16).to(bf16)
    assert tier_a(torch, "rms_norm_gelu", iz, zero)["ok"] and float(hz[0, 0]) == -7.9375
    zero[0, 0] = 0.0
    acc = tier_a(torch, "rms_norm_gelu", iz, zero)
    assert acc["causes"] == {"zero": 1} and acc["worst"]["cause"] == "zero" and 1.47 < acc["max_ratio"] < 1.48, acc
    # embed: where the K terms cancel, the spec's f32-sum term is what keeps a correct f32 sum inside
    t = table.clone()
    cols = torch.arange(N)
    s78 = t[ids[0, :K - 2].long()].to(f64).sum(0)
    t[ids[0, K - 2].long()] = (-s78).to(bf16)
    t[ids[0, K - 1].long()] = (-(s78 + t[ids[0, K - 2].long()].to(f64))).to(bf16)
    ie = dict(inp, table=t)
    xs = torch.zeros(M, N)
    for k in range(K):
        xs += t[ids[:, k].long()].float()
    r = torch.rsqrt((xs * xs).mean(-1, keepdim=True) + 1e-6)
    ye = ((xs * r).to(bf16).float() * w.float()).to(bf16)
    acc = tier_a(torch, "embed_sum_rms_norm", ie, ye)
    assert acc["ok"] and acc["max_ratio_without_sum_term"] > 1, (acc["max_ratio"], acc["max_ratio_without_sum_term"])
    del cols
    print("bench/suite.py self-test: tier_a checked with torch", torch.__version__)


def arg_parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT") or os.path.join(ROOT, "bench-out"),
                    help="directory for suite.json, suite.md, check.log, launch.log (default: $OUT)")
    ap.add_argument("--budget", type=float, default=480.0,
                    help="wall seconds after which remaining shapes are skipped (default 480)")
    ap.add_argument("--shapes", choices=["anchors", "all"], default="all",
                    help="anchors: the anchors' five norm shapes; all: also M in {4096, 32768} x N in "
                         "{4096, 8192, 16384}")
    ap.add_argument("--seed", type=int, default=None, help="input seed (default: fresh each run)")
    ap.add_argument("--shards", type=int, default=0, help="norm-gpu check processes (default: CPU count)")
    ap.add_argument("--skip-checks", action="store_true",
                    help="skip the check programs (norm-gpu, layout-gpu, mqa-gpu and tq-gpu, and with them "
                         "tilec's MQA and TurboQuant timing rows) and the AOT examples")
    ap.add_argument("--torch-compile", choices=["all", "anchors", "none"], default="all",
                    help="norm shapes with a torch.compile column (torch.compile(dynamic=True) of the "
                         "anchors' PyTorch versions): all (default), the anchors' five shapes, or none")
    ap.add_argument("--no-torch-compile", dest="torch_compile", action="store_const", const="none",
                    help="the same as --torch-compile none")
    ap.add_argument("--torch-compile-timeout", type=float, default=240.0,
                    help="seconds all torch.compile compiles may take together (default 240); a kernel "
                         "whose compile fails or runs past it is n/a from there on")
    ap.add_argument("--anchor-parts", default=DEFAULT_ANCHOR_PARTS,
                    help=f"anchor parts to run after the norms' anchor shapes, before their extra ones "
                         f"(default {DEFAULT_ANCHOR_PARTS}; 'none' or '' for none)")
    ap.add_argument("--report", metavar="JSON", help="print the tables of an earlier run's suite.json")
    ap.add_argument("--self-test", action="store_true", help="check parsing, goals and tables (no GPU)")
    return ap


def main():
    ap = arg_parser()
    args = ap.parse_args()
    try:
        anchor_part_list(args.anchor_parts)
    except ValueError as e:
        ap.error(str(e))
    if args.self_test:
        return self_test()
    if args.report:
        print(render_markdown(json.load(open(args.report))), end="")
        return 0
    return Suite(args).main()


if __name__ == "__main__":
    sys.exit(main())
