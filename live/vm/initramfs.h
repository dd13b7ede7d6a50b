/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest's root file system: an initramfs (the kernel's "newc" cpio
 * format, uncompressed), written entry by entry. Parents of every entry are
 * made first, as the kernel's unpacker makes none; every entry gets time 0
 * and owner root, so the same inputs give the same bytes. A binary comes
 * with the shared libraries and the loader it needs (as ldd names them),
 * at their own paths. The archive is written to a temporary name and
 * renamed into place when complete: a failed build leaves no half archive.
 */
#ifndef VMAFUZZ_INITRAMFS_H
#define VMAFUZZ_INITRAMFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define INITRAMFS_MAX_DIRS 256

struct initramfs {
	FILE *out;
	char path[4096], tmp[4112];
	unsigned ino;
	bool failed;
	char *dirs[INITRAMFS_MAX_DIRS]; /* made so far */
	unsigned ndirs;
	char err[256]; /* what failed, when it did */
};

bool initramfs_open(struct initramfs *a, const char *path);
/* Entries, by their path in the guest ("bin/x": no leading slash). */
bool initramfs_dir(struct initramfs *a, const char *name);
bool initramfs_node(struct initramfs *a, const char *name, unsigned mode, unsigned major,
		    unsigned minor);
bool initramfs_data(struct initramfs *a, const char *name, const void *data, size_t len,
		    unsigned mode);
bool initramfs_file(struct initramfs *a, const char *name, const char *host_path, unsigned mode);
/* @host_path at @name, and the libraries it links, each at its host path. */
bool initramfs_binary(struct initramfs *a, const char *name, const char *host_path);
/* The trailer; the archive in place. False (and nothing in place) after any
 * failure: a->err says which. */
bool initramfs_close(struct initramfs *a);

#endif
