#!/usr/bin/env python3
"""The hand-worked MPI wait-state scenarios of tests/analysis_otf2.rs as OTF2
archives, written by libotf2 (the `otf2` Python package), for `mpelog
analyze` to read. The worked answers are in the Rust test, beside each
scenario's definition there; this script only writes the archives.

    otf2_scenarios.py OUTDIR     writes OUTDIR/<name>/traces.otf2 per scenario
                                 and prints the names, one a line

Prints NO-OTF2 (exit 0) when the `otf2` package cannot be imported.

Times are in milliseconds (1 ns ticks in the archive). Each rank runs
main > MPI_Init [0, init leave] ... MPI_Finalize [finalize enter, end + 1],
main leaving at end + 2. Point-to-point events lie inside their calls as MPI
wrappers log them (the send right after the enter, the receive right before
the leave); collectives carry MpiCollectiveBegin/End with their root and byte
counts, in MPI_COMM_WORLD (a COMM_LOCATIONS group before its COMM_GROUP, as
Scalasca's reader wants, so that the same archives also run through scout) or
in a sub-communicator of the scenario's "comms" (world ranks, in the order of
their ranks in it).
"""
import os
import shutil
import sys

try:
    import otf2
    from otf2.enums import CollectiveOp, GroupType, LocationType, Paradigm, RegionRole
except ImportError:
    print("NO-OTF2")
    sys.exit(0)

UNDEF = 0xFFFFFFFF
MS = 1_000_000  # ns per ms

ROLES = {
    "MPI_Init": RegionRole.FUNCTION,
    "MPI_Finalize": RegionRole.FUNCTION,
    "MPI_Send": RegionRole.POINT2POINT,
    "MPI_Recv": RegionRole.POINT2POINT,
    "MPI_Barrier": RegionRole.BARRIER,
    "MPI_Allreduce": RegionRole.COLL_ALL2ALL,
    "MPI_Bcast": RegionRole.COLL_ONE2ALL,
    "MPI_Reduce": RegionRole.COLL_ALL2ONE,
    "MPI_Scan": RegionRole.COLL_OTHER,
}
OPS = {
    "MPI_Barrier": CollectiveOp.BARRIER,
    "MPI_Allreduce": CollectiveOp.ALLREDUCE,
    "MPI_Bcast": CollectiveOp.BCAST,
    "MPI_Reduce": CollectiveOp.REDUCE,
    "MPI_Scan": CollectiveOp.SCAN,
}


def send(to, tag):
    return {"to": to, "tag": tag}


def recv(frm, tag):
    return {"from": frm, "tag": tag}


def coll(root=None, sent=8, got=8, comm=None):
    return {"root": root, "sent": sent, "recv": got, "comm": comm}


# name -> (ranks, end, {rank: [(call, enter ms, leave ms, details)]}, extra)
SCENARIOS = {
    "late_sender": (2, 40, {
        0: [("MPI_Recv", 5, 32, recv(1, 0))],
        1: [("MPI_Send", 30, 31, send(0, 0))]}, {}),
    "wrong_order_different_source": (3, 40, {
        0: [("MPI_Recv", 5, 21, recv(1, 0)), ("MPI_Recv", 22, 23, recv(2, 0))],
        1: [("MPI_Send", 20, 20.5, send(0, 0))],
        2: [("MPI_Send", 2, 3, send(0, 0))]}, {}),
    "wrong_order_same_source": (2, 40, {
        0: [("MPI_Recv", 5, 21, recv(1, 2)), ("MPI_Recv", 22, 23, recv(1, 1))],
        1: [("MPI_Send", 2, 3, send(0, 1)), ("MPI_Send", 20, 20.5, send(0, 2))]}, {}),
    "barrier": (3, 20, {
        0: [("MPI_Barrier", 1, 10, coll(None, 0, 0))],
        1: [("MPI_Barrier", 4, 10, coll(None, 0, 0))],
        2: [("MPI_Barrier", 9, 10, coll(None, 0, 0))]}, {}),
    "allreduce": (3, 20, {
        0: [("MPI_Allreduce", 2, 11, coll())],
        1: [("MPI_Allreduce", 6, 12, coll())],
        2: [("MPI_Allreduce", 10, 13, coll())]}, {}),
    "late_broadcast": (3, 30, {
        0: [("MPI_Bcast", 20, 22, coll(0, 16, 8))],
        1: [("MPI_Bcast", 5, 23, coll(0, 0, 8))],
        2: [("MPI_Bcast", 12, 24, coll(0, 0, 8))]}, {}),
    "clock_violation": (2, 30, {
        0: [("MPI_Recv", 10, 12, recv(1, 0))],
        1: [("MPI_Send", 15, 16, send(0, 0))]}, {}),
    "early_reduce": (3, 20, {
        0: [("MPI_Reduce", 1, 10, coll(0, 8, 24))],
        1: [("MPI_Reduce", 5, 5.5, coll(0, 8, 0))],
        2: [("MPI_Reduce", 9, 9.5, coll(0, 8, 0))]}, {}),
    "late_receiver": (2, 40, {
        0: [("MPI_Recv", 30, 32, recv(1, 0))],
        1: [("MPI_Send", 5, 31, send(0, 0))]}, {}),
    "early_scan": (3, 20, {
        0: [("MPI_Scan", 9, 10, coll())],
        1: [("MPI_Scan", 2, 10.5, coll())],
        2: [("MPI_Scan", 6, 11, coll())]}, {}),
    "init_finalize": (3, 20, {}, {"init_leave": [0.5, 1.0, 2.0],
                                  "finalize_enter": [10, 15, 20]}),
    # Two sub-communicators whose barriers interleave in time: A = world
    # ranks [2, 0] (so A's rank 0 is world rank 2, the Bcast's root) and
    # B = [1, 3]; then a barrier on the world.
    "sub_communicators": (4, 40, {
        0: [("MPI_Barrier", 1, 10, coll(None, 0, 0, "A")),
            ("MPI_Barrier", 12, 20, coll(None, 0, 0, "A")),
            ("MPI_Barrier", 22, 26, coll(None, 0, 0)),
            ("MPI_Bcast", 27, 32, coll(0, 0, 8, "A"))],
        1: [("MPI_Barrier", 2, 8, coll(None, 0, 0, "B")),
            ("MPI_Barrier", 11, 16, coll(None, 0, 0, "B")),
            ("MPI_Barrier", 23, 26, coll(None, 0, 0))],
        2: [("MPI_Barrier", 6, 10, coll(None, 0, 0, "A")),
            ("MPI_Barrier", 19, 20, coll(None, 0, 0, "A")),
            ("MPI_Barrier", 24, 26, coll(None, 0, 0)),
            ("MPI_Bcast", 30, 32, coll(0, 16, 8, "A"))],
        3: [("MPI_Barrier", 7, 8, coll(None, 0, 0, "B")),
            ("MPI_Barrier", 14, 16, coll(None, 0, 0, "B")),
            ("MPI_Barrier", 25, 26, coll(None, 0, 0))]},
        {"comms": {"A": [2, 0], "B": [1, 3]}}),
}


def ns(ms):
    return int(round(ms * MS))


def write(path, ranks, end, calls, extra):
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        d = trace.definitions
        machine = d.system_tree_node("machine", class_name="machine")
        node = d.system_tree_node("node 0", class_name="node", parent=machine)
        locs = []
        for r in range(ranks):
            group = d.location_group("MPI Rank %d" % r, system_tree_parent=node)
            locs.append(d.location("Master thread", group=group,
                                   type=LocationType.CPU_THREAD))
        d.group("MPI locations", group_type=GroupType.COMM_LOCATIONS,
                paradigm=Paradigm.MPI, members=locs)
        world = d.comm("MPI_COMM_WORLD",
                       group=d.group("MPI_COMM_WORLD group", group_type=GroupType.COMM_GROUP,
                                     paradigm=Paradigm.MPI, members=locs))
        comms = {}
        for cname, members in extra.get("comms", {}).items():
            group = d.group("%s group" % cname, group_type=GroupType.COMM_GROUP,
                            paradigm=Paradigm.MPI, members=[locs[m] for m in members])
            comms[cname] = d.comm(cname, group=group, parent=world)
        regions = {"main": d.region("main", paradigm=Paradigm.USER,
                                    region_role=RegionRole.FUNCTION, source_file="main.c")}
        for name, role in ROLES.items():
            regions[name] = d.region(name, paradigm=Paradigm.MPI, region_role=role,
                                     source_file="MPI")
        init_leave = extra.get("init_leave", [0.5] * ranks)
        finalize_enter = extra.get("finalize_enter", [end] * ranks)
        for r in range(ranks):
            w = trace.event_writer_from_location(locs[r])
            w.enter(ns(0), regions["main"])
            w.enter(ns(0), regions["MPI_Init"])
            w.leave(ns(init_leave[r]), regions["MPI_Init"])
            for name, enter, leave, x in calls.get(r, []):
                region = regions[name]
                w.enter(ns(enter), region)
                if name == "MPI_Send":
                    w.mpi_send(ns(enter), x["to"], world, x["tag"], 8)
                elif name == "MPI_Recv":
                    w.mpi_recv(ns(leave), x["from"], world, x["tag"], 8)
                else:
                    w.mpi_collective_begin(ns(enter))
                    root = UNDEF if x["root"] is None else x["root"]
                    comm = comms[x["comm"]] if x.get("comm") else world
                    w.mpi_collective_end(ns(leave), OPS[name], comm, root, x["sent"],
                                         x["recv"])
                w.leave(ns(leave), region)
            w.enter(ns(finalize_enter[r]), regions["MPI_Finalize"])
            w.leave(ns(end + 1), regions["MPI_Finalize"])
            w.leave(ns(end + 2), regions["main"])


def main():
    out = sys.argv[1]
    for name, (ranks, end, calls, extra) in SCENARIOS.items():
        path = os.path.join(out, name)
        if os.path.exists(path):
            shutil.rmtree(path)
        write(path, ranks, end, calls, extra)
        print(name)


if __name__ == "__main__":
    main()
