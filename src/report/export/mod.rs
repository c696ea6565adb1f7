//! Exporters: each output format is one small type that turns report pieces into bytes.
//!
//! Formats that can be read line by line (table, CSV, Markdown) give a header before the first board and a
//! row as each board finishes, so a sweep over increasing n shows its results as it goes. JSON is one document
//! and is given whole once the run ends.

pub mod bench;

use crate::report::machine::{Machine, Program};
use crate::report::{BoardResult, Report};
use std::fmt;
use std::str::FromStr;

/// The output formats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns for people.
    #[default]
    Table,
    /// One JSON document with the machine, the build and every result.
    Json,
    /// Comma-separated values with a header row.
    Csv,
    /// A Markdown table.
    Markdown,
}

impl Format {
    /// Every format, in the order the command line lists them.
    pub const ALL: [Format; 4] = [Format::Table, Format::Json, Format::Csv, Format::Markdown];

    /// The format's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "markdown",
        }
    }

    /// A fresh exporter for this format; the table and Markdown show the optional columns of `columns`. CSV and
    /// JSON keep every field, so that programs read the same columns whatever was asked.
    pub fn exporter_for(self, columns: Columns) -> Box<dyn Exporter> {
        match self {
            Format::Table => Box::new(Table { columns }),
            Format::Json => Box::new(Json),
            Format::Csv => Box::new(Csv),
            Format::Markdown => Box::new(Markdown { columns }),
        }
    }
}

/// The columns of a table or Markdown report that are shown only when a run has something to put in them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    /// `check`: the comparison with the published values was asked for (otherwise always empty).
    pub check: bool,
    /// `part`: the run counts only part of a board's units ([`BoardResult::part`]), so its totals are the
    /// part's.
    pub part: bool,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format name that is not one of [`Format::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown format '{0}': use one of table, json, csv, markdown")]
pub struct UnknownFormat(String);

impl FromStr for Format {
    type Err = UnknownFormat;
    fn from_str(s: &str) -> Result<Format, UnknownFormat> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownFormat(s.to_string()))
    }
}

/// Turns a run into bytes, piece by piece.
pub trait Exporter {
    /// Written before the first board.
    fn header(&self, _report: &Report) -> Vec<u8> {
        Vec::new()
    }
    /// Written as soon as a board is counted; `report` is the run's (its board results aside).
    fn row(&self, _report: &Report, _result: &BoardResult) -> Vec<u8> {
        Vec::new()
    }
    /// Written once the run ends; `report` then holds every result.
    fn footer(&self, _report: &Report) -> Vec<u8> {
        Vec::new()
    }
    /// Whether each board's result is in its [`Exporter::row`], there as soon as the board is counted, rather
    /// than in the footer alone (one JSON document).
    fn streams_rows(&self) -> bool {
        true
    }
    /// The whole document for the report as it stands, for a file rewritten as a run goes: its
    /// [`Report::status`] says whether the run has finished.
    fn document(&self, report: &Report) -> Vec<u8> {
        let mut bytes = self.header(report);
        for result in &report.results {
            bytes.extend(self.row(report, result));
        }
        bytes.extend(self.footer(report));
        bytes
    }
}

/// For a run that has not finished: one sentence that says so.
fn incomplete(report: &Report) -> Option<String> {
    (report.status != crate::report::bench::Status::Complete).then(|| {
        let boards = report.results.len();
        format!(
            "INCOMPLETE: {boards} board{} counted so far (interrupted or still running)",
            if boards == 1 { "" } else { "s" }
        )
    })
}

/// A symmetry mode by its name as a report's words say it: `full symmetry`, `mirror symmetry`, and `no
/// symmetry` for `none` (where "none symmetry" read as a typo).
pub fn symmetry_words(name: &str) -> String {
    match name {
        "none" => "no symmetry".to_string(),
        other => format!("{other} symmetry"),
    }
}

/// Aligned, human-readable columns.
#[derive(Debug)]
pub struct Table {
    /// The optional columns shown.
    pub columns: Columns,
}

/// The table's right-aligned columns and their widths; the last, `check`, is shown only where asked for.
const TABLE_COLUMNS: [(&str, usize); 9] = [
    ("n", 5),
    ("total", 20),
    ("unique", 19),
    ("seconds", 10),
    ("threads", 7),
    ("units", 8),
    ("solutions/s", 11),
    ("nodes/s", 9),
    ("check", 8),
];

impl Table {
    /// The right-aligned columns shown. The `part` column, text of any length, comes after them, aligned to
    /// the left.
    fn columns(&self) -> &'static [(&'static str, usize)] {
        if self.columns.check {
            &TABLE_COLUMNS
        } else {
            &TABLE_COLUMNS[..TABLE_COLUMNS.len() - 1]
        }
    }

    /// A line of the table: the right-aligned cells, then the part's, if shown.
    fn line(&self, values: &[String], part: &str) -> Vec<u8> {
        let mut cells: Vec<String> = values
            .iter()
            .zip(self.columns())
            .map(|(value, (_, width))| format!("{value:>width$}"))
            .collect();
        if self.columns.part {
            cells.push(part.to_string());
        }
        format!("{}\n", cells.join("  ").trim_end()).into_bytes()
    }
}

impl Exporter for Table {
    fn header(&self, _report: &Report) -> Vec<u8> {
        let names: Vec<String> = self
            .columns()
            .iter()
            .map(|(name, _)| name.to_string())
            .collect();
        self.line(&names, "part")
    }

    fn row(&self, _report: &Report, r: &BoardResult) -> Vec<u8> {
        let values = [
            r.board(),
            r.total.to_string(),
            unique(r),
            timed(r, format!("{:.3}", r.seconds), "-"),
            timed(r, r.threads.to_string(), "-"),
            r.units.to_string(),
            timed(r, rate(r.solutions_per_second, r.total), "-"),
            timed(r, node_rate(r), "-"),
            verdict(r).to_string(),
        ];
        self.line(&values, r.part.as_deref().unwrap_or(""))
    }
}

/// `value`, or `none` for a result that no run of this program timed: a merge of journals (no thread), whose
/// units were counted elsewhere, at other times, so that its seconds, threads and rates would say nothing.
fn timed(r: &BoardResult, value: String, none: &str) -> String {
    if r.threads == 0 {
        return none.to_string();
    }
    value
}

/// The unique count, or nothing where the mode does not count it.
fn unique(r: &BoardResult) -> String {
    r.unique.map_or_else(String::new, |u| u.to_string())
}

/// The published-value check of a row, in a word; nothing where none was asked for.
fn verdict(r: &BoardResult) -> &'static str {
    r.verdict().map_or("", |c| c.word())
}

/// A rate of a table, or `-` where nothing was timed: a zero rate of a non-zero amount (a resumed journal
/// with nothing left to count).
fn rate(x: f64, amount: u128) -> String {
    if x == 0.0 && amount > 0 {
        return "-".to_string();
    }
    si(x)
}

/// The nodes rate of a table, or `-` where the search placed no queen at all: every unit of the plan was
/// already a whole solution or a dead end (see [`BoardResult::nodes`]), and the rate says nothing; or
/// `uncounted` where some units' nodes were not counted.
fn node_rate(r: &BoardResult) -> String {
    match (r.nodes, r.nodes_per_second) {
        (Some(0), _) => "-".to_string(),
        (Some(nodes), Some(per_second)) => rate(per_second, nodes),
        _ => UNCOUNTED.to_string(),
    }
}

/// What a table shows for nodes that were not counted.
const UNCOUNTED: &str = "uncounted";

/// `x` as a person writes it: four significant digits at most, no trailing zeros (a log scale's tick, a sum of
/// floats such as 0.30000000000000004, is `0.3`; a standard error of 22743.5016 nodes is `22744`, one of a
/// small board's 0.0742969 nodes `0.0743`). Zero, negative and non-finite values as Rust writes them.
pub fn four_figures(x: f64) -> String {
    if !x.is_finite() || x <= 0.0 {
        return format!("{x}");
    }
    let decimals = (3 - x.log10().floor() as i32).clamp(0, 12) as usize;
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A rate with an SI prefix and three significant digits: `1.52 G`.
pub fn si(x: f64) -> String {
    const PREFIXES: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    match PREFIXES.iter().find(|(scale, _)| x >= *scale) {
        Some((scale, prefix)) => format!("{:.3} {prefix}", x / scale),
        None => format!("{x:.0}"),
    }
}

/// One JSON document: schema version, program, machine, timestamp and results.
#[derive(Debug)]
pub struct Json;

impl Exporter for Json {
    fn streams_rows(&self) -> bool {
        false
    }
    fn footer(&self, report: &Report) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(report).expect("reports serialize");
        bytes.push(b'\n');
        bytes
    }
}

/// Comma-separated values, one row per board, with a header.
#[derive(Debug)]
pub struct Csv;

/// The count CSV's columns: a board's figures ([`BOARD_COLUMNS`]), then where and with what they were measured
/// ([`PROVENANCE_COLUMNS`]).
pub const CSV_HEADER: [&str; 20] = joined(BOARD_COLUMNS, PROVENANCE_COLUMNS);

/// The count CSV's columns of a board's figures, where they were before the build's were added.
pub const BOARD_COLUMNS: [&str; 14] = [
    "n",
    "total",
    "unique",
    "seconds",
    "threads",
    "symmetry",
    "kernel",
    "split_depth",
    "units",
    "nodes",
    "solutions_per_second",
    "nodes_per_second",
    "check",
    "part",
];

/// `a` then `b`, as one array of `C` names (`C` must be their lengths' sum: checked as the constant is built).
const fn joined<const A: usize, const B: usize, const C: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; C] {
    assert!(A + B == C, "the joined columns' count");
    let mut out = [""; C];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < C {
        out[i] = b[i - A];
        i += 1;
    }
    out
}

/// The columns that end a count's and an estimate's CSV rows, so that files from several machines and builds
/// can be put together and still be told apart: the program's version and git revision, the loops' features
/// the build was compiled for, the processor, its logical cores, and when the run started. Named as the bench
/// CSV's are; last, so that a reader of the columns before them by position reads what it did.
pub const PROVENANCE_COLUMNS: [&str; 6] = [
    "version",
    "git_revision",
    "compiled_for",
    "cpu_model",
    "logical_cores",
    "timestamp",
];

/// The values of [`PROVENANCE_COLUMNS`].
pub fn provenance(program: &Program, machine: &Machine, timestamp: &str) -> [String; 6] {
    [
        program.version.clone(),
        program.git_revision.clone(),
        program.loop_features().join(" "),
        machine.cpu_model.clone(),
        machine.logical_cores.to_string(),
        timestamp.to_string(),
    ]
}

/// One CSV record of `fields`, each quoted where it needs to be, and its line's end.
pub fn csv_record(fields: &[String]) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(fields).expect("writing to memory");
    writer.into_inner().expect("writing to memory")
}

impl Exporter for Csv {
    fn header(&self, _report: &Report) -> Vec<u8> {
        csv_record(&CSV_HEADER.map(str::to_string))
    }

    fn row(&self, report: &Report, r: &BoardResult) -> Vec<u8> {
        csv_record(
            &[
                r.board(),
                r.total.to_string(),
                unique(r),
                timed(r, format!("{:.6}", r.seconds), ""),
                timed(r, r.threads.to_string(), ""),
                r.symmetry.clone(),
                r.kernel.clone(),
                r.split_depth.to_string(),
                r.units.to_string(),
                // Empty where the nodes were not counted.
                r.nodes.map_or_else(String::new, |n| n.to_string()),
                timed(r, format!("{:.0}", r.solutions_per_second), ""),
                r.nodes_per_second
                    .map_or_else(String::new, |x| timed(r, format!("{x:.0}"), "")),
                verdict(r).to_string(),
                r.part.clone().unwrap_or_default(),
            ]
            .into_iter()
            .chain(provenance(
                &report.program,
                &report.machine,
                &report.timestamp,
            ))
            .collect::<Vec<_>>(),
        )
    }
}

/// A Markdown table for reports.
#[derive(Debug)]
pub struct Markdown {
    /// The optional columns shown.
    pub columns: Columns,
}

impl Exporter for Markdown {
    fn header(&self, _report: &Report) -> Vec<u8> {
        let mut names =
            "| n | total | unique | seconds | threads | units | solutions/s | nodes/s |"
                .to_string();
        let mut rule = "|--:|--:|--:|--:|--:|--:|--:|--:|".to_string();
        if self.columns.check {
            names += " check |";
            rule += ":--|";
        }
        if self.columns.part {
            names += " part |";
            rule += ":--|";
        }
        format!("{names}\n{rule}\n").into_bytes()
    }

    fn row(&self, _report: &Report, r: &BoardResult) -> Vec<u8> {
        let mut line = format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.board(),
            r.total,
            unique(r),
            timed(r, format!("{:.3}", r.seconds), "-"),
            timed(r, r.threads.to_string(), "-"),
            r.units,
            timed(r, rate(r.solutions_per_second, r.total), "-"),
            timed(r, node_rate(r), "-"),
        );
        if self.columns.check {
            line += &format!(" {} |", verdict(r));
        }
        if self.columns.part {
            line += &format!(" {} |", r.part.as_deref().unwrap_or(""));
        }
        line.push('\n');
        line.into_bytes()
    }

    fn footer(&self, report: &Report) -> Vec<u8> {
        // Below the table, so that its first line stays its header: the report's build, machine and start.
        let mut text = format!(
            "\nbuild: {}; machine: {}; started: {}\n",
            report.program.summary(),
            report.machine.summary(),
            report.timestamp
        );
        if let Some(line) = incomplete(report) {
            text += &format!("\n{line}\n");
        }
        text.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_read_as_a_person_writes_them() {
        // A log scale's ticks (sums of floats), and a standard error of many nodes or of a fraction of one.
        assert_eq!(four_figures(0.30000000000000004), "0.3");
        assert_eq!(four_figures(0.7000000000000001), "0.7");
        assert_eq!(four_figures(1.0), "1");
        assert_eq!(four_figures(2000.0), "2000");
        assert_eq!(four_figures(0.00012345678), "0.0001235");
        assert_eq!(four_figures(12.5), "12.5");
        assert_eq!(four_figures(22743.501675547228), "22744");
        assert_eq!(four_figures(0.07429696253590809), "0.0743");
        assert_eq!(four_figures(1.5e12), "1500000000000");
        assert_eq!(four_figures(0.0), "0");
    }

    #[test]
    fn rates_get_si_prefixes() {
        assert_eq!(si(1_520_000_000.0), "1.520 G");
        assert_eq!(si(999.0), "999");
        assert_eq!(si(12_345.0), "12.345 k");
    }

    #[test]
    fn nodes_not_counted_are_said_so_in_every_format_and_never_shown_as_a_number() {
        use crate::engine::count::Count;
        use crate::report::Measured;
        let count = |uncounted: u64| Count {
            total: 92,
            unique: 12,
            nodes: 1234,
            units: 10,
            uncounted,
        };
        let result = |uncounted: u64| {
            BoardResult::new(Measured {
                board: crate::Board::new(8).unwrap(),
                symmetry: crate::Symmetry::Full,
                threads: 2,
                kernel: None,
                split_depth: 2,
                count: count(uncounted),
                seconds: 2.0,
            })
        };
        let (counted, uncounted) = (result(0), result(3));
        assert_eq!(
            (counted.nodes, counted.nodes_per_second),
            (Some(1234), Some(617.0))
        );
        assert_eq!((uncounted.nodes, uncounted.nodes_per_second), (None, None));
        let text = |format: Format, r: &BoardResult| {
            let report = Report::start(2);
            String::from_utf8(format.exporter_for(Columns::default()).row(&report, r)).unwrap()
        };
        assert!(text(Format::Table, &counted).contains("617"));
        assert!(text(Format::Table, &uncounted).contains(UNCOUNTED));
        assert!(text(Format::Markdown, &uncounted).contains(UNCOUNTED));
        // CSV: the nodes and their rate empty, the rest as ever.
        let csv = text(Format::Csv, &uncounted);
        let fields: Vec<&str> = csv.trim_end().split(',').collect();
        let column = |name: &str| CSV_HEADER.iter().position(|h| *h == name).unwrap();
        assert_eq!(fields[column("total")], "92");
        assert_eq!(fields[column("nodes")], "");
        assert_eq!(fields[column("nodes_per_second")], "");
        let csv = text(Format::Csv, &counted);
        assert_eq!(csv.trim_end().split(',').nth(column("nodes")), Some("1234"));
        // JSON: null, and read back the same.
        let json = serde_json::to_value(&uncounted).unwrap();
        assert_eq!(
            (&json["nodes"], &json["nodes_per_second"]),
            (&serde_json::Value::Null, &serde_json::Value::Null)
        );
        assert_eq!(
            serde_json::from_value::<BoardResult>(json).unwrap(),
            uncounted
        );
        assert_eq!(serde_json::to_value(&counted).unwrap()["nodes"], 1234);
    }

    #[test]
    fn json_writes_totals_past_2_to_the_53_as_exact_integers() {
        // README: totals are exact integers up to u128 in JSON, which a parser that reads numbers as doubles
        // rounds: n = 27's unique count is one of them.
        use crate::engine::count::Count;
        use crate::report::Measured;
        let unique: u128 = 29_363_495_934_315_694;
        assert_ne!(unique as f64 as u128, unique);
        let result = BoardResult::new(Measured {
            board: crate::Board::new(27).unwrap(),
            symmetry: crate::Symmetry::Full,
            threads: 2,
            kernel: None,
            split_depth: 2,
            count: Count {
                total: u128::MAX,
                unique,
                nodes: u128::MAX - 1,
                units: 10,
                uncounted: 0,
            },
            seconds: 2.0,
        });
        let mut report = Report::start(2);
        report.results.push(result.clone());
        let text = String::from_utf8(Json.footer(&report)).unwrap();
        for field in [
            "\"total\": 340282366920938463463374607431768211455,",
            "\"unique\": 29363495934315694,",
            "\"nodes\": 340282366920938463463374607431768211454,",
        ] {
            assert!(text.contains(field), "{field} in {text}");
        }
        // And read back exactly, as text: a `serde_json::Value` holds no integer past 64 bits.
        let text = serde_json::to_string(&result).unwrap();
        assert_eq!(serde_json::from_str::<BoardResult>(&text).unwrap(), result);
    }

    #[test]
    fn format_names_round_trip() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>().unwrap(), f);
        }
        let refused = "xml".parse::<Format>().unwrap_err();
        assert_eq!(refused.clone(), refused);
        assert_ne!(refused, "yaml".parse::<Format>().unwrap_err());
    }
}
