/*
 * vmafuzz conform (tools/cmd_conform.c): the real side. A child process
 * runs the resolved calls of a fuzz_mm program with the real system calls;
 * the parent reads the child's VMAs from /proc/PID/smaps.
 *
 * This file knows nothing of the model (src/mm.h defines the kernel's
 * constants again), so it includes only system headers; flags and advice
 * travel as the kernel's values.
 */
#ifndef VMAFUZZ_CONFORM_H
#define VMAFUZZ_CONFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One VMA as smaps shows it (and as the tool builds it from the model). */
struct cvma {
	uint64_t start, end;
	char perm[5];	 /* "rwxp" / "r--s" */
	bool dc, wf, ac; /* VmFlags dc (VM_DONTCOPY), wf (VM_WIPEONFORK), ac (VM_ACCOUNT) */
	uint64_t rss_kb, anon_kb;
};

/* KC_FORK forks the child: the grandchild waits, touching nothing, until
 * KC_FORK_END, and the result is its pid, for kproc_vmas_of. */
enum kcall_op { KC_MMAP, KC_MUNMAP, KC_MPROTECT, KC_MADVISE, KC_TOUCH, KC_FORK, KC_FORK_END };

/* A resolved call, with the kernel's values for prot, flags and advice. */
struct kcall {
	int32_t op;
	int32_t prot, flags, advice, write;
	uint64_t start, len;
	uint64_t touch_max_pages; /* touch: at most this many pages, as the model */
};

struct kproc {
	pid_t pid;
	int to, from; /* pipes to and from the child */
};

/*
 * Fork the child: it switches transparent huge pages off for itself and
 * checks that [lo, hi) is free (nothing mapped there). 0, or -1 with a
 * message in @err.
 */
int kproc_start(struct kproc *k, uint64_t lo, uint64_t hi, char *err, size_t errlen);
/* Run one call in the child; its result (address, 0 or -errno) in @result.
 * False (message in @err) when the child is gone. */
bool kproc_call(struct kproc *k, const struct kcall *c, int64_t *result, char *err, size_t errlen);
/* The child's VMAs intersecting [lo, hi), in address order; at most @max.
 * -1 with a message in @err when smaps cannot be read. */
int kproc_vmas(struct kproc *k, uint64_t lo, uint64_t hi, struct cvma *out, unsigned max, char *err,
	       size_t errlen);
/* The same for another process (the grandchild of KC_FORK). */
int kproc_vmas_of(pid_t pid, uint64_t lo, uint64_t hi, struct cvma *out, unsigned max, char *err,
		  size_t errlen);
/* End the child (closes its pipe, waits for it). */
void kproc_stop(struct kproc *k);

#endif
