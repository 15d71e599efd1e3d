//! The rule table and the specs agree: every rule is listed in spec/conformance.md
//! with its format and severity, and defined in its format's spec; IDs are unique.

use mpelog_conformance::rules::{self, Rule, Severity};
use mpelog_conformance::Format;
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
        "OTF2" => "otf2.md",
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

/// The format a rule ID prefix belongs to.
fn format_of(id: &str) -> Option<Format> {
    Some(match id.split('-').next().unwrap() {
        "C2" => Format::Clog2,
        "C1" => Format::Clog,
        "AL" => Format::Alog,
        "S1" => Format::Slog1,
        "S2" => Format::Slog2,
        "S2Z" => Format::Slog2Compressed,
        "IDX" => Format::Annotation,
        "OTF2" => Format::Otf2,
        _ => return None,
    })
}

#[test]
fn the_table_is_well_shaped() {
    let mut rej: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for r in rules::all() {
        // Its format is the one its prefix names, and lookup finds it.
        assert_eq!(r.format, format_of(r.id), "{}", r.id);
        assert_eq!(rules::lookup(r.id), Some(*r), "{}", r.id);
        // The severity agrees with the rows of its format spec that give one (a
        // spec may list a rule in more than one table; range rows of reject
        // rules say `error` for all of them).
        if let Some(file) = home(r.id) {
            let want = format!("| {} |", r.severity);
            let head = format!("| {} |", r.id);
            for row in spec(file).lines().filter(|l| l.starts_with(&head)) {
                if row.contains("| error |") || row.contains("| warning |") {
                    assert!(
                        row.contains(&want),
                        "{}: severity differs from spec/{file}: {row}",
                        r.id
                    );
                }
            }
        }
        if let Some(i) = r.id.find("-REJ-") {
            assert_eq!(r.severity, Severity::Error, "{}", r.id);
            rej.entry(&r.id[..i]).or_default().push(r.id);
        }
    }
    // Reject rules are the rows 1..N of the spec's reject table, in order.
    for (prefix, ids) in &rej {
        let want: Vec<String> = (1..=ids.len())
            .map(|n| format!("{prefix}-REJ-{n:03}"))
            .collect();
        assert_eq!(ids, &want, "{prefix}");
    }
    let counts: Vec<(&str, usize)> = rej.iter().map(|(p, v)| (*p, v.len())).collect();
    assert_eq!(counts, [("AL", 5), ("C1", 9), ("C2", 16), ("S1", 14)]);
}
