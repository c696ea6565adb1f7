//! `nqueens estimate`: how long counting a board would take on this machine, from seconds of samples of its
//! search ([`nqueens::engine::forecast`]), one row a board as each is sampled.

use crate::cli::output::Output;
use crate::cli::validate::{parse_boards, symmetry_for};
use nqueens::engine::forecast::Forecast;
use nqueens::report::export::{si, Format};
use nqueens::report::machine::{Machine, Program};
use nqueens::{Board, CountRequest, Symmetry};
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// Estimates each board of `sizes` on `threads` threads (all cores by default), sampling each for `sample`.
pub fn run(
    sizes: &[String],
    threads: Option<u32>,
    symmetry: Option<Symmetry>,
    sample: Duration,
    format: Format,
    output: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let threads = threads.map_or_else(num_cpus::get, |t| t as usize);
    // Every board is checked before any is sampled: a bad one later in the list wastes no sampling.
    let mut boards = Vec::new();
    for spec in sizes {
        for board in parse_boards(spec)? {
            boards.push((board, symmetry_for(board, symmetry)?));
        }
    }
    let mut out = Output::open(output)?;
    out.write(header(format).as_bytes())?;
    let mut rows = Vec::new();
    for (board, symmetry) in boards {
        // The plan `count` would make for these threads: its units are the ones sampled.
        let plan = CountRequest::board(board)
            .symmetry(symmetry)
            .threads(threads)
            .plan();
        let forecast = Forecast::sample(&plan, threads.min(num_cpus::get()), sample);
        let row = Row {
            board,
            symmetry,
            threads,
            forecast,
        };
        out.write(row.line(format).as_bytes())?;
        rows.push(row);
    }
    if format == Format::Json {
        let doc = json!({
            "schema_version": nqueens::report::SCHEMA_VERSION,
            "kind": "estimate",
            "program": Program::current(),
            "machine": Machine::detect(),
            "sample_seconds": sample.as_secs_f64(),
            "results": rows.iter().map(Row::json).collect::<Vec<_>>(),
        });
        out.write(format!("{}\n", serde_json::to_string_pretty(&doc)?).as_bytes())?;
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// One board's estimate.
struct Row {
    board: Board,
    symmetry: Symmetry,
    /// The threads the count would have (the sampling took no more than the cores).
    threads: usize,
    forecast: Forecast,
}

/// The columns of the table and of Markdown, with the table's widths.
const COLUMNS: [(&str, usize); 8] = [
    ("n", 6),
    ("symmetry", 8),
    ("units", 10),
    ("nodes", 12),
    ("± error", 7),
    ("threads", 7),
    ("nodes/s", 9),
    ("time to count", 14),
];

/// `cells` as a line of the table, or of Markdown.
fn line(format: Format, cells: [String; 8]) -> String {
    if format == Format::Markdown {
        return format!("| {} |\n", cells.join(" | "));
    }
    let padded: Vec<String> = (cells.iter().zip(COLUMNS))
        .map(|(cell, (_, width))| format!("{cell:>width$}"))
        .collect();
    format!("{}\n", padded.join("  "))
}

fn header(format: Format) -> String {
    let names = COLUMNS.map(|(name, _)| name.to_string());
    match format {
        Format::Table => line(format, names),
        Format::Markdown => line(format, names) + "|--:|---|--:|--:|--:|--:|--:|--:|\n",
        Format::Csv => {
            "n,symmetry,units,nodes,nodes_error,threads,nodes_per_second,seconds,samples,\
                        sampled_nodes,sampled_seconds\n"
                .into()
        }
        Format::Json => String::new(),
    }
}

impl Row {
    fn line(&self, format: Format) -> String {
        let f = &self.forecast;
        match format {
            Format::Table | Format::Markdown => line(
                format,
                [
                    self.board.to_string(),
                    self.symmetry.to_string(),
                    f.units.to_string(),
                    scientific(f.nodes),
                    relative_error(f),
                    self.threads.to_string(),
                    si(f.rate()),
                    f.seconds().map_or("-".to_string(), span),
                ],
            ),
            Format::Csv => format!(
                "{},{},{},{:.0},{:.0},{},{:.0},{},{},{},{:.6}\n",
                self.board,
                self.symmetry,
                f.units,
                f.nodes,
                f.nodes_error,
                self.threads,
                f.rate(),
                f.seconds().map_or(String::new(), |s| format!("{s:.3}")),
                f.samples,
                f.sampled_nodes,
                f.sampled_seconds
            ),
            Format::Json => String::new(),
        }
    }

    fn json(&self) -> serde_json::Value {
        let f = &self.forecast;
        // As count's reports write a board: `n` its rows, and `cols` for a rectangle.
        let mut row = json!({
            "n": self.board.rows(),
            "symmetry": self.symmetry.to_string(),
            "units": f.units,
            "nodes": f.nodes,
            "nodes_error": f.nodes_error,
            "threads": self.threads,
            "nodes_per_second": f.rate(),
            "seconds": f.seconds(),
            "cut_depth": f.cut_depth,
            "samples": f.samples,
            "sampled_nodes": f.sampled_nodes,
            "sampled_seconds": f.sampled_seconds,
        });
        if !self.board.is_square() {
            row["cols"] = json!(self.board.cols());
        }
        row
    }
}

/// The standard error as a share of the estimate: `0.8%`; `-` where there is none to give.
fn relative_error(f: &Forecast) -> String {
    if f.nodes > 0.0 {
        format!("{:.1}%", 100.0 * f.nodes_error / f.nodes)
    } else {
        "-".into()
    }
}

/// `1.21e13`, or the number itself under a million.
fn scientific(x: f64) -> String {
    if x < 1e6 {
        format!("{x:.0}")
    } else {
        format!("{x:.2e}")
    }
}

/// A time for a person, as far as an estimate deserves: seconds under a minute, then the first two units
/// (`3h 6m`, `1month 27days`), and from a year on, years to three figures (`162 years`, `2.49e5 years`).
fn span(seconds: f64) -> String {
    const YEAR: f64 = 365.25 * 86400.0;
    if seconds < 60.0 {
        format!("{seconds:.1}s")
    } else if seconds < YEAR {
        let whole = humantime::format_duration(Duration::from_secs(seconds as u64)).to_string();
        whole.split(' ').take(2).collect::<Vec<_>>().join(" ")
    } else {
        let years = seconds / YEAR;
        match years {
            y if y < 10.0 => format!("{y:.2} years"),
            y if y < 100.0 => format!("{y:.1} years"),
            y if y < 10_000.0 => format!("{y:.0} years"),
            y => format!("{y:.2e} years"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_written_as_an_estimate_deserves() {
        assert_eq!(scientific(12345.0), "12345");
        assert_eq!(scientific(1.2149e13), "1.21e13");
        assert_eq!(span(12.34), "12.3s");
        assert_eq!(span(3.0 * 3600.0 + 6.0 * 60.0 + 7.0), "3h 6m");
        assert_eq!(span(57.0 * 86400.0), "1month 26days");
        assert_eq!(span(1.42 * 365.25 * 86400.0), "1.42 years");
        assert_eq!(span(41.23 * 365.25 * 86400.0), "41.2 years");
        assert_eq!(span(162.1 * 365.25 * 86400.0), "162 years");
        assert_eq!(span(2.4947e5 * 365.25 * 86400.0), "2.49e5 years");
    }
}
