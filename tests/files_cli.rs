//! The user's data is never lost: outputs that are inputs, standard input and
//! output, devices, FIFOs, symlinks, signals, stale temporary files, damaged
//! inputs, the permissions of a replaced output. Every case checks the exit
//! status, the message, and that no input byte changed.

mod common;

use common::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A file's bytes, to compare before and after.
fn bytes(p: impl AsRef<Path>) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

fn err(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A small generated trace in `dir`.
fn trace(dir: &Path) -> PathBuf {
    PathBuf::from(synth(dir, "run.clog2", &["--events", "3000"]))
}

/// Asserts that `args` is refused as writing over `input`, naming both paths,
/// with the input unchanged and nothing left behind.
fn assert_refused(dir: &Path, args: &[&str], input: &Path, output: &str) {
    let before = bytes(input);
    let o = mpelog(args);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", err(&o));
    let e = err(&o);
    assert!(e.contains("is the input"), "{args:?}: {e}");
    assert!(e.contains(output), "{args:?} names the output: {e}");
    assert!(e.contains(s(input)) || e.contains(input.file_name().unwrap().to_str().unwrap()));
    assert!(bytes(input) == before, "{args:?} changed the input");
    assert_eq!(leftovers(dir), 0);
}

#[test]
fn an_output_that_is_an_input_is_refused_under_any_name() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = trace(d);
    let ts = s(&t);
    // The same path, for every command that writes.
    assert_refused(d, &["convert", ts, "-o", ts, "--format", "slog2"], &t, ts);
    assert_refused(d, &["convert", ts, "-o", ts], &t, ts);
    assert_refused(d, &["annotate", ts, "-o", ts], &t, ts);
    // A hard link to it.
    let hard = d.join("hard.clog2");
    std::fs::hard_link(&t, &hard).unwrap();
    assert_refused(
        d,
        &["convert", ts, "-o", s(&hard), "--format", "slog2"],
        &t,
        s(&hard),
    );
    // A symlink to it, as output or as input.
    let sym = d.join("sym.slog2");
    std::os::unix::fs::symlink(&t, &sym).unwrap();
    assert_refused(d, &["convert", ts, "-o", s(&sym)], &t, s(&sym));
    assert_refused(
        d,
        &["convert", s(&sym), "-o", ts, "--format", "clog2"],
        &t,
        ts,
    );
    // Another path to the same file.
    let other = format!(
        "{}/./../{}/run.clog2",
        s(d),
        d.file_name().unwrap().to_str().unwrap()
    );
    assert_refused(d, &["annotate", ts, "-o", &other], &t, &other);
    // Standard output redirected into the input.
    let before = bytes(&t);
    let o = Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .args(["convert", ts, "-o", "-", "--format", "clog2"])
        .stdout(std::fs::OpenOptions::new().append(true).open(&t).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(bytes(&t) == before);
}

#[test]
fn repair_in_place_replaces_the_file_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let t = trace(tmp.path());
    let full = bytes(&t);
    std::fs::write(&t, &full[..full.len() * 2 / 3]).unwrap();
    let o = mpelog(&["repair", s(&t), "-o", s(&t)]);
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(leftovers(tmp.path()), 0);
    let fixed = bytes(&t);
    assert_ne!(fixed.len(), full.len() * 2 / 3);
    assert!(mpelog(&["check", s(&t)]).status.success());
    let help = stdout(&mpelog(&["help", "repair"]));
    assert!(help.contains("In place"), "{help}");
}

#[test]
fn dash_output_is_standard_output_with_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = trace(d);
    for (format, ext) in [("slog2", "slog2"), ("clog2", "clog2")] {
        let file = d.join(format!("out.{ext}"));
        let o = mpelog(&["convert", s(&t), "-o", s(&file), "--format", format]);
        assert!(o.status.success(), "{}", err(&o));
        let o = mpelog(&["convert", s(&t), "-o", "-", "--format", format]);
        assert!(o.status.success(), "{}", err(&o));
        assert!(
            o.stdout == bytes(&file),
            "-o - differs from the file for {format}"
        );
        assert!(!d.join("-").exists(), "a file named - was written");
    }
    let o = mpelog(&["synth", "-o", "-", "--events", "500"]);
    assert!(o.status.success());
    let file = synth(d, "s.clog2", &["--events", "500"]);
    assert!(o.stdout == bytes(file));
    assert_eq!(leftovers(d), 0);
}

#[test]
fn dash_input_is_standard_input() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = trace(d);
    let run_stdin = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mpelog"))
            .args(args)
            .env("TMPDIR", d)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let data = bytes(&t);
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || stdin.write_all(&data));
        let o = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        o
    };
    let via_file = d.join("file.slog2");
    assert!(mpelog(&["convert", s(&t), "-o", s(&via_file)])
        .status
        .success());
    let via_stdin = d.join("stdin.slog2");
    let o = run_stdin(&["convert", "-", "-o", s(&via_stdin)]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(bytes(&via_file) == bytes(&via_stdin));
    assert!(err(&o).contains("converted - (CLOG2"), "{}", err(&o));
    // Both ends at once, and the other reading commands.
    let o = run_stdin(&["convert", "-", "-o", "-", "--format", "slog2"]);
    assert!(o.status.success() && o.stdout == bytes(&via_file));
    let o = run_stdin(&["info", "-"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("file:          -\n"));
    assert_eq!(o.stdout, {
        let mut by_name = mpelog(&["info", s(&t)]).stdout;
        let name = format!("file:          {}\n", s(&t));
        let pos = by_name
            .windows(name.len())
            .position(|w| w == name.as_bytes())
            .unwrap();
        by_name.splice(pos..pos + name.len(), b"file:          -\n".iter().copied());
        by_name
    });
    let o = run_stdin(&["print", "-"]);
    assert!(o.status.success() && o.stdout == mpelog(&["print", s(&t)]).stdout);
    // The copy of standard input is gone.
    let left: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("mpelog-stdin"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_fifo_output_is_written_through_not_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = trace(d);
    let fifo = d.join("pipe");
    let st = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(st.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || bytes(fifo))
    };
    let o = mpelog(&["convert", s(&t), "-o", s(&fifo), "--format", "slog2"]);
    assert!(o.status.success(), "{}", err(&o));
    let got = reader.join().unwrap();
    let file = d.join("f.slog2");
    assert!(mpelog(&["convert", s(&t), "-o", s(&file)]).status.success());
    assert!(got == bytes(&file));
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    assert_eq!(leftovers(d), 0);
}

#[test]
fn a_character_device_output_is_written_not_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = trace(d);
    // A null device of our own (never the real /dev/null): needs root, as CI is.
    let dev = d.join("null");
    let made = Command::new("mknod")
        .arg(&dev)
        .args(["c", "1", "3"])
        .status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED a_character_device_output_is_written_not_replaced: mknod needs root");
        return;
    }
    let o = mpelog(&["convert", s(&t), "-o", s(&dev), "--format", "slog2"]);
    assert!(o.status.success(), "{}", err(&o));
    use std::os::unix::fs::FileTypeExt;
    let m = std::fs::symlink_metadata(&dev).unwrap();
    assert!(
        m.file_type().is_char_device(),
        "the device node was replaced"
    );
    assert_eq!(leftovers(d), 0);
}

#[test]
fn a_symlink_output_stays_a_link_and_its_target_is_updated() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = trace(d);
    let sub = d.join("store");
    std::fs::create_dir(&sub).unwrap();
    let target = sub.join("real.slog2");
    std::fs::write(&target, b"old").unwrap();
    let link = d.join("link.slog2");
    std::os::unix::fs::symlink("store/real.slog2", &link).unwrap();
    let o = mpelog(&["convert", s(&t), "-o", s(&link)]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("store/real.slog2")
    );
    let plain = d.join("plain.slog2");
    assert!(mpelog(&["convert", s(&t), "-o", s(&plain)])
        .status
        .success());
    assert!(bytes(&target) == bytes(&plain));
    assert_eq!(leftovers(d) + leftovers(&sub), 0);
    // A dangling link: its target is created.
    let dangling = d.join("dangling.slog2");
    std::os::unix::fs::symlink("store/new.slog2", &dangling).unwrap();
    assert!(mpelog(&["convert", s(&t), "-o", s(&dangling)])
        .status
        .success());
    assert!(bytes(sub.join("new.slog2")) == bytes(&plain));
}

/// An output that exists is replaced with its own permissions (README: "with
/// NAME's permissions if it existed"), whatever they are, through a symlink
/// too (the target's); a new output is `rw-r--r--`.
#[test]
fn an_existing_output_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = trace(d);
    // In octal, as `ls -l` and chmod say it.
    let mode = |p: &Path| {
        format!(
            "{:o}",
            std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
        )
    };
    let plain = d.join("plain.slog2");
    assert!(mpelog(&["convert", s(&t), "-o", s(&plain)])
        .status
        .success());
    assert_eq!(mode(&plain), "644", "a new output");
    for m in [0o600, 0o640, 0o664, 0o755, 0o400] {
        let out = d.join(format!("out-{m:o}.slog2"));
        std::fs::write(&out, b"old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(m)).unwrap();
        let o = mpelog(&["convert", s(&t), "-o", s(&out)]);
        assert!(o.status.success(), "{m:o}: {}", err(&o));
        assert!(bytes(&out) == bytes(&plain), "{m:o}: replaced");
        assert_eq!(
            mode(&out),
            format!("{m:o}"),
            "an existing {m:o} output keeps its mode"
        );
    }
    // Through a symlink: the target's mode, the link untouched.
    let target = d.join("target.json");
    std::fs::write(&target, b"old").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = d.join("link.json");
    std::os::unix::fs::symlink("target.json", &link).unwrap();
    let o = mpelog(&["export", s(&plain), "-o", s(&link)]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(bytes(&target).starts_with(b"{"), "the target was replaced");
    assert_eq!(mode(&target), "600", "the symlink's target keeps its mode");
    assert_eq!(leftovers(d), 0);
}

#[test]
fn a_directory_output_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let t = trace(tmp.path());
    let o = mpelog(&["convert", s(&t), "-o", s(tmp.path()), "--format", "slog2"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("is a directory"), "{}", err(&o));
}

/// Starts `convert - -o OUT` with standard input held open, so the run waits
/// after creating its temporary file; returns the child once that file exists,
/// and its standard input (keep it open until the child has exited).
fn start_waiting_conversion(
    dir: &Path,
    out: &Path,
) -> (std::process::Child, std::process::ChildStdin) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .args(["convert", "-", "-o", s(out)])
        .env("TMPDIR", dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while leftovers(dir) < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no temporary file appeared"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let stdin = child.stdin.take().unwrap();
    (child, stdin)
}

#[test]
fn signals_remove_the_temporary_files_and_exit_128_plus_the_signal() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let out = d.join("out.slog2");
    for (sig, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        let (child, stdin) = start_waiting_conversion(d, &out);
        // The output's temporary file and the copy of standard input.
        assert_eq!(leftovers(d), 2);
        let st = Command::new("kill")
            .args([&format!("-{sig}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        let o = child.wait_with_output().unwrap();
        drop(stdin);
        assert_eq!(o.status.code(), Some(code), "SIG{sig}: {}", err(&o));
        assert_eq!(err(&o), "", "SIG{sig}: the run went on");
        assert_eq!(leftovers(d), 0, "SIG{sig} left temporary files");
        assert!(!out.exists());
    }
}

#[test]
fn the_next_run_removes_temporary_files_of_a_killed_run() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let out = d.join("out.slog2");
    let (mut child, stdin) = start_waiting_conversion(d, &out);
    child.kill().unwrap(); // SIGKILL: nothing can clean up
    child.wait().unwrap();
    drop(stdin);
    let stale: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".out.slog2.mpelog-"))
        .collect();
    assert_eq!(stale.len(), 1, "{stale:?}");
    // A temporary file of a run still going (this test's own process) is kept.
    let live = d.join(format!(
        ".out.slog2.mpelog-{}-abcdef.tmp",
        std::process::id()
    ));
    std::fs::write(&live, b"busy").unwrap();
    let t = trace(d);
    let o = mpelog(&["convert", s(&t), "-o", s(&out)]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains(&stale[0]), "{}", err(&o));
    assert!(!d.join(&stale[0]).exists());
    assert!(live.exists());
}

#[test]
fn a_cut_clog2_shows_what_it_could_read_and_how_to_repair() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = PathBuf::from(synth(d, "big.clog2", &["--events", "20000"]));
    let full = bytes(&t);
    let cut = d.join("cut.clog2");
    std::fs::write(&cut, &full[..full.len() / 2]).unwrap();
    let o = mpelog(&["info", s(&cut)]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("format:        CLOG2 (CLOG-02.44)"), "{text}");
    assert!(text.contains("damaged:       at byte"), "{text}");
    let records: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("records:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(records > 5000 && records < 20000, "{records}");
    let repair = format!("mpelog repair {} -o FIXED.clog2", s(&cut));
    assert!(err(&o).contains(&repair), "{}", err(&o));
    // JSON has the same, with the damage as an object.
    let o = mpelog(&["info", "--json", s(&cut)]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["records"], records);
    assert_eq!(v["damaged"]["repair"], repair.as_str());
    // convert says the same, and writes nothing.
    let o = mpelog(&["convert", s(&cut), "-o", s(&d.join("cut.slog2"))]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains(&repair), "{}", err(&o));
    assert!(!d.join("cut.slog2").exists());
    // The commands that read through `mpelog::Trace` say the same.
    let json = d.join("cut.json");
    for args in [
        vec!["stats", s(&cut)],
        vec!["analyze", s(&cut)],
        vec!["window", s(&cut)],
        vec!["export", s(&cut), "-o", s(&json)],
    ] {
        let o = mpelog(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(err(&o).contains(&repair), "{args:?}: {}", err(&o));
    }
    assert!(!json.exists());
    // The whole file: a window converts it once and says what it drew.
    let o = mpelog(&["window", s(&t), "--from", "0", "--to", "0.001"]);
    assert!(o.status.success(), "{}", err(&o));
    let said = err(&o);
    let note = format!(
        "converted {} (CLOG2) to a temporary SLOG-2 file\ndrawables ",
        s(&t)
    );
    assert!(said.starts_with(&note), "{said}");
    assert!(said.contains("\nunmatched events: none dropped"), "{said}");
    // A bad preamble cannot be repaired: no such advice.
    std::fs::write(&cut, &full[..500]).unwrap();
    let o = mpelog(&["info", s(&cut)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!err(&o).contains("mpelog repair"), "{}", err(&o));
}

#[test]
fn every_conversion_prints_a_summary_that_agrees_with_synth_and_info() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let out = d.join("t.clog2");
    let o = mpelog(&["synth", "-o", s(&out), "--events", "5000"]);
    let synth_says = err(&o);
    let info: serde_json::Value =
        serde_json::from_slice(&mpelog(&["info", "--json", s(&out)]).stdout).unwrap();
    let (records, size) = (
        info["records"].as_u64().unwrap(),
        info["file_size"].as_u64().unwrap(),
    );
    assert!(
        synth_says.contains(&format!("{records} records")),
        "{synth_says}"
    );
    assert!(
        synth_says.contains(&format!("{size} bytes")),
        "{synth_says}"
    );
    for (fmt, ext) in [("slog2", "slog2"), ("clog2", "clog2")] {
        let o = mpelog(&[
            "convert",
            s(&out),
            "-o",
            s(&d.join(format!("c.{ext}"))),
            "--format",
            fmt,
        ]);
        let e = err(&o);
        assert!(o.status.success(), "{e}");
        assert!(
            e.contains(&format!("(CLOG2, {size} bytes, {records} records)")),
            "{fmt}: {e}"
        );
    }
    // SLOG-2 to SLOG-2 is not silent either.
    let o = mpelog(&[
        "convert",
        s(&d.join("c.slog2")),
        "-o",
        s(&d.join("r.slog2")),
    ]);
    assert!(err(&o).starts_with("rewrote "), "{}", err(&o));
    let o = mpelog(&[
        "convert",
        s(&d.join("c.slog2")),
        "-o",
        s(&d.join("z.slog2")),
        "--compress",
        "deflate",
    ]);
    assert!(err(&o).contains("SLOG 2.0.6Z"), "{}", err(&o));
    // ALOG: no Rust debug output.
    let alog = d.join("a.alog");
    std::fs::write(
        &alog,
        "-1 0 0 0 0 0 Me\n-2 0 0 4 0 0\n-3 0 0 1 0 0\n-4 0 0 1 0 0\n-5 0 0 2 0 0\n-6 0 0 0 0 0\n-7 0 0 0 0 100\n-8 0 0 1 0 0\n-13 0 1 2 0 0 red:gray WORK\n1 0 0 1 0 10\n2 0 0 2 0 50\n2 0 0 3 0 60\n",
    )
    .unwrap();
    let o = mpelog(&["convert", s(&alog), "-o", s(&d.join("a.slog2"))]);
    let e = err(&o);
    assert!(o.status.success(), "{e}");
    assert!(!e.contains('{') && !e.contains("Unmatched"), "{e}");
    assert!(e.contains("state ends without a start 1"), "{e}");
}

#[test]
fn leaf_bytes_take_size_suffixes_like_clog2toslog2() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = trace(d);
    let a = d.join("a.slog2");
    let b = d.join("b.slog2");
    assert!(
        mpelog(&["convert", s(&t), "-o", s(&a), "--leaf-bytes", "4k"])
            .status
            .success()
    );
    assert!(
        mpelog(&["convert", s(&t), "-o", s(&b), "--leaf-bytes", "4096"])
            .status
            .success()
    );
    assert!(bytes(&a) == bytes(&b));
    let o = mpelog(&["convert", s(&t), "-o", s(&a), "--leaf-bytes", "4q"]);
    assert_eq!(o.status.code(), Some(2));
    let o = mpelog(&["convert", s(&t), "-o", s(&a), "--to", "slog2"]);
    assert_eq!(o.status.code(), Some(2), "--to is a time, never a format");
}

#[test]
fn window_without_bounds_is_the_whole_file() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = trace(d);
    let f = d.join("w.slog2");
    let o = mpelog(&["convert", s(&t), "-o", s(&f)]);
    let drawables: u64 = err(&o)
        .split("drawables ")
        .nth(1)
        .and_then(|r| r.split(';').next())
        .unwrap()
        .parse()
        .unwrap();
    let last = |args: &[&str]| -> u64 {
        let out = stdout(&mpelog(args));
        out.lines()
            .last()
            .unwrap()
            .rsplit("drawables=")
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(last(&["window", s(&f)]), drawables);
    assert_eq!(last(&["window", s(&f), "--from", "-1e9"]), drawables);
    assert_eq!(last(&["window", s(&f), "--to", "1e9"]), drawables);
    assert!(last(&["window", s(&f), "--to", "0.01"]) < drawables);
    let idx = d.join("run.clog2.idx");
    assert!(mpelog(&["annotate", s(&t)]).status.success());
    assert_eq!(last(&["window", s(&idx)]), drawables);
}

/// A socket in the file system is not a place to put bytes: the output is
/// refused when it is opened, and the socket stays where it was (never
/// renamed over, as a regular file would be).
#[test]
fn a_socket_output_is_refused_and_left_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = trace(d);
    let sock = d.join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let o = mpelog(&["convert", s(&t), "-o", s(&sock), "--format", "slog2"]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    use std::os::unix::fs::FileTypeExt;
    let m = std::fs::symlink_metadata(&sock).unwrap();
    assert!(m.file_type().is_socket(), "the socket was replaced");
    assert_eq!(leftovers(d), 0);
}

/// `/dev/stdout` and `/proc/self/fd/1` are links into `/proc` naming the open
/// standard output: written through (here a pipe), never resolved to a
/// path to rename over.
#[test]
fn dev_stdout_and_proc_fd_outputs_write_through_to_a_pipe() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = trace(d);
    let file = d.join("f.slog2");
    assert!(mpelog(&["convert", s(&t), "-o", s(&file)]).status.success());
    for out in ["/dev/stdout", "/proc/self/fd/1"] {
        let o = mpelog(&["convert", s(&t), "-o", out, "--format", "slog2"]);
        assert!(o.status.success(), "{out}: {}", err(&o));
        assert!(o.stdout == bytes(&file), "{out}: the same bytes as a file");
    }
    assert_eq!(leftovers(d), 0);
}

/// An output named without a directory (`-o out.slog2`, in the current
/// directory) has its stale temporary files removed as one with a path.
#[test]
fn a_bare_output_name_has_its_stale_temporary_files_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = trace(d);
    let dead = {
        let mut child = Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    };
    let stale = d.join(format!(".out.slog2.mpelog-{dead}-abcdef.tmp"));
    std::fs::write(&stale, b"left by a killed run").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_mpelog"))
        .current_dir(d)
        .args(["convert", s(&t), "-o", "out.slog2"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", err(&o));
    assert!(!stale.exists(), "the stale file is removed: {}", err(&o));
    assert!(d.join("out.slog2").exists());
    assert_eq!(leftovers(d), 0);
}

/// The summary line names the output as the user gave it.
#[test]
fn the_summary_names_the_output_as_given() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let t = trace(d);
    let out = d.join("named.slog2");
    let o = mpelog(&["convert", s(&t), "-o", s(&out)]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        err(&o).contains(&format!(" to {} (", s(&out))),
        "{}",
        err(&o)
    );
    let o = mpelog(&["convert", s(&t), "-o", "-", "--format", "slog2"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains(" to - ("), "{}", err(&o));
}
