//! Which launcher started this process, from its environment variables, read before MPI is
//! initialised (not a setting: the launcher decides it). A leaf: it imports nothing of the
//! runtime, so that errors (`DlsError::MpiNotBuilt { launch }`) and settings can both name it.

/// An MPI launch as the launcher's environment variables describe it, read before MPI is
/// initialised: which variable told, this process's rank and the job's size when known.
///
/// The launchers and their variables, in the order they are looked for:
///
/// | launcher | variables |
/// |----------|-----------|
/// | Open MPI's `mpirun` / `mpiexec` (also under Slurm) | `OMPI_COMM_WORLD_SIZE`, `OMPI_COMM_WORLD_RANK` |
/// | MPICH's and Intel MPI's Hydra `mpiexec`; Slurm's `srun --mpi=pmi2` | `PMI_SIZE`, `PMI_RANK` |
/// | MVAPICH's `mpirun_rsh` | `MV2_COMM_WORLD_SIZE`, `MV2_COMM_WORLD_RANK` |
/// | a PMIx launcher: Slurm's `srun --mpi=pmix`, PRRTE's `prterun` | `PMIX_RANK`, the size from `SLURM_STEP_NUM_TASKS` or `SLURM_NTASKS` (PMIx itself gives it no variable) |
/// | Hydra, when no PMI variable is set | `MPI_LOCALNRANKS`, `MPI_LOCALRANKID` (the ranks on this node) |
///
/// ```
/// use dls_runtime::runtime::settings::Launch;
/// let srun_pmix = |k: &str| match k {
///     "PMIX_RANK" => Some("3".to_string()),
///     "SLURM_STEP_NUM_TASKS" => Some("8".to_string()),
///     _ => None,
/// };
/// let launch = Launch::detect(srun_pmix).unwrap();
/// assert_eq!((launch.variable, launch.rank, launch.size), ("PMIX_RANK", Some(3), Some(8)));
/// assert!(launch.multi_process());
/// assert_eq!(Launch::detect(|_| None), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Launch {
    /// The variable that shows the launch (named in errors).
    pub variable: &'static str,
    /// The launcher the variable belongs to, in words.
    pub launcher: &'static str,
    /// This process's rank, when a variable gives it.
    pub rank: Option<usize>,
    /// The number of processes, when a variable gives it.
    pub size: Option<usize>,
}

impl Launch {
    /// Reads the launcher's variables through `lookup` (`std::env::var` in a program, a map in
    /// tests); `None` when no launcher started the program.
    ///
    /// ```
    /// use dls_runtime::runtime::settings::Launch;
    /// let hydra = |k: &str| match k {
    ///     "PMI_RANK" => Some("1".to_string()),
    ///     "PMI_SIZE" => Some("2".to_string()),
    ///     _ => None,
    /// };
    /// assert_eq!(Launch::detect(hydra).unwrap().size, Some(2));
    /// ```
    pub fn detect(lookup: impl Fn(&str) -> Option<String>) -> Option<Launch> {
        let number = |k: &str| lookup(k).and_then(|v| v.trim().parse::<usize>().ok());
        let present = |k: &str| lookup(k).is_some();
        // (size variable, rank variable, launcher)
        const PAIRS: [(&str, &str, &str); 3] = [
            (
                "OMPI_COMM_WORLD_SIZE",
                "OMPI_COMM_WORLD_RANK",
                "Open MPI's mpirun",
            ),
            (
                "PMI_SIZE",
                "PMI_RANK",
                "a PMI launcher (MPICH's or Intel MPI's mpiexec, srun --mpi=pmi2)",
            ),
            (
                "MV2_COMM_WORLD_SIZE",
                "MV2_COMM_WORLD_RANK",
                "MVAPICH's mpirun_rsh",
            ),
        ];
        let slurm_size = || number("SLURM_STEP_NUM_TASKS").or_else(|| number("SLURM_NTASKS"));
        for (size_var, rank_var, launcher) in PAIRS {
            if present(size_var) || present(rank_var) {
                return Some(Launch {
                    variable: if present(size_var) {
                        size_var
                    } else {
                        rank_var
                    },
                    launcher,
                    rank: number(rank_var),
                    size: number(size_var).or_else(slurm_size),
                });
            }
        }
        if present("PMIX_RANK") {
            return Some(Launch {
                variable: "PMIX_RANK",
                launcher: "a PMIx launcher (srun --mpi=pmix, prterun)",
                rank: number("PMIX_RANK"),
                size: slurm_size(),
            });
        }
        if present("MPI_LOCALNRANKS") {
            // Only the ranks on this node are known: more than one is a multi-process job.
            let local = number("MPI_LOCALNRANKS");
            return Some(Launch {
                variable: "MPI_LOCALNRANKS",
                launcher: "Hydra's mpiexec",
                rank: number("MPI_LOCALRANKID").filter(|&r| r > 0),
                size: local.filter(|&n| n <= 1),
            });
        }
        None
    }

    /// Whether the launch may have started more than one process: a size above 1, a rank
    /// above 0, or a size no variable gives (a PMIx launch outside Slurm).
    ///
    /// ```
    /// use dls_runtime::runtime::settings::Launch;
    /// let one = Launch::detect(|k| (k == "PMI_SIZE").then(|| "1".to_string())).unwrap();
    /// assert!(!one.multi_process());
    /// ```
    pub fn multi_process(&self) -> bool {
        self.size.is_none_or(|s| s > 1) || self.rank.is_some_and(|r| r > 0)
    }
}

/// The number of processes the MPI launcher started, if the program was started by one and a
/// variable gives it (see [`Launch`] for the launchers and their variables).
///
/// ```
/// use dls_runtime::runtime::settings::launcher_size;
/// assert_eq!(launcher_size(|k| (k == "PMI_SIZE").then(|| "4".to_string())), Some(4));
/// let srun_pmix = |k: &str| match k {
///     "PMIX_RANK" => Some("3".to_string()),
///     "SLURM_STEP_NUM_TASKS" => Some("8".to_string()),
///     _ => None,
/// };
/// assert_eq!(launcher_size(srun_pmix), Some(8));
/// assert_eq!(launcher_size(|_| None), None);
/// ```
pub fn launcher_size(lookup: impl Fn(&str) -> Option<String>) -> Option<usize> {
    Launch::detect(lookup)?.size
}

/// This process's rank as the MPI launcher numbered it (`OMPI_COMM_WORLD_RANK`, `PMI_RANK`,
/// `MV2_COMM_WORLD_RANK` or `PMIX_RANK`, see [`Launch`]), before MPI is initialised; `None` when
/// no launcher started the program.
///
/// ```
/// use dls_runtime::runtime::settings::launcher_rank;
/// assert_eq!(launcher_rank(|k| (k == "PMI_RANK").then(|| "3".to_string())), Some(3));
/// assert_eq!(launcher_rank(|_| None), None);
/// ```
pub fn launcher_rank(lookup: impl Fn(&str) -> Option<String>) -> Option<usize> {
    Launch::detect(lookup)?.rank
}
