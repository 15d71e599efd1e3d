"""Shared fixtures: the mpelog CLI (the oracle), generated traces, the corpus."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def _cli() -> str:
    exe = os.environ.get("MPELOG_BIN") or shutil.which("mpelog")
    if not exe:
        here = Path(__file__).resolve().parents[2]
        for profile in ("debug", "release"):
            p = here / "target" / profile / "mpelog"
            if p.is_file():
                exe = str(p)
                break
    if not exe:
        pytest.skip("no mpelog binary (set MPELOG_BIN)")
    return exe


@pytest.fixture(scope="session")
def cli():
    exe = _cli()

    def run(*args: str) -> bytes:
        r = subprocess.run([exe, *map(str, args)], capture_output=True)
        assert r.returncode == 0, r.stderr.decode()
        return r.stdout

    return run


@pytest.fixture(scope="session")
def generated(tmp_path_factory, cli):
    """A generated CLOG2 trace, its SLOG-2 conversion (plain and compressed)
    and its annotation: {name: path}."""
    d = tmp_path_factory.mktemp("gen")
    clog2 = d / "g.clog2"
    cli("synth", "-o", clog2, "--ranks", "4", "--events", "20000")
    cli("convert", clog2, "-o", d / "g.slog2")
    cli("convert", clog2, "-o", d / "z.slog2", "--compress", "deflate")
    ann = d / "a.clog2"
    shutil.copy(clog2, ann)
    cli("annotate", ann)
    return {
        "clog2": clog2,
        "slog2": d / "g.slog2",
        "slog2z": d / "z.slog2",
        "annotation": d / "a.clog2.idx",
    }


CORPUS_FILES = [
    "mpe/cpilog_n4.clog2",
    "mpe/p2p_n4.slog2",
    "historic/fpilog.clog",
    "mpich1/alog/cpilog.alog",
    "mpich1/slog1/sample.slog",
    "otf2/ping-pong-otf2/traces.otf2",
]


def corpus_files():
    """The corpus files to test (none, with a note, when MPELOG_CORPUS is unset;
    a missing file fails)."""
    root = os.environ.get("MPELOG_CORPUS")
    if not root:
        print("SKIPPED corpus: MPELOG_CORPUS is not set")
        return []
    out = []
    for rel in CORPUS_FILES:
        p = Path(root) / rel
        assert p.is_file(), f"corpus file missing: {p}"
        out.append(p)
    return out
