//! `mpelog serve`'s request parsing at its boundaries
//! ([`mpelog::serve::Service::handle`]): the widest and narrowest `pixels`,
//! `rows` of one row, the longest request target, a window of no width,
//! percent escapes, Range requests at the file's ends, which file a `file=`
//! index names, and the cost an answer reports.

mod common;

use mpelog::serve::{Body, Response, Service, MAX_PIXELS};
use serde_json::Value;
use std::path::PathBuf;

/// Two small generated SLOG-2 files of different sizes.
fn files(dir: &std::path::Path) -> Vec<PathBuf> {
    [(6, 3000), (7, 5000)]
        .into_iter()
        .map(|(seed, events)| {
            let p = dir.join(format!("t{seed}.slog2"));
            std::fs::write(&p, common::generated_slog2(seed, events, 2048)).unwrap();
            p
        })
        .collect()
}

fn body(r: &Response) -> Vec<u8> {
    r.read_body().unwrap()
}

fn json(s: &Service, url: &str) -> Value {
    assert_eq!(s.handle("GET", url, None).content_type, "application/json");
    common::served_json(s, url)
}

fn status(s: &Service, url: &str) -> u16 {
    s.handle("GET", url, None).status
}

/// The root's time box of a served file, from `/api/info`.
fn times(s: &Service, file: usize) -> (f64, f64) {
    let info = json(s, &format!("/api/info?file={file}"));
    (
        info["time_min"].as_f64().unwrap(),
        info["time_max"].as_f64().unwrap(),
    )
}

#[test]
fn pixels_rows_view_and_format_at_their_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let s = Service::new(&files(dir.path())).unwrap();
    let (a, b) = times(&s, 0);
    let w = |q: &str| format!("/api/window?from={a}&to={b}{q}");
    // Columns: the default, 1 and the most; one more is refused.
    assert_eq!(json(&s, &w(""))["columns"], 1600);
    assert_eq!(json(&s, &w("&pixels=1"))["columns"], 1);
    assert_eq!(
        json(&s, &w(&format!("&pixels={MAX_PIXELS}")))["columns"],
        MAX_PIXELS
    );
    assert_eq!(status(&s, &w(&format!("&pixels={}", MAX_PIXELS + 1))), 400);
    assert_eq!(status(&s, &w("&pixels=x")), 400);
    assert_eq!(json(&s, "/api/info")["summary"]["columns"], 1000);
    assert_eq!(json(&s, "/api/info?pixels=7")["summary"]["columns"], 7);
    // Rows: one row, a range, reversed or malformed ones refused.
    let all = json(&s, &w("&pixels=50"));
    let row_of = |v: &Value| -> Vec<u64> {
        v["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c[0].as_u64().unwrap())
            .collect()
    };
    assert!(row_of(&all).contains(&0) && row_of(&all).contains(&2));
    let one = json(&s, &w("&pixels=50&rows=2-2"));
    assert!(!row_of(&one).is_empty() && row_of(&one).iter().all(|&r| r == 2));
    let want: Vec<&Value> = all["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c[0] == 2)
        .collect();
    assert_eq!(
        one["cells"].as_array().unwrap().iter().collect::<Vec<_>>(),
        want
    );
    let two = json(&s, &w("&pixels=50&rows=1-2"));
    assert!(row_of(&two).iter().all(|&r| r == 1 || r == 2));
    for bad in ["3-2", "1", "a-2", "1-b", "-1-2"] {
        assert_eq!(status(&s, &w(&format!("&rows={bad}"))), 400, "rows={bad}");
    }
    // Views: the first by default; a view past the file's gives rows by line.
    assert_eq!(
        without_cost(json(&s, &w("&view=0"))),
        without_cost(json(&s, &w("")))
    );
    assert_eq!(status(&s, &w("&view=5")), 200);
    assert_eq!(status(&s, &w("&view=x")), 400);
    // Formats: JSON (also by name), the binary form, nothing else.
    assert_eq!(
        without_cost(json(&s, &w("&format=json&pixels=30"))),
        without_cost(json(&s, &w("&pixels=30")))
    );
    let bin = s.handle("GET", &w("&format=bin&pixels=30"), None);
    assert_eq!(
        (bin.status, bin.content_type),
        (200, "application/octet-stream")
    );
    assert_eq!(&body(&bin)[..4], b"MPLS");
    assert_eq!(status(&s, &w("&format=xml")), 400);
}

/// `json` without its `cost` (which differs from answer to answer).
fn without_cost(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("cost");
    v
}

#[test]
fn windows_and_exports_need_finite_times_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let s = Service::new(&files(dir.path())).unwrap();
    let (a, b) = times(&s, 0);
    for (from, to, want) in [
        (a.to_string(), b.to_string(), 200),
        (a.to_string(), a.to_string(), 400),
        (b.to_string(), a.to_string(), 400),
        ("-inf".into(), b.to_string(), 400),
        (a.to_string(), "NaN".into(), 400),
    ] {
        for page in ["window", "export"] {
            let url = format!("/api/{page}?from={from}&to={to}");
            assert_eq!(status(&s, &url), want, "{url}");
        }
    }
    // The export's file name names the file and the window.
    let r = s.handle("GET", &format!("/api/export?from={a}&to={b}&file=1"), None);
    assert_eq!(r.status, 200);
    assert!(r.headers.contains(&(
        "Content-Disposition".into(),
        format!("attachment; filename=\"t7.slog2-{a}-{b}.pftrace\"")
    )));
}

/// The cost an answer reports is what that answer read: the same window
/// twice costs the same (a cost counted from the reader's start, or summed
/// with the counts before, would grow).
#[test]
fn a_windows_cost_is_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let s = Service::new(&files(dir.path())).unwrap();
    let (a, b) = times(&s, 1);
    let url = format!(
        "/api/window?file=1&from={}&to={}&pixels=300",
        a + 0.2 * (b - a),
        a + 0.3 * (b - a)
    );
    let cost = |v: Value| {
        (
            v["cost"]["nodes_read"].as_u64().unwrap(),
            v["cost"]["bytes_read"].as_u64().unwrap(),
        )
    };
    // The first answer also reads the tree's directory; the next ones read
    // the same nodes each.
    json(&s, &url);
    let first = cost(json(&s, &url));
    assert!(first.0 >= 1 && first.1 > first.0, "{first:?}");
    for _ in 0..3 {
        assert_eq!(cost(json(&s, &url)), first);
    }
    // The binary form ends with the same two counts and the microseconds.
    let bin_cost = || {
        let v = body(&s.handle("GET", &format!("{url}&format=bin"), None));
        let n = v.len();
        let at =
            |i: usize| u64::from_le_bytes(v[n - 24 + 8 * i..n - 16 + 8 * i].try_into().unwrap());
        (at(0), at(1))
    };
    assert_eq!(bin_cost(), first);
    assert_eq!(bin_cost(), first);
}

#[test]
fn file_indexes_methods_and_the_longest_target() {
    let dir = tempfile::tempdir().unwrap();
    let paths = files(dir.path());
    let s = Service::new(&paths).unwrap();
    let sizes: Vec<u64> = paths
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .collect();
    assert_ne!(sizes[0], sizes[1]);
    // Each index names its file; one past the last is refused.
    for (k, size) in sizes.iter().enumerate() {
        let info = json(&s, &format!("/api/info?file={k}"));
        assert_eq!(
            (info["file"].as_u64(), info["bytes"].as_u64()),
            (Some(k as u64), Some(*size))
        );
        let r = s.handle("GET", &format!("/trace?file={k}"), None);
        assert_eq!((r.status, r.len()), (200, *size));
        assert_eq!(body(&r), std::fs::read(&paths[k]).unwrap());
    }
    assert_eq!(
        json(&s, "/api/info")["files"],
        serde_json::json!(["t6.slog2", "t7.slog2"])
    );
    assert_eq!(json(&s, "/api/info")["file"], 0);
    assert_eq!(status(&s, "/api/info?file=2"), 400);
    assert_eq!(status(&s, "/trace?file=2"), 400);
    // GET and HEAD only; others are told which.
    assert_eq!(s.handle("HEAD", "/api/info", None).status, 200);
    for m in ["POST", "PUT", "DELETE"] {
        let r = s.handle(m, "/api/info", None);
        assert_eq!(r.status, 405, "{m}");
        assert!(r.headers.contains(&("Allow".into(), "GET, HEAD".into())));
    }
    // A target of 4,096 bytes is read; one byte more is not.
    let pad = |n: usize| {
        let head = "/api/info?pixels=7&view=";
        format!("{head}{}", "0".repeat(n - head.len()))
    };
    assert_eq!(status(&s, &pad(4096)), 200);
    assert_eq!(status(&s, &pad(4097)), 414);
    // The page, by either name.
    for p in ["/", "/index.html"] {
        let r = s.handle("GET", p, None);
        assert_eq!(
            (r.status, r.content_type),
            (200, "text/html; charset=utf-8")
        );
        assert!(!r.is_empty() && r.len() == mpelog::serve::PAGE.len() as u64);
    }
}

#[test]
fn query_strings_are_percent_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let s = Service::new(&files(dir.path())).unwrap();
    // Escaped digits, and empty pairs between `&`s, read as the plain query.
    assert_eq!(
        json(&s, "/api/info?pixels=%37"),
        json(&s, "/api/info?pixels=7")
    );
    assert_eq!(
        json(&s, "/api/info?&pixels=%31%32&&"),
        json(&s, "/api/info?pixels=12")
    );
    assert_eq!(
        status(&s, "/api/info?%66ile=0"),
        400,
        "keys are not decoded"
    );
    // A value without `=` is empty (and so not a number).
    assert_eq!(status(&s, "/api/info?pixels"), 400);
    assert_eq!(status(&s, "/api/info?file"), 400);
    // Escapes cut short, not hexadecimal, or not UTF-8.
    for bad in ["%3", "%", "%g1", "%ff", "7%"] {
        let url = format!("/api/info?pixels={bad}");
        assert_eq!(status(&s, &url), 400, "{url}");
    }
    // `+` is a space, and an escape of one is one too; a search's `dir` can
    // be escaped.
    assert_eq!(status(&s, "/api/search?category=0&dir=pr%65v"), 200);
    assert_eq!(status(&s, "/api/search?category=0&dir=prev+"), 400);
    assert_eq!(status(&s, "/api/search?category=0&dir=prev%20"), 400);
    // Repeated keys are refused.
    assert_eq!(status(&s, "/api/info?pixels=7&pixels=7"), 400);
}

#[test]
fn searches_read_their_time_and_direction() {
    let dir = tempfile::tempdir().unwrap();
    let s = Service::new(&files(dir.path())).unwrap();
    let info = json(&s, "/api/info");
    // A state category with drawables.
    let state = info["legend"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["topology"] == "State")
        .map(|c| c["index"].as_i64().unwrap())
        .find(|k| !json(&s, &format!("/api/search?category={k}"))["found"].is_null())
        .expect("a state category with drawables");
    let find = |q: &str| json(&s, &format!("/api/search?category={state}{q}"))["found"].clone();
    // No time: the first one; after it, a later one; before the end, the last.
    let first = find("");
    assert!(first.is_object(), "{first}");
    let t = first["start"].as_f64().unwrap();
    assert_eq!(find("&t=-inf"), first);
    assert_eq!(find("&dir=next&t=-1e300"), first);
    let second = find(&format!("&t={t}"));
    assert!(second["start"].as_f64().unwrap() > t, "{second}");
    assert_eq!(find(&format!("&t={t}&dir=prev")), Value::Null);
    let last = find("&t=inf&dir=prev");
    assert!(last["start"].as_f64().unwrap() > second["start"].as_f64().unwrap());
    // From the first one found (its end and line): the next one in the
    // search's order, and back.
    let after = |f: &Value, dir: &str| {
        find(&format!(
            "&t={}&end={}&line={}&dir={dir}",
            f["start"], f["end"], f["line"]
        ))
    };
    let next = after(&first, "next");
    assert!(next.is_object() && next != first, "{next}");
    assert_eq!(after(&next, "prev"), first);
    assert_eq!(after(&first, "prev"), Value::Null);
    // The row's values in the view: the line's own for the first view.
    assert_eq!(first["key"], serde_json::json!([first["line"]]));
    for bad in [
        "&t=nan",
        "&t=x",
        "&dir=up",
        "&view=x",
        "&t=1&end=2",
        "&t=1&line=2",
        "&t=1&end=nan&line=2",
        "&t=1&end=2&line=x",
    ] {
        let url = format!("/api/search?category={state}{bad}");
        assert_eq!(status(&s, &url), 400, "{url}");
    }
    assert_eq!(status(&s, "/api/search?category=x"), 400);
}

#[test]
fn ranges_at_the_files_ends() {
    let dir = tempfile::tempdir().unwrap();
    let paths = files(dir.path());
    let s = Service::new(&paths).unwrap();
    let bytes = std::fs::read(&paths[0]).unwrap();
    let n = bytes.len();
    let range = |h: &str| {
        let r = s.handle("GET", "/trace", Some(h));
        let content_range = r
            .headers
            .iter()
            .find(|(k, _)| k == "Content-Range")
            .map(|(_, v)| v.clone());
        (r.status, r.len(), body(&r), content_range)
    };
    for (h, a, b) in [
        ("bytes=0-0".to_string(), 0, 0),
        (format!("bytes={}-{}", n - 1, n - 1), n - 1, n - 1),
        (format!("bytes=3-{}", n + 100), 3, n - 1),
        (format!("bytes=-{}", n + 5), 0, n - 1),
        (format!("bytes=-{n}"), 0, n - 1),
        ("bytes=-1".to_string(), n - 1, n - 1),
        (" bytes= 7 - 9 ".to_string(), 7, 9),
    ] {
        assert_eq!(
            range(&h),
            (
                206,
                (b - a + 1) as u64,
                bytes[a..=b].to_vec(),
                Some(format!("bytes {a}-{b}/{n}"))
            ),
            "{h}"
        );
    }
    for h in [
        format!("bytes={n}-{n}"),
        format!("bytes={}-", n + 1),
        "bytes=4-3".into(),
        "bytes=0-1,3-4".into(),
        "bytes=1".into(),
        "bytes=a-3".into(),
        "bytes=-x".into(),
        // The last 0 bytes: none, so not satisfiable (RFC 9110 §14.1.3).
        "bytes=-0".into(),
        "bytes=1-y".into(),
    ] {
        let (st, _, _, cr) = range(&h);
        assert_eq!((st, cr), (416, Some(format!("bytes */{n}"))), "{h}");
    }
}

/// A body of no bytes, in memory or from a file, is empty (and one byte is
/// not).
#[test]
fn an_empty_body_is_empty() {
    let answer = |body| Response {
        status: 200,
        content_type: "application/octet-stream",
        headers: Vec::new(),
        body,
    };
    let file = |len| Body::File {
        path: "/nonexistent".into(),
        offset: 0,
        len,
    };
    for (body, empty) in [
        (Body::Bytes(Vec::new()), true),
        (file(0), true),
        (Body::Bytes(vec![0]), false),
        (file(1), false),
    ] {
        let r = answer(body);
        assert_eq!((r.is_empty(), r.len()), (empty, u64::from(!empty)), "{r:?}");
    }
}

/// The file's node cache ([`mpelog::serve::NODE_CACHE_BYTES`]) keeps what a
/// window found in upper nodes: the same window again reads the same nodes
/// but fewer bytes, also from another request's reader.
#[test]
fn a_repeated_window_reads_fewer_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let s = Service::new(&files(dir.path())).unwrap();
    let (a, b) = times(&s, 1);
    // Once each (`json` asks twice).
    let cost = |x: f64, y: f64| {
        let v = common::served_json(
            &s,
            &format!(
                "/api/window?file=1&from={}&to={}&pixels=300",
                a + x * (b - a),
                a + y * (b - a)
            ),
        );
        (
            v["cost"]["nodes_read"].as_u64().unwrap(),
            v["cost"]["bytes_read"].as_u64().unwrap(),
        )
    };
    let first = cost(0.2, 0.3);
    let again = cost(0.2, 0.3);
    assert_eq!(again.0, first.0);
    assert!(again.1 < first.1, "{first:?} then {again:?}");
    assert_eq!(cost(0.2, 0.3), again);
}
