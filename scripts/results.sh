#!/usr/bin/env bash
# Regenerate docs/results/ (the harness runs behind docs/results.md and the README's results
# table). Release build; about 1.5 hours on the 2-core project machine (plus about 10 minutes for the d = 10 rows), most of it the
# private-mean fits at n = 20000, and about 1.4 hours more for the runtime with n = 1000 d (its
# d = 50 fit alone about an hour, the d = 100 score evaluation 6 minutes). Run on an idle machine: the CSVs record times.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
sosdp=target/release/sosdp
out=docs/results
$sosdp bench accuracy --dim 5 --ns 1000,2000,5000,10000,20000 --epsilon 1 --corruption 0.05 --adversary cluster --reps 3 --out $out/accuracy-d5-cluster
$sosdp bench accuracy --dim 5 --ns 1000,2000,5000,10000,20000 --epsilon 1 --corruption 0 --adversary none --reps 3 --out $out/accuracy-d5-clean
$sosdp bench runtime --dims 2,5,10,20,50,100 --n 2000 --reps 2 --out $out/runtime-n2000
$sosdp bench accuracy --dim 10 --ns 20000 --epsilon 1 --corruption 0.05 --adversary cluster --reps 2 --out $out/accuracy-d10-cluster
$sosdp bench accuracy --dim 10 --ns 20000 --epsilon 1 --corruption 0 --adversary none --reps 2 --out $out/accuracy-d10-clean
# Runtime with n = 1000 d: d = 2 to 20 twice, d = 50 once, the score evaluation alone at d = 100,
# the rows merged and replotted.
$sosdp bench runtime --dims 2,5,10,20 --n-per-dim 1000 --reps 2 --out $out/runtime-n1000d
d50=$(mktemp -d)
d100=$(mktemp -d)
$sosdp bench runtime --dims 50 --n-per-dim 1000 --reps 1 --out "$d50"
$sosdp bench runtime --dims 100 --n-per-dim 1000 --reps 1 --max-fit-dim 50 --out "$d100"
tail -n +2 "$d50/runtime.csv" >> $out/runtime-n1000d/runtime.csv
tail -n +2 "$d100/runtime.csv" >> $out/runtime-n1000d/runtime.csv
$sosdp bench runtime --dims 2,5,10,20,50,100 --n-per-dim 1000 --reps 2 --max-fit-dim 50 --replot --out $out/runtime-n1000d
