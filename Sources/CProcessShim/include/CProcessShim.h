// CProcessShim: process-lifetime calls the lab and the tool need and Swift cannot make
// directly.
//
// Why this target exists: `prctl` is a variadic C function, which Swift does not import;
// Swift 6 refuses to read the C global `stdout` (shared mutable state); and Swift's Glibc
// module leaves out the GNU calls (`pipe2`, `posix_spawn_file_actions_addchdir_np`, …) that
// need _GNU_SOURCE. Every symbol carries the `rtn_` prefix. Spawn file actions travel as
// `void *` (a `posix_spawn_file_actions_t *`), so Swift sees one type, Glibc's.
#ifndef RTN_C_PROCESS_SHIM_H
#define RTN_C_PROCESS_SHIM_H

/// Asks the kernel to send `signal` to this process when its parent thread exits
/// (`prctl(PR_SET_PDEATHSIG, signal)`). Returns 0, or -1 with errno set.
int rtn_set_parent_death_signal(int signal);

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

#endif
