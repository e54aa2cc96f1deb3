/* become: the in-sandbox runner's spawn helper (sandboxes/inner/runner.py, Child.spawn_through_helper).
 *
 *   become --wall PATH ARGV0 [ARG...]
 *   become REPORT_FD UID GID LIMITS CWD PATH ARGV0 [ARG...]
 *   become --check
 *
 * `--wall` puts up the second wall (below), proves it holds, and execs PATH with ARGV0 ARG... and the
 * environment it was given: every runner starts this way, so the runner and everything it starts (each
 * program and compiler, each warm compiler's server, and all they start) are behind the wall, which
 * nothing can remove. The filter is put up once per runner and inherited, never once per program:
 * installing it (the kernel checks, compiles and caches it) cost ~125 us of CPU per program start.
 *
 * The second form starts one program. LIMITS is "-" or comma-separated RESOURCE:SOFT:HARD triples (the
 * platform's RLIMIT_* numbers). The runner starts it with posix_spawn (a vfork and an exec, in a session
 * of its own, its standard streams in place, every signal at its default). It marks every descriptor
 * above 2 close-on-exec (the program inherits nothing of the runner's but its three streams), changes to
 * CWD, sets the limits on itself, drops to UID and GID with no supplementary groups (UID and GID "-": stay
 * who we are, for a runner that is not root), and execs PATH with ARGV0 ARG... and the environment it
 * was given, behind the wall it inherited from the runner.
 *
 * `--check` puts up the wall, proves it holds, and exits 0 (`surge doctor`, and the runner's start-up
 * test of this helper).
 *
 * The second wall: no new privileges, and a seccomp filter that makes the calls a program never needs
 * and the kernel's riskiest code paths fail with EPERM: tracing and reading other processes (ptrace,
 * process_vm_*), keys, bpf, userfaultfd, perf events, io_uring (a long record of kernel flaws; Docker's
 * default profile denies it too, and the runtimes that use it fall back to plain calls), every mount call,
 * kexec, kernel modules, setns, and clone/unshare with CLONE_NEWUSER (a nested user namespace gives every capability inside it). clone3 gets
 * ENOSYS instead, since its flags sit in memory a filter cannot read: the C library then falls back to
 * clone, whose flags it can. Calls of another architecture (int 0x80, x32) get EPERM: their numbers differ.
 * The program sees an error return and carries on; its verdict is whatever it then does
 * (docs/sandboxes.md, "The second wall"). The runner needs none of these calls.
 *
 * Why a helper: CPython forks instead of vforking when Popen itself switches user, and copying the
 * runner's page tables, then faulting its pages back in, cost ~1.5 ms of CPU per program start. Here the
 * runner never changes uid, not even for an instant, so no program can signal or trace it. What the
 * helper does in C (the descriptors, the directory) the runner's Python does not: a start costs the
 * runner one os.posix_spawn call instead of subprocess.Popen's ~0.3 ms of Python.
 *
 * Why no C library: it is linked with none (-nostdlib; system calls are made here, by the two
 * architectures' own instructions). A static glibc starts by probing the CPU (cpuid, which traps to the
 * hypervisor in a virtual machine), applying its relocations and setting up thread-local storage: measured
 * here, ~230 us of CPU for every program start before the helper did anything, against ~35 us for this
 * build's whole exec. Nothing of the C library is needed: the helper only parses numbers and makes calls.
 *
 * Errors: the errno of a failed step goes to REPORT_FD as decimal text, then exit 127. REPORT_FD is made
 * close-on-exec first, so the runner reads end-of-file once PATH is running. `--wall` says on stderr
 * why the wall did not go up or does not hold, and exits 1.
 * Built by sandboxes/spawn_helper.py, static and freestanding.
 */
#include <asm/unistd.h>
#include <linux/audit.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/filter.h>
#include <linux/prctl.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stddef.h>

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
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* -- system calls: the architecture's instruction, a negative errno on failure ---------------------- */

#if defined(__x86_64__)
static long sys6(long number, long a, long b, long c, long d, long e, long f) {
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long result;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return result;
}
/* The kernel enters with the stack pointer at argc; the C entry gets it in its first argument. */
__asm__(".text\n.globl _start\n.type _start,@function\n_start:\n"
        "  xor %rbp, %rbp\n  mov %rsp, %rdi\n  and $-16, %rsp\n  call become_start\n  hlt\n");
#elif defined(__aarch64__)
static long sys6(long number, long a, long b, long c, long d, long e, long f) {
    register long x8 __asm__("x8") = number;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    register long x5 __asm__("x5") = f;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
    return x0;
}
__asm__(".text\n.globl _start\n.type _start,%function\n_start:\n"
        "  mov x29, #0\n  mov x30, #0\n  mov x0, sp\n  bl become_start\n  brk #0\n");
#endif

#define SYS(number, a, b, c) sys6((number), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define FAILED(result) ((unsigned long)(result) > -4096UL)

/* The compiler may emit calls to these for a struct's initialisation; nothing else provides them. */
void *memset(void *to, int value, size_t size) {
    unsigned char *bytes = to;
    while (size--) *bytes++ = (unsigned char)value;
    return to;
}
void *memcpy(void *to, const void *from, size_t size) {
    unsigned char *bytes = to;
    const unsigned char *source = from;
    while (size--) *bytes++ = *source++;
    return to;
}

static __attribute__((noreturn)) void leave(int status) {
    for (;;) SYS(__NR_exit_group, status, 0, 0);
}

static size_t length(const char *text) {
    size_t size = 0;
    while (text[size] != '\0') size++;
    return size;
}

static void say(const char *text) {
    SYS(__NR_write, 2, text, length(text));
}

static int same(const char *a, const char *b) {
    while (*a != '\0' && *a == *b) a++, b++;
    return *a == *b;
}

/* -- the wall --------------------------------------------------------------------------------------- */

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

/* No new privileges (the filter needs it without CAP_SYS_ADMIN), then the filter: 0, or an errno. */
static long put_up_wall(void) {
    struct sock_fprog program = {.len = sizeof wall_filter / sizeof wall_filter[0], .filter = wall_filter};
    long done = SYS(__NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0);
    if (FAILED(done)) return -done;
    done = SYS(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program);
    return FAILED(done) ? -done : 0;
}

/* The wall goes up and holds (a denied call fails as documented, an allowed one works): 0, else 1 with
 * the reason on stderr. */
static int wall_up(void) {
    if (put_up_wall() != 0) {
        say("become: cannot install the seccomp filter\n");
        return 1;
    }
    long keys = SYS(__NR_keyctl, 0, -3, 0);
    long unshared = SYS(__NR_unshare, CLONE_NEWUSER, 0, 0);
    if (keys != -EPERM || unshared != -EPERM || SYS(__NR_getpid, 0, 0, 0) <= 0) {
        say("become: the seccomp filter is installed but does not hold\n");
        return 1;
    }
    return 0;
}

/* -- the steps before the program ------------------------------------------------------------------- */

/* A decimal number up to its first non-digit (*end): 1, or 0 when there is none or it overflows. */
static int parse_number(const char *text, const char **end, unsigned long long *value) {
    unsigned long long number = 0;
    const char *cursor = text;
    for (; *cursor >= '0' && *cursor <= '9'; cursor++) {
        unsigned digit = (unsigned)(*cursor - '0');
        if (number > (~0ULL - digit) / 10) return 0;
        number = number * 10 + digit;
    }
    *end = cursor;
    *value = number;
    return cursor != text;
}

static int parse_id(const char *text, unsigned long long *value) {
    const char *end = NULL;
    return parse_number(text, &end, value) && *end == '\0';
}

/* "-" keeps our own id; anything else must be a number. */
static int parse_optional_id(const char *text, unsigned long long *value, int *given) {
    *given = !same(text, "-");
    return !*given || parse_id(text, value);
}

static __attribute__((noreturn)) void report(int fd, long error) {
    char text[24];
    int at = sizeof text;
    unsigned long number = (unsigned long)error;
    do text[--at] = (char)('0' + number % 10); while ((number /= 10) != 0);
    if (fd >= 0) SYS(__NR_write, fd, text + at, sizeof text - at);
    leave(127);
}

struct limit64 {
    unsigned long long soft, hard;
};

/* "-" or RESOURCE:SOFT:HARD[,...]: 0 when every limit is set, else an errno. */
static long set_limits(const char *spec) {
    if (same(spec, "-")) return 0;
    const char *cursor = spec;
    for (;;) {
        unsigned long long which;
        struct limit64 limit;
        const char *end = NULL;
        if (!parse_number(cursor, &end, &which) || *end != ':') return EINVAL;
        if (!parse_number(end + 1, &end, &limit.soft) || *end != ':') return EINVAL;
        if (!parse_number(end + 1, &end, &limit.hard) || (*end != ',' && *end != '\0')) return EINVAL;
        long done = sys6(__NR_prlimit64, 0, (long)which, (long)&limit, 0, 0, 0);
        if (FAILED(done)) return -done;
        if (*end == '\0') return 0;
        cursor = end + 1;
    }
}

struct directory_entry64 {
    unsigned long long inode;
    long long offset;
    unsigned short size;
    unsigned char type;
    char name[];
};

/* Every descriptor above the standard streams closes when the program starts: close_range (Linux >= 5.11),
 * else one by one from /proc/self/fd. 0, or an errno. */
static long close_on_exec_above_stdio(void) {
    if (!FAILED(SYS(__NR_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC))) return 0;
    long listing = sys6(__NR_openat, AT_FDCWD, (long)"/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
    if (FAILED(listing)) return -listing;
    char buffer[4096] __attribute__((aligned(8)));
    for (;;) {
        long size = SYS(__NR_getdents64, listing, buffer, sizeof buffer);
        if (size == 0) break;
        if (FAILED(size)) return -size;
        for (long at = 0; at < size;) {
            struct directory_entry64 *entry = (struct directory_entry64 *)(buffer + at);
            const char *end = NULL;
            unsigned long long fd;
            if (parse_number(entry->name, &end, &fd) && *end == '\0' && fd >= 3 && (long)fd != listing) {
                long done = SYS(__NR_fcntl, fd, F_SETFD, FD_CLOEXEC);
                if (FAILED(done)) return -done;
            }
            at += entry->size;
        }
    }
    SYS(__NR_close, listing, 0, 0);
    return 0;
}

/* --wall: the runner starts behind the wall, or not at all. */
static int start_behind_wall(char **argv, char **envp) {
    if (wall_up() != 0) return 1;
    long done = SYS(__NR_execve, argv[0], argv + 1, envp);
    say("become: cannot execute the runner\n");
    return FAILED(done) ? 1 : 0;
}

static int become(int argc, char **argv, char **envp) {
    if (argc == 2 && same(argv[1], "--check")) return wall_up();
    if (argc >= 4 && same(argv[1], "--wall")) return start_behind_wall(argv + 2, envp);
    unsigned long long fd, uid = 0, gid = 0;
    int switch_uid = 0, switch_gid = 0;
    if (argc < 8 || !parse_id(argv[1], &fd) || !parse_optional_id(argv[2], &uid, &switch_uid) ||
        !parse_optional_id(argv[3], &gid, &switch_gid) || switch_uid != switch_gid) {
        say("usage: become --wall PATH ARGV0 [ARG...] | become REPORT_FD UID|- GID|- LIMITS CWD PATH ARGV0 "
            "[ARG...] | become --check\n");
        return 127;
    }
    int report_fd = (int)fd;
    long done = SYS(__NR_fcntl, report_fd, F_SETFD, FD_CLOEXEC);
    if (FAILED(done)) report(-1, -done);
    long error = close_on_exec_above_stdio();
    if (error != 0) report(report_fd, error);
    done = SYS(__NR_chdir, argv[5], 0, 0);
    if (FAILED(done)) report(report_fd, -done);
    error = set_limits(argv[4]);
    if (error != 0) report(report_fd, error);
    if (switch_uid) {
        if (FAILED(done = SYS(__NR_setgroups, 0, 0, 0)) || FAILED(done = SYS(__NR_setgid, gid, 0, 0)) ||
            FAILED(done = SYS(__NR_setuid, uid, 0, 0)))
            report(report_fd, -done);
        if (uid != 0 && !FAILED(SYS(__NR_setuid, 0, 0, 0))) report(report_fd, EPERM); /* never keep a way back to root */
    }
    done = SYS(__NR_execve, argv[6], argv + 7, envp);
    report(report_fd, -done);
}

/* The C entry: the stack the kernel gave, argc then argv's pointers, a null, the environment's. */
__attribute__((noreturn, used)) void become_start(long *stack) {
    int argc = (int)stack[0];
    char **argv = (char **)(stack + 1);
    leave(become(argc, argv, argv + argc + 1));
}
