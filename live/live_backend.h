/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live kernel as an address-space backend (as_backend.h), for vmafuzz
 * conform: each process of the model is a real process of this kernel,
 * served by real_proc.c over a socket. p0 is forked from the tool at
 * open; a fork forks the real process, whose child serves the model's new
 * process; exit ends the real one. The VMAs are read from
 * /proc/PID/smaps, smaps_rollup's figures too.
 *
 * This side knows nothing of the model: conform tells it, before a fork,
 * which model process the child became and, before map_limit, the limit the
 * model set. resolve is the reference backend's job (conform resolves on the
 * model).
 */
#ifndef VMAFUZZ_LIVE_BACKEND_H
#define VMAFUZZ_LIVE_BACKEND_H

#include "fuzz/as/as_backend.h"
#include "ksys.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern const struct as_backend as_live;

/*
 * How p0's real process is made: by default forked from this process; with
 * a spawner (fuzz_conform's server, server.h), by it. A spawner
 * starts a process serving kserver_main(the other end of *@sock, lo, hi,
 * file_size) and returns its pid, or -errno. NULL: the default again.
 */
typedef pid_t (*as_live_spawner)(uint64_t lo, uint64_t hi, uint64_t file_size, int *sock);
void as_live_spawn_with(as_live_spawner fn);

/* Before a fork's call: the model process its child became; MMF_MAX_PROCS
 * when the model made none (its process table was full): then no real fork
 * is made and it answers -EAGAIN, as a process limit would. */
void as_live_fork_into(void *as, unsigned proc);
/* Before a map_limit's call: the limit the model set (VMAs). The real
 * process then holds vm.max_map_count - limit VMAs outside the window, so
 * that the kernel's limit leaves it the same room in the window. */
void as_live_map_limit(void *as, int64_t limit);
/* How many userfaultfds process @proc has open (0 when it does not exist),
 * or -1 when it cannot be asked. */
int as_live_open_fds(void *as, unsigned proc);
/* The processes that exist, as a mask of the model's numbers. */
unsigned as_live_procs(void *as);
/*
 * Process @proc's smaps_rollup with the figures of its VMAs outside the
 * window taken off (kB), in @win; win->nvmas is how many were taken off
 * (each's Pss was rounded down on its own, so the window's Pss may be off by
 * as many kB). 1; 0 when it cannot be had because the process holds
 * map_limit's fillers, which are not read, and 2 because the sharing of its
 * pages outside the window kept changing while it was read (@err says so);
 * -1 on error (@err).
 */
int as_live_rollup(void *as, unsigned proc, struct krest *win, char *err, size_t errlen);
/*
 * What process @proc's pages at @addr[0..n) (ascending, page-aligned) hold:
 * whether each is present (/proc/PID/pagemap) in @present, and for those
 * that are, their first eight bytes (/proc/PID/mem) in @vals. Only present
 * pages are read, so nothing faults. 0, or -1 with a message in @err.
 */
int as_live_page_values(void *as, unsigned proc, const uint64_t *addr, unsigned n, uint64_t *vals,
			bool *present, char *err, size_t errlen);
/* vm.max_map_count, as this kernel has it (0: unreadable). */
uint64_t conform_max_map_count(void);

#endif
