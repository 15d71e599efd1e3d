//! Checks every file of a directory against the format rules
//! (`spec/conformance.md`), the way `mpelog check` does, and prints a line per
//! file and every error found.
//!
//! ```sh
//! cargo run --example check_dir [DIR]
//! ```
//!
//! Without an argument, it checks a temporary directory holding a generated
//! trace, its SLOG-2 conversion and a truncated copy of the trace.

use mpelog_conformance::{check_path, Options};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tmp = tempfile::tempdir()?;
    let dir = match std::env::args_os().nth(1) {
        Some(d) => PathBuf::from(d),
        None => {
            let clog2 = clog2_format::synth::generate_vec(
                &clog2_format::synth::Options::default()
                    .ranks(2)
                    .events(5_000),
            )?;
            std::fs::write(tmp.path().join("good.clog2"), &clog2)?;
            std::fs::write(tmp.path().join("cut.clog2"), &clog2[..clog2.len() - 100])?;
            let mut reader = clog2_format::Clog2Reader::from_slice(&clog2)?;
            let (slog2, _) = slog2_format::convert::clog2_to_slog2(
                &mut reader,
                std::io::Cursor::new(Vec::new()),
                Default::default(),
                |_| {},
            )?;
            std::fs::write(tmp.path().join("good.slog2"), slog2.into_inner())?;
            tmp.path().to_path_buf()
        }
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.sort();
    let (mut passed, mut failed) = (0, 0);
    for path in paths.iter().filter(|p| p.is_file()) {
        let report = check_path(path, &Options::default())?;
        let format = report
            .format
            .map_or("unknown".to_string(), |f| f.to_string());
        println!(
            "{}: {format}, {} errors, {} warnings",
            path.display(),
            report.errors(),
            report.warnings()
        );
        for f in report
            .findings
            .iter()
            .filter(|f| f.severity.name() == "error")
        {
            println!("  {} at byte {}: {}", f.rule, f.offset, f.message);
        }
        if report.passes() {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(())
}
