//! Pinning a one-thread run to one processor, for the benchmark's baseline.
//!
//! A lone thread that the scheduler moves between cores loses its caches and branch history at each move and
//! lands on cores that another program is using: on a 16-core machine unpinned one-thread runs of n = 18 took
//! 27.7 to 29.1 s where a run pinned with `taskset` took 20.69 s, which overstated the speedup of 16 threads.
//! The threads a thread starts inherit its processor mask, so pinning the thread that builds the run's pool
//! pins the pool's worker too.

/// The calling thread pinned to one processor; dropping it gives the thread back the processors it had.
#[derive(Debug)]
pub struct Pinned {
    /// The processor the thread now runs on.
    pub cpu: usize,
    #[cfg(target_os = "linux")]
    before: libc::cpu_set_t,
}

impl Pinned {
    /// Pins the calling thread (and the threads it starts from now on) to the processor it is running on,
    /// among those it may use; `None` where the system does not allow it or has no such call.
    #[cfg(target_os = "linux")]
    pub fn here() -> Option<Pinned> {
        // SAFETY: `cpu_set_t` is plain bits, valid all zero; the calls get the size of the set they are given,
        // and pid 0 is the calling thread.
        unsafe {
            let mut before: libc::cpu_set_t = std::mem::zeroed();
            let size = std::mem::size_of::<libc::cpu_set_t>();
            if libc::sched_getaffinity(0, size, &mut before) != 0 {
                return None;
            }
            let now = libc::sched_getcpu();
            let cpu = if now >= 0 && libc::CPU_ISSET(now as usize, &before) {
                now as usize
            } else {
                (0..libc::CPU_SETSIZE as usize).find(|&c| libc::CPU_ISSET(c, &before))?
            };
            let mut one: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut one);
            if libc::sched_setaffinity(0, size, &one) != 0 {
                return None;
            }
            Some(Pinned { cpu, before })
        }
    }

    /// No pinning outside Linux.
    #[cfg(not(target_os = "linux"))]
    pub fn here() -> Option<Pinned> {
        None
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        // SAFETY: restores the set read by `here`, of its own size, on the calling thread.
        unsafe {
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.before);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn a_pinned_thread_and_the_threads_it_starts_run_on_one_processor() {
        std::thread::spawn(|| {
            let pinned = Pinned::here().expect("Linux lets a thread pin itself");
            let on = |_: ()| unsafe { libc::sched_getcpu() } as usize;
            assert_eq!(on(()), pinned.cpu);
            let child = std::thread::spawn(move || unsafe { libc::sched_getcpu() } as usize);
            assert_eq!(child.join().unwrap(), pinned.cpu);
        })
        .join()
        .unwrap();
    }
}
