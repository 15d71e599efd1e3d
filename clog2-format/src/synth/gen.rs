//! The generator's state and the steps every part of the trace is made of (states,
//! messages, collectives, time slots), and its output: records sorted by time into
//! the writer.

use super::*;

pub(super) struct Gen {
    pub(super) rng: Rng,
    pub(super) n: u32,
    /// Size of the lower half of the split (ranks 0..h); the upper half is h..n.
    pub(super) h: u32,
    /// Per-rank clock.
    pub(super) cur: Vec<f64>,
    /// Per-rank bytes logged since the last simulated buffer flush.
    pub(super) local: Vec<u64>,
    pub(super) flush_threshold: u64,
    /// Per-rank scratch times (send times, collective entries).
    pub(super) scratch: Vec<f64>,
    /// The current slot's events.
    pub(super) buf: Vec<Ev>,
    pub(super) comms: Vec<CommEntry>,
    /// Absolute `MPI_Wtime` of time 0 (for UUIDs).
    pub(super) wall0: f64,
    /// Start of the next time slot.
    pub(super) slot: f64,
    pub(super) iter: u64,
    /// Bit i: `MPI_STATES[i]` used.
    pub(super) used: u32,
    pub(super) stats: Stats,
    pub(super) plant: Plant,
}

// Time steps in seconds.
pub(super) const STEP: (f64, f64) = (0.2e-6, 1.5e-6);
pub(super) const CALL: (f64, f64) = (0.5e-6, 4e-6);
pub(super) const COMPUTE: (f64, f64) = (5e-6, 150e-6);

impl Gen {
    pub(super) fn new(opts: &Options) -> Gen {
        let n = opts.ranks;
        let h = n.div_ceil(2);
        let mut rng = Rng(opts.seed ^ 0x6d70_656c_6f67_2e73); // "mpelog.s"
        let wall0 = rng.range(20.0, 2000.0);
        let n_comms = n as usize + 2 + usize::from(h < n);
        let name = FixedBytes::from_str_truncated("synth");
        let comms = (0..n_comms)
            .map(|lid| CommEntry {
                gcomm: Uuid {
                    rand: rng.lrand48(),
                    time: 0.0,
                    name,
                },
                local_id: lid as i32,
                kind: if lid <= 2 {
                    comm_kind::INTRA
                } else {
                    comm_kind::UNKNOWN
                },
            })
            .collect();
        Gen {
            rng,
            n,
            h,
            cur: vec![0.0; n as usize],
            local: vec![0; n as usize],
            flush_threshold: 128 * opts.block_size as u64,
            scratch: Vec::with_capacity(n as usize),
            buf: Vec::new(),
            comms,
            wall0,
            slot: 0.0,
            iter: 0,
            used: 0,
            stats: Stats::default(),
            plant: opts.plant,
        }
    }

    pub(super) fn preamble(&self, opts: &Options) -> PreambleInfo {
        let mut info = PreambleInfo::mpe_default(opts.ranks as i32);
        info.block_size = opts.block_size;
        info.user_state_id_count = Some(USER_STATES.len() as i32);
        info.known_solo_event_id_count = Some(2);
        info.user_solo_event_id_count = Some(USER_SOLO_COUNT);
        info
    }

    // --- communicators ---------------------------------------------------------

    pub(super) fn world(&self) -> Ctx {
        Ctx {
            lid: 0,
            base: 0,
            size: self.n,
        }
    }

    /// The half of the split that world rank `r` belongs to.
    pub(super) fn half_of(&self, r: u32) -> Ctx {
        if r < self.h {
            Ctx {
                lid: 2,
                base: 0,
                size: self.h,
            }
        } else {
            Ctx {
                lid: self.h as i32 + 3,
                base: self.h,
                size: self.n - self.h,
            }
        }
    }

    pub(super) fn halves(&self) -> impl Iterator<Item = Ctx> {
        let lower = self.half_of(0);
        let upper = (self.h < self.n).then(|| self.half_of(self.h));
        std::iter::once(lower).chain(upper)
    }

    /// LID of world rank `r`'s MPI_COMM_SELF.
    pub(super) fn self_lid(&self, r: u32) -> i32 {
        match r {
            0 => 1,
            r if r <= self.h => 2 + r as i32,
            r => 3 + r as i32,
        }
    }

    // --- event helpers -------------------------------------------------------------

    /// Logs `kind` on world rank `r` at its current time, as rank `crank` of `icomm`.
    pub(super) fn ev(&mut self, r: u32, icomm: i32, crank: i32, kind: Kind) {
        let time = self.cur[r as usize];
        self.local[r as usize] += kind.disk_len();
        self.buf.push(Ev {
            time,
            icomm,
            rank: crank,
            kind,
        });
    }

    pub(super) fn step(&mut self, r: u32, (lo, hi): (f64, f64)) {
        self.cur[r as usize] += self.rng.range(lo, hi);
    }

    /// Advances rank `r` by a step of `d`, then logs `kind` in `c`.
    pub(super) fn at(&mut self, r: u32, d: (f64, f64), c: Ctx, kind: Kind) {
        self.step(r, d);
        self.ev(r, c.lid, (r - c.base) as i32, kind);
    }

    pub(super) fn bare(&mut self, r: u32, d: (f64, f64), c: Ctx, etype: i32) {
        self.at(r, d, c, Kind::Bare(etype));
    }

    pub(super) fn cargo(&mut self, r: u32, d: (f64, f64), c: Ctx, etype: i32, i: i32, x: f64) {
        self.stats.cargo_events += 1;
        self.at(r, d, c, Kind::Cargo { etype, i, x });
    }

    /// Start and final event IDs of known state `MPI_STATES[s]`, marking it used.
    pub(super) fn mpi(&mut self, s: u8) -> (i32, i32) {
        self.used |= 1 << s;
        let id = MPI_STATES[s as usize].0;
        (2 * id, 2 * id + 1)
    }

    pub(super) fn user(s: u8) -> (i32, i32) {
        let e = 600 + 2 * s as i32;
        (e, e + 1)
    }

    /// A whole MPI state with nothing inside, shortly after the rank's current time.
    pub(super) fn mpi_state(&mut self, r: u32, c: Ctx, s: u8) {
        let (a, b) = self.mpi(s);
        self.stats.states += 1;
        self.bare(r, CALL, c, a);
        self.bare(r, STEP, c, b);
    }

    pub(super) fn send(&mut self, r: u32, c: Ctx, to: u32, tag: i32, size: i32) {
        let kind = Kind::Msg {
            etype: SEND_ETYPE,
            icomm: c.lid,
            rank: to as i32,
            tag,
            size,
        };
        self.at(r, STEP, c, kind);
        self.stats.messages += 1;
    }

    /// Receives from `from` (rank in `c`) what it sent at `sent`.
    pub(super) fn recv(&mut self, r: u32, c: Ctx, from: u32, tag: i32, size: i32, sent: f64) {
        self.step(r, STEP);
        let arrive = sent + self.rng.range(1.5e-6, 6e-6) + size as f64 * 1e-9;
        let t = &mut self.cur[r as usize];
        if *t < arrive {
            *t = arrive;
        }
        let kind = Kind::Msg {
            etype: RECV_ETYPE,
            icomm: c.lid,
            rank: from as i32,
            tag,
            size,
        };
        self.ev(r, c.lid, (r - c.base) as i32, kind);
    }

    pub(super) fn msg_size(&mut self) -> i32 {
        4 << self.rng.below(15)
    }

    // --- phases ------------------------------------------------------------------------

    /// `MPI_Send` to the right neighbour, then `MPI_Recv` from the left one.
    pub(super) fn ring_send_recv(&mut self, c: Ctx, tag: i32) {
        let size = self.msg_size();
        let (s0, s1) = self.mpi(SEND);
        let (r0, r1) = self.mpi(RECV);
        self.scratch.clear();
        for i in 0..c.size {
            let r = c.base + i;
            self.bare(r, CALL, c, s0);
            self.send(r, c, (i + 1) % c.size, tag, size);
            self.scratch.push(self.cur[r as usize]);
            self.bare(r, STEP, c, s1);
        }
        for i in 0..c.size {
            let r = c.base + i;
            let left = (i + c.size - 1) % c.size;
            self.bare(r, CALL, c, r0);
            self.recv(r, c, left, tag, size, self.scratch[left as usize]);
            self.bare(r, STEP, c, r1);
        }
        self.stats.states += 2 * c.size as u64;
    }

    /// `MPI_Sendrecv` around the ring.
    pub(super) fn ring_sendrecv(&mut self, c: Ctx, tag: i32) {
        let size = self.msg_size();
        let (a, b) = self.mpi(SENDRECV);
        self.scratch.clear();
        for i in 0..c.size {
            let r = c.base + i;
            self.bare(r, CALL, c, a);
            self.send(r, c, (i + 1) % c.size, tag, size);
            self.scratch.push(self.cur[r as usize]);
        }
        for i in 0..c.size {
            let r = c.base + i;
            let left = (i + c.size - 1) % c.size;
            self.recv(r, c, left, tag, size, self.scratch[left as usize]);
            self.bare(r, STEP, c, b);
        }
        self.stats.states += c.size as u64;
    }

    /// `MPI_Irecv` from the left, `MPI_Isend` to the right, `MPI_Waitall`.
    pub(super) fn ring_nonblocking(&mut self, c: Ctx, tag: i32) {
        let size = self.msg_size();
        let (ir0, ir1) = self.mpi(IRECV);
        let (is0, is1) = self.mpi(ISEND);
        let (w0, w1) = self.mpi(WAITALL);
        let (sw0, sw1) = self.mpi(ISEND_WAITED);
        let (rw0, rw1) = self.mpi(IRECV_WAITED);
        self.scratch.clear();
        for i in 0..c.size {
            let r = c.base + i;
            self.bare(r, CALL, c, ir0);
            self.bare(r, STEP, c, ir1);
            self.bare(r, CALL, c, is0);
            self.send(r, c, (i + 1) % c.size, tag, size);
            self.scratch.push(self.cur[r as usize]);
            self.bare(r, STEP, c, is1);
            self.bare(r, CALL, c, w0);
        }
        for i in 0..c.size {
            let r = c.base + i;
            let left = (i + c.size - 1) % c.size;
            self.bare(r, STEP, c, sw0);
            self.bare(r, STEP, c, sw1);
            self.bare(r, STEP, c, rw0);
            self.recv(r, c, left, tag, size, self.scratch[left as usize]);
            self.bare(r, STEP, c, rw1);
            self.bare(r, STEP, c, w1);
        }
        self.stats.states += 5 * c.size as u64;
    }

    /// A collective: everyone enters, nobody leaves before the last one entered.
    pub(super) fn collective(&mut self, c: Ctx, s: u8) {
        let (a, b) = self.mpi(s);
        let mut last = 0.0f64;
        for i in 0..c.size {
            let r = c.base + i;
            self.bare(r, CALL, c, a);
            last = last.max(self.cur[r as usize]);
        }
        let depth = (32 - c.size.leading_zeros()) as f64;
        let exit = last + self.rng.range(2e-6, 10e-6) * depth;
        for i in 0..c.size {
            let r = c.base + i;
            let t = &mut self.cur[r as usize];
            if *t < exit {
                *t = exit;
            }
            self.bare(r, STEP, c, b);
        }
        self.stats.states += c.size as u64;
        self.stats.collectives += 1;
    }

    /// Starts a new time slot: every rank's clock just after the previous slot's end.
    pub(super) fn open_slot(&mut self) {
        for r in 0..self.n as usize {
            self.cur[r] = self.slot + self.rng.range(0.1e-6, 3e-6);
        }
    }

    /// Ends the slot: the next one starts strictly after every time in this one.
    pub(super) fn close_slot(&mut self) {
        let end = self.cur.iter().fold(0.0f64, |a, &b| a.max(b));
        self.slot = end + self.rng.range(1e-6, 20e-6);
    }

    pub(super) fn flush<W: Write + Seek>(
        &mut self,
        w: &mut Clog2Writer<W>,
        sink: &mut Sink,
    ) -> Result<()> {
        self.flush_before(w, sink, f64::INFINITY)
    }

    /// Writes the buffered events earlier than `t`, in time order, and keeps the
    /// others (a later event of any rank is at `t` or after).
    pub(super) fn flush_before<W: Write + Seek>(
        &mut self,
        w: &mut Clog2Writer<W>,
        sink: &mut Sink,
        t: f64,
    ) -> Result<()> {
        // Stable: equal times keep their generation order.
        self.buf.sort_by(|a, b| a.time.total_cmp(&b.time));
        let n = match t {
            t if t == f64::INFINITY => self.buf.len(),
            t => self.buf.partition_point(|e| e.time < t),
        };
        for ev in &self.buf[..n] {
            w.push(&self.record(ev))?;
            if w.records_written() >= sink.next_report {
                (sink.progress)(w.records_written());
                sink.next_report += PROGRESS_INTERVAL;
            }
        }
        if let Some(last) = self.buf[..n].last() {
            self.stats.time_max = self.stats.time_max.max(last.time);
        }
        self.buf.drain(..n);
        Ok(())
    }

    pub(super) fn record(&self, ev: &Ev) -> Record {
        const Z4: FixedBytes<4> = FixedBytes::ZERO;
        let state_def = |(id, name, color, format): Def, start: i32| {
            Body::StateDef(StateDef {
                state_id: id,
                start_etype: start,
                final_etype: start + 1,
                pad: Z4,
                color: FixedBytes::from_str_truncated(color),
                name: FixedBytes::from_str_truncated(name),
                format: FixedBytes::from_str_truncated(format),
            })
        };
        let body = match ev.kind {
            Kind::Bare(etype) => Body::Bare(BareEvt { etype, pad: Z4 }),
            Kind::Cargo { etype, i, x } => Body::Cargo(CargoEvt {
                etype,
                pad: Z4,
                bytes: FixedBytes(cargo_bytes(etype, i, x)),
            }),
            Kind::Msg {
                etype,
                icomm,
                rank,
                tag,
                size,
            } => Body::Msg(MsgEvt {
                etype,
                icomm,
                rank,
                tag,
                size,
                pad: Z4,
            }),
            Kind::Comm {
                etype,
                icomm,
                rank,
                wrank,
                comm,
            } => Body::Comm(CommEvt {
                etype,
                icomm,
                rank,
                wrank,
                gcomm: self
                    .comms
                    .get(comm as usize)
                    .map_or(Uuid::ZERO, |c| c.gcomm),
            }),
            Kind::Shift(timeshift) => Body::TimeShift(TimeShift { timeshift }),
            Kind::ConstDef(k) => {
                let (name, value) = CONSTS[k as usize];
                Body::ConstDef(ConstDef {
                    etype: CONST_ETYPE,
                    value,
                    name: FixedBytes::from_str_truncated(name),
                })
            }
            Kind::MpiStateDef(s) => {
                let d = MPI_STATES[s as usize];
                state_def(d, 2 * d.0)
            }
            Kind::UserStateDef(s) => state_def(USER_STATES[s as usize], Self::user(s).0),
            Kind::EventDef(k) => {
                let (etype, name, color, format) = EVENTS[k as usize];
                Body::EventDef(EventDef {
                    etype,
                    pad: Z4,
                    color: FixedBytes::from_str_truncated(color),
                    name: FixedBytes::from_str_truncated(name),
                    format: FixedBytes::from_str_truncated(format),
                })
            }
        };
        Record {
            time: ev.time,
            icomm: ev.icomm,
            rank: ev.rank,
            thread: 0,
            body,
        }
    }
}
