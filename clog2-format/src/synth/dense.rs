//! The dense iteration ([`Options::dense`]): every rank in `MPI_Sendrecv` with its
//! ring neighbours almost all the time.

use super::*;

/// Time between one `MPI_Sendrecv` and the next on a rank, in seconds.
const GAP: (f64, f64) = (10e-9, 60e-9);

impl Gen {
    /// One iteration of the dense trace: on every rank, an `MPI_Sendrecv` with the
    /// right neighbour, then one with the left (the same neighbour for 2 ranks,
    /// itself for 1).
    pub(super) fn dense_iteration(&mut self) {
        let k = self.iter;
        self.iter += 1;
        self.stats.iterations += 1;
        let world = self.world();
        let tag = (k % 1000) as i32;
        let left = self.n - 1;
        self.dense_sendrecv(world, 1 % self.n.max(1), tag);
        self.dense_sendrecv(world, left, tag);
    }

    /// `MPI_Sendrecv` on every rank of `c`: rank `i` sends to `i + shift` and
    /// receives from `i - shift` (around the ring), each call starting a few tens of
    /// nanoseconds after the rank's last event.
    fn dense_sendrecv(&mut self, c: Ctx, shift: u32, tag: i32) {
        let size = self.msg_size();
        let (a, b) = self.mpi(SENDRECV);
        self.scratch.clear();
        for i in 0..c.size {
            let r = c.base + i;
            self.bare(r, GAP, c, a);
            self.send(r, c, (i + shift) % c.size, tag, size);
            self.scratch.push(self.cur[r as usize]);
        }
        for i in 0..c.size {
            let r = c.base + i;
            let from = (i + c.size - shift % c.size) % c.size;
            self.recv(r, c, from, tag, size, self.scratch[from as usize]);
            self.bare(r, STEP, c, b);
        }
        self.stats.states += c.size as u64;
    }
}
