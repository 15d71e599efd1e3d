"""How fast t.batches() reads a trace into Arrow, and its peak memory (a
measurement to run by hand, in a release build of the package):

    mpelog synth -o big.clog2 --events 30000000      # about 1 GB
    python python/examples/speed.py big.clog2

Measured once (2026-11-29, release wheel, 2 shared cores, CPython 3.11,
pyarrow 26): a 1169 MB CLOG2 of 30 M events, 15.76 M rows in 241 batches in
9.0 s: 130 MB/s of CLOG2 (1.75 M rows/s), peak RSS 171 MB (the sorter's
64 MB included). `mpelog export big.clog2 -o big.parquet` writes the same
rows in 30.6 s (peak RSS 175 MB); `mpelog stats big.clog2`, the same
one-pass pairing and sort without Arrow, 9.2 s.

Again (2026-11-29 06:25, load average 8 on the 2 cores: wall times are
stretched, CPU times are the figures to compare), after the compact run
records: 14.2 s wall, 82 MB/s, peak RSS 196 MB (the typed info columns are
built now); `mpelog stats` 5.3-5.8 s of CPU against 6.7-6.8 s before, the
same bytes out. python/benches/side_by_side.py puts it beside pandas, the
`otf2` package and `mpelog window`.
"""

import os
import resource
import sys
import time

import mpelog

path = sys.argv[1]
size = os.path.getsize(path)
t = mpelog.open(path)
start = time.perf_counter()
rows = batches = 0
for batch in t.batches():
    rows += batch.num_rows
    batches += 1
secs = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(
    f"batches(): {size / 1e6:.0f} MB, {rows} rows in {batches} batches in {secs:.1f} s: "
    f"{size / 1e6 / secs:.0f} MB/s, {rows / secs / 1e6:.2f} M rows/s; peak RSS {peak:.0f} MB"
)
