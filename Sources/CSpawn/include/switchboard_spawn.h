#ifndef SWITCHBOARD_SPAWN_H
#define SWITCHBOARD_SPAWN_H

#include <spawn.h>
#include <sys/types.h>

/// One resource limit for a child: `resource` is an RLIMIT_* number; soft and hard are set alike.
typedef struct {
    int resource;
    unsigned long long value;
} sb_spawn_limit;

/// Starts `path` in a fresh child (fork, then execve) with only `input`, `output` and `error` as
/// its descriptors 0, 1 and 2 (every other descriptor is closed before exec, whatever its
/// close-on-exec flag), every signal at its default action and unblocked, in a process group of
/// its own when `own_group` is set, with `limits` set (setrlimit) and the environment `envp`. With
/// a `death_signal` (not 0) the child gets that signal when the thread that called this ends, the
/// process with it (PR_SET_PDEATHSIG; kept across execve, cleared when the child changes its user
/// or group, and for its own children): call it from a thread that outlives the child.
/// Returns 0 and the pid in `pid`, or the errno of the step that failed (fork, setrlimit, execve…).
int sb_spawn(const char *path, char *const argv[], char *const envp[], int input, int output, int error,
             const sb_spawn_limit *limits, int limit_count, int own_group, int death_signal, pid_t *pid);

/// Adds "close every descriptor from `lowest` on" to posix_spawn's file actions
/// (posix_spawn_file_actions_addclosefrom_np, glibc 2.34 and later). Returns 0, or ENOSYS where
/// the C library has no such action.
int sb_spawn_file_actions_closefrom(posix_spawn_file_actions_t *actions, int lowest);

/// The limits a child is given, as sb_spawn_limit's `resource`.
enum { SB_LIMIT_TASKS = 6, SB_LIMIT_MEMORY = 9, SB_LIMIT_FILES = 7, SB_LIMIT_CORE = 4 };

/// This process's limit of `resource` (getrlimit): 0 and the soft and hard values, where
/// `~0ULL` stands for unlimited; -1 (errno) when it cannot be read.
int sb_get_limit(int resource, unsigned long long *soft, unsigned long long *hard);

/// Whether this process may set limits at all: setrlimit of RLIMIT_CORE to its current value
/// (which changes nothing) succeeds. A seccomp filter such as systemd's
/// `SystemCallFilter=~@resources` makes it fail with EPERM.
int sb_can_set_limits(void);

/// pipe2(O_CLOEXEC): a pipe whose ends are closed on exec from the start. Returns 0 or -1 (errno).
int sb_pipe_cloexec(int ends[2]);

/// accept4(SOCK_CLOEXEC | SOCK_NONBLOCK when `nonblocking`): a connection closed on exec from the
/// start. Returns the descriptor or -1 (errno).
int sb_accept_cloexec(int listener, int nonblocking);

#endif
