"""Side by side in one run (issue 45's speed targets), each reader in a
process of its own so that its peak RSS is its own:

    python python/benches/side_by_side.py TRACE.clog2 ARCHIVE/traces.otf2 [MPELOG]

- ``t.batches()`` over the CLOG2 trace: MB/s of the trace, rows/s, peak RSS;
- pandas ``read_csv`` of our pipit CSV export of the same trace (``mpelog
  export TRACE -o X.csv``, written first, not timed), in chunks of 1 M rows
  so its memory stays bounded too: MB/s of the CLOG2 it stands for;
- ``t.batches()`` and the ``otf2`` package's reader (every event, as
  benches/otf2_speed.sh walks them) over an OTF2 archive (make one with
  ``python benches/otf2_big_archive.py DIR MEGABYTES``; at the package's few
  MB/s, 50 MB take a quarter of a minute);
- ``t.window()`` of about 10k drawables of the SLOG-2 conversion of the
  trace, against ``mpelog window --json`` of the same window (no Java build
  of MPE's slog2sdk here to compare with).

Run it on a release build of the package (``maturin build --release``) and
of the CLI (MPELOG, default: mpelog on PATH). It prints the load with the
numbers: the machine is shared.
"""

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_secs():
    """User and system CPU seconds of this process, all its threads: on a
    shared machine, what the work cost whatever the wall time."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def child(mode, *args):
    """Runs this script as `mode` in a fresh process; returns its JSON line."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, *args], capture_output=True, text=True
    )
    if out.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def size_of(path):
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)
    return os.path.getsize(path)


def run_child(mode, args):
    import mpelog

    start = time.perf_counter()
    if mode == "batches":
        rows = batches = 0
        for b in mpelog.open(args[0]).batches():
            rows += b.num_rows
            batches += 1
        out = {"rows": rows, "batches": batches}
    elif mode == "read_csv":
        import pandas as pd

        rows = 0
        for chunk in pd.read_csv(args[0], keep_default_na=False, chunksize=1 << 20):
            rows += len(chunk)
        out = {"rows": rows}
    elif mode == "otf2":
        import otf2

        n = 0
        with otf2.reader.open(args[0]) as t:
            for _loc, _ev in t.events:
                n += 1
        out = {"events": n}
    elif mode == "window":
        t = mpelog.open(args[0])
        t0, t1 = float(args[1]), float(args[2])
        t.window(t0, t1)  # the file's header and directory read once
        reps = 20
        start = time.perf_counter()
        for _ in range(reps):
            rows = t.window(t0, t1).num_rows
        out = {"rows": rows, "reps": reps}
        out["secs"] = (time.perf_counter() - start) / reps
    out.setdefault("secs", time.perf_counter() - start)
    out["peak_rss_mb"] = peak_mb()
    out["cpu"] = cpu_secs()
    print(json.dumps(out))


def main(trace, archive, mpelog_bin):
    print(f"load before: {os.getloadavg()}")
    mb = size_of(trace) / 1e6
    b = child("batches", trace)
    print(
        f"t.batches() {trace}: {mb:.0f} MB, {b['rows']} rows in {b['secs']:.1f} s: "
        f"{mb / b['secs']:.0f} MB/s, {b['rows'] / b['secs'] / 1e6:.2f} M rows/s; CPU {b['cpu']:.1f} s; peak RSS {b['peak_rss_mb']:.0f} MB"
    )
    tmp = tempfile.mkdtemp(prefix="mpelog-bench-")
    try:
        csv = os.path.join(tmp, "x.csv")
        subprocess.run([mpelog_bin, "export", trace, "-o", csv], check=True, capture_output=True)
        c = child("read_csv", csv)
        print(
            f"pandas read_csv of the pipit CSV ({size_of(csv) / 1e6:.0f} MB, {c['rows']} rows) in {c['secs']:.1f} s: "
            f"{mb / c['secs']:.0f} MB/s of the CLOG2; t.batches() is {c['secs'] / b['secs']:.1f}x faster; "
            f"CPU {c['cpu']:.1f} s; peak RSS {c['peak_rss_mb']:.0f} MB"
        )
        os.remove(csv)
        amb = size_of(os.path.dirname(archive)) / 1e6
        a = child("batches", archive)
        print(
            f"t.batches() OTF2 {amb:.0f} MB: {a['rows']} rows in {a['secs']:.1f} s: {amb / a['secs']:.0f} MB/s; "
            f"CPU {a['cpu']:.1f} s; peak RSS {a['peak_rss_mb']:.0f} MB"
        )
        o = child("otf2", archive)
        print(
            f"otf2 package reader, every event: {o['events']} events in {o['secs']:.1f} s: "
            f"{amb / o['secs']:.1f} MB/s; t.batches() is {o['secs'] / a['secs']:.0f}x faster; "
            f"CPU {o['cpu']:.1f} s; peak RSS {o['peak_rss_mb']:.0f} MB"
        )
        slog2 = os.path.join(tmp, "x.slog2")
        subprocess.run([mpelog_bin, "convert", trace, "-o", slog2], check=True, capture_output=True)
        # About 10k drawables: a window at the middle, grown until it holds them.
        import mpelog

        t = mpelog.open(slog2)
        s, e = t.info()["start"], t.info()["end"]
        mid, width = (s + e) / 2, (e - s) / 1e6
        while t.window(mid, mid + width).num_rows < 10_000:
            width *= 1.5
        w = child("window", slog2, repr(mid), repr(mid + width))
        cli = []
        for _ in range(5):
            t0 = time.perf_counter()
            subprocess.run([mpelog_bin, "window", "--json", slog2, "--from", repr(mid), "--to", repr(mid + width)],
                           check=True, capture_output=True)
            cli.append(time.perf_counter() - t0)
        print(
            f"t.window() of {w['rows']} drawables ({width * 1e3:.3f} ms of the SLOG-2 conversion): "
            f"{w['secs'] * 1e3:.1f} ms; `mpelog window --json` of the same window (process start included): "
            f"{min(cli) * 1e3:.1f} ms"
        )
    finally:
        shutil.rmtree(tmp)
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        run_child(sys.argv[2], sys.argv[3:])
    else:
        main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "mpelog")
