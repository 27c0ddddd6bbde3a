//! Reading the files a user names (loop reports, tables, rack maps, iterate times): only regular
//! files, and at most a bound, so that `/dev/zero`, a FIFO or a huge file by mistake is an error
//! naming it instead of a read that runs until memory is exhausted.

use std::io::Read;
use std::path::Path;

/// The most bytes [`read_text`] reads: 1 GiB (a report of a million chunks is about 40 MB).
pub const MAX_INPUT: u64 = 1 << 30;

/// The text of the regular file `path`, at most `max` bytes; the error says what is wrong with
/// the file (not a regular file, too large, unreadable, not UTF-8).
///
/// ```
/// use dls_model::input::{read_text, MAX_INPUT};
/// let e = read_text(std::path::Path::new("/dev/zero"), MAX_INPUT).unwrap_err();
/// assert!(e.contains("not a regular file"), "{e}");
/// let path = std::env::temp_dir().join(format!("dls-input-{}", std::process::id()));
/// std::fs::write(&path, "abc").unwrap();
/// assert_eq!(read_text(&path, 3).unwrap(), "abc");
/// assert!(read_text(&path, 2).unwrap_err().contains("larger than"));
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn read_text(path: &Path, max: u64) -> Result<String, String> {
    let file =
        std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!(
            "cannot read {}: not a regular file (a device, a pipe or a folder)",
            path.display()
        ));
    }
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() as u64 > max {
        return Err(format!(
            "cannot read {}: larger than {max} bytes, the most dls reads",
            path.display()
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("cannot read {}: not UTF-8 text", path.display()))
}
