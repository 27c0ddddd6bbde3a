//! Run-time settings read from the environment, like OpenMP's `OMP_*` variables.
//!
//! | variable | values | effect |
//! |----------|--------|--------|
//! | `DLS_SCHEDULE` | a technique with parameters, e.g. `fac2`, `fsc,h=200us,sigma=50us` | overrides the technique of every loop (like `OMP_SCHEDULE`) |
//! | `DLS_THREADS` | a whole number >= 1 | worker threads of the threads backend (default: the machine's cores) |
//! | `DLS_REPORT` | `1` (or `stderr`), `0`/empty, or a file path | `1`: rank 0 prints a summary of every loop to stderr; a path: rank 0 appends one JSON object per loop to that file (JSON Lines) |
//!
//! Launch detection (not settings, read from the launcher): `OMPI_COMM_WORLD_SIZE` (Open MPI) or
//! `PMI_SIZE` (MPICH/Hydra, Slurm) tell that `mpirun` started the program.

use std::path::PathBuf;

use super::error::DlsError;
use crate::Technique;

/// Where loop reports go (`DLS_REPORT`).
///
/// ```
/// use dls_runtime::runtime::settings::ReportMode;
/// assert_eq!(ReportMode::parse("1").unwrap(), ReportMode::Stderr);
/// assert_eq!(ReportMode::parse("").unwrap(), ReportMode::Off);
/// assert!(matches!(ReportMode::parse("out.json").unwrap(), ReportMode::JsonLines(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ReportMode {
    /// No report (unset, empty or `0`).
    #[default]
    Off,
    /// A human-readable summary on stderr (`1` or `stderr`).
    Stderr,
    /// One JSON object per loop, one per line, appended to the file.
    JsonLines(PathBuf),
}

impl ReportMode {
    /// Parses a `DLS_REPORT` value.
    ///
    /// ```
    /// assert!(dls_runtime::runtime::settings::ReportMode::parse("0").is_ok());
    /// ```
    pub fn parse(value: &str) -> Result<Self, DlsError> {
        let v = value.trim();
        Ok(match v {
            "" | "0" | "off" | "false" | "no" => ReportMode::Off,
            "1" | "on" | "true" | "yes" | "stderr" => ReportMode::Stderr,
            path => ReportMode::JsonLines(PathBuf::from(path)),
        })
    }
}

/// The settings of one runtime, read once by [`init`](crate::init).
///
/// ```
/// use dls_runtime::runtime::settings::Settings;
/// let s = Settings::from_lookup(|k| (k == "DLS_THREADS").then(|| "3".to_string())).unwrap();
/// assert_eq!(s.threads, Some(3));
/// let e = Settings::from_lookup(|k| (k == "DLS_SCHEDULE").then(|| "foo".to_string())).unwrap_err();
/// assert!(e.to_string().starts_with("DLS_SCHEDULE=`foo`"));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// `DLS_SCHEDULE`: overrides the technique of every loop.
    pub schedule: Option<Technique>,
    /// `DLS_THREADS`: worker threads of the threads backend.
    pub threads: Option<usize>,
    /// `DLS_REPORT`.
    pub report: ReportMode,
}

impl Settings {
    /// Reads the settings from the process environment.
    ///
    /// ```
    /// let _ = dls_runtime::runtime::settings::Settings::from_env();
    /// ```
    pub fn from_env() -> Result<Self, DlsError> {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads the settings through `lookup` (for tests and embedding).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, DlsError> {
        let mut s = Settings::default();
        if let Some(v) = lookup("DLS_SCHEDULE").filter(|v| !v.trim().is_empty()) {
            s.schedule = Some(parse_schedule(&v)?);
        }
        if let Some(v) = lookup("DLS_THREADS").filter(|v| !v.trim().is_empty()) {
            s.threads = Some(parse_threads(&v)?);
        }
        if let Some(v) = lookup("DLS_REPORT") {
            s.report = ReportMode::parse(&v)?;
        }
        Ok(s)
    }
}

/// Parses a `DLS_SCHEDULE` value; the error names the variable and lists the valid techniques.
///
/// ```
/// use dls_runtime::runtime::settings::parse_schedule;
/// assert_eq!(parse_schedule("FAC2").unwrap().to_string(), "fac2");
/// assert!(parse_schedule("nope").unwrap_err().to_string().contains("gss"));
/// ```
pub fn parse_schedule(value: &str) -> Result<Technique, DlsError> {
    value.trim().parse::<Technique>().map_err(|e| {
        let mut message = e.to_string();
        if !message.contains("valid techniques") {
            message.push_str(&format!("; valid techniques: {}", Technique::valid_names()));
        }
        DlsError::Setting {
            name: "DLS_SCHEDULE",
            value: value.to_string(),
            message,
        }
    })
}

/// Parses a `DLS_THREADS` value: a whole number >= 1.
///
/// ```
/// use dls_runtime::runtime::settings::parse_threads;
/// assert_eq!(parse_threads(" 4 ").unwrap(), 4);
/// assert!(parse_threads("0").unwrap_err().to_string().contains("DLS_THREADS"));
/// ```
pub fn parse_threads(value: &str) -> Result<usize, DlsError> {
    match value.trim().parse::<usize>() {
        Ok(t) if t >= 1 => Ok(t),
        _ => Err(DlsError::Setting {
            name: "DLS_THREADS",
            value: value.to_string(),
            message: "expected a whole number of threads >= 1 (or unset for one per core)".into(),
        }),
    }
}

/// The number of processes the MPI launcher started, if the program was started by one
/// (`OMPI_COMM_WORLD_SIZE`, else `PMI_SIZE`).
///
/// ```
/// use dls_runtime::runtime::settings::launcher_size;
/// assert_eq!(launcher_size(|k| (k == "PMI_SIZE").then(|| "4".to_string())), Some(4));
/// assert_eq!(launcher_size(|_| None), None);
/// ```
pub fn launcher_size(lookup: impl Fn(&str) -> Option<String>) -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .find_map(|k| lookup(k).and_then(|v| v.trim().parse::<usize>().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_name_the_variable_and_list_values() {
        let e = parse_schedule("fac3").unwrap_err().to_string();
        assert!(e.starts_with("DLS_SCHEDULE=`fac3`"), "{e}");
        assert!(e.contains("fac2") && e.contains("awf-b"), "{e}");
        for bad in ["x", "-1", "0", "1.5"] {
            let e = parse_threads(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("DLS_THREADS=`{bad}`")), "{e}");
            assert!(e.contains(">= 1"), "{e}");
        }
    }

    #[test]
    fn empty_values_mean_unset() {
        let s = Settings::from_lookup(|k| match k {
            "DLS_SCHEDULE" | "DLS_THREADS" | "DLS_REPORT" => Some(" ".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(s, Settings::default());
    }

    #[test]
    fn schedule_with_parameters() {
        let t = parse_schedule("gss,min=3").unwrap();
        assert_eq!(t.params.min_chunk, 3);
        let t = parse_schedule("fsc,h=200us,sigma=50us").unwrap();
        assert_eq!(t.to_string(), "fsc,h=200us,sigma=50us");
    }
}
