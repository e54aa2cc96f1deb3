/* Reach for the runner that supervises us, and for every other process we can see: trace it (attach and
 * seize), read its memory, signal it. Each must be refused, and the run must end with our own verdict. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *outcome(long ret) {
    if (ret >= 0) return "allowed";
    switch (errno) {
        case EPERM: return "EPERM";
        case EACCES: return "EACCES";
        case ESRCH: return "ESRCH";
        default: return strerror(errno);
    }
}

/* 1 when some way of tracing `pid` worked; it is let go again at once. */
static int traced(pid_t pid, const char **how) {
    long attached = syscall(SYS_ptrace, PTRACE_ATTACH, pid, NULL, NULL);
    *how = outcome(attached);
    if (attached == 0) {
        waitpid(pid, NULL, __WALL);
        syscall(SYS_ptrace, PTRACE_DETACH, pid, NULL, NULL);
        return 1;
    }
    long seized = syscall(SYS_ptrace, PTRACE_SEIZE, pid, NULL, NULL);
    if (seized == 0) syscall(SYS_ptrace, PTRACE_DETACH, pid, NULL, NULL);
    return seized == 0;
}

int main(void) {
    pid_t parent = getppid();
    const char *how;
    traced(parent, &how);
    printf("attach parent %s\n", how);
    printf("seize parent %s\n", outcome(syscall(SYS_ptrace, PTRACE_SEIZE, parent, NULL, NULL)));
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", (int)parent);
    int mem = open(path, O_RDWR);
    printf("open parent memory %s\n", outcome(mem));
    printf("signal parent %s\n", outcome(kill(parent, 0)));
    int seen = 0, reached = 0;
    DIR *proc = opendir("/proc");
    for (struct dirent *entry; proc && (entry = readdir(proc)) != NULL;) {
        pid_t pid = (pid_t)atoi(entry->d_name);
        if (pid <= 0 || pid == getpid()) continue;
        seen++;
        reached += traced(pid, &how);
    }
    printf("others seen %s, traced %d\n", seen > 0 ? "some" : "none", reached);
    return 0;
}
