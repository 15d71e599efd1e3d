"""Ctrl-C (SIGINT) interrupts a long call at once: the read runs on a thread
of its own while the caller waits with the GIL released and runs Python's
signal handlers every 50 ms, so the handler's exception (KeyboardInterrupt by
default) is raised in the middle of the read, not after it. The interrupt
also sets the read's stop flag (`mpelog::Trace::set_stop`): statistics, an
analysis, a check, a conversion and the reads of a SLOG-2 file's or an
annotation's tree end at their next look at it, in the background. The
trace answers the next call as before. Without this, a notebook's interrupt
waited for the end of a whole `stats()` or conversion."""

import os
import signal
import threading
import time

import pytest

import mpelog
from mpelog import _mpelog


class Interrupted(Exception):
    """What the test's SIGINT handler raises (not KeyboardInterrupt, which
    would stop pytest itself if it landed outside the test's `except`)."""


@pytest.fixture
def handler():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers run on the main thread only")

    def raise_interrupted(signum, frame):
        raise Interrupted()

    old = signal.signal(signal.SIGINT, raise_interrupted)
    yield
    signal.signal(signal.SIGINT, old)


@pytest.fixture(scope="module")
def long_clog2(cli, tmp_path_factory):
    """A CLOG2 trace of 1M events (39 MB): a check reads all of it."""
    p = tmp_path_factory.mktemp("int") / "long.clog2"
    cli("synth", "-o", p, "--ranks", "4", "--events", "1000000")
    return p


@pytest.fixture(scope="module")
def long_slog2(cli, long_clog2):
    """Its SLOG-2 conversion, in small leaves (many slices to read)."""
    p = long_clog2.with_suffix(".slog2")
    cli("convert", long_clog2, "-o", p, "--leaf-bytes", "4k")
    return p


def _interrupt_mid_call(call):
    """Sends SIGINT while `call` runs, again and again, until one lands in
    the middle of the call (the count of cut-short waits grows); how many
    tries it took."""
    call()  # once whole first: the imports it makes (pandas) are not cut
    for attempt in range(1, 21):
        before = _mpelog._abandoned()
        timer = threading.Timer(0.02, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        try:
            while True:
                call()
        except Interrupted:
            pass
        finally:
            timer.join()
        if _mpelog._abandoned() > before:
            return attempt
    raise AssertionError("no SIGINT landed inside the call in 20 tries")


@pytest.mark.parametrize("what", ["check", "stats", "first window"])
def test_sigint_interrupts_a_long_call(handler, long_clog2, what):
    t = mpelog.open(long_clog2)
    calls = {
        "check": t.check,
        "stats": t.stats,
        # The first window converts the trace to SLOG-2: a fresh trace each time.
        "first window": lambda: mpelog.open(long_clog2).window(0.0, 0.001),
    }
    _interrupt_mid_call(calls[what])
    # The trace answers again (after the abandoned read ends), as before.
    assert t.check()["passes"]
    assert t.window(0.0, 0.001).num_rows > 0


def _stopped_after(before, timeout=60.0):
    """Whether a read ends stopped (the count of reads a stop flag ended
    grows past `before`) within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _mpelog._stopped() > before:
            return True
        time.sleep(0.01)
    return False


@pytest.fixture(scope="module")
def long_idx(cli, long_clog2):
    """Its annotation."""
    p = long_clog2.with_name(long_clog2.name + ".idx")
    cli("annotate", long_clog2, "-o", p)
    return p


@pytest.mark.parametrize(
    "what",
    [
        "stats (two passes)",
        "analyze (one pass)",
        "first window",
        "stats (tree)",
        "stats (annotation)",
        "check",
        "schema (first pass)",
    ],
)
def test_an_interrupt_stops_the_read_it_cuts_short(
    handler, long_clog2, long_slog2, long_idx, what
):
    t = mpelog.open(long_clog2)
    s = mpelog.open(long_slog2)
    calls = {
        "stats (two passes)": t.stats,
        "analyze (one pass)": t.analyze,
        # A fresh trace each time: the first window converts it.
        "first window": lambda: mpelog.open(long_clog2).window(0.0, 0.001),
        "stats (tree)": s.stats,
        "stats (annotation)": mpelog.open(long_idx).stats,
        "check": t.check,
        # A fresh trace each time: its schema waits for the legend that the
        # first pass learns.
        "schema (first pass)": lambda: mpelog.open(long_clog2).schema(),
    }
    before = _mpelog._stopped()
    _interrupt_mid_call(calls[what])
    # The read the interrupt cut short ends with the stop, not at its end
    # (a read that ran on to its end is not counted).
    assert _stopped_after(before), f"the interrupted {what} ran to its end"
    # The next call reads the whole trace again.
    assert t.stats_json() == mpelog.open(long_clog2).stats_json()
    assert s.window(0.0, 0.001).num_rows > 0


def test_an_interrupted_convert_is_stopped_and_leaves_no_output(handler, long_clog2, tmp_path):
    made = []

    def convert():
        made.append(tmp_path / f"out{len(made)}.slog2")
        mpelog.convert(long_clog2, made[-1])

    before = _mpelog._stopped()
    _interrupt_mid_call(convert)
    assert _stopped_after(before), "the interrupted conversion ran to its end"
    # The conversions that finished are there; of the interrupted one,
    # neither its output nor a temporary file.
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in made[:-1])


def test_sigint_interrupts_the_wait_for_a_batch(handler, long_clog2):
    # A CLOG2 trace's first batch waits for the pass that learns its legend.
    _interrupt_mid_call(lambda: mpelog.open(long_clog2).batches().read_next_batch())


def _sigint_during(call, after=0.02):
    """`call` with SIGINT sent `after` seconds in: whether the signal cut
    the call's wait short (its exception raised from inside the call)."""
    before = _mpelog._abandoned()
    timer = threading.Timer(after, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        call()
        # Finished before the signal: the handler raises here, in Python.
        timer.join()
    except Interrupted:
        pass
    finally:
        timer.join()
    return _mpelog._abandoned() > before


def test_a_call_waiting_for_a_busy_trace_is_interrupted(handler, long_clog2):
    # Another thread's long call holds the trace: a window asked meanwhile
    # waits for it, and that wait is interrupted; `closed` answers without
    # waiting.
    for _ in range(20):
        t = mpelog.open(long_clog2)
        busy = threading.Thread(target=t.check)
        busy.start()
        time.sleep(0.005)
        try:
            cut = _sigint_during(lambda: t.window(0.0, 0.001))
            assert not t.closed
        finally:
            busy.join()
        if cut:
            return
    raise AssertionError("no wait for a busy trace was cut short in 20 tries")
