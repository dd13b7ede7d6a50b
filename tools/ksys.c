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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static sigjmp_buf ksys_fault_env;
static volatile sig_atomic_t ksys_touching;

/* A fault of a touch comes back to ksys_touch_one; any other is the
 * default's (a crash, not a result). */
static void ksys_on_fault(int sig)
{
	if (!ksys_touching) {
		signal(sig, SIG_DFL);
		return; /* the faulting instruction runs again, now fatally */
	}
	siglongjmp(ksys_fault_env, 1);
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

/* One page: a volatile load or a store; a fault comes back here. */
static __attribute__((noinline)) int64_t ksys_touch_one(uintptr_t a, bool write)
{
	if (sigsetjmp(ksys_fault_env, 1)) {
		ksys_touching = 0;
		return -EFAULT;
	}
	ksys_touching = 1;
	if (write)
		*(volatile uint8_t *)a = 1;
	else
		(void)*(volatile uint8_t *)a;
	ksys_touching = 0;
	return 0;
}

/* A read or write on every page, stopping at the first fault as the model's
 * mm_touch does. */
static int64_t ksys_touch(const struct kcall *c)
{
	uint64_t start = c->start & ~(KSYS_PAGE - 1), len = c->len;

	if (len > c->touch_max_pages * KSYS_PAGE)
		len = c->touch_max_pages * KSYS_PAGE;
	for (uint64_t a = start; a < c->start + len && a >= start; a += KSYS_PAGE) {
		int64_t r = ksys_touch_one((uintptr_t)a, c->write);

		if (r)
			return r;
	}
	return 0;
}

int64_t ksys_call(const struct kcall *c)
{
	void *a = (void *)(uintptr_t)c->start, *p;

	switch (c->code) {
	case KSYS_MMAP:
		p = mmap(a, c->len, c->prot, c->flags, -1, 0);
		return p == MAP_FAILED ? -(int64_t)errno : (int64_t)(uintptr_t)p;
	case KSYS_MUNMAP:
		return munmap(a, c->len) ? -(int64_t)errno : 0;
	case KSYS_MPROTECT:
		return mprotect(a, c->len, c->prot) ? -(int64_t)errno : 0;
	case KSYS_MADVISE:
		return madvise(a, c->len, c->advice) ? -(int64_t)errno : 0;
	case KSYS_TOUCH:
		return ksys_touch(c);
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

/* The whole file (smaps has no size to ask for); NULL with errno set. */
static char *ksys_slurp(const char *path)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap), *nb;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	ssize_t r;

	if (!buf || fd < 0)
		goto fail;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			nb = realloc(buf, cap *= 2);
			if (!nb)
				goto fail;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	return buf;
fail:
	e = errno;
	free(buf);
	if (fd >= 0)
		close(fd);
	errno = e;
	return NULL;
}

/* "start-end perms ...": a VMA's first line. */
static bool ksys_vma_header(const char *line, uint64_t *start, uint64_t *end, char perm[5])
{
	char *e;
	const char *p = line;

	if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
		return false;
	*start = strtoull(p, &e, 16);
	if (*e != '-')
		return false;
	*end = strtoull(e + 1, &e, 16);
	if (*e != ' ' || strlen(e) < 5)
		return false;
	memcpy(perm, e + 1, 4);
	perm[4] = 0;
	return true;
}

/* The two-letter word @name is among VmFlags' @flags. */
static bool ksys_has_flag(const char *flags, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = flags; *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, name, n) && (p[n] == ' ' || p[n] == '\n' || p[n] == 0))
			return true;
		while (*p && *p != ' ' && *p != '\n')
			p++;
		if (*p == '\n')
			break;
	}
	return false;
}

int ksys_vmas(pid_t pid, uint64_t lo, uint64_t hi, struct kvma *out, unsigned max, char *err,
	      size_t errlen)
{
	char path[64], *buf, *line, *next;
	struct kvma *cur = NULL;
	unsigned n = 0;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/smaps");
	buf = ksys_slurp(path);
	if (!buf) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	for (line = buf; line && *line; line = next) {
		uint64_t start, end;
		char perm[5];

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (ksys_vma_header(line, &start, &end, perm)) {
			cur = NULL;
			if (end <= lo || start >= hi)
				continue;
			if (n == max) {
				snprintf(err, errlen, "more than %u VMAs in the window", max);
				free(buf);
				return -1;
			}
			cur = &out[n++];
			memset(cur, 0, sizeof(*cur));
			cur->start = start;
			cur->end = end;
			cur->flags =
			    (perm[0] == 'r' ? KVM_READ : 0) | (perm[1] == 'w' ? KVM_WRITE : 0) |
			    (perm[2] == 'x' ? KVM_EXEC : 0) | (perm[3] == 's' ? KVM_MAYSHARE : 0);
			continue;
		}
		if (!cur)
			continue;
		if (!strncmp(line, "Rss:", 4))
			cur->rss = strtoull(line + 4, NULL, 10) / (KSYS_PAGE / 1024);
		else if (!strncmp(line, "Anonymous:", 10))
			cur->anon = strtoull(line + 10, NULL, 10) / (KSYS_PAGE / 1024);
		else if (!strncmp(line, "VmFlags:", 8))
			cur->flags |= (ksys_has_flag(line + 8, "dc") ? KVM_DONTCOPY : 0) |
				      (ksys_has_flag(line + 8, "wf") ? KVM_WIPEONFORK : 0) |
				      (ksys_has_flag(line + 8, "ac") ? KVM_ACCOUNT : 0) |
				      (ksys_has_flag(line + 8, "sh") ? KVM_SHARED : 0) |
				      (ksys_has_flag(line + 8, "lo") ? KVM_LOCKED : 0) |
				      (ksys_has_flag(line + 8, "lf") ? KVM_LOCKONFAULT : 0);
	}
	free(buf);
	return (int)n;
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

bool ksys_vma_same(const struct kvma *a, const struct kvma *b)
{
	return a->start == b->start && a->end == b->end &&
	       (a->flags & KVM_COMPARED) == (b->flags & KVM_COMPARED) && a->rss == b->rss &&
	       a->anon == b->anon;
}
