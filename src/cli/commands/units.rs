//! `nqueens units`: the numbered work units of a plan and its fingerprint, for planning a distributed run and
//! for checking that every machine builds the same plan.

use crate::cli::errors::UsageError;
use crate::cli::output::{Output, Writer};
use crate::cli::validate;
use nqueens::engine::plan::{unit_words, Plan, Weight, WorkUnit};
use nqueens::report::export::Format;
use nqueens::runs::fingerprint::Fingerprint;
use nqueens::runs::shard::Shard;
use nqueens::{Split, Symmetry};
use serde_json::json;
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

/// Prints the plan for `board` (N or RxC) in `format`; `quiet`, nothing on standard error but errors.
#[allow(clippy::too_many_arguments)]
pub fn run(
    board: &str,
    symmetry: Option<Symmetry>,
    split_depth: Option<u32>,
    shard: Option<Shard>,
    summary: bool,
    format: Format,
    output: Option<&Path>,
    quiet: bool,
) -> anyhow::Result<ExitCode> {
    let board = validate::parse_board(board)?;
    let symmetry = validate::symmetry_for(board, symmetry)?;
    let shard = shard.unwrap_or(Shard::WHOLE);
    if let Some(depth) = split_depth {
        crate::cli::validate::split_depth(board, symmetry, depth)?;
    }
    let split = split_depth.map_or(Split::durable(symmetry), Split::Depth);
    let plan = Plan::new(board, symmetry, split);
    // As `count --shard` refuses it: with more shards than units, some would list nothing.
    shard.within(&plan).map_err(|e| UsageError(e.to_string()))?;
    let fingerprint = Fingerprint::of(&plan);
    let units: Vec<&WorkUnit> = plan
        .units()
        .iter()
        .filter(|u| shard.contains(u.index))
        .collect();
    let describe = format!(
        "{}, symmetry {symmetry}, split depth {}, {}, fingerprint {fingerprint}{}",
        board.words(),
        plan.depth(),
        unit_words(plan.units().len()),
        if shard.is_whole() {
            String::new()
        } else {
            format!("; shard {shard}: {}", unit_words(units.len()))
        }
    );
    let mut output = Output::open(output)?;
    let mut out = io::BufWriter::new(Writer(&mut output));
    match format {
        Format::Json => {
            let list: Vec<_> = if summary {
                Vec::new()
            } else {
                units.iter().map(|u| unit_json(u)).collect()
            };
            let mut doc = json!({
                "schema_version": 1,
                // The build that planned: the plan's numbering is the engine's, which its version names.
                "program": nqueens::report::machine::Program::current(),
                "fingerprint": fingerprint,
                "n": board.n(),
                "symmetry": symmetry.name(),
                "split_depth": plan.depth(),
                "units": plan.units().len(),
                "shard": shard.to_string(),
                // As the CSV summary's: the units the shard lists.
                "shard_units": units.len(),
            });
            // As a count's record: a rectangle's columns beside its rows, a square without them.
            if !board.is_square() {
                doc["cols"] = json!(board.cols());
            }
            if !summary {
                doc["list"] = json!(list);
            }
            serde_json::to_writer_pretty(&mut out, &doc)?;
            writeln!(out)?;
        }
        Format::Csv if summary => {
            // The summary is the result here: a record of the plan, as the JSON's fields.
            let mut w = csv::Writer::from_writer(&mut out);
            w.write_record([
                "fingerprint",
                "n",
                "symmetry",
                "split_depth",
                "units",
                "shard",
                "shard_units",
            ])?;
            w.write_record([
                fingerprint.to_string(),
                // As a count's CSV names it: `16`, or `8x6` for a rectangle.
                board.to_string(),
                symmetry.name().to_string(),
                plan.depth().to_string(),
                plan.units().len().to_string(),
                shard.to_string(),
                units.len().to_string(),
            ])?;
            w.flush()?;
        }
        Format::Csv => {
            // The list's CSV holds units alone; the plan they are of is said beside it.
            if !quiet {
                note!("{describe}");
            }
            let mut w = csv::Writer::from_writer(&mut out);
            w.write_record(["unit", "border", "queens", "weight"])?;
            for u in &units {
                w.write_record(cells(u, symmetry))?;
            }
            w.flush()?;
        }
        Format::Table | Format::Markdown => {
            let markdown = format == Format::Markdown;
            if markdown {
                writeln!(out, "{describe}\n")?;
            } else {
                writeln!(out, "# {describe}")?;
            }
            if !summary {
                if markdown {
                    writeln!(
                        out,
                        "| unit | border | queens | weight |\n|--:|:--|:--|:--|"
                    )?;
                } else {
                    writeln!(
                        out,
                        "{:>8}  {:<15}  {:<24}  weight",
                        "unit", "border", "queens"
                    )?;
                }
                for u in &units {
                    let [unit, border, queens, weight] = cells(u, symmetry);
                    if markdown {
                        writeln!(out, "| {unit} | {border} | {queens} | {weight} |")?;
                    } else {
                        writeln!(out, "{unit:>8}  {border:<15}  {queens:<24}  {weight}")?;
                    }
                }
            }
        }
    }
    out.flush()?;
    drop(out);
    output.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// A unit as text cells: number, border (top, bottom, left, right), queens of the first rows, weight (its
/// unique weight only where the symmetry counts unique solutions: the full one).
fn cells(u: &WorkUnit, symmetry: Symmetry) -> [String; 4] {
    let border = u.border.map_or_else(
        || "-".to_string(),
        |b| format!("{},{},{},{}", b.top, b.bottom, b.left, b.right),
    );
    let queens: Vec<String> = u.prefix.iter().map(|c| c.to_string()).collect();
    let weight = match &u.weight {
        Weight::Plain { total, unique } if symmetry == Symmetry::Full => {
            format!("x{total} (unique x{unique})")
        }
        Weight::Plain { total, .. } => format!("x{total}"),
        Weight::Burnside(group) => format!("burnside over {} symmetries", group.len()),
    };
    [u.index.to_string(), border, queens.join(","), weight]
}

fn unit_json(u: &WorkUnit) -> serde_json::Value {
    let weight = match &u.weight {
        Weight::Plain { total, unique } => json!({"total": total, "unique": unique}),
        Weight::Burnside(group) => {
            json!({"burnside": group.iter().map(|g| g.0).collect::<Vec<_>>()})
        }
    };
    json!({
        "unit": u.index,
        "border": u.border.map(|b| [b.top, b.bottom, b.left, b.right]),
        "queens": &u.prefix[..],
        "weight": weight,
    })
}
