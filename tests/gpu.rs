//! The GPU backend on a GPU: every unit's count (solutions and nodes) against the CPU engine's. Without the
//! `cuda` feature, or on a machine without a GPU, each test says why it skips.

#[path = "gpu/units.rs"]
mod units;

use nqueens::engine::exec::{self, NoProgress};
use nqueens::{gpu, Board, Count, Plan, Split, Symmetry};
use std::sync::atomic::AtomicBool;
use units::{check_reported, Units};

/// Whether a GPU can be used here; prints why not.
fn gpu_here() -> bool {
    match gpu::device() {
        Ok(info) => {
            eprintln!(
                "GPU: {} ({} multiprocessors)",
                info.name, info.multiprocessors
            );
            true
        }
        Err(e) => {
            eprintln!("skipped: {e}");
            false
        }
    }
}

fn check_plan(plan: &Plan, units: Option<&[usize]>) {
    let seen = Units::default();
    let (sum, run) = gpu::run(plan, units, &AtomicBool::new(false), &seen).expect("the GPU counts");
    let all: Vec<usize> = (0..plan.units().len()).collect();
    check_reported(plan, seen, units.unwrap_or(&all), sum);
    assert!(run.kernel_seconds >= 0.0);
}

#[test]
fn the_gpu_counts_every_unit_as_the_cpu_for_n_up_to_15() {
    if !gpu_here() {
        return;
    }
    for n in 1..=15 {
        for symmetry in [Symmetry::Full, Symmetry::Mirror, Symmetry::None] {
            if n > 13 && symmetry == Symmetry::None {
                continue;
            }
            let plan = Plan::new(
                Board::new(n).unwrap(),
                symmetry,
                Split::Auto { threads: 16 },
            );
            check_plan(&plan, None);
            let total = exec::run_serial(&plan, &NoProgress);
            let (gpu_total, _) =
                gpu::run(&plan, None, &AtomicBool::new(false), &NoProgress).unwrap();
            assert_eq!(gpu_total, total, "n = {n} {symmetry:?}");
        }
    }
    for (r, c) in [(8, 5), (11, 9), (14, 13)] {
        let plan = Plan::new(
            Board::rect(r, c).unwrap(),
            Symmetry::Mirror,
            Split::Auto { threads: 16 },
        );
        check_plan(&plan, None);
    }
}

#[test]
fn the_gpu_counts_random_units_of_larger_boards() {
    if !gpu_here() {
        return;
    }
    let mut rng = fastrand::Rng::with_seed(7);
    for n in [16u32, 17, 18] {
        let plan = Plan::new(
            Board::new(n).unwrap(),
            Symmetry::Full,
            Split::Auto { threads: 16 },
        );
        let units: Vec<usize> = (0..300).map(|_| rng.usize(..plan.units().len())).collect();
        let mut units = units;
        units.sort();
        units.dedup();
        check_plan(&plan, Some(&units));
    }
}

#[test]
fn a_stopped_gpu_run_reports_no_unit() {
    if !gpu_here() {
        return;
    }
    let plan = Plan::new(
        Board::new(12).unwrap(),
        Symmetry::Full,
        Split::Auto { threads: 16 },
    );
    let seen = Units::default();
    let (sum, _) = gpu::run(&plan, None, &AtomicBool::new(true), &seen).unwrap();
    assert_eq!(sum, Count::default());
    assert!(seen.0.into_inner().unwrap().is_empty());
}

#[cfg(feature = "cuda")]
#[test]
fn nvrtc_compiles_the_kernel_for_hopper() {
    match gpu::kernel_ptx((9, 0), nqueens::Board::new(19).unwrap()) {
        Ok(ptx) => assert!(ptx.contains("count_tasks"), "{ptx}"),
        Err(e) => eprintln!("skipped: {e}"),
    }
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "writes the kernel's PTX to $NQUEENS_PTX_OUT for reading"]
fn dump_ptx() {
    // The board's width from NQUEENS_PTX_WIDTH (19 if not given): boards 25 to 28 wide build their loop
    // with two sentinels.
    let width = std::env::var("NQUEENS_PTX_WIDTH")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(19);
    let ptx = gpu::kernel_ptx((9, 0), nqueens::Board::new(width).unwrap()).unwrap();
    std::fs::write(std::env::var("NQUEENS_PTX_OUT").unwrap(), ptx).unwrap();
}

#[test]
fn the_gpu_and_its_driver_are_described() {
    if !gpu_here() {
        return;
    }
    let info = gpu::device().unwrap();
    // The driver's form of a PCI address: domain, bus, device and function, "0000:1B:00.0".
    let parts: Vec<&str> = info.pci_bus_id.split([':', '.']).collect();
    assert_eq!(parts.len(), 4, "{}", info.pci_bus_id);
    let cuda = gpu::cuda_driver().unwrap();
    let (major, minor) = cuda.split_once('.').unwrap();
    assert!(
        major.parse::<u32>().unwrap() >= 11 && minor.parse::<u32>().is_ok(),
        "{cuda}"
    );
    let machine = nqueens::report::machine::Machine::placeholder().with_gpus_in_use();
    assert_eq!(machine.gpus[0].name, info.name);
    assert_eq!(machine.cuda_driver.as_deref(), Some(cuda.as_str()));
}

#[test]
fn a_run_on_the_gpus_named_counts_on_them_alone() {
    if !gpu_here() {
        return;
    }
    // What a benchmark's sweep counts with: GPU 0 alone, then named twice.
    let plan = Plan::new(
        Board::new(13).unwrap(),
        Symmetry::Full,
        Split::Auto { threads: 16 },
    );
    let all: Vec<usize> = (0..plan.units().len()).collect();
    for gpus in [&[0][..], &[0, 0]] {
        let seen = Units::default();
        let (sum, run) = gpu::run_on(&plan, None, gpus, &AtomicBool::new(false), &seen).unwrap();
        check_reported(&plan, seen, &all, sum);
        assert_eq!(run.device.split(", ").count(), gpus.len(), "{}", run.device);
    }
}

#[test]
fn one_gpu_named_twice_counts_every_unit_once() {
    if !gpu_here() {
        return;
    }
    // Two host threads, two queues of batches, one GPU (`--gpus 0,0`).
    gpu::use_gpus(Some(vec![0, 0]));
    let plan = Plan::new(
        Board::new(13).unwrap(),
        Symmetry::Full,
        Split::Auto { threads: 16 },
    );
    check_plan(&plan, None);
    let (_, run) = gpu::run(&plan, None, &AtomicBool::new(false), &NoProgress).unwrap();
    gpu::use_gpus(None);
    assert_eq!(run.device.split(", ").count(), 2, "{}", run.device);
}

#[test]
fn the_compiled_kernel_is_kept_and_a_corrupt_one_is_rebuilt() {
    if !gpu_here() {
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    let count = || {
        assert_cmd::Command::cargo_bin("nqueens")
            .unwrap()
            .args(["count", "11", "--backend", "gpu", "--check", "-q"])
            .env("NQUEENS_CACHE_DIR", cache.path())
            .assert()
            .success();
    };
    let entries = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(cache.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect()
    };
    count();
    let kept = entries();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let entry = std::fs::read_to_string(&kept[0]).unwrap();
    assert!(entry.contains("count_tasks"));
    // A corrupt entry is not trusted: the run compiles again and writes it whole.
    std::fs::write(&kept[0], &entry[..entry.len() / 2]).unwrap();
    count();
    assert_eq!(std::fs::read_to_string(&kept[0]).unwrap(), entry);
}

#[test]
fn units_counted_in_parts_on_the_gpu_give_the_published_count() {
    if !gpu_here() {
        return;
    }
    // A unit may have 4,096 tasks whole (NQUEENS_GPU_UNIT_TASKS; 32 million in the program's runs): n = 16's
    // larger units, cut in parts that go to several batches, still give the published count.
    let output = assert_cmd::Command::cargo_bin("nqueens")
        .unwrap()
        .args([
            "count",
            "16",
            "--backend",
            "gpu",
            "--check",
            "--split-depth",
            "0",
        ])
        .env("NQUEENS_GPU_UNIT_TASKS", "4096")
        .env("NQUEENS_GPU_VERBOSE", "1")
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("units of more than 4096 tasks in parts"),
        "{stderr}"
    );
}

#[test]
fn a_trial_of_the_loops_on_the_gpu_agrees_and_the_report_names_the_loop_that_counted() {
    if !gpu_here() {
        return;
    }
    // NQUEENS_GPU_TRIAL=1 times the loops on any run's first batch of two tasks or more; a run of n = 16 is
    // far below the size at which the program times them itself.
    let output = assert_cmd::Command::cargo_bin("nqueens")
        .unwrap()
        .args([
            "count",
            "16",
            "--backend",
            "gpu",
            "--check",
            "--format",
            "json",
        ])
        .env("NQUEENS_GPU_TRIAL", "1")
        .assert()
        .success()
        .get_output()
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let gpu = &report["results"][0]["gpu"];
    let kernel_loop = gpu["kernel_loop"].as_str().unwrap();
    let trial = gpu["loop_trial"].as_str().unwrap();
    assert!(
        trial.starts_with("look-ahead ") && trial.contains("look-ahead with the next row's frame "),
        "{trial}"
    );
    // The loop chosen counted the rest, the program's the sample (each with its share where both did).
    assert!(kernel_loop.starts_with("look-ahead"), "{kernel_loop}");
    assert!(trial.ends_with(" tasks"), "{trial}: one trial");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("the kernel's loops timed in"), "{stderr}");
}

#[test]
fn a_gpu_estimate_measures_each_gpu_on_the_runs_own_tasks() {
    if !gpu_here() {
        return;
    }
    // n = 18 on GPU 0 named twice: each counts samples of the run's tasks for a second, and the time to count
    // is the board's estimated nodes over their rates together.
    let output = assert_cmd::Command::cargo_bin("nqueens")
        .unwrap()
        .args([
            "estimate",
            "18",
            "--backend",
            "gpu",
            "--gpus",
            "0,0",
            "--sample",
            "1s",
            "-f",
            "json",
        ])
        .assert()
        .success()
        .get_output()
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["backend"], "gpu");
    let row = &report["results"][0];
    let gpus = row["gpus"].as_array().unwrap();
    assert_eq!(gpus.len(), 2);
    let mut rate = 0.0;
    for gpu in gpus {
        assert!(gpu["nodes"].as_f64().unwrap() > 0.0 && gpu["tasks"].as_f64().unwrap() > 0.0);
        assert!(
            gpu["loop"].as_str().unwrap().starts_with("look-ahead"),
            "{gpu}"
        );
        rate += gpu["nodes_per_second"].as_f64().unwrap();
    }
    let (nodes, seconds) = (
        row["nodes"].as_f64().unwrap(),
        row["seconds"].as_f64().unwrap(),
    );
    assert!((row["nodes_per_second"].as_f64().unwrap() - rate).abs() <= 1e-9 * rate);
    assert!((seconds - nodes / rate).abs() <= 1e-6 * seconds, "{row}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("18: GPU 1 ("), "{stderr}");
}
