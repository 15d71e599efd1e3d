"""Issue 45's window target, side by side in one run: the same time windows
of one SLOG-2 file read by

- the Java slog2sdk reader of MPE (Jumpshot's way: a ``TreeTrunk`` grown to
  depth 0 over the window, then its iterators of real drawables), when a
  build of it is given (``--java CLASSPATH``: the slog2sdk classes and a
  timing class ``WindowTiming`` taking ``FILE WINDOWS REPS WARMUP MODE`` and
  printing ``index t0 t1 drawables median_ms p95_ms min_ms`` per window; the
  build is a developer's, never part of this repository);
- the Python package's ``t.window()`` (pyarrow tables), in this process,
  whole and without its info columns (``t.window(columns=...)``: the
  columns Java's reader gives, the info values left undecoded);
- the Rust API (``benches/examples/window_side.rs``: ``Trace::window_columns``,
  ``Trace::window`` and ``Slog2Reader::window_into``), ``--rust BINARY``.

Each reader opens the file once and reads every window afresh, ``--reps``
passes after ``--warmup`` passes, and the readers take ``--rounds`` turns so
that a shared machine's changing load falls on all of them alike; per window
the median and the 95th percentile of the pooled samples. Ratios are Java's
over ``t.window()``'s. The machine's load is printed with the numbers.

    python benches/window_vs_java.py FILE.slog2 WINDOWS.txt \\
        --rust target/release/examples/window_side --java /path/to/classes

``WINDOWS.txt``: ``t0 t1`` per line.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import time


def quantile(v, q):
    """The `q`-quantile of `v` (nearest rank)."""
    v = sorted(v)
    return v[max(1, min(len(v), math.ceil(q * len(v)))) - 1]


def python_side(path, windows, reps, warmup):
    """Samples (ms) and rows per window of `t.window()`."""
    import mpelog

    t = mpelog.open(path)
    ms = [[] for _ in windows]
    bare_ms = [[] for _ in windows]
    cold = [[] for _ in windows]
    bare = ["kind", "category", "name", "start", "end", "duration", "start_line", "end_line"]
    rows = [0] * len(windows)
    for rep in range(warmup + reps):
        for i, (a, b) in enumerate(windows):
            start = time.perf_counter_ns()
            table = t.window(a, b)
            took = (time.perf_counter_ns() - start) / 1e6
            rows[i] = table.num_rows
            del table
            start = time.perf_counter_ns()
            table = t.window(a, b, columns=bare)
            took_bare = (time.perf_counter_ns() - start) / 1e6
            del table
            # Cold: the first window of a trace opened just before (not timed).
            fresh = mpelog.open(path)
            start = time.perf_counter_ns()
            table = fresh.window(a, b)
            took_cold = (time.perf_counter_ns() - start) / 1e6
            del table, fresh
            if rep >= warmup:
                ms[i].append(took)
                bare_ms[i].append(took_bare)
                cold[i].append(took_cold)
    return {
        "t.window": [(rows[i], ms[i]) for i in range(len(windows))],
        "t.window no info": [(rows[i], bare_ms[i]) for i in range(len(windows))],
        "t.window cold": [(rows[i], cold[i]) for i in range(len(windows))],
    }


def java_side(classpath, path, windows_file, reps, warmup, mode, jvm):
    """Samples and rows per window of the Java reader (WindowTiming)."""
    cmd = ["java", *jvm.split(), "-cp", classpath, "WindowTiming", path, windows_file]
    out = subprocess.run(
        cmd + [str(reps), str(warmup), mode], capture_output=True, text=True, check=True
    ).stdout
    res = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 7:
            res.append((int(f[3]), [float(x) for x in f[7:]]))
    return {f"java {mode}": res}


def rust_side(binary, path, windows_file, reps, warmup):
    """Samples and rows per window of each way of the Rust API."""
    out = subprocess.run(
        [binary, path, windows_file, str(reps), str(warmup)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    res = {}
    for line in out.splitlines():
        r = json.loads(line)
        res.setdefault(f"rust {r['way']}", []).append((r["rows"], r["samples_ms"]))
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("slog2")
    ap.add_argument("windows")
    ap.add_argument("--reps", type=int, default=10, help="passes per round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of every reader, in turn")
    ap.add_argument("--warmup", type=int, default=3)
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
    # Every reader in turn, `rounds` times, so that all of them meet the
    # machine's load alike; the samples of the rounds pooled.
    samples = {}
    rows = {}

    def add(res):
        for way, per_window in res.items():
            s = samples.setdefault(way, [[] for _ in windows])
            for i, (n, v) in enumerate(per_window):
                s[i].extend(v)
                rows.setdefault(way, [0] * len(windows))[i] = n

    loads = [os.getloadavg()[0]]
    for _ in range(a.rounds):
        if a.java:
            add(java_side(a.java, a.slog2, a.windows, a.reps, a.warmup, a.java_mode, a.jvm))
        add(python_side(a.slog2, windows, a.reps, a.warmup))
        if a.rust:
            add(rust_side(a.rust, a.slog2, a.windows, a.reps, a.warmup))
        loads.append(os.getloadavg()[0])
    names = list(samples)
    print(f"load (1 min) before and after each round: {loads}")
    print(f"{a.rounds} rounds x {a.reps} passes; per window: median (p95) ms")
    java = next((n for n in names if n.startswith("java")), None)
    print("window   rows " + "".join(f"{n:>22}" for n in names) + ("   java/t.window median, p95" if java else ""))
    ratios = []
    for i in range(len(windows)):
        cells = [f"{statistics.median(samples[n][i]):10.3f} ({quantile(samples[n][i], 0.95):8.3f})" for n in names]
        line = f"{i:6d} {rows['t.window'][i]:6d} " + "".join(f"{c:>22}" for c in cells)
        if java:
            m = statistics.median(samples[java][i]) / statistics.median(samples["t.window"][i])
            p = quantile(samples[java][i], 0.95) / quantile(samples["t.window"][i], 0.95)
            ratios.append((rows["t.window"][i], m, p))
            line += f"   {m:5.1f}x {p:5.1f}x"
        for n in names:
            if rows[n][i] != rows["t.window"][i]:
                line += f"  [{n}: {rows[n][i]} rows]"
        print(line)
    bare_ratios = []
    if java and "t.window no info" in samples:
        for i in range(len(windows)):
            bare_ratios.append(
                (rows["t.window"][i], statistics.median(samples[java][i]) / statistics.median(samples["t.window no info"][i]))
            )
    for lo, hi in [(0, 3000), (3000, 30000), (30000, 10**9)]:
        group = [i for i in range(len(windows)) if lo <= rows["t.window"][i] < hi]
        if group:
            cells = [
                f"{n} {statistics.median(statistics.median(samples[n][i]) for i in group):.3f}"
                f" ({statistics.median(quantile(samples[n][i], 0.95) for i in group):.3f})"
                for n in names
            ]
            print(f"windows of {lo}..{hi} rows, median of medians (p95) ms: " + "; ".join(cells))
    if ratios:
        for lo, hi in [(0, 3000), (3000, 30000), (30000, 10**9)]:
            r = [x for x in ratios if lo <= x[0] < hi]
            if r:
                print(
                    f"windows of {lo}..{hi} rows: java/t.window median of ratios "
                    f"{statistics.median(x[1] for x in r):.2f}x (p95 {statistics.median(x[2] for x in r):.2f}x)"
                )
            b = [x[1] for x in bare_ratios if lo <= x[0] < hi]
            if b:
                print(f"windows of {lo}..{hi} rows: java/t.window(no info) median of ratios {statistics.median(b):.2f}x")
    print(json.dumps({"windows": windows, "rows": rows, "samples_ms": samples, "load": loads}))


if __name__ == "__main__":
    main()
