//! Which loop runs: the loops this processor can run, the fastest of them, and the one chosen for this process
//! (`--kernel`).

use super::VECTOR_MAX_N;
use std::sync::atomic::{AtomicU8, Ordering};

/// The loops that can run a search: the same search, the same counts, on different instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kernel {
    /// Plain 64-bit instructions, 16 searches interleaved; runs anywhere, on any board.
    Scalar,
    /// 24 searches in the 32-bit lanes of three AVX2 registers of 8 that take turns; boards up to
    /// [`VECTOR_MAX_N`] squares wide.
    Avx2,
    /// 32 searches in the 32-bit lanes of two AVX-512 registers of 16 that take turns; boards up to
    /// [`VECTOR_MAX_N`] squares wide.
    Avx512,
}

impl Kernel {
    /// Every loop, slowest first.
    pub const ALL: [Kernel; 3] = [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512];

    /// The loop's name, as `--kernel` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Scalar => "scalar",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// Whether this processor can run the loop.
    pub fn available(self) -> bool {
        match self {
            Kernel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => {
                is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512cd")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// How many searches the loop runs side by side on one thread: a unit is one search, so a run of fewer
    /// units than this leaves some of them idle.
    pub fn searches(self) -> usize {
        match self {
            Kernel::Scalar => super::scalar::LANES,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => super::avx2::L,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => super::avx512::L,
            #[cfg(not(target_arch = "x86_64"))]
            _ => super::scalar::LANES,
        }
    }

    /// The fastest loop this processor can run.
    pub fn best() -> Kernel {
        Kernel::ALL
            .into_iter()
            .rev()
            .find(|k| k.available())
            .unwrap_or(Kernel::Scalar)
    }

    /// The loop counts use unless told otherwise: the one set by [`Kernel::prefer`], or else [`Kernel::best`].
    pub fn preferred() -> Kernel {
        match PREFERRED.load(Ordering::Relaxed) {
            1 => Kernel::Scalar,
            2 => Kernel::Avx2,
            3 => Kernel::Avx512,
            _ => Kernel::best(),
        }
    }

    /// Makes `kernel` the loop of every later count in this process (`None`: the best available). Refused,
    /// with nothing changed, when this processor cannot run it.
    pub fn prefer(kernel: Option<Kernel>) -> Result<(), Kernel> {
        let code = match kernel {
            None => 0,
            Some(k) if !k.available() => return Err(k),
            Some(Kernel::Scalar) => 1,
            Some(Kernel::Avx2) => 2,
            Some(Kernel::Avx512) => 3,
        };
        PREFERRED.store(code, Ordering::Relaxed);
        Ok(())
    }

    /// Whether the loop handles a board of `lines` lines of `width` squares itself (squares and rectangles);
    /// the vector loops hand boards wider than [`VECTOR_MAX_N`] to the scalar one.
    pub fn handles(self, width: u32, lines: u32) -> bool {
        self == Kernel::Scalar || (lines <= width && width <= VECTOR_MAX_N)
    }

    /// The loop that really runs a board of `lines` lines of `width` squares when this one is asked for.
    pub fn on(self, width: u32, lines: u32) -> Kernel {
        if self.handles(width, lines) {
            self
        } else {
            Kernel::Scalar
        }
    }
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Kernel {
    type Err = String;

    fn from_str(s: &str) -> Result<Kernel, String> {
        Kernel::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("unknown kernel `{s}` (scalar, avx2 or avx512)"))
    }
}

/// Whether the AVX-512 loops can count the nodes their look-ahead skips with a population count instruction
/// (AVX512-VPOPCNTDQ: Ice Lake, Sapphire Rapids, Zen 4 and later); without it (Skylake-X, Cascade Lake) they
/// count them with shifts and adds, which costs about 6% (n = 17, full, one thread, on a Zen 5).
#[cfg(target_arch = "x86_64")]
pub(super) fn vpopcnt() -> bool {
    is_x86_feature_detected!("avx512vpopcntdq")
}

/// [`Kernel::preferred`]'s setting: 0 for the best available, else 1 + the kernel's place in [`Kernel::ALL`].
static PREFERRED: AtomicU8 = AtomicU8::new(0);
