//! A tool author's first steps with category names (issue 26): a `JStr`
//! prints with `{}`, and a legend names the category of an index.

mod common;

use common::*;

#[test]
fn a_category_name_displays_and_is_found_by_index() {
    use slog2_format::types::JStr;
    let name = JStr::new("MPI_Send");
    assert_eq!(format!("{name}"), "MPI_Send");
    let tmp = tempfile::tempdir().unwrap();
    let clog2 = synth(tmp.path(), "g.clog2", &["--ranks", "2", "--events", "500"]);
    let slog2 = tmp.path().join("g.slog2");
    assert!(mpelog(&["convert", &clog2, "-o", slog2.to_str().unwrap()])
        .status
        .success());
    let r = slog2_format::Slog2Reader::new(std::fs::File::open(&slog2).unwrap()).unwrap();
    let legend = &r.categories().unwrap().value;
    let send = legend
        .categories
        .iter()
        .find(|c| c.name.text() == "MPI_Send")
        .unwrap();
    assert_eq!(
        legend.name_of(send.index).map(|n| n.to_string()).as_deref(),
        Some("MPI_Send")
    );
    assert_eq!(legend.name_of(i32::MAX), None);
}
