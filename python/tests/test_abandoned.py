"""A `batches()` reader abandoned part-way stops reading: dropping it ends the
threads that read and build the batches, and they read no further into the
file (issue 45: memory and work bounded by what is taken)."""

import gc
import os
import time

import pytest

import mpelog


def _bytes_read() -> int:
    """Bytes this process has read from files so far (Linux's /proc/self/io)."""
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("rchar:"):
                return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


@pytest.fixture(scope="module")
def long_slog2(cli, tmp_path_factory):
    """A SLOG-2 file of about 300k drawables in small leaves (many slices)."""
    if not os.path.exists("/proc/self/io"):
        pytest.skip("needs Linux's /proc/self/io")
    d = tmp_path_factory.mktemp("long")
    clog2 = d / "long.clog2"
    cli("synth", "-o", clog2, "--ranks", "4", "--events", "600000")
    slog2 = d / "long.slog2"
    cli("convert", clog2, "-o", slog2, "--leaf-bytes", "4k")
    return slog2


def test_an_abandoned_reader_stops_reading(long_slog2):
    size = long_slog2.stat().st_size
    t = mpelog.open(long_slog2)
    gc.collect()
    threads = _threads()
    before = _bytes_read()
    reader = t.batches(rows=1000)
    first = reader.read_next_batch()
    assert first.num_rows == 1000
    assert _threads() > threads, "the batches are read on threads of their own"
    del reader, first
    gc.collect()
    deadline = time.monotonic() + 30
    while _threads() > threads and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _threads() == threads, "the reading threads end once the reader is dropped"
    read = _bytes_read() - before
    # A few slices ahead of the consumer at most, not the whole file.
    assert read < size / 4, f"read {read} bytes of a {size}-byte file for one batch"
    # The trace stays usable, and a reader taken to its end reads it all.
    assert sum(b.num_rows for b in t.batches(rows=65536)) == t.window().num_rows
