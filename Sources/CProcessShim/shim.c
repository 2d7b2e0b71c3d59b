#include "CProcessShim.h"

#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>

int rtn_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}

int rtn_flush_standard_output(void) {
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) return errno != 0 ? errno : EIO;
    return 0;
}
