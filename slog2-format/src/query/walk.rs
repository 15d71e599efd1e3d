//! The walk of a window query: down the tree from the root with an explicit
//! stack, reading each node block at most once.

use super::follow::stub_offsets;
use super::*;
use crate::error::{Part, ValueProblem};
use crate::size::{drawable_key, shadow_key};
use crate::window::node_scan::{NodeScan, ScannedStub};
use crate::window::{RawStore, RawWindowBuf};
use std::sync::Arc;

/// What every node of one walk is read with: whether the file is 2.0.6, whether
/// and how it is checked, and the number of children per node.
type Ctx = (bool, bool, Validation, i32);

/// One walk: its window, where it stops, and what its nodes are read with.
#[derive(Clone, Copy)]
struct Walk {
    window: TimeWindow,
    stop: Stop,
    ctx: Ctx,
}

/// One node's step of a walk: the pointer it was read through (`p`), the walk, where the children to follow go,
/// the buffer the parts of a scanned node are read into, and (a raw query)
/// where the drawables go instead of `buf`'s store.
struct Step<'a> {
    p: &'a Pending,
    q: Walk,
    stack: &'a mut Vec<Pending>,
    part: &'a mut Vec<u8>,
    raw: Option<&'a mut RawStore>,
}

impl<R: Read + Seek> Slog2Reader<R> {
    /// [`walk`](Self::walk), leaving an empty answer in `buf` after an error.
    pub(super) fn walk_into(
        &mut self,
        buf: &mut WindowBuf,
        w: TimeWindow,
        stop: Stop,
    ) -> Result<()> {
        let found = self.walk(buf, None, w, stop);
        if found.is_err() {
            buf.clear(w);
        }
        found
    }

    /// [`walk_into`](Self::walk_into) leaving the drawables in the nodes'
    /// bytes (`raw`) instead of `raw.buf`'s store.
    pub(super) fn walk_raw_into(
        &mut self,
        raw: &mut RawWindowBuf,
        w: TimeWindow,
        stop: Stop,
    ) -> Result<()> {
        let found = self.walk(&mut raw.buf, Some(&mut raw.raw), w, stop);
        if found.is_err() {
            raw.buf.clear(w);
            raw.raw.clear();
        }
        found
    }

    /// The walk; with `raw`, the drawables go there (the nodes' bytes kept
    /// in it) instead of into `buf`'s store.
    fn walk(
        &mut self,
        buf: &mut WindowBuf,
        mut raw: Option<&mut RawStore>,
        window: TimeWindow,
        stop: Stop,
    ) -> Result<()> {
        let before = self.counters();
        let v206 = self.version().is_v206();
        let validation = self.validation();
        let checked = validation != Validation::Off;
        let k = i32::from(self.header().num_children_per_node.max(1));
        buf.clear(window);
        buf.seen.clear();
        // A raw query reads every node into its store's bytes, one after
        // the other: what a node shows stays there.
        let mut bytes = match raw.as_deref_mut() {
            Some(r) => {
                r.clear();
                std::mem::take(&mut r.bytes)
            }
            None => std::mem::take(&mut buf.node_bytes),
        };
        let mut part = std::mem::take(&mut self.window_cache().part);
        let cache = self.node_cache().cloned();
        let level = match validation {
            Validation::Off => Checks::Off,
            Validation::Lenient => Checks::Items(self.legend()),
            Validation::Strict => Checks::Strict(self.legend()),
        }
        .level();
        let ctx: Ctx = (v206, checked, validation, k);
        let q = Walk { window, stop, ctx };
        let root = self.header().treeroot;
        let mut stack = vec![Pending {
            ptr: root,
            ptr_at: self.pointer_at(TREEROOT_AT),
            stub: None,
        }];
        let mut found = Ok(());
        while let Some(p) = stack.pop() {
            let ptr_at = p.ptr_at;
            let pointer = match p.stub {
                None => Part::TreeRoot,
                Some((parent, child)) => Part::Stub { parent, child },
            };
            self.check_ptr(p.ptr, pointer, ptr_at)?;
            if !buf.seen.insert(p.ptr.offset) {
                return Err(Error::BadTree {
                    offset: ptr_at,
                    node: p.stub.map(|s| s.0).unwrap_or_default(),
                    problem: TreeProblem::ReadTwice {
                        pointer,
                        block: p.ptr.offset,
                    },
                });
            }
            if let (true, Some((parent, sid))) = (checked, p.stub) {
                // A stub that points at no node block of the TreeDir: report the
                // stub, not the bytes it leads to.
                let cache = self.tree_index();
                if !cache.dir.is_empty() && !cache.blocks.contains(&p.ptr) {
                    return Err(Error::BadTree {
                        offset: ptr_at,
                        node: parent,
                        problem: TreeProblem::NoNodeThere {
                            stub: sid,
                            ptr: p.ptr,
                        },
                    });
                }
            }
            // An upper node scanned by an earlier query: only what this one
            // shows of it is read.
            let used = raw.as_deref().map_or(0, |r| r.used);
            let at = Step {
                p: &p,
                q,
                stack: &mut stack,
                part: &mut part,
                raw: raw.as_deref_mut(),
            };
            if let Some(scan) = cache.as_ref().and_then(|c| c.get_scan(p.ptr.offset, level)) {
                let step = self.walk_scanned(buf, &scan, None, at);
                if let Err(e) = step {
                    found = Err(e);
                    break;
                }
                continue;
            }
            let read = self.read_node_bytes(p.ptr, ptr_at, &mut bytes, used);
            let len = match read {
                Ok(len) => len,
                Err(e) => {
                    found = Err(e);
                    break;
                }
            };
            // An upper node, with a cache: scanned whole and kept, then walked as
            // a later query walks it.
            let scan = match (&cache, p.stub) {
                (Some(_), None) => true,
                (Some(_), Some((_, child))) => child.depth > 0,
                (None, _) => false,
            }
            .then(|| self.scan_whole(&bytes[used..used + len], v206, validation))
            .flatten();
            let step = match scan {
                Some(scan) => {
                    let scan = Arc::new(scan);
                    if let Some(c) = &cache {
                        c.put_scan(p.ptr.offset, level, Arc::clone(&scan));
                    }
                    let whole = Some(&bytes[used..used + len]);
                    self.walk_scanned(buf, &scan, whole, at)
                }
                None => self.walk_node(buf, &bytes[used..used + len], at),
            };
            if let Err(e) = step {
                found = Err(e);
                break;
            }
            // The node's bytes up to its last drawable shown are kept.
            if let Some(r) = raw.as_deref_mut() {
                r.used = r.node_end;
            }
        }
        match raw.as_deref_mut() {
            Some(r) => r.bytes = bytes,
            None => buf.node_bytes = bytes,
        }
        self.window_cache().part = part;
        found?;
        // The header and TreeDir rules last, so that a node that cannot be read is
        // reported as such.
        if checked {
            if let Some(e) = &self.tree_index().file_error {
                return Err(e.to_error());
            }
        }
        // A stable sort: within one node, file order (nestless before nestable).
        // The lists of a node are in start order already, so this merges runs.
        // A picture's summary orders what it needs itself.
        match raw {
            Some(r) => {
                r.finish().ok_or_else(|| too_large(0))?;
            }
            None if stop.dense => buf.store.in_read_order(),
            None => buf.store.sort(),
        }
        let after = self.counters();
        buf.counters = after.since(before);
        Ok(())
    }

    /// One node of [`walk`](Self::walk): its bytes are `bytes`, read as `s.p`
    /// says. Adds its visible drawables (and, in a preview, the visible shadows
    /// of the stubs not followed) to `buf`, and the children to follow to
    /// `s.stack`.
    fn walk_node(&mut self, buf: &mut WindowBuf, bytes: &[u8], mut s: Step) -> Result<()> {
        let p = s.p;
        let Walk { window, ctx, .. } = s.q;
        let (v206, checked, validation, k) = ctx;
        let ptr_at = p.ptr_at;
        let base = p.ptr.offset as u64;
        let too_large = || too_large(base);
        let fits = match s.raw.as_deref() {
            Some(r) => r.fits(bytes.len()),
            None => buf.store.fits(bytes.len()),
        };
        if !fits {
            return Err(too_large());
        }
        let checks = match validation {
            Validation::Off => Checks::Off,
            Validation::Lenient => Checks::Items(self.legend()),
            Validation::Strict => Checks::Strict(self.legend()),
        };
        buf.entries.clear();
        buf.stubs.clear();
        let scanned = window_scan::node(
            bytes,
            v206,
            checks,
            &window,
            &mut buf.entries,
            &mut buf.stubs,
        );
        let (id, count_at, stubs) = match scanned {
            // The fast path: the node parsed and passed the drawable checks.
            Some(sc) => {
                let id = sc.header.id;
                let stubs = !buf.stubs.is_empty();
                let count_at =
                    self.node_found(&sc.header, p, (stubs, sc.count_at), (checked, k))?;
                // Upper nodes' drawables apart, so that the leaves' (read in
                // time order) make one long run for the final sort.
                let to = match s.raw.as_deref_mut() {
                    Some(r) => Keep::InPlace(r),
                    None => Keep::Store,
                };
                push_entries(buf, to, bytes, sc.nestless, id.depth > 0)
                    .map_err(|at| undecodable(base + u64::from(at)))?;
                let stubs: Vec<(NodeHeader, u64, StubShadows)> = buf
                    .stubs
                    .iter()
                    .map(|s| (s.header, base + s.at as u64, StubShadows::Bytes(s.at)))
                    .collect();
                (id, count_at, stubs)
            }
            // Anything else: decoded and checked the ordinary way, which gives
            // the error (or drops what a lenient reader drops).
            None => {
                // What the scan pushed before it gave up is not this node's.
                buf.entries.clear();
                buf.stubs.clear();
                let mut parsed =
                    crate::read::parse_block::<TreeNodeBody>(bytes, p.ptr, Part::Node, (v206,))?;
                self.count_node();
                let id = parsed.value.header.id;
                depth_check(id, p)?;
                // Offsets before a lenient check drops anything.
                let offsets = stub_offsets(&parsed.value, base, v206);
                // The stub count's offset, needed only to report a node without stubs.
                let count_at = match offsets.first() {
                    Some(at) => at - 4,
                    None if checked && id.depth > 0 => {
                        crate::validate::stub_at(&parsed.value, base, v206, 0) - 4
                    }
                    None => 0,
                };
                if checked {
                    self.check_followed(&parsed.value.header, p.ptr, ptr_at, p.stub, k)?;
                    self.validate_node(&mut parsed)?;
                }
                let node = parsed.value;
                for d in node.nestless.iter().chain(&node.nestable) {
                    // The sort key once per drawable (its box decides visibility).
                    let key = drawable_key(d);
                    if window.meets(key.0, key.1) {
                        let key = SortKey::new(key, id);
                        match s.raw.as_deref_mut() {
                            Some(r) => r.push_owned(key, d),
                            None => buf.store.push_drawable(key, d),
                        }
                        .map_err(|_| too_large())?;
                    }
                }
                let stubs: Vec<(NodeHeader, u64, StubShadows)> = node
                    .stubs
                    .into_iter()
                    .zip(offsets)
                    .map(|(s, at)| {
                        let list = s.nestless.into_iter().chain(s.nestable).collect();
                        (s.header, at, StubShadows::Owned(list))
                    })
                    .collect();
                (id, count_at, stubs)
            }
        };
        self.follow_stubs(buf, (id, base, count_at), bytes, stubs, s)
    }

    /// [`walk_node`](Self::walk_node) for an upper node scanned already
    /// ([`NodeScan`]): its bytes are `whole` when just read, else the parts
    /// shown are read into `s.part`. Adds what `walk_node` adds.
    fn walk_scanned(
        &mut self,
        buf: &mut WindowBuf,
        scan: &NodeScan,
        whole: Option<&[u8]>,
        mut s: Step,
    ) -> Result<()> {
        let p = s.p;
        let Walk { window, ctx, .. } = s.q;
        let (_, checked, _, k) = ctx;
        let base = p.ptr.offset as u64;
        let fits = match s.raw.as_deref() {
            Some(r) => r.fits(scan.len),
            None => buf.store.fits(scan.len),
        };
        if !fits {
            return Err(too_large(base));
        }
        let id = scan.header.id;
        let stubs = !scan.stubs.is_empty();
        let count_at = self.node_found(&scan.header, p, (stubs, scan.count_at), (checked, k))?;
        // The drawables shown, and the bytes that hold them.
        buf.entries.clear();
        let (mut nestless, mut from, mut to) = (0, usize::MAX, 0);
        for (i, e) in scan.entries.iter().enumerate() {
            let (a, b) = e.key.times();
            if window.meets(a, b) {
                nestless += usize::from(i < scan.nestless);
                from = from.min(e.at as usize);
                to = to.max(e.end as usize);
                buf.entries.push(*e);
            }
        }
        if !buf.entries.is_empty() {
            let (bytes, shift) = match whole {
                Some(b) => (b, 0),
                None => {
                    let shift = self.read_node_part(p.ptr, p.ptr_at, (from, to), s.part)?;
                    (&s.part[..], shift)
                }
            };
            if shift > 0 {
                for e in &mut buf.entries {
                    *e = e.shifted(shift as u32);
                }
            }
            // Only the drawables' bytes of a node whose bytes are not all
            // kept: copied apart.
            let to = match (s.raw.as_deref_mut(), whole.is_some()) {
                (Some(r), true) => Keep::InPlace(r),
                (Some(r), false) => Keep::Spilled(r),
                (None, _) => Keep::Store,
            };
            push_entries(buf, to, bytes, nestless, id.depth > 0)
                .map_err(|at| undecodable(base + (shift + at as usize) as u64))?;
        }
        let stubs = scan
            .stubs
            .iter()
            .map(|s| {
                let list = match whole {
                    Some(_) => StubShadows::Bytes(s.at),
                    None => StubShadows::Part(*s),
                };
                (s.header, base + s.at as u64, list)
            })
            .collect();
        let bytes = whole.unwrap_or_default();
        self.follow_stubs(buf, (id, base, count_at), bytes, stubs, s)
    }

    /// Counts a node found by the fast path or in the cache (header `h`, read
    /// as `p` says; whether it has stubs and where its stub count is) and
    /// checks it against its stub and (`checked`) the TreeDir. Returns the
    /// stub count's file offset where a check may need it (else 0).
    fn node_found(
        &mut self,
        h: &NodeHeader,
        p: &Pending,
        (stubs, count_at): (bool, usize),
        (checked, k): (bool, i32),
    ) -> Result<u64> {
        self.count_node();
        depth_check(h.id, p)?;
        if checked {
            self.check_followed(h, p.ptr, p.ptr_at, p.stub, k)?;
        }
        Ok(match stubs || (checked && h.id.depth > 0) {
            true => p.ptr.offset as u64 + count_at as u64,
            false => 0,
        })
    }

    /// Scans a whole upper node for the cache ([`NodeScan::of`]), with the
    /// checks of `validation`; `None` for a leaf or where the fast path would
    /// not take the node.
    fn scan_whole(&self, bytes: &[u8], v206: bool, validation: Validation) -> Option<NodeScan> {
        let checks = match validation {
            Validation::Off => Checks::Off,
            Validation::Lenient => Checks::Items(self.legend()),
            Validation::Strict => Checks::Strict(self.legend()),
        };
        NodeScan::of(bytes, v206, checks).filter(|s| s.header.id.depth > 0)
    }

    /// The stubs of node `id` (at file offset `base`; its bytes `bytes`, or
    /// none for a scanned node): the shadows of those the walk stops at go
    /// into `buf`, the children to follow onto `s.stack`.
    fn follow_stubs(
        &mut self,
        buf: &mut WindowBuf,
        (id, base, count_at): (NodeId, u64, u64),
        bytes: &[u8],
        stubs: Vec<(NodeHeader, u64, StubShadows)>,
        s: Step,
    ) -> Result<()> {
        let Step {
            p, q, stack, part, ..
        } = s;
        let Walk { window, stop, ctx } = q;
        let (v206, checked, _, k) = ctx;
        let too_large = || too_large(base);
        let n_stubs = stubs.len();
        let mut unfollowed = Vec::new();
        buf.nodes.push(id);
        let mut children = Vec::new();
        for (h, stub_at, list) in stubs {
            if !window.meets(h.earliest, h.latest) {
                if checked {
                    unfollowed.push((h, stub_at));
                }
                continue;
            }
            if id.depth <= 0 || h.id.depth != id.depth - 1 {
                return Err(Error::BadTree {
                    offset: stub_at + 16,
                    node: id,
                    problem: TreeProblem::NotOneLevelDown {
                        parent: id,
                        stub: h.id,
                    },
                });
            }
            let span = h.latest - h.earliest;
            let narrow = stop.pixel.is_some_and(|px| {
                span < px
                    || (stop.dense
                        && span < px * PICTURE_SPAN
                        && span < window.width() * PICTURE_SHARE
                        && dense_enough(&list, bytes, v206, span / px))
            });
            match narrow || h.id.depth < stop.lowest {
                true => {
                    if checked {
                        unfollowed.push((h, stub_at));
                    }
                    match list {
                        StubShadows::Owned(list) => {
                            for sh in list.iter().filter(|sh| window.shows_shadow(sh)) {
                                let key = SortKey::new(shadow_key(sh), h.id);
                                buf.store.push_shadow(key, sh).map_err(|_| too_large())?;
                            }
                        }
                        StubShadows::Bytes(at) => {
                            window_scan::push_stub_shadows(
                                bytes,
                                at,
                                v206,
                                &window,
                                h.id,
                                &mut buf.store,
                            )
                            .ok_or_else(|| undecodable(base + at as u64))?;
                        }
                        StubShadows::Part(s) => {
                            let shift =
                                self.read_node_part(p.ptr, p.ptr_at, (s.at, s.end), part)?;
                            window_scan::push_stub_shadows(
                                part,
                                s.at - shift,
                                v206,
                                &window,
                                h.id,
                                &mut buf.store,
                            )
                            .ok_or_else(|| undecodable(base + s.at as u64))?;
                        }
                    }
                }
                false => children.push(Pending {
                    ptr: h.ptr,
                    ptr_at: stub_at + 22,
                    stub: Some((id, h.id)),
                }),
            }
        }
        if checked {
            self.check_stubs(id, n_stubs, count_at, &unfollowed, k)?;
        }
        // Reversed, so that children are read in xpos order.
        stack.extend(children.into_iter().rev());
        Ok(())
    }
}

/// Where [`push_entries`] puts a node's drawables: decoded into `buf`'s
/// store, or left in the node's bytes of a raw query (in place where the
/// node lies in its bytes, else copied apart).
enum Keep<'a> {
    Store,
    InPlace(&'a mut RawStore),
    Spilled(&'a mut RawStore),
}

/// The entries in `buf.entries` (the first `nestless` of the nestless list),
/// decoded from the node's `bytes` into the answer (or kept as `to` says);
/// `upper` for a node above the leaves. `Err` with the offset of one that
/// does not decode.
fn push_entries(
    buf: &mut WindowBuf,
    to: Keep,
    bytes: &[u8],
    nestless: usize,
    upper: bool,
) -> Result<(), u32> {
    let (a, b) = buf.entries.split_at(nestless.min(buf.entries.len()));
    let merged = a.is_sorted_by_key(|e| e.key) && b.is_sorted_by_key(|e| e.key);
    let r = match to {
        Keep::Store => return push_decoded(buf, bytes, nestless, upper, merged),
        Keep::InPlace(r) => (r, false),
        Keep::Spilled(r) => (r, true),
    };
    let (r, spill) = r;
    // The same entries in the same order as the store gets them.
    let keep = |e: &window_scan::Entry| -> Result<(), u32> {
        if e.composite && !crate::window::raw::composite_parses(bytes, e.at as usize) {
            return Err(e.at);
        }
        match spill {
            true => r.push_spilled(bytes, e, upper),
            false => r.push_in_place(e, upper),
        }
        .ok_or(e.at)
    };
    if merged {
        window_scan::each_merged(a, b, keep)
    } else {
        buf.entries.iter().try_for_each(keep)
    }
}

/// [`push_entries`] into `buf`'s store; `merged` when both lists are in
/// order.
fn push_decoded(
    buf: &mut WindowBuf,
    bytes: &[u8],
    nestless: usize,
    upper: bool,
    merged: bool,
) -> Result<(), u32> {
    // Upper nodes' drawables apart, so that the leaves' (read in time order)
    // make one long run for the final sort.
    if upper {
        buf.store.swap_upper();
    }
    let (a, b) = buf.entries.split_at(nestless.min(buf.entries.len()));
    let decoded = if merged {
        // Both lists in order: decoded merged (ties nestless first, as the
        // stable sort would put them), one sorted run per node.
        window_scan::push_merged(bytes, a, b, &mut buf.store)
    } else {
        window_scan::push_all(bytes, &buf.entries, &mut buf.store)
    };
    if upper {
        buf.store.swap_upper();
    }
    decoded
}

/// An error unless the node read (ID `id`) has the depth its stub names.
fn depth_check(id: NodeId, p: &Pending) -> Result<()> {
    match p.stub {
        Some((parent, child)) if id.depth != child.depth => Err(Error::BadTree {
            offset: p.ptr.offset as u64 + 16,
            node: id,
            problem: TreeProblem::WrongDepth {
                parent,
                child,
                block: p.ptr.offset,
                found: id,
            },
        }),
        _ => Ok(()),
    }
}

/// A node whose answer would not fit a [`WindowBuf`].
fn too_large(base: u64) -> Error {
    Error::BadValue {
        offset: base,
        problem: ValueProblem::AnswerTooLarge { refused: None },
    }
}

/// Whether a stub's shadows stand for at least [`PICTURE_DENSITY`] real
/// drawables per pixel each, over `pixels` pixels.
fn dense_enough(list: &StubShadows, bytes: &[u8], v206: bool, pixels: f64) -> bool {
    let (objects, shadows) = match list {
        StubShadows::Owned(list) => (
            list.iter().map(|s| s.num_real_objs.max(0)).sum::<i64>(),
            list.len(),
        ),
        StubShadows::Bytes(at) => match window_scan::stub_objects(bytes, *at, v206) {
            Some(n) => n,
            None => return false,
        },
        StubShadows::Part(s) => s.objects,
    };
    shadows > 0 && objects as f64 >= PICTURE_DENSITY * shadows as f64 * pixels.max(1.0)
}

/// Where the shadows of a stub are: in the node's bytes (the stub's offset), or
/// decoded already (both lists, nestless first).
enum StubShadows {
    Bytes(usize),
    Owned(Vec<Shadow>),
    /// A scanned node's stub, whose bytes are still in the file.
    Part(ScannedStub),
}

/// An item that the fast path accepted but could not decode again (never happens:
/// the same bytes are read the same way).
fn undecodable(offset: u64) -> Error {
    Error::BadValue {
        offset,
        problem: ValueProblem::Undecodable,
    }
}
