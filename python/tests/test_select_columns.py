"""`columns=` of `t.window()` and `t.batches()`: the tables of those columns
only, in that order, equal to the full table's (`Table.select`), whichever
info columns are left undecoded; `t.schema()` the full table's columns; a
column the trace lacks refused."""

import pyarrow as pa
import pytest

import mpelog

from conftest import corpus_files


# Selections: none of the info columns, the text only, typed only (some of
# them, out of the legend's order), every column reordered.
def selections(schema):
    names = schema.names
    typed = names[9:]
    out = [
        ["start", "end", "category"],
        ["name", "info", "kind"],
        typed[::-2] + ["start"],
        list(reversed(names)),
    ]
    return [s for s in out if s]


def windows(t):
    info = t.info()
    a, b = info["start"], info["end"]
    return [(None, None), (a + (b - a) * 0.3, a + (b - a) * 0.5)]


def same_as_selected(path):
    t = mpelog.open(path)
    full_schema = t.schema()
    assert full_schema == t.window().schema
    for t0, t1 in windows(t):
        whole = t.window(t0, t1)
        for cols in selections(full_schema):
            got = t.window(t0, t1, columns=cols)
            assert got.schema.names == cols
            assert got.equals(whole.select(cols)), (path, t0, t1, cols)
    return full_schema


@pytest.mark.parametrize("name", ["clog2", "slog2", "slog2z", "annotation"])
def test_window_columns_are_the_whole_tables(generated, name):
    schema = same_as_selected(generated[name])
    assert len(schema.names) > 9, "the generated trace has typed info columns"


def test_window_columns_of_the_corpus():
    for p in corpus_files():
        same_as_selected(p)


@pytest.mark.parametrize("name", ["clog2", "slog2"])
def test_batches_columns_are_the_whole_batches(generated, name):
    t = mpelog.open(generated[name])
    whole = t.batches(rows=5000).read_all()
    assert t.schema() == whole.schema
    for cols in selections(t.schema()):
        r = t.batches(rows=5000, columns=cols)
        assert r.schema.names == cols
        got = r.read_all()
        assert got.equals(whole.select(cols)), (name, cols)


def test_a_column_the_trace_lacks_is_refused(generated):
    t = mpelog.open(generated["slog2"])
    with pytest.raises(ValueError, match="no column 'nope'"):
        t.window(columns=["start", "nope"])
    with pytest.raises(ValueError, match="named twice"):
        t.window(columns=["start", "start"])
    with pytest.raises(TypeError):
        t.window(columns="start")
    with pytest.raises(ValueError, match="no column"):
        t.batches(columns=["nope"])


def test_a_clog2_schema_is_that_of_its_batches(generated):
    t = mpelog.open(generated["clog2"])
    assert "info_msg_size" in t.schema().names
    assert t.schema() == t.batches().schema
