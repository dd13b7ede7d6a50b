/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engines' command lines for a run (plan.h), and what their exit
 * statuses mean. The flags after "--" go last, so that they win.
 *
 * libFuzzer: BIN WORK/corpus SEEDS [-dict=D] -max_total_time=S
 *            -artifact_prefix=WORK/crashes/ -print_final_stats=1
 *            [-fork=N -ignore_crashes=1] [-max_len=640 (fuzz_conform)] FLAGS
 * merge:     BIN -merge=1 -artifact_prefix=WORK/crashes/ INTO WORK/corpus
 * afl-fuzz:  afl-fuzz -i IN -o WORK/afl [-x D] (-S sK | [-M main] -c CMPLOG)
 *            -V S FLAGS -- BIN
 */
#ifndef VMAFUZZ_CAMPAIGN_ENGINE_CMD_H
#define VMAFUZZ_CAMPAIGN_ENGINE_CMD_H

#include "plan.h"
#include "strv.h"

/* fuzz_conform compares every operation in full on the kernel, so that a
 * run of long programs goes at a third of the speed; every divergence
 * found so far needed 28 operations or fewer (about 48 fit in 640 bytes). */
#define ENGINE_LIVE_MAX_LEN 640

void engine_libfuzzer(const struct campaign *c, struct strv *v);
void engine_merge(const struct campaign *c, const char *into, struct strv *v);

/* The name of AFL++ instance @k (0 the first): "default" alone, else
 * "main", "s1", "s2"... */
const char *engine_afl_name(const struct campaign *c, int k, char *buf, size_t len);
/* The instances' folders: @work/afl/NAME for one, @work/afl/{main,s1,...}
 * for several, into @buf. */
void engine_afl_folders(const struct campaign *c, const char *work, char *buf, size_t len);
/* The binaries AFL++ runs: out/<build>/T and its CmpLog twin. */
void engine_afl_binaries(const struct campaign *c, char *bin, char *cmplog, size_t len);
void engine_afl(const struct campaign *c, const char *in, int k, struct strv *v);

/* What libFuzzer's exit status @rc means (its -*_exitcode defaults and the
 * sanitizers' own status after a report). */
const char *engine_libfuzzer_status(int rc);

#endif
