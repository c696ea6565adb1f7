//! Shards: a deterministic share of a plan's units, so that many machines can count one board without talking
//! to each other.
//!
//! Shard `K/M` takes the units whose number is `K` modulo `M` (round robin). Units of one border or one
//! prefix lie next to each other in a plan and differ in size together, so contiguous blocks would hand one
//! shard all the large units; round robin spreads them evenly. The shard can also be read from the environment
//! of the usual launchers ([`Shard::from_env`]); that is only done when asked for (`--shard auto`), so a plain
//! count inside an unrelated parallel job still counts the whole board.

use crate::engine::plan::Plan;
use crate::runs::journal::JournalError;
use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count`: the units whose number is `index` modulo `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    /// This shard's number, from 0.
    pub index: u32,
    /// How many shards share the plan.
    pub count: u32,
}

/// What is wrong with a shard given or found in the environment.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShardError {
    /// Not `K/M` with numbers `0 <= K < M`.
    #[error("'{0}' is not a shard: write K/M with 0 <= K < M, such as 3/16")]
    Malformed(String),
    /// `--shard auto` found no launcher's variables.
    #[error(
        "--shard auto found no shard in the environment (SLURM_PROCID and SLURM_NTASKS, \
         OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE, PMI_RANK and PMI_SIZE, or JOB_COMPLETION_INDEX with \
         --shard-count): give the shard as K/M"
    )]
    NotFound,
    /// A Slurm job array task runs alone, so its rank says nothing about the array.
    #[error(
        "this is task {task} of a Slurm job array, where SLURM_PROCID and SLURM_NTASKS describe only the task \
         itself: give the shard explicitly, as --shard $SLURM_ARRAY_TASK_ID/M with M the array's size"
    )]
    JobArray {
        /// `SLURM_ARRAY_TASK_ID`.
        task: String,
    },
    /// The launcher's rank is not below the number of shards (its own size, or `--shard-count`).
    #[error(
        "{rank} is not below {of}: this process is none of the run's shards; check the launcher's variables, \
         or give the shard as K/M"
    )]
    OutOfRange {
        /// The rank's variable and value, `SLURM_PROCID=4`.
        rank: String,
        /// What it must be below, `SLURM_NTASKS=4` or `--shard-count 4`.
        of: String,
    },
    /// `--shard-count` says another number of shards than the launcher's size: the shards it names beyond
    /// the launcher's tasks would never run, or the tasks beyond its shards would be none of them.
    #[error(
        "--shard-count {count} disagrees with {size}, the {launcher} launcher's number of tasks: leave \
         --shard-count out (it is for a launcher that does not say, a Kubernetes indexed Job), or give the \
         shard as K/M"
    )]
    CountDisagrees {
        /// `--shard-count`.
        count: u32,
        /// The size's variable and value, `SLURM_NTASKS=3`.
        size: String,
        /// The launcher, `Slurm`.
        launcher: &'static str,
    },
    /// A variable that should hold a number does not.
    #[error("the environment variable {name}='{value}' is not a shard number")]
    BadVariable {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
    },
}

impl Shard {
    /// Refuses a run of more shards than `plan` has units: a shard beyond the units would count nothing, and
    /// such a run is always a slip (a count meant for another board or split, a launcher of more tasks than
    /// the plan can use). Every shard of the run is refused alike, since they all share `M`, so a job fails at
    /// once and whole rather than leaving idle tasks and a merge that has to name shards by the billion.
    ///
    /// A whole run is never refused: a split deeper than any placement of the board (n = 2 two rows deep) has
    /// no unit, and its journal is complete at once, with the board's 0 solutions.
    pub fn within(self, plan: &Plan) -> Result<(), JournalError> {
        if self.index >= self.count {
            return Err(JournalError::InvalidShard {
                shard: self.to_string(),
            });
        }
        let units = plan.units().len();
        if self.count as usize <= units.max(1) {
            return Ok(());
        }
        if units == 0 {
            return Err(JournalError::NoUnits {
                board: plan.board(),
                symmetry: plan.symmetry().name().into(),
                split_depth: plan.depth(),
            });
        }
        Err(JournalError::TooManyShards {
            shard: self.to_string(),
            board: plan.board(),
            symmetry: plan.symmetry().name().into(),
            split_depth: plan.depth(),
            units,
            shards: self.count,
            idle: u64::from(self.count) - units as u64,
        })
    }

    /// The whole plan as one shard.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Shard `index` of `count`, refused unless `index < count`.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if index >= count {
            return Err(ShardError::Malformed(format!("{index}/{count}")));
        }
        Ok(Shard { index, count })
    }

    /// Whether unit number `unit` belongs to this shard.
    pub fn contains(self, unit: usize) -> bool {
        // A shard built by hand with no shards (its fields are public; `Shard::new` refuses it) holds no unit,
        // rather than dividing by zero.
        unit.checked_rem(self.count as usize) == Some(self.index as usize)
    }

    /// Whether this is the whole plan.
    pub fn is_whole(self) -> bool {
        self.count == 1
    }

    /// The shard a launcher gave this process, read through `var` (`std::env::var` in the binary): Open MPI,
    /// MPICH and others (PMI), Slurm's `srun`, or a Kubernetes indexed Job, whose index comes without the
    /// number of shards, so `count` must give it. A `count` that is not the size the launcher says is refused.
    ///
    /// An MPI launcher's rank comes first: `mpirun` inside a Slurm batch job starts its ranks with the batch
    /// script's Slurm variables (`SLURM_PROCID=0` for all of them), so Slurm's would give every rank the same
    /// shard. Under `srun` with PMI the two agree.
    pub fn from_env(
        var: impl Fn(&str) -> Option<String>,
        count: Option<u32>,
    ) -> Result<(Shard, &'static str), ShardError> {
        const PAIRS: [(&str, &str, &str); 3] = [
            ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI"),
            ("PMI_RANK", "PMI_SIZE", "PMI"),
            ("SLURM_PROCID", "SLURM_NTASKS", "Slurm"),
        ];
        let below = |index: u32, rank: &str, of: String, count: u32| {
            Shard::new(index, count).map_err(|_| ShardError::OutOfRange {
                rank: format!("{rank}={index}"),
                of,
            })
        };
        let number = |name: &'static str| -> Result<Option<u32>, ShardError> {
            match var(name) {
                None => Ok(None),
                Some(value) => value
                    .trim()
                    .parse()
                    .map(Some)
                    .map_err(|_| ShardError::BadVariable { name, value }),
            }
        };
        for (rank, size_name, launcher) in PAIRS {
            let (Some(index), Some(size)) = (number(rank)?, number(size_name)?) else {
                continue;
            };
            if launcher == "Slurm" && size == 1 {
                if let Some(task) = var("SLURM_ARRAY_TASK_ID") {
                    return Err(ShardError::JobArray { task });
                }
            }
            if let Some(count) = count.filter(|&c| c != size) {
                return Err(ShardError::CountDisagrees {
                    count,
                    size: format!("{size_name}={size}"),
                    launcher,
                });
            }
            let shard = below(index, rank, format!("{size_name}={size}"), size)?;
            return Ok((shard, launcher));
        }
        if let (Some(index), Some(count)) = (number("JOB_COMPLETION_INDEX")?, count) {
            let of = format!("--shard-count {count}");
            return Ok((
                below(index, "JOB_COMPLETION_INDEX", of, count)?,
                "Kubernetes",
            ));
        }
        Err(ShardError::NotFound)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError::Malformed(s.to_string());
        let (k, m) = s.split_once('/').ok_or_else(bad)?;
        let k = k.trim().parse().map_err(|_| bad())?;
        let m = m.trim().parse().map_err(|_| bad())?;
        Shard::new(k, m).map_err(|_| bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn a_shard_built_by_hand_with_no_shards_holds_no_unit_rather_than_dividing_by_zero() {
        let none = Shard { index: 0, count: 0 };
        assert!((0..10).all(|unit| !none.contains(unit)));
        let past = Shard { index: 3, count: 2 };
        assert!((0..10).all(|unit| !past.contains(unit)));
        // And a run of one is refused, before any journal: it counted nothing and called itself complete.
        use crate::engine::{board::Board, plan::Split, symmetry::Symmetry};
        let plan = Plan::new(Board::new(8).unwrap(), Symmetry::Full, Split::Depth(1));
        for (shard, said) in [(none, "0/0"), (past, "3/2")] {
            let refused = shard.within(&plan).unwrap_err();
            assert_eq!(
                refused.to_string(),
                format!("{said} is no shard: a shard is K/M with 0 <= K < M")
            );
        }
    }

    #[test]
    fn shards_parse_and_partition_the_units() {
        let shards: Vec<Shard> = (0..5).map(|k| format!("{k}/5").parse().unwrap()).collect();
        for unit in 0..100 {
            assert_eq!(shards.iter().filter(|s| s.contains(unit)).count(), 1);
        }
        for bad in ["5/5", "1/0", "3", "a/4", "-1/4", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn launchers_are_read_from_the_environment() {
        let e = env(&[("SLURM_PROCID", "3"), ("SLURM_NTASKS", "8")]);
        assert_eq!(
            Shard::from_env(e, None).unwrap(),
            (Shard::new(3, 8).unwrap(), "Slurm")
        );
        let e = env(&[("OMPI_COMM_WORLD_RANK", "1"), ("OMPI_COMM_WORLD_SIZE", "2")]);
        assert_eq!(
            Shard::from_env(e, None).unwrap().0,
            Shard::new(1, 2).unwrap()
        );
        let e = env(&[("PMI_RANK", "0"), ("PMI_SIZE", "4")]);
        assert_eq!(Shard::from_env(e, None).unwrap().1, "PMI");
        let e = env(&[("JOB_COMPLETION_INDEX", "6")]);
        assert_eq!(
            Shard::from_env(&e, Some(10)).unwrap().0,
            Shard::new(6, 10).unwrap()
        );
        assert_eq!(Shard::from_env(&e, None), Err(ShardError::NotFound));
    }

    #[test]
    fn a_lone_job_array_task_or_nothing_at_all_is_refused() {
        let e = env(&[
            ("SLURM_PROCID", "0"),
            ("SLURM_NTASKS", "1"),
            ("SLURM_ARRAY_TASK_ID", "7"),
        ]);
        assert!(matches!(
            Shard::from_env(e, None),
            Err(ShardError::JobArray { .. })
        ));
        assert_eq!(Shard::from_env(env(&[]), None), Err(ShardError::NotFound));
        // A job array's task id refuses only a lone Slurm task: a Slurm job of several tasks, or a lone task
        // of another launcher, is sharded as its launcher says.
        let e = env(&[
            ("SLURM_PROCID", "2"),
            ("SLURM_NTASKS", "4"),
            ("SLURM_ARRAY_TASK_ID", "7"),
        ]);
        assert_eq!(
            Shard::from_env(e, None),
            Ok((Shard::new(2, 4).unwrap(), "Slurm"))
        );
        let e = env(&[
            ("PMI_RANK", "0"),
            ("PMI_SIZE", "1"),
            ("SLURM_ARRAY_TASK_ID", "7"),
        ]);
        assert_eq!(
            Shard::from_env(e, None),
            Ok((Shard::new(0, 1).unwrap(), "PMI"))
        );
        let e = env(&[("PMI_RANK", "x"), ("PMI_SIZE", "4")]);
        assert!(matches!(
            Shard::from_env(e, None),
            Err(ShardError::BadVariable { .. })
        ));
        // A rank past the shards names the variables it came from, not a K/M the user never typed.
        let e = env(&[("PMI_RANK", "4"), ("PMI_SIZE", "4")]);
        let refused = Shard::from_env(e, None).unwrap_err();
        assert!(
            refused
                .to_string()
                .starts_with("PMI_RANK=4 is not below PMI_SIZE=4:"),
            "{refused}"
        );
        // A --shard-count that is not the launcher's size: shards 3 and 4 of 5 would never run under 3 tasks,
        // and task 2 of 3 is none of 2 shards.
        for (rank, count) in [("1", 5), ("2", 2)] {
            let e = env(&[("SLURM_PROCID", rank), ("SLURM_NTASKS", "3")]);
            let refused = Shard::from_env(e, Some(count)).unwrap_err();
            assert_eq!(
                refused.to_string(),
                format!(
                    "--shard-count {count} disagrees with SLURM_NTASKS=3, the Slurm launcher's number of \
                     tasks: leave --shard-count out (it is for a launcher that does not say, a Kubernetes \
                     indexed Job), or give the shard as K/M"
                )
            );
        }
        // The same number is the launcher's, given twice.
        let e = env(&[("SLURM_PROCID", "2"), ("SLURM_NTASKS", "3")]);
        assert_eq!(
            Shard::from_env(e, Some(3)),
            Ok((Shard::new(2, 3).unwrap(), "Slurm"))
        );
        let e = env(&[("JOB_COMPLETION_INDEX", "6")]);
        assert!(matches!(
            Shard::from_env(e, Some(4)),
            Err(ShardError::OutOfRange { .. })
        ));
    }

    #[test]
    fn an_mpi_rank_comes_before_the_slurm_job_that_mpirun_runs_in() {
        // `mpirun` inside an sbatch script: every rank has the batch script's SLURM_PROCID=0, and its own
        // Open MPI or PMI rank. Each rank gets its own shard.
        for k in 0..4 {
            let rank = k.to_string();
            let e = env(&[
                ("SLURM_PROCID", "0"),
                ("SLURM_NTASKS", "4"),
                ("OMPI_COMM_WORLD_RANK", &rank),
                ("OMPI_COMM_WORLD_SIZE", "4"),
            ]);
            assert_eq!(
                Shard::from_env(e, None),
                Ok((Shard::new(k, 4).unwrap(), "Open MPI"))
            );
            let e = env(&[
                ("SLURM_PROCID", "0"),
                ("SLURM_NTASKS", "1"),
                ("PMI_RANK", &rank),
                ("PMI_SIZE", "4"),
            ]);
            assert_eq!(
                Shard::from_env(e, None),
                Ok((Shard::new(k, 4).unwrap(), "PMI"))
            );
        }
    }
}
