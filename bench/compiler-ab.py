#!/usr/bin/env python3
"""Tabulates bench/compiler-ab.sh's files: each timing row of norm-gpu --time-only, mqa-gpu and tq-gpu,
the base's time (first run) and the variant's ratio to the base in each of the two runs (a stage 1
build's `.cK` suffix, --programs-per-cta, does not count: the rows pair up with the unpacked build's).

    python3 bench/compiler-ab.py FILES_AT/compiler-ab.tar.xz
    python3 bench/compiler-ab.py --self-test      (the parsing, on lines of the three programs' formats)
"""
import io
import json
import re
import sys
import tarfile


def rows(text):
    """{row label: microseconds} from the markdown timing rows of norm-gpu and mqa-gpu and the
    TQ-JSON rows of tq-gpu (rotate + stage 1 + stage 2)."""
    out = {}
    for line in text.splitlines():
        if line.startswith("TQ-JSON "):
            r = json.loads(line[len("TQ-JSON "):])
            # A stage 1 build's `.cK` (--programs-per-cta) is how it is launched, not another
            # kernel: base and variant rows pair up whether or not one of them packs.
            build = re.sub(r"\.c\d+$", "", r["stage1_build"])
            out[f"{build} {r['B']}x{r['seq_len']}"] = round(1000 * r["ms"], 3)
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or len(cells) < 3 or cells[0] in ("kernel", "---"):
            continue
        if re.fullmatch(r"bf16", cells[1]) and re.fullmatch(r"[0-9.]+", cells[4]):  # norm-gpu
            out[f"{cells[0]} {cells[2]}x{cells[3]}"] = float(cells[4])
        elif m := re.fullmatch(r"([0-9.]+) us", cells[2]):  # mqa-gpu
            out[f"{cells[0]} {cells[1]}"] = float(m.group(1))
    return out


def self_test():
    """rows() on lines in norm-gpu's, mqa-gpu's (bench/runs/2026-12-02-check-26/run80b) and tq-gpu's
    formats."""
    norm = ("copy bandwidth (1 GiB device-to-device, read+write): 3900 GB/s\n\n"
            "| kernel | dtype | M | N | tilec us | GB/s | % of copy | warps (best of) |\n"
            "|---|---|---|---|---|---|---|---|\n"
            "| rms_norm | bf16 | 1 | 4096 | 4.6 | 4 | 0.1 | 8 (3) |\n"
            "| rms_norm | bf16 | 128 | 7168 | error: launch failed |\n")
    assert rows(norm) == {"rms_norm 1x4096": 4.6}, rows(norm)
    mqa = ("fp8_mqa_logits.bt64.c1024      S=1     T=1      causal   rows/1    err/bound 0.008  pass\n"
           "| fp8_mqa_logits.bt64.c1024 | S=4096 T=4096 causal | 385.1 us | 357.0 TFLOP/s |\n"
           "| fp8_paged_mqa_logits.bt64.c256 | B=32 next_n=1 ctx=8192 | 28.9 us | 143.2 TFLOP/s | 1199 GB/s |\n")
    assert rows(mqa) == {"fp8_mqa_logits.bt64.c1024 S=4096 T=4096 causal": 385.1,
                         "fp8_paged_mqa_logits.bt64.c256 B=32 next_n=1 ctx=8192": 28.9}, rows(mqa)
    tq = ('| k4v4.mma.tok |  32 |  8192 | 4 |  6 | 0.1847 | 0.1717 | 0.0068 | 2.8e+08 | 1522 | pass 0.382 |\n'
          'TQ-JSON {"preset": "k4v4", "B": 32, "seq_len": 8192, "heads": 4, "splits": 6, "ms": 0.184736, '
          '"stage1_ms": 0.171712, "stage2_ms": 0.006848, "mma": 2, '
          '"stage1_build": "turboquant_decode_stage1.d128.k4v4.h4.mma.tok"}\n')
    assert rows(tq) == {"turboquant_decode_stage1.d128.k4v4.h4.mma.tok 32x8192": 184.736}, rows(tq)
    packed = tq.replace('h4.mma.tok"', 'h4.mma.tok.c4"')
    assert rows(packed) == rows(tq), rows(packed)
    print("bench/compiler-ab.py self-test: passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    tar = tarfile.open(sys.argv[1])
    text = {m.name.lstrip("./"): tar.extractfile(m).read().decode() for m in tar.getmembers() if m.isfile()}
    print("| row | base us | base2 / base | variant / base (2 runs) |\n|---|---|---|---|")
    for kind in ("norm", "mqa", "tq"):
        if f"base-{kind}1.txt" not in text:
            continue
        b1, b2 = rows(text[f"base-{kind}1.txt"]), rows(text[f"base-{kind}2.txt"])
        v1, v2 = rows(text[f"v-{kind}1.txt"]), rows(text[f"v-{kind}2.txt"])
        for key, us in b1.items():
            if key in b2 and key in v1 and key in v2:
                print(f"| {key} | {us:.1f} | {b2[key] / us:.3f} | {v1[key] / us:.3f}, {v2[key] / us:.3f} |")


if __name__ == "__main__":
    main()
