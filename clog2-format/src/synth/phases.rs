//! The three parts of the trace: the header (start of every rank), one iteration of
//! the solver loop, and the footer (frees, definitions MPE writes at the end).

use super::*;

impl Gen {
    // --- the three parts of the trace ----------------------------------------------------

    pub(super) fn header(&mut self) {
        let world = self.world();
        for r in 0..self.n {
            let ru = r as usize;
            // Processes start (and their clocks are aligned) a little apart.
            self.cur[ru] = if r == 0 {
                1e-6
            } else {
                self.rng.range(20e-6, 8e-3)
            };
            let shift = if r == 0 { -0.0 } else { -(self.cur[ru] - 1e-6) };
            self.ev(r, 0, r as i32, Kind::Shift(shift));
            self.stats.timeshifts += 1;
            self.step(r, STEP);
            if r == 0 {
                self.comms[0].gcomm.time = self.wall0 + self.cur[0];
            }
            self.ev(
                r,
                0,
                r as i32,
                Kind::Comm {
                    etype: comm_etype::WORLD_CREATE,
                    icomm: 0,
                    rank: r as i32,
                    wrank: r as i32,
                    comm: 0,
                },
            );
            self.step(r, STEP);
            let sl = self.self_lid(r);
            self.comms[sl as usize].gcomm.time = self.wall0 + self.cur[ru];
            self.ev(
                r,
                0,
                r as i32,
                Kind::Comm {
                    etype: comm_etype::SELF_CREATE,
                    icomm: sl,
                    rank: 0,
                    wrank: r as i32,
                    comm: sl as u32,
                },
            );
            self.stats.comm_events += 2;
            if r == 0 {
                for k in 0..CONSTS.len() as u8 {
                    self.at(r, CALL, world, Kind::ConstDef(k));
                }
                self.stats.definitions += CONSTS.len() as u64;
            }
            self.bare(r, (20e-6, 40e-6), world, COMM_INIT);
            self.mpi_state(r, world, COMM_RANK);
            self.mpi_state(r, world, COMM_SIZE);
            if r == 0 {
                for k in 0..USER_STATES.len() as u8 {
                    self.at(r, STEP, world, Kind::UserStateDef(k));
                }
                for k in 2..EVENTS.len() as u8 {
                    self.at(r, STEP, world, Kind::EventDef(k));
                }
                self.stats.definitions += (USER_STATES.len() + EVENTS.len() - 2) as u64;
            }
        }
        // MPI_Comm_split(MPI_COMM_WORLD, rank < h, ...).
        let (a, b) = self.mpi(COMM_SPLIT);
        let mut last = 0.0f64;
        for r in 0..self.n {
            self.bare(r, CALL, world, a);
            last = last.max(self.cur[r as usize]);
        }
        let created = last + self.rng.range(5e-6, 40e-6);
        for r in 0..self.n {
            let half = self.half_of(r);
            let ru = r as usize;
            self.cur[ru] = self.cur[ru].max(created) + self.rng.range(0.1e-6, 5e-6);
            if r == half.base {
                self.comms[half.lid as usize].gcomm.time = self.wall0 + self.cur[ru];
            }
            let kind = Kind::Comm {
                etype: comm_etype::INTRA_CREATE,
                icomm: half.lid,
                rank: (r - half.base) as i32,
                wrank: r as i32,
                comm: half.lid as u32,
            };
            self.ev(r, 0, r as i32, kind);
            self.bare(r, STEP, half, COMM_INIT);
            self.bare(r, STEP, world, b);
        }
        self.stats.comm_events += self.n as u64;
        self.stats.states += self.n as u64 * 3;
        self.close_slot();
    }

    /// Records the footer will have (an upper bound, within a few records).
    pub(super) fn footer_estimate(&self) -> u64 {
        5 * self.n as u64 + MPI_STATES.len() as u64 + 2
    }

    pub(super) fn iteration(&mut self) {
        if self.plant.any() {
            return self.planted();
        }
        let k = self.iter;
        self.iter += 1;
        self.stats.iterations += 1;
        self.open_slot();
        let world = self.world();
        let (o0, o1) = Self::user(OUTER);
        let (m0, m1) = Self::user(MIDDLE);
        let (i0, i1) = Self::user(INNER);
        let (f0, f1) = Self::user(FILEIO);
        let tag = (k % 1000) as i32;
        let phase = self.rng.below(3);
        for r in 0..self.n {
            if self.local[r as usize] >= self.flush_threshold {
                // CLOG_Buffer_write2disk: the local buffer is written out.
                self.local[r as usize] = 0;
                let (a, b) = self.mpi(WRITE2DISK);
                self.bare(r, STEP, world, a);
                let secs = self.flush_threshold as f64 / self.rng.range(2e8, 1e9);
                self.bare(r, (secs, secs * 1.1), world, b);
                self.stats.states += 1;
            }
            if self.rng.chance(1.0 / 256.0) {
                let s = -self.rng.range(0.0, 3e-6);
                self.at(r, STEP, world, Kind::Shift(s));
                self.stats.timeshifts += 1;
            }
            self.bare(r, STEP, world, o0);
            self.bare(r, CALL, world, m0);
        }
        self.stats.states += 2 * self.n as u64;
        match phase {
            0 => self.ring_send_recv(world, tag),
            1 => self.ring_sendrecv(world, tag),
            _ => self.ring_nonblocking(world, tag),
        }
        for r in 0..self.n {
            self.bare(r, STEP, world, i0);
            self.step(r, COMPUTE);
            for _ in 0..self.rng.below(3) {
                self.stats.solo_events += 1;
                match self.rng.below(3) {
                    0 => {
                        let w = self.rng.below(WORDS.len() as u32) as f64;
                        self.cargo(r, COMPUTE, world, MARKER, r as i32, w);
                    }
                    1 => self.bare(r, COMPUTE, world, TICK),
                    _ => {
                        let i = self.rng.next() as i32;
                        let x = self.rng.range(-1.0, 1.0);
                        self.cargo(r, COMPUTE, world, SAMPLE, i, x);
                    }
                }
            }
            if self.rng.chance(1.0 / 16.0) {
                self.mpi_state(r, world, COMM_RANK);
            }
            self.bare(r, COMPUTE, world, i1);
            let sum = self.rng.range(0.0, 1e3);
            self.cargo(r, STEP, world, m1, phase as i32, sum);
            if self.rng.chance(0.25) {
                self.bare(r, CALL, world, f0);
                let blocks = 1 + self.rng.below(1024) as i32;
                self.step(r, (blocks as f64 * 4e-6, blocks as f64 * 8e-6));
                self.cargo(r, STEP, world, f1, blocks, 0.0);
                self.stats.states += 1;
            }
        }
        self.stats.states += self.n as u64;
        let coll = COLLECTIVES[self.rng.below(COLLECTIVES.len() as u32) as usize];
        self.collective(world, coll);
        if k % 3 == 2 {
            let halves: [Option<Ctx>; 2] = {
                let mut it = self.halves();
                [it.next(), it.next()]
            };
            for c in halves.into_iter().flatten() {
                self.ring_send_recv(c, 1000 + tag);
                self.collective(c, ALLREDUCE);
            }
        }
        let val = (1.0 + self.rng.unit()) / (k as f64 + 1.0);
        for r in 0..self.n {
            self.cargo(r, STEP, world, o1, k.min(i32::MAX as u64) as i32, val);
        }
        self.close_slot();
    }

    /// One iteration with waits of known size ([`Plant`]).
    pub(super) fn planted(&mut self) {
        self.iter += 1;
        self.stats.iterations += 1;
        self.open_slot();
        let n = self.n;
        let ns = |v: u64| v as f64 * 1e-9;
        let (late, skew, imbalance) = (
            ns(self.plant.late_sender_ns),
            ns(self.plant.barrier_skew_ns),
            ns(self.plant.imbalance_ns),
        );
        let align = |g: &mut Gen| {
            let t = g.cur.iter().fold(0.0f64, |a, &b| a.max(b)) + 1e-6;
            for c in g.cur.iter_mut() {
                *c = t;
            }
            t
        };
        // 1. Inner on every rank, the last one longer.
        let t0 = align(self);
        let base = self.rng.range(10e-6, 50e-6);
        let (i0, i1) = Self::user(INNER);
        for r in 0..n {
            self.ev(r, 0, r as i32, Kind::Bare(i0));
            self.cur[r as usize] = t0 + base + if r == n - 1 { imbalance } else { 0.0 };
            self.ev(r, 0, r as i32, Kind::Bare(i1));
        }
        self.stats.states += n as u64;
        // 2. Rank 0's send is late for rank 1's receive.
        if n >= 2 {
            let t1 = align(self);
            let (s0, s1) = self.mpi(SEND);
            let (r0, r1) = self.mpi(RECV);
            self.ev(1, 0, 1, Kind::Bare(r0));
            self.cur[0] = t1 + late;
            self.ev(0, 0, 0, Kind::Bare(s0));
            self.cur[0] += self.rng.range(0.2e-6, 1e-6);
            let sent = self.cur[0];
            let msg = |etype, rank| Kind::Msg {
                etype,
                icomm: 0,
                rank,
                tag: 2000,
                size: 64,
            };
            self.ev(0, 0, 0, msg(SEND_ETYPE, 1));
            self.cur[0] += self.rng.range(0.2e-6, 1e-6);
            self.ev(0, 0, 0, Kind::Bare(s1));
            self.cur[1] = sent + self.rng.range(1.5e-6, 6e-6);
            self.ev(1, 0, 1, msg(RECV_ETYPE, 0));
            self.cur[1] += self.rng.range(0.2e-6, 1e-6);
            self.ev(1, 0, 1, Kind::Bare(r1));
            self.stats.states += 2;
            self.stats.messages += 1;
        }
        // 3. A barrier entered one skew after another.
        let t2 = align(self);
        let (b0, b1) = self.mpi(BARRIER);
        for r in 0..n {
            self.cur[r as usize] = t2 + r as f64 * skew;
            self.ev(r, 0, r as i32, Kind::Bare(b0));
        }
        let exit = t2 + (n - 1) as f64 * skew + self.rng.range(2e-6, 10e-6);
        for r in 0..n {
            self.cur[r as usize] = exit;
            self.ev(r, 0, r as i32, Kind::Bare(b1));
        }
        self.stats.states += n as u64;
        self.stats.collectives += 1;
        self.close_slot();
    }

    pub(super) fn footer(&mut self) {
        self.open_slot();
        let world = self.world();
        let (a, b) = self.mpi(COMM_FREE);
        for r in 0..self.n {
            let half = self.half_of(r);
            self.bare(r, CALL, half, a);
            let kind = Kind::Comm {
                etype: comm_etype::FREE,
                icomm: LID_NULL,
                rank: -1,
                wrank: -1,
                comm: NO_COMM,
            };
            self.at(r, STEP, half, kind);
            self.bare(r, STEP, half, COMM_FINALIZE);
            self.bare(r, STEP, half, b);
            self.bare(r, (2e-6, 30e-6), world, COMM_FINALIZE);
        }
        self.stats.comm_events += self.n as u64;
        self.stats.states += self.n as u64;
        // Rank 0 describes the known states and events at MPI_Finalize.
        let end = self.cur.iter().fold(0.0f64, |a, &b| a.max(b));
        self.cur[0] = end + self.rng.range(50e-6, 4e-3);
        let used = self.used | 1 << WRITE2DISK;
        for s in 0..MPI_STATES.len() as u8 {
            if s != WRITE2DISK && used & (1 << s) != 0 {
                self.at(0, (0.1e-6, 1e-6), world, Kind::MpiStateDef(s));
                self.stats.definitions += 1;
            }
        }
        self.at(0, (0.1e-6, 1e-6), world, Kind::EventDef(0));
        self.at(0, (0.1e-6, 1e-6), world, Kind::EventDef(1));
        self.at(0, (5e-6, 25e-6), world, Kind::MpiStateDef(WRITE2DISK));
        self.stats.definitions += 3;
        self.close_slot();
    }

    // --- output ---------------------------------------------------------------------------------
}
