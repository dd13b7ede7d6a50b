/* mm and VMA objects, lookups, usage and the dump (mm.h). */
#include "mm.h"

#include "alloc.h"
#include "anon.h"
#include "check.h"
#include "page.h"
#include "uffd.h"
#include "vma_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static unsigned vma_ids;

struct mm *mm_create(unsigned id, uint64_t mmap_min, uint64_t mmap_max)
{
	struct mm *mm = model_alloc(AK_MM, sizeof(*mm));

	if (!mm)
		return NULL;
	mm->id = id;
	mt_init(&mm->mt);
	mt_set_rcu(&mm->mt, true);
	mt_init(&mm->ptes);
	mmap_lock_init(&mm->lock, "mmap_lock");
	mm->max_map_count = MM_MAX_MAP_COUNT;
	mm->count = 1;
	mm->mmap_min = mmap_min;
	mm->mmap_max = mmap_max;
	return mm;
}

/*
 * exit_mmap: unmap and free every VMA, page and page table. After a failed
 * fork the tree holds the zero entry at the failure point and the parent's
 * VMAs after it: the walk stops at the marker, as the kernel's does.
 */
void mm_destroy(struct mm *mm)
{
	mm_destroy_nested(mm, 0);
}

void mm_destroy_nested(struct mm *mm, unsigned subclass)
{
	struct mt_cursor c;
	struct vma *v;

	mm->exiting = true;
	mmap_write_lock_nested(&mm->lock, subclass);
	mt_cursor_init(&c, &mm->mt, 0);
	while ((v = mt_cursor_next(&c)) && !mt_is_zero(v)) {
		vma_start_write(&v->lock, &mm->lock);
		zap_range(v, v->start, v->end);
	}
	mt_cursor_reset(&c, 0);
	while ((v = mt_cursor_next(&c)) && !mt_is_zero(v)) {
		vma_mark_detached(&v->lock, &mm->lock, true);
		vma_remove(v);
		mm->map_count--;
	}
	MODEL_ASSERT(mm->map_count == 0);
	mt_destroy(&mm->mt);
	free_pgtables(mm);
	mm->dead = true;
	mmap_write_unlock(&mm->lock);
	mm_drop(mm);
}

void mm_watch_add(struct mm *mm, struct mm_watch *w)
{
	w->next = mm->watchers;
	mm->watchers = w;
}

void mm_watch_del(struct mm *mm, struct mm_watch *w)
{
	for (struct mm_watch **p = &mm->watchers; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			return;
		}
	MODEL_ASSERT(!"watcher not registered");
}

void mm_note_change(struct mm *mm, uint64_t start, uint64_t end)
{
	for (struct mm_watch *w = mm->watchers; w; w = w->next)
		w->changed(w, start, end);
}

void mm_put(struct mm *mm)
{
	MODEL_ASSERT(mm->users > 0);
	if (--mm->users == 0)
		mm_destroy(mm);
}

void mm_grab(struct mm *mm)
{
	mm->count++;
}

void mm_drop(struct mm *mm)
{
	MODEL_ASSERT(mm->count > 0);
	if (--mm->count)
		return;
	MODEL_ASSERT(mm->dead && !mm->uffd_ctxs);
	mmap_lock_destroy(&mm->lock);
	model_free(AK_MM, mm);
}

struct file *file_create(unsigned id, bool shmem)
{
	struct file *f = model_alloc(AK_FILE, sizeof(*f));

	if (!f)
		return NULL;
	f->id = id;
	f->shmem = shmem;
	f->refcount = 1;
	mt_init(&f->cache);
	rwsem_init(&f->i_mmap_rwsem, &lock_class_i_mmap, "i_mmap_rwsem");
	return f;
}

struct file *file_get(struct file *f)
{
	f->refcount++;
	return f;
}

void file_put(struct file *f)
{
	struct mt_cursor c;
	struct page *p;

	if (--f->refcount > 0)
		return;
	MODEL_ASSERT(f->i_mmap.count == 0);
	mt_cursor_init(&c, &f->cache, 0);
	while ((p = mt_cursor_next(&c))) {
		MODEL_ASSERT(p->mapcount == 0 && p->refcount == 1);
		model_free(AK_PAGE, p);
	}
	mt_destroy(&f->cache);
	rwsem_destroy(&f->i_mmap_rwsem);
	model_free(AK_FILE, f);
}

struct vma *vma_alloc(struct mm *mm)
{
	struct vma *v = model_alloc(AK_VMA, sizeof(*v));

	if (!v)
		return NULL;
	v->mm = mm;
	v->id = ++vma_ids;
	vma_lock_init(&v->lock, true);
	return v;
}

struct vma *vma_dup(const struct vma *v)
{
	struct vma *n = vma_alloc(v->mm);

	if (!n)
		return NULL;
	n->start = v->start;
	n->end = v->end;
	n->flags = v->flags;
	n->pgoff = v->pgoff;
	n->file = v->file;
	n->anon_vma = v->anon_vma;
	n->uffd = v->uffd;
	return n;
}

static void vma_free_cb(void *obj)
{
	struct vma *v = obj;

	vma_lock_destroy(&v->lock);
	model_free(AK_VMA, v);
}

void vma_free(struct vma *v)
{
	call_rcu_free(AK_VMA, v, vma_free_cb);
}

void vma_link_file_locked(struct vma *v)
{
	vma_itree_insert(&v->file->i_mmap, &v->i_mmap_node, v);
	v->file->refcount++;
}

void vma_link_file(struct vma *v)
{
	struct file *f = v->file;

	if (!f)
		return;
	down_write(&f->i_mmap_rwsem);
	vma_link_file_locked(v);
	up_write(&f->i_mmap_rwsem);
}

void vma_unlink_file(struct vma *v)
{
	struct file *f = v->file;

	if (!f)
		return;
	down_write(&f->i_mmap_rwsem);
	if (itree_contains(&f->i_mmap, &v->i_mmap_node))
		itree_remove(&f->i_mmap, &v->i_mmap_node);
	up_write(&f->i_mmap_rwsem);
	file_put(f);
}

void vma_file_interval_update(struct vma *v)
{
	struct file *f = v->file;

	if (!f || !itree_contains(&f->i_mmap, &v->i_mmap_node))
		return;
	itree_remove(&f->i_mmap, &v->i_mmap_node);
	vma_itree_insert(&f->i_mmap, &v->i_mmap_node, v);
}

struct vma *mm_find_vma(struct mm *mm, uint64_t addr)
{
	struct mt_range r;

	return mt_find(&mm->mt, addr, MT_MAX, &r);
}

struct vma *mm_vma_at(struct mm *mm, uint64_t addr)
{
	struct vma *v = mt_load(&mm->mt, addr);

	return mt_is_zero(v) ? NULL : v;
}

struct vma *vma_prev(struct mm *mm, const struct vma *v)
{
	struct mt_range r;

	return v->start ? mt_find_prev(&mm->mt, v->start - 1, 0, &r) : NULL;
}

struct vma *vma_next(struct mm *mm, const struct vma *v)
{
	struct mt_range r;

	return mt_find(&mm->mt, v->end, MT_MAX, &r);
}

struct vma *mm_vma_nth(struct mm *mm, unsigned k)
{
	struct mt_cursor c;
	struct vma *v;

	mt_cursor_init(&c, &mm->mt, 0);
	while ((v = mt_cursor_next(&c)))
		if (k-- == 0)
			return v;
	return NULL;
}

uint64_t prot_to_flags(int prot)
{
	return (prot & PROT_READ ? VM_READ : 0) | (prot & PROT_WRITE ? VM_WRITE : 0) |
	       (prot & PROT_EXEC ? VM_EXEC : 0);
}

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

void mm_dump(FILE *out, struct mm *mm)
{
	struct mt_cursor c;
	struct vma *v;
	char flags[64];

	fprintf(out, "mm %u: %d VMAs, rss anon %" PRIu64 " file %" PRIu64 "\n", mm->id,
		mm->map_count, mm->rss_anon, mm->rss_file);
	mt_cursor_init(&c, &mm->mt, 0);
	while ((v = mt_cursor_next(&c))) {
		struct vma_usage u;

		if (mt_is_zero(v)) {
			fprintf(out, "  [%#" PRIx64 ", %#" PRIx64 "] ZERO ENTRY\n", c.range.first,
				c.range.last);
			continue;
		}
		vma_usage(mm, v, &u);
		fprintf(out, "  vma#%u %#" PRIx64 "-%#" PRIx64 " %s pgoff %#" PRIx64, v->id,
			v->start, v->end, vma_flags_str(v->flags, flags, sizeof(flags)), v->pgoff);
		if (v->file)
			fprintf(out, " file%u%s", v->file->id, v->file->shmem ? "(shmem)" : "");
		if (v->anon_vma) {
			fprintf(out, " anon_vma#%u chain", v->anon_vma->id);
			for (struct avc *a = v->chain; a; a = a->vma_next)
				fprintf(out, " #%u", a->av->id);
		}
		if (v->uffd)
			fprintf(out, " uffd");
		fprintf(out, " rss %" PRIu64 " anon %" PRIu64 "\n", u.rss, u.anonymous);
	}
}
