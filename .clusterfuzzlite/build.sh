#!/bin/bash -eu
# SPDX-License-Identifier: GPL-2.0
# ClusterFuzzLite build script: the same contract as OSS-Fuzz's (see
# oss-fuzz/build.sh); ./build.sh builds every target into $OUT.
cd "$SRC/vmafuzz"
VMAFUZZ_NO_DEPS=1 ./build.sh
