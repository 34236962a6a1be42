#!/bin/bash
# Times every bench-native case on pools of 1 to 16 threads, for several
# builds in turn (the order rotated each repeat), one JSON-lines file per
# build and repeat in $OUT; `node benches/threads.mjs` summarizes them.
#
#   OUT=dir THREADS=1,2,4,8,16 benches/threads.sh REPS NAME:BINARY...
set -e
reps=$1; shift
cases=""
for p in f32 f64; do for b in 1 8 64; do for v in 32000 128256 152064 262144; do cases="$cases recover/$p/B$b/V$v"; done; done; done
for p in f32 f64; do for b in 1 64; do cases="$cases residual/$p/B$b/V152064"; done; done
for k in race seeded noise; do for p in f32 f64; do for v in 32000 128256 152064 262144; do cases="$cases $k/$p/V$v"; done; done; done
for r in vllm-0.33-f32 vllm-0.33-f64 sglang-0.5 vllm-cpu-0.32; do for v in 32000 152064 262144; do cases="$cases hashed/$r/V$v"; done; done
builds=("$@"); n=${#builds[@]}
for rep in $(seq 1 "$reps"); do
  for i in $(seq 0 $((n - 1))); do
    b=${builds[$(((i + rep - 1) % n))]}
    "${b#*:}" --threads "${THREADS:-1,2,4,8,16}" --budget-ms 250 $cases > "$OUT/${b%%:*}.rep$rep.jsonl"
  done
done
