#!/bin/sh
# Side by side on one OTF2 archive: `mpelog convert` to SLOG-2, libotf2's
# `otf2-print > /dev/null`, and the `otf2` package's Python reader walking
# every event; wall time and peak RSS of each from /usr/bin/time -v.
#
#   benches/otf2_speed.sh ARCHIVE_DIR [MPELOG]
#
# Make the archive first, e.g. `python3 benches/otf2_big_archive.py /tmp/big 1000`
# (about 1 GB of event files); MPELOG defaults to target/release/mpelog.
set -eu
archive=$1
mpelog=${2:-target/release/mpelog}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bytes=$(du -sb "$archive" | cut -f1)
echo "archive: $archive, $bytes bytes; load: $(uptime)"
measure() {
    name=$1
    shift
    /usr/bin/time -v "$@" 2>"$out/time" >/dev/null || { cat "$out/time"; exit 1; }
    wall=$(grep 'Elapsed (wall clock)' "$out/time" | awk '{print $NF}')
    rss=$(grep 'Maximum resident set size' "$out/time" | awk '{print $NF}')
    secs=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
    echo "$name: $wall wall, $(echo "$bytes $secs" | awk '{printf "%.1f", $1 / $2 / 1e6}') MB/s, peak RSS $rss KiB"
}
measure "mpelog convert" "$mpelog" convert "$archive" -o "$out/x.slog2"
measure "otf2-print > /dev/null" otf2-print "$archive/traces.otf2"
measure "python otf2 reader" python3 -c '
import sys, otf2
n = 0
with otf2.reader.open(sys.argv[1]) as t:
    for _loc, _ev in t.events:
        n += 1
print(n)
' "$archive/traces.otf2"
