//! Plan fingerprints: a short hash that names one exact plan, carried by every journal and shard file.
//!
//! Two runs can only add up if they split the same board the same way into the same numbered units. The
//! fingerprint is a SHA-256 hash of a canonical text of the board side, the symmetry mode, the split depth and
//! every unit (number, border, pre-placed queens, weight), so a journal written by another board, mode, split
//! or an engine version that numbers units differently is recognised before anything is counted or merged.

use crate::engine::plan::{Plan, Weight};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

/// The hex digits of a fingerprint: 128 bits of the hash, plenty to tell plans apart.
const HEX_DIGITS: usize = 32;

/// The fingerprint of a plan, as hex digits.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Fingerprint(String);

impl Fingerprint {
    /// The fingerprint of `plan`.
    pub fn of(plan: &Plan) -> Fingerprint {
        let mut hash = Sha256::new();
        // One line per fact, so that no two different plans can give the same text.
        hash.update(format!(
            "nqueens plan 1\nn {}\nsymmetry {}\ndepth {}\nunits {}\n",
            plan.board(),
            plan.symmetry(),
            plan.depth(),
            plan.units().len()
        ));
        let mut line = String::new();
        for unit in plan.units() {
            use fmt::Write;
            line.clear();
            let _ = write!(line, "{}", unit.index);
            if let Some(b) = unit.border {
                let _ = write!(line, " b{},{},{},{}", b.top, b.bottom, b.left, b.right);
            }
            let _ = write!(line, " p");
            for c in &unit.prefix {
                let _ = write!(line, "{c},");
            }
            match &unit.weight {
                Weight::Plain { total, unique } => {
                    let _ = write!(line, " w{total},{unique}");
                }
                Weight::Burnside(group) => {
                    let _ = write!(line, " g");
                    for g in group {
                        let _ = write!(line, "{},", g.0);
                    }
                }
            }
            line.push('\n');
            hash.update(line.as_bytes());
        }
        let digest = hash.finalize();
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        Fingerprint(hex[..HEX_DIGITS].to_string())
    }

    /// The hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Board, Split, Symmetry};

    fn fp(n: u32, symmetry: Symmetry, depth: u32) -> Fingerprint {
        Fingerprint::of(&Plan::new(
            Board::new(n).unwrap(),
            symmetry,
            Split::Depth(depth),
        ))
    }

    #[test]
    fn the_same_plan_has_the_same_fingerprint_and_any_change_another() {
        let a = fp(10, Symmetry::Full, 2);
        assert_eq!(a, fp(10, Symmetry::Full, 2));
        assert_eq!(a.as_str().len(), HEX_DIGITS);
        // Journals and shard files write the fingerprint through `Display`: it must print as its digits.
        assert_eq!(a.to_string(), a.as_str());
        let others = [
            fp(11, Symmetry::Full, 2),
            fp(10, Symmetry::Mirror, 2),
            fp(10, Symmetry::None, 2),
            fp(10, Symmetry::Full, 1),
        ];
        for other in others {
            assert_ne!(a, other);
        }
    }

    #[test]
    fn the_fingerprints_of_earlier_versions_still_name_their_plans() {
        // A compatibility test: journals and shard files written by earlier versions carry these fingerprints
        // (computed by version 0.2.0 at 83020de, before the units held their queens inline), and they resume
        // and merge only if today's plan of the same request hashes to the same text. Among them units of every
        // weight: Burnside units of a border and of a whole small board, plain ones of each mode, a rectangle.
        let full = Split::durable(Symmetry::Full);
        let mirror = Split::durable(Symmetry::Mirror);
        let cases = [
            (
                3,
                3,
                Symmetry::Full,
                Split::Depth(1),
                "05b7465a4a4f7a19bc1004fb5717a391",
            ),
            (
                8,
                8,
                Symmetry::Full,
                Split::Depth(0),
                "a314150363caac3038ce618410f0864f",
            ),
            (
                10,
                10,
                Symmetry::Full,
                Split::Depth(2),
                "ce66cbc9d25d6f8ec966fdca66d8eac0",
            ),
            (
                12,
                12,
                Symmetry::Full,
                full,
                "2cd63bd32583c5ae58c88017bf0857a5",
            ),
            (
                9,
                9,
                Symmetry::Mirror,
                Split::Depth(1),
                "723656db64718dbb01150b307aa42b3c",
            ),
            (
                11,
                11,
                Symmetry::Mirror,
                mirror,
                "946ded595750b07f9426a977596f80b0",
            ),
            (
                7,
                7,
                Symmetry::None,
                Split::Depth(2),
                "2c915376a9a145c49511588a0f219cd7",
            ),
            (
                9,
                7,
                Symmetry::Full,
                Split::Depth(3),
                "c2ea61549038c91208ad317b92e0b3d9",
            ),
            (
                6,
                6,
                Symmetry::None,
                Split::Depth(6),
                "26aa3b3d8aa07bd1e1015eeefb095624",
            ),
        ];
        for (rows, cols, symmetry, split, expected) in cases {
            let plan = Plan::new(Board::rect(rows, cols).unwrap(), symmetry, split);
            assert_eq!(
                Fingerprint::of(&plan).as_str(),
                expected,
                "{rows}x{cols}, {symmetry}, {split:?}"
            );
        }
    }
}
