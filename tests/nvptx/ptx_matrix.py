#!/usr/bin/env python3
"""PTX build matrix for ptxas.test (not a test itself: lit runs only .tile,
.mlir and .test files).

For every FILE.tile in KERNEL_DIR, every --targets entry and every --dtypes
entry (passed as -D T=...), builds the kernel twice with `tilec compile`:
  generic  no assumptions;
  div16    --assume NAME=16 for every pointer and integer parameter (read from
           the generic build's .meta file), so loads and stores vectorise.
Each build's PTX must assemble with `ptxas -arch=TARGET` and pass FileCheck
against --checks with the prefixes PTX plus GENERIC or DIV16 (-DKERNEL, -DTARGET
set); its .meta file must pass FileCheck with the prefix META.

Prints one line per build, `PASS kernel target dtype variant` or `FAIL ...`
followed by the failing command and its output (also on stderr), sorted, then
`N builds, all passed` or `N builds, M failed`. Exits 1 when a build failed.
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.returncode, proc.stdout


def read_meta(path):
    kernel, params = None, []
    with open(path) as f:
        for line in f:
            words = line.split()
            if words[:1] == ["kernel"]:
                kernel = words[1]
            elif words[:1] == ["param"]:
                params.append((words[1], words[2]))
    return kernel, params


def assumable(type_name):
    # Pointers (address in bytes) and integers; not floats or bools.
    return type_name.startswith("ptr<") or type_name in ("i8", "u8", "i16", "i32", "i64")


def build_one(args, source, target, dtype):
    """Both variants of one (source, target, dtype); returns [(key, error)]."""
    stem = os.path.splitext(os.path.basename(source))[0]
    results = []
    assume = None
    for variant in ("generic", "div16"):
        key = (stem, target, dtype, variant)
        out = os.path.join(args.out, f"{stem}.{target}.{dtype}.{variant}.ptx")
        cmd = [args.tilec, "compile", source, f"--target={target}", "-D", f"T={dtype}", "-o", out]
        if variant == "div16":
            if assume is None:
                results.append((key, "skipped: the generic build failed"))
                continue
            cmd += assume
        steps = [cmd]
        rc, text = run(cmd)
        if rc == 0:
            kernel, params = read_meta(out + ".meta")
            if variant == "generic":
                assume = []
                for name, type_name in params:
                    if assumable(type_name):
                        assume += ["--assume", f"{name}=16"]
            prefix = "GENERIC" if variant == "generic" else "DIV16"
            defines = [f"-DKERNEL={kernel}", f"-DTARGET={target}"]
            steps = [
                [args.ptxas, f"-arch={target}", out, "-o", out + ".cubin"],
                [args.filecheck, args.checks, f"--input-file={out}",
                 f"--check-prefixes=PTX,{prefix}"] + defines,
                [args.filecheck, args.checks, f"--input-file={out}.meta",
                 "--check-prefix=META"] + defines,
            ]
            for step in steps:
                rc, text = run(step)
                if rc != 0:
                    cmd = step
                    break
        results.append((key, None if rc == 0 else f"$ {' '.join(cmd)}\n{text}"))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec", required=True)
    parser.add_argument("--ptxas", default="ptxas")
    parser.add_argument("--filecheck", required=True)
    parser.add_argument("--checks", required=True, help="FileCheck check file")
    parser.add_argument(
        "--out", required=True,
        help="path prefix of a new folder for the PTX and cubins (PREFIX.XXXXXX: a "
        "concurrent run of the same test cannot delete it; removed when all pass)")
    parser.add_argument("--targets", default="sm_80,sm_89,sm_90a")
    parser.add_argument("--dtypes", default="bf16,f16,f32")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("kernel_dir")
    args = parser.parse_args()

    sources = sorted(
        os.path.join(args.kernel_dir, name)
        for name in os.listdir(args.kernel_dir)
        if name.endswith(".tile")
    )
    if not sources:
        print(f"no .tile files in {args.kernel_dir}")
        return 1
    parent = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(parent, exist_ok=True)
    args.out = tempfile.mkdtemp(prefix=os.path.basename(args.out) + ".", dir=parent)
    jobs = [(s, t, d) for s in sources for t in args.targets.split(",") for d in args.dtypes.split(",")]
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for r in pool.map(lambda j: build_one(args, *j), jobs):
            results += r
    failed = 0
    for key, error in sorted(results):
        print(("PASS " if error is None else "FAIL ") + " ".join(key))
        if error is not None:
            failed += 1
            print(error.rstrip())
            # stderr too: lit shows it in full, FileCheck's dump of stdout may not.
            print(f"FAIL {' '.join(key)}\n{error.rstrip()}", file=sys.stderr)
    print(f"{len(results)} builds, " + ("all passed" if not failed else f"{failed} failed"))
    if failed:
        print(f"the builds are in {args.out}", file=sys.stderr)
        return 1
    shutil.rmtree(args.out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
