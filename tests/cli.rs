//! The command-line tool end to end: JSON output that agrees with the library, and every kind
//! of bad input rejected with exit code 2 and one line on stderr (never a panic).
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn sosdp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sosdp"))
        .args(args)
        .output()
        .expect("run sosdp")
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sosdp-cli-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self, name: &str, contents: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, contents).unwrap();
        path.to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const DATA: &str = "0.1,0.2\n-0.3,0.5\n1.2,-0.7\n0.4,0.4\n-1.0,0.3\n5.0,5.0\n0.0,-0.2\n0.6,1.1\n";

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

fn assert_rejected(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "expected one line, got: {stderr}"
    );
    assert!(stderr.contains(needle), "expected '{needle}' in: {stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn score_mean_prints_a_certified_bracket() {
    let dir = TempDir::new("mean");
    let data = dir.file("x.csv", DATA);
    let c = dir.file("c.csv", "0,0\n");
    let t = dir.file("t.csv", "0.2,0.3\n");
    let v = json(&sosdp(&[
        "score", "mean", "--data", &data, "--center", &c, "--gamma", "1.5", "--theta", &t,
    ]));
    let (s, lo, hi) = (
        v["score"].as_f64().unwrap(),
        v["lower"].as_f64().unwrap(),
        v["upper"].as_f64().unwrap(),
    );
    assert!(
        lo <= s && s <= hi && hi - lo <= 1e-3 && s > 0.5 && s < 8.0,
        "{v}"
    );
    assert_eq!(v["backend"], "clarabel");

    // The library gives the same number.
    let x = nalgebra::DMatrix::from_row_slice(
        8,
        2,
        &[
            0.1, 0.2, -0.3, 0.5, 1.2, -0.7, 0.4, 0.4, -1.0, 0.3, 5.0, 5.0, 0.0, -0.2, 0.6, 1.1,
        ],
    );
    use sosdp::score::ScoreOracle;
    let cm = sosdp::score::CertifiedMean::new(
        &x,
        &[0.0, 0.0],
        &(nalgebra::DMatrix::identity(2, 2) * 1.5),
    )
    .unwrap();
    let lib = sosdp::score::ClarabelCm::new(cm)
        .evaluate(&[0.2, 0.3])
        .unwrap();
    assert!((lib.score - s).abs() < 1e-9);

    // Outside the Gamma-ellipsoid the score is n.
    let far = dir.file("far.csv", "3,0\n");
    let v = json(&sosdp(&[
        "score", "mean", "--data", &data, "--center", &c, "--gamma", "1.5", "--theta", &far,
    ]));
    assert_eq!(v["score"].as_f64(), Some(8.0));
    assert_eq!(v["in_domain"], false);
}

#[test]
fn score_spectral_prints_a_certified_bracket() {
    let dir = TempDir::new("spectral");
    let data = dir.file("x.csv", DATA);
    let s = dir.file("s.csv", "1.0,0.1\n0.1,0.8\n");
    let v = json(&sosdp(&[
        "score", "spectral", "--data", &data, "--matrix", &s, "--lambda", "4", "--width", "0.4",
    ]));
    let (sc, lo, hi) = (
        v["score"].as_f64().unwrap(),
        v["lower"].as_f64().unwrap(),
        v["upper"].as_f64().unwrap(),
    );
    assert!(
        lo <= sc && sc <= hi && hi - lo <= 1e-3 && sc > 0.0 && sc <= 8.0,
        "{v}"
    );
}

#[test]
fn bad_input_is_rejected_with_one_clear_line() {
    let dir = TempDir::new("bad");
    let data = dir.file("x.csv", DATA);
    let c = dir.file("c.csv", "0,0\n");
    let t = dir.file("t.csv", "0.2,0.3\n");
    let s = dir.file("s.csv", "1.0,0.1\n0.1,0.8\n");
    let mean = |data: &str, c: &str, g: &str, t: &str| {
        sosdp(&[
            "score", "mean", "--data", data, "--center", c, "--gamma", g, "--theta", t,
        ])
    };
    let spectral = |data: &str, s: &str, l: &str, w: &str| {
        sosdp(&[
            "score", "spectral", "--data", data, "--matrix", s, "--lambda", l, "--width", w,
        ])
    };

    assert_rejected(
        &mean(&dir.file("nan.csv", "1,2\nNaN,3\n"), &c, "1", &t),
        "not finite",
    );
    assert_rejected(
        &mean(&dir.file("inf.csv", "1,2\n3,inf\n"), &c, "1", &t),
        "not finite",
    );
    assert_rejected(
        &mean(&dir.file("ragged.csv", "1,2\n3\n"), &c, "1", &t),
        "ragged",
    );
    assert_rejected(&mean(&dir.file("empty.csv", ""), &c, "1", &t), "empty");
    assert_rejected(
        &mean(&dir.file("text.csv", "1,2\n3,abc\n"), &c, "1", &t),
        "not a number",
    );
    let missing = Path::new(&dir.0)
        .join("missing.csv")
        .to_string_lossy()
        .into_owned();
    assert_rejected(&mean(&missing, &c, "1", &t), "cannot read");
    assert_rejected(
        &mean(&data, &dir.file("c3.csv", "0,0,0\n"), "1", &t),
        "--center has 3 entries",
    );
    assert_rejected(
        &mean(&data, &c, "1", &dir.file("t1.csv", "0.5\n")),
        "--theta has 1 entries",
    );
    assert_rejected(&mean(&data, &c, "0", &t), "--gamma must be positive");
    assert_rejected(&mean(&data, &c, "-2", &t), "--gamma must be positive");
    assert_rejected(&mean(&data, &c, "abc", &t), "invalid value");

    assert_rejected(
        &spectral(&data, &s, "4", "1.0"),
        "--width must lie in (0, 1)",
    );
    assert_rejected(&spectral(&data, &s, "4", "0"), "--width must lie in (0, 1)");
    assert_rejected(
        &spectral(&data, &s, "-1", "0.5"),
        "--lambda must be positive",
    );
    assert_rejected(
        &spectral(
            &data,
            &dir.file("s3.csv", "1,0,0\n0,1,0\n0,0,1\n"),
            "4",
            "0.5",
        ),
        "expected 2x2",
    );
    assert_rejected(
        &spectral(&data, &dir.file("asym.csv", "1,0.5\n0,1\n"), "4", "0.5"),
        "not symmetric",
    );
    assert_rejected(
        &spectral(&dir.file("nan2.csv", "nan,1\n"), &s, "4", "0.5"),
        "not finite",
    );
}

#[test]
fn bench_score_prints_one_json_line() {
    let out = sosdp(&["bench", "score", "--n", "300", "--dim", "3", "--reps", "3"]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.trim_end().lines().count(),
        1,
        "expected one line, got: {stdout}"
    );
    let v = json(&out);
    assert_eq!(v["n"].as_u64(), Some(300));
    assert_eq!(v["dim"].as_u64(), Some(3));
    for key in [
        "fast_ms_median",
        "clarabel_ms_median",
        "fast_warm_ms_median",
    ] {
        let t = v[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} missing: {v}"));
        assert!(t.is_finite() && t >= 0.0, "{v}");
    }
    let diff = v["max_abs_diff"].as_f64().expect("max_abs_diff");
    assert!(diff <= 1e-6 * 300.0, "{v}");
    // The keys come in the documented order.
    let keys = [
        "\"n\"",
        "\"dim\"",
        "\"fast_ms_median\"",
        "\"clarabel_ms_median\"",
        "\"max_abs_diff\"",
    ];
    let pos: Vec<usize> = keys.iter().map(|k| stdout.find(k).unwrap()).collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "{stdout}");

    let v = json(&sosdp(&[
        "bench",
        "score",
        "--n",
        "200",
        "--dim",
        "2",
        "--reps",
        "2",
        "--seed",
        "5",
        "--skip-clarabel",
    ]));
    assert!(
        v["clarabel_ms_median"].is_null() && v["max_abs_diff"].is_null(),
        "{v}"
    );
    assert!(v["fast_ms_median"].as_f64().is_some(), "{v}");
    assert!(v["chord"].is_null(), "{v}");

    let v = json(&sosdp(&[
        "bench",
        "score",
        "--n",
        "300",
        "--dim",
        "2",
        "--reps",
        "1",
        "--skip-clarabel",
        "--chords",
        "3",
    ]));
    let chord = &v["chord"];
    assert_eq!(chord["chords"].as_u64(), Some(3), "{v}");
    assert!(
        chord["member_calls_median"]
            .as_f64()
            .is_some_and(|c| c >= 2.0),
        "{v}"
    );
    assert!(
        chord["length_median"].as_f64().is_some_and(|l| l > 0.0),
        "{v}"
    );
    assert_eq!(chord["fallbacks"].as_u64(), Some(0), "{v}");
    assert_eq!(chord["bisect"].as_bool(), Some(false), "{v}");

    let v = json(&sosdp(&[
        "bench",
        "score",
        "--n",
        "300",
        "--dim",
        "2",
        "--reps",
        "1",
        "--skip-clarabel",
        "--chords",
        "2",
        "--bisect",
    ]));
    assert_eq!(v["chord"]["bisect"].as_bool(), Some(true), "{v}");
    assert!(
        v["chord"]["member_calls_median"]
            .as_f64()
            .is_some_and(|c| c > 4.0),
        "{v}"
    );
}

#[test]
fn bench_score_rejects_bad_sizes() {
    let bench =
        |n: &str, d: &str, k: &str| sosdp(&["bench", "score", "--n", n, "--dim", d, "--reps", k]);
    assert_rejected(&bench("1", "3", "3"), "--n must be at least 2");
    assert_rejected(&bench("-5", "3", "3"), "--n must be at least 2");
    assert_rejected(&bench("300", "0", "3"), "--dim must be at least 1");
    assert_rejected(&bench("300", "3", "0"), "--reps must be at least 1");
    assert_rejected(&bench("abc", "3", "3"), "invalid value");
    assert_rejected(
        &sosdp(&["bench", "score", "--n", "300", "--dim", "3"]),
        "required",
    );
    let chords = |flag: &str, v: &str| {
        sosdp(&[
            "bench", "score", "--n", "300", "--dim", "3", "--reps", "1", flag, v,
        ])
    };
    assert_rejected(&chords("--chords", "-1"), "--chords must be at least 0");
    assert_rejected(&chords("--chord-tol", "0"), "--chord-tol must be positive");
    assert_rejected(
        &chords("--chord-level", "-2"),
        "--chord-level must be positive",
    );
}

/// The CSV rows of `path` (header excluded), split on commas.
fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    let mut reader =
        csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

fn assert_plots(dir: &Path, stem: &str) {
    for ext in ["png", "svg", "md"] {
        let path = dir.join(format!("{stem}.{ext}"));
        let len = std::fs::metadata(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .len();
        assert!(len > 200, "{} is only {len} bytes", path.display());
    }
}

#[test]
fn bench_accuracy_runs_every_method_on_the_same_data() {
    let dir = TempDir::new("accuracy");
    let out = sosdp(&[
        "bench",
        "accuracy",
        "--dim",
        "2",
        "--ns",
        "400,800",
        "--epsilon",
        "2",
        "--corruption",
        "0.05",
        "--adversary",
        "mixture",
        "--reps",
        "2",
        "--out",
        dir.0.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = csv_rows(&dir.0.join("accuracy.csv"));
    // 6 methods x 2 sizes x 2 repetitions, all fine.
    assert_eq!(rows.len(), 24, "{rows:?}");
    let methods: std::collections::BTreeSet<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(methods.len(), 6, "{methods:?}");
    assert!(
        methods
            .iter()
            .any(|m| m.starts_with("CoinPress (rho = 2 zCDP")),
        "{methods:?}"
    );
    for r in &rows {
        let error: f64 = r[6].parse().unwrap();
        assert!(r[8] == "ok" && (0.0..5.0).contains(&error), "{r:?}");
    }
    // Same data for every method: the seed column depends on (n, rep) only.
    for n in ["400", "800"] {
        let seeds: std::collections::BTreeSet<&str> = rows
            .iter()
            .filter(|r| r[3] == n)
            .map(|r| r[5].as_str())
            .collect();
        assert_eq!(seeds.len(), 2, "{rows:?}");
    }
    assert_plots(&dir.0, "accuracy");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("| SoS private mean (eps = 2) | pure eps = 2 | 800 |"),
        "{stdout}"
    );

    // --replot redraws from the CSV alone: the same summary, nothing rerun.
    std::fs::remove_file(dir.0.join("accuracy.png")).unwrap();
    let again = sosdp(&[
        "bench",
        "accuracy",
        "--dim",
        "2",
        "--ns",
        "400,800",
        "--epsilon",
        "2",
        "--corruption",
        "0.05",
        "--adversary",
        "mixture",
        "--reps",
        "2",
        "--out",
        dir.0.to_str().unwrap(),
        "--replot",
    ]);
    assert!(
        again.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&again.stdout), stdout);
    assert_plots(&dir.0, "accuracy");
}

/// `bench covariance` puts FastMCD beside sosdp, CoinPress and the empirical covariance on the
/// same data, and its plot marks the non-private methods. With 5% far outliers FastMCD's
/// Frobenius error stays small while the empirical covariance's is over 2 (sosdp's row may be a
/// refusal at this n; the test does not depend on it).
#[test]
fn bench_covariance_shows_the_robust_non_private_reference() {
    let dir = TempDir::new("covariance");
    let out = sosdp(&[
        "bench",
        "covariance",
        "--dim",
        "3",
        "--ns",
        "2000",
        "--epsilon",
        "2",
        "--corruption",
        "0.05",
        "--adversary",
        "far",
        "--learner",
        "covariance",
        "--reps",
        "1",
        "--out",
        dir.0.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = csv_rows(&dir.0.join("covariance.csv"));
    assert_eq!(rows.len(), 4, "{rows:?}");
    let frobenius = |method: &str| -> f64 {
        let row = rows.iter().find(|r| r[0] == method).expect(method);
        assert_eq!(row[10], "ok", "{row:?}");
        row[6].parse().unwrap()
    };
    let (mcd, empirical) = (
        frobenius("FastMCD, reweighted"),
        frobenius("empirical covariance and mean"),
    );
    assert!(
        mcd < 0.5 && empirical > 2.0,
        "MCD {mcd}, empirical {empirical}"
    );
    assert_plots(&dir.0, "covariance");
    let svg = std::fs::read_to_string(dir.0.join("covariance.svg")).unwrap();
    assert!(
        svg.contains("FastMCD, reweighted (non-private)")
            && svg.contains("empirical covariance and mean (non-private)"),
        "the legend does not mark the non-private methods"
    );
}

#[test]
fn bench_runtime_times_fits_and_evaluations_against_dimension() {
    let dir = TempDir::new("runtime");
    // At n = 300 the plans at d = 1 and 2 have a CM stage and the plan at d = 20 has none.
    let args = [
        "bench",
        "runtime",
        "--dims",
        "1,2,20,30",
        "--n",
        "300",
        "--reps",
        "1",
        "--max-fit-dim",
        "20",
        "--out",
        dir.0.to_str().unwrap(),
    ];
    let out = sosdp(&args);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = csv_rows(&dir.0.join("runtime.csv"));
    let fits: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == "private-mean fit").collect();
    let scores = rows
        .iter()
        .filter(|r| r[0] == "cold score evaluation (fast backend)")
        .count();
    let coinpress = rows
        .iter()
        .filter(|r| r[0] == "CoinPress mean (zCDP)" && r[6].parse::<f64>().is_ok())
        .count();
    assert_eq!((fits.len(), coinpress, scores), (3, 3, 4), "{rows:?}");
    assert!(
        rows.iter()
            .all(|r| r[7] == "ok" && r[5].parse::<f64>().unwrap() > 0.0),
        "{rows:?}"
    );
    // Each fit names its plan; the additive-only fit is listed but not in the exponent, which
    // is then the slope between the two CM fits (with d = 20 in it, it would differ).
    let plans: Vec<(&str, &str)> = fits
        .iter()
        .map(|r| (r[1].as_str(), r[8].as_str()))
        .collect();
    assert_eq!(
        plans,
        [
            ("1", "additive+cm"),
            ("2", "additive+cm"),
            ("20", "additive")
        ]
    );
    let seconds = |d: &str| -> f64 { fits.iter().find(|r| r[1] == d).unwrap()[5].parse().unwrap() };
    let exponent = |dims: &[&str]| {
        let points: Vec<(f64, f64)> = dims
            .iter()
            .map(|d| (d.parse().unwrap(), seconds(d)))
            .collect();
        sosdp::eval::plot::growth_exponent(&points).unwrap()
    };
    let slope = exponent(&["1", "2"]);
    // Non-vacuity: with the additive-only fit the exponent would differ.
    let with_additive = exponent(&["1", "2", "20"]);
    assert!(
        (slope - with_additive).abs() > 0.01,
        "the exclusion is not tested: {slope} {with_additive}"
    );
    assert_plots(&dir.0, "runtime");
    let summary = std::fs::read_to_string(dir.0.join("runtime.md")).unwrap();
    assert!(
        summary.contains(&format!(
            "private-mean fit: fitted growth exponent {slope:.2}"
        )),
        "{slope:.2} {summary}"
    );
    assert!(
        summary.contains("Private fits at d = 20 have no CM stage at their n"),
        "{summary}"
    );
    let mut replot = args.to_vec();
    replot.push("--replot");
    let again = sosdp(&replot);
    assert!(
        again.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&again.stdout), summary);
    // n growing with d: 300 d records, capped at 400.
    let grown = TempDir::new("runtime-grown");
    let out = sosdp(&[
        "bench",
        "runtime",
        "--dims",
        "1,2",
        "--n-per-dim",
        "300",
        "--max-n",
        "400",
        "--reps",
        "1",
        "--out",
        grown.0.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sizes: Vec<(String, String)> = csv_rows(&grown.0.join("runtime.csv"))
        .iter()
        .map(|r| (r[1].clone(), r[2].clone()))
        .collect();
    assert_eq!(sizes.len(), 6, "{sizes:?}");
    assert!(
        sizes
            .iter()
            .all(|(d, n)| (d, n) == (&"1".into(), &"300".into())
                || (d, n) == (&"2".into(), &"400".into())),
        "{sizes:?}"
    );
}

#[test]
fn bench_harness_rejects_bad_settings() {
    let dir = TempDir::new("harness-bad");
    let out = dir.0.to_str().unwrap().to_string();
    let accuracy = |extra: &[&str]| {
        let mut args = vec!["bench", "accuracy", "--dim", "2", "--out", &out];
        args.extend_from_slice(extra);
        for (flag, default) in [("--ns", "400"), ("--epsilon", "1")] {
            if !extra.contains(&flag) {
                args.extend([flag, default]);
            }
        }
        sosdp(&args)
    };
    assert_rejected(
        &accuracy(&["--corruption", "0.5"]),
        "--corruption must be in [0, 0.5)",
    );
    assert_rejected(
        &accuracy(&["--epsilon", "0"]),
        "--epsilon must be a positive number",
    );
    assert_rejected(
        &accuracy(&["--ns", "0,400"]),
        "--ns needs a comma-separated list of positive integers",
    );
    assert_rejected(&accuracy(&["--adversary", "alien"]), "invalid value");
    assert_rejected(
        &accuracy(&["--mean-norm", "20"]),
        "--mean-norm must be in [0, R = 10]",
    );
    assert_rejected(&accuracy(&["--ns", "3"]), "n = 3");
    let runtime = |extra: &[&str]| {
        let mut args = vec!["bench", "runtime", "--n", "300", "--out", &out];
        args.extend_from_slice(extra);
        sosdp(&args)
    };
    assert_rejected(
        &runtime(&["--dims", "2,0"]),
        "--dims needs a comma-separated list of positive integers",
    );
    assert_rejected(&runtime(&["--reps", "0"]), "--reps at least 1");
    assert_rejected(&runtime(&["--n-per-dim", "100"]), "cannot be used with");
    assert_rejected(
        &runtime(&["--corruption", "-0.1"]),
        "--corruption must be in [0, 0.5)",
    );
    assert!(
        !dir.0.join("accuracy.csv").exists() && !dir.0.join("runtime.csv").exists(),
        "files written before validation"
    );
}

#[test]
fn mechanism_mean_prints_independent_releases_in_the_domain() {
    let dir = TempDir::new("mechanism");
    let data = dir.file("x.csv", DATA);
    let c = dir.file("c.csv", "0.1,0.2\n");
    let out = sosdp(&[
        "mechanism",
        "mean",
        "--data",
        &data,
        "--center",
        &c,
        "--radius",
        "0.8",
        "--gamma",
        "1.5",
        "--epsilon",
        "1",
        "--draws",
        "3",
        "--seed",
        "5",
        "--iterations",
        "20",
    ]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 3);
    for v in &lines {
        let theta: Vec<f64> = v["theta"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(theta.len(), 2);
        let r2 = (theta[0] - 0.1).powi(2) + (theta[1] - 0.2).powi(2);
        assert!(
            r2 <= 0.64 + 1e-9,
            "release outside the domain ball: {theta:?}"
        );
    }
    assert_ne!(lines[0], lines[1], "two releases are identical");
    // The same seed gives the same releases.
    let again = sosdp(&[
        "mechanism",
        "mean",
        "--data",
        &data,
        "--center",
        &c,
        "--radius",
        "0.8",
        "--gamma",
        "1.5",
        "--epsilon",
        "1",
        "--draws",
        "3",
        "--seed",
        "5",
        "--iterations",
        "20",
    ]);
    assert_eq!(out.stdout, again.stdout);
    // Without a seed, fresh OS randomness: two runs differ.
    let fresh = |_| {
        let out = sosdp(&[
            "mechanism",
            "mean",
            "--data",
            &data,
            "--center",
            &c,
            "--radius",
            "0.8",
            "--gamma",
            "1.5",
            "--epsilon",
            "1",
            "--iterations",
            "20",
        ]);
        assert!(
            out.status.success(),
            "stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    assert_ne!(fresh(0), fresh(1), "unseeded runs repeated a release");
}

#[test]
fn mechanism_mean_rejects_bad_settings() {
    let dir = TempDir::new("mechanism-bad");
    let data = dir.file("x.csv", DATA);
    let c = dir.file("c.csv", "0,0\n");
    let c3 = dir.file("c3.csv", "0,0,0\n");
    let nan = dir.file("nan.csv", "1,2\nNaN,3\n");
    let run = |data: &str, c: &str, radius: &str, gamma: &str, eps: &str, draws: &str| {
        sosdp(&[
            "mechanism",
            "mean",
            "--data",
            data,
            "--center",
            c,
            "--radius",
            radius,
            "--gamma",
            gamma,
            "--epsilon",
            eps,
            "--draws",
            draws,
        ])
    };
    assert_rejected(&run(&data, &c, "1", "1.5", "0", "1"), "epsilon");
    assert_rejected(&run(&data, &c, "1", "1.5", "-1", "1"), "epsilon");
    assert_rejected(&run(&data, &c, "0", "1.5", "1", "1"), "--radius");
    assert_rejected(&run(&data, &c, "1", "-2", "1", "1"), "--gamma");
    assert_rejected(&run(&data, &c, "1", "1.5", "1", "0"), "--draws");
    assert_rejected(&run(&data, &c3, "1", "1.5", "1", "1"), "--center");
    assert_rejected(&run(&nan, &c, "1", "1.5", "1", "1"), "not finite");
    assert_rejected(
        &run("/nonexistent/x.csv", &c, "1", "1.5", "1", "1"),
        "cannot read",
    );
    let bad_sampler = sosdp(&[
        "mechanism",
        "mean",
        "--data",
        &data,
        "--center",
        &c,
        "--radius",
        "1",
        "--gamma",
        "1.5",
        "--epsilon",
        "1",
        "--sampler",
        "laplace",
    ]);
    assert_rejected(&bad_sampler, "laplace");
}

/// The top-level keys of every learner's default output: the release and nothing else
/// computed from the data (MATH.md 7).
const RELEASE_KEYS: [&str; 7] = [
    "accuracy",
    "delta",
    "epsilon",
    "estimate",
    "guarantee",
    "plan",
    "stage_releases",
];

/// The release holds exactly [`RELEASE_KEYS`], and no timing, diagnostics or sampler record
/// anywhere inside it.
fn assert_release_only(v: &serde_json::Value) {
    let keys: Vec<&str> = v
        .as_object()
        .expect("a JSON object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, RELEASE_KEYS, "{v}");
    let text = v.to_string();
    for forbidden in [
        "elapsed",
        "diagnostics",
        "anchor",
        "oracle",
        "level_offset",
        "seconds",
    ] {
        assert!(
            !text.contains(forbidden),
            "the release mentions {forbidden}: {text}"
        );
    }
    assert_eq!(v["delta"].as_f64(), Some(0.0));
    assert!(
        v["guarantee"].as_str().is_some_and(
            |g| g.contains("differential privacy") && g.contains("approximate sampler")
        )
    );
}

/// 400 deterministic 2-d rows spread over a square around (0.5, 0), for the mean's tests.
fn grid_rows() -> String {
    (0..400)
        .map(|i| {
            format!(
                "{:.4},{:.4}\n",
                ((i * 37) % 101) as f64 / 50.0 - 1.0 + 0.5,
                ((i * 53) % 97) as f64 / 48.0 - 1.0
            )
        })
        .collect()
}

#[test]
fn mean_prints_the_release_only() {
    let dir = TempDir::new("private-mean");
    let data = dir.file("x.csv", &grid_rows());
    let out_file = dir.0.join("out.json");
    let out = sosdp(&[
        "mean",
        "--input",
        &data,
        "--epsilon",
        "2",
        "--radius",
        "5",
        "--seed",
        "3",
        "--out",
        out_file.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    assert_release_only(&v);
    let est: Vec<f64> = v["estimate"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(est.len(), 2);
    assert_eq!(v["epsilon"].as_f64(), Some(2.0));
    let stages = v["plan"]["stages"].as_array().unwrap();
    assert!(!stages.is_empty() && stages.len() == v["stage_releases"].as_array().unwrap().len());
    let spent: f64 = stages.iter().map(|s| s["epsilon"].as_f64().unwrap()).sum();
    assert!((spent - 2.0).abs() < 1e-9, "stage budgets sum to {spent}");
    assert!(stages.iter().all(|s| {
        s["projection_radius"]
            .as_f64()
            .is_some_and(|r| r > s["radius"].as_f64().unwrap())
    }));
    // The bound comes with its assumptions: identity covariance and the prior.
    let bound = &v["accuracy"][0];
    assert!(bound["bound"].as_f64().is_some_and(|b| b > 0.0), "{bound}");
    let assumptions = bound["assumptions"].to_string();
    assert!(
        assumptions.contains("N(mu, I)") && assumptions.contains("R = 5"),
        "{assumptions}"
    );
    // The data's mean is about (0.5, 0): a private estimate within the prior ball and near it.
    assert!(est.iter().map(|x| x * x).sum::<f64>().sqrt() <= 5.0 + 1e-9);
}

/// `--diagnostics FILE` writes the sampler records to their own file, under a key that says
/// they are not private and without a `delta` beside them; the release is unchanged.
#[test]
fn diagnostics_go_to_their_own_file_marked_non_private() {
    let dir = TempDir::new("private-mean-diagnostics");
    let rows: String = (0..400)
        .map(|i| format!("{:.4}\n", ((i * 37) % 101) as f64 / 50.0 - 0.5))
        .collect();
    let data = dir.file("x.csv", &rows);
    let run = |extra: &[&str]| {
        let mut args = vec![
            "mean",
            "--input",
            &data,
            "--epsilon",
            "2",
            "--radius",
            "5",
            "--seed",
            "3",
        ];
        args.extend_from_slice(extra);
        json(&sosdp(&args))
    };
    let diag_file = dir.0.join("diag.json");
    let with = run(&["--diagnostics", diag_file.to_str().unwrap()]);
    assert_release_only(&with);
    assert_eq!(
        with,
        run(&[]),
        "asking for diagnostics must not change the release"
    );
    let diag: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&diag_file).unwrap()).unwrap();
    let keys: Vec<&String> = diag.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["non_private_diagnostics"]);
    let inner = &diag["non_private_diagnostics"];
    assert!(
        inner["warning"]
            .as_str()
            .is_some_and(|w| w.contains("NON-PRIVATE"))
    );
    assert!(inner["steps"].as_array().is_some_and(|s| !s.is_empty()));
    assert!(
        !diag.to_string().contains("\"delta\""),
        "no delta beside non-private data"
    );
}

#[test]
fn mean_rejects_bad_input() {
    let dir = TempDir::new("private-mean-bad");
    let data = dir.file("x.csv", DATA);
    let run = |input: &str, eps: &str, radius: &str, corruption: &str| {
        sosdp(&[
            "mean",
            "--input",
            input,
            "--epsilon",
            eps,
            "--radius",
            radius,
            "--corruption",
            corruption,
        ])
    };
    assert_rejected(
        &run(&dir.file("nan.csv", "1,2\nNaN,3\n"), "1", "5", "0"),
        "not finite",
    );
    assert_rejected(
        &run(&dir.file("inf.csv", "1,2\ninf,3\n"), "1", "5", "0"),
        "not finite",
    );
    assert_rejected(
        &run(&dir.file("ragged.csv", "1,2\n3\n"), "1", "5", "0"),
        "ragged",
    );
    assert_rejected(&run(&dir.file("empty.csv", ""), "1", "5", "0"), "empty");
    assert_rejected(&run("/nonexistent/x.csv", "1", "5", "0"), "cannot read");
    assert_rejected(&run(&data, "0", "5", "0"), "epsilon");
    assert_rejected(&run(&data, "-1", "5", "0"), "epsilon");
    assert_rejected(&run(&data, "1", "0", "0"), "radius");
    assert_rejected(&run(&data, "1", "5", "0.5"), "corruption");
    assert_rejected(&run(&data, "1", "5", "-0.1"), "corruption");
    assert_rejected(&run(&data, "1", "5", "0"), "too few samples");
}

/// Pseudo-random rows of a Gaussian-like 2-d sample with covariance far from I (CLT sums).
fn gaussian_rows(n: usize) -> String {
    let mut state = 12345u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| {
            let a: f64 = (0..12).map(|_| next()).sum::<f64>() - 6.0;
            let b: f64 = (0..12).map(|_| next()).sum::<f64>() - 6.0;
            format!("{:.5},{:.5}\n", 1.0 + 2.0 * a, -1.0 + a + b)
        })
        .collect()
}

#[test]
fn covariance_and_gaussian_print_the_release_only() {
    // The eps a list of planned stages spends.
    let stages_spent = |stages: &serde_json::Value| {
        stages
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["epsilon"].as_f64().unwrap())
            .sum::<f64>()
    };
    let dir = TempDir::new("gaussian");
    let data = dir.file("x.csv", &gaussian_rows(3000));
    let cov = json(&sosdp(&[
        "covariance",
        "--input",
        &data,
        "--epsilon",
        "2",
        "--kappa",
        "10",
        "--seed",
        "1",
    ]));
    assert_release_only(&cov);
    let c = cov["estimate"].as_array().unwrap();
    assert_eq!(c.len(), 2);
    let plan = &cov["plan"];
    let spent =
        plan["preconditioner"]["epsilon"].as_f64().unwrap() + stages_spent(&plan["refinement"]);
    assert!(
        (spent - 2.0).abs() < 1e-9,
        "covariance budgets sum to {spent}"
    );
    // A bound is a number exactly when the plan's worst case holds; otherwise null with the reason.
    let bound = &cov["accuracy"][0];
    assert_eq!(
        bound["bound"].is_null(),
        plan["guaranteed_error"].is_null(),
        "{bound}"
    );
    assert_eq!(
        bound["bound"].is_null(),
        bound["unavailable"].is_string(),
        "{bound}"
    );
    assert!(
        plan["preconditioner"]["kappa"]
            .as_f64()
            .is_some_and(|k| k >= 1.0),
        "{plan}"
    );
    assert!(bound["assumptions"].to_string().contains("K = 10"));
    // The sample's covariance is [[4, 2], [2, 2]]: a private estimate near it.
    let c00 = c[0][0].as_f64().unwrap();
    assert!((c00 - 4.0).abs() < 1.5, "covariance[0][0] = {c00}");
    let g = json(&sosdp(&[
        "gaussian",
        "--input",
        &data,
        "--epsilon",
        "2",
        "--kappa",
        "10",
        "--radius",
        "5",
        "--seed",
        "1",
        "--centring",
        "never",
    ]));
    assert_release_only(&g);
    let mean: Vec<f64> = g["estimate"]["mean"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(
        (mean[0] - 1.0).abs() < 0.5 && (mean[1] + 1.0).abs() < 0.5,
        "mean {mean:?}"
    );
    let plan = &g["plan"];
    let spent = plan["covariance"]["preconditioner"]["epsilon"]
        .as_f64()
        .unwrap()
        + stages_spent(&plan["covariance"]["refinement"])
        + stages_spent(&plan["mean"]["schedule"]["stages"]);
    assert!(
        (spent - 2.0).abs() < 1e-9,
        "Gaussian budgets sum to {spent}"
    );
    // Centred (MATH.md 5.3b): no mean step; the centring mean's stages are in the covariance's
    // plan, and the budgets still sum to eps (8000 records: at 3000 the centred plan is
    // refused).
    let larger = dir.file("y.csv", &gaussian_rows(8000));
    let centred = json(&sosdp(&[
        "gaussian",
        "--input",
        &larger,
        "--epsilon",
        "2",
        "--kappa",
        "10",
        "--radius",
        "5",
        "--centring",
        "always",
        "--seed",
        "1",
    ]));
    assert_release_only(&centred);
    let plan = &centred["plan"];
    assert!(plan["mean"].is_null(), "{plan}");
    let spent = plan["covariance"]["preconditioner"]["epsilon"]
        .as_f64()
        .unwrap()
        + stages_spent(&plan["covariance"]["refinement"])
        + stages_spent(&plan["covariance"]["centring"]["mean"]["stages"]);
    assert!(
        (spent - 2.0).abs() < 1e-9,
        "centred Gaussian budgets sum to {spent}"
    );
}

#[test]
fn covariance_and_gaussian_reject_bad_input() {
    let dir = TempDir::new("gaussian-bad");
    let data = dir.file("x.csv", &gaussian_rows(200));
    let cov = |input: &str, eps: &str, kappa: &str| {
        sosdp(&[
            "covariance",
            "--input",
            input,
            "--epsilon",
            eps,
            "--kappa",
            kappa,
        ])
    };
    assert_rejected(
        &cov(&dir.file("nan.csv", "1,2\nNaN,3\n"), "1", "10"),
        "not finite",
    );
    assert_rejected(
        &cov(&dir.file("ragged.csv", "1,2\n3\n"), "1", "10"),
        "ragged",
    );
    assert_rejected(&cov(&dir.file("empty.csv", ""), "1", "10"), "empty");
    assert_rejected(&cov("/nonexistent/x.csv", "1", "10"), "cannot read");
    assert_rejected(&cov(&data, "0", "10"), "epsilon");
    assert_rejected(&cov(&data, "1", "0.5"), "kappa");
    let gauss = |eps: &str, radius: &str, corruption: &str| {
        sosdp(&[
            "gaussian",
            "--input",
            &data,
            "--epsilon",
            eps,
            "--kappa",
            "10",
            "--radius",
            radius,
            "--corruption",
            corruption,
        ])
    };
    assert_rejected(&gauss("-1", "5", "0"), "epsilon");
    assert_rejected(&gauss("1", "0", "0"), "radius");
    assert_rejected(&gauss("1", "5", "0.5"), "corruption");
    assert_rejected(
        &sosdp(&[
            "gaussian",
            "--input",
            &dir.file("inf.csv", "1,2\ninf,3\n"),
            "--epsilon",
            "1",
            "--radius",
            "5",
        ]),
        "not finite",
    );
}

#[test]
fn a_header_line_must_be_declared_and_no_line_is_skipped() {
    let dir = TempDir::new("header");
    let plain = dir.file("x.csv", DATA);
    let headed = dir.file("h.csv", &format!("x,y\n{DATA}"));
    let c = dir.file("c.csv", "0,0\n");
    let t = dir.file("t.csv", "0.2,0.3\n");
    let score_at = |data: &str, c: &str, extra: &[&str]| {
        let mut args = vec![
            "score", "mean", "--data", data, "--center", c, "--gamma", "1.5", "--theta", &t,
        ];
        args.extend_from_slice(extra);
        sosdp(&args)
    };
    let score = |data: &str, extra: &[&str]| score_at(data, &c, extra);
    // Without --header a header line is an error naming the file, row, column and field.
    let out = score(&headed, &[]);
    assert_rejected(
        &out,
        &format!(
            "{headed}: row 1, column 1: 'x' is not a number (if the first line is a header, pass --header)"
        ),
    );
    // With --header it is skipped: the same score as without the line.
    assert_eq!(
        json(&score(&headed, &["--header"]))["score"],
        json(&score(&plain, &[]))["score"]
    );
    // An empty line, a line of empty fields: errors naming the line, never skipped.
    let blank = dir.file("blank.csv", "0.1,0.2\n\n-0.3,0.5\n1.2,-0.7\n");
    assert_rejected(&score(&blank, &[]), &format!("{blank}: row 2 is empty"));
    let trailing = dir.file("trailing.csv", &format!("x,y\n{DATA}\n"));
    assert_rejected(&score(&trailing, &["--header"]), "row 10 is empty");
    let commas = dir.file("commas.csv", "0.1,0.2\n-0.3,0.5\n , \n1.2,-0.7\n");
    assert_rejected(
        &score(&commas, &[]),
        &format!("{commas}: row 3: all 2 fields are empty"),
    );
    // Windows line endings are fine.
    let crlf = dir.file("crlf.csv", &DATA.replace('\n', "\r\n"));
    assert_eq!(
        json(&score(&crlf, &[]))["score"],
        json(&score(&plain, &[]))["score"]
    );
    // Parameter files never have a header: no --header suggestion for them.
    let c_headed = dir.file("ch.csv", "x,y\n0,0\n");
    let out = score_at(&plain, &c_headed, &[]);
    assert_rejected(
        &out,
        &format!("{c_headed}: row 1, column 1: 'x' is not a number"),
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("--header"));

    // The same flag on the other commands that read data.
    let s = dir.file("s.csv", "1.0,0.1\n0.1,0.8\n");
    let spectral = |data: &str, extra: &[&str]| {
        let mut args = vec![
            "score", "spectral", "--data", data, "--matrix", &s, "--lambda", "4", "--width", "0.4",
        ];
        args.extend_from_slice(extra);
        sosdp(&args)
    };
    assert_rejected(&spectral(&headed, &[]), "pass --header");
    assert_eq!(
        json(&spectral(&headed, &["--header"]))["score"],
        json(&spectral(&plain, &[]))["score"]
    );
    let mechanism = |extra: &[&str]| {
        let mut args = vec![
            "mechanism",
            "mean",
            "--data",
            &headed,
            "--center",
            &c,
            "--radius",
            "0.8",
            "--gamma",
            "1.5",
            "--epsilon",
            "1",
        ];
        args.extend_from_slice(extra);
        args.extend(["--iterations", "5"]);
        sosdp(&args)
    };
    assert_rejected(&mechanism(&[]), "pass --header");
    assert!(mechanism(&["--header"]).status.success());
    let mean = |extra: &[&str]| {
        let mut args = vec![
            "mean",
            "--input",
            &headed,
            "--epsilon",
            "1",
            "--radius",
            "5",
        ];
        args.extend_from_slice(extra);
        sosdp(&args)
    };
    assert_rejected(&mean(&[]), "pass --header");
    // With --header the 8 records are read (and are too few for the plan).
    assert_rejected(&mean(&["--header"]), "too few samples");
    assert_rejected(
        &sosdp(&["covariance", "--input", &headed, "--epsilon", "1"]),
        "pass --header",
    );
    assert_rejected(
        &sosdp(&[
            "gaussian",
            "--input",
            &blank,
            "--epsilon",
            "1",
            "--radius",
            "5",
        ]),
        "row 2 is empty",
    );
}

#[test]
fn a_missing_required_argument_is_named() {
    let out = sosdp(&["mean", "--input", "x.csv", "--radius", "5"]);
    assert_rejected(
        &out,
        "error: the following required arguments were not provided: --epsilon <E>",
    );
    let out = sosdp(&["score", "mean", "--data", "x.csv", "--gamma", "1"]);
    assert_rejected(&out, "not provided: --center <c.csv>, --theta <t.csv>");
    assert_rejected(
        &sosdp(&["mean", "--input", "x.csv", "--radius", "5", "--epsilo", "1"]),
        "tip: a similar argument exists: '--epsilon'",
    );
    assert_rejected(
        &sosdp(&["mechanism"]),
        "a subcommand is required; Usage: sosdp mechanism <COMMAND>",
    );
}

#[test]
fn an_unwritable_out_file_fails_before_the_data_are_read() {
    let dir = TempDir::new("out-file");
    let data = dir.file("x.csv", DATA);
    let mean = |input: &str, out: &str| {
        sosdp(&[
            "mean",
            "--input",
            input,
            "--epsilon",
            "1",
            "--radius",
            "5",
            "--out",
            out,
        ])
    };
    // The input does not exist either: the --out error comes first.
    let nowhere = dir.0.join("no-such-dir").join("out.json");
    let nowhere = nowhere.to_str().unwrap();
    assert_rejected(
        &mean("/nonexistent/x.csv", nowhere),
        &format!("cannot write --out {nowhere}: "),
    );
    // A folder is not a file.
    let folder = dir.0.to_str().unwrap();
    assert_rejected(
        &sosdp(&[
            "covariance",
            "--input",
            &data,
            "--epsilon",
            "1",
            "--out",
            folder,
        ]),
        &format!("cannot write --out {folder}: "),
    );
    // The same for the diagnostics file.
    let diagnostics = sosdp(&[
        "mean",
        "--input",
        "/nonexistent/x.csv",
        "--epsilon",
        "1",
        "--radius",
        "5",
        "--diagnostics",
        nowhere,
    ]);
    assert_rejected(
        &diagnostics,
        &format!("cannot write --diagnostics {nowhere}: "),
    );
    // A writable --out is checked without a trace: when the data are then rejected, an existing
    // file keeps its contents and a missing one is not left behind.
    let existing = dir.file("old.json", "old\n");
    assert_rejected(&mean("/nonexistent/x.csv", &existing), "cannot read");
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "old\n");
    let fresh = dir.0.join("fresh.json");
    assert_rejected(
        &mean("/nonexistent/x.csv", fresh.to_str().unwrap()),
        "cannot read",
    );
    assert!(
        !fresh.exists(),
        "the --out check left {} behind",
        fresh.display()
    );
}

#[test]
fn a_seed_is_warned_about_on_stderr() {
    let dir = TempDir::new("seed-warning");
    let rows: String = (0..400)
        .map(|i| {
            format!(
                "{:.4},{:.4}\n",
                ((i * 37) % 101) as f64 / 50.0 - 0.5,
                ((i * 53) % 97) as f64 / 48.0 - 1.0
            )
        })
        .collect();
    let data = dir.file("x.csv", &rows);
    let c = dir.file("c.csv", "0.1,0.2\n");
    let warning = "warning: --seed 3 fixes the randomness: the release is reproducible and NOT differentially private (MATH.md 7)";
    let stderr = |out: &Output| {
        assert!(
            out.status.success(),
            "stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let mean = |extra: &[&str]| {
        let mut args = vec!["mean", "--input", &data, "--epsilon", "2", "--radius", "5"];
        args.extend_from_slice(extra);
        sosdp(&args)
    };
    let seeded = stderr(&mean(&["--seed", "3"]));
    assert!(
        seeded.contains(warning) && seeded.trim_end().lines().count() == 1,
        "{seeded}"
    );
    assert_eq!(stderr(&mean(&[])), "");
    let mechanism = |extra: &[&str]| {
        let mut args = vec![
            "mechanism",
            "mean",
            "--data",
            &data,
            "--center",
            &c,
            "--radius",
            "0.8",
            "--gamma",
            "1.5",
            "--epsilon",
            "1",
            "--iterations",
            "5",
        ];
        args.extend_from_slice(extra);
        sosdp(&args)
    };
    let seeded = stderr(&mechanism(&["--seed", "3"]));
    assert!(
        seeded.contains(warning) && seeded.trim_end().lines().count() == 1,
        "{seeded}"
    );
    assert_eq!(stderr(&mechanism(&[])), "");
    // Rejected input: the warning is not printed, the error stays the one line.
    let nan = dir.file("nan.csv", "1,2\nNaN,3\n");
    assert_rejected(
        &sosdp(&[
            "covariance",
            "--input",
            &nan,
            "--epsilon",
            "1",
            "--seed",
            "3",
        ]),
        "not finite",
    );
}

/// Progress on stderr (not a terminal here) names the stage as `i/J` and carries public
/// iteration counts only, never times; the plan states each CM stage's public chain rule
/// (MATH.md 4.7b: the start, a `20 d` pilot and `40 d` counted iterations at d = 10).
#[test]
fn progress_lines_carry_public_counts_and_the_plan_states_the_chain_rule() {
    let dir = TempDir::new("progress");
    let rows: String = (0..400)
        .map(|i| {
            (0..10)
                .map(|k| format!("{:.4}", (((i * 37 + k * 11) % 101) as f64 / 50.0 - 1.0)))
                .collect::<Vec<_>>()
                .join(",")
                + "\n"
        })
        .collect();
    let data = dir.file("x.csv", &rows);
    let out = sosdp(&[
        "mean",
        "--input",
        &data,
        "--epsilon",
        "4",
        "--radius",
        "1",
        "--seed",
        "3",
    ]);
    let v = json(&out);
    let stages = v["plan"]["stages"].as_array().unwrap();
    let cm: Vec<&serde_json::Value> = stages
        .iter()
        .filter(|s| s["mechanism"]["kind"] == "cm")
        .collect();
    assert!(
        !cm.is_empty(),
        "the plan should have a CM stage: {stages:?}"
    );
    for s in &cm {
        let chain = &s["mechanism"]["chain"];
        assert_eq!(chain["pilot_iterations"].as_u64(), Some(200), "{chain}");
        assert_eq!(chain["iterations"].as_u64(), Some(400), "{chain}");
        assert!(
            chain["start"]
                .as_str()
                .is_some_and(|s| s.contains("centre"))
        );
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let progress: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("warning: --seed"))
        .collect();
    assert!(
        progress.iter().any(|l| l.contains("slice")),
        "expected slice progress lines: {stderr}"
    );
    let j = stages.len();
    for line in &progress {
        let words: Vec<&str> = line.split(' ').collect();
        let counts = |w: &str| {
            w.split_once('/')
                .is_some_and(|(a, b)| a.parse::<usize>().is_ok() && b.parse::<usize>().is_ok())
        };
        assert!(
            words.len() >= 4
                && words[0] == "stage"
                && words[1].ends_with(&format!("/{j}"))
                && counts(words[1])
                && counts(words[words.len() - 1])
                && words[2..words.len() - 1]
                    .iter()
                    .all(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-')),
            "not a public progress line: {line:?}"
        );
    }
}

#[test]
fn threads_give_the_same_release_and_zero_is_refused() {
    let dir = TempDir::new("threads");
    let data = dir.file("x.csv", &grid_rows());
    let args = [
        "mean",
        "--input",
        &data,
        "--epsilon",
        "2",
        "--radius",
        "5",
        "--seed",
        "3",
    ];
    let with = |threads: Option<&str>, env: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sosdp"));
        cmd.args(args);
        if let Some(t) = threads {
            cmd.args(["--threads", t]);
        }
        if let Some(e) = env {
            cmd.env("RAYON_NUM_THREADS", e);
        }
        let out = cmd.output().expect("run sosdp");
        json(&out);
        out.stdout
    };
    let one = with(Some("1"), None);
    assert_eq!(one, with(Some("2"), None));
    assert_eq!(one, with(None, Some("3")));
    assert_rejected(
        &sosdp(&[&args[..], &["--threads", "0"]].concat()),
        "--threads",
    );
}

/// `n` rows of `N(mu, I_d)` with `mu = 1e4 (1, ..., 1) / sqrt(d)` (seed 1), as CSV.
fn far_mean_rows(n: usize, d: usize) -> (String, f64) {
    use rand::SeedableRng;
    use rand_distr::{Distribution, StandardNormal};
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let m = 1e4 / (d as f64).sqrt();
    let rows = (0..n)
        .map(|_| {
            let row: Vec<String> = (0..d)
                .map(|_| {
                    let g: f64 = StandardNormal.sample(&mut rng);
                    format!("{:.6}", m + g)
                })
                .collect();
            row.join(",") + "\n"
        })
        .collect();
    (rows, m)
}

/// Without `--radius`, `--delta` localises the mean privately (MATH 5.5 (a)): on 20000 records
/// of `N(mu, I_10)` with `|mu| = 1e4` (far beyond any prior radius the pure mean accepts) the
/// release is within 0.1 of `mu`, says delta, and prints the localisation's plan; without
/// `--delta` the command asks for a radius before reading the data.
#[test]
fn mean_without_a_radius_localises_with_delta() {
    let dir = TempDir::new("mean-delta");
    let (rows, m) = far_mean_rows(20_000, 10);
    let data = dir.file("x.csv", &rows);
    let v = json(&sosdp(&[
        "mean",
        "--input",
        &data,
        "--epsilon",
        "1",
        "--delta",
        "1e-6",
        "--seed",
        "1",
    ]));
    let error = v["estimate"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x.as_f64().unwrap() - m).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(error <= 0.1, "error {error}: {v}");
    assert_eq!(v["delta"].as_f64(), Some(1e-6));
    assert_eq!(v["epsilon"].as_f64(), Some(1.0));
    let loc = &v["plan"]["localisation"];
    for key in [
        "bin_width",
        "threshold",
        "epsilon",
        "delta",
        "radius",
        "noise_scale",
    ] {
        assert!(loc[key].as_f64().is_some(), "{key} missing: {loc}");
    }
    assert_eq!(v["stage_releases"][0]["step"], "localisation centre");
    assert!(v.get("refusal").is_none() && v["accuracy"][0]["bound"].as_f64().is_some());
    assert_rejected(
        &sosdp(&["mean", "--input", "/nonexistent/x.csv", "--epsilon", "1"]),
        "needs a prior --radius R",
    );
    assert_rejected(
        &sosdp(&[
            "mean",
            "--input",
            "/nonexistent/x.csv",
            "--epsilon",
            "1",
            "--delta",
            "1",
        ]),
        "delta must lie in [0, 1)",
    );
}

/// 100 records in d = 10: no histogram bin can pass its threshold, and the command prints a
/// release with `"estimate": null` and the reason, exit status 0.
#[test]
fn mean_refused_by_the_localisation_prints_a_null_release() {
    let dir = TempDir::new("mean-delta-null");
    let (rows, _) = far_mean_rows(100, 10);
    let data = dir.file("x.csv", &rows);
    let v = json(&sosdp(&[
        "mean",
        "--input",
        &data,
        "--epsilon",
        "1",
        "--delta",
        "1e-6",
    ]));
    assert!(v["estimate"].is_null(), "{v}");
    assert!(
        v["refusal"]
            .as_str()
            .is_some_and(|r| r.contains("threshold")),
        "{v}"
    );
    assert_eq!(v["delta"].as_f64(), Some(1e-6));
    assert_eq!(v["stage_releases"], serde_json::json!([]));
}

/// `sosdp gaussian --delta --kappa` without `--radius` localises the mean (MATH 5.5 (a)): on
/// 8000 records of `N(mu, I_2)` with `|mu| = 1e4`, the release says delta, prints the
/// localisation's plan (bins `4 sqrt(K)` wide) and estimates the mean within 0.2 and the
/// covariance's diagonal within 0.3; with `--condition 2` in place of `--kappa` it finds the
/// scale first (the plan's `scale`, the first stage release), and estimates as well; with
/// neither, it assumes `C = 1000` and says so; `sosdp covariance --condition 2` finds the scale
/// and stays pure. Before the data are read, the command asks for a
/// radius (no delta), and refuses `--condition` with `--kappa`.
#[test]
fn gaussian_without_a_radius_localises_with_delta() {
    let dir = TempDir::new("gaussian-delta");
    let (rows, m) = far_mean_rows(8000, 2);
    let data = dir.file("x.csv", &rows);
    let v = json(&sosdp(&[
        "gaussian",
        "--input",
        &data,
        "--epsilon",
        "2",
        "--delta",
        "1e-6",
        "--kappa",
        "4",
        "--seed",
        "1",
    ]));
    let estimate = &v["estimate"];
    let error = (0..2)
        .map(|j| (estimate["mean"][j].as_f64().unwrap() - m).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(error <= 0.2, "mean error {error}: {v}");
    for j in 0..2 {
        let variance = estimate["covariance"][j][j].as_f64().unwrap();
        assert!((variance - 1.0).abs() <= 0.3, "variance {variance}: {v}");
    }
    assert_eq!(v["delta"].as_f64(), Some(1e-6));
    assert_eq!(v["plan"]["localisation"]["bin_width"].as_f64(), Some(8.0));
    assert_eq!(v["stage_releases"][0]["step"], "localisation centre");
    let no_input = [
        "gaussian",
        "--input",
        "/nonexistent/x.csv",
        "--epsilon",
        "2",
    ];
    assert_rejected(&sosdp(&no_input), "needs a prior --radius R");
    assert_rejected(
        &sosdp(&[&no_input[..], &["--condition", "4", "--kappa", "4"]].concat()),
        "cannot be used with",
    );
    // `--condition C` in place of `--kappa`: the scale is found privately first.
    let v = json(&sosdp(&[
        "gaussian",
        "--input",
        &data,
        "--epsilon",
        "2",
        "--delta",
        "1e-6",
        "--condition",
        "2",
        "--seed",
        "1",
    ]));
    let estimate = &v["estimate"];
    for j in 0..2 {
        let error = (estimate["mean"][j].as_f64().unwrap() - m).abs();
        assert!(error <= 0.2, "mean error {error}: {v}");
        let variance = estimate["covariance"][j][j].as_f64().unwrap();
        assert!((variance - 1.0).abs() <= 0.3, "variance {variance}: {v}");
    }
    assert_eq!(v["plan"]["scale"]["condition"].as_f64(), Some(2.0));
    assert!(
        v["stage_releases"][0]["step"]
            .as_str()
            .unwrap()
            .starts_with("scale unit")
    );
    // `sosdp covariance --condition C`: the scale first, and the release stays pure.
    let v = json(&sosdp(&[
        "covariance",
        "--input",
        &data,
        "--epsilon",
        "2",
        "--condition",
        "2",
        "--seed",
        "1",
    ]));
    assert_eq!(v["delta"].as_f64(), Some(0.0));
    for j in 0..2 {
        let variance = v["estimate"][j][j].as_f64().unwrap();
        assert!((variance - 1.0).abs() <= 0.3, "variance {variance}: {v}");
    }
    // Neither --kappa nor --condition: C = 1000, and a note on stderr says so.
    let out = sosdp(&[
        "gaussian",
        "--input",
        &data,
        "--epsilon",
        "2",
        "--delta",
        "1e-6",
        "--seed",
        "1",
    ]);
    let v = json(&out);
    assert_eq!(v["plan"]["scale"]["condition"].as_f64(), Some(1000.0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most C = 1000 (--condition C)"));
    assert!(v["estimate"]["mean"][0].as_f64().is_some(), "{v}");
}

/// A declared corruption above two thirds of what the plan accepts is noted on stderr (the
/// Gaussian on 8000 records in d = 2, eps = 2, K = 100, R = 10 accepts up to about 0.0199, so
/// the plan at 0.014 / (2/3) = 0.021 is refused); 0.01 is not noted, and 0.02 is refused with
/// its one line and no note.
#[test]
fn a_corruption_near_the_plans_limit_is_noted() {
    let dir = TempDir::new("gaussian-note");
    let data = dir.file("x.csv", &gaussian_rows(8000));
    let args = |eta: &'static str| {
        [
            "gaussian",
            "--input",
            data.as_str(),
            "--epsilon",
            "2",
            "--radius",
            "10",
            "--kappa",
            "100",
            "--corruption",
            eta,
        ]
    };
    let run = |eta: &'static str| sosdp(&[&args(eta)[..], &["--seed", "1"]].concat());
    let notes = |out: &Output| {
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.starts_with("note: the declared corruption"))
            .count()
    };
    let near = run("0.014");
    json(&near);
    assert_eq!(notes(&near), 1, "{}", String::from_utf8_lossy(&near.stderr));
    let below = run("0.01");
    json(&below);
    assert_eq!(notes(&below), 0);
    // Without --seed: the refusal is its only line.
    assert_rejected(&sosdp(&args("0.02")), "too few samples");
}
