//! The rule table and the specs agree: every rule is listed in spec/conformance.md
//! with its format and severity, and defined in its format's spec; IDs are unique.

use mpelog_conformance::rules::{self, Rule};
use std::collections::BTreeSet;

fn spec(name: &str) -> String {
    let p = format!("{}/../spec/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// The spec file that defines rules with this ID prefix.
fn home(id: &str) -> Option<&'static str> {
    let prefix = id.split('-').next().unwrap();
    Some(match prefix {
        "C2" => "clog2.md",
        "C1" => "clog.md",
        "AL" => "alog.md",
        "S1" => "slog1.md",
        "S2" | "S2Z" => "slog2.md",
        "IDX" => "annotation.md",
        _ => return None,
    })
}

fn row(r: &Rule) -> String {
    format!(
        "| {} | {} | {} | {} |",
        r.id,
        r.format.map_or("any", |f| f.name()),
        r.severity,
        r.summary
    )
}

#[test]
fn ids_are_unique_and_well_formed() {
    let mut seen = BTreeSet::new();
    for r in rules::all() {
        assert!(seen.insert(r.id), "{} twice", r.id);
        assert!(r.summary.len() > 15, "{}: summary too short", r.id);
        assert!(
            r.id == "FORMAT-001" || home(r.id).is_some(),
            "{}: unknown prefix",
            r.id
        );
    }
    assert!(seen.len() > 100, "only {} rules", seen.len());
}

#[test]
fn every_rule_is_in_the_conformance_spec_table() {
    let text = spec("conformance.md");
    let rows: BTreeSet<&str> = text.lines().filter(|l| l.starts_with("| ")).collect();
    let mut listed = 0;
    for r in rules::all() {
        let want = row(r);
        assert!(
            rows.contains(want.as_str()),
            "spec/conformance.md lacks the row (regenerate the table from `mpelog check --list-rules`):\n{want}"
        );
        listed += 1;
    }
    // And no row names a rule the table does not have.
    let ids: BTreeSet<&str> = rules::all().iter().map(|r| r.id).collect();
    let start = text.find("<!-- rules table").expect("the table marker");
    for l in text[start..].lines().filter(|l| l.starts_with("| ")) {
        let id = l[2..].split(' ').next().unwrap();
        if id != "id" && !id.starts_with("---") {
            assert!(
                ids.contains(id),
                "spec/conformance.md lists {id}, no such rule"
            );
        }
    }
    assert!(listed > 0);
}

#[test]
fn every_rule_is_defined_in_its_format_spec() {
    for r in rules::all() {
        let Some(file) = home(r.id) else { continue };
        let text = spec(file);
        // Reject rules may be one row for the range `P-REJ-001 … P-REJ-0NN`; the
        // rows themselves are the format spec's "What a reader must reject" table.
        let range =
            r.id.find("-REJ-")
                .map(|i| format!("| {}-REJ-001 … ", &r.id[..i]));
        assert!(
            text.lines().any(|l| l.starts_with(&format!("| {} ", r.id))
                || range.as_ref().is_some_and(|p| l.starts_with(p.as_str()))),
            "{} is not in a table of spec/{file}",
            r.id
        );
    }
}
