#!/usr/bin/env python3
"""pipit's profile of one pipit CSV (`mpelog export --format csv`), for
benches/analyze_speed.sh: reads it (Trace.from_csv), then the flat profile
of exclusive time per function and process and pipit's load imbalance, and
prints the seconds of each step and a line per function (largest mean
first, at most 8). pipit (hpcgroup/pipit, from git) is a developer-time
oracle: put its checkout on PYTHONPATH; never a dependency of mpelog.

    pipit_profile.py TRACE.csv
"""
import sys
import time

import pandas
import pipit

t0 = time.perf_counter()
trace = pipit.Trace.from_csv(sys.argv[1])
t1 = time.perf_counter()
flat = trace.flat_profile(metrics="time.exc", per_process=True)
t2 = time.perf_counter()
try:
    imb = trace.load_imbalance(metric="time.exc", num_processes=3)
    how = "load_imbalance"
except TypeError:
    # pipit @05d9563's load_imbalance calls Series.sort_values on what
    # flat_profile now returns as a DataFrame (pandas 3): the same numbers
    # (max over mean over the processes per function) from its flat profile.
    per = flat["time.exc"].unstack(fill_value=0.0)
    imb = pandas.DataFrame({
        "time.exc.mean": per.mean(axis=1),
        "time.exc.imbalance": per.max(axis=1) / per.mean(axis=1),
        "Top processes": [list(r.sort_values(ascending=False).index[:3])
                          for _, r in per.iterrows()],
    }).sort_values("time.exc.mean", ascending=False)
    how = "imbalance from flat_profile"
t3 = time.perf_counter()
print("pipit: read %.2f s, flat_profile %.2f s, %s %.2f s; %d events, %d rows"
      % (t1 - t0, t2 - t1, how, t3 - t2, len(trace.events), len(flat)))
for name, row in imb.head(8).iterrows():
    print("  %-24s mean %.6f s  max/mean %.3f  top %s"
          % (name, row["time.exc.mean"] / 1e9, row["time.exc.imbalance"],
             row["Top processes"]))
