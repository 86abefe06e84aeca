#!/usr/bin/env python3
"""Tabulates bench/compiler-ab.sh's files: each timing row of norm-gpu --time-only and mqa-gpu,
the base's time (first run) and the variant's ratio to the base in each of the two runs.

    python3 bench/compiler-ab.py FILES_AT/compiler-ab.tar.xz
"""
import io
import re
import sys
import tarfile


def rows(text):
    """{row label: microseconds} from the markdown timing rows of norm-gpu and mqa-gpu."""
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or len(cells) < 3 or cells[0] in ("kernel", "---"):
            continue
        if re.fullmatch(r"bf16", cells[1]) and re.fullmatch(r"[0-9.]+", cells[4]):  # norm-gpu
            out[f"{cells[0]} {cells[2]}x{cells[3]}"] = float(cells[4])
        elif m := re.fullmatch(r"([0-9.]+) us", cells[2]):  # mqa-gpu
            out[f"{cells[0]} {cells[1]}"] = float(m.group(1))
    return out


def main():
    tar = tarfile.open(sys.argv[1])
    text = {m.name.lstrip("./"): tar.extractfile(m).read().decode() for m in tar.getmembers() if m.isfile()}
    print("| row | base us | base2 / base | variant / base (2 runs) |\n|---|---|---|---|")
    for kind in ("norm", "mqa"):
        b1, b2 = rows(text[f"base-{kind}1.txt"]), rows(text[f"base-{kind}2.txt"])
        v1, v2 = rows(text[f"v-{kind}1.txt"]), rows(text[f"v-{kind}2.txt"])
        for key, us in b1.items():
            if key in b2 and key in v1 and key in v2:
                print(f"| {key} | {us:.1f} | {b2[key] / us:.3f} | {v1[key] / us:.3f}, {v2[key] / us:.3f} |")


if __name__ == "__main__":
    main()
