//! The two-level loop on MPI (Cariño & Banicescu 2007, fig. 3.4 and 3.5): communicators built from the group
//! layout, the coordinator scheduling outer iterates among the group leaders, each group running
//! its outer iterates in lock step and sharing their inner loops. This file holds the MPI side
//! ([`TwoLevel`] for the communicators, [`Team`] for a group); the loop itself is generic
//! (`Groups::fold_2d`, `InnerLoops::fold`) and both levels run on the runtime's chunk-source seam
//! and worker loop:
//!
//! - An inner loop runs over its group's communicator (`MpiLoop::start_private`): rank 0 (the
//!   group leader) schedules on a service thread and executes iterates on its own thread, so a
//!   request of the group's other ranks is answered promptly whatever the length of the leader's
//!   iterates.
//! - The outer loop runs over the coordinator and the group leaders, the coordinator as rank 0,
//!   which only schedules (`Rank0::Coordinates`); each leader relays its outer chunks to its
//!   group (`mpi_backend::OuterRelay`).
//!
//! Loops on one communicator run one after the other without a duplicate each (see
//! `MpiLoop::start_private` for why their messages cannot mix); each level has its own
//! communicator, split from a private duplicate of `MPI_COMM_WORLD`, so no message of one level
//! can match a receive of the other, nor one of a one-level loop.

use std::sync::Arc;
use std::time::Instant;

use mpi::topology::{Color, Communicator, SimpleCommunicator};
use mpi::traits::CommunicatorCollectives;
use serde::{Deserialize, Serialize};

use super::inner::{InnerTally, Team};
use super::layout::{GroupLayout, Role};
use super::plan::{plan, Plan};
use super::rack_map::RackMap;
use super::report::summarise_groups;
use super::spec::GroupSpec;
use super::two_level::TwoLevel;
use crate::report::{GroupReport, LoopReport, RankReport};
use crate::runtime::backend::mpi::{LoopComm, MpiLoop, OuterRelay, Rank0};
use crate::runtime::combine::gather_values;
use crate::runtime::{ChunkSource, DlsError, Exchange};
use crate::Technique;

/// Longest processor name exchanged (longer names are cut; MPI's own limit is 256).
const NAME_LEN: usize = 256;

/// The communicators of a two-level loop on MPI.
pub(crate) struct MpiGroups {
    layout: GroupLayout,
    role: Role,
    world_rank: usize,
    /// A private duplicate of `MPI_COMM_WORLD` (setup, and the results after each loop).
    world: LoopComm,
    /// The coordinator and the group leaders (coordinator = rank 0).
    outer: Option<Arc<LoopComm>>,
    /// The calling rank's group (leader = rank 0).
    inner: Option<Arc<LoopComm>>,
}

/// What each rank tells the others after a two-level loop.
#[derive(Serialize, Deserialize, Default)]
struct RankRecord {
    rank: usize,
    inner_iterates: u64,
    inner_chunks: u64,
    inner_work_s: f64,
    time_s: f64,
    techniques: Vec<String>,
    /// Coordinator only: the outer chunk map, `[start, size, group]`.
    chunk_map: Vec<[u64; 3]>,
    /// Coordinator only: per group, `(outer iterates, outer chunks, work seconds)`.
    groups: Vec<(u64, u64, f64)>,
}

fn spec_error(spec: &GroupSpec, e: super::GroupError) -> DlsError {
    match e {
        super::GroupError::RackMap(m) => DlsError::Setting {
            name: "DLS_RACKS",
            value: std::env::var("DLS_RACKS").unwrap_or_default(),
            message: m,
        },
        super::GroupError::Spec(m)
        | super::GroupError::TooFewRanks(m)
        | super::GroupError::Setup(m) => DlsError::Setting {
            name: "group",
            value: format!("min={},max={}", spec.min, spec.max),
            message: m,
        },
    }
}

impl MpiGroups {
    /// `DLS_GroupSetup`: reads the rack map on rank 0, learns every rank's node, plans the groups
    /// and splits the communicators. Collective over `MPI_COMM_WORLD`. `None`: a one-level
    /// fallback (1 or 2 ranks).
    pub(super) fn setup(spec: &GroupSpec) -> Result<Option<Box<dyn TwoLevel>>, DlsError> {
        crate::runtime::backend::mpi::agreement::agree(
            &crate::runtime::backend::mpi::messages::Step::GroupSetup,
        );
        let world = LoopComm(SimpleCommunicator::world().duplicate());
        let p = world.0.size() as usize;
        let world_rank = world.0.rank() as usize;

        // The rack map, as rank 0 reads it (so every rank parses the same text).
        let setting: Result<String, String> = if world_rank == 0 {
            RackMap::from_env()
                .map(|m| m.to_string())
                .map_err(|e| match e {
                    super::GroupError::RackMap(m) => m,
                    other => other.to_string(),
                })
        } else {
            Ok(String::new())
        };
        let setting = gather_values(&world, &setting)?.swap_remove(0);
        let map: RackMap = setting
            .and_then(|text| text.parse().map_err(|e: super::GroupError| e.to_string()))
            .and_then(|m: RackMap| m.check_ranks(p).map(|()| m))
            .map_err(|m| spec_error(spec, super::GroupError::RackMap(m)))?;

        // Every rank's node.
        let name = mpi::environment::processor_name().unwrap_or_else(|_| "unknown".into());
        let mut mine = [0u8; NAME_LEN];
        let n = name.len().min(NAME_LEN);
        mine[..n].copy_from_slice(&name.as_bytes()[..n]);
        let mut all = vec![0u8; NAME_LEN * p];
        world.0.all_gather_into(&mine[..], &mut all[..]);
        let hosts: Vec<String> = all
            .chunks(NAME_LEN)
            .map(|c| {
                let end = c.iter().position(|&b| b == 0).unwrap_or(c.len());
                String::from_utf8_lossy(&c[..end]).into_owned()
            })
            .collect();
        let racks = map.racks(&hosts);

        let layout = match plan(&racks, spec).map_err(|e| spec_error(spec, e))? {
            Plan::OneLevel { warning } => {
                if world_rank == 0 {
                    eprintln!("{warning}");
                }
                return Ok(None);
            }
            Plan::TwoLevel(layout) => layout,
        };
        let role = layout.role(world_rank);
        let comm = &world.0;
        let key = world_rank as i32;
        let inner_color = match role {
            Role::Member { group, .. } => Color::with_value(group as i32),
            _ => Color::undefined(),
        };
        let inner = comm
            .split_by_color_with_key(inner_color, key)
            .map(|c| Arc::new(LoopComm(c)));
        let (outer_color, outer_key) = match role {
            Role::Coordinator => (Color::with_value(0), 0),
            Role::Member { group, index: 0 } => (Color::with_value(0), 1 + group as i32),
            _ => (Color::undefined(), 0),
        };
        let outer = comm
            .split_by_color_with_key(outer_color, outer_key)
            .map(|c| Arc::new(LoopComm(c)));
        Ok(Some(Box::new(MpiGroups {
            layout,
            role,
            world_rank,
            world,
            outer,
            inner,
        })))
    }
}

impl Team for Arc<LoopComm> {
    fn rank(&self) -> usize {
        self.0.rank() as usize
    }

    fn size(&self) -> usize {
        self.0.size() as usize
    }

    fn start(&self, technique: &Technique, n: u64) -> Result<Box<dyn ChunkSource>, DlsError> {
        Ok(Box::new(MpiLoop::start_private(
            self,
            technique,
            n,
            Rank0::Computes,
        )?))
    }

    fn exchange(&self) -> &dyn Exchange {
        &**self
    }
}

impl TwoLevel for MpiGroups {
    fn layout(&self) -> &GroupLayout {
        &self.layout
    }

    fn role(&self) -> Role {
        self.role
    }

    fn world_rank(&self) -> usize {
        self.world_rank
    }

    fn start_together(&self) {
        self.world.0.barrier();
    }

    fn coordinate(
        &self,
        technique: &Technique,
        m: u64,
        name: &str,
        started: Instant,
    ) -> Result<LoopReport, DlsError> {
        let outer = self
            .outer
            .as_ref()
            .expect("coordinator has the outer communicator");
        // The coordinator executes no iterate: its service thread answers the leaders while this
        // thread waits for the end of the loop.
        let lp = MpiLoop::start_private(outer, technique, m, Rank0::Coordinates)?;
        Ok(lp
            .finish(&[], 0.0, Some((name, started)))
            .expect("a report was asked for"))
    }

    fn outer(&self, technique: &Technique, m: u64) -> Result<Box<dyn ChunkSource>, DlsError> {
        let group = self
            .inner
            .as_ref()
            .expect("members have an inner communicator");
        let leads = matches!(self.role, Role::Member { index: 0, .. });
        let outer = if leads {
            Some(
                self.outer
                    .as_ref()
                    .expect("leaders have the outer communicator"),
            )
        } else {
            None
        };
        let groups = self.layout.groups.len();
        Ok(Box::new(OuterRelay::start(
            outer, group, groups, technique, m,
        )?))
    }

    fn team(&self) -> Option<&dyn Team> {
        self.inner.as_ref().map(|c| c as &dyn Team)
    }

    fn world(&self) -> &dyn Exchange {
        &self.world
    }

    fn report(
        &self,
        name: &str,
        technique: &Technique,
        m: u64,
        time_s: f64,
        inner: InnerTally,
        outer: Option<LoopReport>,
    ) -> Result<LoopReport, DlsError> {
        let mut record = RankRecord {
            rank: self.world_rank,
            time_s,
            inner_iterates: inner.done.iterates,
            inner_chunks: inner.done.chunks,
            inner_work_s: inner.done.work_s,
            techniques: inner.techniques,
            ..RankRecord::default()
        };
        if let Some(rep) = outer {
            record.chunk_map = rep.chunk_map;
            record.groups = rep
                .ranks
                .iter()
                .map(|r| (r.iterates, r.chunks, r.work_time_s))
                .collect();
        }
        let records: Vec<RankRecord> = gather_values(&self.world, &record)?;
        Ok(self.summarise(name, technique, m, records))
    }
}

impl MpiGroups {
    fn summarise(
        &self,
        name: &str,
        technique: &Technique,
        m: u64,
        mut records: Vec<RankRecord>,
    ) -> LoopReport {
        records.sort_by_key(|r| r.rank);
        let parallel = records.iter().map(|r| r.time_s).fold(0.0, f64::max);
        let leaders = self.layout.leaders();
        let coord = &records[self.layout.coordinator];
        let mut techniques: Vec<String> = Vec::new();
        for r in &records {
            for t in &r.techniques {
                if !techniques.contains(t) {
                    techniques.push(t.clone());
                }
            }
        }
        let mut report = LoopReport {
            name: name.to_string(),
            technique: if techniques.is_empty() {
                technique.to_string()
            } else {
                format!("{technique} / {}", techniques.join(", "))
            },
            n: m,
            p: self.layout.p,
            parallel_time_s: parallel,
            ranks: records
                .iter()
                .map(|r| RankReport {
                    rank: r.rank,
                    iterates: r.inner_iterates,
                    work_time_s: r.inner_work_s,
                    chunks: r.inner_chunks,
                    idle_time_s: (parallel - r.inner_work_s).max(0.0),
                    ..RankReport::default()
                })
                .collect(),
            chunk_map: coord
                .chunk_map
                .iter()
                .map(|c| [c[0], c[1], leaders[c[2] as usize] as u64])
                .collect(),
            coordinator: Some(self.layout.coordinator),
            groups: self
                .layout
                .groups
                .iter()
                .enumerate()
                .map(|(g, grp)| {
                    let (outer_iterates, outer_chunks, work) =
                        coord.groups.get(g).copied().unwrap_or_default();
                    GroupReport {
                        group: g,
                        ranks: grp.ranks.clone(),
                        racks: grp.racks.clone(),
                        outer_iterates,
                        outer_chunks,
                        inner_iterates: grp.ranks.iter().map(|&r| records[r].inner_iterates).sum(),
                        work_time_s: work,
                    }
                })
                .collect(),
            ..LoopReport::default()
        };
        summarise_groups(&mut report);
        report
    }
}
