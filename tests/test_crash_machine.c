/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine a guest's crash needs (tools/triage/crash_machine.h): its
 * "# vm: sysctl" and "# vm: job" lines read, kept as they were and
 * exported for the replays; lines of another shape are not taken.
 */
#include "tools/triage/crash_machine.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static bool write_file(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/vmafuzz-machine-%d.txt", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return false;
	fputs(text, f);
	return fclose(f) == 0;
}

static bool reads_sysctls_and_job(void)
{
	struct crash_machine m;

	ASSERT(write_file("# vm: sysctl vm/overcommit_memory=2\n"
			  "# vm: job race\n"
			  "# vm: sysctl vm/max_map_count=1024\n"
			  "target fuzz_mm\n"
			  "mmap p0 @0x10:4 r,w private f0 fixed\n"));
	ASSERT(crash_machine_read(path, &m));
	ASSERT(!strcmp(m.sysctls, "vm/overcommit_memory=2 vm/max_map_count=1024"));
	ASSERT(!strcmp(m.job, "race"));
	ASSERT(!strcmp(m.lines, "# vm: sysctl vm/overcommit_memory=2\n"
				"# vm: job race\n"
				"# vm: sysctl vm/max_map_count=1024\n"));
	unsetenv("VMAFUZZ_VM_JOB");
	setenv("VMAFUZZ_VM_SYSCTLS", "kernel/x=1", 1);
	crash_machine_export(&m);
	ASSERT(getenv("VMAFUZZ_VM_JOB") && !strcmp(getenv("VMAFUZZ_VM_JOB"), "race"));
	ASSERT(!strcmp(getenv("VMAFUZZ_VM_SYSCTLS"),
		       "kernel/x=1 vm/overcommit_memory=2 vm/max_map_count=1024"));
	unlink(path);
	return true;
}

static bool refuses_other_shapes(void)
{
	struct crash_machine m;

	ASSERT(write_file("# vm: job Race\n"
			  "# vm: job race now\n"
			  "# vm: job \n"
			  "# vm: sysctl novalue\n"
			  "# vm: sysctl a=1 b=2\n"
			  "target fuzz_mm\n"));
	ASSERT(!crash_machine_read(path, &m));
	ASSERT(!m.job[0] && !m.sysctls[0] && !m.lines[0]);
	ASSERT(!crash_machine_read("/nonexistent/vmafuzz", &m));
	unlink(path);
	return true;
}

int main(void)
{
	TEST(reads_sysctls_and_job);
	TEST(refuses_other_shapes);
	return test_summary();
}
