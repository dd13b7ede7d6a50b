/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run is (plan.h).
 */
#include "plan.h"
#include "tools/file_util.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MSG "vmafuzz fuzz: "

/* Letters, digits and '_' only: a name that is a file name, never a path. */
static bool plain_name(const char *s)
{
	if (!*s || strlen(s) >= 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* kernel/<backend>/<name>.c into @buf; false if there is none. */
static bool kernel_source(const char *name, char *buf, size_t len)
{
	char pat[128];
	glob_t g;
	bool found;

	path_fmt(pat, sizeof(pat), "kernel/*/%s.c", name);
	found = glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0;
	if (found)
		snprintf(buf, len, "%s", g.gl_pathv[0]);
	globfree(&g);
	return found;
}

static bool exists(const char *dir, const char *name)
{
	char path[256];

	path_fmt(path, sizeof(path), "%s/%s.c", dir, name);
	return access(path, F_OK) == 0;
}

bool campaign_is_target(const char *name)
{
	char src[256];

	if (!plain_name(name))
		return false;
	if (!strncmp(name, "kfuzz_", 6))
		return kernel_source(name, src, sizeof(src));
	return !strncmp(name, "fuzz_", 5) && (exists("fuzz/targets", name) || exists("live", name));
}

void campaign_list_targets(FILE *f)
{
	static const char *const pats[] = {"fuzz/targets/fuzz_*.c", "live/fuzz_*.c",
					   "kernel/*/kfuzz_*.c"};

	for (unsigned p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
		glob_t g;

		if (glob(pats[p], 0, NULL, &g) == 0)
			for (size_t i = 0; i < g.gl_pathc; i++) {
				const char *b = strrchr(g.gl_pathv[i], '/') + 1;

				fprintf(f, " %.*s", (int)(strlen(b) - 2), b);
			}
		globfree(&g);
	}
}

/* The name on @src's line "vmafuzz-twin: NAME" into @buf. */
static bool twin_of(const char *src, char *buf, size_t len)
{
	FILE *f = fopen(src, "r");
	char line[512];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "vmafuzz-twin: ");
		size_t n;

		if (!p)
			continue;
		p += 14;
		n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
		if (n && n < len) {
			memcpy(buf, p, n);
			buf[n] = 0;
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether @name is a word of @list (words split by blanks). */
static bool word_in(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[n] == 0 || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/* The bugs' build name (sorted, once each, joined by '+'), as the Makefile
 * names it; 2 after a message if one is not planted. */
static int bug_build(const struct campaign_opts *o, const char *planted, char *buf, size_t len)
{
	const char *names[CAMPAIGN_MAX_BUGS];
	size_t at = 0;

	for (int i = 0; i < o->nbugs; i++) {
		if (!plain_name(o->bugs[i]) || !word_in(planted, o->bugs[i])) {
			fprintf(stderr, MSG "no planted bug '%s' (have: %s)\n", o->bugs[i],
				planted);
			return 2;
		}
		names[i] = o->bugs[i];
	}
	qsort(names, (size_t)o->nbugs, sizeof(names[0]), cmp_str);
	buf[0] = 0;
	for (int i = 0; i < o->nbugs; i++)
		if (!i || strcmp(names[i], names[i - 1]))
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "+" : "", names[i]);
	return 0;
}

/* @path from @cwd when relative, into @buf. */
static void from_cwd(const char *cwd, const char *path, char *buf, size_t len)
{
	if (path[0] == '/' || !cwd)
		path_fmt(buf, len, "%s", path);
	else
		path_fmt(buf, len, "%s/%s", cwd, path);
}

/* The kind and twin of @c->target; 2 after a message. */
static int kind_of(struct campaign *c)
{
	char src[256];

	snprintf(c->twin, sizeof(c->twin), "%s", c->target);
	if (!plain_name(c->target))
		goto unknown;
	if (kernel_source(c->target, src, sizeof(src))) {
		c->kind = CAMPAIGN_KERNEL;
	} else if (exists("live", c->target)) {
		c->kind = CAMPAIGN_LIVE;
		path_fmt(src, sizeof(src), "live/%s.c", c->target);
	} else if (exists("fuzz/targets", c->target)) {
		c->kind = CAMPAIGN_MODEL;
		return 0;
	} else {
		goto unknown;
	}
	if (!twin_of(src, c->twin, sizeof(c->twin)) || !exists("fuzz/targets", c->twin)) {
		fprintf(stderr, MSG "%s names no model twin (a line 'vmafuzz-twin: NAME')\n", src);
		return 2;
	}
	return 0;
unknown:
	fprintf(stderr, MSG "unknown target '%s' (have:", c->target);
	campaign_list_targets(stderr);
	fprintf(stderr, ")\n");
	return 2;
}

/* What the kind allows of the options; 2 after a message. */
static int allowed(const struct campaign *c)
{
	const struct campaign_opts *o = c->o;

	if (o->nbugs && o->plain) {
		fprintf(stderr, MSG "--bug builds have the structure-aware mutator (no --plain)\n");
		return 2;
	}
	if (o->nbugs && c->kind == CAMPAIGN_KERNEL) {
		fprintf(stderr,
			MSG "--bug plants bugs in the model; the kernel targets' reverted "
			    "fixes are patches to the kernel tree (scripts/kernel-bugs.sh)\n");
		return 2;
	}
	if (c->kind == CAMPAIGN_KERNEL && o->plain) {
		fprintf(stderr, MSG "%s runs with the structure-aware mutator only (no --plain)\n",
			c->target);
		return 2;
	}
	if (c->kind == CAMPAIGN_LIVE && (o->afl || o->plain || o->nbugs)) {
		fprintf(stderr,
			MSG "%s runs under libFuzzer with the structure-aware mutator only "
			    "(no --afl, --plain or --bug)\n",
			c->target);
		return 2;
	}
	return 0;
}

/* The first line @cmd prints, into @buf; false when it prints none or fails. */
static bool first_line(const char *cmd, char *buf, size_t len)
{
	FILE *p = popen(cmd, "r");
	bool ok;

	if (!p)
		return false;
	ok = fgets(buf, (int)len, p) != NULL;
	if (pclose(p) != 0)
		ok = false;
	buf[strcspn(buf, "\n")] = 0;
	return ok && buf[0];
}

/*
 * A kernel target's builds are those of the tree in use (KSRC, else the
 * recorded tree, else Debian's 6.12: scripts/kernel-tree.sh, as the
 * Makefile asks it), named by the tree's key: out/kernel/<key>/<engine>.
 * 0, or 2 after a message.
 */
static int kernel_tree(struct campaign *c, char *key, size_t len)
{
	char cmd[PATH_MAX + 64];

	if (!first_line("scripts/kernel-tree.sh", c->ktree, sizeof(c->ktree))) {
		fprintf(stderr, MSG "%s needs a kernel tree (the reason is above)\n", c->target);
		return 2;
	}
	snprintf(cmd, sizeof(cmd), "scripts/kernel-tree.sh --key '%s'", c->ktree);
	if (strchr(c->ktree, '\'') || !first_line(cmd, key, len)) {
		fprintf(stderr, MSG "%s: no version of the kernel tree %s\n", c->target, c->ktree);
		return 2;
	}
	/* the key is <version>-<hash> */
	snprintf(c->kversion, sizeof(c->kversion), "%.*s",
		 strrchr(key, '-') ? (int)(strrchr(key, '-') - key) : (int)strlen(key), key);
	return 0;
}

/* The engine build and the one that merges. 0, or 2 after a message. */
static int builds(struct campaign *c)
{
	const char *engine = c->o->afl ? "afl" : c->o->plain ? "libfuzzer-plain" : "libfuzzer";
	char key[64] = "";
	int rc;

	if (c->kind == CAMPAIGN_KERNEL && (rc = kernel_tree(c, key, sizeof(key))))
		return rc;
	if (c->kind == CAMPAIGN_KERNEL)
		snprintf(c->build, sizeof(c->build), "kernel/%s/%s", key, engine);
	else if (c->bug[0])
		snprintf(c->build, sizeof(c->build), "bugs/%s/%s", c->bug, engine);
	else
		snprintf(c->build, sizeof(c->build), "%s", engine);
	/* the corpus is every build's: an input a planted bug crashes stays */
	engine = c->o->plain ? "libfuzzer-plain" : "libfuzzer";
	if (c->kind == CAMPAIGN_KERNEL)
		snprintf(c->merge_build, sizeof(c->merge_build), "kernel/%s/%s", key, engine);
	else
		snprintf(c->merge_build, sizeof(c->merge_build), "%s", engine);
	return 0;
}

int campaign_plan(const struct campaign_opts *o, const char *planted, const char *cwd,
		  struct campaign *c)
{
	const char *root = getenv("VMAFUZZ_WORK_ROOT");
	char path[PATH_MAX];
	ssize_t n;
	int rc;

	memset(c, 0, sizeof(*c));
	c->o = o;
	snprintf(c->target, sizeof(c->target), "%s", o->target ? o->target : "fuzz_mm");
	if (o->nbugs && (rc = bug_build(o, planted, c->bug, sizeof(c->bug))))
		return rc;
	if ((rc = kind_of(c)) || (rc = allowed(c)))
		return rc;
	if ((rc = builds(c)))
		return rc;
	if (!root || !*root)
		snprintf(path, sizeof(path), "out/work");
	else
		from_cwd(cwd, root, path, sizeof(path));
	path_fmt(c->work, sizeof(c->work), "%s/%s", path, c->target);
	if (o->seeds) {
		from_cwd(cwd, o->seeds, c->seeds, sizeof(c->seeds));
		if (!path_is_dir(c->seeds)) {
			fprintf(stderr, MSG "--seeds %s: not a directory\n", o->seeds);
			return 2;
		}
	} else {
		path_fmt(c->seeds, sizeof(c->seeds), "out/corpus/%s", c->twin);
	}
	path_fmt(c->dict, sizeof(c->dict), "dict/%s.dict", c->twin);
	if (access(c->dict, R_OK))
		c->dict[0] = 0;
	n = readlink("/proc/self/exe", c->exe, sizeof(c->exe) - 1);
	c->exe[n > 0 ? n : 0] = 0;
	return 0;
}

void campaign_binary(const struct campaign *c, const char *build, char *buf, size_t len)
{
	path_fmt(buf, len, "out/%s/%s", build, c->target);
}

const char *campaign_abs(const char *path, char *buf, size_t len)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		path_fmt(buf, len, "%s", path);
	else
		path_fmt(buf, len, "%s/%s", cwd, path);
	return buf;
}
