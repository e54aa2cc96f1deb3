/* Every family of system calls the second wall denies, tried once each: the errno each returns, one line
 * per call. Calls that succeed on an unwalled sandbox come last where they change the process (a new user
 * namespace, a tracer), so every line still prints. Normal process and thread creation must keep working. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#define X32_SYSCALL_BIT 0x40000000L

static const char *outcome(long ret, int error) {
    if (ret >= 0) return "allowed";
    switch (error) {
        case EPERM: return "EPERM";
        case ENOSYS: return "ENOSYS";
        case EACCES: return "EACCES";
        case EINVAL: return "EINVAL";
        case EBADF: return "EBADF";
        case EFAULT: return "EFAULT";
        case ENOENT: return "ENOENT";
        case ENOKEY: return "ENOKEY";
        default: return strerror(error);
    }
}

static void show(const char *call, long ret) {
    printf("%s %s\n", call, outcome(ret, errno));
    fflush(stdout);
}

/* A child made by a raw clone or clone3 leaves at once; the parent reaps it. */
static long reaped(long pid) {
    if (pid == 0) syscall(SYS_exit, 0);
    if (pid > 0) waitpid((pid_t)pid, NULL, 0);
    return pid;
}

static void *nothing(void *arg) { return arg; }

int main(void) {
    char buffer[64] = "surge";
    show("keyctl", syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* session */, 0));
    show("add_key", syscall(SYS_add_key, "user", "surge", "x", 1, -2 /* process keyring */));
    show("request_key", syscall(SYS_request_key, "user", "surge-none", NULL, 0));
    char attr[128] = {0};
    show("bpf", syscall(SYS_bpf, 0 /* BPF_MAP_CREATE */, attr, sizeof attr));
    show("userfaultfd", syscall(SYS_userfaultfd, 1 /* UFFD_USER_MODE_ONLY */));
    struct perf_event_attr event = {.type = PERF_TYPE_SOFTWARE, .size = sizeof event,
                                    .config = PERF_COUNT_SW_TASK_CLOCK, .exclude_kernel = 1, .exclude_hv = 1};
    show("perf_event_open", syscall(SYS_perf_event_open, &event, 0, -1, -1, 0));
    char ring_params[120] = {0}; /* struct io_uring_params: a ring of 4 entries would be made unwalled */
    show("io_uring_setup", syscall(SYS_io_uring_setup, 4, ring_params));
    show("io_uring_enter", syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0));
    show("io_uring_register", syscall(SYS_io_uring_register, -1, 0, NULL, 0));
    char copy[64];
    struct iovec local = {copy, sizeof copy}, remote = {buffer, sizeof buffer};
    show("process_vm_readv", syscall(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 0));
    show("mount", syscall(SYS_mount, "none", "/app", "tmpfs", 0, NULL));
    show("umount2", syscall(SYS_umount2, "/app", 0));
    show("pivot_root", syscall(SYS_pivot_root, ".", "."));
    show("fsopen", syscall(SYS_fsopen, "tmpfs", 0));
    show("kexec_load", syscall(SYS_kexec_load, 0, 0, NULL, 0));
    show("kexec_file_load", syscall(SYS_kexec_file_load, -1, -1, 0, "", 0));
    show("init_module", syscall(SYS_init_module, buffer, 0, ""));
    show("finit_module", syscall(SYS_finit_module, -1, "", 0));
    show("delete_module", syscall(SYS_delete_module, "surge", 0));
    show("setns", syscall(SYS_setns, -1, CLONE_NEWUSER));
    uint64_t clone_args[8] = {CLONE_NEWUSER, 0, 0, 0, SIGCHLD, 0, 0, 0};
    show("clone3 newuser", reaped(syscall(SYS_clone3, clone_args, sizeof clone_args)));
    show("clone newuser", reaped(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)));
    show("x32 getpid", syscall(X32_SYSCALL_BIT | SYS_getpid));
    pid_t child = fork();
    if (child == 0) _exit(0);
    show("fork", reaped(child));
    pthread_t thread;
    errno = pthread_create(&thread, NULL, nothing, NULL);
    show("thread", errno == 0 && pthread_join(thread, NULL) == 0 ? 0 : -1);
    show("unshare newuser", syscall(SYS_unshare, CLONE_NEWUSER));
    show("ptrace traceme", syscall(SYS_ptrace, PTRACE_TRACEME, 0, NULL, NULL));
    return 0;
}
