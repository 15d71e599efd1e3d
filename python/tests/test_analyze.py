"""`Trace.analyze()`: the analysis of `mpelog analyze --json` as DataFrames
(the JSON itself is compared with the CLI's in test_mpelog.py)."""

import json

import pytest

import mpelog


@pytest.mark.parametrize("name", ["clog2", "slog2", "annotation"])
def test_dataframes_hold_the_clis_analysis(cli, generated, name):
    path = generated[name]
    r = mpelog.open(path).analyze()
    j = json.loads(cli("analyze", "--json", path))
    assert r["timelines"] == j["timelines"] == [0, 1, 2, 3]
    assert r["counts"] == j["counts"] and j["counts"]["messages"] > 0
    assert r["unmatched"] == j["unmatched"]
    # Patterns: name, seconds, per timeline, per call path, worst instances.
    assert len(j["patterns"]) > 0
    assert list(r["patterns"]["name"]) == [p["name"] for p in j["patterns"]]
    assert list(r["patterns"]["seconds"]) == [p["seconds"] for p in j["patterns"]]
    assert list(r["patterns"]["parent"]) == [p["parent"] for p in j["patterns"]]
    per_timeline = {
        (p["name"], int(t)): s for p in j["patterns"] for t, s in p["per_timeline"].items()
    }
    pt = r["pattern_timelines"]
    assert dict(zip(zip(pt["pattern"], pt["timeline"]), pt["seconds"])) == per_timeline
    assert len(r["pattern_call_paths"]) == sum(len(p["per_call_path"]) for p in j["patterns"])
    assert len(r["instances"]) == sum(len(p["instances"]) for p in j["patterns"])
    assert set(r["instances"]["pattern"]) <= set(r["patterns"]["name"])
    # The critical path and imbalance.
    cp = j["critical_path"]
    assert r["critical_path_seconds"] == cp["seconds"] > 0
    assert r["critical_path_end_timeline"] == cp["end_timeline"]
    assert list(r["critical_path"]["category"]) == [c["category"] for c in cp["per_category"]]
    assert list(r["critical_path"]["seconds"]) == [c["seconds"] for c in cp["per_category"]]
    cpt = r["critical_path_timelines"]
    assert dict(zip(cpt["timeline"], cpt["seconds"])) == {int(t): s for t, s in cp["per_timeline"].items()}
    assert list(r["imbalance"]["category"]) == [i["category"] for i in j["imbalance"]]
    assert list(r["imbalance"]["overload"]) == [i["overload"] for i in j["imbalance"]]


def test_a_window_counts_fewer_wait_states(generated):
    t = mpelog.open(generated["clog2"])
    info = t.info()
    whole = t.analyze()["patterns"].set_index("name")["seconds"]
    a, b = info["start"], info["end"]
    part = t.analyze(a, a + (b - a) / 4)["patterns"].set_index("name")["seconds"]
    assert len(part) > 0
    for name, s in part.items():
        assert s <= whole[name] + 1e-12, name
    assert part.sum() < whole.sum()


def test_a_bad_window_is_typed(generated):
    with pytest.raises(mpelog.BadWindowError):
        mpelog.open(generated["clog2"]).analyze(1.0, 0.5)
