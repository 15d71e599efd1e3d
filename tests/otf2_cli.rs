//! Every command takes an OTF2 archive (its anchor file or the directory
//! holding it) through the one input path: `convert` and `info` read it,
//! `window`, `stats`, `export`, `render`, `serve` and `filter` through its
//! conversion to SLOG-2, and give what they give for the converted file.
//! Archives written by libotf2 (the `otf2` Python package; skipped with a
//! message when `import otf2` fails, unless `CI` is set) and the corpus's
//! Score-P archives (`MPELOG_CORPUS`).

mod common;

use common::{have_otf2, hybrid_archive, python_archive};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
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

fn run(args: &[&Path]) -> std::process::Output {
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    mpelog(&args)
}

fn ok(args: &[&Path]) -> Vec<u8> {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

/// The corpus's two Score-P archives, or `None` when `MPELOG_CORPUS` is unset.
fn corpus_archives() -> Option<Vec<PathBuf>> {
    let root = mpelog_conformance::corpus::root()?;
    Some(
        ["ping-pong-otf2", "ping-pong-otf2-papi"]
            .iter()
            .map(|n| mpelog_conformance::corpus::file(&root, &format!("otf2/{n}/traces.otf2")))
            .collect(),
    )
}

/// `mpelog serve FILE` on a free port, killed when dropped.
struct Served(std::process::Child, u16);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(file: &Path) -> Served {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .arg("serve")
        .arg(file)
        .args(["--port", &port.to_string()])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    Served(child, port)
}

/// The body of `GET path` once the server answers 200 (waits up to 40 s).
fn get_body(port: u16, path: &str) -> String {
    for _ in 0..400 {
        let answer = std::net::TcpStream::connect(("127.0.0.1", port))
            .and_then(|mut c| {
                write!(c, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n")?;
                let mut s = String::new();
                c.read_to_string(&mut s)?;
                Ok(s)
            })
            .ok();
        if let Some((head, body)) = answer.as_deref().and_then(|a| a.split_once("\r\n\r\n")) {
            if head.starts_with("HTTP/1.1 200") || head.starts_with("HTTP/1.0 200") {
                return body.to_string();
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("no answer to {path} on port {port}");
}

/// Every command on `archive` gives what it gives on the archive's SLOG-2
/// conversion `slog2`, exactly.
fn commands_agree(archive: &Path, dir: &Path) {
    let slog2 = dir.join("converted.slog2");
    ok(&[Path::new("convert"), archive, Path::new("-o"), &slog2]);
    for args in [
        &["stats"][..],
        &["stats", "--json"],
        &["stats", "--csv"],
        &["window"],
        &["window", "--json", "--pixels", "40"],
    ] {
        let with = |input: &Path| {
            let mut a: Vec<&Path> = vec![Path::new(args[0]), input];
            a.extend(args[1..].iter().map(Path::new));
            ok(&a)
        };
        let (ours, converted) = (with(archive), with(&slog2));
        assert!(!ours.is_empty(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&converted),
            "{args:?} of {archive:?}"
        );
    }
    for (cmd, ext) in [
        ("export", "json"),
        ("export", "csv"),
        ("render", "png"),
        ("filter", "slog2"),
    ] {
        let (a, b) = (
            dir.join(format!("archive-{cmd}.{ext}")),
            dir.join(format!("slog2-{cmd}.{ext}")),
        );
        ok(&[Path::new(cmd), archive, Path::new("-o"), &a]);
        ok(&[Path::new(cmd), &slog2, Path::new("-o"), &b]);
        let (a, b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert!(a.len() > 100, "{cmd} {ext}");
        assert!(a == b, "{cmd} to .{ext} of {archive:?}");
    }
    let (s, t) = (serve(archive), serve(&slog2));
    // The same answers but for the name served and the time taken.
    let answer = |port: u16, path: &str| {
        let mut v: serde_json::Value = serde_json::from_str(&get_body(port, path)).unwrap();
        let o = v.as_object_mut().unwrap();
        o.remove("files");
        o.remove("cost");
        v
    };
    for path in ["/api/info", "/api/window?from=0&to=1e9&pixels=100"] {
        assert_eq!(answer(s.1, path), answer(t.1, path), "{path}");
    }
}

#[test]
fn every_command_takes_a_libotf2_archive() {
    if !have_otf2() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let archive = python_archive(dir.path(), "a", 11, 4000);
    // The directory and the anchor file alike.
    commands_agree(&archive, dir.path());
    commands_agree(&archive.join("traces.otf2"), dir.path());
    // A window converts it first, and says so with `convert`'s lines for an
    // archive, not a count of MPE's Java converter's (which reads no OTF2).
    let o = run(&[Path::new("window"), &archive]);
    assert!(o.status.success());
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(said.contains("(OTF2) to a temporary SLOG-2 file"), "{said}");
    assert!(said.contains("\nnot drawn: "), "{said}");
    assert!(!said.contains("clog2TOslog2"), "{said}");
}

#[test]
fn every_command_takes_the_corpus_archives() {
    let Some(archives) = corpus_archives() else {
        return;
    };
    for a in archives {
        let dir = tempfile::tempdir().unwrap();
        commands_agree(&a, dir.path());
        // A state per Enter/Leave pair and an arrow per message (corpus README).
        let v: serde_json::Value =
            serde_json::from_slice(&ok(&[Path::new("stats"), &a, Path::new("--json")])).unwrap();
        let count = |topology: &str| -> u64 {
            v["categories"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["topology"] == topology)
                .map(|c| c["count"].as_u64().unwrap())
                .sum()
        };
        assert_eq!((count("state"), count("arrow")), (42, 16), "{a:?}");
    }
}

#[test]
fn a_directory_without_an_archive_is_refused_in_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&[Path::new("stats"), dir.path()]);
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("holds no OTF2 anchor file"), "{e}");
}

/// Whether libotf2's `otf2-print` is installed (Debian's `otf2-tools`):
/// without it the comparison skips with a message, unless `CI` is set.
fn have_otf2_print() -> bool {
    let found = Command::new("otf2-print")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but otf2-print is missing: apt-get install otf2-tools"
        );
        eprintln!("skipped: otf2-print is not installed (apt-get install otf2-tools)");
    }
    found
}

/// One event of a dump: record name, location, timestamp, its fields and
/// its attribute list (each split at the top-level `, `).
#[derive(Debug)]
struct Dumped {
    name: String,
    location: u64,
    time: u64,
    fields: Vec<String>,
    attributes: Vec<String>,
}

/// `text` split at `, ` outside parentheses and quotes.
fn split_top(text: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quoted) = (Vec::new(), String::new(), 0i32, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' if quoted => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                continue;
            }
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 && chars.peek() == Some(&' ') => {
                chars.next();
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The events of a dump in `otf2-print`'s layout (both ours and libotf2's):
/// the lines after the `Event  Location  Timestamp  Attributes` header.
fn parse_events(dump: &str) -> Vec<Dumped> {
    let mut events: Vec<Dumped> = Vec::new();
    let mut lines = dump.lines().skip_while(|l| !l.starts_with("Event "));
    lines.next();
    for l in lines {
        if l.starts_with("----") || l.trim().is_empty() {
            continue;
        }
        if let Some(attrs) = l.trim_start().strip_prefix("ADDITIONAL ATTRIBUTES: ") {
            events
                .last_mut()
                .expect("an event before its attributes")
                .attributes = split_top(attrs);
            continue;
        }
        let (head, fields) = l.split_at(71.min(l.len()));
        let mut words = head.split_whitespace().collect::<Vec<_>>();
        let time = words.pop().unwrap().parse().unwrap();
        let location = words.pop().unwrap().parse().unwrap();
        events.push(Dumped {
            name: words.join(" "),
            location,
            time,
            fields: split_top(fields.trim_end()),
            attributes: Vec::new(),
        });
    }
    events
}

/// Two values of a dump's `(name; TYPE; value)` entry or `Key: value` field
/// agree: exactly, except floating-point values, which `otf2-print` writes
/// with 6 significant digits (`%g`) and we in full.
fn same_item(ours: &str, theirs: &str) -> bool {
    if ours == theirs {
        return true;
    }
    let parts = |s: &str| -> Option<(String, f64)> {
        let inner = s.strip_prefix('(')?.strip_suffix(')')?;
        let (head, value) = inner.rsplit_once("; ")?;
        (head.ends_with("; DOUBLE") || head.ends_with("; FLOAT"))
            .then(|| value.parse().ok().map(|v| (head.to_string(), v)))
            .flatten()
    };
    match (parts(ours), parts(theirs)) {
        (Some((a, x)), Some((b, y))) => a == b && (x - y).abs() <= 1e-5 * x.abs().max(y.abs()),
        _ => false,
    }
}

/// The event records whose fields `print` decodes (spec/otf2.md §13).
const DECODED: [&str; 15] = [
    "ENTER",
    "LEAVE",
    "MPI_SEND",
    "MPI_ISEND",
    "MPI_ISEND_COMPLETE",
    "MPI_IRECV_REQUEST",
    "MPI_RECV",
    "MPI_IRECV",
    "MPI_REQUEST_TEST",
    "MPI_REQUEST_CANCELLED",
    "MPI_COLLECTIVE_BEGIN",
    "MPI_COLLECTIVE_END",
    "METRIC",
    "PROGRAM_BEGIN",
    "PROGRAM_END",
];

/// `mpelog print`'s events of `archive` against otf2-print's: each record's
/// name, location, time and attributes, and the fields of those we decode;
/// the records of a type we skip, how many.
fn compare_with_otf2_print(archive: &Path) -> (usize, usize) {
    let ours = String::from_utf8(ok(&[Path::new("print"), archive])).unwrap();
    let o = Command::new("otf2-print")
        .arg(archive.join("traces.otf2"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let theirs = String::from_utf8(o.stdout).unwrap();
    let (ours, theirs) = (parse_events(&ours), parse_events(&theirs));
    assert!(!ours.is_empty());
    assert_eq!(ours.len(), theirs.len(), "{archive:?}: events");
    let mut other = 0;
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        let at = format!("{archive:?}: event {i}: ours {a:?}, otf2-print's {b:?}");
        assert_eq!((a.location, a.time), (b.location, b.time), "{at}");
        assert_eq!(a.attributes.len(), b.attributes.len(), "{at}");
        assert!(
            a.attributes
                .iter()
                .zip(&b.attributes)
                .all(|(x, y)| same_item(x, y)),
            "{at}"
        );
        // Every record named as otf2-print names it, skipped types too.
        assert_eq!(a.name, b.name, "{at}");
        if !DECODED.contains(&a.name.as_str()) {
            // A record type we skip (and count): its fields are not ours.
            other += 1;
            continue;
        }
        assert_eq!(a.fields.len(), b.fields.len(), "{at}");
        assert!(
            a.fields.iter().zip(&b.fields).all(|(x, y)| same_item(x, y)),
            "{at}"
        );
    }
    (ours.len(), other)
}

#[test]
fn print_gives_the_events_otf2_print_gives() {
    if !have_otf2_print() {
        return;
    }
    let mut archives = corpus_archives()
        .unwrap_or_default()
        .into_iter()
        .map(|a| a.parent().unwrap().to_path_buf())
        .collect::<Vec<_>>();
    let dir = tempfile::tempdir().unwrap();
    if have_otf2() {
        for seed in [3, 8, 21] {
            archives.push(python_archive(dir.path(), &format!("s{seed}"), seed, 3000));
        }
    }
    for a in &archives {
        let (events, other) = compare_with_otf2_print(a);
        assert!(other * 10 < events, "{a:?}: {other} skipped records");
    }
}

/// A hybrid MPI + OpenMP archive (the oracle's `hybrid`: thread teams, RMA,
/// I/O, measurement on and off) is read by every command, and every record
/// OTF2 defines is named as libotf2 names it: `print` as otf2-print does,
/// `info` and a conversion's "not drawn" line in OTF2's words, never
/// `type N`.
#[test]
fn a_hybrid_archive_is_read_and_its_records_are_named() {
    if !have_otf2() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let archive = hybrid_archive(dir.path());
    if have_otf2_print() {
        let (events, other) = compare_with_otf2_print(&archive);
        assert_eq!((events, other), (102, 40));
    }
    let info: serde_json::Value =
        serde_json::from_slice(&ok(&[Path::new("info"), &archive, Path::new("--json")])).unwrap();
    let kinds = info["events_by_kind"].as_object().unwrap();
    let count = |k: &str| kinds.get(k).and_then(|n| n.as_u64());
    assert_eq!(kinds.values().filter_map(|n| n.as_u64()).sum::<u64>(), 102);
    assert!(kinds.keys().all(|k| !k.starts_with("type ")), "{kinds:?}");
    assert_eq!(count("ThreadTeamBegin"), Some(4));
    assert_eq!(count("RmaPut"), Some(2));
    assert_eq!(count("IoOperationBegin"), Some(2));
    assert_eq!(count("MeasurementOnOff"), Some(4));
    let out = dir.path().join("hybrid.slog2");
    let conv = run(&[Path::new("convert"), &archive, Path::new("-o"), &out]);
    assert!(conv.status.success());
    // The summary goes to standard error (standard output is for data).
    let conv = String::from_utf8(conv.stderr).unwrap();
    let not_drawn = conv.split("not drawn: ").nth(1).unwrap();
    for name in [
        "2 OmpFork",
        "4 ThreadTeamEnd",
        "2 RmaOpCompleteBlocking",
        "2 IoDestroyHandle",
    ] {
        assert!(not_drawn.contains(name), "{not_drawn}");
    }
    assert!(!not_drawn.contains("type "), "{not_drawn}");
    for args in [&["check"][..], &["stats"], &["analyze"]] {
        let mut a: Vec<&Path> = args.iter().map(Path::new).collect();
        a.push(&archive);
        ok(&a);
    }
    // The picture's legend gives the long OpenMP region name room: the
    // next entry of its row starts past its text, which DejaVu Sans draws
    // 214 pixels wide (measured in the PNG).
    let svg = dir.path().join("hybrid.svg");
    ok(&[Path::new("render"), &archive, Path::new("-o"), &svg]);
    let svg = std::fs::read_to_string(&svg).unwrap();
    let entry = |text: &str| -> (f64, f64) {
        let at = svg.find(&format!(">{text}</text>")).unwrap();
        let tag = &svg[svg[..at].rfind("<text x=\"").unwrap() + 9..at];
        let mut xy = tag.split('"').filter_map(|v| v.parse::<f64>().ok());
        (xy.next().unwrap(), xy.next().unwrap())
    };
    let (x, y) = entry("!$omp implicit barrier @x.c:20 (state)");
    let next = svg
        .match_indices("<text x=\"")
        .filter_map(|(i, _)| {
            let mut xy = svg[i + 9..]
                .split('"')
                .filter_map(|v| v.parse::<f64>().ok());
            Some((xy.next()?, xy.next()?))
        })
        .filter(|&(nx, ny)| ny == y && nx > x)
        .map(|(nx, _)| nx)
        .fold(f64::INFINITY, f64::min);
    assert!(
        next - 16.0 > x + 214.0,
        "next legend entry at {next}, text at {x}"
    );
}

#[test]
fn print_dumps_definitions_then_events() {
    let out = String::from_utf8(ok(&[Path::new("print"), tiny()])).unwrap();
    let defs = out.find("=== Global Definitions ===").unwrap();
    let events = out.find("=== Events ===").unwrap();
    assert!(defs < events);
    assert!(out[defs..events].contains("REGION                               0  Name: \"foo\" <6>"));
    let e = parse_events(&out);
    let names: Vec<&str> = e.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "ENTER",
            "MPI_SEND",
            "METRIC",
            "MPI_RECV",
            "MPI_COLLECTIVE_BEGIN",
            "MPI_COLLECTIVE_END",
            "LEAVE"
        ]
    );
    assert_eq!(e[1].fields[0], "Receiver: 1 (\"Other\" <1>)");
    assert_eq!(e[0].attributes, ["(\"at\" <0>; INT64; -5)"]);
}

/// A byte to change: file in the archive, byte offset, new byte.
type Patch = (&'static str, usize, u8);

/// A finding expected: rule, severity, offset, file in the archive.
type Expected = (&'static str, &'static str, u64, &'static str);

/// A copy of the tiny archive in `dir/name` with `patches` applied: (file,
/// byte offset, new byte).
fn patched(dir: &Path, name: &str, patches: &[(&str, usize, u8)]) -> PathBuf {
    let a = dir.join(name);
    std::fs::create_dir_all(a.join("traces")).unwrap();
    for f in [
        "traces.otf2",
        "traces.def",
        "traces/0.def",
        "traces/1.def",
        "traces/0.evt",
        "traces/1.evt",
    ] {
        std::fs::copy(tiny().join(f), a.join(f)).unwrap();
    }
    for &(f, at, byte) in patches {
        let mut b = std::fs::read(a.join(f)).unwrap();
        b[at] = byte;
        std::fs::write(a.join(f), b).unwrap();
    }
    a
}

/// `mpelog check --json` of `archive`: its findings as (rule, severity,
/// offset, place), and whether it passed.
fn check(archive: &Path) -> (Vec<(String, String, u64, String)>, bool) {
    let o = run(&[Path::new("check"), archive, Path::new("--json")]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["format"], "OTF2");
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["offset"].as_u64().unwrap(),
                f["place"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    (f, o.status.success())
}

#[test]
fn check_passes_good_archives() {
    let mut archives = vec![tiny().to_path_buf()];
    archives.extend(corpus_archives().unwrap_or_default());
    for a in archives {
        let (findings, passed) = check(&a);
        assert!(passed && findings.is_empty(), "{a:?}: {findings:?}");
    }
}

#[test]
fn each_otf2_rule_fires_with_the_file_and_byte_offset() {
    let dir = tempfile::tempdir().unwrap();
    let evt0 = "traces/0.evt";
    // (name, patches, the finding expected: rule, severity, offset, file).
    let cases: [(&str, Vec<Patch>, Expected); 8] = [
        // The timestamp before MpiSend goes back from 10 to 5.
        (
            "order",
            vec![(evt0, 0x2d, 5)],
            ("OTF2-ORD-001", "error", 0x37, evt0),
        ),
        // Enter (0x0c) made a Leave: no region is open.
        (
            "leave",
            vec![(evt0, 0x2a, 0x0d)],
            ("OTF2-NEST-001", "error", 0x2b, evt0),
        ),
        // The last Leave made an Enter: two regions left open.
        (
            "open",
            vec![(evt0, 0x7a, 0x0c)],
            ("OTF2-NEST-002", "warning", 0x2b, evt0),
        ),
        // The last Leave's region made UNDEFINED (compressed 0xff).
        (
            "region",
            vec![(evt0, 0x7b, 0xff)],
            ("OTF2-DEF-001", "error", 0x7b, evt0),
        ),
        // MpiSend's communicator made UNDEFINED.
        (
            "comm",
            vec![(evt0, 0x39, 0xff)],
            ("OTF2-DEF-002", "error", 0x37, evt0),
        ),
        // MpiSend's receiver made rank 7 of a 2-rank communicator.
        (
            "rank",
            vec![(evt0, 0x38, 7)],
            ("OTF2-DEF-003", "error", 0x37, evt0),
        ),
        // The Metric event's metric made UNDEFINED.
        (
            "metric",
            vec![(evt0, 0x4a, 0xff)],
            ("OTF2-DEF-004", "error", 0x4a, evt0),
        ),
        // The receive's tag made 78: the send (tag 77) has no partner.
        (
            "message",
            vec![("traces/1.evt", 0x20, 78)],
            ("OTF2-MSG-001", "warning", 0x37, evt0),
        ),
    ];
    for (name, patches, (rule, severity, offset, file)) in cases {
        let a = patched(dir.path(), name, &patches);
        let (findings, passed) = check(&a);
        let want = (
            rule.to_string(),
            severity.to_string(),
            offset,
            file.to_string(),
        );
        assert!(findings.contains(&want), "{name}: {findings:?}");
        assert_eq!(
            passed,
            severity == "warning" && findings.iter().all(|f| f.1 == "warning"),
            "{name}: {findings:?}"
        );
    }
    // A cut event file: the reader's error, with its file and offset.
    let a = patched(dir.path(), "cut", &[]);
    let mut evt = std::fs::read(a.join(evt0)).unwrap();
    evt.truncate(0x38);
    std::fs::write(a.join(evt0), evt).unwrap();
    let (findings, passed) = check(&a);
    assert!(!passed);
    assert_eq!(
        findings,
        [("OTF2-READ-001".into(), "error".into(), 55, evt0.into())]
    );
}
