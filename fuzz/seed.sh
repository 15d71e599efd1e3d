#!/bin/sh
# Seeds every fuzz target's corpus (fuzz/corpus/TARGET/) from the real-file corpus.
# Usage: MPELOG_CORPUS=../../shared/corpus sh seed.sh   (run in fuzz/)
# Files are copied, never linked; fuzz/corpus is not committed. The targets not
# seeded here start from nothing and find their structures quickly
# (slog2_tree_dir, slog2_tree_node, slog2_category_map, slog2_line_id_maps,
# clog2_writer_ops), or want generated inputs (slog2_frame: files from
# `mpelog convert --compress` after a 16-byte prefix, see the README;
# annotation_window: any bytes over its built-in trace).
# Each target gets its input form: conformance_check takes real files as they are
# (detection) and, for the SLOG-2 checkers, also forced copies (first byte 0xF2
# for SLOG-2, see the target); slog2_window takes a file followed by a 17-byte
# query (two big-endian f64 and a pixel count).
set -eu
C=${MPELOG_CORPUS:?set MPELOG_CORPUS to the corpus directory}
seed() { # seed TARGET FILE...
    t=$1; shift
    mkdir -p "corpus/$t"
    for f in "$@"; do [ -f "$f" ] && cp "$f" "corpus/$t/"; done
}
small_clog2="$C/mpe/cpilog_n4_bs4k.clog2 $C/mpe/p2p_n4_bs4k.clog2 $C/mpe/cpilog_n1.clog2 $C/mpe/nested_states_n1.clog2"
for t in clog2_stream conformance_check; do seed $t $small_clog2; done
# Targets whose first byte is a parameter get it in front of the file:
# clog2_buf_independent a count of chunk sizes, then the sizes (here 3: 7, 64, 1);
# clog2_to_slog2 and clog1_to_slog2 the tree options (0: 64-byte leaves, 2
# children; 0x4f: 1 KiB leaves, 3 children).
prefixed() { # prefixed TARGET SUFFIX PREFIX-BYTES FILE...
    t=$1; sfx=$2; pre=$3; shift 3
    mkdir -p "corpus/$t"
    for f in "$@"; do
        [ -f "$f" ] && { printf "$pre"; cat "$f"; } > "corpus/$t/$(basename "$f").$sfx"
    done
}
prefixed clog2_buf_independent chunks '\003\007\100\001' $small_clog2
prefixed clog2_to_slog2 ls64 '\000' $small_clog2
prefixed clog2_to_slog2 ls1k '\117' $small_clog2
# clog2_export_one_pass: the sort memory (1 + 64 x byte bytes: 65 B, 16 KiB).
prefixed clog2_export_one_pass m65 '\001' $small_clog2
prefixed clog2_export_one_pass m16k '\377' $small_clog2
mkdir -p corpus/clog2_preamble
for f in $small_clog2; do head -c 1024 "$f" > "corpus/clog2_preamble/$(basename "$f").pre"; done
old_clog="$C/mpich1/clog1/arrowtest.clog $C/mpich1/clog1/simple.clog $C/mpich1/clog1/nesttest.clog $C/historic/fpilog.clog"
for t in clog1_file conformance_check; do seed $t $old_clog; done
prefixed clog1_to_slog2 ls64 '\000' $old_clog
prefixed clog1_to_slog2 ls1k '\117' $old_clog
small_slog2="$C/mpe/cpi_n4.slog2 $C/mpe/cpilog_n4_ls1k.slog2 $C/mpe/p2p_n8_ls4k_nc4.slog2 $C/historic/arrow.slog2 $C/historic/data.slog2"
for t in slog2_file slog2_check conformance_check; do seed $t $small_slog2; done
# conformance_check: the SLOG-2 checker forced (0xF2 = 0xF0 + index of SLOG-2).
for f in $small_slog2; do
    { printf '\362'; cat "$f"; } > "corpus/conformance_check/$(basename "$f").forced"
done
# slog2_window: each file, then the window [0, 1e9) in 100 pixels and the window
# [0, 0.5) in 7 pixels.
mkdir -p corpus/slog2_window
for f in $small_slog2; do
    b=$(basename "$f")
    { cat "$f"; printf '\0\0\0\0\0\0\0\0\101\315\315\145\0\0\0\0\144'; } > "corpus/slog2_window/$b.all"
    { cat "$f"; printf '\0\0\0\0\0\0\0\0\77\340\0\0\0\0\0\0\7'; } > "corpus/slog2_window/$b.half"
done
for f in $small_slog2; do mkdir -p corpus/slog2_header; head -c 300 "$f" > "corpus/slog2_header/$(basename "$f").hdr"; done
alog="$C/mpich1/alog/cpilog.alog $C/mpich1/alog/srtest.alog $C/mpich1/alog/monte.log $C/mpich1/alog/gmm.log"
for t in alog_file conformance_check; do seed $t $alog "$C/mpich1/alog/gmmlog_profile.log.Z"; done
mkdir -p corpus/alog_line
for f in $alog; do split -l 1 -a 4 "$f" "corpus/alog_line/$(basename "$f")."; done
for t in slog1_file conformance_check; do seed $t "$C/mpich1/slog1/sample.slog"; done
# OTF2: anchors as they are; definitions after a chunk-size byte (0xff: 1 MiB
# chunks, which hold each of these small files whole);
# event files after that byte, a two-byte length and the global definitions.
for a in ping-pong-otf2 ping-pong-otf2-papi; do
    d="$C/otf2/$a"
    [ -d "$d" ] || continue
    mkdir -p corpus/otf2_anchor corpus/otf2_defs corpus/otf2_events
    cp "$d/traces.otf2" "corpus/otf2_anchor/$a.otf2"
    { printf '\377'; cat "$d/traces.def"; } > "corpus/otf2_defs/$a.def"
    { printf '\377'; cat "$d/traces/1.def"; } > "corpus/otf2_defs/$a.1.def"
    n=$(wc -c < "$d/traces.def")
    for l in 0 1; do
        { printf '\377'; printf "\\$(printf %o $((n / 256)))\\$(printf %o $((n % 256)))"; cat "$d/traces.def" "$d/traces/$l.evt"; } > "corpus/otf2_events/$a.$l.evt"
    done
done
echo "seeded: $(ls corpus | wc -l) targets"
# wait_index: the indexes `mpelog analyze --write-index` writes for two small
# traces (made in a temporary directory; needs the mpelog binary on PATH or
# MPELOG).
M=${MPELOG:-mpelog}
if command -v "$M" >/dev/null 2>&1; then
    t=$(mktemp -d)
    mkdir -p corpus/wait_index
    for f in $C/mpe/p2p_n4.clog2 $C/mpe/colls_n4.clog2; do
        [ -f "$f" ] || continue
        cp "$f" "$t/"
        "$M" analyze "$t/$(basename "$f")" --write-index >/dev/null 2>&1 &&
            cp "$t/$(basename "$f").waits" corpus/wait_index/
    done
    rm -rf "$t"
fi
# trace_columns: a file of each format mpelog detects, then the window [0, 1e9)
# with every column selected, and the window [0, 0.5) with the info text and
# every other typed column.
mkdir -p corpus/trace_columns
for f in $small_slog2 $small_clog2 $old_clog "$C/mpich1/alog/cpilog.alog" "$C/mpich1/slog1/sample.slog"; do
    [ -f "$f" ] || continue
    b=$(basename "$f")
    { cat "$f"; printf '\0\0\0\0\0\0\0\0\101\315\315\145\0\0\0\0\377'; } > "corpus/trace_columns/$b.all"
    { cat "$f"; printf '\0\0\0\0\0\0\0\0\77\340\0\0\0\0\0\0\125'; } > "corpus/trace_columns/$b.half"
done
