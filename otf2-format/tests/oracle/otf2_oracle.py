#!/usr/bin/env python3
"""Oracle for otf2-format's tests: libotf2 (the `otf2` package) writes random
archives and reads archives into a canonical JSON dump that the Rust test
builds the same way from our reader.

    otf2_oracle.py write SEED DIR [EVENTS]   write a random archive into DIR
    otf2_oracle.py hybrid DIR                write a small MPI + OpenMP archive into DIR,
                                             with RMA, I/O and measurement records
    otf2_oracle.py dump ANCHOR               print the canonical dump
"""
import json
import random
import sys

import otf2
from otf2.enums import (CollectiveOp, GroupType, LocationType, MetricMode, MetricType,
                        Paradigm, RegionRole, Type, Base, MetricOccurrence, RecorderKind,
                        ParameterType, IoParadigmClass, IoParadigmFlag, IoHandleFlag,
                        IoAccessMode, IoCreationFlag, IoStatusFlag, IoOperationMode,
                        IoOperationFlag, MeasurementMode, RmaSyncType)


def write(seed, path, events_per_location):
    rnd = random.Random(seed)
    with otf2.writer.open(path, timer_resolution=rnd.choice([1000, 10**6, 10**9]),
                          chunk_size_events=256 * 1024) as trace:
        d = trace.definitions
        node = d.system_tree_node("machine")
        nodes = [d.system_tree_node("node %d" % i, parent=node) for i in range(2)]
        nproc = rnd.randint(1, 3)
        locs = []
        for p in range(nproc):
            lg = d.location_group("Rank %d" % p, system_tree_parent=rnd.choice(nodes))
            for t in range(rnd.randint(1, 2)):
                locs.append(d.location("Thread %d" % t, group=lg, type=LocationType.CPU_THREAD))
        world_locs = d.group("world locations", group_type=GroupType.COMM_LOCATIONS,
                             paradigm=Paradigm.MPI, members=locs)
        world = d.comm("MPI_COMM_WORLD",
                       group=d.group("world", group_type=GroupType.COMM_GROUP,
                                     paradigm=Paradigm.MPI, members=locs))
        sub_members = [l for l in locs if rnd.random() < 0.6] or locs[:1]
        sub = d.comm("sub", parent=world,
                     group=d.group("sub", group_type=GroupType.COMM_GROUP,
                                   paradigm=Paradigm.MPI, members=sub_members))
        comms = [world, sub]
        regions = []
        for i in range(rnd.randint(3, 9)):
            paradigm = rnd.choice([Paradigm.USER, Paradigm.MPI, Paradigm.OPENMP, Paradigm.COMPILER])
            regions.append(d.region("region %d" % i, paradigm=paradigm,
                                    region_role=rnd.choice([RegionRole.FUNCTION, RegionRole.LOOP,
                                                            RegionRole.POINT2POINT,
                                                            RegionRole.COLL_ONE2ALL]),
                                    source_file="f%d.c" % (i % 3),
                                    begin_line_number=rnd.randint(0, 70000),
                                    end_line_number=rnd.randint(0, 300)))
        attr_types = [Type.INT64, Type.UINT64, Type.DOUBLE, Type.INT32, Type.UINT32, Type.UINT8,
                      Type.FLOAT]
        attrs = [d.attribute("attr %d" % i, description="d%d" % i, type=t)
                 for i, t in enumerate(attr_types)]
        members = [d.metric_member("counter %d" % i, unit="u%d" % i,
                                   value_type=rnd.choice([Type.INT64, Type.UINT64, Type.DOUBLE]),
                                   metric_type=MetricType.PAPI, metric_mode=MetricMode.ACCUMULATED_START)
                   for i in range(3)]
        metric_classes = [d.metric_class(members[:1], MetricOccurrence.SYNCHRONOUS_STRICT, RecorderKind.CPU),
                          d.metric_class(members, MetricOccurrence.SYNCHRONOUS_STRICT, RecorderKind.CPU)]

        def value_for(t):
            if t == Type.INT64:
                return rnd.randint(-2**63, 2**63 - 1)
            if t == Type.UINT64:
                return rnd.choice([0, 1, 255, 256, 2**64 - 1, rnd.randint(0, 2**64 - 1)])
            if t == Type.INT32:
                return rnd.randint(-2**31, 2**31 - 1)
            if t == Type.UINT32:
                return rnd.choice([0, 2**32 - 1, rnd.randint(0, 2**32 - 1)])
            if t == Type.UINT8:
                return rnd.randint(0, 255)
            return rnd.choice([0.0, -1.5, 2.5e10, rnd.random()])

        for li, loc in enumerate(locs):
            w = trace.event_writer_from_location(loc)
            time = rnd.randint(0, 10**6)
            stack = []
            for _ in range(rnd.randint(events_per_location // 2, events_per_location)):
                time += rnd.choice([0, 1, 7, 300, 70000])
                kw = {}
                if rnd.random() < 0.1:
                    chosen = rnd.sample(attrs, rnd.randint(1, 3))
                    kw["attributes"] = {a: value_for(a.type) for a in chosen}
                r = rnd.random()
                comm = rnd.choice(comms)
                peer = rnd.randrange(len(comm.group.members))
                tag = rnd.choice([0, 1, 255, 256, 65535, 2**31 - 1])
                size = rnd.choice([0, 8, 1 << 20, rnd.randint(0, 2**40)])
                req = rnd.randint(0, 2**40)
                if r < 0.35 and len(stack) < 20:
                    reg = rnd.choice(regions)
                    stack.append(reg)
                    w.enter(time, reg, **kw)
                elif r < 0.6 and stack:
                    w.leave(time, stack.pop(), **kw)
                elif r < 0.65:
                    w.mpi_send(time, peer, comm, tag, size, **kw)
                elif r < 0.7:
                    w.mpi_recv(time, peer, comm, tag, size, **kw)
                elif r < 0.73:
                    w.mpi_isend(time, peer, comm, tag, size, req, **kw)
                elif r < 0.76:
                    w.mpi_isend_complete(time, req, **kw)
                elif r < 0.79:
                    w.mpi_irecv_request(time, req, **kw)
                elif r < 0.82:
                    w.mpi_irecv(time, peer, comm, tag, size, req, **kw)
                elif r < 0.84:
                    w.mpi_request_test(time, req, **kw)
                elif r < 0.85:
                    w.mpi_request_cancelled(time, req, **kw)
                elif r < 0.88:
                    w.mpi_collective_begin(time, **kw)
                    w.mpi_collective_end(time + 1, rnd.choice([CollectiveOp.BARRIER, CollectiveOp.BCAST, CollectiveOp.ALLREDUCE, CollectiveOp.REDUCE]), comm,
                                         rnd.choice([0, 2**32 - 1]), size, size // 2)
                    time += 1
                elif r < 0.95:
                    mc = rnd.choice(metric_classes)
                    w.metric(time, mc, [value_for(m.value_type) for m in mc.members], **kw)
                else:
                    w.parameter_int(time, d.parameter("p", parameter_type=ParameterType.INT64), rnd.randint(-5, 5))
            while stack:
                time += 1
                w.leave(time, stack.pop())


def hybrid(path):
    """Two ranks of two threads each, as Score-P records a hybrid MPI +
    OpenMP run: a parallel region on both threads (fork, thread team, loop,
    implicit barrier, join), a late send from rank 0 to rank 1, an RMA put,
    a POSIX write, measurement switched off and on, a buffer flush, a
    barrier and MPI_Finalize, between ProgramBegin and ProgramEnd. Times in
    ns from 1000."""
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        d = trace.definitions
        root = d.system_tree_node("machine")
        ranks = []
        for p in range(2):
            lg = d.location_group("Rank %d" % p, system_tree_parent=root)
            ranks.append((d.location("Master thread", group=lg, type=LocationType.CPU_THREAD),
                          d.location("OMP thread 1", group=lg, type=LocationType.CPU_THREAD)))
        masters = [m for m, _ in ranks]
        d.group("world locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                members=masters)
        world = d.comm("MPI_COMM_WORLD",
                       group=d.group("world", group_type=GroupType.COMM_GROUP,
                                     paradigm=Paradigm.MPI, members=masters))
        d.group("omp locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.OPENMP,
                members=[l for r in ranks for l in r])
        teams = [d.comm("team %d" % p,
                        group=d.group("team %d" % p, group_type=GroupType.COMM_GROUP,
                                      paradigm=Paradigm.OPENMP, members=list(r)))
                 for p, r in enumerate(ranks)]

        def region(name, paradigm, role=RegionRole.FUNCTION):
            return d.region(name, paradigm=paradigm, region_role=role)

        main = region("main", Paradigm.USER)
        init = region("MPI_Init", Paradigm.MPI)
        send = region("MPI_Send", Paradigm.MPI, RegionRole.POINT2POINT)
        recv = region("MPI_Recv", Paradigm.MPI, RegionRole.POINT2POINT)
        barrier = region("MPI_Barrier", Paradigm.MPI, RegionRole.BARRIER)
        finalize = region("MPI_Finalize", Paradigm.MPI)
        parallel = region("!$omp parallel @x.c:10", Paradigm.OPENMP, RegionRole.PARALLEL)
        loop = region("!$omp for @x.c:12", Paradigm.OPENMP, RegionRole.LOOP)
        implicit = region("!$omp implicit barrier @x.c:20", Paradigm.OPENMP,
                          RegionRole.IMPLICIT_BARRIER)
        fwrite = region("fwrite", Paradigm.USER)
        put = region("MPI_Put", Paradigm.MPI, RegionRole.RMA)
        win = d.rma_win("win", world)
        posix = d.io_paradigm("POSIX", "POSIX I/O", IoParadigmClass.SERIAL, IoParadigmFlag.NONE)
        handle = d.io_handle("out.dat", file=d.io_regular_file("out.dat", scope=root),
                             io_paradigm=posix, io_handle_flags=IoHandleFlag.NONE, comm=None,
                             parent=None)
        for p, (master, worker) in enumerate(ranks):
            w = trace.event_writer_from_location(master)
            x = trace.event_writer_from_location(worker)
            w.program_begin(1000, "a.out", [])
            w.enter(1000, main)
            w.enter(1100, init)
            w.leave(1600, init)
            w.omp_fork(1610, 2)
            w.thread_fork(1610, Paradigm.OPENMP, 2)
            for thread, t in ((w, 1615), (x, 1618)):
                thread.thread_team_begin(t, teams[p])
                thread.enter(t + 1, parallel)
                thread.enter(t + 2, loop)
                thread.leave(t + 300 + 50 * p, loop)
                thread.enter(t + 301 + 50 * p, implicit)
                thread.leave(t + 400, implicit)
                thread.leave(t + 401, parallel)
                thread.thread_team_end(t + 402, teams[p])
            w.omp_join(2025)
            w.thread_join(2025, Paradigm.OPENMP)
            if p == 0:
                w.enter(2430, send)
                w.mpi_send(2431, 1, world, 7, 1024)
                w.leave(2450, send)
            else:
                w.enter(2030, recv)
                w.mpi_recv(2460, 0, world, 7, 1024)
                w.leave(2470, recv)
            w.rma_win_create(2500, win)
            w.enter(2501, put)
            w.rma_put(2502, win, 1 - p, 64, 5)
            w.rma_op_complete_blocking(2503, win, 5)
            w.leave(2504, put)
            w.rma_sync(2505, win, 1 - p, RmaSyncType.MEMORY)
            w.rma_win_destroy(2506, win)
            w.enter(2600, fwrite)
            w.io_create_handle(2601, handle, IoAccessMode.WRITE_ONLY, IoCreationFlag.CREATE,
                               IoStatusFlag.NONE)
            w.io_operation_begin(2602, handle, IoOperationMode.WRITE, IoOperationFlag.NONE, 4096, 3)
            w.io_operation_complete(2609, handle, 4096, 3)
            w.io_destroy_handle(2610, handle)
            w.leave(2611, fwrite)
            w.measurement_on_off(2700, MeasurementMode.OFF)
            w.measurement_on_off(2750, MeasurementMode.ON)
            w.buffer_flush(2760, 2770)
            w.enter(2800 + 100 * p, barrier)
            w.mpi_collective_begin(2801 + 100 * p)
            w.mpi_collective_end(3000, CollectiveOp.BARRIER, world, 2**32 - 1, 0, 0)
            w.leave(3001, barrier)
            w.enter(3100, finalize)
            w.leave(3200, finalize)
            w.leave(3300, main)
            w.program_end(3300, 0)


def ref(x):
    if x is None:
        return None
    return getattr(x, "_ref", x)


def num(x):
    if x is None:
        return None
    if isinstance(x, int):
        return x
    v = x.value
    if isinstance(v, bytes):
        return v[0]
    return int(v)


def text(x):
    if x is None:
        return ""
    return str(getattr(x, "name", x)) if not isinstance(x, str) else x


def value(v):
    if hasattr(v, "_ref"):
        return v._ref
    return v


def dump(anchor):
    out = {"locations": [], "location_groups": [], "system_tree": [], "regions": [], "groups": [],
           "comms": [], "attributes": [], "metric_members": [], "metrics": [], "events": []}
    with otf2.reader.open(anchor) as t:
        d = t.definitions
        cp = d.clock_properties
        out["clock"] = [cp.timer_resolution, cp.global_offset, cp.trace_length]
        for l in d.locations:
            out["locations"].append([l._ref, text(l.name), num(l.type), l.number_of_events,
                                     ref(l.group)])
        for g in d.location_groups:
            out["location_groups"].append([g._ref, text(g.name), num(g.location_group_type),
                                           ref(g.system_tree_parent)])
        for n in d.system_tree_nodes:
            out["system_tree"].append([n._ref, text(n.name), text(n.class_name), ref(n.parent)])
        for r in d.regions:
            out["regions"].append([r._ref, text(r.name), text(r.canonical_name),
                                   text(r.description), num(r.region_role), num(r.paradigm),
                                   num(r.region_flags), text(r.source_file), r.begin_line_number,
                                   r.end_line_number])
        comm_locations = {}
        for g in d.groups:
            if g.group_type == GroupType.COMM_LOCATIONS:
                comm_locations[num(g.paradigm)] = g
        for g in d.groups:
            if g.group_type == GroupType.COMM_GROUP:
                members = [comm_locations[num(g.paradigm)].members.index(m) for m in g.members]
            else:
                members = [ref(m) for m in g.members]
            out["groups"].append([g._ref, text(g.name), num(g.group_type), num(g.paradigm),
                                  num(g.group_flags), members])
        for c in d.comms:
            out["comms"].append([c._ref, text(c.name), ref(c.group), ref(c.parent)])
        for a in d.attributes:
            out["attributes"].append([a._ref, text(a.name), text(a.description), num(a.type)])
        for m in d.metric_members:
            out["metric_members"].append([m._ref, text(m.name), text(m.description),
                                          num(m.metric_type), num(m.metric_mode),
                                          num(m.value_type), num(m.base), m.exponent, text(m.unit)])
        for m in d.metrics:
            if type(m).__name__ == "MetricClass":
                out["metrics"].append([m._ref, "class", [ref(x) for x in m.members],
                                       num(m.occurrence), num(m.recorder_kind)])
            else:
                out["metrics"].append([m._ref, "instance", ref(m.metric_class), ref(m.recorder),
                                       num(m.metric_scope), ref(m.scope)])
        per_loc = {}
        for loc, e in t.events:
            name = type(e).__name__
            f = [loc._ref, e.time, name]
            if name in ("Enter", "Leave"):
                f.append(ref(e.region))
            elif name in ("MpiSend", "MpiIsend"):
                f += [e.receiver, ref(e.communicator), e.msg_tag, e.msg_length]
                if name == "MpiIsend":
                    f.append(e.request_id)
            elif name in ("MpiRecv", "MpiIrecv"):
                f += [e.sender, ref(e.communicator), e.msg_tag, e.msg_length]
                if name == "MpiIrecv":
                    f.append(e.request_id)
            elif name in ("MpiIsendComplete", "MpiIrecvRequest", "MpiRequestTest",
                          "MpiRequestCancelled"):
                f.append(e.request_id)
            elif name == "MpiCollectiveEnd":
                f += [num(e.collective_op), ref(e.communicator), e.root, e.size_sent,
                      e.size_received]
            elif name == "Metric":
                f += [ref(e.metric), [value(v) for v in e.values]]
            elif name == "ProgramBegin":
                f += [text(e.program_name), [text(a) for a in e.program_arguments]]
            elif name == "ProgramEnd":
                f.append(e.exit_status)
            elif name != "MpiCollectiveBegin":
                f[2] = "Other"
            attrs = sorted([a._ref, num(a.type), value(v)] for a, v in (e.attributes or {}).items())
            f.append(attrs)
            per_loc.setdefault(loc._ref, []).append(f)
        for l in d.locations:
            out["events"] += per_loc.get(l._ref, [])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 3000)
    elif sys.argv[1] == "hybrid":
        hybrid(sys.argv[2])
    else:
        dump(sys.argv[2])
