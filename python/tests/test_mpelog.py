"""mpelog's Python package against the CLI: Arrow tables equal the Parquet
export row for row, statistics equal `mpelog stats --json`, events equal the
pipit CSV export; typed exceptions carry the byte offset."""

import io
import json
import re
import subprocess
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import mpelog
from conftest import _cli, corpus_files

COLUMNS = ["kind", "category", "name", "start", "end", "duration", "start_line", "end_line", "info"]


def parquet_table(cli, tmp_path, path, t0=None, t1=None):
    out = tmp_path / "x.parquet"
    args = ["export", path, "-o", out]
    if t0 is not None:
        args += ["--from", repr(t0), "--to", repr(t1)]
    cli(*args)
    return pq.read_table(out)


def same_table(ours, parquet, what):
    """Same columns (typed info columns included), types, nullability and rows."""
    assert ours.column_names[: len(COLUMNS)] == COLUMNS, what
    assert ours.schema.equals(parquet.schema, check_metadata=False), (
        f"{what}: {ours.schema} against {parquet.schema}"
    )
    assert ours.to_pydict() == parquet.to_pydict(), what


def middle(t):
    info = t.info()
    a, b = info["start"], info["end"]
    return a + (b - a) * 0.4, a + (b - a) * 0.6


def unescape(field):
    """A CSV field's text as it was before the export escaped it: `\\\\` and
    `\\u00xx` (spec/export.md section 6, README.md section 3)."""
    return re.sub(
        r"\\(\\|u00([0-9a-fA-F]{2}))",
        lambda m: "\\" if m.group(2) is None else chr(int(m.group(2), 16)),
        field,
    )


def same_as_cli(cli, tmp_path, path):
    t = mpelog.open(path)
    whole = t.window()
    assert whole.num_rows > 0
    same_table(whole, parquet_table(cli, tmp_path, path), f"{path}: whole trace")
    t0, t1 = middle(t)
    same_table(t.window(t0, t1), parquet_table(cli, tmp_path, path, t0, t1), f"{path}: window")
    same_table(t.batches(t0, t1, rows=977).read_all(), parquet_table(cli, tmp_path, path, t0, t1), f"{path}: batches")
    assert t.analyze_json() == json.loads(cli("analyze", "--json", path)), f"{path}: analysis"
    assert t.analyze_json(t0, t1, root=1, instances=3) == json.loads(
        cli("analyze", "--json", path, "--from", repr(t0), "--to", repr(t1), "--root", "1", "--instances", "3")
    ), f"{path}: windowed analysis"
    assert t.stats_json() == json.loads(cli("stats", "--json", path)), f"{path}: stats"
    assert t.stats_json(t0, t1, 5) == json.loads(
        cli("stats", "--json", path, "--from", repr(t0), "--to", repr(t1), "--bins", "5")
    ), f"{path}: windowed stats"
    out = tmp_path / "x.csv"
    cli("export", path, "-o", out)
    expected = pd.read_csv(out, keep_default_na=False)
    # A field's text unescaped (spec/export.md section 6), then the JSON read.
    expected["Name"] = [unescape(n) for n in expected["Name"]]
    expected["Attributes"] = [json.loads(unescape(a)) if a else None for a in expected["Attributes"]]
    events = t.events()
    # The text columns are categoricals (as pipit's readers make them).
    for c in ("Event Type", "Name"):
        assert isinstance(events[c].dtype, pd.CategoricalDtype), c
        events[c] = events[c].astype(expected[c].dtype)
    pd.testing.assert_frame_equal(events, expected)


@pytest.mark.parametrize("name", ["clog2", "slog2", "slog2z", "annotation"])
def test_generated_traces_match_the_cli(cli, generated, tmp_path, name):
    same_as_cli(cli, tmp_path, generated[name])


@pytest.mark.parametrize("path", corpus_files(), ids=str)
def test_corpus_matches_the_cli(cli, tmp_path, path):
    same_as_cli(cli, tmp_path, path)


def test_info(generated):
    info = mpelog.open(generated["clog2"]).info()
    assert info["format"] == "CLOG2"
    assert info["start"] < info["end"]
    assert any(c["name"] == "MPI_Send" and c["topology"] == "state" for c in info["categories"])
    assert "Process View" in info["views"]


@pytest.mark.parametrize("path", corpus_files(), ids=str)
def test_file_info_is_the_clis(cli, path):
    """`t.file_info()` is `mpelog info --json` of the same file."""
    assert mpelog.open(path).file_info() == json.loads(cli("info", "--json", path))


def test_file_info_of_a_damaged_clog2(cli, generated, tmp_path):
    cut = tmp_path / "cut.clog2"
    cut.write_bytes(Path(generated["clog2"]).read_bytes()[:30000])
    facts = mpelog.open(cut).file_info()
    assert facts["damaged"]["offset"] == 30000
    assert facts["damaged"]["repair"].startswith("mpelog repair ")


def test_batches_are_bounded_and_whole(generated):
    t = mpelog.open(generated["clog2"])
    reader = t.batches(rows=1000)
    assert isinstance(reader, pa.RecordBatchReader)
    sizes = [b.num_rows for b in reader]
    assert len(sizes) > 2 and max(sizes) == 1000
    assert sum(sizes) == t.window().num_rows


def test_stats_dataframes(generated, cli):
    s = mpelog.open(generated["slog2"]).stats(bins=4)
    cli_json = json.loads(cli("stats", "--json", generated["slog2"], "--bins", "4"))
    assert list(s["categories"]["name"]) == [c["name"] for c in cli_json["categories"]]
    assert list(s["categories"]["inclusive_sum"]) == [c["inclusive"]["sum"] for c in cli_json["categories"]]
    assert len(s["messages"]) == len(cli_json["messages"])
    assert s["bins"]["start"].nunique() == 4


def test_events_in_pipits_layout(generated):
    df = mpelog.open(generated["clog2"]).events()
    assert list(df.columns) == ["Timestamp (ns)", "Event Type", "Name", "Thread", "Process", "Attributes"]
    assert {"Enter", "Leave", "Instant"} <= set(df["Event Type"])


def test_convert_and_check(generated, tmp_path, cli):
    out = tmp_path / "c.slog2"
    done = mpelog.convert(generated["clog2"], out)
    assert mpelog.check(out)["passes"]
    assert mpelog.open(out).window().equals(mpelog.open(generated["clog2"]).window())
    assert (done["verb"], done["source"], done["output_format"]) == ("converted", "CLOG2", "SLOG 2.0.6")
    assert done["output_bytes"] == out.stat().st_size
    # The summary's lines are the CLI's, for the same conversion.
    r = subprocess.run([_cli(), "convert", str(generated["clog2"]), "-o", str(tmp_path / "cli.slog2")],
                       capture_output=True, check=True)
    assert r.stderr.decode().splitlines()[1:] == done["details"]
    assert (tmp_path / "cli.slog2").read_bytes() == out.read_bytes()
    # A SLOG-2 file rewritten to SLOG-2 is byte-identical; each MPE format to itself.
    again = mpelog.convert(out, tmp_path / "again.slog2")
    assert again["verb"] == "rewrote" and (tmp_path / "again.slog2").read_bytes() == out.read_bytes()
    mpelog.convert(generated["clog2"], tmp_path / "x.dat", format="clog2")
    assert (tmp_path / "x.dat").read_bytes() == generated["clog2"].read_bytes()


@pytest.mark.parametrize("archive", [p for p in corpus_files() if p.suffix == ".otf2"], ids=str)
def test_convert_otf2_summary(archive, tmp_path):
    """An OTF2 conversion's summary: the archive's bytes (anchor, global
    definitions, every location's files, counted here by hand) and the
    CLI's figures, line for line."""
    done = mpelog.convert(archive, tmp_path / "o.slog2")
    d = archive.parent
    files = [archive, d / "traces.def", *(d / "traces").glob("*.def"), *(d / "traces").glob("*.evt")]
    assert done["input_bytes"] == sum(f.stat().st_size for f in files if f.exists())
    assert done["source"] == "OTF2" and done["records"] > 0
    r = subprocess.run([_cli(), "convert", str(archive), "-o", str(tmp_path / "cli.slog2")],
                       capture_output=True, check=True)
    line = r.stderr.decode().splitlines()[0]
    assert line.split(" s: ", 1)[1] == "; ".join(done["details"])
    assert done["details"][0].endswith("metric events") and done["details"][2].startswith("not drawn: ")
    assert (tmp_path / "cli.slog2").read_bytes() == (tmp_path / "o.slog2").read_bytes()


def test_convert_refuses(generated, tmp_path):
    with pytest.raises(mpelog.UnsupportedError) as e:
        mpelog.convert(generated["clog2"], tmp_path / "x.alog")
    assert e.value.kind == "unsupported"
    assert not (tmp_path / "x.alog").exists()
    # The output is never the input: the trace stays as it was.
    copy = tmp_path / "same.clog2"
    copy.write_bytes(generated["clog2"].read_bytes())
    with pytest.raises(mpelog.OutputError) as e:
        mpelog.convert(copy, copy)
    assert e.value.kind == "output"
    assert copy.read_bytes() == generated["clog2"].read_bytes()
    with pytest.raises(ValueError):
        mpelog.convert(generated["clog2"], tmp_path / "x.txt")
    with pytest.raises(ValueError):
        mpelog.convert(generated["clog2"], tmp_path / "x.slog2", format="otf2")


def test_typed_errors(generated, tmp_path):
    with pytest.raises(mpelog.TraceIOError) as e:
        mpelog.open(tmp_path / "missing.clog2")
    assert e.value.kind == "io" and e.value.offset is None
    junk = tmp_path / "junk.txt"
    junk.write_text("not a trace")
    with pytest.raises(mpelog.UnrecognizedError):
        mpelog.open(junk)
    data = generated["slog2"].read_bytes()
    cut = tmp_path / "cut.slog2"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(mpelog.Slog2Error) as e:
        mpelog.open(cut).window()
    assert e.value.kind == "slog2"
    assert isinstance(e.value.offset, int)
    assert isinstance(e.value, mpelog.MpelogError)
    with pytest.raises(mpelog.BadWindowError):
        mpelog.open(generated["slog2"]).window(1.0, 0.5)
