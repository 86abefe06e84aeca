# -*- Python -*-
# lit configuration of the tests in tests/ (diagnostics, CLI) and
# dialects/tile/test (the dialect). Loaded through the site configs that CMake
# writes to build/tests (see tests/CMakeLists.txt). Run: cd build && ctest -R lit
# or /usr/lib/llvm-22/bin/lit -sv build/tests (one test: add its path under
# build/tests, e.g. build/tests/tests/diagnostics/unknown_name.tile).
import os
import sys

import lit.formats
import lit.util

if not hasattr(config, "project_source_dir"):
    lit_config.fatal("run lit on the build tree (build/tests), not on the sources")

config.name = "tilec"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tile", ".mlir", ".test"]
config.excludes = ["support", "Inputs", "kernels"]  # C++ helpers, inputs of other tests
if os.path.samefile(config.test_source_root, config.project_source_dir):
    # The root suite: only dialects/ (dialects/tile/test) and tests/ (the
    # nested suite) hold tests.
    config.excludes += [
        name for name in os.listdir(config.test_source_root) if name not in ("dialects", "tests")
    ]

# Permission tests cannot work as root, who reads any file.
if os.geteuid() != 0:
    config.available_features.add("non-root-user")

# LLVM 22's FileCheck, not and count come first on PATH (FileCheck and not are
# also substituted by full path).
config.environment["PATH"] = os.pathsep.join([config.llvm_tools_dir, os.environ.get("PATH", "")])
config.substitutions.append(("%tilec", config.tilec))
config.substitutions.append(("%tile-opt", config.tile_opt))
config.substitutions.append(("%python", sys.executable))
# tests/limits bound every run: %{memlimit} caps the address space (2 GiB) of
# the commands after it in the test, %{timeout} runs one command for at most 60 s.
# Under AddressSanitizer (build-asan), which reserves terabytes of address
# space for its shadow memory, the sanitizer's hard_rss_limit_mb caps resident
# memory instead (tests/limits/lit.local.cfg), and the time limit is 300 s.
config.sanitize = str(getattr(config, "sanitize", "")).upper() in ("ON", "1", "TRUE", "YES")
if config.sanitize:
    config.available_features.add("asan")
config.substitutions.append(("%{memlimit}", ":" if config.sanitize else "ulimit -v 2097152"))
config.substitutions.append(("%{timeout}", "timeout %d" % (300 if config.sanitize else 60)))
# The example kernels that the CLI tests compile.
config.substitutions.append(("%kernels", os.path.join(config.project_source_dir, "kernels")))

# NVIDIA's ptxas (feature `ptxas`, on PATH after the LLVM tools) validates the
# PTX that tilec writes; tests needing it say `REQUIRES: ptxas` and are
# reported unsupported without it. tilec emits PTX ISA 8.6: ptxas 12.8 or newer.
def _find_ptxas():
    import re
    import subprocess

    path = lit.util.which("ptxas", os.environ.get("PATH", "")) or lit.util.which(
        "ptxas", "/usr/local/cuda/bin"
    )
    if not path:
        return None
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"release (\d+)\.(\d+)", out)
    if not m or (int(m.group(1)), int(m.group(2))) < (12, 8):
        lit_config.note(f"{path} is too old for PTX ISA 8.6 (needs 12.8+): ptxas tests unsupported")
        return None
    return path


_ptxas = _find_ptxas()
if _ptxas:
    config.available_features.add("ptxas")
    config.environment["PATH"] = os.pathsep.join(
        [config.environment["PATH"], os.path.dirname(_ptxas)]
    )

for tool in ["FileCheck", "not"]:
    path = lit.util.which(tool, config.llvm_tools_dir)
    if not path:
        lit_config.fatal(f"{tool} not found in {config.llvm_tools_dir}")
    # Whole words only: not inside a path, a file name or an option.
    config.substitutions.append((r"(?<![-/.\w])%s(?![-.\w])" % tool, path))
