//! Which states are MPI calls, and what kind of call each is (spec/analysis.md
//! §2): a state category is an MPI call when its name is the name of an MPI
//! function, as MPE's wrappers name their states and as an OTF2 conversion
//! names the states of regions of paradigm MPI.

/// The kind of MPI call a state category is, as the patterns need it.
///
/// ```
/// use mpelog::analysis::Call;
/// assert_eq!(Call::of("MPI_Recv"), Some(Call::Recv));
/// assert_eq!(Call::of("MPI_Waitall"), Some(Call::WaitMany));
/// assert_eq!(Call::of("MPI_Comm_rank"), Some(Call::Other));
/// assert_eq!(Call::of("Compute"), None);
/// assert!(Call::Barrier.is_collective() && !Call::Recv.is_collective());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Call {
    /// `MPI_Recv`: a blocking receive posted at its enter.
    Recv,
    /// `MPI_Sendrecv`, `MPI_Sendrecv_replace`: a blocking receive (and a send).
    SendRecv,
    /// `MPI_Wait`, `MPI_Waitany`: completes one request.
    WaitOne,
    /// `MPI_Waitall`, `MPI_Waitsome`: completes several requests.
    WaitMany,
    /// `MPI_Test`, `MPI_Testall`, `MPI_Testany`, `MPI_Testsome`: never waits.
    Test,
    /// `MPI_Send`, `MPI_Ssend`: a blocking standard or synchronous send.
    BlockingSend,
    /// Any other send (`MPI_Bsend`, `MPI_Rsend`, `MPI_Isend`, ...).
    OtherSend,
    /// `MPI_Irecv`: posts a receive.
    Irecv,
    /// `MPI_Barrier`.
    Barrier,
    /// `MPI_Allreduce`, `MPI_Allgather(v)`, `MPI_Alltoall`,
    /// `MPI_Reduce_scatter(_block)`: n-to-n.
    NxN,
    /// `MPI_Bcast`, `MPI_Scatter(v)`: one-to-n from the root.
    OneToN,
    /// `MPI_Reduce`, `MPI_Gather(v)`: n-to-one into the root.
    NToOne,
    /// `MPI_Scan`, `MPI_Exscan`.
    Scan,
    /// `MPI_Alltoallv`, `MPI_Alltoallw`: matched, no pattern (as Scalasca).
    OtherCollective,
    /// `MPI_Init`, `MPI_Init_thread`.
    Init,
    /// `MPI_Finalize`.
    Finalize,
    /// Any other MPI function (`MPI_` followed by a capital letter).
    Other,
}

impl Call {
    /// The kind of call a state named `name` is (`None`: not an MPI call).
    ///
    /// ```
    /// use mpelog::analysis::Call;
    /// assert_eq!(Call::of("MPI_Bcast"), Some(Call::OneToN));
    /// assert_eq!(Call::of("MPI_Alltoallv"), Some(Call::OtherCollective));
    /// assert_eq!(Call::of("MPI_send"), None); // MPI's names only
    /// ```
    pub fn of(name: &str) -> Option<Call> {
        let rest = name.strip_prefix("MPI_")?;
        if !rest.starts_with(|c: char| c.is_ascii_uppercase()) {
            return None;
        }
        Some(match rest {
            "Recv" => Call::Recv,
            "Sendrecv" | "Sendrecv_replace" => Call::SendRecv,
            "Wait" | "Waitany" => Call::WaitOne,
            "Waitall" | "Waitsome" => Call::WaitMany,
            "Test" | "Testall" | "Testany" | "Testsome" => Call::Test,
            "Send" | "Ssend" => Call::BlockingSend,
            "Bsend" | "Rsend" | "Isend" | "Issend" | "Ibsend" | "Irsend" => Call::OtherSend,
            "Irecv" => Call::Irecv,
            "Barrier" => Call::Barrier,
            "Allreduce"
            | "Allgather"
            | "Allgatherv"
            | "Alltoall"
            | "Reduce_scatter"
            | "Reduce_scatter_block" => Call::NxN,
            "Bcast" | "Scatter" | "Scatterv" => Call::OneToN,
            "Reduce" | "Gather" | "Gatherv" => Call::NToOne,
            "Scan" | "Exscan" => Call::Scan,
            "Alltoallv" | "Alltoallw" => Call::OtherCollective,
            "Init" | "Init_thread" => Call::Init,
            "Finalize" => Call::Finalize,
            _ => Call::Other,
        })
    }

    /// A blocking collective matched across the ranks of its communicator
    /// (`MPI_Init` and `MPI_Finalize` included).
    ///
    /// ```
    /// use mpelog::analysis::Call;
    /// assert!(Call::Finalize.is_collective() && Call::Scan.is_collective());
    /// assert!(!Call::WaitMany.is_collective());
    /// ```
    pub fn is_collective(self) -> bool {
        matches!(
            self,
            Call::Barrier
                | Call::NxN
                | Call::OneToN
                | Call::NToOne
                | Call::Scan
                | Call::OtherCollective
                | Call::Init
                | Call::Finalize
        )
    }

    /// A call that blocks until a message it receives has arrived (Late
    /// Sender is measured in it): `MPI_Recv`, `MPI_Sendrecv(_replace)`,
    /// `MPI_Wait*`.
    ///
    /// ```
    /// use mpelog::analysis::Call;
    /// assert!(Call::WaitOne.blocks_for_receive());
    /// assert!(!Call::Test.blocks_for_receive() && !Call::Irecv.blocks_for_receive());
    /// ```
    pub fn blocks_for_receive(self) -> bool {
        matches!(
            self,
            Call::Recv | Call::SendRecv | Call::WaitOne | Call::WaitMany
        )
    }

    /// A receive whose post time is its own enter (`MPI_Recv`,
    /// `MPI_Sendrecv(_replace)`): the receives Late Receiver is measured
    /// against (MPE logs no request IDs, so an `MPI_Irecv`'s post time is
    /// unknown).
    ///
    /// ```
    /// use mpelog::analysis::Call;
    /// assert!(Call::Recv.posts_at_enter() && !Call::WaitOne.posts_at_enter());
    /// ```
    pub fn posts_at_enter(self) -> bool {
        matches!(self, Call::Recv | Call::SendRecv)
    }

    /// Its collective class: the communicator's call order for ordinary
    /// collectives, a separate order for `MPI_Init`/`MPI_Finalize`.
    pub(crate) fn order_class(self) -> u8 {
        u8::from(matches!(self, Call::Init | Call::Finalize))
    }
}
