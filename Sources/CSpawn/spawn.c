#define _GNU_SOURCE
#include "switchboard_spawn.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/// Closes every descriptor from `lowest` to `highest` (inclusive): close_range(2) where the kernel
/// has it (5.9 and later), one close at a time up to the descriptor limit where not.
static void close_between(unsigned int lowest, unsigned int highest) {
    if (lowest > highest) return;
#ifdef SYS_close_range
    if (syscall(SYS_close_range, lowest, highest, 0) == 0) return;
#endif
    struct rlimit limit;
    unsigned long top = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? limit.rlim_cur : 65536;
    if (top > 1048576) top = 1048576;
    if (highest < top) top = highest + 1UL;
    for (unsigned long fd = lowest; fd < top; fd++) close((int)fd);
}

/// The child's side: only async-signal-safe calls between fork and exec.
static void become_child(const char *path, char *const argv[], char *const envp[], int input, int output, int error,
                         const sb_spawn_limit *limits, int limit_count, int own_group, int death_signal, pid_t parent,
                         int report) {
    int failure;
    // The report pipe above 2, out of the way of the three ends.
    int moved = fcntl(report, F_DUPFD_CLOEXEC, 3);
    if (moved < 0) goto failed;
    report = moved;
    // Every signal at its default action before any is unblocked: no handler of the parent's
    // may run here.
    for (int number = 1; number < NSIG; number++) {
        if (number == SIGKILL || number == SIGSTOP) continue;
        struct sigaction action = {0};
        action.sa_handler = SIG_DFL;
        sigemptyset(&action.sa_mask);
        sigaction(number, &action, 0);
    }
    if (own_group && setpgid(0, 0) != 0) goto failed;
    if (death_signal) {
        if (prctl(PR_SET_PDEATHSIG, (unsigned long)death_signal) != 0) goto failed;
        // A parent that ended before the setting took effect sends nothing: end as it would have.
        if (getppid() != parent) _exit(127);
    }
    // The three ends first out of the way of 0, 1 and 2 (a daemon started with a closed standard
    // input may have got a pipe end as 0), then into place; dup2 clears close-on-exec.
    int ends[3] = {input, output, error};
    for (int index = 0; index < 3; index++) {
        ends[index] = fcntl(ends[index], F_DUPFD_CLOEXEC, 3);
        if (ends[index] < 0) goto failed;
    }
    for (int index = 0; index < 3; index++) {
        if (dup2(ends[index], index) < 0) goto failed;
    }
    // Nothing else goes with it: every descriptor above 2 but the (close-on-exec) report pipe.
    close_between(3, (unsigned int)report - 1);
    close_between((unsigned int)report + 1, ~0U);
    for (int index = 0; index < limit_count; index++) {
        rlim_t value = limits[index].value == ~0ULL ? RLIM_INFINITY : (rlim_t)limits[index].value;
        struct rlimit limit = {value, value};
        if (setrlimit(limits[index].resource, &limit) != 0) goto failed;
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, 0);
    execve(path, argv, envp);
failed:
    failure = errno;
    while (write(report, &failure, sizeof failure) < 0 && errno == EINTR) {}
    _exit(127);
}

int sb_spawn(const char *path, char *const argv[], char *const envp[], int input, int output, int error,
             const sb_spawn_limit *limits, int limit_count, int own_group, int death_signal, pid_t *pid) {
    int report[2];
    pid_t parent = getpid();
    if (pipe2(report, O_CLOEXEC) != 0) return errno;
    // Signals stay blocked across fork, so that none reaches a handler in the child before the
    // child has reset them all.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t child = fork();
    if (child == 0) become_child(path, argv, envp, input, output, error, limits, limit_count, own_group, death_signal, parent, report[1]);
    int forkError = errno;
    pthread_sigmask(SIG_SETMASK, &previous, 0);
    close(report[1]);
    if (child < 0) {
        close(report[0]);
        return forkError;
    }
    // Also from here: a signal to the group right after this returns reaches the child.
    if (own_group) setpgid(child, child);
    int failure = 0;
    ssize_t count;
    do { count = read(report[0], &failure, sizeof failure); } while (count < 0 && errno == EINTR);
    close(report[0]);
    if (count == (ssize_t)sizeof failure) {
        while (waitpid(child, 0, 0) < 0 && errno == EINTR) {}
        return failure ? failure : ECHILD;
    }
    *pid = child;
    return 0;
}

int sb_spawn_file_actions_closefrom(posix_spawn_file_actions_t *actions, int lowest) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
#else
    (void)actions;
    (void)lowest;
    return ENOSYS;
#endif
}

int sb_can_set_limits(void) {
    struct rlimit limit;
    return getrlimit(RLIMIT_CORE, &limit) == 0 && setrlimit(RLIMIT_CORE, &limit) == 0;
}

int sb_pipe_cloexec(int ends[2]) { return pipe2(ends, O_CLOEXEC); }

int sb_accept_cloexec(int listener, int nonblocking) {
    return accept4(listener, 0, 0, SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0));
}

_Static_assert(SB_LIMIT_TASKS == RLIMIT_NPROC && SB_LIMIT_MEMORY == RLIMIT_AS && SB_LIMIT_FILES == RLIMIT_NOFILE
               && SB_LIMIT_CORE == RLIMIT_CORE, "the limits' numbers are this system's RLIMIT_* numbers");

int sb_get_limit(int resource, unsigned long long *soft, unsigned long long *hard) {
    struct rlimit limit;
    if (getrlimit(resource, &limit) != 0) return -1;
    *soft = limit.rlim_cur == RLIM_INFINITY ? ~0ULL : (unsigned long long)limit.rlim_cur;
    *hard = limit.rlim_max == RLIM_INFINITY ? ~0ULL : (unsigned long long)limit.rlim_max;
    return 0;
}
