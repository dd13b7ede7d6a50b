/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_conform's server: a small long-lived process (out/conform-server,
 * built without sanitizers) that forks a clean real process p0 for every
 * input (live_backend.h's spawner). The fuzzer itself is large (AddressSanitizer,
 * libFuzzer's corpus): a p0 forked from it would copy its page tables,
 * make every later write of the fuzzer a copy-on-write fault while p0
 * lives, and cost every read of p0's smaps a walk of all those pages. The
 * server's own address space is a few pages, and stays the same from one
 * input to the next, so nothing of one input reaches the next.
 *
 * The fuzzer talks to it over a SOCK_SEQPACKET socket: a request names the
 * window and the files' size; the reply carries p0's pid and, beside it
 * (SCM_RIGHTS), the socket p0 serves (real_proc_proto.h). The server is the
 * subreaper of what p0 forks and ignores SIGCHLD: nothing is left a zombie.
 * It ends when the fuzzer is gone.
 */
#ifndef VMAFUZZ_SERVER_H
#define VMAFUZZ_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Start the server at @path (an executable serving with
 * conform_zygote_serve). 0, or -1 with a message in @err. */
int conform_zygote_start(const char *path, char *err, size_t errlen);
/* live_backend.h's spawner: a new p0 serving kserver_main(the other end of
 * *@sock, lo, hi, file_size); its pid, or -errno. */
pid_t conform_zygote_spawn(uint64_t lo, uint64_t hi, uint64_t file_size, int *sock);

/* The server's side: say it is ready on @sock, then serve its requests
 * until the fuzzer is gone. */
_Noreturn void conform_zygote_serve(int sock);

#endif
