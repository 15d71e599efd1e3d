"""An error met while `batches()` reads is raised typed, with its byte offset:
before the first batch for a format read whole first (a CLOG2 cut in the
middle), in the middle of the iteration for a tree read as it goes (a SLOG-2
file whose later leaves are damaged)."""

import pytest

import mpelog


def test_a_cut_clog2_raises_a_typed_error_with_its_offset(generated, tmp_path):
    data = generated["clog2"].read_bytes()
    cut = tmp_path / "cut.clog2"
    at = len(data) // 2 + 13  # inside a block
    cut.write_bytes(data[:at])
    t = mpelog.open(cut)
    with pytest.raises(mpelog.Clog2Error) as e:
        for _ in t.batches(rows=1000):
            pass
    assert e.value.kind == "clog2"
    assert isinstance(e.value.offset, int) and 0 < e.value.offset <= at
    assert e.value.path == str(cut)
    assert isinstance(e.value, mpelog.MpelogError)


def test_a_damaged_slog2_raises_midway(cli, generated, tmp_path):
    # Small leaves: many slices of 64 leaves, read one after the other.
    good = tmp_path / "small.slog2"
    cli("convert", generated["clog2"], "-o", good, "--leaf-bytes", "2k")
    data = bytearray(good.read_bytes())
    at = len(data) * 7 // 10
    data[at : at + 256] = bytes(256)  # a damaged leaf, late in the file
    bad = tmp_path / "bad.slog2"
    bad.write_bytes(bytes(data))
    seen = 0
    with pytest.raises(mpelog.Slog2Error) as e:
        for b in mpelog.open(bad).batches(rows=500):
            seen += b.num_rows
    whole = mpelog.open(good).window().num_rows
    assert 0 < seen < whole, "batches come before the damage, not all of them"
    assert e.value.kind == "slog2" and e.value.path == str(bad)
    # The node that holds the damage (blocks are at most a few kB here).
    assert at - 65536 < e.value.offset <= at + 256
