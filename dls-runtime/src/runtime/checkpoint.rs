//! Checkpoint and restart of a loop's finished work (`DLS_CHECKPOINT=<dir>`), in the spirit of
//! SCR and VeloC: a job killed by a queue's time limit, or by a node that died, restarts with the
//! same setting and executes only the iterates that no checkpoint holds.
//!
//! **What is written.** Every worker (an MPI rank, or a thread of the threads backend) keeps its
//! confirmed result apart from the chunk it is executing (re-execution, `runtime/tolerance/reexecution.rs`),
//! with the list of iterate ranges folded into it. Every [`DEFAULT_EVERY`] (`DLS_CHECKPOINT_EVERY`)
//! and after every SIGUSR1 (mpirun forwards it to every rank; Slurm sends it before the time limit
//! with `--signal=USR1@120`) the worker writes both to a file of its own, between two chunks or at
//! the loop's end: a temporary file, `fsync`, `rename` over the previous one, `fsync` of the
//! directory. The interval runs across loops (a worker's clock is the process's, by worker
//! index), so a time loop of many short loops writes once an interval, not at every loop's end;
//! a loop that ran for longer than the interval writes at its end too, so that a restart skips
//! it whole. The file
//! holds a checksum of everything in it, the fingerprint of the run it belongs to ([`LoopKey`]:
//! the executable's hash, the program's arguments, the loop's name, first index, iterate count
//! and result type, the technique, and what the program gave [`checkpoint_key`]), its ranges and
//! its result, serialised like the values of a reduction.
//!
//! **Restart.** At the start of a loop with a checkpoint directory, the scheduling process (rank
//! 0, or the threads backend's process) reads the newest *generation* of files of the loop: every
//! run of the job is one generation. Their ranges must be disjoint (each chunk is confirmed to one
//! worker). Their results are merged into worker 0's starting value, their ranges become holes in
//! the iteration space that the scheduler skips (the technique schedules the iterates left, and a
//! chunk that spans a hole is handed out as its pieces), and worker 0 writes them at once as its
//! file of the new generation, so the new generation holds all that the old one did. A different
//! fingerprint is refused with an error saying what differs and which folder to delete to start
//! fresh; a different number of workers is fine. A truncated or corrupt file makes its generation
//! unusable: the restart falls back to the generation before (kept until the new one is complete)
//! or starts over, with a warning on stderr — never a wrong result.
//!
//! **Time loops.** The k-th run of a loop (a time step) has a folder of its own; when run k
//! starts, the folder of run k − 1 of the same loop is deleted, so a loop keeps one run's files
//! on disk, and a restarted job at most two (the killed run's and its own): a restart executes
//! the earlier runs again, which is what it does for any loop whose checkpoints are gone. The
//! folder is made at the first write.
//!
//! **Retirement.** A run that ends (its runtime dropped without a panic; on MPI once every rank
//! agreed that it ended) deletes the folders of the loops it checkpointed: they exist to resume an
//! interrupted run, and would otherwise make every later run with the same setting skip its
//! loops.
//!
//! Files: `<dir>/<loop>-<hash>/g<generation>-w<worker>.ckpt`.

use crate::runtime::annotate::sync::AtomicU64;
use crate::runtime::annotate::sync::Mutex;
use crate::runtime::annotate::sync::OnceLock;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::runtime::combine::wire;
use crate::runtime::error::DlsError;
use crate::runtime::sync::lock;

/// The default interval between two checkpoints of a worker: a minute. A write costs a few
/// milliseconds (a file of the worker's result, two `fsync`s), so at one a minute the cost is far
/// below 1% of the run time, and a job killed without warning loses at most a minute of each
/// worker's work; a queue's warning (SIGUSR1) triggers a checkpoint at once anyway.
pub(crate) const DEFAULT_EVERY: Duration = Duration::from_secs(60);

const MAGIC: &str = "DLSCKPT1";

/// SIGUSR1s received since the process started (the handler only counts).
static SIGNALS: AtomicU64 = AtomicU64::new(0);

/// Counts SIGUSR1 from now on (installed once, when a loop first has a checkpoint directory).
fn listen_to_sigusr1() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        // SAFETY: the handler only increments an atomic counter, which is async-signal-safe.
        let _ = unsafe {
            signal_hook::low_level::register(signal_hook::consts::SIGUSR1, || {
                SIGNALS.fetch_add(1, Ordering::Relaxed);
            })
        };
    });
}

/// What a checkpoint belongs to (its fingerprint): restarting with another of these is refused,
/// naming what differs. It covers what can change a loop's result that dls can see: the binary
/// (a hash of the executable's contents: a rebuilt body is another binary), the program's
/// arguments, the loop's name, first index and iterate count, its result type, its technique,
/// and whatever the program added with [`checkpoint_key`] (an input file's contents, say).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LoopKey {
    /// The program's file name.
    pub program: String,
    /// The loop's name.
    pub name: String,
    /// Its iterate count.
    pub n: u64,
    /// Its technique, as text (after `DLS_SCHEDULE`).
    pub technique: String,
    /// Which run of a loop of this name in the program (0 for the first): time steps of one loop
    /// have checkpoints of their own.
    pub run: u64,
    /// A hash of the executable's contents, in hex.
    #[serde(default)]
    pub binary: String,
    /// The program's arguments (without the program's own path).
    #[serde(default)]
    pub args: Vec<String>,
    /// The loop's first index, as text.
    #[serde(default)]
    pub first: String,
    /// The type of the loop's result (`std::any::type_name`).
    #[serde(default)]
    pub result_type: String,
    /// What the program added with [`checkpoint_key`]: a hash in hex, empty if nothing.
    #[serde(default)]
    pub user_key: String,
}

/// Adds `part` to the fingerprint of every checkpoint this process writes or restores from now
/// on: call it with what the loops' results depend on beyond the program's arguments and binary
/// (the contents of an input file, a parameter read from a file or the environment). A restart
/// whose parts differ is refused, naming `checkpoint_key`, instead of restoring results computed
/// from other inputs. Parts accumulate in the order given; every MPI rank should add the same.
///
/// ```
/// // The results depend on this data, which is not among the program's arguments.
/// let data = b"3.5 1.25 7.0".to_vec();
/// dls_runtime::runtime::checkpoint_key(&data);
/// dls_runtime::runtime::checkpoint_key("model v2");
/// ```
pub fn checkpoint_key(part: impl AsRef<[u8]>) {
    let mut key = USER_KEY.lock().unwrap_or_else(|e| e.into_inner());
    let before = key.unwrap_or(0xcbf2_9ce4_8422_2325);
    let part = part.as_ref();
    // The part's length first, so that ("ab", "c") and ("a", "bc") differ.
    let h = fold(before, &(part.len() as u64).to_le_bytes());
    *key = Some(fold(h, part));
}

/// The parts given to [`checkpoint_key`], hashed.
static USER_KEY: Mutex<Option<u64>> = Mutex::new(None);

/// A hash of this process's executable, computed once (a few milliseconds for tens of MB, only
/// in processes that use checkpoints).
fn binary_hash() -> String {
    static HASH: OnceLock<String> = OnceLock::new();
    HASH.get_or_init(|| {
        std::env::current_exe()
            .and_then(fs::read)
            .map(|bytes| format!("{:016x}", fnv1a_wide(&bytes)))
            .unwrap_or_else(|e| format!("(unreadable: {e})"))
    })
    .clone()
}

impl LoopKey {
    pub(crate) fn new(
        name: &str,
        run: u64,
        n: u64,
        technique: &str,
        first: String,
        result_type: &str,
    ) -> LoopKey {
        let program = std::env::current_exe()
            .ok()
            .and_then(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
            .unwrap_or_default();
        let user_key = USER_KEY
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .map(|h| format!("{h:016x}"))
            .unwrap_or_default();
        LoopKey {
            program,
            name: name.to_string(),
            n,
            technique: technique.to_string(),
            run,
            binary: binary_hash(),
            args: std::env::args_os()
                .skip(1)
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            first,
            result_type: result_type.to_string(),
            user_key,
        }
    }

    /// The folder of this loop's files in `dir`.
    fn folder(&self, dir: &Path) -> PathBuf {
        let readable: String = self
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .take(48)
            .collect();
        let hash = fnv1a(format!("{}\0{}", self.program, self.name).as_bytes());
        dir.join(format!("{readable}-{hash:016x}-run{}", self.run))
    }

    /// What differs between a checkpoint's key and this one, in words.
    fn differences(&self, found: &LoopKey) -> Vec<String> {
        let mut d = Vec::new();
        if found.program != self.program {
            d.push(format!(
                "program `{}` (now `{}`)",
                found.program, self.program
            ));
        }
        if found.name != self.name {
            d.push(format!("loop `{}` (now `{}`)", found.name, self.name));
        }
        if found.n != self.n {
            d.push(format!("{} iterates (now {})", found.n, self.n));
        }
        if found.technique != self.technique {
            d.push(format!(
                "technique `{}` (now `{}`)",
                found.technique, self.technique
            ));
        }
        if found.first != self.first {
            d.push(format!(
                "first index {} (now {})",
                shown(&found.first),
                self.first
            ));
        }
        if found.result_type != self.result_type {
            d.push(format!(
                "result type `{}` (now `{}`)",
                shown(&found.result_type),
                self.result_type
            ));
        }
        if found.args != self.args {
            d.push(format!(
                "program arguments {:?} (now {:?})",
                found.args, self.args
            ));
        }
        if found.binary != self.binary {
            d.push(format!(
                "binary (executable hash {}, now {}: the program was rebuilt or is another build)",
                shown(&found.binary),
                self.binary
            ));
        }
        if found.user_key != self.user_key {
            d.push(format!(
                "the inputs given to dls::checkpoint_key (hash {}, now {})",
                shown(&found.user_key),
                shown(&self.user_key)
            ));
        }
        d
    }
}

/// The header of a checkpoint file.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Header {
    key: LoopKey,
    generation: u64,
    worker: usize,
    /// Iterate ranges `[start, end)` (offsets from the loop's first index) in the result.
    ranges: Vec<[u64; 2]>,
}

/// A fingerprint field as found, `none` where it is empty (a checkpoint written before it existed,
/// or no `checkpoint_key`).
fn shown(v: &str) -> &str {
    if v.is_empty() {
        "none"
    } else {
        v
    }
}

/// FNV-1a over 8-byte words (the binary's hash: 8 times fewer steps than [`fnv1a`] over a binary
/// of tens of MB; the same in every build).
fn fnv1a_wide(bytes: &[u8]) -> u64 {
    let mut chunks = bytes.chunks_exact(8);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h ^ w).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29);
    }
    fold(h, chunks.remainder())
}

/// FNV-1a steps over `bytes`, from `h`.
fn fold(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// FNV-1a, 64 bits, over bytes (the checksum of a file; the same in every build).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Encodes a checkpoint: `DLSCKPT1 <checksum> <header length>\n<header JSON><payload>`.
fn encode(header: &Header, payload: &[u8]) -> Vec<u8> {
    let head = serde_json::to_vec(header).expect("a checkpoint header serialises");
    let mut body = head.clone();
    body.extend_from_slice(payload);
    let mut out = format!("{MAGIC} {:016x} {}\n", fnv1a(&body), head.len()).into_bytes();
    out.extend_from_slice(&body);
    out
}

/// Decodes and verifies a checkpoint; the error says what is wrong with it.
fn decode(bytes: &[u8]) -> Result<(Header, &[u8]), String> {
    let nl = bytes
        .iter()
        .position(|&b| b == b'\n')
        .ok_or("no header line (truncated?)")?;
    let line = std::str::from_utf8(&bytes[..nl]).map_err(|_| "not a dls checkpoint")?;
    let mut words = line.split(' ');
    if words.next() != Some(MAGIC) {
        return Err("not a dls checkpoint".into());
    }
    let sum = words
        .next()
        .and_then(|w| u64::from_str_radix(w, 16).ok())
        .ok_or("no checksum")?;
    let head_len: usize = words
        .next()
        .and_then(|w| w.parse().ok())
        .ok_or("no header length")?;
    let body = &bytes[nl + 1..];
    if fnv1a(body) != sum {
        return Err("checksum mismatch (truncated or corrupt)".into());
    }
    if head_len > body.len() {
        return Err("header longer than the file".into());
    }
    let header: Header =
        serde_json::from_slice(&body[..head_len]).map_err(|e| format!("bad header: {e}"))?;
    Ok((header, &body[head_len..]))
}

/// Writes `bytes` to `path` atomically and durably: a temporary file, `fsync`, `rename`, `fsync`
/// of the directory.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().expect("a checkpoint file has a folder");
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let written = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        // Never leave a partial temporary file behind (a full disk would keep it full).
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    File::open(dir)?.sync_all()
}

/// The files of one generation in a loop's folder: `(generation, worker, path)`.
fn files(folder: &Path) -> Vec<(u64, usize, PathBuf)> {
    let Ok(entries) = fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".ckpt") else {
            continue;
        };
        let Some((g, w)) = stem.strip_prefix('g').and_then(|s| s.split_once("-w")) else {
            continue;
        };
        if let (Ok(g), Ok(w)) = (g.parse(), w.parse()) {
            out.push((g, w, e.path()));
        }
    }
    out.sort();
    out
}

/// What a restart found: the finished iterate ranges and the workers' results over them.
#[derive(Debug)]
pub(crate) struct Restored<T> {
    /// The generation read (`None`: nothing usable, the loop starts over).
    pub from: Option<u64>,
    /// The generation this run writes.
    pub generation: u64,
    /// Disjoint, sorted ranges `[start, end)` of finished iterates.
    pub ranges: Vec<[u64; 2]>,
    /// The results of those ranges, one per file.
    pub values: Vec<T>,
    /// Generations refused as unreadable, with why (reported and warned about).
    pub refused: Vec<String>,
}

/// Reads the newest usable generation of `key`'s checkpoints in `dir`. A checkpoint of another
/// program, loop, iterate count or technique is an error saying what differs.
#[cfg(test)]
pub(crate) fn restore<T: DeserializeOwned>(
    dir: &Path,
    key: &LoopKey,
) -> Result<Restored<T>, DlsError> {
    restore_with(dir, key, true)
}

/// [`restore`], which looks for another program's checkpoints in `dir` only with `others` (the
/// first checkpointed loop of a process: the look reads a file of every loop in the folder).
fn restore_with<T: DeserializeOwned>(
    dir: &Path,
    key: &LoopKey,
    others: bool,
) -> Result<Restored<T>, DlsError> {
    listen_to_sigusr1();
    let folder = key.folder(dir);
    remove_temporaries(&folder);
    let all = files(&folder);
    if all.is_empty() && others {
        refuse_other_programs(dir, key)?;
    }
    let newest = all.iter().map(|f| f.0).max();
    // The generation this run writes: one past the newest. It never wraps to 0, where a
    // restart would take an older generation for the newest.
    let next = match newest {
        None => 0,
        Some(n) => n.checked_add(1).ok_or_else(|| {
            DlsError::Checkpoint(format!(
                "the checkpoints of loop `{}` in {} reached the last generation number ({n}):                  delete the folder to start the loop afresh",
                key.name,
                folder.display()
            ))
        })?,
    };
    let mut refused = Vec::new();
    let mut generations: Vec<u64> = all.iter().map(|f| f.0).collect();
    generations.dedup();
    for &g in generations.iter().rev() {
        match read_generation::<T>(&all, g, key)? {
            Ok((ranges, values)) => {
                return Ok(Restored {
                    from: Some(g),
                    generation: next,
                    ranges,
                    values,
                    refused,
                })
            }
            Err(why) => {
                eprintln!(
                    "dls: checkpoint generation {g} of loop `{}` in {} refused: {why}; {}",
                    key.name,
                    folder.display(),
                    if g == generations[0] {
                        "starting the loop over"
                    } else {
                        "trying the generation before"
                    }
                );
                refused.push(format!("generation {g}: {why}"));
            }
        }
    }
    Ok(Restored {
        from: None,
        generation: next,
        ranges: Vec::new(),
        values: Vec::new(),
        refused,
    })
}

/// Deletes the temporary files a killed writer left in `folder` (`g<G>-w<W>.tmp<pid>`: a write
/// is a temporary file renamed over the checkpoint, and a kill between the two leaves it). Called
/// at a loop's start, before any worker of this run writes into the folder.
fn remove_temporaries(folder: &Path) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let temporary = name.starts_with('g')
            && name
                .rsplit_once(".tmp")
                .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        if temporary {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// A loop without checkpoints of its own in `dir`, where checkpoints of another program are: an
/// error naming both (a folder shared by two programs would make a restart of one silently
/// start over, or the folder be taken for the wrong job). Loops of the same program that have
/// no checkpoint yet (not reached before the job was killed) are fine.
fn refuse_other_programs(dir: &Path, key: &LoopKey) -> Result<(), DlsError> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let Some((_, _, path)) = files(&e.path()).into_iter().next() else {
            continue;
        };
        let Ok(bytes) = fs::read(&path) else {
            continue;
        };
        if let Ok((header, _)) = decode(&bytes) {
            if header.key.program != key.program {
                return Err(DlsError::Checkpoint(format!(
                    "DLS_CHECKPOINT={} holds checkpoints of program `{}` (for example {}), and \
                     this is `{}`: give each program a folder of its own, or delete the folder \
                     to start over",
                    dir.display(),
                    header.key.program,
                    path.display(),
                    key.program
                )));
            }
        }
    }
    Ok(())
}

/// Reads generation `g`: `Ok(Err(why))` if it is unusable, `Err` if it belongs to another loop.
#[allow(clippy::type_complexity)]
fn read_generation<T: DeserializeOwned>(
    all: &[(u64, usize, PathBuf)],
    g: u64,
    key: &LoopKey,
) -> Result<Result<(Vec<[u64; 2]>, Vec<T>), String>, DlsError> {
    let mut ranges = Vec::new();
    let mut values = Vec::new();
    for (_, _, path) in all.iter().filter(|f| f.0 == g) {
        let bytes = match fs::read(path) {
            Ok(b) => b,
            Err(e) => return Ok(Err(format!("{}: {e}", path.display()))),
        };
        let (header, payload) = match decode(&bytes) {
            Ok(x) => x,
            Err(why) => return Ok(Err(format!("{}: {why}", path.display()))),
        };
        let differs = key.differences(&header.key);
        if !differs.is_empty() {
            return Err(DlsError::Checkpoint(format!(
                "the checkpoint {} is of another run, so its results may not be this run's: it \
                 differs in {}. To resume that run, start the same binary with the same \
                 arguments and inputs; to start fresh, delete {} (or point DLS_CHECKPOINT at \
                 another folder)",
                path.display(),
                differs.join(", "),
                path.parent().unwrap_or(path).display()
            )));
        }
        let value: T = match wire::decode(payload) {
            Ok(v) => v,
            Err(e) => return Ok(Err(format!("{}: {e}", path.display()))),
        };
        ranges.extend(header.ranges);
        values.push(value);
    }
    ranges.sort_unstable();
    for w in ranges.windows(2) {
        if w[0][1] > w[1][0] {
            return Ok(Err(format!("ranges overlap ({:?} and {:?})", w[0], w[1])));
        }
    }
    if ranges.iter().any(|r| r[0] >= r[1] || r[1] > key.n) {
        return Ok(Err("a range outside the loop".into()));
    }
    Ok(Ok((ranges, values)))
}

/// The folders of a dropped MPI runtime's checkpointed loops, retired by the MPI backend once
/// every rank agreed that it ended ([`retire_pending`]).
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Retires `folders` once every MPI rank has ended (the backend's last step).
pub(crate) fn retire_after_the_end(folders: Vec<PathBuf>) {
    PENDING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .extend(folders);
}

/// Retires what [`retire_after_the_end`] was given.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn retire_pending() {
    retire(std::mem::take(
        &mut *PENDING.lock().unwrap_or_else(|e| e.into_inner()),
    ));
}

/// Deletes the checkpoints of the loops in `folders` (those a runtime scheduled): the program
/// ran to its end (its runtime was dropped without a panic, on MPI once every rank got there),
/// so they could only make a later run with the same `DLS_CHECKPOINT` skip its loops.
/// Checkpoints exist to resume a run that was interrupted (killed by a time limit, a node
/// failure, an abort): those never get here and keep theirs.
pub(crate) fn retire(folders: Vec<PathBuf>) {
    for folder in folders {
        if let Err(e) = fs::remove_dir_all(&folder) {
            if e.kind() != std::io::ErrorKind::NotFound {
                eprintln!(
                    "dls: warning: could not delete the finished run's checkpoints {}: {e} \
                     (DLS_CHECKPOINT); delete them before the next run",
                    folder.display()
                );
            }
        }
    }
}

/// Deletes the folder of run `key.run − 1` of `key`'s loop in `dir` (the time step before: its
/// files cannot serve a restart, which executes that step again before it gets here), and
/// forgets it in `written`. Every worker of that run has ended (the loop's end is collective).
fn prune_runs(dir: &Path, key: &LoopKey, written: &mut Vec<PathBuf>) {
    let Some(old) = key.run.checked_sub(1) else {
        return;
    };
    let folder = LoopKey {
        run: old,
        ..key.clone()
    }
    .folder(dir);
    match fs::remove_dir_all(&folder) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => eprintln!(
            "dls: warning: could not delete the checkpoints of an earlier run of loop `{}`, {}:              {e} (DLS_CHECKPOINT)",
            key.name,
            folder.display()
        ),
    }
    written.retain(|f| f != &folder);
}

/// Deletes the generations of `key` older than `keep` (the one restored from, kept as the
/// fallback until the new generation is complete).
pub(crate) fn prune(dir: &Path, key: &LoopKey, keep: u64) {
    for (g, _, path) in files(&key.folder(dir)) {
        if g < keep {
            let _ = fs::remove_file(path);
        }
    }
}

/// Writes one worker's checkpoints of one loop run (one generation).
#[derive(Debug)]
pub(crate) struct Writer {
    folder: PathBuf,
    /// Whether `folder` exists (made at the first write).
    made: crate::runtime::annotate::sync::AtomicBool,
    key: LoopKey,
    generation: u64,
    every: Duration,
    /// When each worker of this process last wrote (or first started a checkpointed loop), by
    /// worker index, across loops ([`CheckpointMemory`]).
    clocks: std::sync::Arc<Clocks>,
    /// Writes and their total time, for the report.
    pub(crate) tally: Mutex<(u64, f64)>,
    /// Writes that failed (warned about once per loop and process).
    failed: AtomicU64,
}

/// When each worker of a process last wrote a checkpoint, by worker index, across the loops.
pub(crate) type Clocks = Mutex<std::collections::HashMap<usize, Instant>>;

/// One worker's state between its checkpoints.
#[derive(Debug)]
pub(crate) struct WorkerState {
    worker: usize,
    /// Its last write (or its first checkpointed loop's start), in this loop or an earlier one.
    last: Instant,
    /// When it started this loop.
    started: Instant,
    signals: u64,
    /// The ranges folded into the worker's result, merged when adjacent.
    pub(crate) ranges: Vec<[u64; 2]>,
    dirty: bool,
}

impl WorkerState {
    /// Adds a confirmed chunk `[start, start + size)`.
    pub(crate) fn add(&mut self, start: u64, size: u64) {
        match self.ranges.last_mut() {
            Some(last) if last[1] == start => last[1] += size,
            _ => self.ranges.push([start, start + size]),
        }
        self.dirty = true;
    }
}

impl Writer {
    /// A writer of generation `generation` of `key`'s checkpoints in `dir`.
    #[cfg(test)]
    pub(crate) fn new(
        dir: &Path,
        key: LoopKey,
        generation: u64,
        every: Duration,
    ) -> Result<Writer, DlsError> {
        Writer::with_clocks(dir, key, generation, every, Default::default())
    }

    /// [`Writer::new`] whose workers' clocks are `clocks` (a process's, across its loops). The
    /// folder is made at the first write; `dir` itself must be creatable now.
    pub(crate) fn with_clocks(
        dir: &Path,
        key: LoopKey,
        generation: u64,
        every: Duration,
        clocks: std::sync::Arc<Clocks>,
    ) -> Result<Writer, DlsError> {
        listen_to_sigusr1();
        if !dir.is_dir() {
            fs::create_dir_all(dir).map_err(|e| {
                DlsError::Checkpoint(format!(
                    "cannot create the checkpoint folder {}: {e} (DLS_CHECKPOINT)",
                    dir.display()
                ))
            })?;
        }
        Ok(Writer {
            folder: key.folder(dir),
            made: crate::runtime::annotate::sync::AtomicBool::new(false),
            key,
            generation,
            every,
            clocks,
            tally: Mutex::new((0, 0.0)),
            failed: AtomicU64::new(0),
        })
    }

    /// [`Writer::write`] for a worker in the middle of a loop: a failure is a warning on stderr
    /// (the first of this loop in this process), counted in the report; the loop goes on and the
    /// previous checkpoint of the worker stays valid. The worker tries again at its next due time.
    pub(crate) fn write_or_warn<T: Serialize>(&self, state: &mut WorkerState, value: &T) {
        if let Err(e) = self.write(state, value) {
            // Not again at once: the next try waits for the next interval.
            self.wrote(state);
            if self.failed.fetch_add(1, Ordering::Relaxed) == 0 {
                eprintln!(
                    "dls: warning: {e}; the loop goes on, and a restart resumes from the \
                     checkpoints written before"
                );
            }
        }
    }

    /// The state of `worker`, which starts with `ranges` already in its result (worker 0 of a
    /// restart).
    pub(crate) fn worker(&self, worker: usize, ranges: Vec<[u64; 2]>) -> WorkerState {
        let now = Instant::now();
        let last = *crate::runtime::sync::lock(&self.clocks)
            .entry(worker)
            .or_insert(now);
        WorkerState {
            worker,
            last,
            started: now,
            signals: SIGNALS.load(Ordering::Relaxed),
            dirty: !ranges.is_empty(),
            ranges,
        }
    }

    /// Whether `state`'s worker should write now: its interval has passed since its last write
    /// (in this loop or an earlier one), or a SIGUSR1 arrived, and it has something new.
    pub(crate) fn due(&self, state: &WorkerState) -> bool {
        state.dirty
            && (state.last.elapsed() >= self.every
                || SIGNALS.load(Ordering::Relaxed) != state.signals)
    }

    /// Whether `state`'s worker writes at the loop's end: when due ([`Writer::due`]), or when it
    /// has been in this loop for longer than the interval (a restart then skips the loop whole
    /// instead of executing again up to an interval of its work). A short loop of a time loop
    /// writes only when due.
    pub(crate) fn due_at_end(&self, state: &WorkerState) -> bool {
        self.due(state) || (state.dirty && state.started.elapsed() >= self.every)
    }

    /// Notes that `state`'s worker wrote (or tried to) now.
    fn wrote(&self, state: &mut WorkerState) {
        let now = Instant::now();
        state.last = now;
        state.signals = SIGNALS.load(Ordering::Relaxed);
        crate::runtime::sync::lock(&self.clocks).insert(state.worker, now);
    }

    /// Writes `state`'s ranges and `value` (its confirmed result).
    pub(crate) fn write<T: Serialize>(
        &self,
        state: &mut WorkerState,
        value: &T,
    ) -> Result<(), DlsError> {
        let started = Instant::now();
        let header = Header {
            key: self.key.clone(),
            generation: self.generation,
            worker: state.worker,
            ranges: state.ranges.clone(),
        };
        let bytes = encode(&header, &wire::encode(value)?);
        let path = self
            .folder
            .join(format!("g{}-w{}.ckpt", self.generation, state.worker));
        if !self.made.load(Ordering::Relaxed) {
            fs::create_dir_all(&self.folder).map_err(|e| {
                DlsError::Checkpoint(format!(
                    "cannot create the checkpoint folder {}: {e} (DLS_CHECKPOINT)",
                    self.folder.display()
                ))
            })?;
            self.made.store(true, Ordering::Relaxed);
        }
        write_atomically(&path, &bytes).map_err(|e| {
            DlsError::Checkpoint(format!(
                "cannot write the checkpoint {}: {e} (DLS_CHECKPOINT)",
                path.display()
            ))
        })?;
        self.wrote(state);
        state.dirty = false;
        let mut t = self.tally.lock().unwrap_or_else(|e| e.into_inner());
        t.0 += 1;
        t.1 += started.elapsed().as_secs_f64();
        Ok(())
    }
}

/// What the scheduling process found and made at a loop's start.
type Started<T> = (Restored<T>, Writer, Option<T>);

/// A loop's checkpoints in this process: the writer of this run's generation and what was
/// restored (on the scheduling process).
pub(crate) struct LoopCheckpoints<T> {
    pub(crate) writer: Writer,
    dir: PathBuf,
    /// The restored ranges: worker 0 of the scheduling process starts with them.
    pub(crate) restored_ranges: Vec<[u64; 2]>,
    /// The restored results, merged: worker 0 of the scheduling process starts from it.
    pub(crate) restored_value: Mutex<Option<T>>,
    from: Option<u64>,
    refused: Vec<String>,
}

impl<T> LoopCheckpoints<T> {
    /// The report's `checkpoint` entry, given the iterates the scheduler skipped.
    pub(crate) fn report(&self, restored_iterates: u64) -> crate::report::CheckpointReport {
        let (writes, time) = *self.writer.tally.lock().unwrap_or_else(|e| e.into_inner());
        crate::report::CheckpointReport {
            dir: self.dir.display().to_string(),
            generation: self.writer.generation,
            restored_from: self.from,
            restored_iterates,
            refused: self.refused.clone(),
            writes,
            write_time_s: time,
            failed_writes: self.writer.failed.load(Ordering::Relaxed),
        }
    }
}

/// What a process remembers of its loops' checkpoints across loops: how many loops of each name
/// started with checkpoints on (the k-th run of a loop, a time step, has checkpoints of its own),
/// and the folders of the loops whose checkpoints it scheduled (retired when the program ends
/// normally, [`retire`]).
#[derive(Debug, Default)]
pub(crate) struct CheckpointMemory {
    runs: Mutex<std::collections::HashMap<String, u64>>,
    pub(crate) checkpointed: Mutex<Vec<PathBuf>>,
    /// When each worker last wrote, across loops ([`Writer::due`]).
    clocks: std::sync::Arc<Clocks>,
    /// Whether the folder was checked for another program's checkpoints (once per process).
    checked: Mutex<bool>,
}

/// The start of a loop with checkpoints in `dir` (collective on MPI), written every `every`: the
/// scheduling process reads the newest usable generation, makes its ranges holes of the
/// scheduler, merges the results and writes them at once as worker 0's file of the new
/// generation; then every process learns the new generation (or the error, the same on every
/// rank).
pub(crate) fn start<I, T, Id, C>(
    memory: &CheckpointMemory,
    every: Option<std::time::Duration>,
    lp: &crate::runtime::loops::handle::Loop<I>,
    dir: &Path,
    identity: &Id,
    combine: &C,
) -> Result<LoopCheckpoints<T>, DlsError>
where
    I: crate::runtime::loops::range::LoopIndex,
    T: crate::runtime::combine::wire::Wire,
    Id: Fn() -> T,
    C: Fn(T, T) -> T,
{
    {
        let run = {
            let mut runs = crate::runtime::sync::lock(&memory.runs);
            let r = runs.entry(lp.name().to_string()).or_insert(0);
            *r += 1;
            *r - 1
        };
        let key = LoopKey::new(
            lp.name(),
            run,
            lp.len(),
            &lp.technique().to_string(),
            lp.first_text(),
            std::any::type_name::<T>(),
        );
        let every = every.unwrap_or(DEFAULT_EVERY);
        let source = lp.core().source();
        let scheduler_here = source.rank() == 0;
        let mut local: Option<Result<Started<T>, DlsError>> = None;
        if scheduler_here {
            local = Some((|| {
                // Once per process, where the loop has no checkpoint of its own: the folder may
                // not hold another program's checkpoints.
                let others = !std::mem::replace(&mut *lock(&memory.checked), true);
                let mut r = restore_with::<T>(dir, &key, others)?;
                {
                    let folder = key.folder(dir);
                    let mut written = lock(&memory.checkpointed);
                    prune_runs(dir, &key, &mut written);
                    if !written.contains(&folder) {
                        written.push(folder);
                    }
                }
                if let Some(t) = source.tolerance() {
                    t.restore(&r.ranges)?;
                }
                let clocks = memory.clocks.clone();
                let writer = Writer::with_clocks(dir, key.clone(), r.generation, every, clocks)?;
                let mut value = None;
                if r.from.is_some() {
                    let merged = r.values.drain(..).fold(identity(), combine);
                    // The new generation holds all the old one did before any worker adds to it.
                    let mut state = writer.worker(0, r.ranges.clone());
                    writer.write(&mut state, &merged)?;
                    *writer.tally.lock().unwrap_or_else(|e| e.into_inner()) = (0, 0.0);
                    if let Some(g) = r.from {
                        prune(dir, &key, g);
                    }
                    value = Some(merged);
                }
                Ok((r, writer, value))
            })());
        }
        // Every process learns the generation, or rank 0's error.
        let generation = match source.exchange().filter(|x| x.size() > 1) {
            Some(x) => {
                let mine = local.as_ref().map(|l| match l {
                    Ok((r, _, _)) => {
                        let mut b = vec![0u8];
                        b.extend_from_slice(&r.generation.to_le_bytes());
                        b
                    }
                    Err(e) => {
                        let mut b = vec![1u8];
                        b.extend_from_slice(e.to_string().as_bytes());
                        b
                    }
                });
                let got = x.broadcast(0, mine);
                match got.split_first() {
                    Some((0, g)) if g.len() == 8 => {
                        u64::from_le_bytes(g.try_into().expect("8 bytes"))
                    }
                    Some((1, m)) if !scheduler_here => {
                        return Err(DlsError::Checkpoint(format!(
                            "rank 0: {}",
                            String::from_utf8_lossy(m)
                        )))
                    }
                    _ if scheduler_here => 0,
                    _ => {
                        return Err(DlsError::Checkpoint(
                            "malformed generation from rank 0 (internal error)".into(),
                        ))
                    }
                }
            }
            None => 0,
        };
        match local {
            Some(l) => {
                let (r, writer, value) = l?;
                Ok(LoopCheckpoints {
                    writer,
                    dir: dir.to_path_buf(),
                    restored_ranges: r.ranges,
                    restored_value: Mutex::new(value),
                    from: r.from,
                    refused: r.refused,
                })
            }
            None => Ok(LoopCheckpoints {
                writer: Writer::with_clocks(dir, key, generation, every, memory.clocks.clone())?,
                dir: dir.to_path_buf(),
                restored_ranges: Vec::new(),
                restored_value: Mutex::new(None),
                from: None,
                refused: Vec::new(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u64) -> LoopKey {
        LoopKey {
            program: "prog".into(),
            name: "main.rs:3:5".into(),
            n,
            technique: "fac2".into(),
            run: 0,
            binary: "00ab".into(),
            args: vec!["100".into()],
            first: "0".into(),
            result_type: "u64".into(),
            user_key: String::new(),
        }
    }

    fn temp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("dls-ckpt-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn written_files_restore_and_a_new_generation_follows() {
        let dir = temp("roundtrip");
        let r: Restored<u64> = restore(&dir, &key(100)).unwrap();
        assert_eq!((r.from, r.generation, r.ranges.len()), (None, 0, 0));
        let w = Writer::new(&dir, key(100), 0, DEFAULT_EVERY).unwrap();
        let mut a = w.worker(0, Vec::new());
        a.add(0, 10);
        a.add(10, 5);
        w.write(&mut a, &15u64).unwrap();
        let mut b = w.worker(1, Vec::new());
        b.add(40, 20);
        w.write(&mut b, &7u64).unwrap();
        let r: Restored<u64> = restore(&dir, &key(100)).unwrap();
        assert_eq!(r.from, Some(0));
        assert_eq!(r.generation, 1);
        assert_eq!(r.ranges, vec![[0, 15], [40, 60]]);
        assert_eq!(r.values.iter().sum::<u64>(), 22);
        assert_eq!(w.tally.lock().unwrap().0, 2);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 43 N21: the generation after the last number is an error, not generation 0 (which
    /// a later restart would take for the oldest).
    #[test]
    fn the_generation_counter_does_not_wrap() {
        let dir = temp("wrap");
        let w = Writer::new(&dir, key(100), u64::MAX, DEFAULT_EVERY).unwrap();
        let mut a = w.worker(0, Vec::new());
        a.add(0, 10);
        w.write(&mut a, &10u64).unwrap();
        let e = restore::<u64>(&dir, &key(100)).unwrap_err().to_string();
        assert!(e.contains("last generation number"), "{e}");
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 43 N23: the temporary file of a write that a kill interrupted is gone once the
    /// loop starts again; the checkpoints stay.
    #[test]
    fn a_killed_writers_temporary_file_is_removed_at_the_next_start() {
        let dir = temp("tmp");
        let w = Writer::new(&dir, key(100), 0, DEFAULT_EVERY).unwrap();
        let mut a = w.worker(0, Vec::new());
        a.add(0, 10);
        w.write(&mut a, &10u64).unwrap();
        let folder = key(100).folder(&dir);
        let stale = folder.join("g0-w1.tmp4242");
        fs::write(&stale, b"half a checkpoint").unwrap();
        let r: Restored<u64> = restore(&dir, &key(100)).unwrap();
        assert_eq!(r.ranges, vec![[0, 10]]);
        assert!(!stale.exists(), "the temporary file is left");
        assert!(folder.join("g0-w0.ckpt").exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn another_programs_checkpoints_are_refused() {
        let dir = temp("program");
        let w = Writer::new(&dir, key(100), 0, DEFAULT_EVERY).unwrap();
        let mut a = w.worker(0, vec![[0, 1]]);
        w.write(&mut a, &1u64).unwrap();
        // Another loop of the same program: no checkpoint yet, starts from the beginning.
        let other_loop = LoopKey {
            name: "main.rs:9:9".into(),
            ..key(100)
        };
        assert_eq!(restore::<u64>(&dir, &other_loop).unwrap().from, None);
        let other_program = LoopKey {
            program: "another".into(),
            ..key(100)
        };
        let e = restore::<u64>(&dir, &other_program)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("program `prog`") && e.contains("this is `another`"),
            "{e}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn another_run_is_refused_saying_what_differs() {
        let dir = temp("differs");
        let w = Writer::new(&dir, key(100), 0, DEFAULT_EVERY).unwrap();
        let mut a = w.worker(0, vec![[0, 1]]);
        w.write(&mut a, &1u64).unwrap();
        let other = LoopKey {
            technique: "gss".into(),
            ..key(100)
        };
        let e = restore::<u64>(&dir, &other).unwrap_err().to_string();
        assert!(e.contains("technique `fac2` (now `gss`)"), "{e}");
        let e = restore::<u64>(&dir, &key(99)).unwrap_err().to_string();
        assert!(e.contains("100 iterates (now 99)"), "{e}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_corrupt_or_truncated_file_falls_back_to_the_generation_before() {
        let dir = temp("corrupt");
        let w0 = Writer::new(&dir, key(100), 0, DEFAULT_EVERY).unwrap();
        let mut a = w0.worker(0, Vec::new());
        a.add(0, 10);
        w0.write(&mut a, &10u64).unwrap();
        let w1 = Writer::new(&dir, key(100), 1, DEFAULT_EVERY).unwrap();
        let mut b = w1.worker(0, vec![[0, 10]]);
        b.add(10, 30);
        w1.write(&mut b, &40u64).unwrap();
        let path = key(100).folder(&dir).join("g1-w0.ckpt");
        let good = fs::read(&path).unwrap();
        // Truncated: generation 1 is refused, generation 0 is used.
        fs::write(&path, &good[..good.len() - 3]).unwrap();
        let r: Restored<u64> = restore(&dir, &key(100)).unwrap();
        assert_eq!(r.from, Some(0));
        assert_eq!(r.generation, 2);
        assert_eq!(r.ranges, vec![[0, 10]]);
        assert_eq!(r.values, vec![10]);
        assert!(r.refused[0].contains("checksum"), "{:?}", r.refused);
        // One flipped bit: refused too.
        let mut flipped = good.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        fs::write(&path, &flipped).unwrap();
        let r: Restored<u64> = restore(&dir, &key(100)).unwrap();
        assert_eq!(r.from, Some(0));
        // Both corrupt: start over.
        fs::write(
            key(100).folder(&dir).join("g0-w0.ckpt"),
            b"DLSCKPT1 00 3\nabc",
        )
        .unwrap();
        let r: Restored<u64> = restore(&dir, &key(100)).unwrap();
        assert_eq!((r.from, r.ranges.len(), r.refused.len()), (None, 0, 2));
        fs::remove_dir_all(&dir).unwrap();
    }
}
