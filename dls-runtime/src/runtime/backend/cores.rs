//! The cores a process's worker threads run on. A launcher or `taskset` can bind a process to
//! fewer cores than it has worker threads (Open MPI binds each rank to one core when it starts
//! two ranks or fewer; `srun` without `--cpus-per-task` gives a task one core): the threads then
//! take turns on those cores, and the loop runs at the speed of fewer threads. The runtime says
//! so at start ([`bound_warning`]) instead of running slowly in silence. `DLS_PIN=cores` pins
//! each pool thread to one core of the process's mask ([`pin_this_thread`]), as OpenMP's
//! `OMP_PROC_BIND=true` does.

/// The CPUs this process may run on (its affinity mask, in increasing order): `None` where the
/// mask cannot be read (not Linux).
pub(crate) fn own_cpus() -> Option<Vec<usize>> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a zeroed cpu_set_t is the empty set; sched_getaffinity(0, …) fills it for the
        // calling thread (the thread that starts the runtime, whose mask new threads inherit),
        // within the size passed; CPU_ISSET reads it for indices below CPU_SETSIZE.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
                return None;
            }
            let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| libc::CPU_ISSET(c, &set))
                .collect();
            (!cpus.is_empty()).then_some(cpus)
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// The CPUs online on this machine (`None` where unknown).
fn online_cpus() -> Option<usize> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf has no preconditions.
        let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
        (n > 0).then_some(n as usize)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The warning for `threads` worker threads on a process that may run on `mask` cores of the
/// machine's `online`, or `None` when each thread has a core. `who` names the process (`this
/// process`, `rank 0`). A process that is not bound (its mask holds every online core) and has
/// more threads than cores asked for them (`DLS_THREADS` above the core count): nothing is said
/// unless `launched`, where the ranks on a node share it and the count is a launcher's binding
/// more often than a choice.
pub(crate) fn bound_warning(
    threads: usize,
    mask: usize,
    online: usize,
    launched: bool,
    who: &str,
) -> Option<String> {
    if threads <= mask || (!launched && mask >= online) {
        return None;
    }
    let cores = if mask == 1 { "core" } else { "cores" };
    Some(format!(
        "dls: warning: {threads} worker threads (DLS_THREADS or dls::init_with_threads), but \
         {who} may run on {mask} {cores} of this machine's {online} (its CPU affinity: a \
         launcher's binding, taskset or cpusets), so its threads take turns on them; give it \
         {threads} cores: `mpirun --bind-to none` or `mpirun --map-by ppr:1:node:PE={threads}` \
         (Open MPI), `srun --cpus-per-task={threads}` (Slurm), `taskset -c 0-{last}`; or set \
         DLS_THREADS={mask}",
        last = threads - 1,
    ))
}

/// Says [`bound_warning`] for this process on stderr, once per process.
pub(crate) fn warn_if_bound(threads: usize, launched: bool, who: &str) {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let Some(mask) = own_cpus().map(|c| c.len()) else {
        return;
    };
    let online = online_cpus().unwrap_or(mask);
    if let Some(line) = bound_warning(threads, mask, online, launched, who) {
        if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
            crate::runtime::loops::panic_ctx::say_line(&line);
        }
    }
}

/// Pins the calling thread to core `cpus[slot % cpus.len()]` (`DLS_PIN=cores`: pool thread
/// `slot` of a process whose mask is `cpus`). A failure leaves the thread where it was.
pub(crate) fn pin_this_thread(cpus: &[usize], slot: usize) {
    #[cfg(target_os = "linux")]
    if let Some(&cpu) = cpus.get(slot % cpus.len().max(1)) {
        if cpu < libc::CPU_SETSIZE as usize {
            // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET writes within it (cpu below
            // CPU_SETSIZE, checked); sched_setaffinity(0, …) applies to the calling thread.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu, &mut set);
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (cpus, slot);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_process_is_warned_with_the_flags_that_fix_it() {
        let w = bound_warning(2, 1, 16, false, "this process").unwrap();
        for part in [
            "2 worker threads",
            "this process may run on 1 core of this machine's 16",
            "--bind-to none",
            "--map-by ppr:1:node:PE=2",
            "srun --cpus-per-task=2",
            "taskset -c 0-1",
            "DLS_THREADS=1",
        ] {
            assert!(w.contains(part), "{part:?} missing from {w}");
        }
        // Each thread has a core.
        assert_eq!(bound_warning(2, 2, 16, false, "this process"), None);
        // Not bound, more threads than the machine has: the user's choice, said only under a
        // launcher.
        assert_eq!(bound_warning(8, 2, 2, false, "this process"), None);
        assert!(bound_warning(8, 2, 2, true, "rank 0").is_some());
    }

    #[test]
    fn this_process_has_cpus_and_a_thread_can_be_pinned() {
        let Some(cpus) = own_cpus() else { return };
        assert!(!cpus.is_empty() && cpus.windows(2).all(|w| w[0] < w[1]));
        let last = *cpus.last().unwrap();
        std::thread::spawn(move || {
            pin_this_thread(&[last], 0);
            assert_eq!(own_cpus(), Some(vec![last]));
        })
        .join()
        .unwrap();
    }
}
