/* SPDX-License-Identifier: GPL-2.0 */
/* The address space as text (dump.h). */
#include "mm/dump.h"

#include "mm/anon.h"
#include "mm/types.h"
#include "mm/usage.h"
#include "runtime/alloc.h"
#include "tree/mtree.h"

#include <inttypes.h>
#include <stdio.h>

const char *vma_flags_str(uint64_t flags, char *buf, size_t len)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {
	    {VM_READ, "rd"},	   {VM_WRITE, "wr"},	    {VM_EXEC, "ex"},
	    {VM_SHARED, "sh"},	   {VM_UFFD_MISSING, "um"}, {VM_UFFD_WP, "uw"},
	    {VM_UFFD_MINOR, "ui"}, {VM_DONTCOPY, "dc"},	    {VM_ACCOUNT, "ac"},
	    {VM_WIPEONFORK, "wf"}, {VM_SOFTDIRTY, "sd"},
	};
	size_t at = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & names[i].bit && at + 4 < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? " " : "",
					       names[i].name);
	return buf;
}

/* An anon_vma's id, or a note that it was freed (not read). */
static void put_anon_vma(FILE *out, const char *before, const struct anon_vma *av)
{
	if (alloc_is_live(AK_ANON_VMA, av))
		fprintf(out, "%s#%u", before, av->id);
	else
		fprintf(out, "%s(freed anon_vma)", before);
}

/* One VMA of the dump, every object it points to checked before it is read. */
static void dump_vma(FILE *out, struct mm *mm, const struct mt_range *at, struct vma *v)
{
	struct vma_usage u;
	char flags[64];
	bool whole;

	if (!alloc_is_live(AK_VMA, v)) {
		fprintf(out, "  [%#" PRIx64 ", %#" PRIx64 "] FREED VMA (not read)\n", at->first,
			at->last);
		return;
	}
	whole = vma_usage_guarded(mm, v, &u);
	fprintf(out, "  vma#%u %#" PRIx64 "-%#" PRIx64 " %s pgoff %#" PRIx64, v->id, v->start,
		v->end, vma_flags_str(v->flags, flags, sizeof(flags)), v->pgoff);
	if (v->file) {
		if (alloc_is_live(AK_FILE, v->file))
			fprintf(out, " file%u%s", v->file->id, v->file->shmem ? "(shmem)" : "");
		else
			fprintf(out, " (freed file)");
	}
	if (v->anon_vma) {
		put_anon_vma(out, " anon_vma", v->anon_vma);
		fprintf(out, " chain");
		for (struct avc *a = v->chain; a; a = a->vma_next) {
			if (!alloc_is_live(AK_AVC, a)) {
				fprintf(out, " (freed chain entry)");
				break;
			}
			put_anon_vma(out, " ", a->av);
		}
	}
	if (v->uffd)
		fprintf(out, " uffd");
	fprintf(out, " rss %" PRIu64 " anon %" PRIu64 "%s\n", u.rss, u.anonymous,
		whole ? "" : " (some page tables or pages freed, not counted)");
}

void mm_dump(FILE *out, struct mm *mm)
{
	struct mt_cursor c;
	struct vma *v;

	if (!alloc_is_live(AK_MM, mm)) {
		fprintf(out, "mm (freed; not read)\n");
		return;
	}
	fprintf(out, "mm %u: %d VMAs, rss anon %" PRIu64 " file %" PRIu64 "\n", mm->id,
		mm->map_count, mm->rss_anon, mm->rss_file);
	mt_cursor_init(&c, &mm->mt, 0);
	while ((v = mt_cursor_next(&c))) {
		if (mt_is_zero(v)) {
			fprintf(out, "  [%#" PRIx64 ", %#" PRIx64 "] ZERO ENTRY\n", c.range.first,
				c.range.last);
			continue;
		}
		dump_vma(out, mm, &c.range, v);
	}
}
