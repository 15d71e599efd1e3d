//! `mpelog`: inspect, convert, generate and check MPE trace files (CLOG2, old
//! CLOG, SLOG-2, ALOG and SLOG-1).
//!
//! Exit status: 0 success, 1 bad input or a failed check, 2 wrong usage; 130, 143
//! or 129 when interrupted by SIGINT, SIGTERM or SIGHUP.

mod cmd;
mod detect;
mod error;
mod progress;
use mpelog::{input, output, signals};
mod size;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Inspect, convert and generate MPE trace files (the formats of MPICH's MPE logging
/// library and the Jumpshot viewers).
///
/// The format of every input is detected from its bytes, not its name.
///
/// Exit status: 0 on success, 1 when an input is bad (the message names the byte
/// offset), 2 on wrong usage, 130/143/129 when interrupted by SIGINT/SIGTERM/SIGHUP.
///
/// Files: an input or output named `-` is standard input or output. Outputs never
/// overwrite an input (the same file under any name, hard link or symlink is
/// refused), are built in a temporary file `.NAME.mpelog-PID-XXXXXX.tmp` beside
/// them and renamed into place when complete, so a failed or interrupted run
/// leaves the old file (or nothing) behind; a symlink output stays a link and its
/// target is replaced; devices, FIFOs and sockets are written directly, never
/// replaced. Temporary files of a killed run are removed by the next run that
/// writes the same output.
#[derive(Debug, Parser)]
#[command(name = "mpelog", version, about, long_about, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

const EXAMPLES: &str = "\
Examples:
  mpelog synth -o demo.clog2 --ranks 8 --events 1000000   generate a realistic CLOG2 trace
  mpelog info demo.clog2                                  format, version, counts, time range
  mpelog info --json demo.clog2                           the same as one JSON object
  mpelog print demo.clog2 | less                          every record, one per line
  mpelog convert old.clog2 -o copy.clog2                  rewrite through the codec (byte-identical)
  mpelog convert v205.slog2 -o v206.slog2                 update SLOG 2.0.5 to 2.0.6
  mpelog convert demo.clog2 -o demo.slog2                 build the SLOG-2 tree (what clog2TOslog2 does)
  mpelog convert - --format slog2 -o - < a.clog2 > a.slog2  the same through standard input and output
  mpelog convert demo.clog2 -o small.slog2 --compress deflate   the same with compressed tree nodes
  mpelog window demo.slog2 --from 0.5 --to 0.6            drawables in a time window, and what it cost
  mpelog annotate demo.clog2                              index the trace in place: demo.clog2.idx
  mpelog window demo.clog2.idx --from 0.5 --to 0.6        the same window, read from the trace itself
  mpelog check *.slog2                                    report every broken rule with its byte offset
  mpelog repair cut.clog2 -o fixed.clog2                  recover the whole records of a cut or damaged trace";

/// `--from T0 --to T1`: the time window of every command that takes one.
#[derive(clap::Args, Debug, Clone, Copy)]
struct WindowArgs {
    /// Start of the window, in seconds (default: the file's start).
    #[arg(long, value_name = "T0", allow_negative_numbers = true)]
    from: Option<f64>,
    /// End of the window, in seconds (default: the file's end).
    #[arg(long, value_name = "T1", allow_negative_numbers = true)]
    to: Option<f64>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Summarize a trace: format, version, byte order, block size, ranks, record
    /// counts per type and time range.
    ///
    /// Reads CLOG2, old CLOG, SLOG-2 (plain and compressed), ALOG (also `.Z`) and
    /// SLOG-1. For a cut or damaged CLOG2 file it prints what it could read (the
    /// preamble and the records before the damage), then the error, and the
    /// `mpelog repair` command that recovers those records; the exit status is 1.
    Info {
        /// The trace file (`-` for standard input).
        file: PathBuf,
        /// Print one JSON object (keys include format, version, time_min, time_max).
        #[arg(long)]
        json: bool,
    },
    /// Print every record of a trace, one line each, with every field.
    ///
    /// Reads CLOG2, old CLOG, SLOG-2 (plain and compressed), ALOG (also `.Z`) and
    /// SLOG-1. CLOG2 lines follow MPE's clog2_print (same keys and type tags) without its
    /// losses: times print in full precision, strings quoted, cargo payloads as hex.
    /// The preamble and the comm table come first, as `# ` comment lines.
    ///
    /// SLOG-2 prints the header, legend, line-ID maps and TreeDir, then every node
    /// in TreeDir order (as slog2print); with `--tree`, the nodes depth first from
    /// the root, each child indented under its parent (as slog2printrecur).
    Print {
        /// The trace file (`-` for standard input).
        file: PathBuf,
        /// SLOG-2: print the tree depth first from the root, children indented
        /// under their parent (slog2printrecur's node view).
        #[arg(long)]
        tree: bool,
        /// With `--tree`: do not read nodes below this depth (0 = the leaves, the
        /// default; slog2printrecur's `-d`). Their stubs still show in the parent.
        #[arg(long, value_name = "D", requires = "tree", default_value_t = 0)]
        depth: i16,
    },
    /// Check traces against the rules of the format specifications and report every
    /// broken rule with its ID, severity, byte offset and what to do.
    ///
    /// Every format is detected from its bytes and checked: CLOG2 and old CLOG
    /// (the reader's reject rules, time order, definitions for every event ID,
    /// pairing, communicators), ALOG (also `.Z`), SLOG-1, SLOG-2 (pointers and sizes,
    /// tree structure, stubs and shadows, categories, ordering, time boxes, line
    /// IDs), compressed SLOG-2 (every frame: codec, lengths, checksum) and
    /// annotations (checked against their trace: structure, every node, every
    /// leaf's checksum), and OTF2 archives (every file reads; definitions
    /// for every reference, time order, Enter/Leave nesting per location,
    /// unmatched messages; the file inside the archive is the finding's
    /// place). Large CLOG2 and SLOG-2 files and OTF2 archives are streamed.
    ///
    /// Rule IDs are stable; `--list-rules` prints them all, and spec/conformance.md
    /// says where each comes from. Exit status 0 only when no file has an error
    /// (warnings alone pass), 1 when one has.
    ///
    /// Examples: `mpelog check run.clog2 run.slog2`;
    /// `mpelog check --json traces/* > report.jsonl`;
    /// `mpelog check run.clog2.idx` (the annotation and run.clog2 beside it).
    Check {
        /// The files to check.
        #[arg(required_unless_present = "list_rules")]
        files: Vec<PathBuf>,
        /// One JSON report per file, one per line: {file, format, errors, warnings,
        /// findings: [{rule, severity, offset, place?, message}]}.
        #[arg(long)]
        json: bool,
        /// Report at most this many findings per rule and file.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// For annotation files: the trace they annotate (default: the
        /// annotation's name without `.idx`).
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Print every rule (ID, format, severity, what it requires) and exit.
        #[arg(long)]
        list_rules: bool,
    },
    /// Convert a trace to another format, or rewrite it through the codec.
    ///
    /// Reads CLOG2, old CLOG, SLOG-2 (plain and compressed), ALOG (also `.Z`) and
    /// SLOG-1; writes SLOG-2 from any of them, and each format to itself. The
    /// output format comes from --format, or else from OUT's extension (.slog2,
    /// .clog2, .clog, .alog or .log, .slog). Prints a summary on stderr: bytes and
    /// records read, bytes written and, to SLOG-2, the tree and the unpaired events.
    ///
    /// CLOG2 (or old CLOG) to SLOG-2 builds Jumpshot's tree of time boxes in one
    /// pass with bounded memory, making the same drawables, categories, line-ID maps
    /// and tree as MPE's clog2TOslog2 (clogTOslog2); --leaf-bytes and --children are
    /// its -ls and -nc. Events that cannot be paired are counted in the summary, not
    /// fatal. The records must be in time order, as MPE's merger writes them.
    ///
    /// CLOG2 to CLOG2 (and CLOG to CLOG) parses every record and writes it back,
    /// reproducing the input byte for byte. SLOG-2 to SLOG-2 updates a SLOG 2.0.5
    /// file to 2.0.6 (what slog2updater did) and rewrites a 2.0.6 file byte for byte;
    /// with --leaf-bytes or --children it builds a new tree of every drawable
    /// (as `mpelog filter` with nothing removed).
    ///
    /// OUT must not be the input. It is written to a temporary file beside it and
    /// renamed at the end, so it is never left half-written; `-o -` writes to
    /// standard output, and an input `-` reads standard input (see `mpelog --help`
    /// for symlinks, devices and interrupted runs).
    Convert {
        /// The input trace (`-` for standard input).
        input: PathBuf,
        /// The output file (`-` for standard output).
        #[arg(short, long)]
        output: PathBuf,
        /// Output format: slog2, clog2, clog, alog or slog (default: from OUT's
        /// extension; needed with `-o -`).
        #[arg(long, value_name = "FORMAT")]
        format: Option<String>,
        /// To SLOG-2: the byte size a tree leaf may reach before the converter
        /// starts the next one (clog2TOslog2's -ls; k and m suffixes; default
        /// 64k). From SLOG-2, giving it builds a new tree.
        #[arg(long, value_name = "N", value_parser = size::parse_u32)]
        leaf_bytes: Option<u32>,
        /// To SLOG-2: children per tree node (clog2TOslog2's -nc; default 2).
        /// From SLOG-2, giving it builds a new tree.
        #[arg(long, value_name = "N")]
        children: Option<u16>,
        /// To SLOG-2: how tree nodes are stored. `none` writes plain SLOG 2.0.6,
        /// which Jumpshot-4 opens. `deflate[:LEVEL]` (level 0-9, default 2; about
        /// 38% of the plain size), `raw-deflate[:LEVEL]` and `stored` write our
        /// compressed extension SLOG 2.0.6Z (spec/slog2-compressed.md), which every
        /// mpelog command reads transparently. A SLOG-2 input is rewritten with
        /// its nodes stored this way (`--compress none` makes it plain again).
        #[arg(long, value_name = "CODEC", default_value = "none")]
        compress: String,
    },
    /// Statistics of a trace: per category (as Jumpshot's legend and statistics
    /// window) and per timeline, how many drawables meet the window and their
    /// inclusive and exclusive durations (sum, mean, min, max, share of the window);
    /// for arrows, messages and bytes per sender/receiver pair and a histogram of
    /// message sizes; with --bins, the time each category covers per slice.
    ///
    /// Reads SLOG-2 (plain and compressed) and annotation files in slices of tree
    /// leaves, so memory stays bounded whatever the file's size; CLOG2, old CLOG,
    /// ALOG, SLOG-1 and OTF2 traces in one pass, as `export` reads them (the same
    /// statistics as their converted files). Durations are clipped to
    /// the window; exclusive = inclusive minus the states directly nested on the
    /// same timeline (the legend's `excl` ratio). A share is a sum over the
    /// window's width, summed over timelines, so it can exceed 100%.
    Stats {
        /// The trace, an annotation file (TRACE.clog2.idx), or the URL of a SLOG-2 file
        /// (http:// or https://) that answers HTTP Range requests (`mpelog serve`'s
        /// http://HOST:PORT/trace, a web server, an object store; README: Remote files).
        file: PathBuf,
        /// For an annotation: the trace it annotates (default: its path without
        /// `.idx`).
        #[arg(long, value_name = "TRACE")]
        trace: Option<PathBuf>,
        #[command(flatten)]
        window: WindowArgs,
        /// Which tables: per category, per timeline, or both.
        #[arg(long, value_enum, default_value = "category")]
        by: cmd::stats::By,
        /// Add a histogram of N equal time slices of the window (at most 100000).
        #[arg(long, value_name = "N", default_value_t = 0,
              value_parser = clap::value_parser!(u32).range(0..=mpelog::stats::MAX_BINS as i64))]
        bins: u32,
        /// One JSON object with every table.
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// CSV rows, one table after the other, with a `table` column.
        #[arg(long)]
        csv: bool,
        /// Compare with a second run (any trace `stats` reads): the exclusive time
        /// of each state category per timeline in both, the differences in
        /// seconds and in shares of the window, the largest change first.
        /// Categories are matched by name, timelines by line ID.
        #[arg(long, value_name = "B", conflicts_with_all = ["bins", "by"])]
        compare: Option<PathBuf>,
    },
    /// Why the run was slow: Scalasca's MPI wait-state patterns (Late Sender and
    /// its wrong-order part, Late Receiver, Wait at Barrier / N x N and their
    /// completions, Late Broadcast, Early Reduce, Early Scan, Wait at Finalize),
    /// the critical path and load imbalance per category (spec/analysis.md).
    ///
    /// MPI calls are the states named after MPI functions (MPE's wrappers, OTF2
    /// regions of paradigm MPI); messages are matched to the calls around their
    /// ends, collectives per communicator by call order. MPE logs no root of a
    /// collective (rank 0 of its communicator unless --root) and no request IDs
    /// (Late Receiver only against blocking receives). Reads every input `stats`
    /// reads, the whole trace in one pass (a wait state counts its part inside
    /// the window, as every other time does). What could not be matched
    /// is reported, never an error.
    Analyze {
        /// The trace, an annotation file (TRACE.clog2.idx), or the URL of a SLOG-2 file
        /// (http:// or https://) that answers HTTP Range requests.
        file: PathBuf,
        /// For an annotation: the trace it annotates (default: its path without
        /// `.idx`).
        #[arg(long, value_name = "TRACE")]
        trace: Option<PathBuf>,
        #[command(flatten)]
        window: WindowArgs,
        /// The root's rank in its communicator for MPI_Bcast, MPI_Reduce and the
        /// other rooted collectives (MPE does not log it).
        #[arg(long, value_name = "N", default_value_t = 0)]
        root: u32,
        /// How many worst instances to list per pattern.
        #[arg(long, value_name = "N", default_value_t = 10)]
        instances: usize,
        /// One JSON object: patterns, critical_path, imbalance, unmatched.
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// CSV rows, one table after the other, with a `table` column.
        #[arg(long)]
        csv: bool,
        /// Also write the analysis as a CUBE4 report (REPORT.cubex) for the CUBE
        /// GUI: Scalasca's metric tree, the call tree of the state nesting under
        /// one root, a process per rank with its timelines (threads) in it.
        /// Written to a temporary file and renamed at the end; never over the
        /// input.
        #[arg(short, long, value_name = "REPORT.cubex")]
        output: Option<PathBuf>,
        /// Compare with a second run (any trace `analyze` reads): each pattern's
        /// seconds per timeline in both, the differences in seconds and in shares
        /// of the window, the largest change first.
        #[arg(long, value_name = "B", conflicts_with = "output")]
        compare: Option<PathBuf>,
        /// Also write the wait index beside the trace (TRACE.waits, spec/waits.md):
        /// every wait state as an interval and the critical path, of the whole
        /// trace whatever --from/--to, bound to the trace's size, mtime and bytes,
        /// so that `render --waits` and the viewer draw waits at any zoom without
        /// analysing again. Written to a temporary file and renamed at the end.
        #[arg(long, conflicts_with = "compare")]
        write_index: bool,
    },
    /// Draw a time window as Jumpshot-4 draws it, to an SVG or PNG file: one row
    /// per timeline of the view on black, states as bars in their category's
    /// colour (nested states thinner inside), arrows white, events as circles,
    /// a time axis in seconds and the legend. Subtrees narrower than a pixel are
    /// drawn from their shadows (the summary view: boxes filled by category
    /// ratio, arrow shadows yellow), so the picture costs what it shows whatever
    /// the trace's size. Any trace `convert` reads is converted first.
    Render {
        /// The trace, or the URL of a SLOG-2 file
        /// (http:// or https://) that answers HTTP Range requests (`mpelog serve`'s
        /// http://HOST:PORT/trace, a web server, an object store; README: Remote files).
        input: PathBuf,
        /// The picture: OUT.svg or OUT.png.
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        window: WindowArgs,
        /// Width of the picture in pixels (as `window --pixels`).
        #[arg(long, value_name = "W", default_value_t = 1200, alias = "width")]
        pixels: u32,
        /// The view whose rows are the timelines: a line-ID map's title or
        /// position (default: the first, usually "Process View").
        #[arg(long, value_name = "VIEW")]
        view: Option<String>,
        /// Draw the wait states and the critical path (spec/queries.md §6.7): each
        /// MPI call's waiting part hatched in its pattern's colour (a legend of
        /// patterns), the late send's arrow emphasised and a mark at a
        /// collective's latest arrival, the critical path as a bar at the rows'
        /// bottom edges; never over a row's middle line. Uses the wait index
        /// beside the trace (TRACE.waits, `analyze --write-index`) when it is
        /// fresh, else analyses the trace in one pass and says so. --waits=LAYERS
        /// draws only some of hatch,causes,path.
        #[arg(long, value_name = "LAYERS", num_args = 0..=1, default_missing_value = "all", require_equals = true)]
        waits: Option<String>,
    },
    /// Serve a viewer for traces in the browser, and the HTTP API it reads
    /// (/api/info, /api/window, /api/export, /api/compare, /trace with Range
    /// requests; spec/queries.md §7). The
    /// page draws timelines, legend (toggle, search), zoom (wheel, shift-drag a
    /// range, buttons, + - 0 keys), pan (drag, arrow keys), the summary when
    /// zoomed out, popups with a clicked drawable's values, and exports the
    /// window to Perfetto. Every zoom or pan asks for the visible window at the
    /// canvas's width, so the browser holds a bounded number of objects. Binds
    /// to loopback unless told otherwise; traces other than SLOG-2 are
    /// converted once into a temporary directory.
    ///
    /// Who can reach it: every request must name this server in its Host header
    /// (a loopback name or address, the --bind address, any IP address when
    /// bound to all of them, or a name given with --allow-host), and a
    /// request from a page of another site (its Origin) is refused, so a web
    /// page cannot read your traces through DNS rebinding. Bound to anything
    /// but loopback, the server makes a random token and prints its address
    /// with it (http://HOST:PORT/?token=...): the first visit sets a cookie,
    /// and every request without the token (the query's token=, an
    /// `Authorization: Bearer TOKEN` header, or the cookie) gets 401. --token
    /// or MPELOG_SERVE_TOKEN chooses the token (on loopback too); --no-token
    /// serves everyone who can connect, and says so. --tls-cert and --tls-key
    /// serve HTTPS. The token is written once, in the start line, and never
    /// logged.
    Serve {
        /// The traces.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
        /// The port (0: any free port, printed at start).
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// Accept requests that name this host (a name of this machine, or of a
        /// reverse proxy in front of it); repeatable.
        #[arg(long, value_name = "NAME")]
        allow_host: Vec<String>,
        /// The token every request must carry (default off loopback: a random
        /// one; also MPELOG_SERVE_TOKEN). Letters, digits and -._~ only.
        #[arg(long, value_name = "TOKEN", conflicts_with = "no_token")]
        token: Option<String>,
        /// Serve without a token even off loopback: anyone who can connect sees
        /// the traces.
        #[arg(long)]
        no_token: bool,
        /// Serve HTTPS with this certificate chain (PEM); needs --tls-key.
        #[arg(long, value_name = "FILE", requires = "tls_key")]
        tls_cert: Option<PathBuf>,
        /// The private key of --tls-cert (PEM).
        #[arg(long, value_name = "FILE", requires = "tls_cert")]
        tls_key: Option<PathBuf>,
        /// Compare two runs (serve A B --compare): the page shows both
        /// timelines stacked, each with its own time axis, aligned at their
        /// starts or at a chosen event, zoomed and panned together, with the
        /// exclusive time of each state category per timeline in both windows,
        /// the largest change first (as stats A --compare B).
        #[arg(long)]
        compare: bool,
        /// No waits in the viewer. By default each trace's wait states and
        /// critical path are drawn (a toggle hides them) with a "where time is
        /// lost" panel, from the index beside the trace (analyze --write-index)
        /// when fresh, else from an analysis at start (traces up to 512 MB).
        #[arg(long)]
        no_waits: bool,
    },
    /// Filter a SLOG-2 file into a new one, as MPE's slog2filter: remove or keep
    /// categories (by index or name), cut a time window (drawables that meet it
    /// are kept), and rebuild the tree with the given leaf size, children per
    /// node and node storage, so `filter IN -o OUT --leaf-bytes 4k` alone
    /// re-trees a file. Shadows, category summaries and the legend are computed
    /// anew for what is kept; the line-ID maps are kept. Reads plain and
    /// compressed SLOG-2 with bounded memory; any other trace (CLOG2, old CLOG,
    /// ALOG, SLOG-1, OTF2) is converted once into a temporary SLOG-2 file first.
    Filter {
        /// The SLOG-2 file, or any other trace.
        input: PathBuf,
        /// The new file (`-` for standard output).
        #[arg(short, long)]
        output: PathBuf,
        /// Categories to remove: indices or names, comma-separated (slog2filter -r).
        #[arg(long, value_delimiter = ',', value_name = "CAT,...")]
        remove: Vec<String>,
        /// Keep only these categories: indices or names, comma-separated.
        #[arg(long, value_delimiter = ',', value_name = "CAT,...")]
        keep: Option<Vec<String>>,
        #[command(flatten)]
        window: WindowArgs,
        /// The byte size a tree leaf may reach (clog2TOslog2's -ls; k and m
        /// suffixes).
        #[arg(long, value_name = "N", default_value = "64k", value_parser = size::parse_u32)]
        leaf_bytes: u32,
        /// Children per tree node (clog2TOslog2's -nc).
        #[arg(long, value_name = "N", default_value_t = 2)]
        children: u16,
        /// Node storage: none (plain SLOG 2.0.6), deflate[:LEVEL], raw-deflate[:LEVEL]
        /// or stored (SLOG 2.0.6Z), as `convert --compress`.
        #[arg(long, value_name = "CODEC", default_value = "none")]
        compress: String,
    },
    /// Export a trace for today's viewers and data tools: a Perfetto trace
    /// (`.pftrace`: open it in Perfetto's UI, ui.perfetto.dev), Chrome trace-event
    /// JSON (Perfetto's UI, chrome://tracing, Trace Compass; `.json.gz` gzips it),
    /// CSV in pipit's layout (pandas, pipit) or Parquet, one row per drawable
    /// (DuckDB, Polars, Spark; a directory for a dataset of several files).
    ///
    /// States become slices on a track per timeline of the view (nested as they
    /// nest; states that overlap without nesting go to extra tracks of the same
    /// timeline), events instants, arrows zero-length slices at their send and
    /// receive points joined by a flow; the info values and the category are
    /// arguments. Reads SLOG-2 (plain and compressed) and annotation files in
    /// slices of leaves with bounded memory. CLOG2, old CLOG, ALOG, SLOG-1 and
    /// OTF2 traces are read once: their events are paired as `convert` pairs them and
    /// the drawables put in time order in --sort-memory, the rest in sorted runs
    /// in an unnamed temporary file ($TMPDIR), which never outlives the run.
    ///
    /// Picking a window for a big trace: the Perfetto UI holds about 2 GB in
    /// the browser and its tables take more than the file, while a Perfetto
    /// export takes about 85 bytes per drawable (Chrome JSON about 225), so a
    /// trace of more than about 10 million drawables (about 750 MB of CLOG2) is
    /// best exported a window at a time: `mpelog info` gives the time span,
    /// `mpelog stats --bins 20` shows where the activity is, and `mpelog stats
    /// --from T0 --to T1` counts a window's drawables.
    Export {
        /// The trace, an annotation file (TRACE.clog2.idx), or the URL of a SLOG-2 file
        /// (http:// or https://) that answers HTTP Range requests (`mpelog serve`'s
        /// http://HOST:PORT/trace, a web server, an object store; README: Remote files).
        input: PathBuf,
        /// The output file (`-` for standard output). For Parquet, a directory
        /// (a name ending in `/`, or an empty directory) receives a dataset:
        /// part-00000.parquet, part-00001.parquet, ... of at most --part-rows rows
        /// each, in time order, made whole or not at all.
        #[arg(short, long)]
        output: PathBuf,
        /// Output format (default: from OUT's name: .pftrace, .json, .json.gz,
        /// .csv, .parquet; a directory is a Parquet dataset).
        #[arg(long, value_enum)]
        format: Option<cmd::export::To>,
        /// Rows per file of a Parquet dataset (an output directory).
        #[arg(long, value_name = "N", default_value_t = 10_000_000, value_parser = clap::value_parser!(u64).range(1..))]
        part_rows: u64,
        /// For an annotation: the trace it annotates (default: its path without
        /// `.idx`).
        #[arg(long, value_name = "TRACE")]
        trace: Option<PathBuf>,
        #[command(flatten)]
        window: WindowArgs,
        /// The view whose rows are the timelines: a line-ID map's title (e.g.
        /// "Process View", "Communicator View") or position (default: the first).
        #[arg(long, value_name = "VIEW")]
        view: Option<String>,
        /// For CLOG2, old CLOG, ALOG, SLOG-1 and OTF2 inputs: memory for putting the
        /// drawables in time order before the rest goes to temporary sorted
        /// runs (k, m and g suffixes).
        #[arg(long, value_name = "BYTES", default_value = "64m", value_parser = size::parse_u64)]
        sort_memory: u64,
    },
    /// Print the drawables of a SLOG-2 file, plain or compressed (or of a CLOG2
    /// trace through its annotation file, TRACE.clog2.idx) that overlap the time
    /// window [FROM, TO), reading only the tree nodes (and trace ranges) whose time
    /// box meets the window. Without --from the window starts at the file's start,
    /// without --to it ends after the file's end: neither gives the whole file.
    ///
    /// With --pixels W the query works like Jumpshot's summary view: it stops
    /// descending where a node spans less than one of W pixels and prints that
    /// node's shadows (previews) instead of its subtree; the line before the last
    /// then says `shadows=S`.
    ///
    /// The last line is always `nodes_read=N bytes_read=B drawables=D`: tree nodes
    /// read, bytes read from the file (opening included), real drawables printed
    /// (shadows are not counted). In a tree as clog2TOslog2 or `mpelog convert`
    /// build it, N is at most K/(K-1)·(D + 2 + 2·depth) (spec/queries.md §2.3).
    /// With --json it is one JSON object, {"cost":{"nodes_read":N,...}}.
    ///
    /// Any other trace (CLOG2, old CLOG, ALOG, SLOG-1, OTF2) is converted once into a
    /// temporary SLOG-2 file first, and the counts are of that file.
    Window {
        /// The SLOG-2 file, an annotation file (TRACE.clog2.idx), any other
        /// trace, or a URL.
        file: PathBuf,
        /// For an annotation: the trace it annotates (default: its path without
        /// `.idx`).
        #[arg(long, value_name = "TRACE")]
        trace: Option<PathBuf>,
        #[command(flatten)]
        window: WindowArgs,
        /// Width of the view in pixels: summarize subtrees narrower than a pixel.
        #[arg(long, value_name = "W")]
        pixels: Option<u32>,
        /// Read no tree node below depth D (slog2navigator's d=; 0 = the leaves):
        /// the children of the nodes at depth D are shown by their shadows.
        #[arg(long, value_name = "D", conflicts_with = "pixels")]
        depth: Option<i16>,
        /// One JSON object per drawable, one per line; the last line is the cost
        /// as a JSON object (with `shadows` inside it for --pixels).
        #[arg(long)]
        json: bool,
        /// With --pixels W: print the window's summary W columns wide as one JSON
        /// object (per row and pixel column the exclusive time of each state
        /// category, the wide states, events and arrows): what `render` draws and
        /// `serve` answers (spec/queries.md §6).
        #[arg(long, requires = "pixels", conflicts_with = "json")]
        summary: bool,
        /// Read a damaged SLOG-2 file anyway: drop the drawables and shadows it
        /// cannot resolve (a category missing from the legend, a line ID missing
        /// from the line-ID maps, times outside their node's box, ...) and say on
        /// stderr how many. Without it such a file is refused with the byte
        /// offset of the damage (spec/slog2.md §14).
        #[arg(long)]
        lenient: bool,
    },
    /// Index a CLOG2 trace with an annotation file, without rewriting it
    /// (spec/annotation.md).
    ///
    /// One pass over the trace, which is opened read-only and never modified. The
    /// annotation is a tree of time boxes like SLOG-2's: its leaves are byte ranges
    /// of whole CLOG2 blocks (with checksums), its upper nodes hold the drawables
    /// whose ends lie in different leaves. `mpelog window TRACE.clog2.idx` then reads
    /// only the annotation nodes and trace ranges a window meets, and gives the same
    /// drawables as the converted SLOG-2 file. A trace changed after annotating is
    /// refused. The output is written to a temporary file and renamed at the end;
    /// it can never be the trace itself.
    Annotate {
        /// The CLOG2 trace (a file: the annotation names it).
        trace: PathBuf,
        /// The annotation file (default: TRACE.idx; `-` for standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Target bytes of trace per leaf (whole CLOG2 blocks, at least one; k and
        /// m suffixes: 64k).
        #[arg(long, value_name = "N", default_value = "64k", value_parser = size::parse_u32)]
        leaf_bytes: u32,
        /// Children per node.
        #[arg(long, value_name = "N", default_value_t = 2)]
        children: u16,
    },
    /// Recover every whole record of a CLOG2 file that was cut anywhere (a crashed
    /// or killed run, a full disk, a partial copy) or damaged after some point, and
    /// write a proper file (spec/conversion.md §10).
    ///
    /// Recovers: the preamble (unchanged but for commtable_fptr), every whole block
    /// before the first problem byte for byte, and the whole records of the block
    /// where the problem is (a record is whole when its bytes are all there and it
    /// decodes; nothing after the first record that does not is trusted). The file
    /// then ends properly: ENDLOG, and for CLOG-02.43 on the comm table, kept if it
    /// survived whole, otherwise rebuilt from the recovered COMMEVT records as MPE's
    /// merger builds it. Unlike MPE's clog2_repair, which only rewrites the comm
    /// table of a file whose block stream is complete, the cut may be anywhere after
    /// the preamble. An intact input is written back unchanged.
    ///
    /// Reports on stderr: the records recovered and the input bytes they came from,
    /// how many bytes were lost after which byte and why, what happened to the comm
    /// table, and how the file now ends.
    ///
    /// Exit status: 0 when the output was written (even if data was lost), 1 when
    /// nothing can be recovered (the 1024-byte preamble is cut or invalid; the
    /// message names the byte offset) or a file cannot be read or written, 2 on wrong
    /// usage.
    ///
    /// In place: OUT may be the input itself (the only command that allows it).
    /// The whole input is read first and the repaired file is written to a
    /// temporary file beside OUT, synced, and renamed over it, so a crash at any
    /// moment leaves either the old file or the new one whole, never a mix.
    Repair {
        /// The cut or damaged CLOG2 file (`-` for standard input).
        input: PathBuf,
        /// The repaired file (`-` for standard output).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Generate a realistic MPE-like CLOG2 trace (merged, big-endian, time-ordered,
    /// blocks packed like MPE's merger): nested user states, MPI-call states,
    /// matched sends and receives, collectives, communicators, cargo events.
    ///
    /// Memory stays bounded whatever the size, so multi-GB files are fine. The same
    /// options always give the same bytes.
    Synth {
        /// The output file (written to a temporary file, then renamed; `-` for
        /// standard output).
        #[arg(short, long)]
        output: PathBuf,
        /// Number of MPI processes.
        #[arg(long, default_value_t = 4)]
        ranks: u32,
        /// About how many records to write.
        #[arg(long, default_value_t = 100_000)]
        events: u64,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// CLOG2 block size in bytes (multiple of 8; k and m suffixes: 64k).
        #[arg(long, default_value = "64k", value_parser = size::parse_u32)]
        block_size: u32,
        /// A dense trace: every rank almost always in MPI_Sendrecv with its ring
        /// neighbours, messages between neighbouring timelines all the time (a
        /// quarter of the records are sends; 8 million records: 2 million
        /// messages).
        #[arg(long)]
        dense: bool,
        /// Plant a Late Sender of SECS per iteration: rank 0's MPI_Send to rank 1
        /// enters SECS after rank 1's MPI_Recv. Any --plant-* option makes every
        /// iteration the planted one (Inner on every rank, the late send, a
        /// skewed barrier; clog2_format::synth::Plant), for ground truth.
        #[arg(
            long,
            value_name = "SECS",
            default_value_t = 0.0,
            conflicts_with = "dense"
        )]
        plant_late_sender: f64,
        /// Plant a skewed MPI_Barrier: rank r enters it r·SECS after rank 0.
        #[arg(
            long,
            value_name = "SECS",
            default_value_t = 0.0,
            conflicts_with = "dense"
        )]
        plant_barrier_skew: f64,
        /// Plant imbalance: the last rank spends SECS longer in Inner per iteration.
        #[arg(
            long,
            value_name = "SECS",
            default_value_t = 0.0,
            conflicts_with = "dense"
        )]
        plant_imbalance: f64,
    },
}

fn main() -> ExitCode {
    signals::install();
    let cli = Cli::parse();
    let result = run(cli);
    input::cleanup();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mpelog: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

fn run(cli: Cli) -> error::CliResult {
    match cli.command {
        Command::Info { file, json } => cmd::info::run(&file, json),
        Command::Print { file, tree, depth } => cmd::print::run(&file, tree.then_some(depth)),
        Command::Check {
            files,
            json,
            limit,
            trace,
            list_rules,
        } => {
            if list_rules {
                cmd::check::list_rules(json)
            } else {
                cmd::check::run(&files, json, limit, trace)
            }
        }
        Command::Convert {
            input,
            output,
            format,
            leaf_bytes,
            children,
            compress,
        } => cmd::convert::run(
            &input,
            &output,
            format.as_deref(),
            cmd::convert::TreeOptions {
                leaf_bytes: leaf_bytes.unwrap_or(64 * 1024),
                children: children.unwrap_or(2),
                compress,
                retree: leaf_bytes.is_some() || children.is_some(),
            },
        ),
        Command::Window {
            file,
            trace,
            window: WindowArgs { from, to },
            pixels,
            depth,
            json,
            summary,
            lenient,
        } => cmd::window::run(
            &file,
            trace.as_deref(),
            cmd::window::Args {
                from,
                to,
                detail: cmd::window::Detail {
                    pixels,
                    depth,
                    summary,
                },
                json,
                lenient,
            },
        ),
        Command::Annotate {
            trace,
            output,
            leaf_bytes,
            children,
        } => cmd::annotate::run(&trace, output.as_deref(), leaf_bytes, children),
        Command::Repair { input, output } => cmd::repair::run(&input, &output),
        Command::Serve {
            files,
            bind,
            port,
            allow_host,
            token,
            no_token,
            tls_cert,
            tls_key,
            compare,
            no_waits,
        } => cmd::serve::run(
            &files,
            &cmd::serve::Options {
                bind,
                port,
                allow_host,
                token,
                no_token,
                tls: tls_cert.zip(tls_key),
                compare,
                no_waits,
            },
        ),
        Command::Render {
            input,
            output,
            window: WindowArgs { from, to },
            pixels,
            view,
            waits,
        } => {
            let waits = waits
                .map(|w| mpelog::render::WaitLayers::parse(&w))
                .transpose()
                .map_err(error::CliError::Usage)?;
            let opts = mpelog::render::Options::default()
                .window(from, to)
                .width(pixels)
                .view(view)
                .waits(waits);
            cmd::render::run(&input, &output, &opts)
        }
        Command::Filter {
            input,
            output,
            remove,
            keep,
            window: WindowArgs { from, to },
            leaf_bytes,
            children,
            compress,
        } => cmd::filter::run(
            &input,
            &output,
            cmd::filter::Args {
                remove,
                keep,
                from,
                to,
                tree: cmd::convert::TreeOptions {
                    leaf_bytes,
                    children,
                    compress,
                    retree: true,
                },
            },
        ),
        Command::Export {
            input,
            output,
            format,
            part_rows,
            trace,
            window: WindowArgs { from, to },
            view,
            sort_memory,
        } => {
            let opts = mpelog::export::Options::default()
                .window(from, to)
                .view(view)
                .sort_memory(usize::try_from(sort_memory).unwrap_or(usize::MAX));
            if cmd::export::is_dataset(&output) {
                cmd::export::dataset(&input, &output, format, part_rows, trace.as_deref(), &opts)
            } else {
                cmd::export::run(&input, &output, format, trace.as_deref(), &opts)
            }
        }
        Command::Stats {
            file,
            trace,
            window: WindowArgs { from, to },
            by,
            bins,
            json,
            csv,
            compare,
        } => {
            let form = cmd::form::Form::of(json, csv);
            let opts = mpelog::stats::Options::default()
                .window(from, to)
                .bins(bins as usize);
            match compare {
                Some(b) => cmd::compare_text::run(
                    (&file, trace.as_deref(), &b),
                    cmd::compare_text::Rows::Categories,
                    form,
                    |p, t| cmd::stats::of(p, t, &opts),
                    mpelog::compare::stats,
                ),
                None => cmd::stats::run(&file, trace.as_deref(), &opts, by, form),
            }
        }
        Command::Analyze {
            file,
            trace,
            window: WindowArgs { from, to },
            root,
            instances,
            json,
            csv,
            output,
            compare,
            write_index,
        } => {
            let form = cmd::form::Form::of(json, csv);
            let root = i32::try_from(root)
                .map_err(|_| error::CliError::Usage(format!("--root {root}: too large")))?;
            let opts = mpelog::analysis::Options::default()
                .window(from, to)
                .root(root)
                .instances(instances)
                .record(write_index);
            match compare {
                Some(b) => cmd::compare_text::run(
                    (&file, trace.as_deref(), &b),
                    cmd::compare_text::Rows::Patterns,
                    form,
                    |p, t| cmd::analyze::of(p, t, &opts),
                    mpelog::compare::analyses,
                ),
                None => cmd::analyze::run(&file, trace.as_deref(), &opts, form, output.as_deref()),
            }
        }
        Command::Synth {
            output,
            ranks,
            events,
            seed,
            block_size,
            dense,
            plant_late_sender,
            plant_barrier_skew,
            plant_imbalance,
        } => {
            let ns = |name: &str, secs: f64| {
                if secs.is_finite() && (0.0..=1e6).contains(&secs) {
                    Ok((secs * 1e9).round() as u64)
                } else {
                    Err(error::CliError::Usage(format!(
                        "--plant-{name} {secs}: must be from 0 to 1e6 seconds"
                    )))
                }
            };
            let plant = clog2_format::synth::Plant {
                late_sender_ns: ns("late-sender", plant_late_sender)?,
                barrier_skew_ns: ns("barrier-skew", plant_barrier_skew)?,
                imbalance_ns: ns("imbalance", plant_imbalance)?,
            };
            cmd::synth::run(&output, ranks, events, seed, block_size, dense, plant)
        }
    }
}
