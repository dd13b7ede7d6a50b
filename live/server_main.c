/* SPDX-License-Identifier: GPL-2.0 */
/*
 * out/conform-server: fuzz_conform's server (server.h), started by
 * the fuzzer as "conform-server --fd N" with its end of the socket as fd N.
 * Built without sanitizers, so that the real processes it forks are small.
 */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	char *end;
	long fd;

	if (argc != 3 || strcmp(argv[1], "--fd")) {
		fprintf(stderr, "usage: conform-server --fd N   (fuzz_conform starts it)\n");
		return 2;
	}
	errno = 0;
	fd = strtol(argv[2], &end, 10);
	if (errno || *end || fd < 0 || fd > 1 << 20 || fcntl((int)fd, F_GETFD) < 0) {
		fprintf(stderr, "conform-server: --fd %s: not an open file descriptor\n", argv[2]);
		return 2;
	}
	fcntl((int)fd, F_SETFD, FD_CLOEXEC); /* not into the real processes' execs */
	conform_zygote_serve((int)fd);
}
