#!/bin/bash -eu
# SPDX-License-Identifier: GPL-2.0
# OSS-Fuzz build script. The repository's ./build.sh implements OSS-Fuzz's
# contract itself when $LIB_FUZZING_ENGINE and $OUT are set: it compiles the
# model and harness with $CC $CFLAGS, links each target with $CXX $CXXFLAGS
# $LIB_FUZZING_ENGINE into $OUT, and puts <target>_seed_corpus.zip,
# <target>.dict and <target>.options beside it (objects in $WORK/vmafuzz).
cd "$SRC/vmafuzz"
VMAFUZZ_NO_DEPS=1 ./build.sh
