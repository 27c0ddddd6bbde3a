//! The one reader of `DLS_REPORT` files: `dls plot`, `dls compare --from-report`, `dls predict
//! --from-report` and `dls markov --from-report` read loop reports here, as the runtime writes
//! them ([`LoopReport`], checked by [`LoopReport::validate`]), and choose a loop by name here,
//! with the same errors.

use std::path::Path;

use dls::LoopReport;

use crate::output::CliError;

/// Reads every loop report of `path`: JSON Lines, or JSON values one after another (pretty
/// printed, as `dls simulate --json` writes them). An unreadable file, a value that is not a loop
/// report, or no report at all is an error naming the file.
pub(crate) fn read(path: &Path) -> Result<Vec<LoopReport>, CliError> {
    let text = dls::input::read_text(path, dls::input::MAX_INPUT).map_err(CliError::Message)?;
    let mut reports = Vec::new();
    for value in serde_json::Deserializer::from_str(&text).into_iter::<LoopReport>() {
        let report = value.map_err(|e| {
            CliError::Message(format!("{}: not a loop report: {e}", path.display()))
        })?;
        report
            .validate()
            .map_err(|e| CliError::Message(format!("{}: {e}", path.display())))?;
        reports.push(report);
    }
    if reports.is_empty() {
        return Err(CliError::Message(format!(
            "{}: no loop reports (write them with DLS_REPORT={} when running the program)",
            path.display(),
            path.display()
        )));
    }
    Ok(reports)
}

/// The names of the loops of `reports`, in the order they first appear.
pub(crate) fn names(reports: &[LoopReport]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for r in reports {
        if !names.contains(&r.name.as_str()) {
            names.push(&r.name);
        }
    }
    names
}

/// The reports of the loop `wanted` (every report without it); a name the file does not hold is
/// an error naming the file and listing its loops.
pub(crate) fn of_loop(
    reports: Vec<LoopReport>,
    wanted: Option<&str>,
    path: &Path,
) -> Result<Vec<LoopReport>, CliError> {
    let Some(wanted) = wanted else {
        return Ok(reports);
    };
    if !reports.iter().any(|r| r.name == wanted) {
        return Err(CliError::Message(format!(
            "--loop: no loop `{wanted}` in {}; its loops are {}",
            path.display(),
            names(&reports)
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(reports.into_iter().filter(|r| r.name == wanted).collect())
}
