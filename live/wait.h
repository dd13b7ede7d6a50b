/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How long conform waits for a real process's answer before it calls the
 * process gone: long enough for any one call on this machine, which a
 * virtual machine without hardware help makes an order of magnitude slower
 * (VMAFUZZ_CONFORM_TIMEOUT_MS, whole milliseconds, sets it; ./build.sh vm
 * does for its guests).
 */
#ifndef VMAFUZZ_WAIT_H
#define VMAFUZZ_WAIT_H

/* The wait in milliseconds: the environment's, else the default. */
int live_timeout_ms(void);

#endif
