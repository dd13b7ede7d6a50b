/*
 * Crash files and their buckets: shared by the triage, minimize, regress and
 * replay commands.
 *
 * A crash is replayed in the standalone sanitized driver (replay/<target>
 * beside the vmafuzz binary, or in a directory given with --replay) as a
 * subprocess with a timeout; its stderr decides the bucket:
 *
 *   vmafuzz: invariant <ID> failed: ...          <ID>
 *   vmafuzz: model assertion failed at F:L ...   MODEL_ASSERT F:L
 *   ==N==ERROR: AddressSanitizer: <kind> ...     AddressSanitizer: <kind> in f0 <- f1 <- f2
 *   F:L:C: runtime error: ...                    UndefinedBehaviorSanitizer: <check> in ...
 *   ==N==ERROR: LeakSanitizer: ...               LeakSanitizer: detected memory leaks in ...
 *   killed after the timeout                     timeout
 *   exit status 0                                no longer fails
 *
 * where f0..f2 are the names of the top three stack frames in the model
 * (src/ minus the reporting in src/check.c; else in the harness, fuzz/), so
 * a bucket is the same across builds.
 */
#ifndef VMAFUZZ_CRASH_H
#define VMAFUZZ_CRASH_H

#include "target.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CRASH_BUCKET_NO_FAIL "no longer fails"
#define CRASH_BUCKET_TIMEOUT "timeout"
#define CRASH_DEFAULT_TIMEOUT 20 /* seconds */
#define CRASH_FRAMES 3

/* The target a file belongs to, from a path component such as
 * corpus/fuzz_mtree/ or out/work/fuzz_mtree/crashes/; NULL if none. */
const struct fuzz_target *target_from_path(const char *path);

/* The same, but a text program (.txt) by its `target` line first. */
const struct fuzz_target *crash_target_of(const char *path);

/* The replay driver of @target: <dir>/<target>, or with @dir NULL the one
 * beside this binary, <dir of /proc/self/exe>/replay/<target>. False when it
 * is not there (or not executable); @buf holds the path tried. */
bool replay_driver(const char *dir, const char *target, char *buf, size_t len);

struct crash_frame {
	char func[128];
	char file[256]; /* as the symbolizer printed it; "" when unknown */
	unsigned line;	/* 0 when unknown */
};

/* What a run of the driver on one input says. */
struct crash_result {
	char bucket[512];  /* the bucket identifier */
	char summary[256]; /* the failure line, trimmed */
	bool failed;	   /* false: the input no longer fails */
	unsigned nframes;  /* frames named in the bucket */
	struct crash_frame frames[CRASH_FRAMES];
};

/* Bucket a driver's stderr, its wait status and whether it was killed after
 * the timeout. */
void crash_classify(const char *log, int wstatus, bool timed_out, struct crash_result *r);

/*
 * Run @driver on @file (stdout discarded, stderr captured) and bucket it.
 * Killed after @timeout seconds. Returns false, with a message on stderr,
 * when the driver cannot be run at all. With @log non-NULL, *log receives
 * the captured stderr (caller frees).
 */
bool crash_run(const char *driver, const char *file, unsigned timeout, struct crash_result *r,
	       char **log);

/* An invariant or assertion failure has no stack; run @file again with
 * AddressSanitizer handling the abort to find r->frames (where the check
 * failed, below the reporting in src/check.c). Nothing if it has frames. */
void crash_locate(const char *driver, const char *file, unsigned timeout, struct crash_result *r);

/* A crash file found by crash_collect. */
struct crash_file {
	char *path;
	size_t size;
	const struct fuzz_target *target;
};

/*
 * The crash files named by @paths: a regular file as it is; a directory as
 * a libFuzzer artifact folder (its crash-*, leak-*, timeout-* and oom-*
 * files, or every regular file when it has none of those) or an AFL++
 * output folder (<dir>/<instance>/crashes/id:*, or <dir>/crashes/id:*).
 * README.txt and hidden files are skipped; the list is sorted by path. The
 * target of each file is @t, else the one its path names. Returns 0, or 2
 * after a message (prefixed by @cmd) on stderr.
 */
int crash_collect(const char *cmd, int npaths, char **paths, const struct fuzz_target *t,
		  struct crash_file **files, size_t *nfiles);
void crash_files_free(struct crash_file *files, size_t n);

/* Options the crash commands share: --target T, --replay DIR, --timeout S. */
struct crash_opts {
	const struct fuzz_target *target; /* NULL: from the path */
	const char *replay_dir;		  /* NULL: replay/ beside this binary */
	unsigned timeout;		  /* seconds */
};

/* Take one shared option at argv[*i] (advancing *i past its argument):
 * 1 if taken, 0 if argv[*i] is not one, -1 after a usage error. */
int crash_opt(const char *cmd, int argc, char **argv, int *i, struct crash_opts *o);

/* The driver for target @t under @o; false after a message on stderr. */
bool crash_driver(const char *cmd, const struct crash_opts *o, const struct fuzz_target *t,
		  char *buf, size_t len);

/* A file-name fragment for a bucket: lower case, [a-z0-9-], at most 48. */
void crash_slug(const char *bucket, char *buf, size_t len);
/* FNV-1a, for short content hashes. */
uint32_t crash_hash32(const uint8_t *data, size_t n);
uint64_t crash_hash64(const uint8_t *data, size_t n);

/* @s as a JSON string literal, quotes included. */
void json_string(FILE *out, const char *s);

/* Write @size bytes to a new temporary file; its path in @path (size >= 64).
 * False with a message on stderr on error. */
bool crash_write_temp(const uint8_t *data, size_t size, char *path, size_t len);
/* Write @size bytes to @path ("-": stdout). False with a message on error. */
bool crash_write_file(const char *path, const uint8_t *data, size_t size);

#endif
