#!/bin/sh
# `mpelog analyze` against `mpelog stats` on the same files in one run (wall
# time and peak RSS from /usr/bin/time -v; no assertions): a generated CLOG2
# of about 1 GB and a generated trace of 1,024 timelines. Then, when the
# corpus is given, pipit (a developer-time oracle: hpcgroup/pipit from git)
# on our pipit CSV export next to analyze's imbalance table.
#
# With PIPIT=DIR (a checkout of hpcgroup/pipit, e.g. /work/oracles-pipit/pipit;
# never required), pipit runs in the same run on each trace's pipit CSV
# (`mpelog export --format csv`): reading it, its flat profile and its load
# imbalance (benches/pipit_profile.py), with wall time and peak RSS beside
# stats and analyze, capped at PIPIT_TIMEOUT seconds (default 600). pandas
# holds the whole CSV, so the 1 GB trace is replaced for pipit (and measured
# again with stats and analyze) by one of PIPIT_EVENTS events (default
# 2,700,000, a tenth of it) unless PIPIT_BIG=1.
#
#   benches/analyze_speed.sh WORKDIR [MPELOG] [CORPUS]
#
# WORKDIR holds the generated traces (about 1.1 GB; kept for reruns);
# MPELOG defaults to target/release/mpelog; CORPUS (e.g. /work/shared/corpus)
# adds the pipit comparison on mpe/p2p_n4 and mpe/colls_n4, with
# PIPIT_ORACLE (default /work/oracles-pipit/bin/pipit_oracle.py).
set -eu
dir=$1
mpelog=${2:-target/release/mpelog}
corpus=${3:-}
oracle=${PIPIT_ORACLE:-/work/oracles-pipit/bin/pipit_oracle.py}
mkdir -p "$dir"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
big=$dir/big.clog2
wide=$dir/wide1024.clog2
[ -f "$big" ] || "$mpelog" synth -o "$big" --ranks 16 --events 27000000 --seed 7 >/dev/null
[ -f "$wide" ] || "$mpelog" synth -o "$wide" --ranks 1024 --events 4000000 --seed 8 >/dev/null
echo "load: $(uptime)"
measure() {
    what=$1
    file=$2
    shift 2
    /usr/bin/time -v "$@" 2>"$out/time" >/dev/null || { cat "$out/time"; exit 1; }
    wall=$(grep 'Elapsed (wall clock)' "$out/time" | awk '{print $NF}')
    rss=$(grep 'Maximum resident set size' "$out/time" | awk '{print $NF}')
    secs=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
    bytes=$(stat -c %s "$file")
    echo "$what: $secs s wall, $(echo "$bytes $secs" | awk '{printf "%.1f", $1 / $2 / 1e6}') MB/s, peak RSS $(echo "$rss" | awk '{printf "%.1f", $1 / 1024}') MiB"
}
pipit=${PIPIT:-}
here=$(cd "$(dirname "$0")" && pwd)
files="$big $wide"
if [ -n "$pipit" ] && [ "${PIPIT_BIG:-0}" != 1 ]; then
    small=$dir/pipit${PIPIT_EVENTS:-2700000}.clog2
    [ -f "$small" ] || "$mpelog" synth -o "$small" --ranks 16 --events "${PIPIT_EVENTS:-2700000}" --seed 7 >/dev/null
    files="$big $small $wide"
fi
for f in $files; do
    echo "$f: $(stat -c %s "$f") bytes"
    measure "  mpelog stats" "$f" "$mpelog" stats "$f"
    measure "  mpelog analyze" "$f" "$mpelog" analyze "$f"
    measure "  mpelog analyze --json" "$f" "$mpelog" analyze "$f" --json
    [ -n "$pipit" ] || continue
    [ "$f" != "$big" ] || [ "${PIPIT_BIG:-0}" = 1 ] || continue
    csv=$dir/$(basename "$f" .clog2).csv
    [ -f "$csv" ] || "$mpelog" export "$f" --format csv -o "$csv" >/dev/null
    echo "  pipit CSV: $(stat -c %s "$csv") bytes"
    if PYTHONPATH=$pipit timeout "${PIPIT_TIMEOUT:-600}" /usr/bin/time -v \
        python3 "$here/pipit_profile.py" "$csv" >"$out/pipit" 2>"$out/time"; then
        wall=$(grep 'Elapsed (wall clock)' "$out/time" | awk '{print $NF}')
        rss=$(grep 'Maximum resident set size' "$out/time" | awk '{print $NF}')
        secs=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
        echo "  pipit (read + flat_profile + load_imbalance): $secs s wall, peak RSS $(echo "$rss" | awk '{printf "%.1f", $1 / 1024}') MiB"
        sed 's/^/    /' "$out/pipit"
    else
        echo "  pipit: did not finish (exit $?; timeout ${PIPIT_TIMEOUT:-600} s or out of memory)"
        tail -3 "$out/time"
    fi
done
[ -n "$corpus" ] || exit 0
for trace in p2p_n4 colls_n4; do
    f=$corpus/mpe/$trace.clog2
    echo "== $trace: pipit on our pipit CSV export"
    "$mpelog" export "$f" -o "$out/$trace.csv" >/dev/null
    measure "  pipit_oracle.py" "$out/$trace.csv" python3 "$oracle" "$out/$trace.csv"
    python3 "$oracle" "$out/$trace.csv" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("%-24s %12s %12s %9s  per process s" % ("function", "mean s", "max s", "max/mean"))
for name, v in sorted(r.items(), key=lambda kv: -kv[1]["max_s"]):
    print("%-24s %12.6f %12.6f %9.3f  %s" % (name, v["mean_over_present_s"], v["max_s"],
          v["max_over_mean"] or 0.0,
          " ".join("%.6f" % x for _, x in sorted(v["per_process_s"].items(), key=lambda kv: int(kv[0])))))
'
    echo "== $trace: mpelog analyze's imbalance table"
    measure "  mpelog analyze" "$f" "$mpelog" analyze "$f"
    "$mpelog" analyze "$f" --json | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("%-24s %12s %12s %9s  top" % ("category", "mean s", "max s", "max/mean"))
for row in r["imbalance"]:
    print("%-24s %12.6f %12.6f %9.3f  %s" % (row["category"], row["mean"], row["max"],
          row["max_over_mean"], row["top"]))
'
done
