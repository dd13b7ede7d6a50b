/* SPDX-License-Identifier: GPL-2.0 */
/* Comparing two backends' VMAs (as_diff.h). */
#include "as_diff.h"

#include <inttypes.h>

bool as_vma_same(const struct as_vma *a, const struct as_vma *b, uint64_t mask, bool smaps)
{
	if (a->start != b->start || a->end != b->end || (a->flags & mask) != (b->flags & mask) ||
	    a->rss != b->rss || a->anon != b->anon)
		return false;
	return !smaps ||
	       (a->pgoff == b->pgoff && a->pss_kb == b->pss_kb &&
		a->pss_dirty_kb == b->pss_dirty_kb && a->shared_clean == b->shared_clean &&
		a->shared_dirty == b->shared_dirty && a->private_clean == b->private_clean &&
		a->private_dirty == b->private_dirty);
}

bool as_vmas_same(const struct as_vma *a, unsigned na, const struct as_vma *b, unsigned nb,
		  uint64_t mask, bool smaps)
{
	if (na != nb)
		return false;
	for (unsigned i = 0; i < na; i++)
		if (!as_vma_same(&a[i], &b[i], mask, smaps))
			return false;
	return true;
}

const char *as_vma_more(const struct as_vma *v, char *buf, size_t len)
{
	unsigned kb = (1u << MMF_PAGE_SHIFT) / 1024;
	uint64_t f = v->flags;

	snprintf(buf, len,
		 "pgoff 0x%" PRIx64 " pss %" PRIu64 "k pss_dirty %" PRIu64 "k shared %" PRIu64
		 "k/%" PRIu64 "k private %" PRIu64 "k/%" PRIu64 "k%s%s%s%s%s%s%s%s",
		 v->pgoff, v->pss_kb, v->pss_dirty_kb, v->shared_clean * kb, v->shared_dirty * kb,
		 v->private_clean * kb, v->private_dirty * kb, f & AS_VM_MAYREAD ? " mr" : "",
		 f & AS_VM_MAYWRITE ? " mw" : "", f & AS_VM_MAYEXEC ? " me" : "",
		 f & AS_VM_SHARED ? " sh" : "", f & AS_VM_GROWSDOWN ? " gd" : "",
		 f & AS_VM_UFFD_MISSING ? " um" : "", f & AS_VM_UFFD_WP ? " uw" : "",
		 f & AS_VM_UFFD_MINOR ? " ui" : "");
	return buf;
}

const char *as_vma_str(const struct as_vma *v, uint64_t base, char *buf, size_t len)
{
	char perm[5] = {v->flags & AS_VM_READ ? 'r' : '-', v->flags & AS_VM_WRITE ? 'w' : '-',
			v->flags & AS_VM_EXEC ? 'x' : '-', v->flags & AS_VM_MAYSHARE ? 's' : 'p',
			0};
	unsigned kb = (1u << MMF_PAGE_SHIFT) / 1024;

	snprintf(buf, len,
		 "@0x%" PRIx64 "-0x%" PRIx64 " %s %s %s %s%s%s rss %" PRIu64 "k anon %" PRIu64 "k",
		 (v->start - base) >> MMF_PAGE_SHIFT, (v->end - base) >> MMF_PAGE_SHIFT, perm,
		 v->flags & AS_VM_ACCOUNT ? "ac" : "--", v->flags & AS_VM_DONTCOPY ? "dc" : "--",
		 v->flags & AS_VM_WIPEONFORK ? "wf" : "--", v->flags & AS_VM_LOCKED ? " lo" : "",
		 v->flags & AS_VM_LOCKONFAULT ? " lf" : "", v->rss * kb, v->anon * kb);
	return buf;
}

void as_print_views(FILE *out, const char *left, const struct as_vma *a, unsigned na,
		    const char *right, const struct as_vma *b, unsigned nb, uint64_t mask,
		    uint64_t base, int smaps)
{
	unsigned i = 0, j = 0;
	char s[160], t[160];

	fprintf(out, "    %-50s %s\n", left, right);
	while (i < na || j < nb) {
		const struct as_vma *x = i < na ? &a[i] : NULL, *y = j < nb ? &b[j] : NULL;

		if (x && y && x->start != y->start) {
			if (x->start < y->start)
				y = NULL;
			else
				x = NULL;
		}
		bool same = x && y && as_vma_same(x, y, mask, smaps != 0);

		fprintf(out, "  %c %-50s %s\n", same ? ' ' : '!',
			x ? as_vma_str(x, base, s, sizeof(s)) : "",
			y ? as_vma_str(y, base, t, sizeof(t)) : "");
		if (smaps && x && y && (!same || smaps == 2))
			fprintf(out, "      %-48s %s\n", as_vma_more(x, s, sizeof(s)),
				as_vma_more(y, t, sizeof(t)));
		i += x != NULL;
		j += y != NULL;
	}
	if (!na && !nb)
		fprintf(out, "    (no VMAs on either side)\n");
}
