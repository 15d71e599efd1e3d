#!/usr/bin/env python3
"""Writes a large OTF2 archive with libotf2 (the `otf2` package) for the
speed measurements of spec/otf2.md's conversion (not committed data):

    python3 benches/otf2_big_archive.py DIR [MEGABYTES] [LOCATIONS]

Each location runs rounds of: Enter a compute region, a nested MPI_Send or
MPI_Recv region with its matched message to the next or previous location,
Leave both, every 16 rounds a metric event. The event files grow to about
MEGABYTES in total (default 1000).
"""
import sys

import otf2
from otf2.enums import GroupType, LocationType, Paradigm, RegionRole, Type, MetricMode, MetricType, \
    MetricOccurrence, RecorderKind

BYTES_PER_ROUND = 60  # measured: the event-file bytes of one round below


def main(path, megabytes=1000, nlocs=8):
    rounds = megabytes * 1_000_000 // (BYTES_PER_ROUND * nlocs)
    with otf2.writer.open(path, timer_resolution=10**9) as trace:
        d = trace.definitions
        root = d.system_tree_node("machine")
        locs = []
        for p in range(nlocs):
            lg = d.location_group("Rank %d" % p, system_tree_parent=root)
            locs.append(d.location("Master thread", group=lg, type=LocationType.CPU_THREAD))
        world = d.comm("MPI_COMM_WORLD",
                       group=d.group("world", group_type=GroupType.COMM_GROUP,
                                     paradigm=Paradigm.MPI, members=locs))
        d.group("world locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                members=locs)
        compute = d.region("compute", paradigm=Paradigm.USER, region_role=RegionRole.FUNCTION)
        send = d.region("MPI_Send", paradigm=Paradigm.MPI, region_role=RegionRole.POINT2POINT)
        recv = d.region("MPI_Recv", paradigm=Paradigm.MPI, region_role=RegionRole.POINT2POINT)
        member = d.metric_member("PAPI_TOT_CYC", unit="#", value_type=Type.UINT64,
                                 metric_type=MetricType.PAPI, metric_mode=MetricMode.ACCUMULATED_START)
        cls = d.metric_class([member], MetricOccurrence.SYNCHRONOUS_STRICT, RecorderKind.CPU)
        for rank, loc in enumerate(locs):
            w = trace.event_writer_from_location(loc)
            t = 1000
            peer_up, peer_down = (rank + 1) % nlocs, (rank - 1) % nlocs
            for i in range(rounds):
                w.enter(t, compute)
                t += 5000 + (i * 7 + rank * 13) % 1000
                # Even rounds: even ranks send up, odd ranks receive from
                # below; odd rounds the other way: every send has its receive.
                if (i + rank) % 2 == 0:
                    w.enter(t + 1, send)
                    w.mpi_send(t + 2, peer_up, world, i % 64, 4096)
                    w.leave(t + 300, send)
                else:
                    w.enter(t + 1, recv)
                    w.mpi_recv(t + 400, peer_down, world, (i - 1) % 64 if nlocs % 2 else i % 64, 4096)
                    w.leave(t + 450, recv)
                t += 500
                if i % 16 == 0:
                    w.metric(t, cls, [i * 1000])
                w.leave(t + 1, compute)
                t += 2


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:]))
