#!/usr/bin/env python3
"""Tabulates bench/tq-ab.sh's files: per timed row, the base's time and each
variant's time over the base's from the same repetition ("missing" for a
repetition without the row), with GB/s, err/bound and registers.  Usage: bench/tq-ab.py DIR|tq-ab.tar.xz VARIANT..."""
import os
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in the working tree
import suite  # noqa: E402


def rows(path):
    """tq-gpu's TQ-JSON lines of one file, by (preset, B, seq_len, HEADS)."""
    with open(path) as f:
        parsed = suite.parse_tq_gpu(f.read()) or {"rows": []}
    return {(r["preset"], r["B"], r["seq_len"], r["heads"]): r["raw"] for r in parsed["rows"]}


def main():
    d, variants = sys.argv[1], sys.argv[2:]
    if d.endswith(".tar.xz"):
        unpacked = tempfile.mkdtemp()
        with tarfile.open(d) as tar:
            tar.extractall(unpacked, filter="data")
        d = unpacked
    runs = {n: [rows(f"{d}/{n}-bench{r}.txt") for r in (1, 2)] for n in ["base"] + variants}
    head = "| shape (B x seq, HEADS) | base ms | base2 / base |"
    head += "".join(f" {v} / base (2 runs) | {v} GB/s | {v} err/bound (base) | {v} regs |" for v in variants)
    print(head)
    print("|" + "---|" * (3 + 4 * len(variants)))
    for k in sorted(runs["base"][0]):
        b1, b2 = runs["base"][0][k], runs["base"][1][k]
        line = f"| {k[0]} {k[1]}x{k[2]}, {k[3]} | {b1['ms']:.4f} | {b2['ms'] / b1['ms']:.3f} |"
        for v in variants:
            got = [runs[v][r].get(k) for r in (0, 1)]
            if not any(got):
                line += " missing | | | |"
                continue
            ratios = [f"{g['ms'] / b['ms']:.3f}" if g else "missing" for g, b in zip(got, (b1, b2))]
            first = next(g for g in got if g)
            line += (f" {', '.join(ratios)} | {first['GBps']:.0f} |"
                     f" {first['max_err_over_bound']:.3f} ({b1['max_err_over_bound']:.3f}) |"
                     f" {first['stage1_registers']} |")
        print(line)


if __name__ == "__main__":
    main()
