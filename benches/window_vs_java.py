"""Issue 45's window target, side by side in one run: the same time windows
of one SLOG-2 file read by

- the Java slog2sdk reader of MPE (Jumpshot's way: a ``TreeTrunk`` grown to
  depth 0 over the window, then its iterators of real drawables), when a
  build of it is given (``--java CLASSPATH``: the slog2sdk classes and a
  timing class ``WindowTiming`` taking ``FILE WINDOWS REPS WARMUP MODE`` and
  printing ``index t0 t1 drawables median_ms p95_ms min_ms`` per window; the
  build is a developer's, never part of this repository);
- the Python package's ``t.window()`` (pyarrow tables), in this process;
- the Rust API (``benches/examples/window_side.rs``: ``Trace::window_columns``,
  ``Trace::window`` and ``Slog2Reader::window_into``), ``--rust BINARY``.

Each reader opens the file once and reads every window afresh, ``--reps``
passes after ``--warmup`` passes; per window the median and the 95th
percentile. Ratios are Java's median over ours. The machine's load is printed
with the numbers (the machine may be shared).

    python benches/window_vs_java.py FILE.slog2 WINDOWS.txt \\
        --rust target/release/examples/window_side --java /path/to/classes

``WINDOWS.txt``: ``t0 t1`` per line.
"""

import argparse
import json
import os
import statistics
import subprocess
import time


def quantile(v, q):
    v = sorted(v)
    i = max(1, min(len(v), -(-int(q * len(v) * 1000) // 1000))) - 1
    return v[i]


def python_side(path, windows, reps, warmup):
    import mpelog

    t = mpelog.open(path)
    ms = [[] for _ in windows]
    rows = [0] * len(windows)
    for rep in range(warmup + reps):
        for i, (a, b) in enumerate(windows):
            start = time.perf_counter_ns()
            table = t.window(a, b)
            took = (time.perf_counter_ns() - start) / 1e6
            rows[i] = table.num_rows
            del table
            if rep >= warmup:
                ms[i].append(took)
    return [
        {"rows": rows[i], "median_ms": statistics.median(v), "p95_ms": quantile(v, 0.95)}
        for i, v in enumerate(ms)
    ]


def java_side(classpath, path, windows_file, reps, warmup, mode, jvm):
    cmd = ["java", *jvm.split(), "-cp", classpath, "WindowTiming", path, windows_file]
    out = subprocess.run(
        cmd + [str(reps), str(warmup), mode], capture_output=True, text=True, check=True
    ).stdout
    res = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 7:
            res.append({"rows": int(f[3]), "median_ms": float(f[4]), "p95_ms": float(f[5])})
    return res


def rust_side(binary, path, windows_file, reps, warmup):
    out = subprocess.run(
        [binary, path, windows_file, str(reps), str(warmup)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    res = {}
    for line in out.splitlines():
        r = json.loads(line)
        res.setdefault(r["way"], []).append(r)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("slog2")
    ap.add_argument("windows")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--rust", help="the window_side example binary")
    ap.add_argument("--java", help="classpath of the slog2sdk classes and WindowTiming")
    ap.add_argument("--java-mode", default="fresh", choices=["fresh", "scroll"])
    ap.add_argument("--jvm", default="-Xmx1g -XX:+UseSerialGC")
    a = ap.parse_args()
    windows = []
    with open(a.windows) as f:
        for line in f:
            p = line.split()
            if len(p) >= 2:
                windows.append((float(p[0]), float(p[1])))
    cols = {}
    print(f"load before: {os.getloadavg()}")
    if a.java:
        cols["java"] = java_side(a.java, a.slog2, a.windows, a.reps, a.warmup, a.java_mode, a.jvm)
    cols["t.window"] = python_side(a.slog2, windows, a.reps, a.warmup)
    if a.rust:
        for way, v in rust_side(a.rust, a.slog2, a.windows, a.reps, a.warmup).items():
            cols[way] = v
    print(f"load after: {os.getloadavg()}")
    names = list(cols)
    print("window  rows   " + "  ".join(f"{n:>20}" for n in names) + "   java/t.window")
    for i, (a_, b_) in enumerate(windows):
        cells = []
        for n in names:
            r = cols[n][i]
            cells.append(f"{r['median_ms']:8.3f} ({r['p95_ms']:8.3f})")
        ratio = ""
        if "java" in cols:
            ratio = f"{cols['java'][i]['median_ms'] / cols['t.window'][i]['median_ms']:6.1f}x"
            ratio += f" p95 {cols['java'][i]['p95_ms'] / cols['t.window'][i]['p95_ms']:5.1f}x"
        print(f"{i:6d} {cols['t.window'][i]['rows']:6d}  " + "  ".join(cells) + "   " + ratio)
    print(json.dumps({"windows": windows, "results": cols}))


if __name__ == "__main__":
    main()
