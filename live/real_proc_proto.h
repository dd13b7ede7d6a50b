/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What vmafuzz conform says to the real processes that stand for a
 * program's processes, and what they answer (real_proc.c runs in them,
 * live_backend.c talks to them). One request, one reply, each a datagram
 * on a SOCK_SEQPACKET socket per process; file descriptors travel beside
 * them (SCM_RIGHTS): a forked process's socket, userfaultfds.
 */
#ifndef VMAFUZZ_REAL_PROC_PROTO_H
#define VMAFUZZ_REAL_PROC_PROTO_H

#include "fuzz/prog/mm_ops.h"
#include "ksys.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Where map_limit's fillers go: above the compared window, so a reader of
 * smaps that stops after the window never reads them. */
#define CONFORM_FILL_LO 0x300000000000ull

enum kop {
	KOP_SYS,	     /* ksys_call(c): mmap (c.file: a model file), munmap, ... */
	KOP_FORK,	     /* fork: the child serves the socket that comes back,
			      * on which it first says it is ready */
	KOP_EXIT,	     /* _exit(0), no reply */
	KOP_UFFD_CREATE,     /* userfaultfd in the lowest free slot; result: the slot */
	KOP_UFFD_REGISTER,   /* UFFDIO_REGISTER [c.start, +c.len) in modes, slot */
	KOP_UFFD_UNREGISTER, /* UFFDIO_UNREGISTER [c.start, +c.len), slot */
	KOP_UFFD_RELEASE,    /* close the slot */
	KOP_UFFD_DUP,	     /* send every open slot's fd, its slot and features */
	KOP_UFFD_TAKE,	     /* the fds sent along go to the lowest free slots */
	KOP_MAP_LIMIT,	     /* hold exactly n VMAs outside the window (fillers) */
	KOP_NOP,	     /* nothing (rollup and delay have no real effect) */
};

/* The features of a conform userfaultfd besides UFFD_FEATURE_SIGBUS. */
#define KUFFD_FORK 1  /* UFFD_FEATURE_EVENT_FORK */
#define KUFFD_REMAP 2 /* UFFD_FEATURE_EVENT_REMAP */

struct kreq {
	int32_t op; /* enum kop */
	int32_t slot, modes, features, file;
	int64_t n;
	struct kcall c;
	int32_t nfds; /* KOP_UFFD_TAKE: how many fds come along, their features */
	int32_t feat[MMF_FDS];
};

struct krep {
	int64_t result;
	int32_t nfds; /* fds along: KOP_FORK the child's socket, KOP_UFFD_DUP the slots' */
	int32_t slot[MMF_FDS], feat[MMF_FDS];
	/* a read touch: what the k-th page held (MMF_NOT_SEEN: not reached) */
	uint64_t seen[MMF_TOUCH_PAGES];
};

/* One datagram with up to MMF_FDS descriptors; false when the peer is gone. */
bool kmsg_send(int sock, const void *buf, size_t len, const int *fds, unsigned nfds);
/* 1 a datagram of @len bytes (fds in @fds, *nfds of them), 0 the peer is
 * gone, -1 an error (errno). */
int kmsg_recv(int sock, void *buf, size_t len, int *fds, unsigned *nfds);

/*
 * The real process's side: serve requests on @sock until KOP_EXIT or the
 * tool is gone. First it switches THP off, checks [lo, hi) is free, makes
 * the model's files as memfds of @file_size bytes and answers a krep whose
 * result is 0 or -(what failed)*1000 - errno: 1 ksys_setup (one CPU,
 * RLIMIT_STACK, THP off), 2 the window, 3 memfd.
 */
_Noreturn void kserver_main(int sock, uint64_t lo, uint64_t hi, uint64_t file_size);

#endif
