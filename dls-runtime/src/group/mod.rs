//! Two-level (2D) loops on rack-grouped communicators: Cariño & Banicescu (2007) §3, fig. 3.4 and 3.5.
//!
//! A 2D loop is an outer loop whose iterates each hold one or more inner parallel loops. The
//! ranks are split into groups (inner communicators) by rack; a coordinator schedules the outer
//! iterates among the group leaders, and each group schedules the inner iterates among its ranks.
//!
//! The pure parts, usable and tested without MPI:
//! - [`RackMap`]: which rack each rank is in (`DLS_RACKS`), with [`HostPattern`]s;
//! - [`GroupSpec`] and [`GroupLayout::plan`]: the GroupSetup algorithm;
//! - [`plan`]: the one-level fallback on 1 or 2 ranks;
//! - [`GroupReport`], [`summarise_groups`], [`group_summary`]: the per-group report of fig. 4.5.
//!
//! The loops: [`Groups`] (the two-level loop, generic over the backend's `TwoLevel`) and
//! [`InnerLoops`] (the inner loops of an outer iterate, over a `Team`), both on the runtime's
//! chunk-source seam and worker loop; the MPI communicators are in `two_level_mpi.rs`.
//!
//! On MPI ([`Groups`], feature `mpi`) both levels run on the runtime's scheduler/worker machinery
//! (the module docs of `runtime::mpi_backend`): one protocol and one set of messages for
//! one-level loops, outer loops and inner loops. The outer loop runs over the coordinator and the
//! group leaders; the coordinator executes no iterate and only answers the leaders. Each inner
//! loop runs over its group; the leader schedules on a service thread while its own thread
//! executes inner iterates, so the group's requests are answered promptly whatever the iterate
//! length (`test-programs/tests/mpi_groups_latency.rs`). Each level has its own communicator, split from a
//! private duplicate of `MPI_COMM_WORLD`.
//!
//! | Cariño & Banicescu (2007) | dls |
//! |----------|-----|
//! | `DLS_GroupSetup(comm, coordinator, minSize, maxSize, jInfo, iInfo)` | [`GroupSpec`] + [`GroupLayout::plan`] (the communicators are built by the runtime) |
//! | `iComm` | a [`Group`] |
//! | `jComm` | the coordinator and the group leaders ([`GroupLayout::leaders`]) |
//!
//! ```
//! use dls_runtime::group::{GroupLayout, GroupSpec, RackMap};
//! let map: RackMap = "ranks:0-3=a,4=b".parse().unwrap();
//! let racks = map.racks(&["host"; 5]);
//! let layout = GroupLayout::plan(&racks, &GroupSpec::new(1, 3)).unwrap();
//! assert_eq!(layout.describe(), "coordinator 0; groups {1,2,3}@a {4}@b");
//! ```

mod error;
mod groups;
mod host_pattern;
mod inner;
mod layout;
mod plan;
mod rack_map;
mod reduce_ops;
mod report;
mod spec;
mod two_level;
#[cfg(feature = "mpi")]
mod two_level_mpi;

pub use crate::report::GroupReport;
pub use error::GroupError;
pub use groups::{BodyResult, Groups};
pub use host_pattern::HostPattern;
pub use inner::InnerLoops;
pub use layout::{Group, GroupLayout, Role};
pub use plan::{plan, Plan};
pub use rack_map::{HostRule, RackMap, RankRule};
pub use report::{group_summary, summarise_groups};
pub use spec::GroupSpec;
