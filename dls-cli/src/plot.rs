//! `dls plot`: draw the loop reports of a run (`DLS_REPORT=run.jsonl`) as SVG charts.
//!
//! Per loop: the work and idle time of each rank (Cariño & Banicescu 2007, fig. 4.2), the chunk
//! sizes in the order they were handed out, the chunk timeline (time × worker, one rectangle per
//! chunk, coloured by its size) and for two-level loops the work of each group (fig. 4.5).
//! `dls simulate --plot` draws a simulated loop with the same code ([`write_charts`]). Drawn with `plotters`: SVG needs no fonts; PNG text is drawn with a bundled subset of
//! DejaVu Sans (`fonts/`), so neither looks up a system font.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use dls::LoopReport;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::output::{print, CliError};

/// Draw the loops of a report file: per-rank work and idle bars, the chunk-size sequence, the
/// chunk timeline, and per-group bars for two-level loops.
///
/// Reads the loop reports a run wrote with DLS_REPORT=FILE (JSON Lines, one report per loop), or
/// the output of `dls simulate --json`. Writes one file per chart and loop into --out, named from
/// the loop name (characters other than letters, digits, '-' and '_' become '_'; a repeated name
/// gets -2, -3, ...) and the chart: NAME_work_idle.svg, NAME_chunk_sizes.svg (when the report has
/// a chunk_map), NAME_timeline.svg (when it has chunk_times) and NAME_groups.svg (two-level
/// loops), or .png with --format png, and prints their paths.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  DLS_REPORT=run.jsonl cargo run --release --example mandelbrot && dls plot run.jsonl --out plots\n  dls simulate -t fac2 --n 10000 --p 4 --iterate-time exp:1ms --json --chunk-map > sim.json && dls plot sim.json\n  dls simulate -t fac2 --n 10000 --p 4 --iterate-time exp:1ms --plot plots\n  dls plot run.jsonl --loop 'src/main.rs:12:5'\n  dls plot run.jsonl --format png\n\nSVG (the default) opens in a web browser; PNG text uses a font bundled with dls (DejaVu Sans, ASCII only), so no system fonts are needed."
)]
pub(crate) struct PlotArgs {
    /// The report file: JSON Lines of loop reports, as written with DLS_REPORT=FILE.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Draw only the loop(s) of this name (as in the report's "name" field).
    #[arg(long = "loop", value_name = "NAME")]
    pub loop_name: Option<String>,

    /// The directory to write the charts into (created if missing).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out: PathBuf,

    /// The image format.
    #[arg(long, value_enum, default_value_t = Format::Svg)]
    pub format: Format,
}

/// The image formats `dls plot` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Scalable vector graphics (text; the viewer draws the letters).
    Svg,
    /// Portable network graphics, 900 x 540 pixels.
    Png,
}

impl Format {
    /// The file-name extension.
    fn extension(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
        }
    }
}

/// The charts of one loop.
#[derive(Debug, Clone, Copy)]
enum Chart {
    /// Work and idle time per rank.
    WorkIdle,
    /// Chunk size against chunk number.
    ChunkSizes,
    /// Work time per group (two-level loops).
    Groups,
    /// Chunks on a time line, one row per worker, coloured by size.
    Timeline,
}

impl Chart {
    /// The chart's part of the file name.
    fn suffix(self) -> &'static str {
        match self {
            Chart::WorkIdle => "work_idle",
            Chart::ChunkSizes => "chunk_sizes",
            Chart::Groups => "groups",
            Chart::Timeline => "timeline",
        }
    }
}

/// DejaVu Sans, printable ASCII and a few symbols (licence in `fonts/LICENSE-DejaVu`): the font
/// of every text, registered as "sans-serif" for plotters' ab_glyph text.
const FONT: &[u8] = include_bytes!("fonts/DejaVuSans-subset.ttf");

/// Fill of the work part of a bar.
const WORK: RGBColor = RGBColor(0x1F, 0x77, 0xB4);
/// Fill of the CPU-time bar inside a work bar.
const CPU: RGBColor = RGBColor(0xFF, 0x7F, 0x0E);
/// Fill of the idle part of a bar.
const IDLE: RGBColor = RGBColor(0xC8, 0xC8, 0xC8);
/// Combining the partial results (green).
const COMBINE: RGBColor = RGBColor(0x2C, 0xA0, 0x2C);
/// Size of every chart, pixels.
const SIZE: (u32, u32) = (900, 540);
/// At most this many ranks are named in the legend of the chunk-size chart.
const LEGEND_RANKS: usize = 16;

/// Runs `dls plot`.
pub(crate) fn run(a: &PlotArgs) -> Result<(), CliError> {
    let reports = crate::reports::read(&a.file)?;
    let chosen: Vec<&LoopReport> = match &a.loop_name {
        Some(name) => {
            let found: Vec<&LoopReport> = reports.iter().filter(|r| &r.name == name).collect();
            if found.is_empty() {
                let mut names: Vec<&str> = reports.iter().map(|r| r.name.as_str()).collect();
                names.dedup();
                return Err(CliError::Message(format!(
                    "{}: no loop named {name:?} (its loops: {})",
                    a.file.display(),
                    names.join(", ")
                )));
            }
            found
        }
        None => reports.iter().collect(),
    };
    if chosen.len() > MAX_PLOTTED {
        let mut names: Vec<&str> = reports.iter().map(|r| r.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let shown: Vec<String> = names.iter().take(5).map(|n| format!("{n:?}")).collect();
        return Err(CliError::Message(format!(
            "{}: {} loop reports to plot ({} loop names), up to 4 files each: dls plot draws at \
             most {MAX_PLOTTED} at once; pick a loop with --loop NAME (for example {}{})",
            a.file.display(),
            chosen.len(),
            names.len(),
            shown.join(", "),
            if names.len() > 5 { ", ..." } else { "" }
        )));
    }
    let written = write_charts(&chosen, &a.out, a.format)?;
    print(
        &written
            .iter()
            .map(|p| format!("{}\n", p.display()))
            .collect::<String>(),
    )
}

/// The most loop reports `dls plot` draws in one run (up to 4 files each): a report file with
/// thousands of loop names would otherwise write thousands of files.
const MAX_PLOTTED: usize = 200;

/// Writes the charts of every report into `out` (created if missing) as `format`, and returns
/// the files written: what `dls plot` and `dls simulate --plot` draw.
pub(crate) fn write_charts(
    reports: &[&LoopReport],
    out: &Path,
    format: Format,
) -> Result<Vec<PathBuf>, CliError> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| CliError::Message("the bundled font is not a valid TrueType font".into()))?;
    fs::create_dir_all(out).map_err(|e| {
        CliError::Message(format!(
            "cannot create the directory {}: {e}",
            out.display()
        ))
    })?;
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut written = Vec::new();
    for &report in reports {
        let base = sanitise(&report.name);
        let count = seen.entry(base.clone()).or_insert(0);
        *count += 1;
        let stem = if *count == 1 {
            base
        } else {
            format!("{base}-{count}")
        };
        let mut charts = vec![Chart::WorkIdle];
        if report.chunk_map.is_empty() {
            eprintln!(
                "note: loop {:?} has no chunk_map: no chunk-size chart (dls simulate needs --chunk-map)",
                report.name
            );
        } else {
            charts.push(Chart::ChunkSizes);
        }
        if report.chunk_times.iter().any(Option::is_some) {
            charts.push(Chart::Timeline);
        } else if !report.chunk_map.is_empty() {
            eprintln!(
                "note: loop {:?} has no chunk_times: no timeline (two-level loops and reports \
                 written before dls recorded chunk times have none)",
                report.name
            );
        }
        if !report.groups.is_empty() {
            charts.push(Chart::Groups);
        }
        for chart in charts {
            let path = out.join(format!("{stem}_{}.{}", chart.suffix(), format.extension()));
            match format {
                Format::Svg => draw(
                    SVGBackend::new(&path, SIZE).into_drawing_area(),
                    chart,
                    report,
                    &path,
                )?,
                Format::Png => draw(
                    BitMapBackend::new(&path, SIZE).into_drawing_area(),
                    chart,
                    report,
                    &path,
                )?,
            }
            written.push(path);
        }
    }
    Ok(written)
}

/// The loop name as a file-name stem: letters, digits, `-` and `_` kept, anything else `_`
/// ("loop" for an empty name).
fn sanitise(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "loop".to_string()
    } else {
        s
    }
}

/// A drawing error as a message naming the file.
fn draw_error(path: &Path, e: impl std::fmt::Display) -> CliError {
    CliError::Message(format!("cannot draw {}: {e}", path.display()))
}

/// The top of a time axis: room above the largest value for the legend (1 when all are zero).
fn time_top(max: f64) -> f64 {
    if max > 0.0 && max.is_finite() {
        max * 1.22
    } else {
        1.0
    }
}

/// The caption's font size, pixels: 18, smaller for a long caption so that it fits in `width`
/// pixels (DejaVu Sans letters average about 0.56 of the size), at least 11.
fn caption_size(caption: &str, width: u32) -> u32 {
    let fits = (f64::from(width) - 40.0) / (0.56 * caption.chars().count().max(1) as f64);
    (fits.floor() as u32).clamp(11, 18)
}

/// An axis label for a count: the whole number at a whole tick, nothing between (ticks at 0.5
/// would otherwise print as repeated numbers, and -0.4 as "-0").
fn whole(x: f64) -> String {
    let r = x.round();
    if (x - r).abs() < 1e-9 && r >= 0.0 {
        format!("{r:.0}")
    } else {
        String::new()
    }
}

/// The loop's name and technique, for a caption.
fn title(report: &LoopReport, what: &str) -> String {
    // Control characters (a NUL) are not allowed in an SVG's XML: shown as `?`.
    let shown = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect()
    };
    format!(
        "{what}: {} ({})",
        shown(&report.name),
        shown(&report.technique)
    )
}

/// Draws one chart of `report` on `root`, a new drawing area of the file `path`.
fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    chart: Chart,
    report: &LoopReport,
    path: &Path,
) -> Result<(), CliError> {
    match chart {
        Chart::WorkIdle => draw_work_idle(root, report, path),
        Chart::ChunkSizes => draw_chunk_sizes(root, report, path),
        Chart::Groups => draw_groups(root, report, path),
        Chart::Timeline => draw_timeline(root, report, path),
    }
}

/// Draws stacked work-and-idle bars, one per entry of `bars` as (label, work, idle) seconds,
/// with a narrow CPU-time bar inside each work bar when `cpu` is given (one per bar).
fn draw_stacked_bars<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    path: &Path,
    caption: &str,
    x_desc: &str,
    bars: &[(String, f64, f64, f64)],
    cpu: Option<&[f64]>,
) -> Result<(), CliError> {
    root.fill(&WHITE).map_err(|e| draw_error(path, e))?;
    let top = time_top(bars.iter().map(|b| b.1 + b.2 + b.3).fold(0.0, f64::max));
    let n = bars.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", caption_size(caption, SIZE.0)))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(-0.5..n - 0.5, 0.0..top)
        .map_err(|e| draw_error(path, e))?;
    // The x axis is bar numbers: its ticks would fall between bars, so the bars are labelled
    // below by hand (every one, or evenly spaced ones when there are more than 32).
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .x_desc(x_desc)
        .y_desc("time (s)")
        .draw()
        .map_err(|e| draw_error(path, e))?;
    let every = bars.len().div_ceil(32).max(1);
    let style =
        TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, b) in bars.iter().enumerate().step_by(every) {
        let (x, y) = chart.backend_coord(&(i as f64, 0.0));
        root.draw(&Text::new(b.0.clone(), (x, y + 6), style.clone()))
            .map_err(|e| draw_error(path, e))?;
    }
    let bar = |i: usize, from: f64, to: f64, color: RGBColor| {
        let i = i as f64;
        Rectangle::new([(i - 0.42, from), (i + 0.42, to)], color.filled())
    };
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| bar(i, 0.0, b.1, WORK)))
        .map_err(|e| draw_error(path, e))?
        .label("work")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], WORK.filled()));
    chart
        .draw_series(
            bars.iter()
                .enumerate()
                .map(|(i, b)| bar(i, b.1, b.1 + b.2, IDLE)),
        )
        .map_err(|e| draw_error(path, e))?
        .label("idle")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], IDLE.filled()));
    if bars.iter().any(|b| b.3 > 0.0) {
        // Combining the partial results after the last chunk: a phase of its own, not idle.
        chart
            .draw_series(
                bars.iter()
                    .enumerate()
                    .map(|(i, b)| bar(i, b.1 + b.2, b.1 + b.2 + b.3, COMBINE)),
            )
            .map_err(|e| draw_error(path, e))?
            .label("combine")
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], COMBINE.filled()));
    }
    if let Some(cpu) = cpu {
        chart
            .draw_series(cpu.iter().enumerate().map(|(i, &c)| {
                let i = i as f64;
                Rectangle::new([(i - 0.12, 0.0), (i + 0.12, c)], CPU.filled())
            }))
            .map_err(|e| draw_error(path, e))?
            .label("cpu time")
            .legend(|(x, y)| Rectangle::new([(x + 4, y - 5), (x + 10, y + 5)], CPU.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| draw_error(path, e))?;
    root.present().map_err(|e| draw_error(path, e))
}

/// Chart 1: per rank, its work time with its idle time stacked on top (Cariño & Banicescu 2007,
/// fig. 4.2).
fn draw_work_idle<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    report: &LoopReport,
    path: &Path,
) -> Result<(), CliError> {
    let bars: Vec<(String, f64, f64, f64)> = report
        .ranks
        .iter()
        .map(|r| {
            (
                report.worker_name(r.rank as u64),
                r.work_time_s,
                r.idle_time_s,
                report.combine_time_s,
            )
        })
        .collect();
    // A two-level loop's ranks report their inner loops' work, while its efficiency is the
    // groups' (shown on the groups chart): the caption says so instead of the efficiency.
    let caption = if report.groups.is_empty() {
        format!(
            "{} — makespan {:.4} s, efficiency {:.3}",
            title(report, "work and idle time"),
            report.parallel_time_s,
            report.efficiency
        )
    } else {
        format!(
            "{} — makespan {:.4} s",
            title(report, "inner-loop work and idle time"),
            report.parallel_time_s
        )
    };
    // CPU time inside the work bars, where measured: a short one means the worker waited.
    let cpu: Vec<f64> = report.ranks.iter().map(|r| r.cpu_time_s).collect();
    let cpu = cpu.iter().any(|&c| c > 0.0).then_some(&cpu[..]);
    let caption = match report.cpu_share() {
        Some(share) => format!("{caption}, cpu {:.0}% of work", 100.0 * share),
        None => caption,
    };
    draw_stacked_bars(root, path, &caption, report.worker_word(), &bars, cpu)
}

/// Chart 3 (two-level loops): per group, its work time (the leader's clock) with the rest of the
/// loop's parallel time stacked on top (Cariño & Banicescu 2007, fig. 4.5).
fn draw_groups<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    report: &LoopReport,
    path: &Path,
) -> Result<(), CliError> {
    let bars: Vec<(String, f64, f64, f64)> = report
        .groups
        .iter()
        .map(|g| {
            (
                format!("{} ({} ranks)", g.group, g.ranks.len()),
                g.work_time_s,
                (report.parallel_time_s - g.work_time_s).max(0.0),
                0.0,
            )
        })
        .collect();
    draw_stacked_bars(
        root,
        path,
        &format!(
            "{} — makespan {:.4} s, efficiency {:.3}",
            title(report, "group work time"),
            report.parallel_time_s,
            report.efficiency
        ),
        "group",
        &bars,
        None,
    )
}

/// Chart 2: the size of each chunk against its number in hand-out order, one colour per rank, a
/// grey line joining them in order.
fn draw_chunk_sizes<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    report: &LoopReport,
    path: &Path,
) -> Result<(), CliError> {
    let map = &report.chunk_map;
    root.fill(&WHITE).map_err(|e| draw_error(path, e))?;
    let largest = map.iter().map(|c| c[1]).max().unwrap_or(1).max(1) as f64;
    let mut caption = title(report, "chunk sizes");
    if report.chunk_map_dropped > 0 {
        caption.push_str(&format!(
            " — first {} of {} chunks",
            map.len(),
            report.chunks
        ));
    }
    let mut chart = ChartBuilder::on(&root)
        .caption(&caption, ("sans-serif", caption_size(&caption, SIZE.0)))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(-0.5..(map.len() as f64 - 0.5), 0.0..largest * 1.22)
        .map_err(|e| draw_error(path, e))?;
    chart
        .configure_mesh()
        .x_desc("chunk number (hand-out order)")
        .y_desc("chunk size (iterates)")
        .x_labels(map.len().clamp(2, 12))
        .x_label_formatter(&|x| whole(*x))
        .y_label_formatter(&|y| whole(*y))
        .draw()
        .map_err(|e| draw_error(path, e))?;
    let grey = RGBColor(0x99, 0x99, 0x99);
    chart
        .draw_series(LineSeries::new(
            map.iter().enumerate().map(|(k, c)| (k as f64, c[1] as f64)),
            grey.stroke_width(1),
        ))
        .map_err(|e| draw_error(path, e))?;
    // One colour per rank (under threads inside ranks, a rank's threads share its colour).
    let per = report.threads_per_rank.max(1) as u64;
    let word = if report.threads_per_rank > 0 {
        "rank"
    } else {
        report.worker_word()
    };
    let mut ranks: Vec<u64> = map.iter().map(|c| c[2] / per).collect();
    ranks.sort_unstable();
    ranks.dedup();
    for (i, &rank) in ranks.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let series = chart
            .draw_series(
                map.iter()
                    .enumerate()
                    .filter(|(_, c)| c[2] / per == rank)
                    .map(|(k, c)| Circle::new((k as f64, c[1] as f64), 3, color.filled())),
            )
            .map_err(|e| draw_error(path, e))?;
        if i < LEGEND_RANKS {
            series
                .label(format!("{word} {rank}"))
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled())
                });
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| draw_error(path, e))?;
    root.present().map_err(|e| draw_error(path, e))
}

/// Width of the colour scale beside the timeline, pixels.
const SCALE_WIDTH: u32 = 120;
/// Steps of the colour scale.
const SCALE_STEPS: usize = 64;
/// At most this many rows of the timeline are named; above, evenly spaced ones.
const NAMED_ROWS: usize = 24;

/// The viridis colour map (van der Walt & Smith 2015) at ten evenly spaced points, dark blue to
/// yellow: readable in grey and by colour-blind readers.
const VIRIDIS: [(u8, u8, u8); 10] = [
    (0x44, 0x01, 0x54),
    (0x48, 0x28, 0x78),
    (0x3E, 0x4A, 0x89),
    (0x31, 0x68, 0x8E),
    (0x26, 0x82, 0x8E),
    (0x1F, 0x9E, 0x89),
    (0x35, 0xB7, 0x79),
    (0x6D, 0xCD, 0x59),
    (0xB4, 0xDE, 0x2C),
    (0xFD, 0xE7, 0x25),
];

/// The colour at `t` (0 to 1) of [`VIRIDIS`], interpolated linearly between its points.
fn viridis(t: f64) -> RGBColor {
    let x = t.clamp(0.0, 1.0) * (VIRIDIS.len() - 1) as f64;
    let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let mix = |a: u8, b: u8| (f64::from(a) + f * (f64::from(b) - f64::from(a))).round() as u8;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// How chunk sizes map to colours: viridis over the sizes, on a log scale when the largest is
/// more than 20 times the smallest (GSS, FAC: a few large chunks, many small ones).
struct SizeScale {
    lo: f64,
    hi: f64,
    log: bool,
}

impl SizeScale {
    fn new(sizes: impl Iterator<Item = u64>) -> SizeScale {
        let (lo, hi) = sizes.fold((u64::MAX, 0), |(lo, hi), s| (lo.min(s), hi.max(s)));
        let (lo, hi) = if hi == 0 {
            (1.0, 1.0)
        } else {
            (lo.max(1) as f64, hi as f64)
        };
        SizeScale {
            lo,
            hi,
            log: hi > 20.0 * lo,
        }
    }

    /// Position of `size` on the scale, 0 (smallest) to 1 (largest).
    fn position(&self, size: f64) -> f64 {
        let (a, b, x) = if self.log {
            (self.lo.ln(), self.hi.ln(), size.max(1.0).ln())
        } else {
            (self.lo, self.hi, size)
        };
        if b > a {
            ((x - a) / (b - a)).clamp(0.0, 1.0)
        } else {
            0.5
        }
    }

    /// The size at `t` on the scale (0 to 1).
    fn size_at(&self, t: f64) -> f64 {
        if self.log {
            (self.lo.ln() + t * (self.hi.ln() - self.lo.ln())).exp()
        } else {
            self.lo + t * (self.hi - self.lo)
        }
    }

    fn color(&self, size: f64) -> RGBColor {
        viridis(self.position(size))
    }
}

/// Chart 4: the chunk timeline. One row per worker, time since the loop's start across; each
/// chunk a rectangle from its start to its end (`chunk_times`), coloured by its size (scale on
/// the right). Gaps in a row are the worker's idle time and its requests.
fn draw_timeline<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    report: &LoopReport,
    path: &Path,
) -> Result<(), CliError> {
    root.fill(&WHITE).map_err(|e| draw_error(path, e))?;
    let chunks: Vec<([u64; 3], [f64; 2])> = report
        .chunk_map
        .iter()
        .zip(&report.chunk_times)
        .filter_map(|(c, t)| t.map(|t| (*c, t)))
        .collect();
    // Rows: the report's workers in order, then any other worker a chunk names.
    let mut rows: Vec<u64> = report.ranks.iter().map(|r| r.rank as u64).collect();
    for (c, _) in &chunks {
        if !rows.contains(&c[2]) {
            rows.push(c[2]);
        }
    }
    let row_of = |w: u64| rows.iter().position(|&r| r == w).unwrap_or(0) as f64;
    let end = chunks
        .iter()
        .map(|(_, t)| t[1])
        .fold(report.parallel_time_s, f64::max);
    let end = if end > 0.0 && end.is_finite() {
        end
    } else {
        1.0
    };
    let scale = SizeScale::new(chunks.iter().map(|(c, _)| c[1]));
    let word = report.worker_word();

    let mut caption = title(report, "chunk timeline");
    let unlisted = report.chunks.saturating_sub(chunks.len() as u64);
    if unlisted > 0 {
        caption.push_str(&format!(" — {} of {} chunks", chunks.len(), report.chunks));
    }
    let (left, right) = root.split_horizontally(SIZE.0 - SCALE_WIDTH);
    let n_rows = rows.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&left)
        .caption(
            &caption,
            ("sans-serif", caption_size(&caption, SIZE.0 - SCALE_WIDTH)),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..end, -0.5..n_rows - 0.5)
        .map_err(|e| draw_error(path, e))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(WHITE)
        .y_labels(0)
        .x_desc(format!(
            "time since the loop's start (s); the loop took {:.4} s",
            report.parallel_time_s
        ))
        .y_desc(word)
        .draw()
        .map_err(|e| draw_error(path, e))?;
    // Row names by hand (the axis would put ticks between rows).
    let every = rows.len().div_ceil(NAMED_ROWS).max(1);
    let style =
        TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    for (i, w) in rows.iter().enumerate().step_by(every) {
        let (x, y) = chart.backend_coord(&(0.0, i as f64));
        left.draw(&Text::new(
            report.worker_name(*w),
            (x - 6, y),
            style.clone(),
        ))
        .map_err(|e| draw_error(path, e))?;
    }
    chart
        .draw_series(chunks.iter().map(|(c, t)| {
            let y = row_of(c[2]);
            Rectangle::new(
                [(t[0], y - 0.4), (t[1], y + 0.4)],
                scale.color(c[1] as f64).filled(),
            )
        }))
        .map_err(|e| draw_error(path, e))?;
    // A white line where a chunk starts, so that chunks of one colour that follow one another
    // stay apart (not on chunks narrower than 4 pixels, which would turn white).
    let wide: Vec<&([u64; 3], [f64; 2])> = chunks
        .iter()
        .filter(|(_, t)| {
            let (a, _) = chart.backend_coord(&(t[0], 0.0));
            let (b, _) = chart.backend_coord(&(t[1], 0.0));
            b - a >= 4
        })
        .collect();
    chart
        .draw_series(wide.into_iter().map(|(c, t)| {
            let y = row_of(c[2]);
            PathElement::new(
                vec![(t[0], y - 0.4), (t[0], y + 0.4)],
                WHITE.stroke_width(1),
            )
        }))
        .map_err(|e| draw_error(path, e))?;

    // The colour scale: a vertical bar, the smallest size at the bottom.
    let (_, h) = right.dim_in_pixel();
    let (top, bottom) = (60i32, h as i32 - 60);
    let (x0, x1) = (12i32, 36i32);
    let step = f64::from(bottom - top) / SCALE_STEPS as f64;
    for k in 0..SCALE_STEPS {
        let t = (k as f64 + 0.5) / SCALE_STEPS as f64;
        let y_hi = bottom - ((k + 1) as f64 * step).round() as i32;
        let y_lo = bottom - (k as f64 * step).round() as i32;
        right
            .draw(&Rectangle::new(
                [(x0, y_hi), (x1, y_lo)],
                viridis(t).filled(),
            ))
            .map_err(|e| draw_error(path, e))?;
    }
    let label =
        TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for t in [0.0, 0.5, 1.0] {
        let y = bottom - (t * f64::from(bottom - top)).round() as i32;
        right
            .draw(&Text::new(
                format!("{:.0}", scale.size_at(t)),
                (x1 + 6, y),
                label.clone(),
            ))
            .map_err(|e| draw_error(path, e))?;
    }
    let head =
        TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Left, VPos::Bottom));
    right
        .draw(&Text::new("chunk size", (x0 - 4, top - 22), head.clone()))
        .map_err(|e| draw_error(path, e))?;
    let unit = if scale.log {
        "(iterates, log)"
    } else {
        "(iterates)"
    };
    right
        .draw(&Text::new(unit, (x0 - 4, top - 8), head))
        .map_err(|e| draw_error(path, e))?;
    root.present().map_err(|e| draw_error(path, e))
}

#[cfg(test)]
mod tests {
    use super::{sanitise, whole};

    #[test]
    fn count_axes_label_whole_ticks_only() {
        assert_eq!(whole(3.0), "3");
        assert_eq!(whole(2.5), "");
        assert_eq!(whole(-0.4), "");
        assert_eq!(whole(0.0), "0");
    }

    #[test]
    fn names_become_file_stems() {
        assert_eq!(sanitise("src/main.rs:12:5"), "src_main_rs_12_5");
        assert_eq!(sanitise("mandel-rows_1"), "mandel-rows_1");
        assert_eq!(sanitise(""), "loop");
    }
}
