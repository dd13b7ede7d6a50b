/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest's initramfs (live/vm/initramfs.h), read back entry by entry as
 * the kernel's unpacker reads the newc format: every header well formed,
 * names and data at 4-byte boundaries, each folder before what it holds,
 * device nodes with their numbers, the trailer last; the same entries give
 * the same bytes; a failed archive leaves nothing behind.
 */
#include "live/vm/initramfs.h"
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ent {
	char name[256];
	unsigned mode, major, minor;
	size_t len;
	const char *data;
};

static unsigned long hex8(const char *p)
{
	char b[9];

	memcpy(b, p, 8);
	b[8] = 0;
	return strtoul(b, NULL, 16);
}

/* Parse @buf into @e; the number of entries, trailer included; 0: malformed. */
static unsigned parse(const char *buf, size_t len, struct ent *e, unsigned max)
{
	size_t at = 0;
	unsigned n = 0;

	while (at + 110 <= len && n < max) {
		const char *h = buf + at;
		size_t namesize, filesize;

		if (memcmp(h, "070701", 6) || at % 4)
			return 0;
		e[n].mode = (unsigned)hex8(h + 14);
		filesize = hex8(h + 54);
		e[n].major = (unsigned)hex8(h + 78);
		e[n].minor = (unsigned)hex8(h + 86);
		namesize = hex8(h + 94);
		if (namesize > sizeof(e[n].name) || at + 110 + namesize > len ||
		    h[110 + namesize - 1] != 0)
			return 0;
		memcpy(e[n].name, h + 110, namesize);
		at += (110 + namesize + 3) & ~(size_t)3;
		e[n].len = filesize;
		e[n].data = buf + at;
		at += (filesize + 3) & ~(size_t)3;
		if (at > len)
			return 0;
		if (!strcmp(e[n++].name, "TRAILER!!!"))
			return at == len ? n : 0;
	}
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc(*len + 1);
	if (b && fread(b, 1, *len, f) != *len) {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

static unsigned find(const struct ent *e, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(e[i].name, name))
			return i;
	return n;
}

static bool build(const char *path, const char *hostfile)
{
	struct initramfs a;

	return initramfs_open(&a, path) &&
	       initramfs_node(&a, "dev/console", S_IFCHR | 0600, 5, 1) &&
	       initramfs_dir(&a, "proc") && initramfs_data(&a, "a/b/job", "arg x\n", 6, 0644) &&
	       initramfs_file(&a, "a/c/copy", hostfile, 0755) && initramfs_close(&a);
}

static bool test_round_trip(void)
{
	char dir[] = "/tmp/vmafuzz-ir-XXXXXX", p1[64], p2[64], host[64];
	struct ent e[32];
	size_t l1, l2;
	char *b1, *b2;
	unsigned n;
	FILE *f;

	ASSERT(mkdtemp(dir));
	snprintf(p1, sizeof(p1), "%s/one", dir);
	snprintf(p2, sizeof(p2), "%s/two", dir);
	snprintf(host, sizeof(host), "%s/host", dir);
	f = fopen(host, "w");
	ASSERT(f);
	fputs("12345", f); /* not a multiple of 4: the padding shows */
	fclose(f);
	ASSERT(build(p1, host));
	ASSERT(build(p2, host));
	b1 = slurp(p1, &l1);
	b2 = slurp(p2, &l2);
	ASSERT(b1 && b2);
	ASSERT(l1 == l2 && !memcmp(b1, b2, l1));
	n = parse(b1, l1, e, 32);
	ASSERT(n > 0);
	/* folders before their contents, each once */
	ASSERT(find(e, n, "dev") < find(e, n, "dev/console"));
	ASSERT(find(e, n, "a") < find(e, n, "a/b"));
	ASSERT(find(e, n, "a/b") < find(e, n, "a/b/job"));
	ASSERT(find(e, n, "a/c") < find(e, n, "a/c/copy"));
	ASSERT(find(e, n, "proc") < n);
	unsigned k = find(e, n, "dev/console");

	ASSERT((e[k].mode & S_IFMT) == S_IFCHR);
	ASSERT_EQ(e[k].major, 5);
	ASSERT_EQ(e[k].minor, 1);
	k = find(e, n, "a/b/job");
	ASSERT(e[k].len == 6 && !memcmp(e[k].data, "arg x\n", 6));
	k = find(e, n, "a/c/copy");
	ASSERT(e[k].len == 5 && !memcmp(e[k].data, "12345", 5));
	ASSERT_EQ(e[k].mode & 07777, 0755);
	ASSERT(!strcmp(e[n - 1].name, "TRAILER!!!"));
	/* no temporary left */
	snprintf(p2, sizeof(p2), "%s/one.tmp", dir);
	ASSERT(access(p2, F_OK) != 0);
	free(b1);
	free(b2);
	return true;
}

static bool test_failure_leaves_nothing(void)
{
	char dir[] = "/tmp/vmafuzz-ir-XXXXXX", p[64];
	struct initramfs a;

	ASSERT(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/out", dir);
	ASSERT(initramfs_open(&a, p));
	ASSERT(!initramfs_file(&a, "x", "/nonexistent/file", 0644));
	ASSERT(!initramfs_close(&a));
	ASSERT(strstr(a.err, "/nonexistent/file"));
	ASSERT(access(p, F_OK) != 0);
	snprintf(p, sizeof(p), "%s/out.tmp", dir);
	ASSERT(access(p, F_OK) != 0);
	ASSERT(!initramfs_open(&a, "/nonexistent/dir/out"));
	ASSERT(strstr(a.err, "cannot write"));
	return true;
}

int main(void)
{
	TEST(test_round_trip);
	TEST(test_failure_leaves_nothing);
	return test_summary();
}
