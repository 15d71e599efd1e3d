"""mpelog: MPI traces of every MPE format (CLOG2, old CLOG, ALOG, SLOG-1,
SLOG-2 plain or compressed, annotations, OTF2 archives, SLOG-2 at http(s)
URLs) as Arrow tables and pandas DataFrames.

>>> import mpelog
>>> t = mpelog.open("run.clog2")              # doctest: +SKIP
>>> t.info()["format"]                        # doctest: +SKIP
'CLOG2'
>>> t.window(0.5, 0.6).to_pandas()            # doctest: +SKIP

Reads run in Rust with the GIL released; Ctrl-C interrupts a long one at
once (``KeyboardInterrupt``) and stops the read itself in the background
(an ALOG, SLOG-1 or old CLOG file is parsed whole first, and that parse runs
on to its end; an interrupted ``convert`` leaves no output).
Drawables reach pyarrow through the Arrow C data interface, in the columns
of ``mpelog export --to parquet``
(spec/export.md section 7), its typed ``info_*`` columns included.
"""

from __future__ import annotations

import json as _json
import os as _os
from typing import Any, Dict, List, Optional, Sequence, Union

import pyarrow as _pa

from . import _mpelog
from ._mpelog import (
    AlogError,
    AnnotationError,
    BadWindowError,
    Clog2Error,
    MpelogError,
    NoTraceError,
    NoViewError,
    Otf2Error,
    OutputError,
    RemoteError,
    Slog1Error,
    Slog2Error,
    TraceIOError,
    UnrecognizedError,
    UnsupportedError,
)

__all__ = [
    "open",
    "check",
    "convert",
    "Trace",
    "MpelogError",
    "TraceIOError",
    "UnrecognizedError",
    "RemoteError",
    "Clog2Error",
    "Slog2Error",
    "Slog1Error",
    "AlogError",
    "Otf2Error",
    "AnnotationError",
    "NoTraceError",
    "BadWindowError",
    "NoViewError",
    "OutputError",
    "UnsupportedError",
]

PathLike = Union[str, "_os.PathLike[str]"]


# The columns of every table before the typed info columns (spec/export.md
# section 7).
_FIXED = (
    "kind",
    "category",
    "name",
    "start",
    "end",
    "duration",
    "start_line",
    "end_line",
    "info",
)


# The columns of :meth:`Trace.events` (pipit's layout).
_EVENT_COLUMNS = ("Timestamp (ns)", "Event Type", "Name", "Thread", "Process", "Attributes")


class Trace:
    """An opened trace of any format (made by :func:`open`)."""

    def __init__(self, inner: Any, path: str, trace: Optional[str] = None) -> None:
        self._t = inner
        self.path = path
        self._trace = trace
        self._schema: Optional[_pa.Schema] = None

    def __repr__(self) -> str:
        return f"mpelog.Trace({self.path!r}, format={self.format!r})"

    @property
    def format(self) -> str:
        """The input's format: ``CLOG2``, ``SLOG-2``, ``OTF2``, ..."""
        return self._t.format

    def close(self) -> None:
        """Lets go of the trace now: its file, its caches and, for an input
        converted to SLOG-2 (:meth:`info`), the temporary file, removed here
        rather than when the object is collected. Every call after it raises
        ``ValueError``, as a closed Python file does; batches already begun
        (:meth:`batches`) read on to their end. Closing twice is allowed.

        >>> with mpelog.open("run.clog2") as t:   # doctest: +SKIP
        ...     t.window(0.5, 0.6).num_rows
        """
        self._t.close()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (or the ``with`` block left)."""
        return bool(self._t.closed)

    def __enter__(self) -> "Trace":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __reduce__(self) -> Any:
        """Pickled as its path: unpickled (in a worker process of
        ``multiprocessing`` or ``concurrent.futures``, say) it is the trace
        opened again there, with caches and temporary files of its own. A
        closed trace is not pickled (``ValueError``)."""
        if self.closed:
            raise ValueError("this trace is closed (Trace.close): nothing to pickle")
        return (open, (self.path, self._trace))

    def info(self) -> Dict[str, Any]:
        """Format, time range (``start``, ``end``, seconds), legend
        (``categories``: index, name, topology), views (their titles, the
        default first) and ``lines``: each line ID with its row in the
        default view (``[line, [rank, ...]]`` in MPE's process view). A format without a
        tree (CLOG2, old CLOG, ALOG, SLOG-1, OTF2) is converted once to a
        temporary SLOG-2 file, kept while the Trace lives."""
        return _json.loads(self._t.info_json())

    def file_info(self) -> Dict[str, Any]:
        """The file's own facts, as ``mpelog info --json`` gives them, read
        in one pass over the file as it is (never converted): format,
        version, byte order, size, blocks, ranks, records per type and time
        range (``time_min``, ``time_max``) of a CLOG2; the tree of a SLOG-2;
        anchor, definitions and events by kind of an OTF2 archive. A CLOG2
        damaged after a point gives the facts of what comes before it, with
        ``damaged`` (offset, message, repair)."""
        return _json.loads(self._t.file_info_json())

    def schema(self) -> _pa.Schema:
        """The columns of every table of this trace (:meth:`window`,
        :meth:`batches`): kind, category, name, start, end, duration,
        start_line, end_line, info, and one typed column per info label of
        the legend, as the Parquet export has them."""
        if self._schema is None or self.closed:  # closed: ValueError
            self._schema = _pa.schema(self._t.schema())
        return self._schema

    def _select(self, columns: Optional[Sequence[str]]) -> Dict[str, Any]:
        """The info columns to make for ``columns`` (``None``: all)."""
        if columns is None:
            return {}
        if isinstance(columns, str):
            raise TypeError("columns: a list of column names, not one name")
        columns = list(columns)
        names = self.schema().names
        for c in columns:
            if c not in names:
                raise ValueError(f"no column {c!r}; the columns: {', '.join(names)}")
        if len(set(columns)) != len(columns):
            raise ValueError(f"a column named twice in {columns!r}")
        return {"info": "info" in columns, "typed": [c for c in columns if c not in _FIXED]}

    def window(
        self,
        t0: Optional[float] = None,
        t1: Optional[float] = None,
        columns: Optional[Sequence[str]] = None,
    ) -> _pa.Table:
        """The drawables that meet ``[t0, t1)`` (a missing bound: the trace's
        start or end) as a ``pyarrow.Table``, one row per drawable in start
        order: kind, category, name, start, end, duration, start_line,
        end_line, info, and one typed column per info label of the legend
        (``info_msg_tag``, ``info_msg_size``, ...: int64, double or string;
        null where a drawable's category has no such value), as the Parquet
        export has them (:meth:`schema`).

        ``columns``: those columns only, in that order (as
        ``pyarrow.parquet.read_table`` takes them); the info values are
        decoded only for the info columns named, which makes a window
        without them about twice as fast. A name the table lacks raises
        ``ValueError``.

        The columns are decoded from the trace straight into buffers that
        pyarrow takes over through the Arrow C data interface, not copied."""
        sel = self._select(columns)
        table = _pa.Table.from_batches([_pa.record_batch(self._t.window_batch(t0, t1, **sel))])
        return table if columns is None else table.select(list(columns))

    def batches(
        self,
        t0: Optional[float] = None,
        t1: Optional[float] = None,
        rows: int = 65536,
        columns: Optional[Sequence[str]] = None,
    ) -> _pa.RecordBatchReader:
        """The drawables of ``[t0, t1)`` (default: the whole trace) as a
        ``pyarrow.RecordBatchReader`` of batches of ``rows`` rows, read while
        they are taken, on two threads of their own (one reads, one builds the
        batches), at most one batch ahead: memory stays bounded by the batch
        size (``rows`` of at least 1; else ``ValueError``). A CLOG2 trace is
        read twice: a first pass learns its legend (MPE writes the
        definitions at the end), the second hands the rows out in
        order while it reads (spec/export.md section 2); other formats without
        a tree are read whole and sorted, through temporary files beyond 64 MB.
        The columns are those of :meth:`window`, ``columns`` as there. A
        reader dropped part-way stops reading: its threads end, the rest of
        the file unread.

        The input's errors are raised typed (a subclass of
        :class:`MpelogError`, with ``kind``, ``path`` and ``offset``): here,
        when met before the first batch (a format without a tree is read
        whole once before it), or by the iteration where it stops."""
        if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
            raise ValueError(f"rows: a batch holds at least 1 row, not {rows!r}")
        sel = self._select(columns)
        s = self._t.stream(t0, t1, rows, **sel)
        schema = _pa.schema(s.schema())
        batches = (_pa.record_batch(b) for b in s)
        if columns is not None:
            keep = list(columns)
            schema = _pa.schema([schema.field(c) for c in keep])
            batches = (b.select(keep) for b in batches)
        return _pa.RecordBatchReader.from_batches(schema, batches)

    def stats(
        self, t0: Optional[float] = None, t1: Optional[float] = None, bins: int = 0
    ) -> Dict[str, Any]:
        """The statistics of ``mpelog stats --json`` as pandas DataFrames:
        ``categories``, ``timelines``, ``messages``, ``message_sizes``,
        ``bins`` and ``category_timelines`` (per state category and timeline:
        ``index``, ``line``, ``count``, ``inclusive``, ``exclusive`` seconds),
        plus the window ``from``/``to``."""
        import pandas as pd

        s = _json.loads(self._t.stats_json(t0, t1, bins, True))
        out: Dict[str, Any] = {"from": s["from"], "to": s["to"]}

        def flat(rows: Any) -> "pd.DataFrame":
            return pd.json_normalize(rows, sep="_") if rows else pd.DataFrame()

        out["categories"] = flat(s["categories"])
        out["timelines"] = flat(s["timelines"])
        out["messages"] = flat(s["messages"])
        out["message_sizes"] = pd.DataFrame(
            s["message_sizes"], columns=["below", "messages"]
        )
        out["bins"] = pd.DataFrame(
            [
                {"start": b["start"], "end": b["end"], "category": int(c), "value": v}
                for b in s["bins"]
                for c, v in (
                    b["categories"].items()
                    if isinstance(b["categories"], dict)
                    else b["categories"]
                )
            ],
            columns=["start", "end", "category", "value"],
        )
        out["category_timelines"] = pd.DataFrame(
            s["category_timelines"], columns=["index", "line", "count", "inclusive", "exclusive"]
        )
        return out

    def stats_json(
        self, t0: Optional[float] = None, t1: Optional[float] = None, bins: int = 0
    ) -> Dict[str, Any]:
        """The statistics exactly as ``mpelog stats --json`` prints them."""
        return _json.loads(self._t.stats_json(t0, t1, bins))

    def analyze(
        self,
        t0: Optional[float] = None,
        t1: Optional[float] = None,
        root: int = 0,
        instances: int = 10,
    ) -> Dict[str, Any]:
        """Why the run was slow, as ``mpelog analyze --json`` finds it
        (Scalasca's wait-state patterns, the critical path, load imbalance),
        as pandas DataFrames. The whole trace is read (matching needs every
        call); ``[t0, t1)`` decides which wait states count. ``root``: the
        rank of the root of rooted collectives; ``instances``: the worst
        instances kept per pattern.

        Keys: ``patterns`` (name, id, parent, seconds, share, count),
        ``pattern_timelines`` (pattern, timeline, seconds),
        ``pattern_call_paths`` (pattern, call_path, seconds), ``instances``
        (pattern, time, timeline, partner, seconds, call, call_path),
        ``critical_path`` (category, seconds, share, mean, imbalance),
        ``critical_path_timelines`` (timeline, seconds), ``imbalance``
        (category, mean, max, max_over_mean, overload, single_participant,
        underload, non_participation, visitors, top); and as they are:
        ``from``, ``to``, ``timelines``, ``total_seconds``, ``counts``,
        ``unmatched``, ``critical_path_seconds``, ``critical_path_end_timeline``,
        ``critical_path_imbalance_impact``, ``critical_path_imbalance_share``.
        """
        import pandas as pd

        r = self.analyze_json(t0, t1, root, instances)
        pats = r["patterns"]
        cp = r["critical_path"]
        return {
            "from": r["from"],
            "to": r["to"],
            "timelines": r["timelines"],
            "total_seconds": r["total_seconds"],
            "counts": r["counts"],
            "unmatched": r["unmatched"],
            "patterns": pd.DataFrame(
                [{k: p[k] for k in ("name", "id", "parent", "seconds", "share", "count")} for p in pats],
                columns=["name", "id", "parent", "seconds", "share", "count"],
            ),
            "pattern_timelines": pd.DataFrame(
                [
                    {"pattern": p["name"], "timeline": int(t), "seconds": v}
                    for p in pats
                    for t, v in p["per_timeline"].items()
                ],
                columns=["pattern", "timeline", "seconds"],
            ),
            "pattern_call_paths": pd.DataFrame(
                [{"pattern": p["name"], **c} for p in pats for c in p["per_call_path"]],
                columns=["pattern", "call_path", "seconds"],
            ),
            "instances": pd.DataFrame(
                [{"pattern": p["name"], **i} for p in pats for i in p["instances"]],
                columns=["pattern", "time", "timeline", "partner", "seconds", "call", "call_path"],
            ),
            "critical_path": pd.DataFrame(
                cp["per_category"], columns=["category", "seconds", "share", "mean", "imbalance"]
            ),
            "critical_path_timelines": pd.DataFrame(
                [{"timeline": int(t), "seconds": v} for t, v in cp["per_timeline"].items()],
                columns=["timeline", "seconds"],
            ),
            "critical_path_seconds": cp["seconds"],
            "critical_path_end_timeline": cp["end_timeline"],
            "critical_path_imbalance_impact": cp["imbalance_impact"],
            "critical_path_imbalance_share": cp["imbalance_share"],
            "imbalance": pd.DataFrame(
                r["imbalance"],
                columns=[
                    "category",
                    "mean",
                    "max",
                    "max_over_mean",
                    "overload",
                    "single_participant",
                    "underload",
                    "non_participation",
                    "visitors",
                    "top",
                ],
            ),
        }

    def analyze_json(
        self,
        t0: Optional[float] = None,
        t1: Optional[float] = None,
        root: int = 0,
        instances: int = 10,
    ) -> Dict[str, Any]:
        """The analysis exactly as ``mpelog analyze --json`` prints it."""
        return _json.loads(self._t.analyze_json(t0, t1, root, instances))

    def events(
        self, t0: Optional[float] = None, t1: Optional[float] = None, view: Optional[str] = None
    ) -> Any:
        """The events of ``[t0, t1)`` as a pandas DataFrame in pipit's layout,
        which ``pipit.Trace(None, df)`` takes as it is: ``Timestamp (ns)``
        (int64, from the window's start), ``Event Type`` (``Enter``,
        ``Leave``, ``Instant``), ``Name``, ``Thread`` (the track),
        ``Process`` (the rank), ``Attributes`` (a dict of the info values, or
        None; messages are ``MpiSend``/``MpiRecv`` instants with
        ``receiver``/``sender``, ``msg_length`` and ``msg_tag``): the rows of
        ``mpelog export --to csv``, in time order. ``view``: the view (by
        title, any case, or position) whose rows are the processes, as
        ``mpelog export --view``; by default the first (MPE's process view,
        where a rank's communicator timelines share its process; the
        ``Identity Map`` keeps each line ID apart, as ``stats`` does).
        ``Event Type`` and ``Name`` are categoricals, as pipit's own readers
        make them.

        The values are those of the CSV read back (its fields unescaped,
        spec/export.md section 6, the attributes' JSON read), made in Rust
        straight into the frame's columns: no text in between."""
        import numpy as np
        import pandas as pd

        cols = self._t.events_columns(t0, t1, view)
        ts, kind_codes, kinds, name_codes, names, thread, process, attrs = cols

        def ints(b: bytes, dtype: Any = np.int64) -> Any:
            return np.frombuffer(b, dtype=dtype).copy()

        def categorical(codes: bytes, dtype: Any, categories: List[str]) -> Any:
            return pd.Categorical.from_codes(ints(codes, dtype), categories=categories)

        return pd.DataFrame(
            dict(
                zip(
                    _EVENT_COLUMNS,
                    [
                        ints(ts),
                        categorical(kind_codes, np.int8, kinds),
                        categorical(name_codes, np.int32, names),
                        ints(thread),
                        ints(process),
                        pd.Series(attrs, dtype=object),
                    ],
                )
            )
        )

    def check(self) -> Dict[str, Any]:
        """The checker's report (``mpelog check``): format, passes, findings."""
        return _json.loads(self._t.check_json())


def open(path_or_url: PathLike, trace: Optional[PathLike] = None) -> Trace:  # noqa: A001 (mirrors the built-in)
    """Opens a trace of any format mpelog reads, or a SLOG-2 file at an
    ``http(s)://`` URL (read with Range requests). An annotation
    (``TRACE.clog2.idx``) reads the trace named after it, or ``trace`` when
    given (as ``mpelog window --trace``); ``trace`` is not used for any other
    input. Raises a subclass of :class:`MpelogError` (``kind``, ``path``,
    ``offset`` attributes)."""
    p = _os.fspath(path_or_url)
    tr = None if trace is None else _os.fspath(trace)
    return Trace(_mpelog.open(p, tr), p, tr)


def check(path_or_url: PathLike, trace: Optional[PathLike] = None) -> Dict[str, Any]:
    """Checks a trace against the rules of the format specifications, as
    ``mpelog check``: ``{"format", "passes", "findings": [...]}``; an
    annotation with the trace ``trace`` when given (as :func:`open`)."""
    return open(path_or_url, trace).check()


def convert(
    path_or_url: PathLike, output: PathLike, format: Optional[str] = None
) -> Dict[str, Any]:
    """Converts a trace as ``mpelog convert`` does: any format (or URL) to
    SLOG-2 with the default tree, or an MPE format to itself (rewritten
    through the codec, byte-identical for a canonical file). The output's
    format is ``format`` (``clog2``, ``clog``, ``slog2``, ``alog``,
    ``slog``) or else its extension's. The output is never one of the
    inputs (:class:`OutputError`) and appears whole or not at all.

    Returns the summary: ``verb``, ``input``, ``source``, ``input_bytes``,
    ``records``, ``output_format``, ``output_bytes``, ``details`` (the
    lines ``mpelog convert`` prints after its first). Raises
    :class:`UnsupportedError` for a pair that does not convert."""
    return _json.loads(
        _mpelog.convert(_os.fspath(path_or_url), _os.fspath(output), format)
    )
