/* become: the in-sandbox runner's spawn helper (sandboxes/inner/runner.py, Child.spawn_fast).
 *
 *   become REPORT_FD UID GID LIMITS PATH ARGV0 [ARG...]
 *
 * LIMITS is "-" or comma-separated RESOURCE:SOFT:HARD triples (the platform's RLIMIT_* numbers).
 * The runner (root) starts it with vfork+exec. It sets the limits on itself, drops to UID and GID with no
 * supplementary groups, and execs PATH with ARGV0 ARG... and the environment it was given.
 *
 * Why a helper: CPython forks instead of vforking when Popen itself switches user, and copying the
 * runner's page tables, then faulting its pages back in, cost ~1.5 ms of CPU per program start. Here the
 * runner never changes uid, not even for an instant, so no program can signal or trace it. And a process
 * may always lower its own hard limits, so the program gets soft and hard limits even where root lacks
 * CAP_SYS_RESOURCE and cannot prlimit another uid's process (seen in containers).
 *
 * Errors: the errno of a failed step goes to REPORT_FD as decimal text, then exit 127. REPORT_FD is made
 * close-on-exec first, so the runner reads end-of-file once PATH is running.
 * Built by sandboxes/spawn_helper.py (static where the C library allows it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

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

int main(int argc, char **argv) {
    unsigned long long fd, uid, gid;
    if (argc < 7 || !parse_id(argv[1], &fd) || !parse_id(argv[2], &uid) || !parse_id(argv[3], &gid)) {
        fputs("usage: become REPORT_FD UID GID LIMITS PATH ARGV0 [ARG...]\n", stderr);
        return 127;
    }
    int report_fd = (int)fd;
    if (fcntl(report_fd, F_SETFD, FD_CLOEXEC) != 0) report(-1, errno);
    int error = set_limits(argv[4]);
    if (error != 0) report(report_fd, error);
    if (setgroups(0, NULL) != 0 || setgid((gid_t)gid) != 0 || setuid((uid_t)uid) != 0) report(report_fd, errno);
    if (uid != 0 && setuid(0) == 0) report(report_fd, EPERM); /* never keep a way back to root */
    execv(argv[5], argv + 6);
    report(report_fd, errno);
    return 127;
}
