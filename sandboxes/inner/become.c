/* become: the in-sandbox runner's spawn helper (sandboxes/inner/runner.py, Child.spawn_through_helper).
 *
 *   become REPORT_FD UID GID LIMITS CWD PATH ARGV0 [ARG...]
 *   become --check
 *
 * LIMITS is "-" or comma-separated RESOURCE:SOFT:HARD triples (the platform's RLIMIT_* numbers).
 * The runner starts it with posix_spawn (a vfork and an exec, in a session of its own, its standard
 * streams in place, every signal at its default). It marks every descriptor above 2 close-on-exec (the
 * program inherits nothing of the runner's but its three streams), changes to CWD, sets the limits on
 * itself, drops to UID and GID with no supplementary groups (UID and GID "-": stay who we are, for a
 * runner that is not root), puts up the second wall (below), and execs PATH with ARGV0 ARG... and the
 * environment it was given.
 * `--check` puts up the wall, proves it holds, and exits 0 (the runner's start-up test).
 *
 * The second wall: no new privileges, and a seccomp filter that makes the calls a program never needs
 * and the kernel's riskiest code paths fail with EPERM: tracing and reading other processes (ptrace,
 * process_vm_*), keys, bpf, userfaultfd, perf events, io_uring (a long record of kernel flaws; Docker's
 * default profile denies it too, and the runtimes that use it fall back to plain calls), every mount call,
 * kexec, kernel modules, setns, and clone/unshare with CLONE_NEWUSER (a nested user namespace gives every capability inside it). clone3 gets
 * ENOSYS instead, since its flags sit in memory a filter cannot read: the C library then falls back to
 * clone, whose flags it can. Calls of another architecture (int 0x80, x32) get EPERM: their numbers differ.
 * The program sees an error return and carries on; its verdict is whatever it then does
 * (docs/sandboxes.md, "The second wall").
 *
 * Why a helper: CPython forks instead of vforking when Popen itself switches user, and copying the
 * runner's page tables, then faulting its pages back in, cost ~1.5 ms of CPU per program start. Here the
 * runner never changes uid, not even for an instant, so no program can signal or trace it. What the
 * helper does in C (the descriptors, the directory) the runner's Python does not: a start costs the
 * runner one os.posix_spawn call instead of subprocess.Popen's ~0.3 ms of Python. And a process
 * may always lower its own hard limits, so the program gets soft and hard limits even where root lacks
 * CAP_SYS_RESOURCE and cannot prlimit another uid's process (seen in containers).
 *
 * Errors: the errno of a failed step goes to REPORT_FD as decimal text (plus WALL_FAILED when the wall
 * could not go up), then exit 127. REPORT_FD is made close-on-exec first, so the runner reads end-of-file
 * once PATH is running.
 * Built by sandboxes/spawn_helper.py (static where the C library allows it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define WALL_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define WALL_ARCH AUDIT_ARCH_AARCH64
#else
#error "no seccomp architecture for this machine: the sandbox refuses to start without its second wall"
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG0_LOW offsetof(struct seccomp_data, args[0])
#else
#define ARG0_LOW (offsetof(struct seccomp_data, args[0]) + 4)
#endif
#ifndef __NR_clone3
#define __NR_clone3 435 /* the same number on every architecture */
#endif

#define RETURN(value) BPF_STMT(BPF_RET | BPF_K, (value))
#define REFUSE RETURN(SECCOMP_RET_ERRNO | EPERM)
#define LOAD(offset) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (offset))
/* Two instructions per denied call: no jump ever spans more than the next one. */
#define DENY(name) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_##name, 0, 1), REFUSE

static struct sock_filter wall_filter[] = {
    LOAD(offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WALL_ARCH, 1, 0),
    REFUSE,
    LOAD(offsetof(struct seccomp_data, nr)),
#ifdef __x86_64__
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000 /* __X32_SYSCALL_BIT */, 0, 1),
    REFUSE,
#endif
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
    RETURN(SECCOMP_RET_ERRNO | ENOSYS),
    DENY(ptrace), DENY(process_vm_readv), DENY(process_vm_writev),
    DENY(keyctl), DENY(add_key), DENY(request_key),
    DENY(bpf), DENY(userfaultfd), DENY(perf_event_open),
    DENY(io_uring_setup), DENY(io_uring_enter), DENY(io_uring_register),
    DENY(mount), DENY(umount2), DENY(pivot_root),
#ifdef __NR_fsopen
    DENY(open_tree), DENY(move_mount), DENY(fsopen), DENY(fsconfig), DENY(fsmount), DENY(fspick),
#endif
#ifdef __NR_mount_setattr
    DENY(mount_setattr),
#endif
    DENY(kexec_load), DENY(kexec_file_load),
    DENY(init_module), DENY(finit_module), DENY(delete_module),
    DENY(setns),
    /* clone and unshare: refused only with CLONE_NEWUSER among their flags (fork and threads use clone) */
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 1, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 3),
    LOAD(ARG0_LOW),
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 0, 1),
    REFUSE,
    RETURN(SECCOMP_RET_ALLOW),
};

/* Reported as WALL_FAILED + errno when the wall cannot go up: no errno reaches it. */
#define WALL_FAILED 100000

static int parse_number(const char *text, char **end, unsigned long long *value) {
    errno = 0;
    *value = strtoull(text, end, 10);
    return errno == 0 && *end != text;
}

static int parse_id(const char *text, unsigned long long *value) {
    char *end = NULL;
    return parse_number(text, &end, value) && *end == '\0';
}

static void report(int fd, int error) {
    char text[16];
    int length = snprintf(text, sizeof text, "%d", error);
    if (fd >= 0 && length > 0 && write(fd, text, (size_t)length) < 0) {
        /* nothing else to tell: the exit status says it */
    }
    _exit(127);
}

/* "-" or RESOURCE:SOFT:HARD[,...]: 0 when every limit is set, else an errno. */
static int set_limits(const char *spec) {
    if (strcmp(spec, "-") == 0) return 0;
    const char *cursor = spec;
    for (;;) {
        unsigned long long which, soft, hard;
        char *end = NULL;
        if (!parse_number(cursor, &end, &which) || *end != ':') return EINVAL;
        if (!parse_number(end + 1, &end, &soft) || *end != ':') return EINVAL;
        if (!parse_number(end + 1, &end, &hard) || (*end != ',' && *end != '\0')) return EINVAL;
        struct rlimit limit = {.rlim_cur = (rlim_t)soft, .rlim_max = (rlim_t)hard};
        if (setrlimit((int)which, &limit) != 0) return errno;
        if (*end == '\0') return 0;
        cursor = end + 1;
    }
}

/* No new privileges (the filter needs it without CAP_SYS_ADMIN), then the filter: 0, or an errno. */
static int put_up_wall(void) {
    struct sock_fprog program = {.len = sizeof wall_filter / sizeof wall_filter[0], .filter = wall_filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) return errno;
    return 0;
}

/* --check: the wall goes up and holds (a denied call fails as documented, an allowed one works). */
static int check_wall(void) {
    int error = put_up_wall();
    if (error != 0) {
        fprintf(stderr, "become: cannot install the seccomp filter: %s\n", strerror(error));
        return 1;
    }
    errno = 0;
    long keys = syscall(SYS_keyctl, 0, -3, 0);
    int keys_error = errno;
    long unshared = syscall(SYS_unshare, CLONE_NEWUSER);
    int unshare_error = errno;
    if (keys != -1 || keys_error != EPERM || unshared != -1 || unshare_error != EPERM || getpid() <= 0) {
        fputs("become: the seccomp filter is installed but does not hold\n", stderr);
        return 1;
    }
    return 0;
}

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* Every descriptor above the standard streams closes when the program starts: close_range (Linux >= 5.11),
 * else one by one from /proc/self/fd. 0, or an errno. */
static int close_on_exec_above_stdio(void) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return 0;
#endif
    DIR *fds = opendir("/proc/self/fd");
    if (fds == NULL) return errno;
    int own = dirfd(fds);
    struct dirent *entry;
    while ((entry = readdir(fds)) != NULL) {
        char *end = NULL;
        long fd = strtol(entry->d_name, &end, 10);
        if (*end != '\0' || end == entry->d_name || fd < 3 || fd == own) continue;
        if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0) {
            int error = errno;
            closedir(fds);
            return error;
        }
    }
    closedir(fds);
    return 0;
}

/* "-" keeps our own id; anything else must be a number. */
static int parse_optional_id(const char *text, unsigned long long *value, int *given) {
    *given = strcmp(text, "-") != 0;
    return !*given || parse_id(text, value);
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--check") == 0) return check_wall();
    unsigned long long fd, uid = 0, gid = 0;
    int switch_uid = 0, switch_gid = 0;
    if (argc < 8 || !parse_id(argv[1], &fd) || !parse_optional_id(argv[2], &uid, &switch_uid) ||
        !parse_optional_id(argv[3], &gid, &switch_gid) || switch_uid != switch_gid) {
        fputs("usage: become REPORT_FD UID|- GID|- LIMITS CWD PATH ARGV0 [ARG...] | become --check\n", stderr);
        return 127;
    }
    int report_fd = (int)fd;
    if (fcntl(report_fd, F_SETFD, FD_CLOEXEC) != 0) report(-1, errno);
    int error = close_on_exec_above_stdio();
    if (error != 0) report(report_fd, error);
    if (chdir(argv[5]) != 0) report(report_fd, errno);
    error = set_limits(argv[4]);
    if (error != 0) report(report_fd, error);
    if (switch_uid) {
        if (setgroups(0, NULL) != 0 || setgid((gid_t)gid) != 0 || setuid((uid_t)uid) != 0) report(report_fd, errno);
        if (uid != 0 && setuid(0) == 0) report(report_fd, EPERM); /* never keep a way back to root */
    }
    error = put_up_wall();
    if (error != 0) report(report_fd, WALL_FAILED + error); /* ours, not the program's: the runner tells them apart */
    execv(argv[6], argv + 7);
    report(report_fd, errno);
    return 127;
}
