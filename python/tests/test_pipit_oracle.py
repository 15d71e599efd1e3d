"""pipit (github.com/hpcgroup/pipit, from git: its PyPI name is an empty
placeholder) as an oracle: `pipit.Trace(None, t.events())` takes our events
as they are, and its communication matrix and flat profile equal our
statistics. Runs when MPELOG_PIPIT names a pipit checkout (its directory
holding the `pipit` package); skipped, saying so, otherwise."""

import os
import sys

import numpy as np
import pytest

import mpelog
from conftest import corpus_files


def pipit_or_skip():
    src = os.environ.get("MPELOG_PIPIT")
    if not src:
        pytest.skip("SKIPPED pipit oracle: MPELOG_PIPIT is not set (a checkout of github.com/hpcgroup/pipit)")
    assert os.path.isdir(os.path.join(src, "pipit")), f"MPELOG_PIPIT={src} holds no pipit package"
    if src not in sys.path:
        sys.path.insert(0, src)
    import pipit

    return pipit


def check_against_pipit(path):
    pipit = pipit_or_skip()
    t = mpelog.open(path)
    events = t.events()
    p = pipit.Trace(None, events)
    stats = t.stats()
    # Our tables are per line ID; pipit's per process: the line's rank in
    # the default (process) view.
    rank = {line: row[0] for line, row in t.info()["lines"]}
    # The communication matrix: messages and bytes per sender and receiver.
    ranks = sorted(set(events["Process"]))
    assert ranks == list(range(len(ranks))), "pipit indexes its matrix by rank"
    count = np.zeros((len(ranks), len(ranks)))
    size = np.zeros((len(ranks), len(ranks)))
    for m in stats["messages"].itertuples():
        count[rank[m.sender], rank[m.receiver]] += m.messages
        size[rank[m.sender], rank[m.receiver]] += m.bytes
    np.testing.assert_array_equal(p.comm_matrix("count"), count)
    np.testing.assert_array_equal(p.comm_matrix("size"), size)
    # The flat profile: exclusive time per state category and process. Our
    # statistics keep each line ID apart, so pipit is given the events of
    # the Identity Map view, a process per line ID (the process view would
    # merge a rank's communicator lines into one timeline, where their
    # states nest in each other). pipit counts in whole nanoseconds from the
    # export's start: each Enter or Leave is off by up to half a nanosecond.
    by_line = t.events(view="Identity Map")
    q = pipit.Trace(None, by_line)
    flat = q.flat_profile(metrics="time.exc", per_process=True)["time.exc"]
    enters = by_line[by_line["Event Type"] == "Enter"].groupby("Process").size()
    names = dict(zip(stats["categories"]["index"], stats["categories"]["name"]))
    ours = {
        (names[c.index], c.line): c.exclusive
        for c in stats["category_timelines"].itertuples()
        if c.count > 0
    }
    theirs = {(name, int(proc)): ns / 1e9 for (name, proc), ns in flat.items()}
    assert set(ours) == set(theirs), f"{path}: (name, process) pairs differ"
    for key, s in ours.items():
        tol = 1e-9 * enters[key[1]]
        assert abs(theirs[key] - s) <= tol, f"{path}: {key}: pipit {theirs[key]} s, ours {s} s"
    # And pipit's default: the mean over the processes that have the name.
    mean = q.flat_profile(metrics="time.exc")["time.exc"] / 1e9
    for name, m in mean.items():
        mine = [s for (n, _), s in ours.items() if n == name]
        assert abs(m - sum(mine) / len(mine)) <= 1e-9 * enters.max(), name
    return count.sum(), len(ours)


@pytest.mark.parametrize("name", ["clog2", "slog2"])
def test_generated_traces_agree_with_pipit(generated, name):
    messages, pairs = check_against_pipit(generated[name])
    assert messages > 1000 and pairs > 40


@pytest.mark.parametrize(
    "path",
    [p for p in corpus_files() if p.suffix in (".clog2", ".slog2", ".otf2")],
    ids=str,
)
def test_corpus_agrees_with_pipit(path):
    messages, pairs = check_against_pipit(path)
    assert pairs > 0
    # cpilog has collectives only; the others have messages.
    assert messages > 0 or path.name == "cpilog_n4.clog2"


def test_hybrid_otf2_agrees_with_pipits_own_reader(tmp_path):
    """A hybrid MPI + OpenMP archive (libotf2 writes it: the oracle script's
    `hybrid`, two ranks of two threads): pipit over our events and pipit's
    own OTF2 reader give the same communication matrix, a rank per process
    (our default view is the process view, its threads within it), and the
    same inclusive time per region and process."""
    pipit = pipit_or_skip()
    otf2 = pytest.importorskip("otf2", reason="SKIPPED: the otf2 package (pipit's OTF2 reader) is not installed")
    del otf2
    import subprocess

    script = os.path.join(os.path.dirname(__file__), "..", "..", "otf2-format", "tests", "oracle", "otf2_oracle.py")
    archive = tmp_path / "hybrid"
    subprocess.run([sys.executable, script, "hybrid", str(archive)], check=True)
    anchor = str(archive / "traces.otf2")
    check_against_pipit(anchor)
    theirs = pipit.Trace.from_otf2(str(archive))
    ours = pipit.Trace(None, mpelog.open(anchor).events())
    for kind in ("count", "size"):
        np.testing.assert_array_equal(ours.comm_matrix(kind), theirs.comm_matrix(kind))
    assert ours.comm_matrix("count").shape == (2, 2)
    # Inclusive time per region and process (our conversion also draws each
    # collective as a state inside its call, "collective Barrier", which
    # pipit's reader does not: it changes the call's exclusive time, not its
    # inclusive). pipit's reader counts the archive's ticks (ns here), ours
    # ns from the trace's start.
    def per_process(p):
        f = p.flat_profile(metrics="time.inc", per_process=True)["time.inc"]
        return {(name, int(proc)): ns for (name, proc), ns in f.items()}

    a, b = per_process(ours), per_process(theirs)
    extra = {k for k in a if k not in b}
    assert {name for name, _ in extra} == {"collective Barrier"}, extra
    assert set(b) <= set(a)
    for key in b:
        assert abs(a[key] - b[key]) <= 2, f"{key}: ours {a[key]} ns, pipit's reader {b[key]} ns"
