//! The Python package (python/): built and installed as a user does it
//! (`pip install ./python` in a fresh venv, maturin and pyarrow from the
//! registry), then its pytest suite run against this build's `mpelog`
//! binary, so that `cargo test --workspace` runs both test suites.
//!
//! Without python3, venv or the registry, the test says SKIPPED and passes,
//! unless `CI` is set: then it fails (CI installs what it needs).

use std::path::Path;
use std::process::Command;

/// Skips (prints why and returns) or, under CI, fails.
macro_rules! skip_or_fail {
    ($($why:tt)*) => {{
        let why = format!($($why)*);
        if std::env::var_os("CI").is_some() {
            panic!("the Python package cannot be tested under CI: {why}");
        }
        eprintln!("SKIPPED: Python package tests: {why}");
        return;
    }};
}

/// Runs `cmd`, returning whether it succeeded and its output.
fn run(cmd: &mut Command) -> (bool, String) {
    match cmd.output() {
        Ok(o) => (
            o.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
        ),
        Err(e) => (false, format!("cannot run {cmd:?}: {e}")),
    }
}

/// `PATH` with `dir` first.
fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).expect("a PATH")
}

#[test]
fn python_package_installs_and_passes_pytest() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("venv");
    let (ok, out) = run(Command::new(&python).args(["-m", "venv"]).arg(&venv));
    if !ok {
        skip_or_fail!("`{python} -m venv` failed: {out}");
    }
    let bin = venv.join("bin");
    let pip = |args: &[&str]| {
        run(Command::new(bin.join("python"))
            .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
            .args(args))
    };
    // mypy: its stubtest holds the type stubs against the module;
    // matplotlib: python/examples/notebook.py draws with it.
    let (ok, out) = pip(&[
        "maturin>=1.5,<2",
        "pyarrow>=15",
        "pandas",
        "pytest",
        "mypy",
        "matplotlib",
    ]);
    if !ok {
        skip_or_fail!(
            "pip could not install maturin, pyarrow, pandas, pytest, mypy and matplotlib: {out}"
        );
    }
    // The extension in the dev profile (quick to build; the tests read small
    // traces), in a target directory of its own kept between runs.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("python-package");
    let (ok, out) = run(Command::new(bin.join("python"))
        .args([
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "--no-build-isolation",
        ])
        .arg(root.join("python"))
        // The venv's maturin, for the build backend.
        .env("PATH", path_with(&bin))
        .env("VIRTUAL_ENV", &venv)
        .env("CARGO_TARGET_DIR", &target)
        .env("MATURIN_PEP517_ARGS", "--profile dev"));
    assert!(ok, "pip install ./python failed:\n{out}");
    let mut pytest = Command::new(bin.join("python"));
    pytest
        .args(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"])
        .arg(root.join("python/tests"))
        .current_dir(dir.path())
        .env("MPELOG_BIN", env!("CARGO_BIN_EXE_mpelog"))
        .env_remove("MPELOG_CORPUS");
    // The corpus as the Rust tests find it (a relative MPELOG_CORPUS is the
    // workspace's), so pytest's corpus tests run whenever these do.
    if let Some(corpus) = mpelog_conformance::corpus::root() {
        pytest.env("MPELOG_CORPUS", corpus);
    }
    let (ok, out) = run(&mut pytest);
    println!("{out}");
    assert!(ok, "pytest failed:\n{out}");
}
