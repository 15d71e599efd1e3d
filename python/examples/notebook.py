"""A notebook-style tour of the mpelog package (run it as a script).

    pip install ./python matplotlib
    python python/examples/notebook.py [TRACE] [OUT.png]

Without TRACE it generates one with `mpelog synth` (the command-line tool on
PATH, or `cargo run --release -- synth`).
"""

import subprocess
import sys
import tempfile
from pathlib import Path

import mpelog

# %% A trace: the one given, or a generated one.
if len(sys.argv) > 1 and sys.argv[1]:
    path = Path(sys.argv[1])
else:
    path = Path(tempfile.mkdtemp()) / "demo.clog2"
    subprocess.run(["mpelog", "synth", "-o", str(path), "--ranks", "4", "--events", "200000"], check=True)
out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("time_per_category.png")

# %% Open it (any format: CLOG2, SLOG-2, OTF2, ...) and look at it.
t = mpelog.open(path)
info = t.info()
print(f"{info['format']}: {info['end'] - info['start']:.3f} s, {len(info['categories'])} categories")

# %% Top categories by time spent in them (exclusive), over all timelines.
stats = t.stats()
cats = stats["categories"]
states = cats[cats["topology"] == "state"]
top = states.sort_values("exclusive_sum", ascending=False).head(10)
print(top[["name", "count", "inclusive_sum", "exclusive_sum"]].to_string(index=False))

# %% A window as a DataFrame: the first 1% of the trace.
t0 = info["start"]
t1 = t0 + (info["end"] - info["start"]) / 100
window = t.window(t0, t1).to_pandas()
print(window.groupby("name")["duration"].agg(["count", "sum"]).sort_values("sum", ascending=False).head())

# %% Why the run was slow: Scalasca's wait states (mpelog analyze), the worst
# first, the timeline that waited most in each, and the critical path.
a = t.analyze()
waits = a["pattern_timelines"].sort_values("seconds", ascending=False).drop_duplicates("pattern")
print(a["patterns"][["name", "seconds", "share", "count"]].merge(
    waits[["pattern", "timeline"]], left_on="name", right_on="pattern").drop(columns="pattern").head().to_string(index=False))
print(f"critical path {a['critical_path_seconds']:.3f} s, mostly in:",
      ", ".join(a["critical_path"]["category"].head(3)))

# %% Time per category, as a bar chart written to a PNG.
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(8, 4))
ax.barh(top["name"][::-1], top["exclusive_sum"][::-1])
ax.set_xlabel("exclusive time, s (summed over timelines)")
ax.set_title(f"{path.name}: time per category")
fig.tight_layout()
fig.savefig(out, dpi=100)
print(f"wrote {out}")
