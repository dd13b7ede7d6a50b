/* SPDX-License-Identifier: GPL-2.0 */
/* Model files and their i_mmap (file.h). */
#include "mm/file.h"

#include "mm/page.h"
#include "mm/types.h"
#include "runtime/alloc.h"
#include "runtime/check.h"
#include "runtime/sync.h"
#include "tree/itree.h"
#include "tree/mtree.h"

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

void vma_link_file_locked(struct vma *v)
{
	lock_assert_held_write(&v->file->i_mmap_rwsem);
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
