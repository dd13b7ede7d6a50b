/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_mm: the address-space model, the main target.
 *
 * Processes (p0 exists from the start) map, unmap, protect, advise and touch
 * memory inside a fixed window, on up to four threads interleaved by the
 * schedule bytes. Ranges are resolved against the process's live VMAs and
 * gaps, in pages, so most operations land on a VMA or next to one. Four
 * model files can be mapped privately or shared; shared anonymous mappings
 * get their own shmem file. Any operation may carry fail_at=N.
 *
 * After every operation that leaves no thread inside another one, every
 * invariant of the VMA, anon_vma and page families is checked over all
 * processes, and the live objects of every kind must equal the objects
 * reachable (plus those waiting for an RCU grace period). A call whose
 * injected failure fired must fail with -ENOMEM and change no mapping but
 * those the kernel leaves changed (mm_run.c). At the end no lock may be
 * held, and after every process is destroyed nothing may be alive. The
 * model runs the calls through the address-space seam (as_backend.h).
 */
#include "fuzz/as/as_backend.h"
#include "fuzz/as/model_backend.h"
#include "fuzz/prog/mm_ops.h"
#include "mm_run.h"
#include "target.h"

static void mm_configure(struct mm_exec *m, uint8_t config)
{
	as_model_forbid_zeropage(m->as, config & MM_CONFIG_NO_ZERO_PAGE);
	as_model_set_kver(m->as, m->kver);
}

static const struct mm_target mm_target = {
    .desc = &mm_desc,
    .backend = &as_model,
    .fork_code = MMF_OP_FORK,
    .configure = mm_configure,
};

static int mm_run(const uint8_t *data, size_t size)
{
	return mm_run_program(&mm_target, data, size);
}

const struct fuzz_target fuzz_mm_target = {
    .name = "fuzz_mm",
    .summary = "address space: mmap, munmap, mprotect, madvise, faults, userfaultfd, on threads, "
	       "with every VMA, anon_vma, page, userfaultfd and memory invariant",
    .desc = &mm_desc,
    .run = mm_run,
};
