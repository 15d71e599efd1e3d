//! The minimum supported Rust version (`rust-version` in the workspace manifest)
//! holds for what a user builds: every crate that a publishable workspace crate
//! depends on (normal and build dependencies, transitively, with the features
//! that build enables) declares a `rust-version` no newer than ours. Dev-dependencies (proptest, criterion) are
//! not part of a user's build and are not checked.
//!
//! Only one toolchain is installed on our machines, so the language side is
//! checked by clippy's `incompatible_msrv` lint, which reads the same
//! `rust-version` and runs with `-D warnings` in CI.
//!
//! Neither `cargo metadata` nor `cargo tree` runs `--offline`: a machine that
//! has only built the project lacks the lock file's packages for other
//! platforms (and for features no build enables), so cargo may fetch what the
//! local cache lacks from the registry, as a build does (issue 29). Both
//! commands are `--locked` (the lock file is never rewritten) and resolve for
//! the host platform, which is what `cargo tree` checks.

use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::process::Command;

/// `"1.85"` or `"1.85.0"` as comparable numbers.
fn version(s: &str) -> Vec<u64> {
    let mut v: Vec<u64> = s.split('.').map(|p| p.parse().expect("numeric")).collect();
    v.resize(3, 0);
    v
}

/// The host's target triple, as `rustc -vV` reports it.
fn host() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    String::from_utf8(out.stdout)
        .expect("rustc -vV is text")
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .expect("rustc -vV names the host")
}

#[test]
fn every_normal_dependency_builds_with_our_msrv() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let cargo = cargo.as_str();
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .args(["--filter-platform", &host()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m: Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");

    let packages: HashMap<&str, &Value> = m["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p))
        .collect();
    let members: Vec<&str> = m["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let ours = packages[members[0]]["rust_version"]
        .as_str()
        .expect("the workspace sets rust-version");
    let publishable: Vec<&str> = members
        .iter()
        .copied()
        .filter(|id| packages[id]["publish"] != Value::Array(vec![]))
        .collect();
    assert!(
        publishable.len() >= 6,
        "the CLI and five library crates are publishable"
    );
    for id in &publishable {
        assert_eq!(
            packages[id]["rust_version"].as_str(),
            Some(ours),
            "every publishable member inherits one rust-version ({id})"
        );
    }
    // The packages a user's build of the publishable members compiles: `cargo
    // tree` resolves features as that build does (a dev-dependency's features,
    // such as conformance's `test-support` for our own tests, are not included).
    let mut args = vec![
        "tree",
        "-e",
        "normal,build",
        "--prefix",
        "none",
        "--format",
        "{p}",
        "--locked",
    ];
    for id in &publishable {
        args.push("-p");
        args.push(packages[id]["name"].as_str().unwrap());
    }
    let tree = Command::new(cargo)
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        tree.status.success(),
        "{}",
        String::from_utf8_lossy(&tree.stderr)
    );
    let by_name: HashMap<(&str, &str), &Value> = packages
        .values()
        .map(|p| {
            (
                (p["name"].as_str().unwrap(), p["version"].as_str().unwrap()),
                *p,
            )
        })
        .collect();
    let mut seen = BTreeSet::new();
    let mut too_new = Vec::new();
    let listing = String::from_utf8(tree.stdout).unwrap();
    for line in listing.lines() {
        let mut words = line.split_whitespace();
        let (Some(name), Some(v)) = (words.next(), words.next()) else {
            continue;
        };
        let key = (name, v.trim_start_matches('v'));
        if !seen.insert(key) {
            continue;
        }
        let package = by_name
            .get(&key)
            .unwrap_or_else(|| panic!("{line}: not in cargo metadata"));
        if let Some(rv) = package["rust_version"].as_str() {
            if version(rv) > version(ours) {
                too_new.push(format!("{name} {v} needs {rv}"));
            }
        }
    }
    assert!(
        !seen.iter().any(|(name, _)| *name == "proptest"),
        "proptest is test support only"
    );
    assert!(
        seen.len() > 20,
        "walked the dependency graph ({})",
        seen.len()
    );
    assert!(
        too_new.is_empty(),
        "dependencies newer than rust-version {ours}: {too_new:?}"
    );
}
