//! Every scenario and variant, on both binaries, at small sizes: the checksum must equal
//! the one computed here independently of the program.

mod common;

use common::{BINARIES, Lcg, checksum, record, run};
use serde_json::Value;
use std::path::Path;

#[test]
fn hashmap_every_variant_and_shape() {
    let (tasks, items) = (200u64, 100u64);
    for (bin, _) in BINARIES {
        for variant in ["spawn", "spawn-sem", "spawn-limited", "pool"] {
            for shape in ["burst", "rate"] {
                let args = [
                    "hashmap",
                    "--variant",
                    variant,
                    "--shape",
                    shape,
                    "--tasks",
                    "200",
                    "--items",
                    "100",
                ];
                let r = record(bin, &args);
                assert_eq!(
                    checksum(&r),
                    tasks * items * (items - 1) / 2,
                    "{variant} {shape}"
                );
                assert_eq!(r["latency_us"]["sojourn"]["n"], tasks);
                assert!(r["metrics"]["spawn_s"].is_f64());
                if shape == "rate" {
                    assert_eq!(r["metrics"]["offered_rate_per_ms"], 10.0);
                    assert!(r["metrics"]["achieved_spawn_rate_per_ms"].as_f64().unwrap() > 0.0);
                    // 200 tasks at 10/ms: the last one arrives at 19.9 ms.
                    assert!(
                        r["elapsed_s"].as_f64().unwrap() >= 0.0199,
                        "{variant}: open loop held"
                    );
                }
            }
        }
    }
}

fn fanout_expected(values: u64) -> u64 {
    let mut lcg = Lcg::new();
    let pre: Vec<u64> = (0..10).map(|_| 1 + lcg.next() % 10).collect();
    (0..values).map(|i| pre[(i % 10) as usize].pow(2)).sum()
}

#[test]
fn fanout_every_variant() {
    for (bin, _) in BINARIES {
        for variant in ["threads", "tokio", "batched"] {
            let r = record(
                bin,
                &[
                    "fanout",
                    "--variant",
                    variant,
                    "--values",
                    "20001",
                    "--batch",
                    "64",
                ],
            );
            assert_eq!(checksum(&r), fanout_expected(20001), "{variant}");
            let per_worker = r["metrics"]["per_worker_values"].as_array().unwrap();
            assert_eq!(per_worker.len(), 3);
            assert_eq!(
                per_worker.iter().map(|v| v.as_u64().unwrap()).sum::<u64>(),
                20001
            );
            assert!(r["metrics"]["values_per_s"].as_f64().unwrap() > 0.0);
            assert!(r["metrics"]["cpu_s_per_million"].is_number());
        }
    }
}

/// The original Rust fan-out had one consumer receive everything; here every consumer
/// must get work. A consumer the OS does not schedule before the others drain the
/// channel can get none on a busy 2-core machine, so each variant has three tries: a
/// fan-out that never spreads the work still fails all three.
#[test]
fn fanout_every_consumer_receives_work() {
    for (bin, _) in BINARIES {
        for variant in ["threads", "tokio"] {
            let mut seen = Vec::new();
            let spread = (0..3).any(|_| {
                let r = record(
                    bin,
                    &[
                        "fanout",
                        "--variant",
                        variant,
                        "--values",
                        "200000",
                        "--workers",
                        "3",
                    ],
                );
                let per_worker: Vec<u64> = r["metrics"]["per_worker_values"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_u64().unwrap())
                    .collect();
                assert_eq!(per_worker.len(), 3);
                assert_eq!(per_worker.iter().sum::<u64>(), 200_000);
                let all = per_worker.iter().all(|&n| n > 0);
                seen.push(per_worker);
                all
            });
            assert!(
                spread,
                "{variant}: a consumer got nothing in every try: {seen:?}"
            );
        }
    }
}

fn cpu_expected(tasks: u64, items: u64) -> u64 {
    let mut sum = 0.0f64;
    for x in 0..items {
        sum += (x as f64).sqrt();
    }
    tasks * sum.floor() as u64
}

#[test]
fn cpu_every_variant() {
    for (bin, _) in BINARIES {
        for variant in ["threads", "async-single", "tokio"] {
            for threads in ["1", "2"] {
                let args = [
                    "cpu",
                    "--variant",
                    variant,
                    "--tasks",
                    "4",
                    "--items",
                    "20000",
                    "--threads",
                    threads,
                ];
                let r = record(bin, &args);
                assert_eq!(checksum(&r), cpu_expected(4, 20_000), "{variant}");
                assert_eq!(r["latency_us"]["service"]["n"], 4);
                let expected_workers = match variant {
                    "threads" => 0,
                    "async-single" => 1,
                    _ => threads.parse().unwrap(),
                };
                assert_eq!(r["runtime"]["tokio_workers"], expected_workers, "{variant}");
            }
        }
    }
}

/// The work is really done (not optimised away): the window's CPU time grows with
/// `items`. CPU time, not elapsed: cargo runs the other tests beside this one, and a
/// window that waits for a core is longer without more work in it. But elapsed on
/// Windows, which counts CPU time in 15.6 ms ticks, longer than these windows.
#[test]
fn cpu_work_scales_with_items() {
    let (bin, _) = BINARIES[0];
    let fastest = |items: &str| {
        (0..3)
            .map(|_| {
                let r = record(
                    bin,
                    &[
                        "cpu",
                        "--variant",
                        "threads",
                        "--tasks",
                        "2",
                        "--threads",
                        "1",
                        "--items",
                        items,
                    ],
                );
                let work = if cfg!(windows) {
                    r["elapsed_s"].as_f64().unwrap()
                } else {
                    let cpu = &r["window_cpu_s"];
                    cpu["user"].as_f64().unwrap() + cpu["sys"].as_f64().unwrap()
                };
                (work, checksum(&r))
            })
            .fold((f64::MAX, 0), |(best, _), (t, c)| (best.min(t), c))
    };
    let (small, small_sum) = fastest("250000");
    let (large, large_sum) = fastest("2000000");
    assert_eq!(small_sum, cpu_expected(2, 250_000));
    assert_eq!(large_sum, cpu_expected(2, 2_000_000));
    assert!(
        large / small > 2.0,
        "8x the items took {:.1}x the time ({small} s, {large} s)",
        large / small
    );
}

#[test]
fn sleep_checksum() {
    let (tasks, spin, max_sleep_ms) = (100, 1000, 50);
    let mut lcg = Lcg::new();
    let slept: u64 = (0..tasks).map(|_| lcg.next() % max_sleep_ms).sum();
    // The article's loop: even i divides and adds one, odd i multiplies.
    let mut x = 0.0f64;
    for i in 1..spin {
        if i % 2 == 0 {
            x = x / i as f64 + 1.0;
        } else {
            x *= i as f64;
        }
    }
    let expected = slept + tasks * (x * 1e3).floor() as u64;
    for (bin, _) in BINARIES {
        let r = record(
            bin,
            &[
                "sleep",
                "--tasks",
                "100",
                "--spin",
                "1000",
                "--max_sleep_ms",
                "50",
            ],
        );
        assert_eq!(checksum(&r), expected);
        assert!(r["metrics"]["baseline_rss_bytes"].as_u64().unwrap() > 0);
        assert!(r["metrics"]["memory_per_task_bytes"].is_number());
        assert!(
            r["elapsed_s"].as_f64().unwrap() >= 0.040,
            "the longest sleep is at least 40 ms"
        );
    }
}

fn file_size(k: u64) -> u64 {
    3 * (k + 1) * 64
}

fn setup_files(bin: &str, scenario: &str, dir: &Path) {
    common::ok(bin, &["setup", scenario, "--dir", dir.to_str().unwrap()]);
    let total: u64 = (0..20)
        .map(|k| {
            std::fs::metadata(dir.join(format!("file_{k:02}.txt")))
                .unwrap()
                .len()
        })
        .sum();
    assert_eq!(total, 40_320);
}

#[test]
fn files_read_checksum() {
    let tasks = 100;
    let mut lcg = Lcg::new();
    let expected: u64 = (0..tasks).map(|_| file_size(lcg.next() % 20)).sum();
    for (bin, name) in BINARIES {
        for variant in ["tokio", "blocking"] {
            let dir = common::scratch(&format!("files-read-{name}-{variant}"));
            setup_files(bin, "files-read", &dir);
            let r = record(
                bin,
                &[
                    "files-read",
                    "--variant",
                    variant,
                    "--tasks",
                    "100",
                    "--dir",
                    dir.to_str().unwrap(),
                ],
            );
            assert_eq!(checksum(&r), expected, "{variant}");
            assert_eq!(r["metrics"]["bytes_read"], expected);
            assert!(r["runtime"]["open_permits"].as_u64().unwrap() >= 1);
        }
    }
}

#[test]
fn files_rw_checksum() {
    let mut lcg = Lcg::new();
    let appends = (0..100).filter(|_| lcg.next() % 20 % 2 == 0).count() as u64;
    for (bin, name) in BINARIES {
        for variant in ["tokio", "blocking"] {
            let dir = common::scratch(&format!("files-rw-{name}-{variant}"));
            setup_files(bin, "files-rw", &dir);
            let r = record(
                bin,
                &[
                    "files-rw",
                    "--variant",
                    variant,
                    "--tasks",
                    "100",
                    "--dir",
                    dir.to_str().unwrap(),
                ],
            );
            assert_eq!(checksum(&r), 40_320 + 16 * appends, "{variant}");
            assert_eq!(r["metrics"]["appends"], appends);
            // setup starts afresh, whatever the last run left.
            setup_files(bin, "files-rw", &dir);
        }
    }
}

/// `--repeat K` runs the scenario K times in one process, its setup between runs:
/// files-rw appends to its files, so without the setup between them the checksum (the
/// files' total size) would grow from run to run and the run would fail. Mirrors
/// go/repeat_test.go.
#[test]
fn files_rw_repeat_sets_up_between_runs() {
    let mut lcg = Lcg::new();
    let appends = (0..200).filter(|_| lcg.next() % 20 % 2 == 0).count() as u64;
    for (bin, name) in BINARIES {
        let dir = common::scratch(&format!("files-rw-repeat-{name}"));
        setup_files(bin, "files-rw", &dir);
        let dir = dir.to_str().unwrap();
        let args = [
            "files-rw",
            "--variant",
            "tokio",
            "--tasks",
            "200",
            "--dir",
            dir,
        ];
        let single = record(bin, &args);
        assert!(single.get("repeat").is_none(), "a run without --repeat");
        common::ok(bin, &["setup", "files-rw", "--dir", dir]);
        let r = record(bin, &[&args[..], &["--repeat", "4"]].concat());
        assert_eq!(checksum(&r), 40_320 + 16 * appends);
        assert_eq!(checksum(&r), checksum(&single));
        assert_eq!(r["repeat"]["count"], 4);
        let windows = r["repeat"]["windows"].as_array().unwrap();
        assert_eq!(windows.len(), 4);
        // The record's window is the median of the windows after the first (the warm-up).
        let mut later: Vec<f64> = windows[1..]
            .iter()
            .map(|w| w["elapsed_s"].as_f64().unwrap())
            .collect();
        later.sort_by(f64::total_cmp);
        assert!(later[0] > 0.0);
        assert!((r["elapsed_s"].as_f64().unwrap() - later[1]).abs() < 1e-6);
        let mut user: Vec<f64> = windows[1..]
            .iter()
            .map(|w| w["cpu_s"]["user"].as_f64().unwrap())
            .collect();
        user.sort_by(f64::total_cmp);
        assert!((r["window_cpu_s"]["user"].as_f64().unwrap() - user[1]).abs() < 1e-6);
    }
}

/// `--stretch F` holds each window open to F times what the work took and says so in
/// the record; the work and its checksum are unchanged. The CPU time grows by F as far
/// as one thread can add it: a program that only sleeps gets a window that sleeps
/// longer (spinning the whole extension would put a third of each x1.5 window in CPU
/// time), a program that keeps one core busy one that spins longer (sleeping the
/// extension would leave its CPU time as it was). CPU time is compared with an
/// unstretched run's (the medians of the windows after the first), not with the
/// window, so that the test holds when other processes take the cores: that lengthens
/// windows, not CPU times (but a thread that gets less of a core while it spins than
/// while it worked runs out of extension first: x1.26 was measured in Go with both
/// cores kept busy, hence the lower bound of x1.2; sleeping the extension gives x1.0).
/// A window of ~10 ms (Rust) survives the thread losing its core for a time slice
/// while it spins (a 2.5 ms window went to x1.05 beside the other tests on a 2-core
/// runner); the CPU growth is tried up to STRETCH_ATTEMPTS times, as a ratio of two
/// processes' CPU times is at the mercy of the neighbours, and fails only when every try
/// is out of range (sleeping the extension would give x1.0 every time).
/// Mirrors TestStretch in go/repeat_test.go.
#[test]
fn stretch_holds_the_window_open() {
    const STRETCH_ATTEMPTS: usize = 3;
    // The arguments, the most CPU time / window in each stretched window, the range of
    // stretched / unstretched CPU time if checked.
    type Case<'a> = (&'a [&'a str], f64, Option<(f64, f64)>);
    let cases: [Case; 2] = [
        (
            &[
                "sleep",
                "--variant",
                "tokio",
                "--tasks",
                "20",
                "--max_sleep_ms",
                "40",
                "--spin",
                "1",
            ],
            0.2,
            None,
        ),
        (
            &[
                "cpu",
                "--variant",
                "threads",
                "--tasks",
                "4",
                "--items",
                "4000000",
                "--threads",
                "1",
            ],
            2.0,
            Some((1.2, 1.8)),
        ),
    ];
    let window_cpu = |r: &Value| {
        r["window_cpu_s"]["user"].as_f64().unwrap() + r["window_cpu_s"]["sys"].as_f64().unwrap()
    };
    for (bin, _) in BINARIES {
        for (args, max_share, growth) in cases {
            let mut seen = Vec::new();
            for _attempt in 0..STRETCH_ATTEMPTS {
                let plain = record(bin, &[args, &["--repeat", "5"]].concat());
                assert!(plain.get("stretch").is_none(), "a run without --stretch");
                let r = record(
                    bin,
                    &[args, &["--stretch", "1.5", "--repeat", "5"]].concat(),
                );
                assert_eq!(r["stretch"], 1.5);
                assert_eq!(checksum(&r), checksum(&plain), "{}", args[0]);
                for (i, w) in r["repeat"]["windows"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .enumerate()
                {
                    let e = w["elapsed_s"].as_f64().unwrap();
                    let cpu =
                        w["cpu_s"]["user"].as_f64().unwrap() + w["cpu_s"]["sys"].as_f64().unwrap();
                    assert!(
                        e >= 0.005 && cpu <= max_share * e,
                        "{} window {}: {e:.4} s, CPU {cpu:.4} s; want 5 ms or more, CPU at most {max_share} of it",
                        args[0],
                        i + 1
                    );
                }
                let Some((lo, hi)) = growth else { break };
                let (stretched, unstretched) = (window_cpu(&r), window_cpu(&plain));
                let g = stretched / unstretched;
                if (lo..=hi).contains(&g) {
                    break;
                }
                seen.push(format!(
                    "{stretched:.4} s stretched, {unstretched:.4} s not: x{g:.2}"
                ));
                assert!(
                    seen.len() < STRETCH_ATTEMPTS,
                    "{}: CPU time {}; want x{lo} to x{hi}",
                    args[0],
                    seen.join("; ")
                );
            }
        }
    }
}

#[test]
fn files_without_setup_fail() {
    let dir = common::scratch("files-missing").join("absent");
    for (bin, _) in BINARIES {
        for scenario in ["files-read", "files-rw"] {
            let out = run(
                bin,
                &[
                    scenario,
                    "--variant",
                    "blocking",
                    "--tasks",
                    "10",
                    "--dir",
                    dir.to_str().unwrap(),
                ],
            );
            assert_eq!(out.code, 1, "{scenario}: {}", out.stderr);
            assert_eq!(out.stdout, "");
            assert!(
                out.stderr.contains("absent") && out.stderr.contains("setup"),
                "{}",
                out.stderr
            );
            assert_eq!(out.stderr.lines().count(), 1);
        }
    }
}

/// A panicking task is a failed run (exit 1), never a smaller amount of work.
#[test]
fn a_panicking_task_fails_the_run() {
    for (bin, _) in BINARIES {
        for variant in ["spawn", "spawn-sem", "spawn-limited", "pool"] {
            let out = common::run_with_env(
                bin,
                &[
                    "hashmap",
                    "--variant",
                    variant,
                    "--tasks",
                    "50",
                    "--items",
                    "10",
                    "--workers",
                    "1",
                ],
                &[("BENCH_TEST_PANIC_TASK", Some("7"))],
            );
            assert_eq!(out.code, 1, "{variant}: {}", out.stderr);
            assert_eq!(out.stdout, "");
            assert!(
                out.stderr.contains("task 7 panicked on purpose"),
                "{variant}: {}",
                out.stderr
            );
            let last = out.stderr.lines().last().unwrap();
            assert!(
                last.starts_with(&format!(
                    "{}: hashmap: a task panicked",
                    common::program_name(bin)
                )),
                "{last}"
            );
        }
    }
}

/// A build whose tasks do not sleep fails the run: the tasks report what they slept
/// after waking, and the run checks it against what the spawner gave them.
#[test]
fn sleep_skipped_fails_the_run() {
    for (bin, _) in BINARIES {
        let out = common::run_with_env(
            bin,
            &[
                "sleep",
                "--tasks",
                "20",
                "--spin",
                "100",
                "--max_sleep_ms",
                "50",
            ],
            &[("BENCH_TEST_SKIP_SLEEP", Some("1"))],
        );
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(out.stderr.contains("woke early"), "{}", out.stderr);
    }
}
