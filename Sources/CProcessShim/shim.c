#define _GNU_SOURCE
#include "CProcessShim.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int rtn_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}

int rtn_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

static _Atomic unsigned rtn_next_thread_index;
static __thread unsigned rtn_thread_index_plus_one;

unsigned rtn_thread_index(void) {
    unsigned index = rtn_thread_index_plus_one;
    if (index == 0) {
        index = atomic_fetch_add_explicit(&rtn_next_thread_index, 1, memory_order_relaxed) + 1;
        if (index == 0) index = atomic_fetch_add_explicit(&rtn_next_thread_index, 1, memory_order_relaxed) + 1;
        rtn_thread_index_plus_one = index;
    }
    return index - 1;
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

int rtn_renameat_noreplace(int from_dir, const char *from, int to_dir, const char *to) {
    return renameat2(from_dir, from, to_dir, to, RENAME_NOREPLACE);
}

int rtn_become_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
}

int rtn_flock(int fd, int operation) {
    return flock(fd, operation);
}

static volatile sig_atomic_t rtn_stop_value = 0;

static void rtn_stop_handler(int signal) {
    if (signal == SIGALRM) _exit(128 + (rtn_stop_value != 0 ? rtn_stop_value : SIGALRM));
    if (rtn_stop_value != 0) _exit(128 + signal);
    rtn_stop_value = signal;
}

static volatile sig_atomic_t rtn_stop_grace = 0;

static void rtn_stop_handler_with_alarm(int signal) {
    int first = rtn_stop_value == 0 && signal != SIGALRM;
    rtn_stop_handler(signal);
    if (first && rtn_stop_grace > 0) alarm((unsigned)rtn_stop_grace);
}

int rtn_install_stop_handler(unsigned grace_seconds) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = rtn_stop_handler_with_alarm;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0; /* no SA_RESTART: a blocked call returns EINTR */
    rtn_stop_grace = (sig_atomic_t)grace_seconds;
    if (sigaction(SIGINT, &action, NULL) != 0) return -1;
    if (sigaction(SIGTERM, &action, NULL) != 0) return -1;
    if (sigaction(SIGALRM, &action, NULL) != 0) return -1;
    /* A process spawned from a thread that blocks these (libdispatch's workers block them)
       inherits that mask; unblock them here so they reach the handler. */
    sigset_t wanted;
    sigemptyset(&wanted);
    sigaddset(&wanted, SIGINT);
    sigaddset(&wanted, SIGTERM);
    sigaddset(&wanted, SIGALRM);
    return pthread_sigmask(SIG_UNBLOCK, &wanted, NULL) == 0 ? 0 : -1;
}

int rtn_stop_signal(void) {
    return rtn_stop_value;
}

int rtn_affinity_cpu_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}

int rtn_child_has_exited(int pid) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return -1;
    return info.si_pid == pid ? 1 : 0;
}

int rtn_spawn_with_parent_death_signal(int *pid_out, const char *path, char *const argv[], char *const envp[],
                                        int out_fd, int err_fd, const char *directory, int death_signal, int cgroup_procs_fd) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return errno;
    pid_t parent = getpid();
    // Every signal blocked across fork, so the child runs none of our handlers before it has
    // reset them; the parent's mask is restored at once.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        // The child, a copy of a multithreaded process: async-signal-safe calls only (sigaction,
        // setpgid, prctl, getppid, open, dup2, chdir, close, sigprocmask, execve, write, _exit).
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        for (int s = 1; s < NSIG; s++) sigaction(s, &dfl, NULL);
        int devnull;
        if (setpgid(0, 0) != 0) goto fail;
        // Into the soak's own cgroup before exec, so the program and everything it starts is
        // in it from the first instruction ("0" moves the writer).
        if (cgroup_procs_fd >= 0 && write(cgroup_procs_fd, "0", 1) != 1) goto fail;
        if (prctl(PR_SET_PDEATHSIG, (unsigned long)death_signal, 0UL, 0UL, 0UL) != 0) goto fail;
        // The parent died before the request took: exit as the signal would have ended us.
        if (getppid() != parent) _exit(128 + death_signal);
        devnull = open("/dev/null", O_RDONLY);
        if (devnull < 0 || dup2(devnull, 0) < 0) goto fail;
        if (dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) goto fail;
        if (directory != NULL && chdir(directory) != 0) goto fail;
#ifdef SYS_close_range
        // Every descriptor of ours is close-on-exec already; this closes any that is not, but
        // the report pipe's write end, which exec closes.
        if (report[1] > 3) syscall(SYS_close_range, 3U, (unsigned)report[1] - 1, 0U);
        syscall(SYS_close_range, (unsigned)report[1] + 1, ~0U, 0U);
#endif
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(path, argv, envp);
    fail:;
        int error = errno;
        ssize_t written = write(report[1], &error, sizeof error);
        (void)written;
        _exit(127);
    }
    int fork_error = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        return fork_error;
    }
    // The pipe closes on a successful exec (close-on-exec), or carries the errno of the failure.
    int child_error = 0;
    ssize_t n;
    do { n = read(report[0], &child_error, sizeof child_error); } while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == (ssize_t)sizeof child_error) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        return child_error != 0 ? child_error : EIO;
    }
    *pid_out = pid;
    return 0;
}
