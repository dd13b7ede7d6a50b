/* SPDX-License-Identifier: GPL-2.0 */
/* Comparing two backends' VMAs (as_diff.h). */
#include "as_diff.h"

#include <inttypes.h>

bool as_vma_same(const struct as_vma *a, const struct as_vma *b, uint64_t mask)
{
	return a->start == b->start && a->end == b->end && (a->flags & mask) == (b->flags & mask) &&
	       a->rss == b->rss && a->anon == b->anon;
}

bool as_vmas_same(const struct as_vma *a, unsigned na, const struct as_vma *b, unsigned nb,
		  uint64_t mask)
{
	if (na != nb)
		return false;
	for (unsigned i = 0; i < na; i++)
		if (!as_vma_same(&a[i], &b[i], mask))
			return false;
	return true;
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
		    uint64_t base)
{
	unsigned i = 0, j = 0;
	char s[128], t[128];

	fprintf(out, "    %-50s %s\n", left, right);
	while (i < na || j < nb) {
		const struct as_vma *x = i < na ? &a[i] : NULL, *y = j < nb ? &b[j] : NULL;

		if (x && y && x->start != y->start) {
			if (x->start < y->start)
				y = NULL;
			else
				x = NULL;
		}
		fprintf(out, "  %c %-50s %s\n", x && y && as_vma_same(x, y, mask) ? ' ' : '!',
			x ? as_vma_str(x, base, s, sizeof(s)) : "",
			y ? as_vma_str(y, base, t, sizeof(t)) : "");
		i += x != NULL;
		j += y != NULL;
	}
	if (!na && !nb)
		fprintf(out, "    (no VMAs on either side)\n");
}
