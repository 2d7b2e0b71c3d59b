// CProcessShim: process-lifetime calls the lab and the tool need and Swift cannot make
// directly.
//
// Why this target exists: `prctl` is a variadic C function, which Swift does not import, and
// Swift 6 refuses to read the C global `stdout` (shared mutable state). Every symbol carries
// the `rtn_` prefix.
#ifndef RTN_C_PROCESS_SHIM_H
#define RTN_C_PROCESS_SHIM_H

/// Asks the kernel to send `signal` to this process when its parent thread exits
/// (`prctl(PR_SET_PDEATHSIG, signal)`). Returns 0, or -1 with errno set.
int rtn_set_parent_death_signal(int signal);

/// Flushes stdio's standard output and reports whether everything written so far reached the
/// file: 0, or the errno of the failure (EIO when the stream's error flag is set without one).
int rtn_flush_standard_output(void);

#endif
