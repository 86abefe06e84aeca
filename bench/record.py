#!/usr/bin/env python3
"""Records a run of bench/suite.py in bench/RESULTS.md.

    python3 bench/record.py RUN_DIR/suite.json [--results bench/RESULTS.md] [--logs RUN_DIR]
                            [--command CMD] [--note TEXT] [--dry-run]

Appends a section (date, device, driver and clocks, commit, the exact commands, the correctness
summary, the norm table, the goal table) after the earlier runs, numbered after the last
"(run N)", and copies the run's files (suite.json, suite.md, check.log, launch.log, suite.log) from
--logs (default: the JSON's directory) to bench/runs/DATE-suite/, which the section names.
--dry-run prints the section only.
"""
import argparse
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the working tree
import suite  # noqa: E402

DEFAULT_COMMAND = ("set -o pipefail; PYTHONUNBUFFERED=1 python3 bench/suite.py --out $OUT 2>&1 | "
                   "tee $OUT/suite.log")
FILES = ["suite.json", "suite.md", "check.log", "launch.log", "suite.log"]


def next_run_number(text):
    runs = [int(n) for n in re.findall(r"\(run (\d+)\)", text)]
    return max(runs) + 1 if runs else 1


def command_of(rep):
    """The suite's command line as run, with its output directory written $OUT."""
    argv = list(rep.get("meta", {}).get("argv") or [])
    for i, a in enumerate(argv):
        if a == "--out" and i + 1 < len(argv):
            argv[i + 1] = "$OUT"
        elif a.startswith("--out="):
            argv[i] = "--out=$OUT"
    if not argv:
        return DEFAULT_COMMAND
    return ("set -o pipefail; PYTHONUNBUFFERED=1 python3 bench/suite.py " + " ".join(argv) +
            " 2>&1 | tee $OUT/suite.log")


def section(rep, run, runs_dir, command=None, note=None):
    m = rep.get("meta", {})
    b = m.get("build", {})
    date = (m.get("date_utc") or "????-??-??")[:10]
    dirty = b.get("dirty") not in (None, "0")
    text = suite.render_markdown(rep)  # also fills rep["goals"]
    summary, rest = text.split("\n\n", 1)
    L = [f"## {date} (run {run}) — benchmark suite at {b.get('short', '?')}", ""]
    L.append(f"- Device: {m.get('device', '?')} (cc {m.get('cc', '?')}, {m.get('sms', '?')} SMs); driver, "
             f"clocks at start: {m.get('driver_clocks_start', '?')}; at end: {m.get('driver_clocks_end', '?')}; "
             f"suite wall time {m.get('wall_s', '?')} s.")
    L.append(f"- Commit: {b.get('commit', '?')} (the payload was built from that tree"
             + (f", with {b['dirty']} modified tracked files" if dirty else "") + f", {b.get('built', '?')}); "
             f"torch {m.get('torch', '?')}, triton {m.get('triton', '?')}, python {m.get('python', '?')}; "
             f"input seed {m.get('seed', '?')}.")
    L.append("- Commands (here, then one device call with `.carry/payload.tar.xz` carried):")
    L.append("")
    L.append("      scripts/gpu-artifacts.sh")
    L.append(f"      {command or command_of(rep)}")
    L.append("")
    L.append(f"- Files: `{runs_dir}/` ({', '.join(FILES)}).")
    if note:
        L.append(f"- {note}")
    L.append("")
    L += [f"- {line}" for line in summary.splitlines()[1:]]  # the first repeats Device and Commit
    L.append("")
    L.append(rest.rstrip())
    L.append("")
    return "\n".join(L) + "\n"


def insert(results_text, sec):
    """Appends `sec` after the last run section."""
    return results_text.rstrip("\n") + "\n\n" + sec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json")
    ap.add_argument("--results", default=os.path.join(HERE, "RESULTS.md"))
    ap.add_argument("--logs", default=None, help="directory holding the run's files (default: the JSON's)")
    ap.add_argument("--command", default=None, help="the device command, if not the one the JSON implies")
    ap.add_argument("--note", default=None, help="one more line for the section")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    rep = json.load(open(args.json))
    text = open(args.results).read()
    date = (rep.get("meta", {}).get("date_utc") or "unknown")[:10]
    name = f"{date}-suite"
    runs_root = os.path.join(os.path.dirname(os.path.abspath(args.results)), "runs")
    k = 2
    while os.path.exists(os.path.join(runs_root, name)) and not args.dry_run:
        name = f"{date}-suite-{k}"
        k += 1
    sec = section(rep, next_run_number(text), f"runs/{name}", args.command, args.note)
    if args.dry_run:
        print(sec, end="")
        return 0
    logs = args.logs or os.path.dirname(os.path.abspath(args.json))
    dest = os.path.join(runs_root, name)
    os.makedirs(dest)
    copied = []
    for f in FILES:
        if os.path.exists(os.path.join(logs, f)):
            shutil.copyfile(os.path.join(logs, f), os.path.join(dest, f))
            copied.append(f)
    with open(args.results, "w") as out:
        out.write(insert(text, sec))
    print(f"added run section to {args.results}; copied {', '.join(copied) or 'nothing'} to {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
