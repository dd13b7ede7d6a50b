// SPDX-License-Identifier: GPL-2.0
#include "tools/triage/crash_machine.h"

#include <stdlib.h>
#include <string.h>

#define PREFIX "# vm: sysctl "
#define JOB "# vm: job "

/* "# vm: job NAME\n", NAME lower-case letters: NAME into @job. */
static bool job_line(const char *line, char *job, size_t len)
{
	const char *w = line + strlen(JOB);
	size_t n = strspn(w, "abcdefghijklmnopqrstuvwxyz");

	if (strncmp(line, JOB, strlen(JOB)) || !n || n >= len || strcmp(w + n, "\n"))
		return false;
	memcpy(job, w, n);
	job[n] = 0;
	return true;
}

bool crash_machine_read(const char *path, struct crash_machine *m)
{
	char line[512];
	size_t nl = 0, ns = 0;
	FILE *f = fopen(path, "r");

	m->lines[0] = m->sysctls[0] = m->job[0] = 0;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line), w;
		const char *word = line + strlen(PREFIX);

		if (!m->job[0] && nl + n + 1 <= sizeof(m->lines) &&
		    job_line(line, m->job, sizeof(m->job))) {
			memcpy(m->lines + nl, line, n + 1);
			nl += n;
			continue;
		}
		if (strncmp(line, PREFIX, strlen(PREFIX)) || n < 2 || line[n - 1] != '\n')
			continue;
		w = strcspn(word, " \t\n");
		if (!w || !memchr(word, '=', w) || word[w] != '\n')
			continue; /* one PATH=VALUE word, as scripts/vm.sh writes them */
		if (nl + n + 1 > sizeof(m->lines) || ns + w + 2 > sizeof(m->sysctls))
			break;
		memcpy(m->lines + nl, line, n + 1);
		nl += n;
		if (ns)
			m->sysctls[ns++] = ' ';
		memcpy(m->sysctls + ns, word, w);
		ns += w;
		m->sysctls[ns] = 0;
	}
	fclose(f);
	return ns > 0 || m->job[0];
}

void crash_machine_export(const struct crash_machine *m)
{
	const char *own = getenv("VMAFUZZ_VM_SYSCTLS");
	char v[2048];

	if (m->job[0])
		setenv("VMAFUZZ_VM_JOB", m->job, 1);
	if (!m->sysctls[0])
		return;
	snprintf(v, sizeof(v), "%s%s%s", own ? own : "", own && *own ? " " : "", m->sysctls);
	setenv("VMAFUZZ_VM_SYSCTLS", v, 1);
}

void crash_machine_print(FILE *f, const struct crash_machine *m)
{
	fputs(m->lines, f);
}
