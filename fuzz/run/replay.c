/* SPDX-License-Identifier: GPL-2.0 */
/* Replaying inputs without an engine (replay.h). */
#include "replay.h"
#include "fuzz/prog/prog.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

uint8_t *read_file(const char *path, size_t *size, FILE *err_out)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f) {
		fprintf(err_out, "vmafuzz: cannot open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap + 1);
			if (!buf)
				abort();
		}
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(err_out, "vmafuzz: cannot read %s: %s\n", path, strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = 0; /* text callers may treat it as a string */
	*size = n;
	return buf;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* compile_text for a program that starts at line @first_line of @name. */
static uint8_t *compile_at(const struct fuzz_target *t, const char *text, const char *name,
			   unsigned first_line, size_t *size, FILE *err_out)
{
	static struct prog p; /* large; not reentrant, nor needs to be */
	char err[512];
	uint8_t *out;

	if (strlen(text) != *size) {
		fprintf(err_out, "%s: text program contains a NUL byte\n", name);
		return NULL;
	}
	if (!prog_parse_at(t->desc, text, name, first_line, &p, err, sizeof(err))) {
		fprintf(err_out, "%s\n", err);
		return NULL;
	}
	out = malloc(prog_encoded_size(&p) + 1);
	if (!out)
		abort();
	*size = prog_encode(&p, out);
	return out;
}

uint8_t *compile_text(const struct fuzz_target *t, const char *text, const char *name, size_t *size,
		      FILE *err_out)
{
	return compile_at(t, text, name, 1, size, err_out);
}

/* The first program in the log @data (@size bytes), compiled; @data
 * itself when it is no log. */
static uint8_t *from_log(const struct fuzz_target *t, uint8_t *data, const char *path, size_t *size,
			 FILE *err_out)
{
	unsigned line;
	size_t len;
	const char *prog = prog_log_program((const char *)data, *size, 0, &len, &line);
	char *text;
	uint8_t *bin;

	if (!prog && !line)
		return data;
	if (!prog) {
		fprintf(err_out,
			"%s:%u: the program from this line on is cut short (no line "
			"'--- ' after it)\n",
			path, line);
		free(data);
		return NULL;
	}
	text = strndup(prog, len);
	if (!text)
		abort();
	*size = len;
	bin = compile_at(t, text, path, line, size, err_out);
	free(text);
	free(data);
	return bin;
}

uint8_t *load_input(const struct fuzz_target *t, const char *path, size_t *size, FILE *err_out)
{
	uint8_t *data = read_file(path, size, err_out), *bin;

	if (!data)
		return NULL;
	if (!ends_with(path, ".txt"))
		return from_log(t, data, path, size, err_out);
	bin = compile_text(t, (const char *)data, path, size, err_out);
	free(data);
	return bin;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_one(const struct fuzz_target *t, const char *path, bool verbose)
{
	size_t size;
	uint8_t *data = load_input(t, path, &size, stderr);

	if (!data)
		return 2;
	if (verbose)
		fprintf(stderr, "replay %s (%zu bytes)\n", path, size);
	prog_trace = verbose ? stderr : NULL;
	t->run(data, size);
	prog_trace = NULL;
	free(data);
	return 0;
}

static int replay_dir(const struct fuzz_target *t, const char *dir, bool verbose, unsigned *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d) {
		fprintf(stderr, "vmafuzz: cannot open directory %s: %s\n", dir, strerror(errno));
		return 2;
	}
	while ((e = readdir(d))) {
		char *path;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			abort();
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		names[n++] = path;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (replay_one(t, names[i], verbose))
			rc = 2;
		else
			(*count)++;
		free(names[i]);
	}
	free(names);
	return rc;
}

int replay_paths(const struct fuzz_target *t, int npaths, char **paths, bool verbose)
{
	unsigned count = 0;
	int rc = 0;

	for (int i = 0; i < npaths; i++) {
		struct stat st;

		if (stat(paths[i], &st)) {
			fprintf(stderr, "vmafuzz: %s: %s\n", paths[i], strerror(errno));
			rc = 2;
		} else if (S_ISDIR(st.st_mode)) {
			if (replay_dir(t, paths[i], verbose, &count))
				rc = 2;
		} else if (replay_one(t, paths[i], verbose)) {
			rc = 2;
		} else {
			count++;
		}
	}
	fprintf(stderr, "%s: %u inputs replayed, none failed\n", t->name, count);
	return rc;
}
