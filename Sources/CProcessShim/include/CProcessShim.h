// CProcessShim: process-lifetime calls the lab needs and Swift cannot import directly.
//
// Why this target exists: `prctl` is a variadic C function, and Swift does not import
// variadic functions. Every symbol carries the `rtn_` prefix.
#ifndef RTN_C_PROCESS_SHIM_H
#define RTN_C_PROCESS_SHIM_H

/// Asks the kernel to send `signal` to this process when its parent thread exits
/// (`prctl(PR_SET_PDEATHSIG, signal)`). Returns 0, or -1 with errno set.
int rtn_set_parent_death_signal(int signal);

#endif
