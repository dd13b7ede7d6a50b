/* SPDX-License-Identifier: GPL-2.0 */
/*
 * triage's SARIF log (sarif.h).
 */
#include "sarif.h"

#include "json.h"
#include "runtime/check.h"
#include "tools/text_util.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name, *id, *what;
} sanitizers[] = {
    {"AddressSanitizer", "asan", "AddressSanitizer found a memory error"},
    {"LeakSanitizer", "lsan", "LeakSanitizer found memory that is never freed"},
    {"UndefinedBehaviorSanitizer", "ubsan", "UndefinedBehaviorSanitizer found undefined behaviour"},
    {"MemorySanitizer", "msan", "MemorySanitizer found a use of uninitialised memory"},
    {"ThreadSanitizer", "tsan", "ThreadSanitizer found a data race"},
};

/* @n bytes of @s into @buf with every character but [A-Za-z0-9_.-] as '-'. */
static void put_token(char *buf, size_t len, size_t *at, const char *s, size_t n)
{
	for (size_t i = 0; i < n && *at + 1 < len; i++) {
		char c = s[i];

		buf[(*at)++] =
		    isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' ? c : '-';
	}
	buf[*at] = 0;
}

static void put_str(char *buf, size_t len, size_t *at, const char *s)
{
	size_t n = strlen(s);

	if (*at + n >= len)
		n = len - *at - 1;
	memcpy(buf + *at, s, n);
	*at += n;
	buf[*at] = 0;
}

const char *sarif_rule_id(const char *b, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < sizeof(sanitizers) / sizeof(sanitizers[0]); i++) {
		size_t n = strlen(sanitizers[i].name);

		if (!strncmp(b, sanitizers[i].name, n) && b[n] == ':') {
			const char *k = b + n + 1, *e;

			while (*k == ' ')
				k++;
			e = k + strcspn(k, " ");
			put_str(buf, len, &at, sanitizers[i].id);
			put_str(buf, len, &at, "/");
			put_token(buf, len, &at, k, (size_t)(e - k));
			return buf;
		}
	}
	if (!strncmp(b, "MODEL_ASSERT", 12))
		put_str(buf, len, &at, "model-assert");
	else if (!strncmp(b, "signal ", 7)) {
		put_str(buf, len, &at, "signal/");
		put_token(buf, len, &at, b + 7, strlen(b + 7));
	} else if (!strncmp(b, "exit status ", 12))
		put_str(buf, len, &at, "exit-status");
	else if (!strcmp(b, CRASH_BUCKET_TIMEOUT))
		put_str(buf, len, &at, "timeout");
	else if (!strcmp(b, CRASH_BUCKET_NO_FAIL))
		put_str(buf, len, &at, "no-longer-fails");
	else if (check_by_name(b) != CK_NR) {
		put_str(buf, len, &at, "invariant/");
		put_str(buf, len, &at, b);
	} else {
		put_token(buf, len, &at, b, strlen(b));
	}
	return buf;
}

const char *sarif_no_addresses(const char *s, char *buf, size_t len)
{
	size_t at = 0;

	while (*s && at + 1 < len) {
		size_t n = 0;

		if (s[0] == '0' && s[1] == 'x' && (s[2] >= '5' && s[2] <= '7'))
			while (isxdigit((unsigned char)s[2 + n]))
				n++;
		if (n == 12 && !isalnum((unsigned char)s[14])) {
			put_str(buf, len, &at, "<addr>");
			s += 14;
			continue;
		}
		buf[at++] = *s++;
	}
	buf[at] = 0;
	return buf;
}

/* What a rule means, for its help. */
static void rule_help(const char *id, char *buf, size_t len)
{
	const char *slash = strchr(id, '/');

	if (!strncmp(id, "invariant/", 10)) {
		enum check_id c = check_by_name(id + 10);

		snprintf(buf, len,
			 "Invariant %s failed: %s. The model's state after an operation "
			 "broke a rule the kernel's code keeps (docs/design.md, checks).",
			 id + 10, check_meaning(c));
		return;
	}
	for (unsigned i = 0; slash && i < sizeof(sanitizers) / sizeof(sanitizers[0]); i++)
		if (!strncmp(id, sanitizers[i].id, (size_t)(slash - id)) &&
		    strlen(sanitizers[i].id) == (size_t)(slash - id)) {
			snprintf(buf, len,
				 "%s: %s. The result names the top frames and the smallest "
				 "input; replay it with vmafuzz replay.",
				 sanitizers[i].what, slash + 1);
			return;
		}
	if (!strcmp(id, "model-assert"))
		snprintf(buf, len,
			 "A model assertion (MODEL_ASSERT) failed: a condition the model's "
			 "code relies on does not hold; the bucket names its file and line.");
	else if (!strncmp(id, "signal/", 7))
		snprintf(buf, len, "The replay driver died of %s without a sanitizer report.",
			 id + 7);
	else if (!strcmp(id, "exit-status"))
		snprintf(buf, len, "The replay driver exited with a failure status and no report.");
	else if (!strcmp(id, "timeout"))
		snprintf(buf, len,
			 "The replay driver ran past triage's --timeout: a hang or a very "
			 "slow input.");
	else if (!strcmp(id, "no-longer-fails"))
		snprintf(buf, len,
			 "The input no longer fails with this replay driver: fixed, or the "
			 "driver lacks the bug (--replay).");
	else
		snprintf(buf, len, "vmafuzz triage bucket %s.", id);
}

/* Why a result of rule @id has no location. */
static const char *no_location(const char *id)
{
	if (!strcmp(id, "no-longer-fails"))
		return "it no longer fails with this replay driver, so no check fired";
	if (!strcmp(id, "timeout"))
		return "the replay driver was killed after triage's timeout, before any check "
		       "fired";
	if (!strncmp(id, "signal/", 7) || !strcmp(id, "exit-status"))
		return "the replay driver ended without a report that says where";
	return "its report names no file of this tree or of a kernel tree";
}

/* The kernel trees' roots the results name ("" for one not known), in
 * the order met; their number. */
static size_t kernel_roots(const struct sarif_result *r, size_t n, const char **roots)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;

		if (!r[i].site || r[i].site->tree != SITE_KERNEL)
			continue;
		for (j = 0; j < k && strcmp(roots[j], r[i].site->kernel_root); j++)
			;
		if (j == k)
			roots[k++] = r[i].site->kernel_root;
	}
	return k;
}

/* The base id of kernel root @k: KSRC, KSRC_2, ... */
static const char *kernel_base(size_t k, char *buf, size_t len)
{
	if (k == 0)
		snprintf(buf, len, "KSRC");
	else
		snprintf(buf, len, "KSRC_%zu", k + 1);
	return buf;
}

/* @path as a file: URI (every byte but unreserved ones and '/' escaped). */
static void file_uri(const char *path, char *buf, size_t len)
{
	size_t at = 0;

	put_str(buf, len, &at, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p && at + 4 < len; p++) {
		if (isalnum(*p) || strchr("/-._~", *p))
			buf[at++] = (char)*p;
		else
			at += (size_t)snprintf(buf + at, len - at, "%%%02X", *p);
	}
	buf[at] = 0;
}

/* The run's originalUriBaseIds: each kernel tree's root, or what it is. */
static void print_bases(FILE *out, const char *const *roots, size_t k)
{
	char id[32], uri[1024];

	if (!k)
		return;
	fprintf(out, "    \"originalUriBaseIds\": {");
	for (size_t i = 0; i < k; i++) {
		fprintf(out, "%s\n      ", i ? "," : "");
		json_string(out, kernel_base(i, id, sizeof(id)));
		if (roots[i][0]) {
			file_uri(roots[i], uri, sizeof(uri));
			fprintf(out, ": {\"uri\": ");
			json_string(out, uri);
			fprintf(out, ", \"description\": {\"text\": \"the kernel tree the target "
				     "was built from\"}}");
		} else {
			fprintf(out, ": {\"description\": {\"text\": \"the root of the kernel "
				     "tree that reported it (a guest kernel's: see the crash's "
				     "build record); not known here\"}}");
		}
	}
	fprintf(out, "},\n");
}

/* Result @r's locations: its site, relative to its tree's base id. */
static void print_location(FILE *out, const struct sarif_result *r, const char *const *roots,
			   size_t k)
{
	const struct crash_site *s = r->site;
	char id[32];
	size_t i = 0;

	if (!s || s->tree == SITE_NONE || !s->at.file[0] || !s->at.line)
		return;
	if (s->tree == SITE_KERNEL)
		while (i + 1 < k && strcmp(roots[i], s->kernel_root))
			i++;
	fprintf(out, "{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ");
	json_string(out, s->at.file);
	fprintf(out, ", \"uriBaseId\": ");
	json_string(out, s->tree == SITE_KERNEL ? kernel_base(i, id, sizeof(id)) : "%SRCROOT%");
	fprintf(out, "}, \"region\": {\"startLine\": %u}}", s->at.line);
	if (s->at.func[0]) {
		fprintf(out, ", \"logicalLocations\": [{\"name\": ");
		json_string(out, s->at.func);
		fprintf(out, ", \"kind\": \"function\"}]");
	}
	fprintf(out, "}");
}

static bool located(const struct sarif_result *r)
{
	return r->site && r->site->tree != SITE_NONE && r->site->at.file[0] && r->site->at.line;
}

/* FNV-1a, 64 bits: a bucket's fingerprint. */
static uint64_t fnv64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

void sarif_print(FILE *out, const char *category, const struct sarif_result *r, size_t n)
{
	char(*ids)[128] = calloc(n ? n : 1, sizeof(*ids));
	size_t *rule_of = calloc(n ? n : 1, sizeof(*rule_of)), nrules = 0, nroots;
	const char **roots = calloc(n ? n : 1, sizeof(*roots));
	char text[1024], help[1024];

	if (!ids || !rule_of || !roots)
		abort();
	nroots = kernel_roots(r, n, roots);
	/* rules: one per distinct id, in the order met */
	for (size_t i = 0; i < n; i++) {
		char id[128];
		size_t k;

		sarif_rule_id(r[i].bucket, id, sizeof(id));
		for (k = 0; k < nrules && strcmp(ids[k], id); k++)
			;
		if (k == nrules)
			memcpy(ids[nrules++], id, sizeof(id));
		rule_of[i] = k;
	}
	fprintf(out, "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
		     "  \"version\": \"2.1.0\",\n"
		     "  \"runs\": [{\n"
		     "    \"automationDetails\": {\"id\": ");
	snprintf(text, sizeof(text), "%s/", category);
	json_string(out, text);
	fprintf(out, "},\n");
	print_bases(out, roots, nroots);
	fprintf(out, "    \"tool\": {\"driver\": {\"name\": \"vmafuzz\", \"rules\": [");
	for (size_t k = 0; k < nrules; k++) {
		fprintf(out, "%s\n      {\"id\": ", k ? "," : "");
		json_string(out, ids[k]);
		fprintf(out, ", \"shortDescription\": {\"text\": ");
		json_string(out, ids[k]);
		rule_help(ids[k], help, sizeof(help));
		fprintf(out, "},\n       \"fullDescription\": {\"text\": ");
		json_string(out, help);
		fprintf(out, "}, \"help\": {\"text\": ");
		json_string(out, help);
		fprintf(out, "}}");
	}
	fprintf(out, "]}},\n    \"results\": [");
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s\n      {\"ruleId\": ", i ? "," : "");
		json_string(out, ids[rule_of[i]]);
		fprintf(out,
			", \"ruleIndex\": %zu, \"level\": \"%s\",\n       \"message\": {\"text\": ",
			rule_of[i], r[i].level);
		snprintf(help, sizeof(help), "%s: %s (%zu input%s)", r[i].bucket, r[i].summary,
			 r[i].npaths, r[i].npaths == 1 ? "" : "s");
		if (!located(&r[i]))
			text_appendf(help, sizeof(help), ". No location: %s.",
				     no_location(ids[rule_of[i]]));
		json_string(out, sarif_no_addresses(help, text, sizeof(text)));
		fprintf(out,
			"},\n       \"partialFingerprints\": {\"vmafuzzBucket/v1\": \"%016" PRIx64
			"\"},\n       \"locations\": [",
			fnv64(r[i].bucket));
		print_location(out, &r[i], roots, nroots);
		fprintf(out, "],\n       \"properties\": {");
		if (!located(&r[i])) {
			fprintf(out, "\"noLocation\": ");
			json_string(out, no_location(ids[rule_of[i]]));
			fprintf(out, ", ");
		}
		fprintf(out, "\"bucket\": ");
		json_string(out, sarif_no_addresses(r[i].bucket, text, sizeof(text)));
		fprintf(out, ", \"count\": %zu, \"smallest\": ", r[i].npaths);
		json_string(out, r[i].npaths ? r[i].paths[0] : "");
		fprintf(out, ", \"files\": [");
		for (size_t k = 0; k < r[i].npaths; k++) {
			fprintf(out, "%s", k ? ", " : "");
			json_string(out, r[i].paths[k]);
		}
		fprintf(out, "]}}");
	}
	fprintf(out, "%s]\n  }]\n}\n", n ? "\n    " : "");
	free(ids);
	free(rule_of);
	free(roots);
}
