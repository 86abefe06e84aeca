#!/usr/bin/env python3
"""Run 112's loads-only k8v4 stage 1 (run112/lo.diff) with a token row's 8 programs in one CTA.

An access-pattern probe, not a compiler feature: it patches the PTX of the one-warp build
turboquant_decode_stage1.d128.k8v4.bf16.h4.mma.tok so that a CTA of 8 warps runs the 8 programs
of program_id(1) = 8 y' + warp (`.maxntid 256`, %ctaid.y and %nctaid.y rescaled, %tid.x taken
mod 32), and with --lockstep adds a CTA barrier at the top of every block, so that the 8 kv
heads' reads of a token row come from one SM, together. The loads-only loop uses no shared
memory or barrier of its own; in a build that does (the real kernel's epilogue), each warp gets
its own copy of `__tile_shared` and its `bar.sync 0` becomes a warp barrier (a program is one
warp), so the real kernel runs and can be checked. tq-cta8-driver.diff makes
tq-gpu launch such a build (TILE_CTA_Y=8: grid y / 8, 8 x the threads).

    bench/runs/2026-12-03-check-35/run114/tq-cta8.py IN.ptx OUT.ptx [--lockstep]
"""
import re
import sys


def patch(ptx: str, lockstep: bool) -> str:
    if lockstep and "bar.sync" in ptx:
        sys.exit("tq-cta8.py: --lockstep is for builds without barriers of their own")
    m = re.search(r"\.shared \.align 16 \.b8 __tile_shared\[(\d+)\];", ptx)
    if m:
        size = int(m.group(1))
        ptx = ptx.replace(m.group(0), f".shared .align 16 .b8 __tile_shared[{8 * size}];")
        ptx, n = re.subn(r"mov\.b32 \t(%r\d+), __tile_shared;",
                         lambda k: f"mov.b32 \t{k.group(1)}, __tile_shared;\n\tmov.u32 \t%cta1, %tid.x;\n"
                         f"\tshr.u32 \t%cta1, %cta1, 5;\n\tmad.lo.s32 \t{k.group(1)}, %cta1, {size}, {k.group(1)};", ptx)
        if n == 0:
            sys.exit("tq-cta8.py: __tile_shared is declared but its address is never taken")
        ptx = ptx.replace("bar.sync \t0;", "bar.warp.sync \t-1;")
    if re.search(r"\bbar\.sync", ptx) or ("shared" in ptx and not m):
        sys.exit("tq-cta8.py: a barrier or shared memory the script does not know how to split")
    steps = [
        (r"\.maxntid 32, 1, 1", ".maxntid 256, 1, 1"),
        (r"\.reg \.b32 \t%r<(\d+)>;", lambda m: f".reg .b32 \t%r<{m.group(1)}>;\n\t.reg .b32 \t%cta<2>;"),
        (r"mov\.u32 \t(%r\d+), %tid\.x;", r"mov.u32 \t\1, %tid.x;\n\tand.b32 \t\1, \1, 31;"),
        (r"mov\.u32 \t(%r\d+), %ctaid\.y;",
         r"mov.u32 \t\1, %ctaid.y;\n\tmov.u32 \t%cta0, %tid.x;\n\tshr.u32 \t%cta0, %cta0, 5;\n"
         r"\tshl.b32 \t\1, \1, 3;\n\tadd.s32 \t\1, \1, %cta0;"),
        (r"mov\.u32 \t(%r\d+), %nctaid\.y;", r"mov.u32 \t\1, %nctaid.y;\n\tshl.b32 \t\1, \1, 3;"),
    ]
    for pattern, repl in steps:
        ptx, n = re.subn(pattern, repl, ptx)
        if n != 1:
            sys.exit(f"tq-cta8.py: expected one match of {pattern!r}, found {n}")
    if lockstep:
        # The loop's header: the block that `bra.uni` enters before the body's label.
        m = re.search(r"\tbra\.uni \t(\$L__BB0_\d+);\n\$L__BB0_\d+:", ptx)
        if not m:
            sys.exit("tq-cta8.py: no loop entry found")
        head = m.group(1) + ":\n"
        if ptx.count(head) != 1:
            sys.exit(f"tq-cta8.py: loop header {head!r} not found once")
        ptx = ptx.replace(head, head + "\tbar.sync \t0;\n")
    return ptx


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--lockstep"]
    if len(args) != 2:
        sys.exit("usage: tq-cta8.py IN.ptx OUT.ptx [--lockstep]")
    with open(args[0]) as f:
        ptx = f.read()
    with open(args[1], "w") as f:
        f.write(patch(ptx, "--lockstep" in sys.argv[1:]))


if __name__ == "__main__":
    main()
