#!/usr/bin/env python3
"""A trace's drawables as an OTF2 archive, written by libotf2 (the `otf2`
Python package): the test-side OTF2 conversion of tests/analysis_forms.rs
(mpelog has no OTF2 writer).

    clog2_to_otf2.py DRAWABLES.jsonl LINEMAPS.txt OUTDIR

DRAWABLES.jsonl is `mpelog window --json TRACE` (one drawable per line, the
cost line last); LINEMAPS.txt is `mpelog print TRACE.slog2` (only its
`linemap`/`row` lines are read). Writes OUTDIR/traces.otf2 and prints one
line of counts. Prints NO-OTF2 (exit 0) when the `otf2` package cannot be
imported.

* One location per world rank (the "Process View"), in rank order, so OTF2
  location i is the trace's timeline i.
* Every state is a region (paradigm MPI for `MPI_` names, user otherwise)
  entered and left at its start and end; states are nested by start (ties:
  the longer first). A state that overlaps the state it starts in without
  lying inside it cannot be written in OTF2: it is left out and counted.
* Every arrow is an MpiSend at its send end and an MpiRecv at its receive
  end, in MPI_COMM_WORLD with world ranks, with the arrow's tag
  (`msg_tag=`), length its `msg_size=`.
* Every MPI collective state is an MpiCollectiveBegin at its enter and an
  MpiCollectiveEnd at its leave, in the communicator of its line (the
  "Communicator View": commID, comm_rank; each commID an OTF2 communicator
  whose group lists the world ranks in comm-rank order), root 0.
* Times: ticks of 1 ns, `round(t * 1e9)`: each time moves by at most 0.5 ns,
  a difference of two times by at most 1 ns.
* Events (MPE's solo events) are left out.
"""
import json
import os
import re
import shutil
import sys

try:
    import otf2
    from otf2.enums import CollectiveOp, GroupType, LocationType, Paradigm, RegionRole
except ImportError:
    print("NO-OTF2")
    sys.exit(0)

UNDEF = 0xFFFFFFFF
OPS = {
    "MPI_Barrier": (CollectiveOp.BARRIER, RegionRole.BARRIER),
    "MPI_Bcast": (CollectiveOp.BCAST, RegionRole.COLL_ONE2ALL),
    "MPI_Gather": (CollectiveOp.GATHER, RegionRole.COLL_ALL2ONE),
    "MPI_Gatherv": (CollectiveOp.GATHERV, RegionRole.COLL_ALL2ONE),
    "MPI_Scatter": (CollectiveOp.SCATTER, RegionRole.COLL_ONE2ALL),
    "MPI_Scatterv": (CollectiveOp.SCATTERV, RegionRole.COLL_ONE2ALL),
    "MPI_Allgather": (CollectiveOp.ALLGATHER, RegionRole.COLL_ALL2ALL),
    "MPI_Allgatherv": (CollectiveOp.ALLGATHERV, RegionRole.COLL_ALL2ALL),
    "MPI_Alltoall": (CollectiveOp.ALLTOALL, RegionRole.COLL_ALL2ALL),
    "MPI_Alltoallv": (CollectiveOp.ALLTOALLV, RegionRole.COLL_ALL2ALL),
    "MPI_Alltoallw": (CollectiveOp.ALLTOALLW, RegionRole.COLL_ALL2ALL),
    "MPI_Allreduce": (CollectiveOp.ALLREDUCE, RegionRole.COLL_ALL2ALL),
    "MPI_Reduce": (CollectiveOp.REDUCE, RegionRole.COLL_ALL2ONE),
    "MPI_Reduce_scatter": (CollectiveOp.REDUCE_SCATTER, RegionRole.COLL_ALL2ALL),
    "MPI_Reduce_scatter_block": (CollectiveOp.REDUCE_SCATTER_BLOCK, RegionRole.COLL_ALL2ALL),
    "MPI_Scan": (CollectiveOp.SCAN, RegionRole.COLL_OTHER),
    "MPI_Exscan": (CollectiveOp.EXSCAN, RegionRole.COLL_OTHER),
}
ROOTED = {"MPI_Bcast", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv",
          "MPI_Reduce"}
P2P = {"MPI_Send", "MPI_Recv", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Isend",
       "MPI_Irecv", "MPI_Issend", "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Wait",
       "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome"}


def ns(t):
    return int(round(t * 1e9))


def line_maps(path):
    """title -> {line: [values]} of the `mpelog print` text."""
    maps, cur = {}, None
    for text in open(path):
        m = re.match(r'linemap title="([^"]*)"', text)
        if m:
            cur = maps.setdefault(m.group(1), {})
            continue
        m = re.match(r"\s+row (-?\d+) -> \[([^\]]*)\]", text)
        if m and cur is not None:
            cur[int(m.group(1))] = [int(v) for v in m.group(2).split(",") if v.strip()]
        elif not text.startswith(" "):
            cur = None
    return maps


def tag_of(info):
    m = re.search(r"msg_tag=(-?\d+)", info)
    return int(m.group(1)) if m else 0


def size_of(info):
    m = re.search(r"msg_size=(-?\d+)", info)
    return max(0, int(m.group(1))) if m else 0


def main():
    drawables, maps_path, out = sys.argv[1:4]
    maps = line_maps(maps_path)
    process = maps.get("Process View", {})
    comm_view = maps.get("Communicator View", {})
    rank_of = {line: v[0] for line, v in process.items() if v}
    states, arrows = [], []
    for text in open(drawables):
        d = json.loads(text)
        if d.get("kind") != "primitive":
            continue
        if d["topology"] == "State":
            states.append(d)
        elif d["topology"] == "Arrow":
            arrows.append(d)
    lines = {v[1] for d in states + arrows for v in d["vertices"]}
    for line in lines:
        rank_of.setdefault(line, line)
    ranks = sorted(set(rank_of[line] for line in lines))
    assert ranks == list(range(len(ranks))), "world ranks 0..n-1: %s" % ranks
    # Communicators: commID -> world ranks in comm-rank order.
    members = {}
    for line, (comm, crank) in ((l, v[:2]) for l, v in comm_view.items() if len(v) >= 2):
        members.setdefault(comm, []).append((crank, rank_of.get(line, line)))
    comm_of_line = {line: v[0] for line, v in comm_view.items() if v}

    if os.path.exists(out):
        shutil.rmtree(out)
    counts = {"states": 0, "left_out": 0, "messages": 0, "collectives": 0}
    with otf2.writer.open(out, timer_resolution=10**9) as trace:
        d = trace.definitions
        machine = d.system_tree_node("machine", class_name="machine")
        node = d.system_tree_node("node 0", class_name="node", parent=machine)
        locs = []
        for r in ranks:
            group = d.location_group("MPI Rank %d" % r, system_tree_parent=node)
            locs.append(d.location("Master thread", group=group,
                                   type=LocationType.CPU_THREAD))
        d.group("MPI locations", group_type=GroupType.COMM_LOCATIONS,
                paradigm=Paradigm.MPI, members=locs)
        world = d.comm("MPI_COMM_WORLD",
                       group=d.group("MPI_COMM_WORLD group", group_type=GroupType.COMM_GROUP,
                                     paradigm=Paradigm.MPI, members=locs))
        comms = {}
        for comm, m in sorted(members.items()):
            world_ranks = [w for _, w in sorted(m)]
            if world_ranks == ranks:
                comms[comm] = world
                continue
            # A member twice (the two sides of an intercommunicator) cannot
            # be a group: its collectives go to the world.
            if len(set(world_ranks)) != len(world_ranks):
                continue
            group = d.group("comm %d group" % comm, group_type=GroupType.COMM_GROUP,
                            paradigm=Paradigm.MPI, members=[locs[w] for w in world_ranks])
            comms[comm] = d.comm("comm %d" % comm, group=group, parent=world)
        regions = {}

        def region(name):
            if name not in regions:
                mpi = name.startswith("MPI_")
                role = (OPS[name][1] if name in OPS else
                        RegionRole.POINT2POINT if name in P2P else RegionRole.FUNCTION)
                regions[name] = d.region(name, paradigm=Paradigm.MPI if mpi else Paradigm.USER,
                                         region_role=role,
                                         source_file="MPI" if mpi else "trace")
            return regions[name]

        # Per location: (time ns, order, seq, action); order keeps enters
        # and leaves in their nesting order, point events after them.
        events = {r: [] for r in ranks}
        per_rank = {r: [] for r in ranks}
        for i, s in enumerate(states):
            line = s["vertices"][0][1]
            per_rank[rank_of[line]].append((ns(s["start"]), -ns(s["end"]), i, s, line))
        for r in ranks:
            stack, seq = [], 0
            out_ev = events[r]
            for start, neg_end, _, s, line in sorted(per_rank[r], key=lambda x: x[:3]):
                end = -neg_end
                while stack and stack[-1][0] <= start and not end <= stack[-1][0]:
                    e, name, coll = stack.pop()
                    out_ev.append((e, seq, ("leave", name, coll)))
                    seq += 1
                if stack and end > stack[-1][0]:
                    counts["left_out"] += 1  # overlaps its parent: not nested
                    continue
                name = s["name"]
                coll = None
                if name in OPS:
                    comm = comms.get(comm_of_line.get(line, 0), world)
                    coll = (OPS[name][0], comm, 0 if name in ROOTED else UNDEF)
                out_ev.append((start, seq, ("enter", name, coll)))
                seq += 1
                stack.append((end, name, coll))
                counts["states"] += 1
            while stack:
                e, name, coll = stack.pop()
                out_ev.append((e, seq, ("leave", name, coll)))
                seq += 1
        for a in arrows:
            (ts, sl), (tr, rl) = a["vertices"][0], a["vertices"][-1]
            sr, rr = rank_of[sl], rank_of[rl]
            tag, size = tag_of(a["info"]), size_of(a["info"])
            # After every enter or leave of the same time (seq 10**9).
            events[sr].append((ns(ts), 10**9, ("send", rr, tag, size)))
            events[rr].append((ns(tr), 10**9, ("recv", sr, tag, size)))
            counts["messages"] += 1
        for r in ranks:
            w = trace.event_writer_from_location(locs[r])
            for t, _, ev in sorted(events[r], key=lambda x: (x[0], x[1])):
                kind = ev[0]
                if kind == "enter":
                    w.enter(t, region(ev[1]))
                    if ev[2] is not None:
                        w.mpi_collective_begin(t)
                elif kind == "leave":
                    if ev[2] is not None:
                        op, comm, root = ev[2]
                        w.mpi_collective_end(t, op, comm, root, 0, 0)
                        counts["collectives"] += 1
                    w.leave(t, region(ev[1]))
                elif kind == "send":
                    w.mpi_send(t, ev[1], world, ev[2], ev[3])
                else:
                    w.mpi_recv(t, ev[1], world, ev[2], ev[3])
    print(" ".join("%s=%d" % kv for kv in counts.items()))


if __name__ == "__main__":
    main()
