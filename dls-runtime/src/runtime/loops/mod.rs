//! The loop's vocabulary, below the engine (`runtime/engine/`): what describes a loop
//! (`options.rs`), a loop in progress (`handle.rs`), the chunk-source seam (`source.rs`), index
//! ranges (`range.rs`) and panic contexts (`panic_ctx.rs`). Every subsystem imports these; none
//! of them imports the engine.

pub(crate) mod exchange;
pub(crate) mod handle;
pub mod options;
pub(crate) mod panic_ctx;
pub(crate) mod range;
pub(crate) mod reduction;
pub(crate) mod source;
