//! Decoded events (spec/otf2.md §7).

/// Event record types.
pub mod event_type {
    /// BufferFlush.
    pub const BUFFER_FLUSH: u8 = 10;
    /// MeasurementOnOff.
    pub const MEASUREMENT_ON_OFF: u8 = 11;
    /// Enter.
    pub const ENTER: u8 = 12;
    /// Leave.
    pub const LEAVE: u8 = 13;
    /// MpiSend.
    pub const MPI_SEND: u8 = 14;
    /// MpiIsend.
    pub const MPI_ISEND: u8 = 15;
    /// MpiIsendComplete.
    pub const MPI_ISEND_COMPLETE: u8 = 16;
    /// MpiIrecvRequest.
    pub const MPI_IRECV_REQUEST: u8 = 17;
    /// MpiRecv.
    pub const MPI_RECV: u8 = 18;
    /// MpiIrecv.
    pub const MPI_IRECV: u8 = 19;
    /// MpiRequestTest.
    pub const MPI_REQUEST_TEST: u8 = 20;
    /// MpiRequestCancelled.
    pub const MPI_REQUEST_CANCELLED: u8 = 21;
    /// MpiCollectiveBegin.
    pub const MPI_COLLECTIVE_BEGIN: u8 = 22;
    /// MpiCollectiveEnd.
    pub const MPI_COLLECTIVE_END: u8 = 23;
    /// Metric.
    pub const METRIC: u8 = 31;
    /// ProgramBegin.
    pub const PROGRAM_BEGIN: u8 = 83;
    /// ProgramEnd.
    pub const PROGRAM_END: u8 = 84;

    /// The first record type of an event.
    pub const FIRST: u8 = 10;

    /// OTF2's name of the event record type `record_type` (`ThreadTeamBegin`
    /// for 55), for every type OTF2 3.x defines (10 to 84), whether this
    /// crate decodes it or skips it (spec/otf2.md §7.3); `None` for any
    /// other.
    ///
    /// ```
    /// use otf2_format::event::event_type;
    /// assert_eq!(event_type::name(event_type::ENTER), Some("Enter"));
    /// assert_eq!(event_type::name(55), Some("ThreadTeamBegin"));
    /// assert_eq!(event_type::name(9), None);
    /// assert_eq!(event_type::name(85), None);
    /// ```
    pub fn name(record_type: u8) -> Option<&'static str> {
        NAMES
            .get(usize::from(record_type.checked_sub(FIRST)?))
            .copied()
    }

    /// The names of record types 10, 11, … 84, as OTF2's event records are
    /// named (`OTF2_EVENT_*` of libotf2's sources, in CamelCase).
    const NAMES: [&str; 75] = [
        "BufferFlush",
        "MeasurementOnOff",
        "Enter",
        "Leave",
        "MpiSend",
        "MpiIsend",
        "MpiIsendComplete",
        "MpiIrecvRequest",
        "MpiRecv",
        "MpiIrecv",
        "MpiRequestTest",
        "MpiRequestCancelled",
        "MpiCollectiveBegin",
        "MpiCollectiveEnd",
        "OmpFork",
        "OmpJoin",
        "OmpAcquireLock",
        "OmpReleaseLock",
        "OmpTaskCreate",
        "OmpTaskSwitch",
        "OmpTaskComplete",
        "Metric",
        "ParameterString",
        "ParameterInt",
        "ParameterUnsignedInt",
        "RmaWinCreate",
        "RmaWinDestroy",
        "RmaCollectiveBegin",
        "RmaCollectiveEnd",
        "RmaGroupSync",
        "RmaRequestLock",
        "RmaAcquireLock",
        "RmaTryLock",
        "RmaReleaseLock",
        "RmaSync",
        "RmaWaitChange",
        "RmaPut",
        "RmaGet",
        "RmaAtomic",
        "RmaOpCompleteBlocking",
        "RmaOpCompleteNonBlocking",
        "RmaOpTest",
        "RmaOpCompleteRemote",
        "ThreadFork",
        "ThreadJoin",
        "ThreadTeamBegin",
        "ThreadTeamEnd",
        "ThreadAcquireLock",
        "ThreadReleaseLock",
        "ThreadTaskCreate",
        "ThreadTaskSwitch",
        "ThreadTaskComplete",
        "ThreadCreate",
        "ThreadBegin",
        "ThreadWait",
        "ThreadEnd",
        "CallingContextEnter",
        "CallingContextLeave",
        "CallingContextSample",
        "IoCreateHandle",
        "IoDestroyHandle",
        "IoDuplicateHandle",
        "IoSeek",
        "IoChangeStatusFlags",
        "IoDeleteFile",
        "IoOperationBegin",
        "IoOperationTest",
        "IoOperationIssued",
        "IoOperationComplete",
        "IoOperationCancelled",
        "IoAcquireLock",
        "IoReleaseLock",
        "IoTryLock",
        "ProgramBegin",
        "ProgramEnd",
    ];
}

/// Collective operation names by OTF2 code.
pub const COLLECTIVE_OPS: [&str; 23] = [
    "Barrier",
    "Bcast",
    "Gather",
    "Gatherv",
    "Scatter",
    "Scatterv",
    "Allgather",
    "Allgatherv",
    "Alltoall",
    "Alltoallv",
    "Alltoallw",
    "Allreduce",
    "Reduce",
    "Reduce_scatter",
    "Scan",
    "Exscan",
    "Reduce_scatter_block",
    "Create_handle",
    "Destroy_handle",
    "Allocate",
    "Deallocate",
    "Create_handle_and_allocate",
    "Destroy_handle_and_deallocate",
];

/// OTF2 type identifiers of attribute and metric values.
pub mod value_type {
    /// uint8.
    pub const UINT8: u8 = 1;
    /// uint16.
    pub const UINT16: u8 = 2;
    /// uint32.
    pub const UINT32: u8 = 3;
    /// uint64.
    pub const UINT64: u8 = 4;
    /// int8.
    pub const INT8: u8 = 5;
    /// int16.
    pub const INT16: u8 = 6;
    /// int32.
    pub const INT32: u8 = 7;
    /// int64.
    pub const INT64: u8 = 8;
    /// float.
    pub const FLOAT: u8 = 9;
    /// double.
    pub const DOUBLE: u8 = 10;
    /// String reference.
    pub const STRING: u8 = 11;
    /// Location reference (the only 64-bit reference).
    pub const LOCATION: u8 = 13;
}

/// A typed value of an attribute or a metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// Unsigned integers.
    Unsigned(u64),
    /// Signed integers.
    Signed(i64),
    /// Floating point (a float widened exactly).
    Float(f64),
    /// A definition reference (global, after mapping).
    Ref(u64),
}

/// One entry of an event's attribute list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attribute {
    /// The Attribute definition.
    pub attribute: u32,
    /// OTF2 type of the value.
    pub type_id: u8,
    /// The value.
    pub value: Value,
}

/// What happened.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum EventKind {
    /// A region was entered.
    Enter {
        /// The region.
        region: u32,
    },
    /// A region was left.
    Leave {
        /// The region.
        region: u32,
    },
    /// A blocking send started.
    MpiSend {
        /// Receiver's rank in `comm`.
        receiver: u32,
        /// Communicator.
        comm: u32,
        /// Tag.
        tag: u32,
        /// Bytes.
        length: u64,
    },
    /// A non-blocking send started.
    MpiIsend {
        /// Receiver's rank in `comm`.
        receiver: u32,
        /// Communicator.
        comm: u32,
        /// Tag.
        tag: u32,
        /// Bytes.
        length: u64,
        /// Request.
        request: u64,
    },
    /// A non-blocking send completed.
    MpiIsendComplete {
        /// Request.
        request: u64,
    },
    /// A non-blocking receive was posted.
    MpiIrecvRequest {
        /// Request.
        request: u64,
    },
    /// A blocking receive completed.
    MpiRecv {
        /// Sender's rank in `comm`.
        sender: u32,
        /// Communicator.
        comm: u32,
        /// Tag.
        tag: u32,
        /// Bytes.
        length: u64,
    },
    /// A non-blocking receive completed.
    MpiIrecv {
        /// Sender's rank in `comm`.
        sender: u32,
        /// Communicator.
        comm: u32,
        /// Tag.
        tag: u32,
        /// Bytes.
        length: u64,
        /// Request.
        request: u64,
    },
    /// A request was tested without completing.
    MpiRequestTest {
        /// Request.
        request: u64,
    },
    /// A request was cancelled.
    MpiRequestCancelled {
        /// Request.
        request: u64,
    },
    /// A collective operation began.
    MpiCollectiveBegin,
    /// A collective operation ended.
    MpiCollectiveEnd {
        /// Operation (0 barrier, 1 bcast, …, 11 allreduce, 12 reduce, …).
        op: u8,
        /// Communicator.
        comm: u32,
        /// Root rank, or `u32::MAX`.
        root: u32,
        /// Bytes sent.
        sent: u64,
        /// Bytes received.
        received: u64,
    },
    /// Metric values.
    Metric {
        /// The metric class or instance.
        metric: u32,
        /// One (type, value) per member.
        values: Vec<(u8, Value)>,
    },
    /// The program started.
    ProgramBegin {
        /// Program name (string reference).
        name: u32,
        /// Arguments (string references).
        arguments: Vec<u32>,
    },
    /// The program ended.
    ProgramEnd {
        /// Exit status.
        exit_status: i64,
    },
    /// Any other record type: skipped, kept by type so it can be counted.
    Other {
        /// The record type.
        record_type: u8,
    },
}

impl EventKind {
    /// The kind's name as this enum spells it (`MpiIsendComplete`); `Other`
    /// for a record type this crate skips. [`crate::dump::record_name`]
    /// writes it as `otf2-print` does.
    ///
    /// ```
    /// use otf2_format::EventKind;
    /// assert_eq!(EventKind::MpiCollectiveBegin.name(), "MpiCollectiveBegin");
    /// assert_eq!(EventKind::Enter { region: 3 }.name(), "Enter");
    /// ```
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::Enter { .. } => "Enter",
            EventKind::Leave { .. } => "Leave",
            EventKind::MpiSend { .. } => "MpiSend",
            EventKind::MpiIsend { .. } => "MpiIsend",
            EventKind::MpiIsendComplete { .. } => "MpiIsendComplete",
            EventKind::MpiIrecvRequest { .. } => "MpiIrecvRequest",
            EventKind::MpiRecv { .. } => "MpiRecv",
            EventKind::MpiIrecv { .. } => "MpiIrecv",
            EventKind::MpiRequestTest { .. } => "MpiRequestTest",
            EventKind::MpiRequestCancelled { .. } => "MpiRequestCancelled",
            EventKind::MpiCollectiveBegin => "MpiCollectiveBegin",
            EventKind::MpiCollectiveEnd { .. } => "MpiCollectiveEnd",
            EventKind::Metric { .. } => "Metric",
            EventKind::ProgramBegin { .. } => "ProgramBegin",
            EventKind::ProgramEnd { .. } => "ProgramEnd",
            EventKind::Other { .. } => "Other",
        }
    }

    /// What tools call the kind: its [`name`](Self::name), or for a record
    /// type this crate skips, OTF2's name of it (`ThreadTeamBegin`;
    /// `type 85` for a type OTF2 does not define).
    ///
    /// ```
    /// use otf2_format::EventKind;
    /// assert_eq!(EventKind::Enter { region: 3 }.label(), "Enter");
    /// assert_eq!(EventKind::Other { record_type: 46 }.label(), "RmaPut");
    /// assert_eq!(EventKind::Other { record_type: 200 }.label(), "type 200");
    /// ```
    pub fn label(&self) -> std::borrow::Cow<'static, str> {
        match self {
            EventKind::Other { record_type } => match event_type::name(*record_type) {
                Some(n) => n.into(),
                None => format!("type {record_type}").into(),
            },
            k => k.name().into(),
        }
    }
}

/// One event of one location.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The location (global id).
    pub location: u64,
    /// Timestamp in ticks (clock-corrected).
    pub time: u64,
    /// What happened.
    pub kind: EventKind,
    /// Its attribute list.
    pub attributes: Vec<Attribute>,
}
