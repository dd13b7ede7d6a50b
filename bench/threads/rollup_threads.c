/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The smaps_rollup latency benchmark on real threads (the threads backend,
 * src/threads/), after the seed's run-proc-vs-map.sh: a writer maps and
 * unmaps a page in a loop and times each pair while a reader thread reads
 * the rollup of the same process over and over. Each sample is WRITES
 * timed pairs; a sample's figures are the median, minimum and maximum of
 * its pairs, in milliseconds; SAMPLES samples per reader. Between pairs the
 * writer works without the lock for PAUSE_MS (as a program does between
 * system calls), so that the reader has the lock again when the next pair
 * comes: otherwise the writer could keep taking the lock while the woken
 * reader is still on its way, and would time no contention. Three readers,
 * sample by sample in turn so the machine's noise falls on all alike:
 *
 *   mmap       the model's mmap-lock reader,
 *   vma        the model's per-VMA-lock reader (the seed),
 *   kernel     this machine's kernel: the writer maps and unmaps real
 *              memory while the reader reads /proc/self/smaps_rollup (a
 *              kernel without the seed's change: it reads under the mmap
 *              lock).
 *
 * The model process has NVMAS anonymous VMAs of PAGES written pages each;
 * the real one as many real regions, written the same way. The mmap-lock
 * reader lets a waiting writer in between VMAs, so the writer waits for
 * the rest of one VMA's walk: the bigger the VMAs, the longer. Retired
 * objects are freed after a grace period the writer does not wait for
 * (sync_threads_set_batch_frees), as the kernel's writers call_rcu.
 *
 *   rollup_threads [--csv] [--quick]       the benchmark (vmafuzz bench rollup)
 *   rollup_threads --stress [ROUNDS]       short checked run for TSan (tests/tsan.sh)
 */
#include "mm/exit.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "mm/mmap.h"
#include "mm/rollup.h"
#include "mm/types.h"
#include "runtime/threads/sync_threads.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NVMAS 4
#define PAGES 16384
#define STRESS_PAGES 1024 /* --stress: smaller, ThreadSanitizer is slow */
#define BASE 0x200000000000ull
#define WRITE_AT (BASE + 0x100000000ull) /* the writer's page, apart from the VMAs */
#define PAUSE_MS 0.2

enum kind { K_MMAP, K_VMA, K_KERNEL, K_NR };
static const char *const kind_names[K_NR] = {"mmap", "vma", "kernel"};
static const char *const kind_titles[K_NR] = {"model, mmap-lock reader",
					      "model, per-VMA-lock reader",
					      "this kernel, /proc/self/smaps_rollup"};

struct run {
	enum kind kind;
	struct mm *mm;
	int stop; /* atomic */
	unsigned long reads;
	uint64_t rss; /* the last read's, checked in --stress */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void read_proc(void)
{
	char buf[4096];
	int fd = open("/proc/self/smaps_rollup", O_RDONLY);

	if (fd < 0) {
		perror("/proc/self/smaps_rollup");
		exit(1);
	}
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static void *reader_main(void *arg)
{
	struct run *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		if (r->kind == K_KERNEL) {
			read_proc();
		} else {
			struct rollup ru;

			rollup_read_untracked(
			    r->mm, r->kind == K_MMAP ? ROLLUP_MMAP_LOCK : ROLLUP_VMA_LOCK, &ru);
			r->rss = ru.stats.rss;
		}
		__atomic_fetch_add(&r->reads, 1, __ATOMIC_RELAXED);
	}
	if (r->kind != K_KERNEL)
		sync_thread_exit();
	return NULL;
}

/* One map+unmap pair of the writer, in ms. */
static double write_pair(struct run *r)
{
	double t0 = now_ms();

	if (r->kind == K_KERNEL) {
		void *p =
		    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || munmap(p, 4096)) {
			perror("mmap");
			exit(1);
		}
	} else if (mm_mmap(r->mm, WRITE_AT, PAGE_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0) != (int64_t)WRITE_AT ||
		   mm_munmap(r->mm, WRITE_AT, PAGE_SIZE)) {
		fprintf(stderr, "rollup_threads: the model refused a mapping\n");
		exit(1);
	}
	return now_ms() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct sample {
	double median, min, max;
};

/* Time @writes pairs beside a reader of @kind; wait for the reader's first
 * read so every pair has a reader beside it. */
static struct sample sample(enum kind kind, struct mm *mm, unsigned writes, unsigned long *reads)
{
	struct run r = {.kind = kind, .mm = mm};
	double *t = malloc(writes * sizeof(*t));
	struct sample s;
	pthread_t tid;

	if (!t || pthread_create(&tid, NULL, reader_main, &r)) {
		perror("rollup_threads");
		exit(1);
	}
	while (!__atomic_load_n(&r.reads, __ATOMIC_RELAXED))
		sched_yield();
	for (unsigned i = 0; i < writes; i++) {
		double until;

		t[i] = write_pair(&r);
		for (until = now_ms() + PAUSE_MS; now_ms() < until;)
			; /* busy, not sleeping: the core stays the writer's */
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	pthread_join(tid, NULL);
	qsort(t, writes, sizeof(*t), cmp_double);
	s = (struct sample){t[writes / 2], t[0], t[writes - 1]};
	*reads += r.reads;
	free(t);
	return s;
}

static struct mm *model_process(uint64_t pages)
{
	struct mm *mm = mm_create(0, BASE, BASE + 0x200000000ull);

	for (unsigned k = 0; mm && k < NVMAS; k++) {
		uint64_t at = BASE + (uint64_t)k * 2 * pages * PAGE_SIZE;

		if (mm_mmap(mm, at, pages * PAGE_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0) != (int64_t)at)
			return NULL;
		for (uint64_t p = 0; p < pages; p += 256)
			if (mm_touch(mm, at + p * PAGE_SIZE, 256 * PAGE_SIZE, true))
				return NULL;
	}
	return mm;
}

/* The same shape in this process, for the kernel's reader to walk. */
static void real_process(void)
{
	for (unsigned k = 0; k < NVMAS; k++) {
		char *p = mmap(NULL, PAGES * 4096ul, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			exit(1);
		}
		for (unsigned long o = 0; o < PAGES * 4096ul; o += 4096)
			p[o] = 1;
		/* a guard page between regions keeps them apart */
		if (k % 2 == 0)
			mprotect(p, 4096, PROT_READ);
	}
}

static double median_of(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* A short run for ThreadSanitizer: both model readers beside the writer,
 * and every read must see all the pages (the writer's page aside). */
static int stress(unsigned rounds)
{
	struct mm *mm = model_process(STRESS_PAGES);
	unsigned long reads = 0;
	int bad = 0;

	if (!mm)
		return 1;
	sync_threads_set_yield(3);
	sync_threads_set_batch_frees(8); /* the benchmark's deferred frees too */
	for (unsigned i = 0; i < rounds; i++)
		for (enum kind k = K_MMAP; k <= K_VMA; k++) {
			struct run r = {.kind = k, .mm = mm};
			pthread_t tid;

			if (pthread_create(&tid, NULL, reader_main, &r))
				return 1;
			for (unsigned w = 0; w < 20; w++)
				write_pair(&r);
			__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
			pthread_join(tid, NULL);
			if (r.reads && r.rss != (uint64_t)NVMAS * STRESS_PAGES * PAGE_SIZE)
				bad++;
			reads += r.reads;
		}
	mm_destroy(mm);
	sync_thread_exit();
	printf("%lu reads, %d with a wrong Rss\n", reads, bad);
	printf("%d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	bool csv = false, quick = false;
	unsigned samples = 20, writes = 200;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--csv")) {
			csv = true;
		} else if (!strcmp(argv[i], "--quick")) {
			quick = true;
		} else if (!strcmp(argv[i], "--stress")) {
			return stress(i + 1 < argc ? (unsigned)atoi(argv[i + 1]) : 5);
		} else {
			fprintf(stderr,
				"vmafuzz bench rollup: unknown argument '%s'\n"
				"usage: vmafuzz bench rollup [--csv] [--quick]\n",
				argv[i]);
			return 2;
		}
	}
	if (quick) {
		samples = 3;
		writes = 20;
	}
	struct mm *mm = model_process(PAGES);
	struct sample s[K_NR][20];
	unsigned long reads[K_NR] = {0};

	if (!mm) {
		fprintf(stderr, "rollup_threads: cannot build the model process\n");
		return 1;
	}
	real_process();
	sync_threads_set_batch_frees(64);
	for (unsigned i = 0; i < samples; i++)
		for (enum kind k = 0; k < K_NR; k++)
			s[k][i] = sample(k, mm, writes, &reads[k]);
	if (csv) {
		printf("reader,sample,median_ms,min_ms,max_ms\n");
		for (enum kind k = 0; k < K_NR; k++)
			for (unsigned i = 0; i < samples; i++)
				printf("%s,%u,%.4f,%.4f,%.4f\n", kind_names[k], i, s[k][i].median,
				       s[k][i].min, s[k][i].max);
	} else {
		double med[K_NR];

		printf(
		    "writer latency of an mmap+munmap pair, ms, beside a reader of smaps_rollup\n"
		    "(%u samples of %u pairs; %u VMAs of %u written pages)\n",
		    samples, writes, NVMAS, PAGES);
		for (enum kind k = 0; k < K_NR; k++) {
			double m[20], lo = s[k][0].min, hi = s[k][0].max;

			for (unsigned i = 0; i < samples; i++) {
				m[i] = s[k][i].median;
				lo = s[k][i].min < lo ? s[k][i].min : lo;
				hi = s[k][i].max > hi ? s[k][i].max : hi;
			}
			med[k] = median_of(m, samples);
			printf("\n%s (%lu reads)\n   Median   Minimum   Maximum\n", kind_titles[k],
			       reads[k]);
			for (unsigned i = 0; i < samples; i++)
				printf("%9.3f %9.3f %9.3f\n", s[k][i].median, s[k][i].min,
				       s[k][i].max);
			printf("median of medians %.4f, minimum %.4f, maximum %.4f\n", med[k], lo,
			       hi);
		}
		printf("\nmmap-lock reader / per-VMA-lock reader, median: %.1fx\n",
		       med[K_MMAP] / med[K_VMA]);
	}
	mm_destroy(mm);
	sync_thread_exit();
	return 0;
}
