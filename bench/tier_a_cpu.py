#!/usr/bin/env python3
"""The tier-A FAILs of the suite's runs 7, 12 and 13, reproduced on the CPU (torch only, no GPU, no
Triton; about a minute). It emulates the kernels in f32 and checks them with suite.tier_a, the
spec's tier A against float64:

    python3 bench/tier_a_cpu.py

1. rms_norm_gelu on fresh random inputs and on the inputs the suite used to give it: set 0 after
   fused_add_rms_norm's timing had applied that kernel to it in place some hundreds of times; each
   with a correctly rounded f32 GELU, with an erfc flushed to zero below 2^-126 (what libdevice's
   erfcf does in FTZ mode, which Triton links), with the 1 + erf form and the tanh approximation.
2. For every bf16 pair (h, w) in GELU's negative tail: err/bound when h = T(x r) comes out one ulp
   off the float64 h (toward zero, away from it), and when the output is flushed to zero.
3. embed_sum_rms_norm where the K = 80 terms nearly cancel: a correct f32 sum against the bound
   without and with the spec's K 2^-24 sum|terms| term.
"""
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
import torch  # noqa: E402
import suite  # noqa: E402

bf16, f32, f64 = torch.bfloat16, torch.float32, torch.float64
TINY = 2.0 ** -126


def rms_norm(x, w):
    xf = x.float()
    r = torch.rsqrt((xf * xf).mean(-1, keepdim=True) + 1e-6)
    return ((xf * r).to(bf16).float() * w.float()).to(bf16)


def gelu_kernel(x, w, mode):
    xf = x.float()
    r = torch.rsqrt((xf * xf).mean(-1, keepdim=True) + 1e-6)
    z = (xf * r).to(bf16).float() * w.float()  # exact in f32
    z64 = z.double()
    if mode == "tanh":
        g = 0.5 * z * (1 + torch.tanh(0.7978845608028654 * (z + 0.044715 * z ** 3)))
    elif mode == "1+erf":
        g = 0.5 * z * (1.0 + torch.erf(z64 * suite.SQRT1_2).float())
    elif mode == "erfc, FTZ":
        e = torch.erfc(-z64 * suite.SQRT1_2).float()
        e = torch.where(e < TINY, torch.zeros_like(e), e)
        g = (0.5 * z) * e
        g = torch.where(g.abs() < TINY, torch.zeros_like(g), g)
    else:  # correctly rounded f32
        g = (0.5 * z64 * torch.erfc(-z64 * suite.SQRT1_2)).float()
    return g.to(bf16), z


def part1(M=128, N=7168, applications=600, seeds=(1, 2, 3)):
    print(f"1. rms_norm_gelu {M}x{N}: fresh inputs, and after {applications} in-place fused_add_rms_norm "
          f"applications (about what its timing made at this shape)")
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(M, N, generator=g).to(bf16)
        res = torch.randn(M, N, generator=g).to(bf16)
        w = (1.0 + 0.5 * torch.randn(N, generator=g)).to(bf16)
        for label in ("fresh", "after fused_add"):
            if label != "fresh":
                for _ in range(applications):
                    res.copy_((x.float() + res.float()).to(bf16))
                    x.copy_(rms_norm(res, w))
            inp = {"x": x, "w": w, "ids": torch.zeros(M, 1, dtype=torch.int32), "table": w[None]}
            cells = []
            for mode in ("f32", "erfc, FTZ", "1+erf", "tanh"):
                out, z = gelu_kernel(x, w, mode)
                a = suite.tier_a(torch, "rms_norm_gelu", inp, out, detail=0)
                cells.append(f"{mode}: {'pass' if a['ok'] else 'FAIL'} {a['max_ratio']:.3f} ({a['n_fail']} fail"
                             + (", " + ", ".join(f"{k} {v}" for k, v in sorted(a["causes"].items())) if a["causes"] else "")
                             + ")")
            print(f"   seed {seed} {label:15s} max|x| {float(x.float().abs().max()):5.1f}, z in [{float(z.min()):7.1f}, "
                  f"{float(z.max()):6.1f}], {int((z < -5).sum()):5d} z < -5, {int(((z < -13) & (z > -14.5)).sum()):3d} "
                  f"z in [-14.5, -13] | " + "; ".join(cells))


def part2():
    print("2. err/bound of a one-ulp flip of h and of a flush to zero, over every bf16 (h, w) with z = h w "
          "in each band")
    bits = torch.arange(0, 1 << 16, dtype=torch.int32).to(torch.int16)
    allv = bits.view(bf16).to(f64)
    allv = allv[torch.isfinite(allv) & (allv != 0)]
    w = allv[(allv.abs() > 0.05) & (allv.abs() < 4.5)]
    h = allv[(allv.abs() > 0.6) & (allv.abs() < 300)]
    W, H = torch.meshgrid(w, h, indexing="ij")
    Z = W * H
    sel = (Z >= -14.5) & (Z < -3)
    W, H, Z = W[sel], H[sel], Z[sel]

    def ref_of(z):
        return suite._round_to(torch, suite._gelu(torch, z), bf16)

    for lo, hi in ((-6, -3), (-9, -6), (-12, -9), (-13, -12), (-14.5, -13)):
        m = (Z >= lo) & (Z < hi)
        Wm, Hm, Zm = W[m], H[m], Z[m]
        ref = ref_of(Zm)
        slope = (Wm * (0.5 * torch.erfc(-Zm * suite.SQRT1_2) + Zm * torch.exp(-0.5 * Zm * Zm) / math.sqrt(2 * math.pi))).abs()
        bound = 2 * suite._ulp(torch, ref, bf16) + slope * suite._ulp(torch, Hm, bf16)
        up, dn = suite._neighbours(torch, Hm, bf16)
        line = f"   z in [{lo:5.1f}, {hi:5.1f}): {Zm.numel():6d} pairs"
        for name, hp in (("toward 0", dn), ("away from 0", up)):
            r = (ref_of(hp * Wm) - ref).abs() / bound
            line += f" | h one ulp {name}: max {float(r.max()):.3f}, {int((r > 1).sum())} fail"
        flushed = (torch.erfc(-Zm * suite.SQRT1_2).to(f32) < TINY) & (ref != 0)
        if bool(flushed.any()):
            r = (ref.abs() / bound)[flushed]
            line += f" | flushed to 0: max {float(r.max()):.3f}, {int((r > 1).sum())} of {r.numel()} fail"
        print(line)


def part3(E=400000, K=80):
    print(f"3. embed_sum_rms_norm, {E} outputs whose K = {K} terms nearly cancel (the last two chosen to)")
    g = torch.Generator().manual_seed(11)
    t = (0.25 * torch.randn(K, E, generator=g)).to(bf16)
    s78 = t[:K - 2].to(f64).sum(0)
    t[K - 2] = (-s78).to(bf16)
    t[K - 1] = (-(s78 + t[K - 2].to(f64))).to(bf16)
    x32 = torch.zeros(E)
    for k in range(K):  # one row after the other in f32, as both kernels add
        x32 += t[k].float()
    x64, sabs = t.to(f64).sum(0), t.to(f64).abs().sum(0)
    r = 1.0 / (0.25 * K ** 0.5)  # a typical row's r
    w = (1.0 + 0.5 * torch.randn(E, generator=g)).to(bf16).to(f64)
    out = ((x32 * r).to(bf16).float() * w.float()).to(bf16).to(f64)
    hh = suite._round_to(torch, x64 * r, bf16)
    ref = suite._round_to(torch, hh * w, bf16)
    base = 2 * suite._ulp(torch, ref, bf16) + w.abs() * suite._ulp(torch, hh, bf16)
    term = w.abs() * r * K * suite.ACC_EPS * sabs
    err = (out - ref).abs()
    print(f"   f32 sum differs from the exact one in {int((x32.to(f64) != x64).sum())}; without the spec's term "
          f"{int((err > base).sum())} fail (max err/bound {float((err / base).max()):.3g}); with it "
          f"{int((err > base + term).sum())} fail (max {float((err / (base + term)).max()):.4f})")


if __name__ == "__main__":
    t0 = time.time()
    part1()
    part2()
    part3()
    print(f"({time.time() - t0:.0f} s)")
