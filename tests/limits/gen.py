#!/usr/bin/env python3
"""Writes one hostile .tile source to stdout, for the RUN lines of tests/limits:
    gen.py KIND [N]
N is a depth or a count (each KIND has a default); the big-* kinds write about
10 MB (N = bytes). Every source ends where its diagnostic is expected; the
tests FileCheck the file:line:col."""
import sys

MB10 = 10 * 1024 * 1024
HEAD = "kernel k(x: ptr<f32>, n: i32) {\n"


def nest(open_, close, inner="", head=HEAD, tail="\n}\n"):
    return lambda n: head + open_ * n + inner + close * n + tail


def until(size, head, stmt, tail):
    """head, then stmt(0), stmt(1), ... until `size` bytes, then tail."""
    parts, total, i = [head], len(head), 0
    while total < size:
        s = stmt(i)
        parts.append(s)
        total += len(s)
        i += 1
    parts.append(tail)
    return "".join(parts)


def inline_chain(n, body):
    """f0 .. f{n}: f{i} returns body(i) around a call of f{i-1}."""
    s = "fn f0(v: f32) -> f32 {\n  return v;\n}\n"
    for i in range(1, n + 1):
        s += "fn f%d(v: f32) -> f32 {\n%s}\n" % (i, body(i))
    return s + "kernel k(x: ptr<f32>) {\n  store(x, f%d(load(x)));\n}\n" % n


def fan_out(n):
    """f{i} calls f{i-1} twice: 2^n inlined calls."""
    s = "fn f0(v: f32) -> f32 {\n  return v + 1.0;\n}\n"
    for i in range(1, n + 1):
        s += "fn f%d(v: f32) -> f32 {\n  return f%d(v) + f%d(v);\n}\n" % (i, i - 1, i - 1)
    return s + "kernel k(x: ptr<f32>) {\n  store(x, f%d(load(x)));\n}\n" % n


KINDS = {
    # Nesting (depth n); the parser allows 256 levels.
    "ifs": (100000, nest("if true {", "}")),
    "fors": (100000, nest("for i in range(4) {", "}")),
    "else-ifs": (100000, lambda n: HEAD + " if false {}" + " else if false {}" * n + "\n}\n"),
    "calls": (100000, nest("exp(", ")", "1.0", HEAD + "  let a = ", ";\n}\n")),
    "lists": (100000, nest("[", "]", "1", HEAD + "  let a = ", ";\n}\n")),
    "ptrs": (100000, nest("ptr<", ">", "f32", "kernel k(x: ", ") {\n}\n")),
    "methods": (100000, lambda n: HEAD + "  let a = load(x)" + ".to(f32)" * n + ";\n}\n"),
    "subscripts": (100000, lambda n: HEAD + "  let a = load(x)" + "[None]" * n + ";\n}\n"),
    # Nesting that only inlining builds: n functions, each 250 levels deep
    # around the call of the next (expressions, then blocks).
    "inline-exprs": (63, lambda n: inline_chain(n, lambda i: "  return " + "-" * 250 + "f%d(v);\n" % (i - 1))),
    "inline-blocks": (63, lambda n: inline_chain(
        n, lambda i: "  let r = v;\n  " + "if v > 0.0 { " * 250 + "r = f%d(v);" % (i - 1) + " }" * 250 + "\n  return r;\n")),
    # Calls: a chain n functions deep, and 2^n calls from n functions.
    "call-chain": (100, lambda n: inline_chain(n, lambda i: "  return f%d(v) * 2.0;\n" % (i - 1))),
    "fan-out": (60, fan_out),
    # n nested loops carrying a tile, for the GPU lowering (layout trials per loop).
    "gpu-fors": (200, lambda n: "kernel k(x: ptr<f32>, n: i32) {\n  let r = arange(0, 128);\n"
                 "  let acc = zeros([128], f32);\n"
                 + "".join("for i%d in range(0, n) {\n" % i for i in range(n))
                 + "acc = acc + load(x + r);\n" + "}\n" * n + "  store(x + r, acc);\n}\n"),
    # A compile-time value doubled n times.
    "doubling": (64, lambda n: HEAD + "  let a = 1;\n" + "  a = a * 2;\n" * n + "}\n"),
    # About n bytes (10 MB), the diagnostic at the end.
    "big-lets": (MB10, lambda n: until(n, HEAD, lambda i: "  let a%d = %d;\n" % (i, i), "  let e = nope;\n}\n")),
    "big-loads": (MB10, lambda n: until(n, HEAD, lambda i: "  let a%d = load(x + %d);\n" % (i, i), "  let e = nope;\n}\n")),
    "big-arith": (MB10, lambda n: until(
        n, HEAD, lambda i: "  let a%d = load(x + %d) * 2.0 + 1.0;\n" % (i, i), "  let e = nope;\n}\n")),
    "big-kernels": (MB10, lambda n: until(
        n, "", lambda i: "kernel k%d(x: ptr<f32>) {\n  store(x, 1.0);\n}\n" % i,
        "kernel last(x: ptr<f32>) {\n  store(x, nope);\n}\n")),
    "big-fns": (MB10, lambda n: until(
        n, "", lambda i: "fn f%d(v: f32) -> f32 {\n  return v;\n}\n" % i,
        "kernel k(x: ptr<f32>) {\n  store(x, nope);\n}\n")),
    "big-args": (MB10, lambda n: "fn f(v: f32) -> f32 {\n  return v;\n}\n" + HEAD
                 + "  store(x, f(" + "1.0, " * (n // 5) + "1.0));\n}\n"),
    "big-comment": (MB10, lambda n: "// " + "x" * n + "\n" + HEAD + "  let e = nope;\n}\n"),
    "big-block-comment": (MB10, lambda n: HEAD + "  /* " + "x" * n + "\n}\n"),
    "big-line": (MB10, lambda n: HEAD.rstrip("\n") + " let a = 0;" + " a = a + 1;" * (n // 11) + " let e = nope; }\n"),
    "big-ident": (MB10, lambda n: HEAD + "  let " + "a" * n + " = nope;\n}\n"),
    "big-number": (MB10, lambda n: HEAD + "  let a = " + "9" * n + ";\n}\n"),
    "big-string": (MB10, lambda n: HEAD + '  static_assert(false, "' + "x" * n + '");\n}\n'),
    "big-parens": (MB10, lambda n: HEAD + "  let a = " + "(" * n + "\n}\n"),
    "big-nul": (MB10, lambda n: "\0" * n),
    # Lines of about n bytes with the error in the middle (the echoed line is
    # clipped on both sides), at the start, and in the middle between 3-byte
    # UTF-8 characters.
    "long-line-middle": (MB10, lambda n: HEAD + "  let a = 0;" + " a = a + 1;" * (n // 22) + " let e = nope;"
                         + " a = a + 1;" * (n // 22) + "\n}\n"),
    "long-line-start": (MB10, lambda n: HEAD + "  let e = nope; // " + "x" * n + "\n}\n"),
    "long-line-utf8": (MB10, lambda n: HEAD + "  /* " + "\u20ac" * (n // 6) + " */ let e = nope; /* "
                       + "\u20ac" * (n // 6) + " */\n}\n"),
}

if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in KINDS:
        sys.exit("usage: gen.py KIND [N]; kinds: " + " ".join(KINDS))
    default, make = KINDS[sys.argv[1]]
    n = int(sys.argv[2]) if len(sys.argv) == 3 else default
    sys.stdout.buffer.write(make(n).encode("utf-8"))
