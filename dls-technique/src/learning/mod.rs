//! What the adaptive techniques learn from: per-rank measurements ([`rank_stats`]), their sums
//! kept in O(1) per chunk ([`aggregates`]), the sampling phase before a rank is measured
//! ([`probe`]), rank speeds compared on neighbouring iterates ([`local_speed`]), and what is learnt across executions of a loop ([`awf_history`], [`history`]).

pub(crate) mod aggregates;
pub(crate) mod awf_history;
pub(crate) mod history;
pub(crate) mod local_speed;
pub(crate) mod probe;
pub(crate) mod rank_stats;
