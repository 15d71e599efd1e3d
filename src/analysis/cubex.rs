//! The analysis as a CUBE4 report ([`to_cube`], `mpelog analyze -o
//! REPORT.cubex`), for the CUBE GUI next to Scalasca's own results.

use super::{Call, Report};
use crate::cube::scalasca::{add_metrics, Pattern as Metric, PatternValues};
use crate::cube::{CnodeId, Cube, LocationId, Region, RegionId};
use rustc_hash::FxHashMap;

/// The name of the artificial root of the call tree (every call path of the
/// trace is under it: CUBE readers such as pycubexr refuse several roots).
pub const ROOT_REGION: &str = "trace";

/// The analysis `r` as a [`Cube`]:
///
/// * the **metric tree** is Scalasca's ([`crate::cube::scalasca`]): each
///   pattern of `r` under its unique name ([`super::Pattern::id`]), with its
///   seconds per call node and timeline (sub-patterns included, as
///   Scalasca's reports show them); Time and Execution are the exclusive
///   time of each call path on each timeline ([`Report::time`]), split into
///   Computation and MPI and MPI's parts (Management ⊃ Init/Finalize,
///   Synchronization ⊃ Collective, Communication ⊃ Point-to-point and
///   Collective) by the innermost MPI call of the path;
/// * the **call tree** is the state nesting: one root call node
///   ([`ROOT_REGION`]) whose descendants are the call paths of `r` (a
///   region per state name, of paradigm `mpi` for MPI calls);
/// * the **system tree** is one machine `mpelog` ⊃ one node `timelines` ⊃ a
///   process per timeline (`timeline N`, rank N) ⊃ one location each.
///
/// # Errors
///
/// [`crate::cube::Error::NotFinite`] for a pattern value that is not finite.
///
/// ```
/// use mpelog::analysis::{to_cube, Analyzer, Options};
/// use mpelog::slices::Piece;
/// use slog2_format::types::{topology, Category, JStr};
/// let state = |index, name: &str| Category { index, name: JStr::new(name), topology: topology::STATE, ..slog2_format::convert::arrow_category() };
/// let cats = [slog2_format::convert::arrow_category(), state(1, "MPI_Barrier"), state(2, "solve")];
/// let mut a = Analyzer::new(&cats, &[], Options::default());
/// // `solve` ⊃ a barrier entered at 1 and 4 ms on two timelines, left at 10 ms.
/// for (line, enter) in [(0, 1e-3), (1, 4e-3)] {
///     a.push_piece(Piece { category: 2, first: (0.0, line), last: (11e-3, line), start: 0.0, end: 11e-3, info: &[] });
///     a.push_piece(Piece { category: 1, first: (enter, line), last: (10e-3, line), start: enter, end: 10e-3, info: &[] });
/// }
/// let cube = to_cube(&a.finish())?;
/// assert!(cube.metric_id("mpi_barrier_wait").is_some());
/// assert_eq!(cube.location_count(), 2);
/// let mut bytes = Vec::new();
/// cube.write_to(&mut bytes)?;
/// # Ok::<(), mpelog::cube::Error>(())
/// ```
pub fn to_cube(r: &Report) -> crate::cube::Result<Cube> {
    let mut cube = Cube::new();
    cube.add_attr("mpelog window from", &r.from.to_string());
    cube.add_attr("mpelog window to", &r.to.to_string());
    let mut regions: FxHashMap<String, RegionId> = FxHashMap::default();
    let root_region = cube.add_region(Region::function(ROOT_REGION));
    let root = cube.add_cnode(None, root_region)?;
    let mut cnodes: FxHashMap<(CnodeId, String), CnodeId> = FxHashMap::default();

    let machine = cube.add_system_node(None, "mpelog", "machine")?;
    let node = cube.add_system_node(Some(machine), "timelines", "node")?;
    let mut locations: FxHashMap<i32, LocationId> = FxHashMap::default();
    // A process per process of the process view, its timelines its threads
    // (a rank and its OpenMP threads), by process then thread; then a
    // process of its own for each timeline the view lacks.
    let mut placed: Vec<((i32, i32), i32)> = Vec::new();
    let mut alone = Vec::new();
    for (i, &t) in r.timelines.iter().enumerate() {
        match r.places.get(i).copied().flatten() {
            Some(place) => placed.push((place, t)),
            None => alone.push(t),
        }
    }
    placed.sort_unstable();
    let mut process: Option<(i32, crate::cube::ProcessId)> = None;
    for ((p, thread), t) in placed {
        let id = match process {
            Some((q, id)) if q == p => id,
            _ => {
                let id = cube.add_process(node, &format!("process {p}"), p)?;
                process = Some((p, id));
                id
            }
        };
        locations.insert(t, cube.add_location(id, &format!("timeline {t}"), thread)?);
    }
    for t in alone {
        let p = cube.add_process(node, &format!("timeline {t}"), t)?;
        locations.insert(t, cube.add_location(p, &format!("timeline {t}"), 0)?);
    }

    let mut values = PatternValues::new();
    let cells = r
        .patterns
        .iter()
        .filter_map(|p| Some((Metric::from_unique_name(p.id)?, &p.cells)))
        .flat_map(|(m, cells)| cells.iter().map(move |c| (vec![m], c)));
    let time = r.time.iter().map(|c| (time_metrics(&c.call_path), c));
    for (metrics, cell) in cells.chain(time) {
        {
            let mut at = root;
            for name in folded(&cell.call_path) {
                at = match cnodes.get(&(at, name.clone())) {
                    Some(&c) => c,
                    None => {
                        let region = *regions.entry(name.clone()).or_insert_with(|| {
                            cube.add_region(if Call::of(name).is_some() {
                                Region::mpi(name)
                            } else {
                                Region::function(name)
                            })
                        });
                        let c = cube.add_cnode(Some(at), region)?;
                        cnodes.insert((at, name.clone()), c);
                        c
                    }
                };
            }
            let location = match locations.get(&cell.timeline) {
                Some(&l) => l,
                None => {
                    // A timeline the report does not list (not expected):
                    // still a place for its seconds.
                    let t = cell.timeline;
                    let p = cube.add_process(node, &format!("timeline {t}"), t)?;
                    let l = cube.add_location(p, &format!("timeline {t}"), 0)?;
                    locations.insert(t, l);
                    l
                }
            };
            for metric in metrics {
                values.add(metric, at, location, cell.seconds);
            }
        }
    }
    if locations.is_empty() {
        // A trace without timelines: CUBE needs a location all the same.
        let p = cube.add_process(node, "no timeline", 0)?;
        cube.add_location(p, "no timeline", 0)?;
    }
    add_metrics(&mut cube, &values)?;
    Ok(cube)
}

/// A call path as the call tree holds it: a collective record (an OTF2
/// conversion's `collective <op>` state) directly inside an MPI call is
/// folded into that call, so the call's node holds its time.
fn folded(path: &[String]) -> &[String] {
    match path {
        [.., call, leaf] if leaf.starts_with("collective ") && Call::of(call).is_some() => {
            &path[..path.len() - 1]
        }
        _ => path,
    }
}

/// The metrics of Scalasca's tree whose time the exclusive time of a call
/// path is part of (spec/analysis.md §9.1): Time and Execution always; MPI
/// and its part by the innermost MPI call of the path, else Computation.
fn time_metrics(path: &[String]) -> Vec<Metric> {
    let mut m = vec![Metric::Time, Metric::Execution];
    let Some(call) = path.iter().rev().find_map(|n| Call::of(n)) else {
        m.push(Metric::Computation);
        return m;
    };
    m.push(Metric::Mpi);
    m.extend_from_slice(match call {
        Call::Barrier => &[Metric::MpiSynchronization, Metric::MpiSyncCollective][..],
        Call::Init | Call::Finalize => &[Metric::MpiManagement, Metric::MpiInitExit][..],
        Call::Other => &[Metric::MpiManagement][..],
        c if c.is_collective() => &[Metric::MpiCommunication, Metric::MpiCollective][..],
        _ => &[Metric::MpiCommunication, Metric::MpiPoint2point][..],
    });
    m
}
