"""The notebook-style example (python/examples/notebook.py) runs as the README
and its docstring say, on a generated trace: it prints the top categories of
`t.stats()`, the analysis and the critical path, and writes its bar chart of
time per category to a PNG of the size it asks for."""

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import mpelog

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "notebook.py"


def test_the_notebook_example_writes_its_chart(generated, tmp_path):
    pytest.importorskip("matplotlib", reason="the example draws with matplotlib")
    png = tmp_path / "chart.png"
    r = subprocess.run(
        [sys.executable, str(EXAMPLE), str(generated["clog2"]), str(png)],
        capture_output=True,
        text=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("CLOG2: "), out
    # Its table of top categories is stats' state categories, the most
    # exclusive time first.
    cats = mpelog.open(generated["clog2"]).stats()["categories"]
    states = cats[cats["topology"] == "state"].sort_values("exclusive_sum", ascending=False)
    lines = out.splitlines()
    header = next(i for i, l in enumerate(lines) if l.split()[:2] == ["name", "count"])
    assert lines[header + 1].split()[0] == states["name"].iloc[0]
    assert "critical path" in out and f"wrote {png}" in out
    # A PNG, 8 x 4 inches at matplotlib's 100 dpi.
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (800, 400)
