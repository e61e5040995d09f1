/* confine: what a child process does to itself before it runs an agent
 * (see confine.h): closes descriptors, sets resource limits, no new
 * privileges, Landlock and a hand-written seccomp-BPF allow-list. */
/* syscall(), close_range and the other Linux interfaces. */
#define _GNU_SOURCE
#include "confine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define AW_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AW_ASAN 1
#endif
#endif

bool aw_confine_sanitized(void)
{
#ifdef AW_ASAN
    return true;
#else
    return false;
#endif
}

/* ---- confinement -------------------------------------------------------- */

#if defined(__x86_64__)
#define AW_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AW_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "confine: the seccomp filter knows x86_64 and aarch64 only"
#endif
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "confine: the seccomp filter reads the low word of arguments as little-endian"
#endif

#define ARG_LO(i) (offsetof(struct seccomp_data, args) + (i) * sizeof(uint64_t))
#define RET_ERRNO (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

typedef struct bpf {
    struct sock_filter ins[256];
    int n;
    bool overflow;
} bpf;

static void emit(bpf *b, struct sock_filter i)
{
    if (b->n < (int)(sizeof b->ins / sizeof b->ins[0]))
        b->ins[b->n++] = i;
    else
        b->overflow = true;
}

#define STMT(code, k) ((struct sock_filter)BPF_STMT(code, k))
#define JUMP(code, k, jt, jf) ((struct sock_filter)BPF_JUMP(code, k, jt, jf))

static void load_nr(bpf *b)
{
    emit(b, STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
}

/* nr → action; A holds nr and keeps it when nr does not match. */
static void rule(bpf *b, long nr, uint32_t action)
{
    emit(b, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1));
    emit(b, STMT(BPF_RET | BPF_K, action));
}

/* nr is allowed when the low word of argument `arg` is one of fds[]; else EPERM. */
static void rule_fd(bpf *b, long nr, int arg, const int *fds, int nfds)
{
    emit(b, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, (uint8_t)(nfds + 3)));
    emit(b, STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)ARG_LO(arg)));
    for (int i = 0; i < nfds; i++) /* match: jump to ALLOW, past the remaining tests */
        emit(b, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)fds[i], (uint8_t)(nfds - i), 0));
    emit(b, STMT(BPF_RET | BPF_K, RET_ERRNO));
    emit(b, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    load_nr(b);
}

/* nr is allowed unless argument `arg` has one of `bits`, which gives `bad`. */
static void rule_bits(bpf *b, long nr, int arg, uint32_t bits, uint32_t ok, uint32_t bad_action)
{
    emit(b, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 4));
    emit(b, STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)ARG_LO(arg)));
    emit(b, JUMP(BPF_JMP | BPF_JSET | BPF_K, bits, 1, 0));
    emit(b, STMT(BPF_RET | BPF_K, ok));
    emit(b, STMT(BPF_RET | BPF_K, bad_action));
    load_nr(b);
}

/* The allow-list. Three outcomes: the calls an agent's process needs run;
 * the calls that can only be an attempt to get out (new processes, sockets,
 * opening a file for writing, signalling others, tracing) kill the process
 * at once, which the host reports as the agent's loss; everything else
 * fails with EPERM. */
static int install_filter(const int *keep, int nkeep, bool may_read_files, bool timers, aw_error *err)
{
    bpf b = {.n = 0};
    emit(&b, STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit(&b, JUMP(BPF_JMP | BPF_JEQ | BPF_K, AW_AUDIT_ARCH, 1, 0));
    emit(&b, STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    load_nr(&b);
#if defined(__x86_64__)
    /* x32 system calls share the architecture tag: refuse them all. */
    emit(&b, JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
    emit(&b, STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
    /* the pipes to the host: read the asks (keep[0]), write the answers
     * and the output (the others) — first, as every request makes one read
     * and one write, and the kernel runs the filter for those whose outcome
     * depends on their arguments (the others' outcome it caches); with
     * Landlock fencing reads into the agent's folder, any read, and the
     * calls that read its module files */
    if (may_read_files)
        rule(&b, SYS_read, SECCOMP_RET_ALLOW);
    else
        rule_fd(&b, SYS_read, 0, keep, 1);
    rule_fd(&b, SYS_write, 0, keep, nkeep);
    rule_fd(&b, SYS_writev, 0, keep, nkeep);
    if (may_read_files) {
        rule(&b, SYS_pread64, SECCOMP_RET_ALLOW);
        rule(&b, SYS_lseek, SECCOMP_RET_ALLOW);
        rule(&b, SYS_fstat, SECCOMP_RET_ALLOW);
        rule(&b, SYS_newfstatat, SECCOMP_RET_ALLOW);
        rule(&b, SYS_statx, SECCOMP_RET_ALLOW);
    }
    /* memory, without ever making a page executable */
    rule(&b, SYS_brk, SECCOMP_RET_ALLOW);
    rule(&b, SYS_munmap, SECCOMP_RET_ALLOW);
    rule(&b, SYS_mremap, SECCOMP_RET_ALLOW);
    rule(&b, SYS_madvise, SECCOMP_RET_ALLOW);
    rule_bits(&b, SYS_mmap, 2, PROT_EXEC, SECCOMP_RET_ALLOW, RET_ERRNO);
    rule_bits(&b, SYS_mprotect, 2, PROT_EXEC, SECCOMP_RET_ALLOW, RET_ERRNO);
    rule(&b, SYS_close, SECCOMP_RET_ALLOW);
    /* time, locks, signals returning, leaving */
    rule(&b, SYS_clock_gettime, SECCOMP_RET_ALLOW);
    rule(&b, SYS_clock_getres, SECCOMP_RET_ALLOW);
    rule(&b, SYS_gettimeofday, SECCOMP_RET_ALLOW);
    rule(&b, SYS_clock_nanosleep, SECCOMP_RET_ALLOW);
    rule(&b, SYS_nanosleep, SECCOMP_RET_ALLOW);
    rule(&b, SYS_futex, SECCOMP_RET_ALLOW);
    rule(&b, SYS_getrandom, SECCOMP_RET_ALLOW);
    rule(&b, SYS_rt_sigreturn, SECCOMP_RET_ALLOW);
    rule(&b, SYS_rt_sigprocmask, SECCOMP_RET_ALLOW);
    /* the Lua sandbox's watchdog: either its thread, started before the
     * filter (futex, the clocks, getpid and tgkill on this process, all
     * allowed here for other reasons too), or a per-thread timer that
     * signals this very thread (SIGEV_THREAD, which would need a new
     * thread, is killed below through clone) */
    rule(&b, SYS_rt_sigaction, SECCOMP_RET_ALLOW);
    if (timers) {
        rule(&b, SYS_timer_create, SECCOMP_RET_ALLOW);
        rule(&b, SYS_timer_settime, SECCOMP_RET_ALLOW);
        rule(&b, SYS_timer_gettime, SECCOMP_RET_ALLOW);
        rule(&b, SYS_timer_delete, SECCOMP_RET_ALLOW);
    }
    rule(&b, SYS_sched_yield, SECCOMP_RET_ALLOW);
    rule(&b, SYS_sigaltstack, SECCOMP_RET_ALLOW); /* own thread only; AddressSanitizer needs it */
    rule(&b, SYS_getpid, SECCOMP_RET_ALLOW);
    rule(&b, SYS_gettid, SECCOMP_RET_ALLOW);
    rule(&b, SYS_exit, SECCOMP_RET_ALLOW);
    rule(&b, SYS_exit_group, SECCOMP_RET_ALLOW);
    /* abort() signals itself; signalling anyone else is an escape attempt */
    emit(&b, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_tgkill, 0, 4));
    emit(&b, STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)ARG_LO(0)));
    emit(&b, JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)getpid(), 0, 1));
    emit(&b, STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(&b, STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    load_nr(&b);
    /* opening: for writing kills; for reading fails, unless Landlock
     * limits reading to the agent's folder */
    const uint32_t wr = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
    const uint32_t rd = may_read_files ? SECCOMP_RET_ALLOW : RET_ERRNO;
    rule_bits(&b, SYS_openat, 2, wr, rd, SECCOMP_RET_KILL_PROCESS);
#ifdef SYS_open
    rule_bits(&b, SYS_open, 1, wr, rd, SECCOMP_RET_KILL_PROCESS);
#endif
    const long kill[] = {
        SYS_socket, SYS_socketpair, SYS_connect, SYS_bind, SYS_listen, SYS_accept, SYS_accept4, SYS_sendto,
        SYS_sendmsg, SYS_clone, SYS_execve, SYS_execveat, SYS_ptrace, SYS_kill, SYS_tkill, SYS_process_vm_readv,
        SYS_process_vm_writev, SYS_unlinkat, SYS_renameat, SYS_mkdirat, SYS_openat2, SYS_clone3, SYS_setrlimit,
        SYS_prlimit64, SYS_memfd_create, SYS_mount, SYS_chroot, SYS_pivot_root, SYS_unshare, SYS_setns,
#ifdef SYS_fork
        SYS_fork, SYS_vfork, SYS_creat, SYS_unlink, SYS_rename, SYS_mkdir,
#endif
    };
    for (size_t i = 0; i < sizeof kill / sizeof kill[0]; i++)
        rule(&b, kill[i], SECCOMP_RET_KILL_PROCESS);
    emit(&b, STMT(BPF_RET | BPF_K, RET_ERRNO));
    if (b.overflow)
        return aw_fail(err, AW_EINVAL, "seccomp filter too long");
    struct sock_fprog prog = {(unsigned short)b.n, b.ins};
    /* On every thread of the process (TSYNC, which also sets their no new
     * privileges): a filter installed with prctl is the calling thread's
     * only, and the Lua sandbox's watchdog thread, started before, would
     * run unconfined beside the agent. */
    long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
    if (rc < 0)
        return aw_fail(err, AW_EIO, "cannot install the seccomp filter: %s", strerror(errno));
    if (rc > 0)
        return aw_fail(err, AW_EIO, "cannot install the seccomp filter on thread %ld of this process", rc);
    return 0;
}

static void close_others(const int *keep, int nkeep)
{
    /* Close [3, max] except the kept descriptors, range by range. */
    int sorted[8];
    int n = 0;
    for (int i = 0; i < nkeep && n < 8; i++)
        if (keep[i] >= 3)
            sorted[n++] = keep[i];
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            int t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    unsigned lo = 3;
    for (int i = 0; i <= n; i++) {
        unsigned hi = i < n ? (unsigned)sorted[i] - 1 : ~0u;
        if (hi >= lo && syscall(SYS_close_range, lo, hi, 0) != 0) {
            /* Kernels before 5.9: close one by one. */
            unsigned top = hi > 65535 ? 65535 : hi;
            for (unsigned fd = lo; fd <= top; fd++)
                close((int)fd);
        }
        if (i < n)
            lo = (unsigned)sorted[i] + 1;
    }
}

static size_t address_space_now(void)
{
    unsigned long pages = 0;
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[128];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        if (n > 0) {
            buf[n] = '\0';
            pages = strtoul(buf, NULL, 10);
        }
        close(fd);
    }
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* Landlock: from here on, files can be opened for reading only beneath dir
 * (and nothing can be written, made, removed or executed anywhere). Returns
 * 1 when the kernel enforces it, 0 when it has no Landlock. */
static int fence_reads(const char *dir, aw_error *err)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1)
        return 0;
    struct landlock_ruleset_attr ra;
    memset(&ra, 0, sizeof ra);
    ra.handled_access_fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* every right of ABI 1 */
#ifdef LANDLOCK_ACCESS_FS_REFER
    if (abi >= 2)
        ra.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
#endif
    int rfd = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof ra, 0);
    if (rfd < 0)
        return aw_fail(err, AW_EIO, "landlock_create_ruleset: %s", strerror(errno));
    int dfd = open(dir, O_PATH | O_CLOEXEC | O_DIRECTORY);
    if (dfd < 0) {
        close(rfd);
        return aw_fail(err, AW_EIO, "cannot open the agent's folder %s: %s", dir, strerror(errno));
    }
    struct landlock_path_beneath_attr pb = {LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR, dfd};
    int rc = 0;
    if (syscall(SYS_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0 ||
        syscall(SYS_landlock_restrict_self, rfd, 0) != 0)
        rc = aw_fail(err, AW_EIO, "landlock: %s", strerror(errno));
    close(dfd);
    close(rfd);
    return rc < 0 ? rc : 1;
}

int aw_confine_fence(const char *read_dir, aw_confine_opts *o, aw_error *err)
{
    o->address_space = address_space_now(); /* before Landlock fences /proc off */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return aw_fail(err, AW_EIO, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
    int fenced = read_dir ? fence_reads(read_dir, err) : 0;
    if (fenced < 0)
        return -1;
    o->fence_done = true;
    o->fenced = fenced == 1;
    return 0;
}

int aw_confine(const int *keep, int nkeep, const char *read_dir, size_t memory_bytes, const aw_confine_opts *o,
               aw_error *err)
{
    bool thread = o && o->watchdog_thread;
    if (nkeep < 1 || nkeep > 8)
        return aw_fail(err, AW_EINVAL, "1 to 8 descriptors to keep");
    aw_confine_opts fence = {0};
    if (o && o->fence_done)
        fence = *o;
    else if (aw_confine_fence(read_dir, &fence, err) < 0)
        return -1;
    size_t vm = fence.address_space;
    close_others(keep, nkeep);
    struct rlimit zero = {0, 0};
    struct rlimit nofile = {16, 16};
    if (setrlimit(RLIMIT_NPROC, &zero) != 0 || setrlimit(RLIMIT_FSIZE, &zero) != 0 ||
        setrlimit(RLIMIT_CORE, &zero) != 0 || setrlimit(RLIMIT_NOFILE, &nofile) != 0)
        return aw_fail(err, AW_EIO, "setrlimit: %s", strerror(errno));
    if (!memory_bytes)
        memory_bytes = (size_t)64 << 20;
#ifndef AW_ASAN
    /* The image inherited from the host, the sandbox's address region
     * (reserved whole: twice the agent's cap, see runtime/luahost/sb_alloc.c),
     * and room for the host code's own allocations; Lua's allocator enforces
     * the cap exactly, this is the backstop. */
    size_t region = memory_bytes > SIZE_MAX / 4 ? SIZE_MAX / 2 : 2 * memory_bytes;
    size_t lim = vm + region + ((size_t)256 << 20);
    struct rlimit as = {lim, lim};
    if (setrlimit(RLIMIT_AS, &as) != 0)
        return aw_fail(err, AW_EIO, "setrlimit(RLIMIT_AS): %s", strerror(errno));
#else
    (void)vm;
#endif
    /* No thread can be started from here on (the filter kills clone):
     * unless its thread already runs, the Lua sandbox's watchdog uses
     * per-thread timers (docs/sandbox.md). */
    if (!thread && setenv("AIWOLF_SANDBOX_WATCHDOG", "timers", 1) != 0)
        return aw_fail(err, AW_EIO, "setenv: %s", strerror(errno));
    int fenced = fence.fenced;
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#ifdef AW_ASAN
    /* The sanitizer reports on stderr: let the child write there. */
    int wkeep[9];
    memcpy(wkeep, keep, sizeof(int) * (size_t)nkeep);
    wkeep[nkeep] = 2;
    return install_filter(wkeep, nkeep + 1, fenced == 1, !thread, err);
#else
    return install_filter(keep, nkeep, fenced == 1, !thread, err);
#endif
}

bool aw_confine_landlock(void)
{
    return syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) >= 1;
}
