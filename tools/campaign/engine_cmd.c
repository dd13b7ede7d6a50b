/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engines' command lines (engine_cmd.h).
 */
#include "engine_cmd.h"
#include "tools/file_util.h"
#include "tools/text_util.h"

#include <stdio.h>

void engine_libfuzzer(const struct campaign *c, struct strv *v)
{
	char bin[PATH_MAX];

	campaign_binary(c, c->build, bin, sizeof(bin));
	strv_add(v, bin);
	strv_addf(v, "%s/corpus", c->work);
	strv_add(v, c->seeds);
	if (c->dict[0])
		strv_addf(v, "-dict=%s", c->dict);
	strv_addf(v, "-max_total_time=%ld", c->o->seconds);
	strv_addf(v, "-artifact_prefix=%s/crashes/", c->work);
	strv_add(v, "-print_final_stats=1");
	if (c->o->jobs > 1) {
		/* fork mode: N child processes, new inputs merged into the first
		 * corpus folder; a crash is saved and fuzzing goes on */
		strv_addf(v, "-fork=%ld", c->o->jobs);
		strv_add(v, "-ignore_crashes=1");
	}
	if (c->kind == CAMPAIGN_LIVE)
		strv_addf(v, "-max_len=%d", ENGINE_LIVE_MAX_LEN);
	for (int i = 0; i < c->o->nengine; i++)
		strv_add(v, c->o->engine[i]);
}

void engine_merge(const struct campaign *c, const char *into, struct strv *v)
{
	char bin[PATH_MAX];

	campaign_binary(c, c->merge_build, bin, sizeof(bin));
	strv_add(v, bin);
	strv_add(v, "-merge=1");
	/* an input that crashes the merge is saved with the run's crashes */
	strv_addf(v, "-artifact_prefix=%s/crashes/", c->work);
	strv_add(v, into);
	strv_addf(v, "%s/corpus", c->work);
}

const char *engine_afl_name(const struct campaign *c, int k, char *buf, size_t len)
{
	if (c->o->jobs == 1)
		snprintf(buf, len, "default");
	else if (k == 0)
		snprintf(buf, len, "main");
	else
		snprintf(buf, len, "s%d", k);
	return buf;
}

void engine_afl_folders(const struct campaign *c, const char *work, char *buf, size_t len)
{
	char name[32];

	snprintf(buf, len, "%s/afl/%s", work, c->o->jobs > 1 ? "{" : "default");
	for (int k = 0; c->o->jobs > 1 && k < c->o->jobs; k++)
		text_appendf(buf, len, "%s%s", k ? "," : "",
			     engine_afl_name(c, k, name, sizeof(name)));
	if (c->o->jobs > 1)
		text_appendf(buf, len, "}");
}

void engine_afl_binaries(const struct campaign *c, char *bin, char *cmplog, size_t len)
{
	campaign_binary(c, c->build, bin, len);
	/* CmpLog's comparisons come from the build without planted bugs */
	path_fmt(cmplog, len, "out/%safl-cmplog/%s", c->kind == CAMPAIGN_KERNEL ? "kernel/" : "",
		 c->target);
}

void engine_afl(const struct campaign *c, const char *in, int k, struct strv *v)
{
	char bin[PATH_MAX], cmplog[PATH_MAX], name[32];

	engine_afl_binaries(c, bin, cmplog, sizeof(bin));
	strv_add(v, "afl-fuzz");
	strv_add(v, "-i");
	strv_add(v, in);
	strv_add(v, "-o");
	strv_addf(v, "%s/afl", c->work);
	if (c->dict[0]) {
		strv_add(v, "-x");
		strv_add(v, c->dict);
	}
	if (k > 0) {
		strv_add(v, "-S");
		strv_add(v, engine_afl_name(c, k, name, sizeof(name)));
	} else {
		if (c->o->jobs > 1) {
			strv_add(v, "-M");
			strv_add(v, "main");
		}
		strv_add(v, "-c");
		strv_add(v, cmplog);
	}
	strv_add(v, "-V");
	strv_addf(v, "%ld", c->o->seconds);
	for (int i = 0; i < c->o->nengine; i++)
		strv_add(v, c->o->engine[i]);
	strv_add(v, "--");
	strv_add(v, bin);
}

const char *engine_libfuzzer_status(int rc)
{
	switch (rc) {
	case 0:
		return "finished: the time or -runs was up";
	case 1:
		return "a sanitizer report: the input is saved under crashes/";
	case 70:
		return "an input ran longer than -timeout: saved as timeout-*";
	case 71:
		return "out of memory (-rss_limit_mb or -malloc_limit_mb): saved as oom-*";
	case 72:
		return "interrupted (Ctrl-C or a signal)";
	case 77:
		return "a crash, leak or deadly signal: the input is saved under crashes/";
	default:
		return "see libFuzzer's log";
	}
}
