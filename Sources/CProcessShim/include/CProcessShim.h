// CProcessShim: the system calls SystemIO needs and Swift cannot make directly.
//
// Why this target exists: `prctl` is a variadic C function, which Swift does not import;
// Swift 6 refuses to read the C global `stdout` (shared mutable state); Swift's Glibc module
// leaves out the GNU calls (`pipe2`, `posix_spawn_file_actions_addchdir_np`, …) that need
// _GNU_SOURCE; `flock` shares its name with a struct, which hides the function from Swift; a
// signal handler must be C to be async-signal-safe; and `CPU_COUNT` is a macro. Every symbol carries the `rtn_` prefix. Spawn file actions travel as
// `void *` (a `posix_spawn_file_actions_t *`), so Swift sees one type, Glibc's.
#ifndef RTN_C_PROCESS_SHIM_H
#define RTN_C_PROCESS_SHIM_H

/// Asks the kernel to send `signal` to this process when its parent thread exits
/// (`prctl(PR_SET_PDEATHSIG, signal)`). Returns 0, or -1 with errno set.
int rtn_set_parent_death_signal(int signal);

/// Names the calling thread (`prctl(PR_SET_NAME, name)`: the first 15 bytes, as `top -H` shows
/// them). Returns 0, or -1 with errno set.
int rtn_set_thread_name(const char *name);

/// A small number for the calling thread, the same for its whole life: threads are numbered
/// 0, 1, 2, … in the order they first ask (a `__thread` variable Swift cannot declare). For
/// per-thread slots of shared state, such as a readers' lock whose readers write only their
/// own slot. One thread-local read after the first call.
unsigned rtn_thread_index(void);

/// Flushes stdio's standard output and reports whether everything written so far reached the
/// file: 0, or the errno of the failure (EIO when the stream's error flag is set without one).
int rtn_flush_standard_output(void);

/// Sets a child's standard streams in the spawn file actions `actions`: standard input from
/// /dev/null, standard output onto `out_fd` and standard error onto `err_fd` (pipes' write
/// ends). Returns 0, or the errno of the first action that could not be added. O(1).
int rtn_spawn_standard_streams(void *actions, int out_fd, int err_fd);

/// Adds "start in `path`" to the spawn file actions `actions`
/// (`posix_spawn_file_actions_addchdir_np`, glibc 2.29+). Returns 0 or an errno (ENOSYS on an
/// older glibc). O(1).
int rtn_spawn_chdir(void *actions, const char *path);

/// Adds "close every descriptor from `from` up" to the spawn file actions `actions`
/// (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34+). Returns 0 or an errno (ENOSYS
/// on an older glibc). O(1).
int rtn_spawn_close_from(void *actions, int from);

/// `pipe2(fds, O_CLOEXEC)`: a pipe that no child spawned by another thread inherits. Returns
/// 0, or -1 with errno set. O(1).
int rtn_pipe_cloexec(int fds[2]);

/// `renameat2(from_dir, from, to_dir, to, RENAME_NOREPLACE)`: renames only when `to` does not
/// exist (`EEXIST` otherwise), in one step; what places a file on a file system without hard
/// links (vfat, exFAT, SMB). Returns 0, or -1 with errno set (`EINVAL` or `ENOSYS` where the
/// file system or kernel lacks the flag). O(1).
int rtn_renameat_noreplace(int from_dir, const char *from, int to_dir, const char *to);

/// `prctl(PR_SET_CHILD_SUBREAPER, 1)`: orphans of this process's descendants (a daemon that
/// detached with `setsid` and whose parent exited) become this process's children instead of
/// init's, so they stay in reach. Returns 0, or -1 with errno set. O(1).
int rtn_become_child_subreaper(void);

/// Installs the stop handler for SIGINT and SIGTERM (without SA_RESTART, so a call blocked in
/// the kernel returns EINTR on the thread that takes the signal). The first signal is recorded
/// (`rtn_stop_signal` returns it) and, when `grace_seconds` > 0, arms `alarm(grace_seconds)`;
/// a second SIGINT or SIGTERM, or the alarm, ends the process at once with `_exit(128 + the
/// first signal)`. So work that checks the flag stops cleanly, and work blocked where no check
/// runs (a write to a FIFO nobody reads) still ends promptly. Returns 0, or -1 with errno set.
int rtn_install_stop_handler(unsigned grace_seconds);

/// The first SIGINT or SIGTERM the stop handler received, or 0. Async-signal-safe. O(1).
int rtn_stop_signal(void);

/// The CPUs this thread may run on (`sched_getaffinity` and `CPU_COUNT`), or 0 when it
/// cannot be read. O(CPUs).
int rtn_affinity_cpu_count(void);

/// 1 when the child `pid` has exited (left as a zombie: `waitid` with `WNOWAIT`), 0 when it
/// runs, -1 with errno set on failure. `si_pid` is a macro over a union, which Swift cannot
/// read. O(1).
int rtn_child_has_exited(int pid);

/// `flock(fd, operation)`. Returns 0, or -1 with errno set. O(1).
int rtn_flock(int fd, int operation);

/// Starts `path` (argv, envp) as posix_spawn does for ChildProcess (its own process group,
/// standard input from /dev/null, standard output and error onto `out_fd` and `err_fd`, every
/// signal at its default action and none blocked, in `directory` unless NULL), and asks the
/// kernel to send it `death_signal` when the calling thread exits (`PR_SET_PDEATHSIG`, which
/// posix_spawn cannot set): fork, then only async-signal-safe calls before execve. An exec that
/// fails reports its errno back through a close-on-exec pipe, and the child is reaped. Returns 0
/// with the pid in `pid_out`, or an errno. With `cgroup_procs_fd` (an open `cgroup.procs` of a
/// cgroup v2, or -1) the child moves itself into that cgroup before exec. Costs a fork
/// (copy-on-write) and a pipe.
int rtn_spawn_with_parent_death_signal(int *pid_out, const char *path, char *const argv[], char *const envp[],
                                        int out_fd, int err_fd, const char *directory, int death_signal, int cgroup_procs_fd);

#endif
