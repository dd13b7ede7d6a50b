/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model files: a page cache (pgoff -> page) and i_mmap, the interval tree of
 * the VMAs mapping the file, under its i_mmap_rwsem. Every file is a tmpfs
 * (shmem) file, as a memfd is: no readahead, no writeback (a dirty page
 * stays dirty), userfaultfd registers its mappings in every mode, its pages
 * count as Pss_Shmem. A shared anonymous mapping's file (shmem_zero_setup)
 * is one too, marked shmem.
 */
#ifndef VMAFUZZ_MM_FILE_H
#define VMAFUZZ_MM_FILE_H

#include "mm/types.h"

/* A file for file-backed mappings (owned by the caller, dropped with
 * file_put); @shmem: it backs a shared anonymous mapping. NULL on failure. */
struct file *file_create(unsigned id, bool shmem);
void file_put(struct file *f);
/* Another reference to @f (dropped with file_put), as an inode reference. */
struct file *file_get(struct file *f);

/* Add @v to (remove it from) its file's i_mmap; nothing for anonymous VMAs. */
void vma_link_file(struct vma *v);
void vma_unlink_file(struct vma *v);
/* The same as vma_link_file, with the file's i_mmap_rwsem already held. */
void vma_link_file_locked(struct vma *v);
/* @v's interval changed: key it again in its file's i_mmap (no lock taken:
 * the update has no scheduling point, so no walk sees it half done). */
void vma_file_interval_update(struct vma *v);

#endif
