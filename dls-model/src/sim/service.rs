//! How chunk requests are served: one at a time by the scheduler, or each on its own.

use std::fmt;
use std::str::FromStr;

use super::error::SimError;

/// Who pays the scheduling overhead h of a chunk request, and whether requests queue.
///
/// ```
/// use dls_model::sim::ServiceModel;
/// assert_eq!("parallel".parse::<ServiceModel>().unwrap(), ServiceModel::Parallel);
/// assert_eq!(ServiceModel::default().to_string(), "serial");
/// assert!("fast".parse::<ServiceModel>().unwrap_err().to_string().contains("serial, parallel"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ServiceModel {
    /// A progress thread on rank 0 serves requests one at a time, in order of arrival, each in
    /// h: requests queue when it is busy (the dls MPI scheduler; Cariño & Banicescu's (2007) scheduler-worker
    /// strategy). The default.
    #[default]
    Serial,
    /// Each request costs h to the rank that sends it and requests never queue: a decentralised
    /// chunk calculation (atomic fetch-and-add, MPI one-sided), and the model of Hummel,
    /// Schonberg & Flynn (1992) and Kruskal & Weiss (1985), where every chunk adds h to the
    /// time of the processor that takes it.
    Parallel,
}

impl ServiceModel {
    /// The accepted names, for error and help messages.
    ///
    /// ```
    /// assert_eq!(dls_model::sim::ServiceModel::NAMES, "serial, parallel");
    /// ```
    pub const NAMES: &'static str = "serial, parallel";
}

impl FromStr for ServiceModel {
    type Err = SimError;

    fn from_str(text: &str) -> Result<Self, SimError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "serial" => Ok(ServiceModel::Serial),
            "parallel" => Ok(ServiceModel::Parallel),
            _ => Err(SimError::new(format!(
                "--service: unknown model `{text}`; valid models: {}",
                ServiceModel::NAMES
            ))),
        }
    }
}

impl fmt::Display for ServiceModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ServiceModel::Serial => "serial",
            ServiceModel::Parallel => "parallel",
        })
    }
}
