/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system calls of a fuzz_mm operation and the smaps reader (ksys.h).
 * Compiled into vmafuzz and copied, as text, into every reproducer.
 */
#include "ksys.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Per thread: a touch's fault is the faulting thread's (vmafuzz race
 * touches on several threads at once). */
static _Thread_local sigjmp_buf ksys_fault_env;
static _Thread_local volatile sig_atomic_t ksys_touching;

/* A fault of a touch comes back to ksys_touch_one; any other is the
 * default's (a crash, not a result). */
static void ksys_on_fault(int sig)
{
	if (!ksys_touching) {
		signal(sig, SIG_DFL);
		return; /* the faulting instruction runs again, now fatally */
	}
	siglongjmp(ksys_fault_env, sig);
}

int ksys_setup(void)
{
	struct sigaction sa;
	struct rlimit rl;
	cpu_set_t cpus;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ksys_on_fault;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	/* one CPU: a page just faulted in waits in a per-CPU batch for the
	 * LRU, and MADV_PAGEOUT, which drains this CPU's batch, cannot take
	 * it from another CPU's */
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		return errno;
	/* stacks (MAP_GROWSDOWN) grow up to RLIMIT_STACK: 8 MiB, as the model */
	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != 8ull << 20) {
		rl.rlim_cur = 8ull << 20;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < rl.rlim_cur)
			rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_STACK, &rl))
			return errno;
	}
	return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) ? errno : 0;
}

int ksys_window_free(uint64_t lo, uint64_t hi)
{
	uint64_t len = hi - lo + 2 * KSYS_PAGE;
	void *p = mmap((void *)(uintptr_t)(lo - KSYS_PAGE), len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	int e = 0;

	if (p == MAP_FAILED)
		return errno;
	if ((uintptr_t)p != lo - KSYS_PAGE)
		e = EEXIST; /* a kernel without MAP_FIXED_NOREPLACE took it as a hint */
	if (munmap(p, len) && !e)
		e = errno;
	return e;
}

int ksys_drain(void)
{
	/* MADV_COLD drains (lru_add_drain) before it walks; on the vDSO it
	 * walks pages that are on no LRU, and mlockall never locks the vDSO
	 * (a special mapping), which would make it -EINVAL */
	uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR) & ~(uintptr_t)(KSYS_PAGE - 1);

	if (!vdso)
		return ENOENT;
	return madvise((void *)vdso, KSYS_PAGE, MADV_COLD) ? errno : 0;
}

/* One page: a volatile 8-byte load into *@v, or a store of *@v, at its
 * start; a fault comes back here. */
static __attribute__((noinline)) int64_t ksys_touch_one(uintptr_t a, bool write, uint64_t *v)
{
	int sig = sigsetjmp(ksys_fault_env, 1);

	if (sig) {
		ksys_touching = 0;
		return sig == SIGBUS ? -EAGAIN : -EFAULT;
	}
	ksys_touching = 1;
	if (write)
		*(volatile uint64_t *)a = *v;
	else
		*v = *(volatile uint64_t *)a;
	ksys_touching = 0;
	return 0;
}

int64_t ksys_touch(const struct kcall *c, uint64_t *seen)
{
	uint64_t start = c->start & ~(KSYS_PAGE - 1), len = c->len, k = 0;

	if (len > c->touch_max_pages * KSYS_PAGE)
		len = c->touch_max_pages * KSYS_PAGE;
	for (uint64_t a = start; a < c->start + len && a >= start; a += KSYS_PAGE, k++) {
		uint64_t v = c->value + k;
		int64_t r = ksys_touch_one((uintptr_t)a, c->write, &v);

		if (r)
			return r;
		if (!c->write && seen)
			seen[k] = v;
	}
	return 0;
}

int64_t ksys_call(const struct kcall *c)
{
	void *a = (void *)(uintptr_t)c->start, *p;

	switch (c->code) {
	case KSYS_MMAP:
		p = mmap(a, c->len, c->prot, c->flags, c->flags & MAP_ANONYMOUS ? -1 : c->fd,
			 (off_t)c->offset);
		return p == MAP_FAILED ? -(int64_t)errno : (int64_t)(uintptr_t)p;
	case KSYS_MUNMAP:
		return munmap(a, c->len) ? -(int64_t)errno : 0;
	case KSYS_MPROTECT:
		return mprotect(a, c->len, c->prot) ? -(int64_t)errno : 0;
	case KSYS_MADVISE:
		return madvise(a, c->len, c->advice) ? -(int64_t)errno : 0;
	case KSYS_TOUCH:
		return ksys_touch(c, NULL);
	case KSYS_MREMAP:
		p = mremap(a, c->len, c->new_len, c->flags, (void *)(uintptr_t)c->new_addr);
		return p == MAP_FAILED ? -(int64_t)errno : (int64_t)(uintptr_t)p;
	case KSYS_MLOCK:
		/* mlock2 has a libc wrapper since glibc 2.27; the system call
		 * itself keeps the reproducers free of that */
		return syscall(SYS_mlock2, a, c->len, c->flags) ? -(int64_t)errno : 0;
	case KSYS_MUNLOCK:
		return munlock(a, c->len) ? -(int64_t)errno : 0;
	case KSYS_MLOCKALL:
		return mlockall(c->flags) ? -(int64_t)errno : 0;
	case KSYS_MUNLOCKALL:
		return munlockall() ? -(int64_t)errno : 0;
	}
	return -ENOSYS;
}

/* "start-end perms offset ...": a VMA's first line. */
static bool ksys_vma_header(const char *line, uint64_t *start, uint64_t *end, char perm[5],
			    uint64_t *offset)
{
	char *e;
	const char *p = line;

	if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
		return false;
	*start = strtoull(p, &e, 16);
	if (*e != '-')
		return false;
	*end = strtoull(e + 1, &e, 16);
	if (*e != ' ' || strlen(e) < 7)
		return false;
	memcpy(perm, e + 1, 4);
	perm[4] = 0;
	*offset = strtoull(e + 6, NULL, 16);
	return true;
}

/* VmFlags' two-letter words that the model has a meaning for. */
static uint64_t ksys_vm_flags(const char *p)
{
	static const struct {
		char name[3];
		uint64_t bit;
	} words[] = {{"rd", KVM_READ},	     {"wr", KVM_WRITE},	     {"ex", KVM_EXEC},
		     {"sh", KVM_SHARED},     {"mr", KVM_MAYREAD},    {"mw", KVM_MAYWRITE},
		     {"me", KVM_MAYEXEC},    {"ms", KVM_MAYSHARE},   {"um", KVM_UFFD_MISSING},
		     {"uw", KVM_UFFD_WP},    {"dc", KVM_DONTCOPY},   {"ac", KVM_ACCOUNT},
		     {"wf", KVM_WIPEONFORK}, {"ui", KVM_UFFD_MINOR}, {"gd", KVM_GROWSDOWN},
		     {"lo", KVM_LOCKED},     {"lf", KVM_LOCKONFAULT}};
	uint64_t flags = 0;

	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		for (unsigned i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (p[0] == words[i].name[0] && p[1] == words[i].name[1] &&
			    (p[2] == ' ' || p[2] == '\n' || p[2] == 0))
				flags |= words[i].bit;
		while (*p && *p != ' ')
			p++;
	}
	return flags;
}

/* The reader's state: the VMA being read, and where it goes. */
struct ksys_reader {
	uint64_t lo, hi;
	struct kvma *out, cur;
	unsigned n, max;
	bool in;	    /* cur is in the window */
	bool any;	    /* cur was begun */
	struct krest *rest; /* or NULL */
};

/* The VMA read so far goes to the list or the rest; false: no room. */
static bool ksys_flush(struct ksys_reader *r)
{
	struct kvma *v = &r->cur;

	if (!r->any)
		return true;
	r->any = false;
	if (r->in) {
		if (r->n == r->max)
			return false;
		r->out[r->n++] = *v;
	} else if (r->rest) {
		struct krest *x = r->rest;
		uint64_t kb = KSYS_PAGE / 1024;

		x->rss += v->rss * kb;
		x->pss += v->pss_kb;
		x->pss_dirty += v->pss_dirty_kb;
		x->shared_clean += v->shared_clean * kb;
		x->shared_dirty += v->shared_dirty * kb;
		x->private_clean += v->private_clean * kb;
		x->private_dirty += v->private_dirty * kb;
		x->anon += v->anon * kb;
		x->nvmas++;
	}
	return true;
}

/* What follows @prefix at the start of @s, or NULL. (Not strncmp: under a
 * fuzzing engine every call of it is traced, and smaps has many lines.) */
static const char *ksys_after(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return NULL;
	return s;
}

/* One line of smaps: 1 go on, 0 done (past the window, no rest wanted),
 * -1 no room. */
static int ksys_line(struct ksys_reader *r, const char *line)
{
	static const struct {
		const char *name;
		size_t off;
		bool pages;
	} fields[] = {
	    {"Rss:", offsetof(struct kvma, rss), true},
	    {"Pss:", offsetof(struct kvma, pss_kb), false},
	    {"Pss_Dirty:", offsetof(struct kvma, pss_dirty_kb), false},
	    {"Shared_Clean:", offsetof(struct kvma, shared_clean), true},
	    {"Shared_Dirty:", offsetof(struct kvma, shared_dirty), true},
	    {"Private_Clean:", offsetof(struct kvma, private_clean), true},
	    {"Private_Dirty:", offsetof(struct kvma, private_dirty), true},
	    {"Anonymous:", offsetof(struct kvma, anon), true},
	};
	uint64_t start, end, offset;
	const char *rest;
	char perm[5];

	if (ksys_vma_header(line, &start, &end, perm, &offset)) {
		if (!ksys_flush(r))
			return -1;
		if (start >= r->hi && !r->rest)
			return 0;
		memset(&r->cur, 0, sizeof(r->cur));
		r->any = true;
		r->in = end > r->lo && start < r->hi;
		r->cur.start = start;
		r->cur.end = end;
		r->cur.pgoff = offset / KSYS_PAGE;
		r->cur.flags = (perm[0] == 'r' ? KVM_READ : 0) | (perm[1] == 'w' ? KVM_WRITE : 0) |
			       (perm[2] == 'x' ? KVM_EXEC : 0) |
			       (perm[3] == 's' ? KVM_MAYSHARE : 0);
		return 1;
	}
	if (!r->any)
		return 1;
	if ((rest = ksys_after(line, "VmFlags:"))) {
		r->cur.flags |= ksys_vm_flags(rest);
		return 1;
	}
	for (unsigned i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if ((rest = ksys_after(line, fields[i].name))) {
			uint64_t kb = strtoull(rest, NULL, 10);

			*(uint64_t *)((char *)&r->cur + fields[i].off) =
			    fields[i].pages ? kb / (KSYS_PAGE / 1024) : kb;
			break;
		}
	}
	return 1;
}

/* Feed the file to ksys_line a line at a time: as ksys_line, or -2 (errno). */
static int ksys_read_lines(int fd, struct ksys_reader *r)
{
	static char buf[1 << 16];
	size_t have = 0;
	int res = 1;

	while (res == 1) {
		ssize_t got = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -2;
		if (got == 0) /* the last line ends with a newline */
			break;
		have += (size_t)got;
		buf[have] = 0;
		while (res == 1 && (nl = strchr(line, '\n'))) {
			*nl = 0;
			res = ksys_line(r, line);
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
	}
	return res;
}

int ksys_vmas_fd(int fd, uint64_t lo, uint64_t hi, struct kvma *out, unsigned max,
		 struct krest *rest, char *err, size_t errlen)
{
	struct ksys_reader r = {.lo = lo, .hi = hi, .out = out, .max = max, .rest = rest};
	int res;

	if (rest)
		memset(rest, 0, sizeof(*rest));
	if (lseek(fd, 0, SEEK_SET) != 0) {
		snprintf(err, errlen, "cannot read smaps again: %s", strerror(errno));
		return -1;
	}
	res = ksys_read_lines(fd, &r);
	if (res == -2) {
		snprintf(err, errlen, "cannot read smaps: %s", strerror(errno));
		return -1;
	}
	if (res >= 0 && !ksys_flush(&r))
		res = -1;
	if (res == -1)
		snprintf(err, errlen, "more than %u VMAs in the window", max);
	return res < 0 ? -1 : (int)r.n;
}

int ksys_vmas(pid_t pid, uint64_t lo, uint64_t hi, struct kvma *out, unsigned max,
	      struct krest *rest, char *err, size_t errlen)
{
	char path[64];
	int fd, res;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/smaps");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	res = ksys_vmas_fd(fd, lo, hi, out, max, rest, err, errlen);
	close(fd);
	return res;
}

const char *ksys_vma_str(const struct kvma *v, uint64_t base, char *buf, size_t len)
{
	char perm[5] = {v->flags & KVM_READ ? 'r' : '-', v->flags & KVM_WRITE ? 'w' : '-',
			v->flags & KVM_EXEC ? 'x' : '-', v->flags & KVM_MAYSHARE ? 's' : 'p', 0};
	uint64_t kb = KSYS_PAGE / 1024;

	snprintf(buf, len,
		 "@0x%" PRIx64 "-0x%" PRIx64 " %s %s %s %s%s%s rss %" PRIu64 "k anon %" PRIu64 "k",
		 (v->start - base) / KSYS_PAGE, (v->end - base) / KSYS_PAGE, perm,
		 v->flags & KVM_ACCOUNT ? "ac" : "--", v->flags & KVM_DONTCOPY ? "dc" : "--",
		 v->flags & KVM_WIPEONFORK ? "wf" : "--", v->flags & KVM_LOCKED ? " lo" : "",
		 v->flags & KVM_LOCKONFAULT ? " lf" : "", v->rss * kb, v->anon * kb);
	return buf;
}

const char *ksys_vma_more(const struct kvma *v, char *buf, size_t len)
{
	uint64_t kb = KSYS_PAGE / 1024;

	snprintf(buf, len,
		 "pgoff 0x%" PRIx64 " pss %" PRIu64 "k pss_dirty %" PRIu64 "k shared %" PRIu64
		 "k/%" PRIu64 "k private %" PRIu64 "k/%" PRIu64 "k%s%s%s%s%s%s%s%s",
		 v->pgoff, v->pss_kb, v->pss_dirty_kb, v->shared_clean * kb, v->shared_dirty * kb,
		 v->private_clean * kb, v->private_dirty * kb, v->flags & KVM_MAYREAD ? " mr" : "",
		 v->flags & KVM_MAYWRITE ? " mw" : "", v->flags & KVM_MAYEXEC ? " me" : "",
		 v->flags & KVM_SHARED ? " sh" : "", v->flags & KVM_GROWSDOWN ? " gd" : "",
		 v->flags & KVM_UFFD_MISSING ? " um" : "", v->flags & KVM_UFFD_WP ? " uw" : "",
		 v->flags & KVM_UFFD_MINOR ? " ui" : "");
	return buf;
}

bool ksys_vma_same(const struct kvma *a, const struct kvma *b)
{
	return a->start == b->start && a->end == b->end &&
	       (a->flags & KVM_COMPARED) == (b->flags & KVM_COMPARED) && a->rss == b->rss &&
	       a->anon == b->anon && a->pgoff == b->pgoff && a->pss_kb == b->pss_kb &&
	       a->pss_dirty_kb == b->pss_dirty_kb && a->shared_clean == b->shared_clean &&
	       a->shared_dirty == b->shared_dirty && a->private_clean == b->private_clean &&
	       a->private_dirty == b->private_dirty;
}
