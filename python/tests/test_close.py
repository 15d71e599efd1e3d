"""`Trace.close()` and `with mpelog.open(...) as t`: the trace let go of at
once (a converted input's temporary SLOG-2 file removed there), every later
call refused with `ValueError` as a closed Python file refuses it, streams
already begun read on; and `batches(rows=)` below 1 refused. A trace
pickles as its path, so worker processes take it (opened again there)."""

import os

import pytest

import mpelog


def _calls(t):
    """One call of every method that reads the trace."""
    return {
        "info": lambda: t.info(),
        "file_info": lambda: t.file_info(),
        "window": lambda: t.window(),
        "batches": lambda: t.batches(),
        "stats": lambda: t.stats(),
        "analyze": lambda: t.analyze(),
        "events": lambda: t.events(),
        "check": lambda: t.check(),
        "schema": lambda: t.schema(),
    }


@pytest.mark.parametrize("kind", ["clog2", "slog2", "annotation"])
def test_a_closed_trace_refuses_every_call(generated, kind):
    with mpelog.open(generated[kind]) as t:
        assert not t.closed
        rows = t.window().num_rows
        t.schema()  # kept by the object: refused all the same once closed
        assert rows > 0
    assert t.closed
    for name, call in _calls(t).items():
        with pytest.raises(ValueError, match="closed"):
            call()
    # What needs no reading still answers; closing again is allowed.
    assert t.format in repr(t)
    t.close()
    assert t.closed


def test_close_removes_the_converted_file(generated, tmp_path, monkeypatch):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    t = mpelog.open(generated["clog2"])
    t.window(0.0, 0.01)  # converts the CLOG2 to a temporary SLOG-2 file
    assert t.info()["converted"]
    made = [f for _, _, fs in os.walk(tmp) for f in fs]
    assert made, "the conversion wrote no temporary file under TMPDIR"
    t.close()
    assert list(tmp.iterdir()) == [], "close left the converted file behind"


def test_batches_begun_read_on_after_close(generated):
    t = mpelog.open(generated["clog2"])
    whole = t.window().num_rows
    reader = t.batches(rows=1000)
    first = reader.read_next_batch().num_rows
    t.close()
    rest = sum(b.num_rows for b in reader)
    assert first + rest == whole


@pytest.mark.parametrize("rows", [0, -1, True, 2.5])
def test_batches_of_fewer_than_one_row_are_refused(generated, rows):
    t = mpelog.open(generated["slog2"])
    with pytest.raises(ValueError, match="at least 1 row"):
        t.batches(rows=rows)
    assert sum(b.num_rows for b in t.batches(rows=1)) == t.window().num_rows


def _rows(args):
    """The rows of a window of a trace handed to a worker process."""
    t, a, b = args
    return t.window(a, b).num_rows


@pytest.mark.parametrize("kind", ["clog2", "slog2", "annotation"])
def test_a_trace_pickles_as_its_path(generated, kind):
    import pickle

    t = mpelog.open(generated[kind])
    again = pickle.loads(pickle.dumps(t))
    assert again.path == t.path and again.format == t.format
    assert again.window(0.0, 0.5).equals(t.window(0.0, 0.5))
    t.close()
    with pytest.raises(ValueError, match="closed"):
        pickle.dumps(t)


def test_worker_processes_take_a_trace(generated):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    t = mpelog.open(generated["slog2"])
    info = t.info()
    edges = [info["start"] + k * (info["end"] - info["start"]) / 4 for k in range(5)]
    jobs = [(t, a, b) for a, b in zip(edges, edges[1:])]
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=ctx) as pool:
        assert list(pool.map(_rows, jobs)) == [_rows(j) for j in jobs]


def test_an_annotation_not_named_after_its_trace(generated, tmp_path):
    import pickle
    import shutil

    idx = tmp_path / "elsewhere.idx"
    shutil.copy(generated["annotation"], idx)
    trace = generated["annotation"].with_suffix("")  # a.clog2
    # Named after no trace: refused, typed.
    with pytest.raises(mpelog.MpelogError):
        mpelog.open(idx).window()
    t = mpelog.open(idx, trace=trace)
    assert t.format == mpelog.open(generated["annotation"]).format
    want = mpelog.open(generated["annotation"]).window()
    assert t.window().equals(want)
    # Pickled with its trace.
    assert pickle.loads(pickle.dumps(t)).window().equals(want)
    # Checked with it, as `mpelog check --trace`.
    assert mpelog.check(idx, trace=trace) == mpelog.check(generated["annotation"])
    assert mpelog.check(idx, trace=trace)["passes"]
