//! `mpelog::cube` writes CUBE4 (spec/cube.md): a cube with known values,
//! read back by pycubexr (PyPI, CI installs it) through `python3`, gives
//! every value per (metric, call node, location) as written, and the
//! metric, call and system trees as built; Scalasca's metric tree nests as
//! Scalasca nests it. Without python3 or pycubexr the read is skipped with
//! a message, unless `CI` is set. The archive's own layout (members, sizes,
//! headers, the same bytes every time) is checked without Python.

mod common;

use mpelog::cube::scalasca::{add_metrics, Pattern, PatternValues};
use mpelog::cube::{CnodeId, Cube, Error, LocationId, Metric, MetricKind, Region};
use serde_json::Value as J;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// The cube of the tests, with the names of its call nodes (region path)
/// and locations.
struct Built {
    cube: Cube,
    cnodes: Vec<(String, CnodeId)>,
    locations: Vec<(String, LocationId)>,
}

/// A small deterministic generator for the values.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn build() -> Built {
    let mut cube = Cube::new();
    cube.add_attr("mpelog trace", "hand <made> & \"quoted\"");
    let main = cube.add_region(Region::function("main"));
    let init = cube.add_region(Region::mpi("MPI_Init"));
    let lp = cube.add_region(Region::function("loop"));
    let compute = cube.add_region(Region::function("compute"));
    let recv = cube.add_region(Region::mpi("MPI_Recv"));
    let send = cube.add_region(Region::mpi("MPI_Send"));
    let barrier = cube.add_region(Region::mpi("MPI_Barrier"));
    let fin = cube.add_region(Region::mpi("MPI_Finalize"));

    // main ⊃ (MPI_Init, loop ⊃ (compute ⊃ MPI_Send, MPI_Recv, MPI_Send),
    // MPI_Barrier, MPI_Finalize): branching, so that the depth-first and
    // the wide enumerations differ.
    let mut cnodes = Vec::new();
    let root = cube.add_cnode(None, main).unwrap();
    cnodes.push(("main".to_string(), root));
    let c_init = cube.add_cnode(Some(root), init).unwrap();
    cnodes.push(("main/MPI_Init".to_string(), c_init));
    let c_loop = cube.add_cnode(Some(root), lp).unwrap();
    cnodes.push(("main/loop".to_string(), c_loop));
    let c_barrier = cube.add_cnode(Some(root), barrier).unwrap();
    cnodes.push(("main/MPI_Barrier".to_string(), c_barrier));
    let c_compute = cube.add_cnode(Some(c_loop), compute).unwrap();
    cnodes.push(("main/loop/compute".to_string(), c_compute));
    let c_recv = cube.add_cnode(Some(c_loop), recv).unwrap();
    cnodes.push(("main/loop/MPI_Recv".to_string(), c_recv));
    let c_send = cube.add_cnode(Some(c_loop), send).unwrap();
    cnodes.push(("main/loop/MPI_Send".to_string(), c_send));
    let c_fin = cube.add_cnode(Some(root), fin).unwrap();
    cnodes.push(("main/MPI_Finalize".to_string(), c_fin));
    let c_inner = cube.add_cnode(Some(c_compute), send).unwrap();
    cnodes.push(("main/loop/compute/MPI_Send".to_string(), c_inner));

    // cluster ⊃ (n0 ⊃ (rank 0: t0, t1; rank 1: t0), n1 ⊃ rank 2: t0), the
    // locations added out of tree order.
    let machine = cube.add_system_node(None, "cluster", "machine").unwrap();
    let n0 = cube.add_system_node(Some(machine), "n0", "node").unwrap();
    let n1 = cube.add_system_node(Some(machine), "n1", "node").unwrap();
    let r0 = cube.add_process(n0, "rank 0", 0).unwrap();
    let r1 = cube.add_process(n0, "rank 1", 1).unwrap();
    let r2 = cube.add_process(n1, "rank 2", 2).unwrap();
    let mut locations = Vec::new();
    for (name, process, thread) in [
        ("r1.t0", r1, 0),
        ("r2.t0", r2, 0),
        ("r0.t1", r0, 1),
        ("r0.t0", r0, 0),
    ] {
        locations.push((
            name.to_string(),
            cube.add_location(process, name, thread).unwrap(),
        ));
    }

    // Scalasca's tree, some patterns given and the rest summed; the
    // critical-path tree by one value.
    let mut rng = Lcg(43);
    let mut values = PatternValues::new();
    for p in [
        Pattern::Time,
        Pattern::Computation,
        Pattern::MpiLateSender,
        Pattern::MpiLswoSame,
        Pattern::MpiLswoDifferent,
        Pattern::MpiLateReceiver,
        Pattern::MpiBarrierWait,
        Pattern::MpiWaitNxn,
        Pattern::MpiLateBroadcast,
    ] {
        for &(_, c) in &cnodes {
            for &(_, l) in &locations {
                if rng.next() % 3 == 0 {
                    values.add(p, c, l, (rng.next() % 100_000) as f64 * 1e-6);
                }
            }
        }
    }
    values.add(Pattern::CriticalPath, c_recv, locations[3].1, 0.375);
    add_metrics(&mut cube, &values).unwrap();

    // An inclusive metric with a child, dense, and an exclusive one that is
    // zero everywhere.
    let incl = cube
        .add_metric(
            None,
            Metric::new("incl_test", "Inclusive test", "occ").kind(MetricKind::Inclusive),
        )
        .unwrap();
    let incl_child = cube
        .add_metric(Some(incl), Metric::new("incl_child", "Its child", "occ"))
        .unwrap();
    for (i, &(_, c)) in cnodes.iter().enumerate() {
        for (j, &(_, l)) in locations.iter().enumerate() {
            let v = (i * 10 + j) as f64 + 0.125;
            cube.set(incl, c, l, v).unwrap();
            if (i + j) % 2 == 0 {
                cube.set(incl_child, c, l, v / 4.0).unwrap();
            }
        }
    }
    cube.add_metric(None, Metric::new("zero", "Zero everywhere", "sec"))
        .unwrap();
    Built {
        cube,
        cnodes,
        locations,
    }
}

/// What pycubexr reads from `path`, or `None` (after saying why) when
/// python3 or pycubexr is missing outside CI.
fn pycubexr(path: &Path) -> Option<J> {
    common::python_script(
        "tests/pycubexr/dump_cubex.py",
        &[path.as_os_str()],
        "NO-PYCUBEXR",
        "pycubexr",
    )
    .map(|text| serde_json::from_str(&text).expect("the dump is JSON"))
}

/// The call nodes of the dump: id → region path.
fn cnode_paths(tree: &J, prefix: &str, out: &mut BTreeMap<String, String>) {
    let path = if prefix.is_empty() {
        tree["region"].as_str().unwrap().to_string()
    } else {
        format!("{prefix}/{}", tree["region"].as_str().unwrap())
    };
    out.insert(tree["id"].to_string(), path.clone());
    for c in tree["children"].as_array().unwrap() {
        cnode_paths(c, &path, out);
    }
}

/// The metric tree of the dump as (unique name, parent's unique name,
/// display name, type, dtype, unit), depth-first.
fn metric_rows(tree: &J, parent: &str, out: &mut Vec<[String; 6]>) {
    let s = |k: &str| tree[k].as_str().unwrap().to_string();
    out.push([
        s("uniq"),
        parent.to_string(),
        s("disp"),
        s("type"),
        s("dtype"),
        s("uom"),
    ]);
    for c in tree["children"].as_array().unwrap() {
        metric_rows(c, tree["uniq"].as_str().unwrap(), out);
    }
}

#[test]
fn pycubexr_reads_every_value_and_tree_as_written() {
    let built = build();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.cubex");
    built.cube.write_file(&path, &[]).unwrap();
    let Some(dump) = pycubexr(&path) else { return };

    // The metric trees: Scalasca's as its patterns nest, then ours.
    let mut rows = Vec::new();
    for root in dump["metrics"].as_array().unwrap() {
        metric_rows(root, "", &mut rows);
    }
    let mut expected: Vec<[String; 6]> = Pattern::ALL
        .iter()
        .filter(|p| !matches!(p.root(), Pattern::Imbalance))
        .map(|p| {
            [
                p.unique_name().to_string(),
                p.parent().map_or("", |q| q.unique_name()).to_string(),
                p.display_name().to_string(),
                "EXCLUSIVE".to_string(),
                "DOUBLE".to_string(),
                "sec".to_string(),
            ]
        })
        .collect();
    for (u, p, d, t, unit) in [
        ("incl_test", "", "Inclusive test", "INCLUSIVE", "occ"),
        ("incl_child", "incl_test", "Its child", "EXCLUSIVE", "occ"),
        ("zero", "", "Zero everywhere", "EXCLUSIVE", "sec"),
    ] {
        expected.push([u, p, d, t, "DOUBLE", unit].map(String::from));
    }
    assert_eq!(rows, expected);
    // Scalasca's nesting, spelled out (scout.spec): Late Sender, Wrong Order
    // from the same source, up to Time; Wait at Barrier likewise.
    let parent_of = |u: &str| rows.iter().find(|r| r[0] == u).map(|r| r[1].clone());
    let chain = |u: &str| {
        let mut names = vec![u.to_string()];
        while let Some(p) = parent_of(names.last().unwrap()).filter(|p| !p.is_empty()) {
            names.push(p);
        }
        names.join(" < ")
    };
    assert_eq!(
        chain("mpi_lswo_same"),
        "mpi_lswo_same < mpi_latesender_wo < mpi_latesender < mpi_point2point \
         < mpi_communication < mpi < execution < time"
    );
    assert_eq!(
        chain("mpi_barrier_wait"),
        "mpi_barrier_wait < mpi_sync_collective < mpi_synchronization < mpi < execution < time"
    );
    assert_eq!(
        chain("mpi_nxn_completion"),
        "mpi_nxn_completion < mpi_collective < mpi_communication < mpi < execution < time"
    );

    // The call tree, by region paths.
    let mut paths = BTreeMap::new();
    let roots = dump["cnodes"].as_array().unwrap();
    assert_eq!(roots.len(), 1);
    cnode_paths(&roots[0], "", &mut paths);
    let mut have: Vec<_> = paths.values().cloned().collect();
    let mut want: Vec<_> = built.cnodes.iter().map(|(p, _)| p.clone()).collect();
    have.sort();
    want.sort();
    assert_eq!(have, want);

    // The system tree: locations in tree order (processes in the order
    // added, each one's locations in the order added), with their processes.
    let locs = common::cube_locations(&dump);
    let want: Vec<(String, i64, String, i64, String)> = [
        ("r0.t1", 1, "rank 0", 0, r#"["cluster","n0"]"#),
        ("r0.t0", 0, "rank 0", 0, r#"["cluster","n0"]"#),
        ("r1.t0", 0, "rank 1", 1, r#"["cluster","n0"]"#),
        ("r2.t0", 0, "rank 2", 2, r#"["cluster","n1"]"#),
    ]
    .into_iter()
    .map(|(n, r, p, pr, s)| (n.to_string(), r, p.to_string(), pr, s.to_string()))
    .collect();
    assert_eq!(locs, want);

    // Every value of every metric at every call node and location.
    assert_eq!(dump["values"].as_object().unwrap().len(), rows.len());
    let nonzero = assert_values(&built, &dump);
    assert!(nonzero > 200, "the cube has values to compare ({nonzero})");
}

/// Compares every value pycubexr read (`dump`) with what `built` holds,
/// call nodes by region path and locations by name; gives the number of
/// nonzero values compared.
fn assert_values(built: &Built, dump: &J) -> usize {
    let mut paths = BTreeMap::new();
    for root in dump["cnodes"].as_array().unwrap() {
        cnode_paths(root, "", &mut paths);
    }
    assert_eq!(paths.len(), built.cnodes.len(), "call nodes");
    let columns: Vec<&str> = dump["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(columns.len(), built.locations.len(), "locations");
    let mut nonzero = 0;
    for (uniq, by_cnode) in dump["values"].as_object().unwrap() {
        let metric = built.cube.metric_id(uniq).unwrap();
        let by_cnode = by_cnode.as_object().unwrap();
        assert_eq!(by_cnode.len(), built.cnodes.len(), "{uniq}");
        for (id, row) in by_cnode {
            let path = &paths[id];
            let cnode = built.cnodes.iter().find(|(p, _)| p == path).unwrap().1;
            let row = row.as_array().unwrap();
            assert_eq!(row.len(), built.locations.len());
            for (column, name) in columns.iter().enumerate() {
                let location = built.locations.iter().find(|(n, _)| n == name).unwrap().1;
                let want = built.cube.get(metric, cnode, location);
                let got = row[column].as_f64().unwrap();
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "{uniq} at {path}, {name}: pycubexr read {got}, we wrote {want}"
                );
                nonzero += usize::from(want != 0.0);
            }
        }
    }
    nonzero
}

/// A cube of random shape: a call tree of up to 40 nodes (each hung under a
/// random earlier one), up to 3 machines of nodes, processes and threads,
/// a random metric tree of both kinds, sparse values.
fn random(seed: u64) -> Built {
    let mut rng = Lcg(seed);
    let mut cube = Cube::new();
    let mut cnodes: Vec<(String, CnodeId)> = Vec::new();
    let root_region = cube.add_region(Region::function("root"));
    cnodes.push(("root".into(), cube.add_cnode(None, root_region).unwrap()));
    for i in 1..2 + rng.next() % 39 {
        let (parent_path, parent) = cnodes[(rng.next() % cnodes.len() as u64) as usize].clone();
        let region = cube.add_region(Region::mpi(&format!("f{i}")));
        let id = cube.add_cnode(Some(parent), region).unwrap();
        cnodes.push((format!("{parent_path}/f{i}"), id));
    }
    let mut locations = Vec::new();
    let machine = cube.add_system_node(None, "machine", "machine").unwrap();
    let mut nodes = vec![machine];
    for i in 0..1 + rng.next() % 3 {
        let parent = nodes[(rng.next() % nodes.len() as u64) as usize];
        nodes.push(
            cube.add_system_node(Some(parent), &format!("node {i}"), "node")
                .unwrap(),
        );
    }
    let mut processes = Vec::new();
    for rank in 0..1 + rng.next() % 5 {
        let node = nodes[(rng.next() % nodes.len() as u64) as usize];
        processes.push(
            cube.add_process(node, &format!("rank {rank}"), rank as i32)
                .unwrap(),
        );
    }
    for (i, &p) in processes.iter().enumerate() {
        for t in 0..1 + rng.next() % 3 {
            let name = format!("p{i}.t{t}");
            locations.push((name.clone(), cube.add_location(p, &name, t as i32).unwrap()));
        }
    }
    let mut metrics = Vec::new();
    for i in 0..1 + rng.next() % 8 {
        let parent = match rng.next() % 3 {
            0 if !metrics.is_empty() => Some(metrics[(rng.next() % metrics.len() as u64) as usize]),
            _ => None,
        };
        let kind = if rng.next() % 2 == 0 {
            MetricKind::Inclusive
        } else {
            MetricKind::Exclusive
        };
        let m = cube
            .add_metric(
                parent,
                Metric::new(&format!("m{i}"), &format!("M {i}"), "sec").kind(kind),
            )
            .unwrap();
        metrics.push(m);
        let density = 1 + rng.next() % 4;
        for &(_, c) in &cnodes {
            for &(_, l) in &locations {
                if rng.next() % density == 0 {
                    let v = (rng.next() % 1_000_000) as f64 / 1024.0 - 200.0;
                    cube.set(m, c, l, v).unwrap();
                }
            }
        }
    }
    Built {
        cube,
        cnodes,
        locations,
    }
}

#[test]
fn pycubexr_reads_cubes_of_random_shape() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 1..=8 {
        let built = random(seed);
        let path = dir.path().join(format!("r{seed}.cubex"));
        built.cube.write_file(&path, &[]).unwrap();
        let Some(dump) = pycubexr(&path) else { return };
        assert_values(&built, &dump);
    }
}

#[test]
fn summed_metrics_hold_their_childrens_sums() {
    let built = build();
    let cube = &built.cube;
    let id = |p: Pattern| cube.metric_id(p.unique_name()).unwrap();
    for &(_, c) in &built.cnodes {
        for &(_, l) in &built.locations {
            let v = |p| cube.get(id(p), c, l);
            // Not given: the sum of the children.
            assert_eq!(
                v(Pattern::MpiLateSenderWo),
                v(Pattern::MpiLswoDifferent) + v(Pattern::MpiLswoSame)
            );
            assert_eq!(
                v(Pattern::MpiPoint2point),
                v(Pattern::MpiLateSender) + v(Pattern::MpiLateReceiver)
            );
            assert_eq!(v(Pattern::MpiInitExit), 0.0);
        }
    }
    // Given: as given, whatever the children.
    assert!(built
        .cnodes
        .iter()
        .any(|&(_, c)| built
            .locations
            .iter()
            .any(|&(_, l)| cube.get(id(Pattern::Time), c, l)
                != cube.get(id(Pattern::Execution), c, l))));
}

/// The members of a tar: (name, header bytes, content).
fn members(bytes: &[u8]) -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let mut a = tar::Archive::new(bytes);
    a.entries()
        .unwrap()
        .map(|e| {
            let mut e = e.unwrap();
            let name = e.path().unwrap().to_str().unwrap().to_string();
            let header = e.header().as_bytes().to_vec();
            let mut content = Vec::new();
            e.read_to_end(&mut content).unwrap();
            (name, header, content)
        })
        .collect()
}

#[test]
fn the_archive_holds_the_members_of_the_spec() {
    let built = build();
    let bytes = built.cube.write_to(Vec::new()).unwrap();
    // The same cube is the same bytes.
    assert_eq!(bytes, built.cube.write_to(Vec::new()).unwrap());
    assert_eq!(bytes.len() % 512, 0);
    assert!(bytes[bytes.len() - 1024..].iter().all(|&b| b == 0));

    let m = members(&bytes);
    let metrics = Pattern::ALL
        .iter()
        .filter(|p| p.root() != Pattern::Imbalance)
        .count()
        + 3;
    assert_eq!(m.len(), 1 + 2 * metrics);
    assert_eq!(m[0].0, "anchor.xml");
    let anchor = String::from_utf8(m[0].2.clone()).unwrap();
    assert!(anchor
        .starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"4.4\">\n"));
    assert!(anchor.contains(
        "<attr key=\"mpelog trace\" value=\"hand &lt;made&gt; &amp; &quot;quoted&quot;\"/>"
    ));
    let locations = built.locations.len();
    for (i, pair) in m[1..].chunks(2).enumerate() {
        assert_eq!(pair[0].0, format!("{i}.index"));
        assert_eq!(pair[1].0, format!("{i}.data"));
        let (index, data) = (&pair[0].2, &pair[1].2);
        assert_eq!(&index[..11], b"CUBEX.INDEX");
        assert_eq!(&index[11..18], &[1, 0, 0, 0, 0, 0, 1]);
        let rows = u32::from_le_bytes(index[18..22].try_into().unwrap()) as usize;
        assert!(rows >= 1);
        assert_eq!(index.len(), 22 + 4 * rows);
        let positions: Vec<u32> = index[22..]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "ascending");
        assert!(positions.iter().all(|&p| (p as usize) < built.cnodes.len()));
        assert_eq!(&data[..10], b"CUBEX.DATA");
        assert_eq!(data.len(), 10 + 8 * rows * locations);
    }
    // The ustar headers: fixed mode, owner and time.
    for (name, header, content) in &m {
        assert_eq!(&header[100..108], b"0000644\0", "{name} mode");
        assert_eq!(&header[108..116], b"0000000\0", "{name} uid");
        assert_eq!(&header[136..148], b"00000000000\0", "{name} mtime");
        assert_eq!(
            &header[124..136],
            format!("{:011o}\0", content.len()).as_bytes()
        );
        assert_eq!(header[156], b'0');
        let sum: u32 = header
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                if (148..156).contains(&i) {
                    32
                } else {
                    u32::from(b)
                }
            })
            .sum();
        assert_eq!(&header[148..156], format!("{sum:07o}\0").as_bytes());
        assert!(
            header[265..].iter().all(|&b| b == 0),
            "{name}: nothing after the version"
        );
        assert_eq!(&header[257..265], b"ustar\x0000");
    }
}

#[test]
fn the_example_of_the_spec() {
    // spec/cube.md §10, byte for byte.
    let mut cube = Cube::new();
    let time = cube
        .add_metric(None, Metric::new("time", "Time", "sec"))
        .unwrap();
    let main = cube.add_region(Region::function("main"));
    let recv = cube.add_region(Region::mpi("MPI_Recv"));
    let root = cube.add_cnode(None, main).unwrap();
    let call = cube.add_cnode(Some(root), recv).unwrap();
    let machine = cube.add_system_node(None, "mpelog", "machine").unwrap();
    let node = cube.add_system_node(Some(machine), "node", "node").unwrap();
    let p0 = cube.add_process(node, "rank 0", 0).unwrap();
    let p1 = cube.add_process(node, "rank 1", 1).unwrap();
    let l0 = cube.add_location(p0, "thread 0", 0).unwrap();
    let l1 = cube.add_location(p1, "thread 0", 0).unwrap();
    cube.set(time, call, l0, 0.025).unwrap();
    cube.set(time, root, l1, 1.5).unwrap();
    let bytes = cube.write_to(Vec::new()).unwrap();
    assert_eq!(bytes.len(), 5120);
    let m = members(&bytes);
    let spec = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/cube.md"))
        .unwrap();
    let xml = spec
        .split("```xml\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let anchor = String::from_utf8(m[0].2.clone()).unwrap();
    // Only the version in Creator may differ from the spec's.
    assert_eq!(
        anchor.replace(env!("CARGO_PKG_VERSION"), "0.1.0"),
        xml,
        "spec/cube.md §10's anchor.xml"
    );
    let index: Vec<u8> = [
        &b"CUBEX.INDEX"[..],
        &[1, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
    ]
    .concat();
    assert_eq!(m[1].2, index);
    let mut data = b"CUBEX.DATA".to_vec();
    for v in [0.0f64, 1.5, 0.025, 0.0] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    assert_eq!(m[2].2, data);
    assert_eq!(
        &data[10..],
        &[
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0x9a, 0x99, 0x99, 0x99, 0x99,
            0x99, 0x99, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0
        ]
    );
}

#[test]
fn a_cube_without_call_nodes_or_locations_is_refused() {
    let mut cube = Cube::new();
    let r = cube.add_region(Region::function("main"));
    cube.add_cnode(None, r).unwrap();
    assert!(matches!(
        cube.write_to(Vec::new()),
        Err(Error::Empty {
            cnodes: 1,
            locations: 0
        })
    ));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.cubex");
    assert!(cube.write_file(&path, &[]).is_err());
    assert!(!path.exists(), "nothing is left behind");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
