//! The signals that stop a run, waited for on a thread of the command's own: SIGINT, SIGTERM and SIGHUP, and on
//! Unix SIGUSR1, SIGUSR2 and SIGXCPU, the warnings batch systems send before they kill a job, through
//! `signal-hook`'s iterator; on Windows, where that iterator does not exist, SIGINT (Ctrl-C) and SIGTERM through
//! its flags, looked at every 20 ms.

#[cfg(unix)]
pub use signal_hook::consts::{SIGHUP, SIGUSR1, SIGUSR2, SIGXCPU};
pub use signal_hook::consts::{SIGINT, SIGTERM};

/// Windows has no SIGHUP. Unix's number, which no signal there has, keeps one name and exit code for each
/// signal in the code that says how a run stopped.
#[cfg(not(unix))]
pub const SIGHUP: i32 = 1;

/// The signals that stop a run as SIGTERM does. Besides the three of a person or a terminal, the warnings
/// that batch systems send a job before its time is up, so that a checkpointed run saves its work under way
/// rather than losing it to the kill: SIGUSR1 and SIGUSR2 (Slurm's `--signal=USR1@120`, Grid Engine's soft
/// limit of time, `s_rt`), and SIGXCPU (a soft limit of processor time: Grid Engine's `s_cpu`, `ulimit -t`).
#[cfg(unix)]
const STOPS: [i32; 6] = [SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGXCPU];

/// The other signals whose default is to end the process, which a run does not stop for as it does for
/// [`STOPS`] (no journal is saved for them: the journal's own syncs keep what finished, as after `kill -9`),
/// but after which no temporary file of its outputs may be left: SIGQUIT (asked for a core), SIGALRM,
/// SIGVTALRM and SIGPROF (timers, which no scheduler uses to warn). SIGXFSZ is not one of them:
/// [`write_errors_past_the_file_size_limit`].
#[cfg(unix)]
pub const OTHER_ENDINGS: [i32; 4] = {
    use signal_hook::consts::*;
    [SIGQUIT, SIGALRM, SIGVTALRM, SIGPROF]
};

/// The signals of [`STOPS`] and [`OTHER_ENDINGS`] that were ignored when the process started, which it leaves
/// ignored as POSIX tools do: `nohup`'s SIGHUP, so that a run it started outlives the terminal, and the SIGINT
/// and SIGQUIT of a job a shell script starts in the background, which the Ctrl-C of the job in front is not
/// for. Read once, by `main` before any handler is set (a handler set makes a signal no longer ignored).
#[cfg(unix)]
pub fn ignored_at_start() -> &'static [i32] {
    static IGNORED: std::sync::OnceLock<Vec<i32>> = std::sync::OnceLock::new();
    IGNORED.get_or_init(|| {
        STOPS
            .iter()
            .chain(&OTHER_ENDINGS)
            .copied()
            .filter(|&signal| {
                // SAFETY: with no new action, sigaction only writes the current one into `now`.
                let mut now: libc::sigaction = unsafe { std::mem::zeroed() };
                let read = unsafe { libc::sigaction(signal, std::ptr::null(), &mut now) } == 0;
                read && now.sa_sigaction == libc::SIG_IGN
            })
            .collect()
    })
}

/// `signals` but those ignored when the process started ([`ignored_at_start`]): the ones to catch.
#[cfg(unix)]
pub fn heeded(signals: &[i32]) -> Vec<i32> {
    let ignored = ignored_at_start();
    signals
        .iter()
        .copied()
        .filter(|s| !ignored.contains(s))
        .collect()
}

/// Has a write past the limit of a file's size (`ulimit -f`, a batch job's) fail with its error, as one on a
/// full disk does, rather than end the process with SIGXFSZ: a checkpointed run then says that its journal
/// keeps what was recorded and how to resume it, and a result's temporary file goes as after any failed write.
/// The signal is caught and nothing done with it, so that the write returns `EFBIG`.
#[cfg(unix)]
pub fn write_errors_past_the_file_size_limit() {
    let _ = signal_hook::flag::register(
        signal_hook::consts::SIGXFSZ,
        std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
    );
}

/// The name of a signal that stops a run.
pub fn name(signal: i32) -> &'static str {
    match signal {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        #[cfg(unix)]
        SIGUSR1 => "SIGUSR1",
        #[cfg(unix)]
        SIGUSR2 => "SIGUSR2",
        #[cfg(unix)]
        SIGXCPU => "SIGXCPU",
        _ => "a signal",
    }
}

/// Whether `signal` comes again unasked while the run winds down, so that it again is no second stop: past
/// its soft limit of processor time, the kernel sends SIGXCPU every second of it used (a fraction of a second
/// of a many-threaded run), until the hard limit's SIGKILL.
pub fn repeats(signal: i32) -> bool {
    #[cfg(unix)]
    {
        signal == SIGXCPU
    }
    #[cfg(not(unix))]
    {
        let _ = signal;
        false
    }
}

/// Whether `signal` stops a run and yet its default would leave a core, which a warning to stop should not:
/// SIGXCPU, after which the process ends with its exit code (128 + its number) instead.
pub fn leaves_a_core(signal: i32) -> bool {
    #[cfg(unix)]
    {
        signal == SIGXCPU
    }
    #[cfg(not(unix))]
    {
        let _ = signal;
        false
    }
}

/// The signals that stop a run ([`STOPS`] but those ignored when the process started, [`heeded`]; SIGINT and
/// SIGTERM on Windows), caught from the moment this is made until it is dropped, for one thread to wait for
/// ([`Stops::next`]).
pub struct Stops {
    #[cfg(unix)]
    signals: signal_hook::iterator::Signals,
    #[cfg(not(unix))]
    caught: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    #[cfg(not(unix))]
    closed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// Ends a [`Stops::next`] that waits, from another thread.
pub struct Closer {
    #[cfg(unix)]
    handle: signal_hook::iterator::Handle,
    #[cfg(not(unix))]
    closed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Stops {
    /// Catches the signals from now on.
    pub fn new() -> std::io::Result<Stops> {
        #[cfg(unix)]
        {
            Ok(Stops {
                signals: signal_hook::iterator::Signals::new(heeded(&STOPS))?,
            })
        }
        #[cfg(not(unix))]
        {
            let caught = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            for signal in [SIGINT, SIGTERM] {
                signal_hook::flag::register_usize(signal, caught.clone(), signal as usize)?;
            }
            Ok(Stops {
                caught,
                closed: Default::default(),
            })
        }
    }

    /// What ends a wait of [`Stops::next`].
    pub fn closer(&self) -> Closer {
        Closer {
            #[cfg(unix)]
            handle: self.signals.handle(),
            #[cfg(not(unix))]
            closed: self.closed.clone(),
        }
    }

    /// Waits for the next signal; `None` once closed.
    pub fn next(&mut self) -> Option<i32> {
        #[cfg(unix)]
        {
            self.signals.forever().next()
        }
        #[cfg(not(unix))]
        {
            use std::sync::atomic::Ordering;
            loop {
                if self.closed.load(Ordering::SeqCst) {
                    return None;
                }
                match self.caught.swap(0, Ordering::SeqCst) {
                    0 => std::thread::sleep(std::time::Duration::from_millis(20)),
                    signal => return Some(signal as i32),
                }
            }
        }
    }

    /// A signal caught since the last look, without waiting; `None` if none came.
    pub fn caught(&mut self) -> Option<i32> {
        #[cfg(unix)]
        {
            self.signals.pending().next()
        }
        #[cfg(not(unix))]
        {
            use std::sync::atomic::Ordering;
            match self.caught.swap(0, Ordering::SeqCst) {
                0 => None,
                signal => Some(signal as i32),
            }
        }
    }
}

impl Closer {
    /// Ends the wait: [`Stops::next`] returns `None`.
    pub fn close(&self) {
        #[cfg(unix)]
        self.handle.close();
        #[cfg(not(unix))]
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}
