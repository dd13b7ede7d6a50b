/* SPDX-License-Identifier: GPL-2.0 */
/* The guest's initramfs, in the kernel's newc cpio format (initramfs.h). */
#include "initramfs.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool fail(struct initramfs *a, const char *fmt, ...)
{
	va_list ap;

	if (!a->failed) {
		va_start(ap, fmt);
		vsnprintf(a->err, sizeof(a->err), fmt, ap);
		va_end(ap);
	}
	a->failed = true;
	return false;
}

bool initramfs_open(struct initramfs *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->path, sizeof(a->path), "%s", path);
	snprintf(a->tmp, sizeof(a->tmp), "%s.tmp", path);
	a->out = fopen(a->tmp, "wb");
	if (!a->out)
		return fail(a, "cannot write %s: %s", a->tmp, strerror(errno));
	return true;
}

static void pad4(struct initramfs *a, size_t n)
{
	static const char zeros[4];

	if (n % 4)
		fwrite(zeros, 1, 4 - n % 4, a->out);
}

/* One entry's header, name and data. */
static bool entry(struct initramfs *a, const char *name, unsigned mode, unsigned major,
		  unsigned minor, const void *data, size_t len)
{
	size_t namesize = strlen(name) + 1;

	if (a->failed)
		return false;
	/* newc: magic, then 13 eight-digit hex fields; the name ends at a
	 * 4-byte boundary counted from the header's start, as does the data */
	fprintf(a->out, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X", ++a->ino,
		mode, 0u, 0u, (mode & S_IFMT) == S_IFDIR ? 2u : 1u, 0u, len, 0u, 0u, major, minor,
		namesize, 0u);
	fwrite(name, 1, namesize, a->out);
	pad4(a, 110 + namesize);
	if (len)
		fwrite(data, 1, len, a->out);
	pad4(a, len);
	if (ferror(a->out))
		return fail(a, "cannot write %s: %s", a->tmp, strerror(errno));
	return true;
}

static bool have_dir(const struct initramfs *a, const char *name, size_t n)
{
	for (unsigned i = 0; i < a->ndirs; i++)
		if (strlen(a->dirs[i]) == n && !strncmp(a->dirs[i], name, n))
			return true;
	return false;
}

/* Every parent folder of @name not made yet. */
static bool parents(struct initramfs *a, const char *name)
{
	for (const char *s = strchr(name, '/'); s; s = strchr(s + 1, '/')) {
		size_t n = (size_t)(s - name);
		char dir[4096];

		if (have_dir(a, name, n))
			continue;
		if (a->ndirs == INITRAMFS_MAX_DIRS)
			return fail(a, "more than %d folders", INITRAMFS_MAX_DIRS);
		snprintf(dir, sizeof(dir), "%.*s", (int)n, name);
		a->dirs[a->ndirs] = strdup(dir);
		if (!a->dirs[a->ndirs++] || !entry(a, dir, S_IFDIR | 0755, 0, 0, NULL, 0))
			return fail(a, "cannot add folder %s", dir);
	}
	return true;
}

bool initramfs_dir(struct initramfs *a, const char *name)
{
	char with[4096];

	snprintf(with, sizeof(with), "%s/", name);
	return parents(a, with);
}

bool initramfs_node(struct initramfs *a, const char *name, unsigned mode, unsigned major,
		    unsigned minor)
{
	return parents(a, name) && entry(a, name, mode, major, minor, NULL, 0);
}

bool initramfs_data(struct initramfs *a, const char *name, const void *data, size_t len,
		    unsigned mode)
{
	return parents(a, name) && entry(a, name, S_IFREG | (mode & 07777), 0, 0, data, len);
}

bool initramfs_file(struct initramfs *a, const char *name, const char *host_path, unsigned mode)
{
	FILE *f = fopen(host_path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	bool ok;

	if (!f)
		return fail(a, "cannot read %s: %s", host_path, strerror(errno));
	for (;;) {
		if (len == cap) {
			char *b = realloc(buf, cap = cap ? 2 * cap : 1 << 20);

			if (!b) {
				free(buf);
				fclose(f);
				return fail(a, "out of memory reading %s", host_path);
			}
			buf = b;
		}
		size_t got = fread(buf + len, 1, cap - len, f);

		len += got;
		if (!got)
			break;
	}
	ok = !ferror(f);
	fclose(f);
	if (!ok) {
		free(buf);
		return fail(a, "cannot read %s", host_path);
	}
	ok = initramfs_data(a, name, buf, len, mode);
	free(buf);
	return ok;
}

bool initramfs_binary(struct initramfs *a, const char *name, const char *host_path)
{
	char cmd[4200], line[4096];
	FILE *p;
	bool ok = initramfs_file(a, name, host_path, 0755);

	if (!ok)
		return false;
	/* ldd: "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)", the
	 * loader "/lib64/ld-linux-x86-64.so.2 (0x...)"; a static binary: none */
	snprintf(cmd, sizeof(cmd), "ldd '%s' 2>/dev/null", host_path);
	p = popen(cmd, "r");
	if (!p)
		return fail(a, "cannot run ldd on %s", host_path);
	while (ok && fgets(line, sizeof(line), p)) {
		char *s = strstr(line, "=> "), *lib, *end;

		lib = s ? s + 3 : line;
		while (*lib == ' ' || *lib == '\t')
			lib++;
		if (*lib != '/')
			continue;
		end = lib + strcspn(lib, " \n(");
		*end = 0;
		if (!have_dir(a, lib + 1, strlen(lib + 1))) {
			/* each library once: remembered as a "folder" of its own name */
			if (a->ndirs == INITRAMFS_MAX_DIRS)
				ok = fail(a, "more than %d entries", INITRAMFS_MAX_DIRS);
			else if (!(a->dirs[a->ndirs] = strdup(lib + 1)))
				ok = fail(a, "out of memory");
			else {
				a->ndirs++;
				ok = initramfs_file(a, lib + 1, lib, 0755);
			}
		}
	}
	pclose(p);
	return ok;
}

bool initramfs_close(struct initramfs *a)
{
	bool ok = !a->failed;

	if (a->out) {
		ok = ok && entry(a, "TRAILER!!!", 0, 0, 0, NULL, 0);
		ok = fflush(a->out) == 0 && fsync(fileno(a->out)) == 0 && ok;
		ok = fclose(a->out) == 0 && ok;
		a->out = NULL;
	}
	for (unsigned i = 0; i < a->ndirs; i++)
		free(a->dirs[i]);
	a->ndirs = 0;
	if (ok && rename(a->tmp, a->path) != 0)
		ok = fail(a, "cannot rename %s: %s", a->tmp, strerror(errno));
	if (!ok) {
		unlink(a->tmp);
		if (!a->err[0])
			fail(a, "cannot write %s", a->tmp);
	}
	return ok;
}
