#!/usr/bin/env bash
# Audit a private mean release with the score it was drawn from.
#
# What it shows: `sosdp mean` releases a point theta drawn by the exponential mechanism with
# density proportional to exp(-(eps_J / 2) * CM(theta)) in its last stage J, where CM is the
# certified-mean score of MATH.md 2.1 with that stage's public centre c and budget
# Gamma = G I. `sosdp score mean` recomputes CM(theta) for the release, with a certified
# bracket [lower, upper] that holds whatever the solver's accuracy.
#
# Meaning of the score: CM(theta) is (a degree-2 sum-of-squares relaxation of) the number of
# records that would have to change before the certified estimator -- "keep fractional
# weights of the records, replace the rest, so that the data have mean exactly theta and
# second moment about c at most Gamma" -- could output theta. On eta0-corrupted data even the
# true mean scores about eta0 n (the corrupted records must go). The mechanism makes a point
# of score k about exp(-eps_J (k - k_min) / 2) times less likely than the best one, and the
# public plan assumes the release scores at most eta0 n + k* (k* = the stage's score_bound in
# the JSON, a bound that holds with probability 1 - beta / J); its accuracy bound follows
# from that. A release scoring far above that ceiling would be a red flag (a sampler problem
# or data that do not fit the model).
#
# The audit is NOT private: the score is computed from the records themselves. It is for the
# data holder (to check a release before publishing it, or to debug); publishing the score,
# its bracket or anything computed from them spends privacy the release did not account for.
#
# Run from anywhere:  bash examples/audit_release.sh [WORKDIR]
# It builds the release binary and the example with cargo, writes its files to WORKDIR
# (default: a new temporary directory) and takes about 20-40 s after the build.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
cd "$repo"

echo "== build"
cargo build --release --quiet --bin sosdp --example private_mean_csv
sosdp="$repo/target/release/sosdp"

echo "== data: 4000 records of N((1, -2, 0.5), I_3), 5% in a cluster at distance 5 (the example's sample)"
cargo run --release --quiet --example private_mean_csv -- --write-sample "$work/X.csv"

echo "== release: sosdp mean --input X.csv --epsilon 1 --radius 10 --corruption 0.05 --seed 1"
# The same as `cargo run --release -- mean ...`. --seed makes the run reproducible; a release
# to publish should omit it (fresh randomness).
"$sosdp" mean --input "$work/X.csv" --header --epsilon 1 --radius 10 --corruption 0.05 --seed 1 --out "$work/release.json"

# The JSON (the release only): {"estimate": [...], "epsilon": E, "delta": 0, "guarantee": "...",
#   "accuracy": [{"metric", "bound", "probability", "assumptions", ...}],
#   "plan": {"delta_n", "stages": [{"epsilon", "radius", "gamma", "score_bound", "accuracy",
#            "deviation", "projection_radius"}, ...]},
#   "stage_releases": [{"step", "release": [...]}, ...]}.
# The estimate is the last stage's release; its centre is the previous stage's release (0 for
# the first) and, with its gamma, defines its score. The stage scores the records projected onto
# B(centre, projection_radius); the audit below scores the records as given, which is the same
# score when every record lies in that ball (checked below).
python3 - "$work" <<'EOF'
import json, sys, os
work = sys.argv[1]
r = json.load(open(os.path.join(work, "release.json")))
last = r["plan"]["stages"][-1]
releases = [s["release"] for s in r["stage_releases"]]
assert r["estimate"] == releases[-1], "the estimate is the last stage's release"
centre = releases[-2] if len(releases) > 1 else [0.0] * len(r["estimate"])
records = [[float(x) for x in line.split(",")] for line in list(open(os.path.join(work, "X.csv")))[1:] if line.strip()]
outside = sum(1 for y in records if sum((a - b) ** 2 for a, b in zip(y, centre)) ** 0.5 > last["projection_radius"])
print("records outside the last stage's projection ball: %d (0: the audit scores exactly what the stage scored)" % outside)
def row(path, v):
    with open(os.path.join(work, path), "w") as f:
        f.write(",".join(repr(float(x)) for x in v) + "\n")
row("t.csv", r["estimate"])
row("c.csv", centre)
row("truth.csv", [1.0, -2.0, 0.5])
# A point as far from the estimate as the last stage's ball allows, along the first axis.
row("far.csv", [x + (last["radius"] if k == 0 else 0.0) for k, x in enumerate(r["estimate"])])
with open(os.path.join(work, "gamma"), "w") as f:
    f.write(repr(float(last["gamma"])))
n = sum(1 for line in open(os.path.join(work, "X.csv")) if line.strip()) - 1  # minus the header
with open(os.path.join(work, "ceiling"), "w") as f:
    f.write("%.1f" % (0.05 * n + last["score_bound"]))
print("estimate        :", [round(x, 4) for x in r["estimate"]], " eps =", r["epsilon"], " delta =", r["delta"])
print("guarantee       :", r["guarantee"])
for j, s in enumerate(r["plan"]["stages"]):
    print("stage %d (public): eps %.4f radius %.4f Gamma = %.4f I  score bound k* = %.1f  accuracy bound %.4f  projection radius %.2f"
          % (j + 1, s["epsilon"], s["radius"], s["gamma"], s["score_bound"], s["accuracy"], s["projection_radius"]))
EOF
G="$(cat "$work/gamma")"

echo "== audit (NOT private): sosdp score mean --data X.csv --center c.csv --gamma $G --theta ..."
for name in t truth far; do
    case $name in
        t) what="the release" ;;
        truth) what="the true mean (known here because the data are synthetic)" ;;
        far) what="the release moved by the last stage's radius along axis 1" ;;
    esac
    printf '%-60s ' "$what:"
    "$sosdp" score mean --data "$work/X.csv" --header --center "$work/c.csv" --gamma "$G" --theta "$work/$name.csv"
done
echo "score: records to change before the certified estimator could output theta; [lower, upper] is certified."
echo "The plan assumed the release scores at most eta0 n + k* = 0.05 n + k* = $(cat "$work/ceiling") (last stage)."
echo "Files in $work"
