#!/usr/bin/env python3
"""Reads a .cubex with pycubexr (PyPI, the reader of the Extra-P project) and
prints what it read as JSON, for tests/cube_file.rs to compare with what
mpelog::cube wrote:

    dump_cubex.py FILE.cubex

{"metrics": [tree], "cnodes": [tree], "locations": [...],
 "values": {uniq_name: {cnode id: [value per location]}}}

Prints NO-PYCUBEXR (exit 0) when pycubexr cannot be imported.
"""
import json
import sys

try:
    from pycubexr import CubexParser
except ImportError:
    print("NO-PYCUBEXR")
    sys.exit(0)


def metric_tree(m):
    return {"uniq": m.name, "disp": m.display_name, "type": m.metric_type,
            "dtype": m.data_type, "uom": m.units, "url": m.url, "descr": m.description,
            "children": [metric_tree(c) for c in m.childs]}


def cnode_tree(parser, c):
    return {"id": c.id, "region": parser.get_region(c).name,
            "paradigm": parser.get_region(c).paradigm,
            "children": [cnode_tree(parser, k) for k in c.get_children()]}


with CubexParser(sys.argv[1]) as parser:
    out = {"metrics": [metric_tree(m) for m in parser.get_metrics()],
           "cnodes": [cnode_tree(parser, c) for c in parser.get_root_cnodes()],
           "locations": [], "values": {}}
    root = parser._anchor_result.system_tree_nodes[0]

    def walk(node, path):
        path = path + [node.name]
        for group in node._location_group_children:
            for loc in group.all_locations():
                out["locations"].append({"id": loc.id, "name": loc.name, "rank": int(loc.rank),
                                         "process": group.name, "process_rank": int(group.rank),
                                         "system": path})
        for child in node._system_tree_node_children:
            walk(child, path)

    walk(root, [])
    for m in parser.all_metrics():
        values = parser.get_metric_values(m)
        out["values"][m.name] = {
            str(c.id): [float(v) for v in values.cnode_values(c)] for c in parser.all_cnodes()}
    print(json.dumps(out))
