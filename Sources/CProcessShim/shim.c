#define _GNU_SOURCE
#include "CProcessShim.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int rtn_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}

int rtn_flush_standard_output(void) {
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) return errno != 0 ? errno : EIO;
    return 0;
}

int rtn_spawn_standard_streams(void *actions, int out_fd, int err_fd) {
    posix_spawn_file_actions_t *a = actions;
    int status = posix_spawn_file_actions_addopen(a, 0, "/dev/null", O_RDONLY, 0);
    if (status == 0) status = posix_spawn_file_actions_adddup2(a, out_fd, 1);
    if (status == 0) status = posix_spawn_file_actions_adddup2(a, err_fd, 2);
    return status;
}

int rtn_spawn_chdir(void *actions, const char *path) {
#if __GLIBC_PREREQ(2, 29)
    return posix_spawn_file_actions_addchdir_np(actions, path);
#else
    (void)actions;
    (void)path;
    return ENOSYS;
#endif
}

int rtn_spawn_close_from(void *actions, int from) {
#if __GLIBC_PREREQ(2, 34)
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
#else
    (void)actions;
    (void)from;
    return ENOSYS;
#endif
}

int rtn_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
