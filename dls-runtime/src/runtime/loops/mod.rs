//! The one loop engine: what describes a loop (`options.rs`), the engine (`engine.rs`) with its
//! adaptors (`ordered.rs`; the checked adaptor is `check/checked.rs`), the worker loops
//! (`worker.rs`), a loop in progress (`handle.rs`), the chunk-source seam (`source.rs`), index
//! ranges and panic contexts; loops too small to share (`alone.rs`).

pub(crate) mod alone;
pub(crate) mod claimed;
pub(crate) mod engine;
pub(crate) mod handle;
pub mod options;
pub(crate) mod ordered;
pub(crate) mod panic_ctx;
pub(crate) mod range;
pub(crate) mod source;
pub(crate) mod worker;
