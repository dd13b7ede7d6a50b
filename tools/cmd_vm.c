/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmafuzz vm initramfs|run: the pieces of a virtual-machine run
 * (./build.sh vm, scripts/vm.sh, put them together):
 *
 *   vm initramfs -o OUT --init BIN [--bin GUEST=HOST]... [--file GUEST=HOST]...
 *                [--arg A]... [--then --arg A...]... [--env K=V]... [--sysctl PATH=V]...
 *                [--job-timeout S]
 *       the guest's root: /init (live/vm/guest_init.c), binaries with their
 *       libraries, files, the device nodes the console needs, and /job
 *   vm run --kernel BZIMAGE --initramfs FILE [--mem MB] [--cpus N] [--timeout S]
 *          [--accel kvm|tcg] [--log FILE] [--reports DIR] [--echo]
 *          [--stop-at TEXT]
 *       boot it (live/vm/qemu.h), read the console; each report the kernel
 *       prints is written to DIR/<n>-<title>.txt (--stop-at: the guest
 *       stopped at the first whose title has TEXT, "" any, exit status 1);
 *       exit status: the job's,
 *       1 when the guest stopped without ending it (a panic), 124 when its
 *       time was up, 2 when qemu could not start it
 */
#include "cmd.h"
#include "live/vm/initramfs.h"
#include "live/vm/qemu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_ITEMS 128

/* A strictly whole number in [lo, hi] into *v; false otherwise. */
static bool whole(const char *s, unsigned long lo, unsigned long hi, unsigned *v)
{
	char *end;
	unsigned long n;

	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n < lo || n > hi)
		return false;
	*v = (unsigned)n;
	return true;
}

static int vm_initramfs(int argc, char **argv)
{
	const char *out = NULL, *init = NULL, *bins[MAX_ITEMS], *files[MAX_ITEMS];
	char job[65536];
	size_t jl = 0;
	unsigned nbins = 0, nfiles = 0, timeout = 0;
	struct initramfs a;

	job[0] = 0;
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--then")) {
			/* the next command of the job */
			jl += (size_t)snprintf(job + jl, sizeof(job) - jl, "then\n");
			if (jl >= sizeof(job))
				return cmd_usage_error("vm", "the job is too long at '%s'", o);
			continue;
		}
		if (!v)
			return cmd_usage_error("vm", "%s needs a value", o);
		i++;
		if (!strcmp(o, "-o"))
			out = v;
		else if (!strcmp(o, "--init"))
			init = v;
		else if (!strcmp(o, "--bin") && nbins < MAX_ITEMS && strchr(v, '='))
			bins[nbins++] = v;
		else if (!strcmp(o, "--file") && nfiles < MAX_ITEMS && strchr(v, '='))
			files[nfiles++] = v;
		else if (!strcmp(o, "--arg") || !strcmp(o, "--env") || !strcmp(o, "--sysctl")) {
			char item[4096];
			const char *kind = o + 2;

			snprintf(item, sizeof(item), "%s", v);
			if (!strcmp(kind, "sysctl")) {
				char *eq = strchr(item, '=');

				if (!eq)
					return cmd_usage_error(
					    "vm", "--sysctl takes PATH=VALUE, not '%s'", v);
				*eq = ' ';
			}
			if (strchr(item, '\n'))
				return cmd_usage_error("vm", "a job item has no newline: '%s'", v);
			jl += (size_t)snprintf(job + jl, sizeof(job) - jl, "%s %s\n", kind, item);
			if (jl >= sizeof(job))
				return cmd_usage_error("vm", "the job is too long at '%s'", v);
		} else if (!strcmp(o, "--job-timeout")) {
			if (!whole(v, 1, 86400, &timeout))
				return cmd_usage_error(
				    "vm", "--job-timeout takes whole seconds, not '%s'", v);
		} else {
			return cmd_usage_error("vm", "unknown or malformed option '%s'", o);
		}
	}
	if (!out || !init)
		return cmd_usage_error("vm", "initramfs needs -o OUT and --init BIN%s", "");
	if (timeout)
		jl += (size_t)snprintf(job + jl, sizeof(job) - jl, "timeout %u\n", timeout);
	if (!initramfs_open(&a, out)) {
		fprintf(stderr, "vmafuzz vm: %s\n", a.err);
		return 2;
	}
	initramfs_node(&a, "dev/console", S_IFCHR | 0600, 5, 1);
	initramfs_node(&a, "dev/null", S_IFCHR | 0666, 1, 3);
	initramfs_dir(&a, "proc");
	initramfs_dir(&a, "sys");
	initramfs_dir(&a, "tmp");
	initramfs_file(&a, "init", init, 0755);
	for (unsigned i = 0; i < nbins; i++) {
		char guest[4096];
		const char *eq = strchr(bins[i], '=');

		snprintf(guest, sizeof(guest), "%.*s", (int)(eq - bins[i]), bins[i]);
		initramfs_binary(&a, guest[0] == '/' ? guest + 1 : guest, eq + 1);
	}
	for (unsigned i = 0; i < nfiles; i++) {
		char guest[4096];
		const char *eq = strchr(files[i], '=');

		struct stat st;

		snprintf(guest, sizeof(guest), "%.*s", (int)(eq - files[i]), files[i]);
		/* the host file's permissions: a program given as a file runs */
		initramfs_file(&a, guest[0] == '/' ? guest + 1 : guest, eq + 1,
			       stat(eq + 1, &st) ? 0644 : (unsigned)st.st_mode & 0777);
	}
	initramfs_data(&a, "job", job, jl, 0644);
	if (!initramfs_close(&a)) {
		fprintf(stderr, "vmafuzz vm: %s\n", a.err);
		return 2;
	}
	return 0;
}

struct report_sink {
	const char *dir;
	unsigned n;
};

/* "WARNING in dup_mmap" -> "WARNING-in-dup_mmap" */
static void file_title(const char *title, char *out, size_t len)
{
	size_t k = 0;

	for (const char *s = title; *s && k + 1 < len && k < 80; s++)
		out[k++] = (char)((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
					  (*s >= '0' && *s <= '9') || *s == '_' || *s == '.'
				      ? *s
				      : '-');
	out[k] = 0;
}

static void on_report(void *arg, struct console_report *r)
{
	struct report_sink *k = arg;

	k->n++;
	fprintf(stderr, "vmafuzz vm: report %u: %s%s%s%s%s (%.1f s into the run)\n", k->n, r->title,
		r->where[0] ? " at " : "", r->where, r->program[0] ? ", program " : "", r->program,
		r->at_s);
	if (k->dir) {
		char name[128], path[4096], tmp[4112];
		FILE *f;

		file_title(r->title, name, sizeof(name));
		snprintf(path, sizeof(path), "%s/%u-%s.txt", k->dir, k->n, name);
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		f = fopen(tmp, "w");
		if (f) {
			fprintf(f, "title: %s\nkind: %s\nframe: %s\nwhere: %s\nprogram: %s\n\n%s",
				r->title, r->kind, r->frame, r->where, r->program,
				r->text ? r->text : "");
			if (fclose(f) == 0)
				rename(tmp, path);
		}
		if (!f)
			fprintf(stderr, "vmafuzz vm: cannot write %s: %s\n", tmp, strerror(errno));
		/* the program that was running, up to the operation under way */
		if (r->prog) {
			snprintf(path, sizeof(path), "%s/%u-%s.prog.txt", k->dir, k->n, name);
			snprintf(tmp, sizeof(tmp), "%s.tmp", path);
			f = fopen(tmp, "w");
			if (f && fputs(r->prog, f) >= 0 && fclose(f) == 0)
				rename(tmp, path);
			else if (f)
				fclose(f);
		}
	}
	free(r->text);
	free(r->prog);
}

static int vm_boot(int argc, char **argv)
{
	struct vm_opts o = {0};
	struct report_sink sink = {0};
	struct vm_result res;

	for (int i = 2; i < argc; i++) {
		const char *opt = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(opt, "--echo")) {
			o.echo = true;
			continue;
		}
		if (!v)
			return cmd_usage_error("vm", "%s needs a value", opt);
		i++;
		if (!strcmp(opt, "--kernel"))
			o.kernel = v;
		else if (!strcmp(opt, "--initramfs"))
			o.initramfs = v;
		else if (!strcmp(opt, "--log"))
			o.log = v;
		else if (!strcmp(opt, "--reports"))
			sink.dir = v;
		else if (!strcmp(opt, "--stop-at"))
			o.stop_at = v;
		else if (!strcmp(opt, "--append"))
			o.append = v;
		else if (!strcmp(opt, "--accel")) {
			if (strcmp(v, "kvm") && strcmp(v, "tcg"))
				return cmd_usage_error("vm", "--accel takes kvm or tcg, not '%s'",
						       v);
			o.accel = v;
		} else if (!strcmp(opt, "--mem")) {
			if (!whole(v, 64, 1 << 20, &o.mem_mb))
				return cmd_usage_error(
				    "vm", "--mem takes megabytes, 64 or more, not '%s'", v);
		} else if (!strcmp(opt, "--cpus")) {
			if (!whole(v, 1, 64, &o.cpus))
				return cmd_usage_error("vm", "--cpus takes 1 to 64, not '%s'", v);
		} else if (!strcmp(opt, "--timeout")) {
			if (!whole(v, 1, 86400 * 7, &o.timeout_s))
				return cmd_usage_error(
				    "vm", "--timeout takes whole seconds, not '%s'", v);
		} else {
			return cmd_usage_error("vm", "unknown option '%s'", opt);
		}
	}
	if (!o.kernel || !o.initramfs)
		return cmd_usage_error("vm", "run needs --kernel and --initramfs%s", "");
	if (sink.dir && mkdir(sink.dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "vmafuzz vm: cannot make %s: %s\n", sink.dir, strerror(errno));
		return 2;
	}
	vm_run(&o, on_report, &sink, &res);
	fprintf(stderr,
		"vmafuzz vm: %s, boot to the job %.1f s, in all %.1f s, %u report(s): ", res.accel,
		res.boot_s, res.run_s, res.reports);
	switch (res.end) {
	case VM_EXITED:
		fprintf(stderr, "the job exited %d\n", res.status);
		return res.status;
	case VM_SIGNALED:
		fprintf(stderr, "the job was killed by signal %d\n", res.status);
		return 128 + res.status;
	case VM_TIMEOUT:
		fprintf(stderr, "the time was up\n");
		return 124;
	case VM_STOPPED:
		fprintf(stderr, "stopped at a report with '%s' in its title\n", o.stop_at);
		return 1;
	case VM_CRASHED:
		fprintf(stderr, "the guest stopped before the job ended\n");
		return 1;
	case VM_NO_BOOT:
	default:
		fprintf(stderr, "no boot: %s\n", res.err);
		return 2;
	}
}

int cmd_vm(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "initramfs"))
		return vm_initramfs(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return vm_boot(argc, argv);
	return cmd_usage_error("vm", "needs initramfs or run, not '%s'", argc >= 2 ? argv[1] : "");
}
