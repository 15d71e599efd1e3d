"""The typed `info_*` columns of the Arrow tables, as the Parquet export has
them (the whole tables are compared with the Parquet export in
test_mpelog.py)."""

import pyarrow as pa

import mpelog


def test_message_columns_are_typed_and_hold_the_info_values(generated):
    w = mpelog.open(generated["slog2"]).window()
    assert w.schema.field("info_msg_tag").type == pa.int64()
    assert w.schema.field("info_msg_size").type == pa.int64()
    rows = w.to_pylist()
    arrows = [r for r in rows if r["kind"] == "arrow"]
    assert arrows, "a generated trace has messages"
    for r in arrows:
        # The text column says the same as the typed ones.
        assert r["info"] == f"msg_tag={r['info_msg_tag']}, msg_size={r['info_msg_size']}"
    # A state without such values has nulls there.
    states = [r for r in rows if r["kind"] == "state" and r["info"] is None]
    assert states and all(r["info_msg_size"] is None for r in states)


def test_batches_have_the_windows_columns(generated):
    t = mpelog.open(generated["clog2"])
    reader = t.batches(rows=5000)
    assert reader.schema.equals(t.window().schema)
    assert reader.read_all().equals(t.window())


def test_an_empty_window_keeps_the_columns(generated):
    t = mpelog.open(generated["clog2"])
    empty = t.window(-2.0, -1.0)
    assert empty.num_rows == 0
    assert empty.schema.equals(t.window().schema)
    assert t.batches(-2.0, -1.0).read_all().num_rows == 0
