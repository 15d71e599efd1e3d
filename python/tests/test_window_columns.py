"""`t.window()`: the drawables of `mpelog window --json`, one row per
primitive in start order, decoded into buffers that pyarrow takes over
through the Arrow C data interface without a copy."""

import json
import os
from pathlib import Path

import pyarrow as pa
import pytest

import mpelog


def order_key(r):
    """The start order of the rows (mpelog::slices::order)."""
    return (r["start"], -r["end"], r["category"], r["start_line"], r["end_line"], r["first"], r["info"] or "")


def cli_rows(cli, path, t0, t1):
    rows = []
    for line in cli("window", path, "--from", repr(t0), "--to", repr(t1), "--json").decode().splitlines():
        d = json.loads(line)
        if "cost" in d:
            continue
        assert d["kind"] == "primitive", d  # the generated traces have no composites
        v = d["vertices"]
        rows.append(
            {
                "category": d["category"],
                "name": d["name"],
                "start": d["start"],
                "end": d["end"],
                "start_line": v[0][1],
                "end_line": v[-1][1],
                "first": v[0][0],
                "info": d["info"] or None,
            }
        )
    return sorted(rows, key=order_key)


def has_info(info):
    """Whether a row has info values: the table formats them as `label=value`
    joined by ", ", `window --json` with the category's own label texts and
    MPE's value formats (hex, 32-bit floats); the values themselves are those
    of the Parquet export (test_mpelog.py)."""
    return bool(info)


def table_rows(table):
    rows = table.select(["category", "name", "start", "end", "start_line", "end_line", "info"]).to_pylist()
    for r in rows:
        r["info"] = has_info(r["info"])
    return rows


def windows(t):
    info = t.info()
    a, b = info["start"], info["end"]
    return [(a + (b - a) * x, a + (b - a) * (x + w)) for x, w in [(0.0, 1.0), (0.45, 0.1), (0.9, 0.05), (0.3, 0.001)]]


def same_as_window_json(cli, path):
    t = mpelog.open(path)
    for t0, t1 in windows(t):
        want = cli_rows(cli, path, t0, t1)
        got = table_rows(t.window(t0, t1))
        assert len(got) == len(want) > 0, (path, t0, t1)
        for i, (g, w) in enumerate(zip(got, want)):
            w = {k: v for k, v in w.items() if k != "first"}
            w["info"] = has_info(w["info"])
            assert g == w, f"{path} [{t0}, {t1}) row {i}"


@pytest.mark.parametrize("name", ["slog2", "slog2z", "annotation"])
def test_window_rows_are_those_of_window_json(cli, generated, name):
    same_as_window_json(cli, generated[name])


def test_window_rows_of_the_corpus_are_those_of_window_json(cli):
    root = os.environ.get("MPELOG_CORPUS")
    if not root:
        print("SKIPPED corpus: MPELOG_CORPUS is not set")
        return
    path = Path(root) / "mpe/many_events_n4.slog2"
    assert path.is_file(), f"corpus file missing: {path}"
    same_as_window_json(cli, path)


def test_a_reused_trace_answers_as_a_fresh_one(generated):
    """The query buffer a trace keeps between windows leaves nothing behind."""
    t = mpelog.open(generated["slog2"])
    ws = windows(t)
    first = [t.window(a, b) for a, b in ws]
    for (a, b), want in zip(reversed(ws), reversed(first)):
        assert mpelog.open(generated["slog2"]).window(a, b).equals(want)
        assert t.window(a, b).equals(want)


def test_the_columns_are_handed_over_not_copied(generated):
    """pyarrow allocates nothing for a window's table: every buffer is the
    one mpelog decoded into, released through the C data interface."""
    t = mpelog.open(generated["slog2"])
    t.window()  # the legend's plan and the query buffer made
    before = pa.total_allocated_bytes()
    table = t.window()
    assert table.num_rows > 1000 and table.nbytes > 100_000
    assert pa.total_allocated_bytes() == before
    del table
    assert pa.total_allocated_bytes() == before
