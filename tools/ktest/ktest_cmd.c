/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz repro --ktest (ktest.h): the program file read, the kernel build's
 * probe and record read, the test written.
 */
#include "ktest.h"

#include "ktest_mtree.h"
#include "ktest_vma.h"
#include "fuzz/prog/prog.h"
#include "fuzz/targets/target.h"
#include "tools/crash_input.h"
#include "tools/triage/crash_target.h"
#include "tools/file_util.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* out/kernel/current beside this binary (out/vmafuzz) */
static bool default_kernel_dir(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return false;
	self[n] = 0;
	return (size_t)snprintf(buf, len, "%s/kernel/current", dirname(self)) < len;
}

/* The build's probe (config.mk's KMT_DEFS): which calls the tree has. */
static bool read_caps(const char *dir, struct ktest_caps *c)
{
	char path[PATH_MAX], *text, *defs;
	size_t n;

	path_fmt(path, sizeof(path), "%s/config.mk", dir);
	text = file_read(path, &n);
	if (!text)
		return false;
	defs = strstr(text, "KMT_DEFS :=");
	if (!defs) {
		free(text);
		return false;
	}
	*strchrnul(defs, '\n') = 0;
	*c = (struct ktest_caps){
	    .bulk = strstr(defs, "-DKMT_HAVE_BULK") != NULL,
	    .dup = strstr(defs, "-DKMT_HAVE_DUP") != NULL,
	    .alloc_cyclic = strstr(defs, "-DKMT_HAVE_ALLOC_CYCLIC") != NULL,
	    .mtree_dup = strstr(defs, "-DKMT_HAVE_MTREE_DUP") != NULL,
	    .find_range = strstr(defs, "-DKMT_HAVE_FIND_RANGE") != NULL,
	    .alloc = strstr(defs, "-DKMT_ALLOC_OLD") == NULL,
	};
	free(text);
	return true;
}

/* "Linux <version> (<path>)" from the build's record of its tree, and the
 * version alone into @version (when not NULL). */
static bool read_tree(const char *dir, char *buf, size_t len, char *version, size_t vlen)
{
	char path[PATH_MAX], ver[64] = "", where[PATH_MAX] = "", *text, *line, *save = NULL;
	size_t n;

	path_fmt(path, sizeof(path), "%s/tree", dir);
	text = file_read(path, &n);
	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "version ", 8))
			snprintf(ver, sizeof(ver), "%s", line + 8);
		else if (!strncmp(line, "path ", 5))
			snprintf(where, sizeof(where), "%s", line + 5);
	}
	free(text);
	if (!*ver)
		return false;
	snprintf(buf, len, "Linux %s (%s)", ver, where);
	if (version)
		snprintf(version, vlen, "%s", ver);
	return true;
}

/* The program file's own comment: its leading '#' lines, without "# ". */
static char *file_comment(const char *file)
{
	size_t n, len = 0;
	char *text = file_read(file, &n), *out, *p;

	if (!text)
		return NULL;
	out = calloc(1, n + 1);
	for (p = text; out && *p == '#';) {
		char *nl = strchrnul(p, '\n');
		char *s = p + 1 + (p[1] == ' ');

		/* the harness's own lines say how to replay, not what it is */
		if (strncmp(s, "finding:", 8) && strncmp(s, "expect:", 7) && strncmp(s, "vm:", 3) &&
		    strncmp(s, "SPDX-", 5)) {
			memcpy(out + len, s, (size_t)(nl - s));
			len += (size_t)(nl - s);
			out[len++] = '\n';
		}
		p = *nl ? nl + 1 : nl;
	}
	free(text);
	return out;
}

/* vmafuzz_<the file's name>, as a C identifier */
static void test_name(const char *file, char *buf, size_t len)
{
	char copy[PATH_MAX], *base, *dot;
	size_t k;

	snprintf(copy, sizeof(copy), "%s", file);
	base = basename(copy);
	if ((dot = strchr(base, '.')))
		*dot = 0;
	k = (size_t)snprintf(buf, len, "vmafuzz_%s", base);
	for (char *c = buf + 8; *c; c++)
		if (!isalnum((unsigned char)*c))
			*c = '_';
	if (k >= len || !base[0])
		snprintf(buf, len, "vmafuzz_test");
}

/* The test to @out_path (whole, or not at all) or stdout. */
static bool put_out(const char *out_path, const char *buf, size_t len)
{
	if (out_path && strcmp(out_path, "-")) {
		if (!file_write_atomic(out_path, buf, len)) {
			fprintf(stderr, "vmafuzz repro: cannot write %s: %s\n", out_path,
				strerror(errno));
			return false;
		}
	} else if (fwrite(buf, 1, len, stdout) != len || fflush(stdout)) {
		fprintf(stderr, "vmafuzz repro: cannot write to stdout\n");
		return false;
	}
	return true;
}

/* A target's writer (ktest_mtree_write, ktest_vma_write) over its context. */
typedef bool (*test_writer)(FILE *out, const uint8_t *data, size_t size, const char *name,
			    const char *comment, const char *tree_name, const void *ctx, char *why,
			    size_t whylen);

static bool write_mtree(FILE *out, const uint8_t *data, size_t size, const char *name,
			const char *comment, const char *tree_name, const void *ctx, char *why,
			size_t whylen)
{
	return ktest_mtree_write(out, data, size, name, comment, tree_name, ctx, why, whylen);
}

static bool write_vma(FILE *out, const uint8_t *data, size_t size, const char *name,
		      const char *comment, const char *tree_name, const void *ctx, char *why,
		      size_t whylen)
{
	return ktest_vma_write(out, data, size, name, comment, tree_name, ctx, why, whylen);
}

/*
 * The test of @file's program @data (freed here) written whole in memory
 * first, so that a refused program leaves @out_path as it was, then to
 * @out_path or stdout. The exit status.
 */
static int write_test(const char *file, uint8_t *data, size_t size, const char *out_path,
		      const char *tree_name, test_writer writer, const void *ctx)
{
	char name[96], why[600], *buf = NULL, *comment = file_comment(file);
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	bool ok;

	test_name(file, name, sizeof(name));
	ok = mem && writer(mem, data, size, name, comment, tree_name, ctx, why, sizeof(why));
	if (mem)
		fclose(mem);
	if (!ok)
		fprintf(stderr, "vmafuzz repro: %s: %s\n", file, mem ? why : "out of memory");
	else
		ok = put_out(out_path, buf, len);
	free(buf);
	free(comment);
	free(data);
	return ok ? 0 : 2;
}

/* The value of "NAME := value" in a make fragment's text, into @buf. */
static bool mk_value(const char *text, const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *v = l + n;

		if (strncmp(l, name, n) || (*v != ' ' && *v != ':'))
			continue;
		while (*v == ' ')
			v++;
		if (strncmp(v, ":=", 2))
			continue;
		v += 2 + (v[2] == ' ');
		snprintf(buf, len, "%.*s", (int)strcspn(v, "\n"), v);
		return true;
	}
	return false;
}

/* The build's vma probe (vma_config.mk): the layout and the stubs' gaps. */
static bool read_vma_tree(const char *dir, struct ktest_vma_tree *t)
{
	char path[PATH_MAX], *text;
	size_t n;
	bool ok;

	memset(t, 0, sizeof(*t));
	path_fmt(path, sizeof(path), "%s/vma_config.mk", dir);
	text = file_read(path, &n);
	if (!text)
		return false;
	ok = mk_value(text, "KVMA_LAYOUT", t->layout, sizeof(t->layout)) && t->layout[0];
	/* (a cut list would define half a name: none rather) */
	if (ok && mk_value(text, "KVMA_DEFS", t->defs, sizeof(t->defs)) &&
	    strlen(t->defs) + 1 >= sizeof(t->defs))
		ok = false;
	free(text);
	return ok;
}

/* Whether @file is a kfuzz_vma program, fuzz_mm's: its text's target line,
 * a log's program's, or a path component (a crash file's bytes in a
 * kfuzz_vma folder) says so (tools/triage/crash_target.h). */
static bool is_vma_program(const char *file)
{
	const struct fuzz_target *t = crash_target_of(file);

	return t && t->desc && !strcmp(t->desc->target, "fuzz_mm");
}

/* A kfuzz_vma program as a tools/testing/vma test. */
static int ktest_vma(const char *file, const char *out_path, const char *kernel_dir)
{
	char dir[PATH_MAX], tree_name[PATH_MAX + 80];
	static struct ktest_vma_tree tree;
	bool have_tree;
	uint8_t *data;
	size_t size;

	/* read as fuzz_mm's (its text may name threads t1...); the bytes run on
	 * one thread, as kfuzz_vma runs its seeds */
	data = crash_input_load("repro", &fuzz_mm_target, file, &size, NULL);
	if (!data)
		return 2;
	if (kernel_dir)
		snprintf(dir, sizeof(dir), "%s", kernel_dir);
	if ((!kernel_dir && !default_kernel_dir(dir, sizeof(dir))) || !read_vma_tree(dir, &tree)) {
		fprintf(stderr,
			"vmafuzz repro: %s is a kfuzz_vma program, and %s is no kernel build with "
			"kfuzz_vma (no vma_config.mk naming the layout): give one with --kernel "
			"DIR (out/kernel/<version>-<hash>, ./build.sh kernel)\n",
			file, kernel_dir ? kernel_dir : "out/kernel/current");
		free(data);
		return 2;
	}
	have_tree =
	    read_tree(dir, tree_name, sizeof(tree_name), tree.release, sizeof(tree.release));
	if (!have_tree) {
		fprintf(stderr,
			"vmafuzz repro: %s/tree names no version: the model cannot follow the "
			"tree's (rebuild with ./build.sh kernel)\n",
			dir);
		free(data);
		return 2;
	}
	return write_test(file, data, size, out_path, tree_name, write_vma, &tree);
}

int ktest_repro(const char *file, const char *out_path, const char *kernel_dir)
{
	char dir[PATH_MAX], tree[PATH_MAX + 80];
	struct ktest_caps caps = ktest_caps_all;
	bool have_tree = false;
	uint8_t *data;
	size_t size;

	if (is_vma_program(file))
		return ktest_vma(file, out_path, kernel_dir);
	data = crash_input_load("repro", &fuzz_mtree_target, file, &size, NULL);
	if (!data)
		return 2;
	if (kernel_dir)
		snprintf(dir, sizeof(dir), "%s", kernel_dir);
	if (kernel_dir || default_kernel_dir(dir, sizeof(dir))) {
		if (!read_caps(dir, &caps)) {
			if (kernel_dir) {
				fprintf(stderr,
					"vmafuzz repro: %s is no kernel build (no config.mk with "
					"the probe's KMT_DEFS)\n",
					dir);
				free(data);
				return 2;
			}
			fprintf(stderr, "vmafuzz repro: no kernel build (./build.sh kernel): "
					"writing every call, as for a current tree\n");
		}
		have_tree = read_tree(dir, tree, sizeof(tree), NULL, 0);
	}
	return write_test(file, data, size, out_path, have_tree ? tree : NULL, write_mtree, &caps);
}
