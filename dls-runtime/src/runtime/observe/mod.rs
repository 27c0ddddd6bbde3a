//! What a run shows of itself: reports and their summary, progress, synthetic delays (the
//! scalability test) and the CPU clock.

pub(crate) mod cpu_clock;
pub mod delay;
pub mod progress;
pub mod stats;
