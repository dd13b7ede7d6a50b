/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Booting a guest kernel under qemu-system-x86_64 and reading its console
 * as it runs (console.h): KVM when it works here, found out by trying (a
 * KVM that refuses the guest, as a nested one may, gives no boot line and
 * the guest boots again under TCG), else TCG; no network, no disk, the
 * machine's memory, CPUs and time bounded; the guest's job's exit status
 * read from the console line its init prints last.
 */
#ifndef VMAFUZZ_QEMU_H
#define VMAFUZZ_QEMU_H

#include "console.h"

#include <stdbool.h>

struct vm_opts {
	const char *kernel;    /* bzImage */
	const char *initramfs; /* live/vm/initramfs.h */
	const char *append;    /* more of the kernel's command line, or NULL */
	const char *log;       /* the whole console, or NULL */
	const char *accel;     /* "kvm", "tcg", or NULL: KVM if it works, else TCG */
	unsigned mem_mb, cpus;
	unsigned timeout_s;  /* the whole run, boot included */
	bool echo;	     /* the console to stdout as it comes */
	const char *stop_at; /* stop the guest at the first report whose title
			      * has this in it ("": any), or NULL */
};

enum vm_end {
	VM_EXITED,   /* the job ended: status */
	VM_SIGNALED, /* the job was killed by signal status */
	VM_TIMEOUT,  /* the run's time was up */
	VM_CRASHED,  /* the guest stopped without the job's end (a panic) */
	VM_NO_BOOT,  /* qemu could not start the guest */
	VM_STOPPED,  /* stopped at a report (opts.stop_at) */
};

struct vm_result {
	enum vm_end end;
	int status;
	char accel[8];	  /* what ran it */
	unsigned reports; /* reports the console gave */
	double boot_s;	  /* from start to the job's first line */
	double run_s;	  /* the whole run */
	char err[256];	  /* VM_NO_BOOT: why */
};

/* Boot, run, read: every report goes to @on_report as it completes (the
 * callee owns its text), its at_s set to the seconds since the start. */
void vm_run(const struct vm_opts *o, void (*on_report)(void *arg, struct console_report *r),
	    void *arg, struct vm_result *res);
/* Whether /dev/kvm is there to be tried. */
bool vm_kvm_present(void);

#endif
