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


def test_a_damaged_slog2_raises_midway(generated, tmp_path):
    data = bytearray(generated["slog2"].read_bytes())
    t = mpelog.open(generated["slog2"])
    info = t.info()
    bad = tmp_path / "bad.slog2"
    # Zero the second half of the file's leaves (the header, legend and the
    # directory at the front stay good).
    middle = len(data) // 2
    data[middle : middle + len(data) // 4] = bytes(len(data) // 4)
    bad.write_bytes(bytes(data))
    seen = 0
    with pytest.raises(mpelog.Slog2Error) as e:
        for b in mpelog.open(bad).batches(rows=500):
            seen += b.num_rows
    assert seen > 0, "some batches come before the damage"
    assert isinstance(e.value.offset, int) and e.value.offset > 0
    assert info["start"] < info["end"]
