//! A small interpreter of PTX, the GPU kernel's code as NVRTC compiles it, for checking on a machine without
//! a GPU what only the GPU runs: the kernel's inline PTX (the turn written in PTX, the look-ahead's products
//! and `bfind`), its `__CUDA_ARCH__` branches, the block's threads fixed as the program builds it, and the
//! shared memory's layout as the host sizes it.
//!
//! It takes the subset of PTX that `src/gpu/count.cu` compiles to (integer arithmetic and logic, `lop3`,
//! `prmt`, `popc`, `bfind`, predicates, loads and stores of shared and global memory, global atomic adds,
//! branches) and refuses anything else by name, so a new instruction in the kernel fails loudly rather than
//! being run wrongly. Threads run one after another in slices of a few instructions, each with its own
//! registers; the kernel needs nothing of a warp (no shuffles, no barriers), and its threads share only the
//! atomic counter of tasks and the units' counters. Every access is checked: shared memory within the
//! block's bytes, and read only by the thread that wrote it; global memory within its buffer; each aligned to
//! its size. So an overrun, a thread reading another's words or words never written, which the GPU would let
//! pass silently, is an error here.
//!
//! `tests/ptx_interpreter.rs` checks the interpreter itself on kernels written by hand.
// Each test file that includes this uses a part of it.
#![allow(dead_code)]

use std::collections::HashMap;

/// Where shared memory begins in the shared window (Hopper keeps the first kilobyte of a block's shared
/// memory for the system, so the kernel's array never starts at 0).
const SHARED_BASE: u64 = 0x400;
/// The owner of shared bytes no thread has written.
const NO_THREAD: u32 = u32::MAX;
/// Global buffer `i` lies at `(i + 1) << GLOBAL_SHIFT`: any address is its buffer and its offset.
const GLOBAL_SHIFT: u32 = 40;

#[derive(Clone, Copy, Debug)]
enum Operand {
    Reg(u32),
    Imm(u64),
    Tid,
    Ntid,
    Ctaid,
    Nctaid,
    Clock,
    /// The address of the kernel's `extern __shared__` array in the shared window.
    Shared,
}

#[derive(Clone, Copy, Debug)]
struct Address {
    base: Operand,
    offset: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Space {
    Shared,
    Global,
    Param,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Alu {
    Add,
    Sub,
    MulLo,
    MulHi,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

#[derive(Clone, Debug)]
enum Op {
    /// `bits` 32 or 64 (1 for predicates), `signed` for `.s` types.
    Alu {
        alu: Alu,
        bits: u32,
        signed: bool,
        d: u32,
        a: Operand,
        b: Operand,
    },
    Mov {
        bits: u32,
        d: u32,
        a: Operand,
    },
    /// Two 32-bit words into one 64-bit register, the first the low one.
    Pack {
        d: u32,
        lo: Operand,
        hi: Operand,
    },
    /// A 64-bit value into two 32-bit registers, the first the low word.
    Unpack {
        lo: u32,
        hi: u32,
        a: Operand,
    },
    Not {
        bits: u32,
        d: u32,
        a: Operand,
    },
    Neg {
        bits: u32,
        d: u32,
        a: Operand,
    },
    MulWide {
        signed: bool,
        d: u32,
        a: Operand,
        b: Operand,
    },
    MadLo {
        bits: u32,
        d: u32,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    Lop3 {
        d: u32,
        a: Operand,
        b: Operand,
        c: Operand,
        lut: u32,
    },
    Prmt {
        d: u32,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    Popc {
        bits: u32,
        d: u32,
        a: Operand,
    },
    /// `bfind.u32`, or with `.shiftamt` the shift that takes the highest bit to the top.
    Bfind {
        shiftamt: bool,
        d: u32,
        a: Operand,
    },
    Clz {
        d: u32,
        a: Operand,
    },
    Setp {
        cmp: Cmp,
        bits: u32,
        signed: bool,
        d: u32,
        a: Operand,
        b: Operand,
    },
    Selp {
        bits: u32,
        d: u32,
        a: Operand,
        b: Operand,
        p: Operand,
    },
    /// Widening or narrowing between integer registers (`cvt.u64.u32`, `cvt.u32.u64`, `cvt.s64.s32`).
    Cvt {
        to_bits: u32,
        from_bits: u32,
        signed: bool,
        d: u32,
        a: Operand,
    },
    Ld {
        space: Space,
        bytes: u32,
        d: Vec<u32>,
        at: Address,
    },
    St {
        space: Space,
        bytes: u32,
        a: Vec<Operand>,
        at: Address,
    },
    AtomAdd {
        bytes: u32,
        d: u32,
        at: Address,
        b: Operand,
    },
    Bra(usize),
    Ret,
    Trap,
}

#[derive(Clone, Debug)]
struct Inst {
    /// The predicate register that guards it, and whether negated (`@!p`).
    guard: Option<(u32, bool)>,
    op: Op,
    /// The statement as written, for errors.
    text: String,
}

/// A kernel ready to run: its instructions, its parameters' names in order, its registers.
pub struct Kernel {
    code: Vec<Inst>,
    params: Vec<String>,
    registers: usize,
}

/// A global buffer handed to a launch as a parameter.
#[derive(Clone)]
pub enum Arg {
    /// A pointer to a buffer of bytes, given back after the run.
    Buffer(Vec<u8>),
    U32(u32),
}

/// How a kernel is launched: its blocks and their threads, each block's bytes of shared memory, the
/// instructions a thread runs before the next takes its turn, and how far the clock (`%clock64`) moves on at
/// each reading besides one cycle an instruction.
pub struct Launch {
    pub blocks: u32,
    pub threads: u32,
    pub shared: usize,
    pub slice: u32,
    pub clock_step: u64,
}

/// How a run ended.
pub struct Ran {
    /// The buffers, in the order of the launch's arguments (`None` for scalars).
    pub buffers: Vec<Option<Vec<u8>>>,
    /// How often each instruction was issued (a guarded one whether its guard held or not), all threads
    /// together, in the kernel's order.
    pub issued: Vec<u64>,
}

struct Parser {
    names: HashMap<String, u32>,
    /// The inline blocks' own registers: one map a `{ }`, innermost last.
    scopes: Vec<HashMap<String, u32>>,
    next: u32,
    /// Each block's registers get fresh numbers.
    labels: HashMap<String, usize>,
    code: Vec<Inst>,
    /// Branches to labels not yet seen: (instruction, label).
    fixups: Vec<(usize, String)>,
}

impl Parser {
    fn reg(&mut self, name: &str) -> u32 {
        for scope in self.scopes.iter().rev() {
            if let Some(&r) = scope.get(name) {
                return r;
            }
        }
        if let Some(&r) = self.names.get(name) {
            return r;
        }
        let r = self.next;
        self.next += 1;
        self.names.insert(name.to_string(), r);
        r
    }

    fn declare(&mut self, name: &str) {
        let r = self.next;
        self.next += 1;
        self.scopes
            .last_mut()
            .expect("a block's register outside a block")
            .insert(name.to_string(), r);
    }

    fn operand(&mut self, s: &str) -> Result<Operand, String> {
        let s = s.trim();
        Ok(match s {
            "%tid.x" => Operand::Tid,
            "%ntid.x" => Operand::Ntid,
            "%ctaid.x" => Operand::Ctaid,
            "%nctaid.x" => Operand::Nctaid,
            "%clock64" | "%clock" => Operand::Clock,
            "shared" => Operand::Shared,
            _ if s.starts_with('-') || s.as_bytes()[0].is_ascii_digit() => {
                Operand::Imm(immediate(s)?)
            }
            _ if s.starts_with('%') || s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                Operand::Reg(self.reg(s))
            }
            _ => return Err(format!("operand '{s}' is not one this interpreter takes")),
        })
    }

    fn dest(&mut self, s: &str) -> Result<u32, String> {
        match self.operand(s)? {
            Operand::Reg(r) => Ok(r),
            other => Err(format!("'{s}' is not a register to write ({other:?})")),
        }
    }

    fn address(&mut self, s: &str) -> Result<Address, String> {
        let inner = s
            .trim()
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .ok_or_else(|| format!("'{s}' is not an address"))?;
        let (base, offset) = match inner.split_once('+') {
            Some((b, o)) => (b.trim(), immediate(o.trim())? as i64),
            None => (inner.trim(), 0),
        };
        let base = if base.contains("_param_") {
            Operand::Imm(
                self.param_index(base)
                    .ok_or_else(|| format!("no parameter {base}"))?,
            )
        } else {
            self.operand(base)?
        };
        Ok(Address { base, offset })
    }

    fn param_index(&self, name: &str) -> Option<u64> {
        name.rsplit('_').next()?.parse().ok()
    }

    fn vector(&mut self, s: &str) -> Result<Vec<Operand>, String> {
        let s = s.trim();
        match s.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(inner) => inner.split(',').map(|o| self.operand(o)).collect(),
            None => Ok(vec![self.operand(s)?]),
        }
    }

    fn statement(&mut self, text: &str) -> Result<(), String> {
        let mut s = text.trim();
        if s.is_empty() {
            return Ok(());
        }
        if let Some(rest) = s.strip_prefix(".reg") {
            // A block's own registers (`.reg .pred p, q;`); the function's (`%r<100>`) are named as used.
            if !self.scopes.is_empty() {
                let rest = rest.trim_start();
                let names = rest.split_once(char::is_whitespace).map_or("", |(_, n)| n);
                for name in names.split(',') {
                    self.declare(name.trim());
                }
            }
            return Ok(());
        }
        if s.starts_with('.') {
            return Ok(());
        }
        let mut guard = None;
        if let Some(rest) = s.strip_prefix('@') {
            let (p, rest) = rest
                .split_once(char::is_whitespace)
                .ok_or("a guard with no instruction")?;
            let (negated, p) = match p.strip_prefix('!') {
                Some(p) => (true, p),
                None => (false, p),
            };
            guard = Some((self.reg(p), negated));
            s = rest.trim();
        }
        let (opcode, rest) = s.split_once(char::is_whitespace).unwrap_or((s, ""));
        let args = split_operands(rest);
        let parts: Vec<&str> = opcode.split('.').collect();
        let ty = *parts.last().unwrap();
        let bits = type_bits(ty);
        let signed = ty.starts_with('s');
        let arg = |i: usize| -> Result<&str, String> {
            args.get(i)
                .map(String::as_str)
                .ok_or_else(|| format!("'{text}' has too few operands"))
        };
        let op = match parts[0] {
            "add" | "sub" | "and" | "or" | "xor" | "shl" | "shr" | "mul"
                if !(parts[0] == "mul" && parts.get(1) == Some(&"wide")) =>
            {
                let alu = match (parts[0], parts.get(1).copied()) {
                    ("add", _) => Alu::Add,
                    ("sub", _) => Alu::Sub,
                    ("and", _) => Alu::And,
                    ("or", _) => Alu::Or,
                    ("xor", _) => Alu::Xor,
                    ("shl", _) => Alu::Shl,
                    ("shr", _) => Alu::Shr,
                    ("mul", Some("lo")) => Alu::MulLo,
                    ("mul", Some("hi")) => Alu::MulHi,
                    _ => return Err(format!("'{opcode}' is not taken")),
                };
                Op::Alu {
                    alu,
                    bits: bits?,
                    signed,
                    d: self.dest(arg(0)?)?,
                    a: self.operand(arg(1)?)?,
                    b: self.operand(arg(2)?)?,
                }
            }
            "mul" => Op::MulWide {
                signed,
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
                b: self.operand(arg(2)?)?,
            },
            "mad" if parts.get(1) == Some(&"lo") => Op::MadLo {
                bits: bits?,
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
                b: self.operand(arg(2)?)?,
                c: self.operand(arg(3)?)?,
            },
            // `mov.b64 %rd, {%lo, %hi}` packs two words (NVRTC for sm_100 on), and the reverse unpacks.
            "mov" if arg(1)?.starts_with('{') => {
                let parts = self.vector(arg(1)?)?;
                match parts[..] {
                    [lo, hi] => Op::Pack {
                        d: self.dest(arg(0)?)?,
                        lo,
                        hi,
                    },
                    _ => return Err(format!("'{text}': only two words are packed")),
                }
            }
            "mov" if arg(0)?.starts_with('{') => {
                let parts = self.vector(arg(0)?)?;
                match parts[..] {
                    [Operand::Reg(lo), Operand::Reg(hi)] => Op::Unpack {
                        lo,
                        hi,
                        a: self.operand(arg(1)?)?,
                    },
                    _ => return Err(format!("'{text}': only two words are unpacked")),
                }
            }
            "mov" => Op::Mov {
                bits: bits?,
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
            },
            "not" => Op::Not {
                bits: bits?,
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
            },
            "neg" => Op::Neg {
                bits: bits?,
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
            },
            "lop3" => Op::Lop3 {
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
                b: self.operand(arg(2)?)?,
                c: self.operand(arg(3)?)?,
                lut: immediate(arg(4)?)? as u32,
            },
            "prmt" if parts.len() == 2 => Op::Prmt {
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
                b: self.operand(arg(2)?)?,
                c: self.operand(arg(3)?)?,
            },
            "popc" => Op::Popc {
                bits: bits?,
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
            },
            "bfind" if ty == "u32" => Op::Bfind {
                shiftamt: parts.contains(&"shiftamt"),
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
            },
            "clz" if ty == "b32" => Op::Clz {
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
            },
            "setp" => Op::Setp {
                cmp: match parts.get(1).copied() {
                    Some("eq") => Cmp::Eq,
                    Some("ne") => Cmp::Ne,
                    Some("lt") | Some("lo") => Cmp::Lt,
                    Some("le") | Some("ls") => Cmp::Le,
                    Some("gt") | Some("hi") => Cmp::Gt,
                    Some("ge") | Some("hs") => Cmp::Ge,
                    _ => return Err(format!("'{opcode}' is not taken")),
                },
                bits: bits?,
                signed,
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
                b: self.operand(arg(2)?)?,
            },
            "selp" => Op::Selp {
                bits: bits?,
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
                b: self.operand(arg(2)?)?,
                p: self.operand(arg(3)?)?,
            },
            "cvt" if parts.len() == 3 => Op::Cvt {
                to_bits: type_bits(parts[1])?,
                from_bits: type_bits(parts[2])?,
                signed: parts[2].starts_with('s'),
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
            },
            "cvta" if parts.get(1) == Some(&"to") && parts.get(2) == Some(&"global") => Op::Mov {
                bits: 64,
                d: self.dest(arg(0)?)?,
                a: self.operand(arg(1)?)?,
            },
            "ld" | "st" => {
                let space = match parts.get(1).copied() {
                    Some("shared") => Space::Shared,
                    Some("global") => Space::Global,
                    Some("param") => Space::Param,
                    _ => {
                        return Err(format!(
                            "'{opcode}': only shared, global and parameter space"
                        ))
                    }
                };
                let lanes = if parts.contains(&"v4") {
                    4
                } else if parts.contains(&"v2") {
                    2
                } else {
                    1
                };
                let bytes = bits? / 8 * lanes;
                if parts[0] == "ld" {
                    let d = self
                        .vector(arg(0)?)?
                        .into_iter()
                        .map(|o| match o {
                            Operand::Reg(r) => Ok(r),
                            other => Err(format!("a load into {other:?}")),
                        })
                        .collect::<Result<_, String>>()?;
                    Op::Ld {
                        space,
                        bytes,
                        d,
                        at: self.address(arg(1)?)?,
                    }
                } else {
                    Op::St {
                        space,
                        bytes,
                        at: self.address(arg(0)?)?,
                        a: self.vector(arg(1)?)?,
                    }
                }
            }
            // `atom.global.add.u32`; for sm_100 on, NVRTC writes `atom.relaxed.gpu.global.add.u32` (the same
            // order: none).
            "atom" if parts.contains(&"global") && parts.contains(&"add") => Op::AtomAdd {
                bytes: bits? / 8,
                d: self.dest(arg(0)?)?,
                at: self.address(arg(1)?)?,
                b: self.operand(arg(2)?)?,
            },
            "bra" => {
                self.fixups.push((self.code.len(), arg(0)?.to_string()));
                Op::Bra(usize::MAX)
            }
            "ret" | "exit" => Op::Ret,
            "trap" => Op::Trap,
            _ => {
                return Err(format!(
                    "'{opcode}' is not an instruction this interpreter takes"
                ))
            }
        };
        self.code.push(Inst {
            guard,
            op,
            text: text.trim().to_string(),
        });
        Ok(())
    }
}

fn type_bits(ty: &str) -> Result<u32, String> {
    match ty {
        "pred" => Ok(1),
        "b8" | "u8" | "s8" => Ok(8),
        "b16" | "u16" | "s16" => Ok(16),
        "b32" | "u32" | "s32" => Ok(32),
        "b64" | "u64" | "s64" => Ok(64),
        _ => Err(format!("type .{ty} is not taken")),
    }
}

fn immediate(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (negative, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let digits = digits.trim_end_matches(['u', 'U']);
    let value = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => digits.parse::<u64>(),
    }
    .map_err(|_| format!("'{s}' is not an integer"))?;
    Ok(if negative {
        value.wrapping_neg()
    } else {
        value
    })
}

/// Splits operands at the commas outside braces and brackets.
fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for c in s.chars() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

impl Kernel {
    /// Reads the entry `entry` of the PTX text `ptx`.
    pub fn parse(ptx: &str, entry: &str) -> Result<Kernel, String> {
        let text: String = ptx
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let head = format!(".entry {entry}(");
        let start = text
            .find(&head)
            .ok_or_else(|| format!("no entry {entry}"))?;
        let after = &text[start + head.len()..];
        let close = after.find(')').ok_or("the parameters do not end")?;
        let params: Vec<String> = after[..close]
            .split(',')
            .map(|p| p.split_whitespace().last().unwrap_or("").to_string())
            .collect();
        let body_start = after[close..].find('{').ok_or("no body")? + close + 1;
        let body = &after[body_start..];
        let mut parser = Parser {
            names: HashMap::new(),
            scopes: Vec::new(),
            next: 0,
            labels: HashMap::new(),
            code: Vec::new(),
            fixups: Vec::new(),
        };
        let mut statement = String::new();
        let mut ended = false;
        for c in body.chars() {
            match c {
                ';' => {
                    parser.statement(&statement)?;
                    statement.clear();
                }
                '{' if statement.trim().is_empty() => parser.scopes.push(HashMap::new()),
                '}' if statement.trim().is_empty() => {
                    if parser.scopes.pop().is_none() {
                        ended = true;
                        break;
                    }
                }
                ':' if !statement.contains('[') && statement.trim().starts_with('$') => {
                    parser
                        .labels
                        .insert(statement.trim().to_string(), parser.code.len());
                    statement.clear();
                }
                _ => statement.push(c),
            }
        }
        if !ended {
            return Err("the body does not end".into());
        }
        for (at, label) in std::mem::take(&mut parser.fixups) {
            let target = *parser
                .labels
                .get(&label)
                .ok_or_else(|| format!("no label {label}"))?;
            parser.code[at].op = Op::Bra(target);
        }
        Ok(Kernel {
            code: parser.code,
            params,
            registers: parser.next as usize,
        })
    }

    /// The kernel's branches in its order: where each is, where it goes, and whether a predicate guards it.
    pub fn branches(&self) -> Vec<(usize, usize, bool)> {
        self.code
            .iter()
            .enumerate()
            .filter_map(|(at, inst)| match inst.op {
                Op::Bra(to) => Some((at, to, inst.guard.is_some())),
                _ => None,
            })
            .collect()
    }

    /// Runs the kernel as `launch` says with the arguments `args` (one for each parameter, in order); an error
    /// names the instruction and the thread where it went wrong.
    pub fn run(&self, launch: &Launch, args: Vec<Arg>) -> Result<Ran, String> {
        let Launch {
            blocks,
            threads,
            shared,
            slice,
            clock_step,
        } = *launch;
        if args.len() != self.params.len() {
            return Err(format!(
                "{} arguments for {} parameters",
                args.len(),
                self.params.len()
            ));
        }
        let mut params = Vec::new();
        let mut global = Vec::new();
        let mut which = Vec::new();
        for arg in args {
            match arg {
                Arg::Buffer(bytes) => {
                    params.push(((global.len() as u64) + 1) << GLOBAL_SHIFT);
                    which.push(Some(global.len()));
                    global.push(bytes);
                }
                Arg::U32(v) => {
                    params.push(u64::from(v));
                    which.push(None);
                }
            }
        }
        let mut machine = Machine {
            kernel: self,
            params,
            global,
            shared: vec![vec![0u8; shared]; blocks as usize],
            owners: vec![vec![NO_THREAD; shared]; blocks as usize],
            issued: vec![0; self.code.len()],
            threads,
            blocks,
            clock_step,
        };
        let mut states: Vec<Thread> = (0..blocks)
            .flat_map(|b| {
                (0..threads).map(move |t| Thread {
                    block: b,
                    tid: t,
                    pc: 0,
                    regs: Vec::new(),
                    done: false,
                    clock: 0,
                })
            })
            .collect();
        for s in &mut states {
            s.regs = vec![0; self.registers];
        }
        let mut live = states.len();
        while live > 0 {
            for s in states.iter_mut().filter(|s| !s.done) {
                machine.step(s, slice)?;
                if s.done {
                    live -= 1;
                }
            }
        }
        let Machine {
            mut global, issued, ..
        } = machine;
        let buffers = which
            .into_iter()
            .map(|w| w.map(|i| std::mem::take(&mut global[i])))
            .collect();
        Ok(Ran { buffers, issued })
    }
}

struct Thread {
    block: u32,
    tid: u32,
    pc: usize,
    regs: Vec<u64>,
    done: bool,
    clock: u64,
}

struct Machine<'k> {
    kernel: &'k Kernel,
    params: Vec<u64>,
    global: Vec<Vec<u8>>,
    shared: Vec<Vec<u8>>,
    /// The thread that last wrote each shared byte, by block.
    owners: Vec<Vec<u32>>,
    threads: u32,
    blocks: u32,
    clock_step: u64,
    issued: Vec<u64>,
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn sign_extend(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

impl<'k> Machine<'k> {
    fn value(&self, t: &Thread, o: Operand) -> u64 {
        match o {
            Operand::Reg(r) => t.regs[r as usize],
            Operand::Imm(v) => v,
            Operand::Tid => u64::from(t.tid),
            Operand::Ntid => u64::from(self.threads),
            Operand::Ctaid => u64::from(t.block),
            Operand::Nctaid => u64::from(self.blocks),
            Operand::Clock => t.clock,
            Operand::Shared => SHARED_BASE,
        }
    }

    /// The bytes at `address` in `space`: the block's shared memory or a global buffer, checked. A thread reads
    /// only shared bytes it wrote itself (the kernel's threads share none: each has its own words of the stack
    /// and of the table), so a read of another thread's bytes, or of bytes no thread wrote, is an error.
    fn memory<'a>(
        &'a mut self,
        t: &Thread,
        space: Space,
        at: u64,
        bytes: u32,
        write: bool,
    ) -> Result<&'a mut [u8], String> {
        if !at.is_multiple_of(u64::from(bytes)) {
            return Err(format!("{bytes} bytes at {at:#x}: not aligned"));
        }
        let (memory, offset) = match space {
            Space::Shared => {
                let offset = at
                    .checked_sub(SHARED_BASE)
                    .ok_or_else(|| format!("shared address {at:#x} below the block's memory"))?
                    as usize;
                let owners = &mut self.owners[t.block as usize];
                let len = owners.len();
                let mine = owners.get_mut(offset..offset + bytes as usize).ok_or_else(|| {
                    format!("{bytes} bytes at offset {offset} of a {len}-byte shared memory: out of bounds")
                })?;
                if write {
                    mine.fill(t.tid);
                } else if let Some(&other) = mine.iter().find(|&&o| o != t.tid) {
                    return Err(if other == NO_THREAD {
                        format!("a read of shared bytes at offset {offset} that no thread wrote")
                    } else {
                        format!(
                            "a read of shared bytes at offset {offset} that thread {other} wrote"
                        )
                    });
                }
                (&mut self.shared[t.block as usize], offset as u64)
            }
            Space::Global => {
                let buffer = (at >> GLOBAL_SHIFT) as usize;
                if buffer == 0 || buffer > self.global.len() {
                    return Err(format!("global address {at:#x} in no buffer"));
                }
                (&mut self.global[buffer - 1], at & mask(GLOBAL_SHIFT))
            }
            Space::Param => unreachable!(),
        };
        let len = memory.len();
        let offset = offset as usize;
        memory
            .get_mut(offset..offset + bytes as usize)
            .ok_or_else(|| {
                format!("{bytes} bytes at offset {offset} of a {len}-byte {space:?} memory: out of bounds")
            })
    }

    fn step(&mut self, t: &mut Thread, slice: u32) -> Result<(), String> {
        let kernel: &'k Kernel = self.kernel;
        let code = &kernel.code;
        for _ in 0..slice {
            let Some(inst) = code.get(t.pc) else {
                return Err("ran past the kernel's end".into());
            };
            self.issued[t.pc] += 1;
            t.pc += 1;
            t.clock += 1;
            if let Some((p, negated)) = inst.guard {
                if (t.regs[p as usize] != 0) == negated {
                    continue;
                }
            }
            self.execute(t, inst).map_err(|e| {
                format!("thread {} of block {}: {}: {e}", t.tid, t.block, inst.text)
            })?;
            if t.done {
                return Ok(());
            }
        }
        Ok(())
    }

    fn execute(&mut self, t: &mut Thread, inst: &Inst) -> Result<(), String> {
        let v = |m: &Self, t: &Thread, o: Operand| m.value(t, o);
        match inst.op {
            Op::Alu {
                alu,
                bits,
                signed,
                d,
                a,
                b,
            } => {
                let x = v(self, t, a) & mask(bits);
                let y = v(self, t, b);
                let r = match alu {
                    Alu::Add => x.wrapping_add(y),
                    Alu::Sub => x.wrapping_sub(y),
                    Alu::MulLo => x.wrapping_mul(y),
                    Alu::MulHi if bits == 32 && !signed => (x * (y & mask(32))) >> 32,
                    Alu::MulHi => return Err("only mul.hi.u32 is taken".into()),
                    Alu::And => x & y,
                    Alu::Or => x | y,
                    Alu::Xor => x ^ y,
                    // PTX clamps shifts: at least the width shifts every bit out (or in, a sign).
                    Alu::Shl => {
                        let s = (y & mask(32)).min(u64::from(bits));
                        if s >= u64::from(bits) {
                            0
                        } else {
                            x << s
                        }
                    }
                    Alu::Shr => {
                        let s = (y & mask(32)).min(u64::from(bits));
                        if signed {
                            let sx = sign_extend(x, bits);
                            (sx >> s.min(63)) as u64
                        } else if s >= u64::from(bits) {
                            0
                        } else {
                            x >> s
                        }
                    }
                };
                t.regs[d as usize] = r & mask(bits);
            }
            Op::Mov { bits, d, a } => {
                t.regs[d as usize] = v(self, t, a) & mask(bits);
                if matches!(a, Operand::Clock) {
                    t.clock = t.clock.wrapping_add(self.clock_step);
                }
            }
            Op::Pack { d, lo, hi } => {
                t.regs[d as usize] = (v(self, t, hi) & mask(32)) << 32 | (v(self, t, lo) & mask(32))
            }
            Op::Unpack { lo, hi, a } => {
                let x = v(self, t, a);
                t.regs[lo as usize] = x & mask(32);
                t.regs[hi as usize] = x >> 32;
            }
            Op::Not { bits, d, a } => {
                t.regs[d as usize] = if bits == 1 {
                    u64::from(v(self, t, a) == 0)
                } else {
                    !v(self, t, a) & mask(bits)
                }
            }
            Op::Neg { bits, d, a } => {
                t.regs[d as usize] = v(self, t, a).wrapping_neg() & mask(bits)
            }
            Op::MulWide { signed, d, a, b } => {
                let (x, y) = (v(self, t, a), v(self, t, b));
                t.regs[d as usize] = if signed {
                    (sign_extend(x, 32) * sign_extend(y, 32)) as u64
                } else {
                    (x & mask(32)) * (y & mask(32))
                };
            }
            Op::MadLo { bits, d, a, b, c } => {
                t.regs[d as usize] = v(self, t, a)
                    .wrapping_mul(v(self, t, b))
                    .wrapping_add(v(self, t, c))
                    & mask(bits)
            }
            Op::Lop3 { d, a, b, c, lut } => {
                // Bit i of the result is bit (a_i * 4 + b_i * 2 + c_i) of the table: the union of the table's
                // minterms over the three words.
                let (x, y, z) = (v(self, t, a), v(self, t, b), v(self, t, c));
                let mut r = 0u64;
                for k in 0..8 {
                    if (lut >> k) & 1 == 1 {
                        let pick = |w: u64, bit: u32| if k & bit != 0 { w } else { !w };
                        r |= pick(x, 4) & pick(y, 2) & pick(z, 1);
                    }
                }
                t.regs[d as usize] = r & mask(32);
            }
            Op::Prmt { d, a, b, c } => {
                let xy = (v(self, t, b) & mask(32)) << 32 | (v(self, t, a) & mask(32));
                let s = v(self, t, c);
                let mut r = 0u64;
                for i in 0..4 {
                    let sel = (s >> (4 * i)) & 15;
                    let mut byte = (xy >> (8 * (sel & 7))) & 0xff;
                    if sel & 8 != 0 {
                        byte = if byte & 0x80 != 0 { 0xff } else { 0 };
                    }
                    r |= byte << (8 * i);
                }
                t.regs[d as usize] = r;
            }
            Op::Popc { bits, d, a } => {
                t.regs[d as usize] = u64::from((v(self, t, a) & mask(bits)).count_ones())
            }
            Op::Bfind { shiftamt, d, a } => {
                let x = v(self, t, a) & mask(32);
                t.regs[d as usize] = if x == 0 {
                    0xffff_ffff
                } else if shiftamt {
                    u64::from((x as u32).leading_zeros())
                } else {
                    u64::from(31 - (x as u32).leading_zeros())
                };
            }
            Op::Clz { d, a } => {
                t.regs[d as usize] = u64::from((v(self, t, a) as u32).leading_zeros())
            }
            Op::Setp {
                cmp,
                bits,
                signed,
                d,
                a,
                b,
            } => {
                let (x, y) = (v(self, t, a) & mask(bits), v(self, t, b) & mask(bits));
                let order = if signed {
                    sign_extend(x, bits).cmp(&sign_extend(y, bits))
                } else {
                    x.cmp(&y)
                };
                let r = match cmp {
                    Cmp::Eq => order.is_eq(),
                    Cmp::Ne => order.is_ne(),
                    Cmp::Lt => order.is_lt(),
                    Cmp::Le => order.is_le(),
                    Cmp::Gt => order.is_gt(),
                    Cmp::Ge => order.is_ge(),
                };
                t.regs[d as usize] = u64::from(r);
            }
            Op::Selp { bits, d, a, b, p } => {
                let chosen = if v(self, t, p) != 0 { a } else { b };
                t.regs[d as usize] = v(self, t, chosen) & mask(bits);
            }
            Op::Cvt {
                to_bits,
                from_bits,
                signed,
                d,
                a,
            } => {
                let x = v(self, t, a) & mask(from_bits);
                let wide = if signed {
                    sign_extend(x, from_bits) as u64
                } else {
                    x
                };
                t.regs[d as usize] = wide & mask(to_bits);
            }
            Op::Ld {
                space,
                bytes,
                ref d,
                at,
            } => {
                let lane = bytes / d.len() as u32;
                if space == Space::Param {
                    let index = match at.base {
                        Operand::Imm(i) => i as usize,
                        _ => return Err("a parameter by register".into()),
                    };
                    t.regs[d[0] as usize] = self.params[index] & mask(lane * 8);
                    return Ok(());
                }
                let address = self.value(t, at.base).wrapping_add(at.offset as u64);
                let mut data = [0u8; 16];
                data[..bytes as usize]
                    .copy_from_slice(self.memory(t, space, address, bytes, false)?);
                let lane = lane as usize;
                for (i, &r) in d.iter().enumerate() {
                    let mut w = [0u8; 8];
                    w[..lane].copy_from_slice(&data[i * lane..(i + 1) * lane]);
                    t.regs[r as usize] = u64::from_le_bytes(w);
                }
            }
            Op::St {
                space,
                bytes,
                ref a,
                at,
            } => {
                let lane = (bytes / a.len() as u32) as usize;
                let mut values = [0u64; 4];
                for (v, &o) in values.iter_mut().zip(a) {
                    *v = self.value(t, o);
                }
                let address = self.value(t, at.base).wrapping_add(at.offset as u64);
                let memory = self.memory(t, space, address, bytes, true)?;
                for (i, value) in values.into_iter().take(a.len()).enumerate() {
                    memory[i * lane..(i + 1) * lane].copy_from_slice(&value.to_le_bytes()[..lane]);
                }
            }
            Op::AtomAdd { bytes, d, at, b } => {
                let add = self.value(t, b);
                let address = self.value(t, at.base).wrapping_add(at.offset as u64);
                let memory = self.memory(t, Space::Global, address, bytes, true)?;
                let mut w = [0u8; 8];
                w[..bytes as usize].copy_from_slice(memory);
                let old = u64::from_le_bytes(w);
                let new = old.wrapping_add(add) & mask(bytes * 8);
                memory.copy_from_slice(&new.to_le_bytes()[..bytes as usize]);
                t.regs[d as usize] = old;
            }
            Op::Bra(target) => t.pc = target,
            Op::Ret => t.done = true,
            Op::Trap => return Err("the kernel trapped".into()),
        }
        Ok(())
    }
}
