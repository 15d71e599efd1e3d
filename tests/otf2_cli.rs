//! `mpelog convert` and `mpelog info` take an OTF2 archive: its anchor file
//! or the directory holding it.

use std::path::Path;
use std::process::Command;

fn mpelog(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .args(args)
        .output()
        .expect("mpelog runs")
}

fn tiny() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/otf2-format/tests/data/tiny"
    ))
}

#[test]
fn convert_an_archive_directory_or_anchor_to_slog2() {
    let dir = tempfile::tempdir().unwrap();
    for (i, input) in [tiny().to_path_buf(), tiny().join("traces.otf2")]
        .iter()
        .enumerate()
    {
        let out = dir.path().join(format!("t{i}.slog2"));
        let o = mpelog(&[
            "convert".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let msg = String::from_utf8_lossy(&o.stderr);
        assert!(
            msg.contains("1 states, 1 arrows, 1 collectives, 1 metric events"),
            "{msg}"
        );
        let c = mpelog(&["check".as_ref(), out.as_os_str()]);
        assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stdout));
    }
    // Only SLOG-2 is a target.
    let out = dir.path().join("t.clog2");
    let o = mpelog(&[
        "convert".as_ref(),
        tiny().as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out.exists());
}

#[test]
fn info_counts_events_by_kind() {
    let o = mpelog(&["info".as_ref(), tiny().as_os_str(), "--json".as_ref()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["format"], "OTF2");
    assert_eq!(v["events"], 7);
    assert_eq!(v["events_by_kind"]["Enter"], 1);
    assert_eq!(v["events_by_kind"]["MpiRecv"], 1);
    let o = mpelog(&["info".as_ref(), tiny().as_os_str()]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("format: OTF2 (libotf2 3.2.0"));
}

#[test]
fn a_damaged_archive_names_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    std::fs::create_dir_all(a.join("traces")).unwrap();
    for f in [
        "traces.otf2",
        "traces.def",
        "traces/0.def",
        "traces/1.def",
        "traces/1.evt",
    ] {
        std::fs::copy(tiny().join(f), a.join(f)).unwrap();
    }
    let mut evt = std::fs::read(tiny().join("traces/0.evt")).unwrap();
    evt.truncate(0x38); // inside the MpiSend record
    std::fs::write(a.join("traces/0.evt"), evt).unwrap();
    let out = dir.path().join("x.slog2");
    let o = mpelog(&[
        "convert".as_ref(),
        a.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let msg = String::from_utf8_lossy(&o.stderr);
    assert!(msg.contains("0.evt: byte 55"), "{msg}");
    assert!(!out.exists(), "no partial output");
}
