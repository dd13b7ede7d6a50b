# SPDX-License-Identifier: GPL-2.0
# vmafuzz build.  Usually driven by ./build.sh; `make help` lists the goals.
#
# Every build flavor has its own compiler, flags and object directory
# (out/obj/<flavor>/), so flavors never share objects and can be built in
# any order and in parallel.  Sources are found by wildcard:
#
#   src/*/*.c                   model library (no main): src/runtime, src/tree, src/mm
#   fuzz/*/ minus fuzz/run/main_*.c   harness library (prog, as, tree, targets, run)
#   fuzz/targets/fuzz_<name>.c  one fuzz target each -> target "fuzz_<name>"
#   fuzz/run/main_engine.c      LLVMFuzzerTestOneInput, compiled once per target
#   fuzz/run/main_replay.c      main() of the replay driver, once per target
#   live/*.c                    the real-kernel runner (conform; live/live.mk)
#   tools/ tools/triage/ tools/campaign/ tools/repro/repro_emit.c bench/
#                               out/vmafuzz (main() in tools/vmafuzz.c)
#   tests/test_<name>.c         out/tests/test_<name>
#   src/*/*.c minus src/runtime/sched.c, sync.c (the fiber backend), src/runtime/threads/*.c
#   (the pthread + liburcu backend) and tests/stress/*.c
#                               -> out/tsan/tsan_stress (ThreadSanitizer)
#   corpus/<target>/*.txt       -> out/corpus/<target>/<name>   (vmafuzz compile)
#   corpus/fuzz_mm/*.txt        -> out/corpus/fuzz_fork/mm_<name> (fuzz_fork starts from them too)
#   corpus/regress/<target>/*.txt -> out/regress/<target>/<name>
#
# Knobs (command line or environment):
#   CC            compiler for replay, tool and test flavors (default clang)
#   FUZZ_CC       compiler for the libfuzzer flavor (default clang)
#   AFL_CC        compiler for the afl flavor (default afl-clang-fast)
#   EXTRA_CFLAGS  appended to every compile of every flavor
#   OUTDIR        output directory (default out)
#   V=1           print full compiler command lines
# Plain CFLAGS/LDFLAGS from the environment are deliberately ignored (a stray
# CFLAGS=-fsanitize=... would silently change every flavor), except by the
# oss-fuzz flavor, which is defined by OSS-Fuzz's CC/CFLAGS/CXX/CXXFLAGS.

# No built-in implicit rules: with them make would try to "link" the
# included .d files from objects (rule %: %.o) and chain into our rules.
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:

OUTDIR := out
OBJDIR := $(OUTDIR)/obj

# make's built-in defaults are cc/g++; this project defaults to clang.
ifeq ($(origin CC),default)
CC := clang
endif
ifeq ($(origin CXX),default)
CXX := clang++
endif
FUZZ_CC ?= clang
AFL_CC ?= afl-clang-fast

# Objects of a tree laid out before the parts had folders (their dependency
# files name sources that are gone, which make cannot remake): built again
# once. Since then every dependency file names its source as a target of
# no rule too (the compile rules below), so that a source that moves or
# goes away only rebuilds what used it.
ifeq ($(wildcard $(OBJDIR)/.layout-parts),)
$(shell rm -rf $(OBJDIR) && mkdir -p $(OBJDIR) && touch $(OBJDIR)/.layout-parts)
endif

# Short "  CC [flavor] file" lines unless V=1.
ifeq ($(V),1)
Q :=
msg = @:
else
Q := @
msg = @printf '  %-5s %s\n' '$(1)' '$(2)'
endif

# ---------------------------------------------------------------- sources
MODEL_SRCS   := $(wildcard src/*/*.c)
HARNESS_SRCS := $(filter-out fuzz/run/main_%.c,$(wildcard fuzz/*/*.c fuzz/*/*/*.c))
LIB_SRCS     := $(MODEL_SRCS) $(HARNESS_SRCS)
# the real-kernel runner as the tool links it: all of live/ but the
# programs of their own (the server's main, out/conform-server, live/live.mk;
# the guest's init, live/vm/vm.mk)
LIVE_SRCS    := $(filter-out live/server_main.c live/vm/guest_init.c,$(wildcard live/*.c live/vm/*.c))
TOOL_SRCS    := $(wildcard tools/*.c tools/triage/*.c tools/campaign/*.c tools/ktest/*.c bench/*.c) \
		tools/repro/repro_emit.c $(LIVE_SRCS)
TEST_SRCS    := $(wildcard tests/test_*.c)
TARGETS      := $(patsubst fuzz/targets/%.c,%,$(wildcard fuzz/targets/fuzz_*.c))
TESTS        := $(patsubst tests/%.c,%,$(TEST_SRCS))

# The tsan flavor links the threads backend instead of the fiber one; the
# two define the same symbols and are never linked together.
FIBER_SRCS   := src/runtime/sched.c src/runtime/sync.c
THREADS_SRCS := $(wildcard src/runtime/threads/*.c)
STRESS_SRCS  := $(wildcard tests/stress/*.c)
TSAN_SRCS    := $(filter-out $(FIBER_SRCS),$(MODEL_SRCS)) $(THREADS_SRCS) $(STRESS_SRCS)
# the rollup latency benchmark on real threads (vmafuzz bench rollup runs
# out/threads/rollup_threads; tests/tsan.sh runs its --stress under TSan)
ROLLUP_THREADS_SRCS := $(filter-out $(FIBER_SRCS),$(MODEL_SRCS)) $(THREADS_SRCS) \
		       bench/threads/rollup_threads.c

SEED_TXTS    := $(filter-out corpus/regress/%,$(wildcard corpus/*/*.txt))
REGRESS_TXTS := $(wildcard corpus/regress/*/*.txt)

# --------------------------------------------------------------- flavors
# The model's headers by their place in src/ ("mm/vma.h"), everyone else's
# by their path from the top ("fuzz/prog/prog.h"), so that an include line
# says which part it reaches into (tests/layering.sh reads them).
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -Isrc -I. -I$(OUTDIR)/gen -Wall -Wextra
LDLIBS      := -lpthread
SAN         := -fsanitize=address,undefined -fno-sanitize-recover=undefined

CC_libfuzzer     = $(FUZZ_CC)
# fuzz/nocov.txt: the invariant checks get no coverage instrumentation
# No indirect-call tracing: libFuzzer feeds it only to -use_value_profile,
# which our runs do not use, and every call through a backend's table or a
# visitor paid for it (docs/results/benchmarks.md).
FLAGS_libfuzzer  = -g -O2 -fno-omit-frame-pointer $(SAN) -fsanitize=fuzzer-no-link \
		   -fno-sanitize-coverage=indirect-calls \
		   -fsanitize-coverage-ignorelist=fuzz/nocov.txt
# Comparison tracing (part of -fsanitize=fuzzer) fills libFuzzer's table of
# compared values, which its byte mutations (a quarter of all mutations,
# fuzz/run/main_engine.c) draw from. That pays where a program's bytes are
# compared: the decoder and the argument resolution in fuzz/. The model and
# the scheduler compare addresses, counts and states derived from the run,
# after every step; tracing those was a large share of a fuzz_mm run and
# gave the mutations nothing to use. The same holds for the backend seam's
# adapters, comparisons and reference maps (the figures:
# docs/results/benchmarks.md).
# Edge coverage of them stays.
NOCMP_SRCS       := $(MODEL_SRCS) fuzz/targets/exec.c $(wildcard fuzz/tree/*.c) \
		    fuzz/as/as_pair.c fuzz/as/as_diff.c fuzz/as/model_backend.c \
		    fuzz/as/vma_stub_refusal.c fuzz/as/expect/expect.c fuzz/as/expect/expect_check.c \
		    fuzz/as/expect/expect_map.c fuzz/as/expect/expect_result.c \
		    fuzz/as/expect/expect_edit.c
NOCMP_FLAGS      := -fno-sanitize-coverage=trace-cmp
LINK_libfuzzer   = -fsanitize=fuzzer,address,undefined

# afl-clang-fast replaces -fsanitize=fuzzer-no-link with its own
# instrumentation and -fsanitize=fuzzer with its libAFLDriver.a.
CC_afl           = AFL_QUIET=1 $(AFL_CC)
FLAGS_afl        = -g -O1 -fno-omit-frame-pointer $(SAN) -fsanitize=fuzzer-no-link
LINK_afl         = -fsanitize=address,undefined -fsanitize=fuzzer

# The determinism check (fuzz/run/main_stable.c, tests/stable.sh): the engine
# entry and all below it with edge coverage whose hits the driver counts,
# as AFL++ counts them; sanitizers and -O1 as in the AFL++ build.
CC_stable        = $(FUZZ_CC)
FLAGS_stable     = -g -O1 -fno-omit-frame-pointer $(SAN) -fsanitize-coverage=trace-pc-guard
LINK_stable      = $(SAN)

CC_replay        = $(CC)
FLAGS_replay     = -g -O1 $(SAN)
LINK_replay      = $(SAN)

# No sanitizers: benchmarks run in this build.
CC_tool          = $(CC)
FLAGS_tool       = -O2 -g
LINK_tool        =

CC_test          = $(CC)
FLAGS_test       = -g -O1 $(SAN) -Werror
LINK_test        = $(SAN)

# Compile-everything check with gcc; -O2 because gcc only finds some
# warnings (e.g. -Wmaybe-uninitialized) when optimizing.
CC_gcc-check     = gcc
FLAGS_gcc-check  = -O2 -g -Werror
LINK_gcc-check   =

# OSS-Fuzz: CC, CFLAGS, CXX, CXXFLAGS and LIB_FUZZING_ENGINE come from
# OSS-Fuzz's environment; targets are linked with $(CXX) as it requires.
# The targets go to $(OSSFUZZ_OUT) (build.sh passes OSS-Fuzz's $OUT).
CC_oss-fuzz      = $(CC)
FLAGS_oss-fuzz   = $(CFLAGS)

# ThreadSanitizer on real threads (tests/tsan.sh): pthreads and liburcu.
CC_tsan          = $(CC)
FLAGS_tsan       = -g -O1 -fsanitize=thread -Werror
LINK_tsan        = -fsanitize=thread
URCU_LIBS        = -lurcu-memb
# The same backend optimized, without sanitizers, for benchmarks.
CC_threads       = $(CC)
FLAGS_threads    = -O2 -g

# files the flags name: a change of theirs rebuilds like a change of flags
FLAGS_SUM := $(shell cksum < fuzz/nocov.txt)
# ... and the flavors that leave comparison tracing out of some files
NOCMP_STAMP_libfuzzer = $(NOCMP_FLAGS) $(NOCMP_SRCS)

FLAVORS := libfuzzer afl replay tool test gcc-check oss-fuzz tsan threads stable

# $(call objs,FLAVOR,SOURCES): object files of SOURCES in FLAVOR's directory
objs = $(patsubst %.c,$(OBJDIR)/$(1)/%.o,$(2))

# Per-target objects: fuzz/run/main_engine.c and fuzz/run/main_replay.c are compiled
# once per target, with -DVMAFUZZ_TARGET=<target>_target, into
# <flavor>/engine/<target>.o and <flavor>/replay/<target>.o.
engine_objs = $(patsubst %,$(OBJDIR)/$(1)/engine/%.o,$(TARGETS))

# Compile rules, instantiated once per flavor.  Every object also depends on
# the flavor's .flags stamp, which is rewritten only when the compile command
# changes (e.g. CC=gcc after a clang build), forcing a rebuild of the flavor.
define flavor_rules
$(OBJDIR)/$(1)/.flags: FORCE
	@mkdir -p $$(@D)
	@echo '$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(FLAGS_SUM) $$(NOCMP_STAMP_$(1))' | \
		cmp -s - $$@ || \
		echo '$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(FLAGS_SUM) $$(NOCMP_STAMP_$(1))' > $$@

$(OBJDIR)/$(1)/%.o: %.c $(OBJDIR)/$(1)/.flags
	@mkdir -p $$(@D)
	$$(call msg,CC,[$(1)] $$<)
	$$(Q)$$(CC_$(1)) $$(BASE_CFLAGS) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) -MMD -MP -c $$< -o $$@ && echo '$$<:' >>$$(@:.o=.d)

$(OBJDIR)/$(1)/engine/%.o: fuzz/run/main_engine.c $(OBJDIR)/$(1)/.flags
	@mkdir -p $$(@D)
	$$(call msg,CC,[$(1)] $$< for $$*)
	$$(Q)$$(CC_$(1)) $$(BASE_CFLAGS) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) -DVMAFUZZ_TARGET=$$*_target \
		-MMD -MP -c $$< -o $$@ && echo '$$<:' >>$$(@:.o=.d)

$(OBJDIR)/$(1)/replay/%.o: fuzz/run/main_replay.c $(OBJDIR)/$(1)/.flags
	@mkdir -p $$(@D)
	$$(call msg,CC,[$(1)] $$< for $$*)
	$$(Q)$$(CC_$(1)) $$(BASE_CFLAGS) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) -DVMAFUZZ_TARGET=$$*_target \
		-MMD -MP -c $$< -o $$@ && echo '$$<:' >>$$(@:.o=.d)
endef
$(foreach f,$(FLAVORS),$(eval $(call flavor_rules,$(f))))
# private: not passed on to the objects' prerequisites (the flavor's stamp)
$(call objs,libfuzzer,$(NOCMP_SRCS)): private FLAGS_libfuzzer += $(NOCMP_FLAGS)

# ----------------------------------------------------------------- outputs
LIBFUZZER_BINS := $(addprefix $(OUTDIR)/libfuzzer/,$(TARGETS))
AFL_BINS       := $(addprefix $(OUTDIR)/afl/,$(TARGETS))
REPLAY_BINS    := $(addprefix $(OUTDIR)/replay/,$(TARGETS))
STABLE_BINS    := $(addprefix $(OUTDIR)/stable/,$(TARGETS))
TOOL_BIN       := $(OUTDIR)/vmafuzz
TEST_BINS      := $(addprefix $(OUTDIR)/tests/,$(TESTS))
GCC_REPLAY_BINS := $(addprefix $(OBJDIR)/gcc-check/bin/replay/,$(TARGETS))
GCC_TOOL_BIN    := $(OBJDIR)/gcc-check/bin/vmafuzz
GCC_TEST_BINS   := $(addprefix $(OBJDIR)/gcc-check/bin/tests/,$(TESTS))
OSSFUZZ_BINS   := $(addprefix $(OSSFUZZ_OUT)/,$(TARGETS))
TSAN_BIN       := $(OUTDIR)/tsan/tsan_stress
SEEDS          := $(patsubst corpus/%.txt,$(OUTDIR)/corpus/%,$(SEED_TXTS))
# fuzz_fork's programs are fuzz_mm's plus its own operations: it starts from
# fuzz_mm's seeds too, as mm_<name> (all but those of fuzz_mm's configs)
FORK_MM_TXTS   := $(filter-out corpus/fuzz_mm/no_zero_page.txt,$(wildcard corpus/fuzz_mm/*.txt))
FORK_MM_SEEDS  := $(patsubst corpus/fuzz_mm/%.txt,$(OUTDIR)/corpus/fuzz_fork/mm_%,$(FORK_MM_TXTS))
REGRESS        := $(patsubst corpus/regress/%.txt,$(OUTDIR)/regress/%,$(REGRESS_TXTS))

HAVE_AFL := $(shell command -v $(AFL_CC) 2>/dev/null)
# liburcu's headers (Debian liburcu-dev), for the tsan flavor.
HAVE_URCU := $(shell $(CC) -E -include urcu/urcu-memb.h -x c /dev/null >/dev/null 2>&1 && echo yes)

.DEFAULT_GOAL := all
.PHONY: all libfuzzer afl replay tool test gcc-check oss-fuzz tsan threads corpus regress stable \
	clean help list-targets FORCE

all: libfuzzer libfuzzer-plain afl replay tool test tsan threads corpus regress

libfuzzer: $(LIBFUZZER_BINS)
replay: $(REPLAY_BINS)
stable: $(STABLE_BINS)
tool: $(TOOL_BIN)
test: $(TEST_BINS)
corpus: $(SEEDS) $(FORK_MM_SEEDS)
regress: $(REGRESS)
ifneq ($(OSSFUZZ_OUT),)
oss-fuzz: $(OSSFUZZ_BINS)
else
oss-fuzz:
	@echo "oss-fuzz: set OSSFUZZ_OUT to the output directory" >&2; exit 1
endif
# Compile every per-target engine object too: they are never linked with gcc
# (no libFuzzer), but must still compile cleanly.
gcc-check: $(GCC_REPLAY_BINS) $(GCC_TOOL_BIN) $(GCC_TEST_BINS) $(call engine_objs,gcc-check)

ifneq ($(HAVE_AFL),)
afl: $(AFL_BINS)
else
afl:
	@echo "AFL++ build skipped: $(AFL_CC) not found (install the afl++ package)"
endif

ifneq ($(HAVE_URCU),)
tsan: $(TSAN_BIN) $(OUTDIR)/tsan/rollup_threads
threads: $(OUTDIR)/threads/rollup_threads
else
threads:
	@echo "threads build skipped: liburcu headers not found (install the liburcu-dev package)"
tsan:
	@echo "tsan build skipped: liburcu headers not found (install the liburcu-dev package)"
endif

# ------------------------------------------------------------------ links
$(LIBFUZZER_BINS): $(OUTDIR)/libfuzzer/%: $(OBJDIR)/libfuzzer/engine/%.o \
		$(call objs,libfuzzer,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_libfuzzer) $(LINK_libfuzzer) $^ $(LDLIBS) -o $@

$(AFL_BINS): $(OUTDIR)/afl/%: $(OBJDIR)/afl/engine/%.o $(call objs,afl,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_afl) $(LINK_afl) $^ $(LDLIBS) -o $@

$(REPLAY_BINS): $(OUTDIR)/replay/%: $(OBJDIR)/replay/replay/%.o \
		$(call objs,replay,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_replay) $(LINK_replay) $^ $(LDLIBS) -o $@

# The determinism check's driver has no coverage of its own: it counts
# everyone else's.
STABLE_MAIN := $(OBJDIR)/stable/driver/main_stable.o
$(STABLE_MAIN): fuzz/run/main_stable.c $(OBJDIR)/stable/.flags
	@mkdir -p $(@D)
	$(call msg,CC,[stable] $<)
	$(Q)$(CC_stable) $(BASE_CFLAGS) $(FLAGS_stable) $(EXTRA_CFLAGS) \
		-fno-sanitize-coverage=trace-pc-guard -MMD -MP -c $< -o $@ && echo '$<:' >>$(@:.o=.d)

$(STABLE_BINS): $(OUTDIR)/stable/%: $(STABLE_MAIN) $(OBJDIR)/stable/engine/%.o \
		$(call objs,stable,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_stable) $(LINK_stable) $^ $(LDLIBS) -o $@

$(TOOL_BIN): $(call objs,tool,$(TOOL_SRCS) $(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_tool) $(LINK_tool) $^ $(LDLIBS) -o $@

# A unit test of a part above the harness links that part's sources too.
TEST_LINKS_test_vm_console := live/vm/console.c
TEST_LINKS_test_vm_initramfs := live/vm/initramfs.c
TEST_LINKS_test_race_bounds := live/race_bounds.c
TEST_LINKS_test_crash_machine := tools/triage/crash_machine.c
$(foreach t,$(TESTS),$(eval $(OUTDIR)/tests/$(t): $(call objs,test,$(TEST_LINKS_$(t)))))
$(foreach t,$(TESTS),$(eval $(OBJDIR)/gcc-check/bin/tests/$(t): $(call objs,gcc-check,$(TEST_LINKS_$(t)))))

$(TEST_BINS): $(OUTDIR)/tests/%: $(OBJDIR)/test/tests/%.o $(call objs,test,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_test) $(LINK_test) $^ $(LDLIBS) -o $@

# tests/test_campaign.c checks the fuzzing runner's parts (tools/campaign/),
# which are the tool's: they are linked in too
CAMPAIGN_TEST_SRCS := $(wildcard tools/campaign/*.c) tools/triage/crash_build.c tools/file_util.c \
		      tools/text_util.c
$(OUTDIR)/tests/test_campaign: $(call objs,test,$(CAMPAIGN_TEST_SRCS))
$(OBJDIR)/gcc-check/bin/tests/test_campaign: $(call objs,gcc-check,$(CAMPAIGN_TEST_SRCS))

# gcc-check links into its own directory so it never replaces real outputs.
$(GCC_REPLAY_BINS): $(OBJDIR)/gcc-check/bin/replay/%: $(OBJDIR)/gcc-check/replay/%.o \
		$(call objs,gcc-check,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_gcc-check) $^ $(LDLIBS) -o $@

$(GCC_TOOL_BIN): $(call objs,gcc-check,$(TOOL_SRCS) $(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_gcc-check) $^ $(LDLIBS) -o $@

$(GCC_TEST_BINS): $(OBJDIR)/gcc-check/bin/tests/%: $(OBJDIR)/gcc-check/tests/%.o \
		$(call objs,gcc-check,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_gcc-check) $^ $(LDLIBS) -o $@

$(TSAN_BIN): $(call objs,tsan,$(TSAN_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_tsan) $(LINK_tsan) $^ $(URCU_LIBS) $(LDLIBS) -o $@

$(OUTDIR)/tsan/rollup_threads: $(call objs,tsan,$(ROLLUP_THREADS_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_tsan) $(LINK_tsan) $^ $(URCU_LIBS) $(LDLIBS) -o $@

$(OUTDIR)/threads/rollup_threads: $(call objs,threads,$(ROLLUP_THREADS_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_threads) $^ $(URCU_LIBS) $(LDLIBS) -o $@

ifneq ($(OSSFUZZ_OUT),)
$(OSSFUZZ_BINS): $(OSSFUZZ_OUT)/%: $(OBJDIR)/oss-fuzz/engine/%.o \
		$(call objs,oss-fuzz,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CXX) $(CXXFLAGS) $^ $(LIB_FUZZING_ENGINE) $(LDLIBS) -o $@
endif

# vmafuzz repro copies these files, as text, into the C programs it writes
# (tools/repro/repro_emit.c includes them as strings)
REPRO_TEXT      := $(OUTDIR)/gen/repro_text.h
REPRO_TEXT_SRCS := live/ksys.h tools/repro/repro.h live/ksys.c tools/repro/repro_main.c
$(REPRO_TEXT): $(REPRO_TEXT_SRCS) scripts/c-strings.sh
	@mkdir -p $(@D)
	$(call msg,GEN,$@)
	$(Q)sh scripts/c-strings.sh $(REPRO_TEXT_SRCS) >$@.tmp && mv $@.tmp $@
$(call objs,tool,tools/repro/repro_emit.c) $(call objs,gcc-check,tools/repro/repro_emit.c): $(REPRO_TEXT)

# vmafuzz repro --ktest copies these into the kfuzz_vma tests it writes
# (tools/ktest/ktest_vma.c): the callers of mm/vma.c, the address space they
# run on, the stubs' gaps, and the test's support
KTEST_TEXT      := $(OUTDIR)/gen/ktest_text_gen.h
KTEST_TEXT_SRCS := kernel/vma/shim/kvma_shim.h tools/ktest/ktest_vma_env.h kernel/vma/kvma_space.c \
		   kernel/vma/kvma_callers_merge_api.c kernel/vma/kvma_callers_mmap_region.c
$(KTEST_TEXT): $(KTEST_TEXT_SRCS) scripts/c-strings.sh
	@mkdir -p $(@D)
	$(call msg,GEN,$@)
	$(Q)sh scripts/c-strings.sh $(KTEST_TEXT_SRCS) >$@.tmp && mv $@.tmp $@
$(call objs,tool,tools/ktest/ktest_vma.c) $(call objs,gcc-check,tools/ktest/ktest_vma.c): $(KTEST_TEXT)

# ------------------------------------------------------------ planted bugs
# A planted bug is a small change under #ifdef VMAFUZZ_BUG_<name> in src/,
# compiled in only by these goals, never by a normal build (they test the
# triage tools: tests/triage.sh; a test_ name is no kernel bug but a break
# planted to test the harness, outside the known-bug suite):
#   make bug-replay BUG=<name>      -> out/bugs/<name>/replay/<target>
#   make bug-libfuzzer BUG=<name>   -> out/bugs/<name>/libfuzzer/<target>
#   make bug-afl BUG=<name>         -> out/bugs/<name>/afl/<target> (afl++)
#   make bug-stable BUG=<name>      -> out/bugs/<name>/stable/<target> (determinism check)
# BUG may name several ("a b" or a,b: out/bugs/a+b/). Only the files that
# mention a switch are compiled again, with it, into out/obj/bug-<name>/ (or
# bug-<name>-libfuzzer/); the rest are the replay (libfuzzer) flavor's objects.
BUGS := $(sort $(patsubst VMAFUZZ_BUG_%,%,$(shell grep -rhoE 'VMAFUZZ_BUG_[A-Za-z0-9_]+' src fuzz 2>/dev/null)))
bug_comma := ,
bug_space := $(subst ,, )
BUG_LIST := $(sort $(subst $(bug_comma), ,$(subst +, ,$(BUG))))
BUG_NAME := $(subst $(bug_space),+,$(BUG_LIST))
.PHONY: bug-replay bug-libfuzzer bug-afl bug-stable list-bugs list-planted
# the known-bug suite's: not the test_ plants, which test the harness itself
list-bugs:
	@echo $(filter-out test_%,$(BUGS))
# all of them, the test_ plants too (vmafuzz fuzz --bug takes any)
list-planted:
	@echo $(BUGS)
ifeq ($(BUG_LIST),)
bug-replay bug-libfuzzer bug-afl bug-stable:
	@echo "make $@: set BUG=<name>; planted bugs: $(BUGS)" >&2; exit 2
else ifneq ($(filter-out $(BUGS),$(BUG_LIST)),)
bug-replay bug-libfuzzer bug-afl bug-stable:
	@echo "make $@: no planted bug '$(filter-out $(BUGS),$(BUG_LIST))' (no VMAFUZZ_BUG_<name> in src/ or fuzz/); have: $(BUGS)" >&2; exit 2
else
BUG_DEFS := $(addprefix -DVMAFUZZ_BUG_,$(BUG_LIST))
BUG_MENTIONS := $(shell grep -lwE '$(subst $(bug_space),|,$(addprefix VMAFUZZ_BUG_,$(BUG_LIST)))' \
	$(LIB_SRCS) $(wildcard src/*/*.h src/runtime/threads/*.h fuzz/*/*.h fuzz/*/*/*.h) 2>/dev/null)
# a switch in a header: everything again
BUG_SRCS := $(if $(filter %.h,$(BUG_MENTIONS)),$(LIB_SRCS),$(BUG_MENTIONS))
CC_bug-$(BUG_NAME)              = $(CC_replay)
FLAGS_bug-$(BUG_NAME)           = $(FLAGS_replay) $(BUG_DEFS)
CC_bug-$(BUG_NAME)-libfuzzer    = $(CC_libfuzzer)
FLAGS_bug-$(BUG_NAME)-libfuzzer = $(FLAGS_libfuzzer) $(BUG_DEFS)
NOCMP_STAMP_bug-$(BUG_NAME)-libfuzzer = $(NOCMP_STAMP_libfuzzer)
CC_bug-$(BUG_NAME)-afl          = $(CC_afl)
FLAGS_bug-$(BUG_NAME)-afl       = $(FLAGS_afl) $(BUG_DEFS)
CC_bug-$(BUG_NAME)-stable       = $(CC_stable)
FLAGS_bug-$(BUG_NAME)-stable    = $(FLAGS_stable) $(BUG_DEFS)
$(foreach f,bug-$(BUG_NAME) bug-$(BUG_NAME)-libfuzzer bug-$(BUG_NAME)-afl bug-$(BUG_NAME)-stable,$(eval $(call flavor_rules,$(f))))
$(call objs,bug-$(BUG_NAME)-libfuzzer,$(filter $(NOCMP_SRCS),$(BUG_SRCS))): \
	private FLAGS_bug-$(BUG_NAME)-libfuzzer += $(NOCMP_FLAGS)
BUG_REPLAY_BINS    := $(addprefix $(OUTDIR)/bugs/$(BUG_NAME)/replay/,$(TARGETS))
BUG_LIBFUZZER_BINS := $(addprefix $(OUTDIR)/bugs/$(BUG_NAME)/libfuzzer/,$(TARGETS))
BUG_AFL_BINS       := $(addprefix $(OUTDIR)/bugs/$(BUG_NAME)/afl/,$(TARGETS))
BUG_STABLE_BINS    := $(addprefix $(OUTDIR)/bugs/$(BUG_NAME)/stable/,$(TARGETS))
bug-replay: $(BUG_REPLAY_BINS)
bug-stable: $(BUG_STABLE_BINS)
bug-libfuzzer: $(BUG_LIBFUZZER_BINS)
ifneq ($(HAVE_AFL),)
bug-afl: $(BUG_AFL_BINS)
else
bug-afl:
	@echo "make bug-afl: $(AFL_CC) not found (install the afl++ package)" >&2; exit 2
endif

$(BUG_REPLAY_BINS): $(OUTDIR)/bugs/$(BUG_NAME)/replay/%: $(OBJDIR)/replay/replay/%.o \
		$(call objs,replay,$(filter-out $(BUG_SRCS),$(LIB_SRCS))) \
		$(call objs,bug-$(BUG_NAME),$(BUG_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_replay) $(LINK_replay) $^ $(LDLIBS) -o $@

$(BUG_LIBFUZZER_BINS): $(OUTDIR)/bugs/$(BUG_NAME)/libfuzzer/%: $(OBJDIR)/libfuzzer/engine/%.o \
		$(call objs,libfuzzer,$(filter-out $(BUG_SRCS),$(LIB_SRCS))) \
		$(call objs,bug-$(BUG_NAME)-libfuzzer,$(BUG_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_libfuzzer) $(LINK_libfuzzer) $^ $(LDLIBS) -o $@

$(BUG_AFL_BINS): $(OUTDIR)/bugs/$(BUG_NAME)/afl/%: $(OBJDIR)/afl/engine/%.o \
		$(call objs,afl,$(filter-out $(BUG_SRCS),$(LIB_SRCS))) \
		$(call objs,bug-$(BUG_NAME)-afl,$(BUG_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_afl) $(LINK_afl) $^ $(LDLIBS) -o $@

$(BUG_STABLE_BINS): $(OUTDIR)/bugs/$(BUG_NAME)/stable/%: $(STABLE_MAIN) $(OBJDIR)/stable/engine/%.o \
		$(call objs,stable,$(filter-out $(BUG_SRCS),$(LIB_SRCS))) \
		$(call objs,bug-$(BUG_NAME)-stable,$(BUG_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_stable) $(LINK_stable) $^ $(LDLIBS) -o $@
endif

# ------------------------------------------------- mutator, cmplog, coverage
#   out/libfuzzer-plain/<target>   libFuzzer without the structure-aware
#                                  mutator (-DVMAFUZZ_NO_CUSTOM_MUTATOR), to compare
#   out/afl/<target>-mutator.so    AFL++ custom mutator library (part of `afl`;
#                                  AFL_CUSTOM_MUTATOR_LIBRARY), no sanitizers
#   out/afl-cmplog/<target>        AFL++ CmpLog binary for afl-fuzz -c (goal
#                                  afl-cmplog), no sanitizers
#   out/coverage/<target>          replay driver with source-based coverage (goal
#                                  coverage; COV_CC, default clang); ./build.sh coverage
CC_mutator        = $(CC)
FLAGS_mutator     = -O2 -g -fPIC -fvisibility=hidden
CC_afl-cmplog     = AFL_QUIET=1 AFL_LLVM_CMPLOG=1 $(AFL_CC)
FLAGS_afl-cmplog  = -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link
LINK_afl-cmplog   = -fsanitize=fuzzer
COV_CC           ?= clang
CC_coverage       = $(COV_CC)
FLAGS_coverage    = -g -O0 -fprofile-instr-generate -fcoverage-mapping
LINK_coverage     = -fprofile-instr-generate
$(foreach f,mutator afl-cmplog coverage,$(eval $(call flavor_rules,$(f))))

LIBFUZZER_PLAIN_BINS := $(addprefix $(OUTDIR)/libfuzzer-plain/,$(TARGETS))
AFL_MUTATOR_SOS      := $(patsubst %,$(OUTDIR)/afl/%-mutator.so,$(TARGETS))
AFL_CMPLOG_BINS      := $(addprefix $(OUTDIR)/afl-cmplog/,$(TARGETS))
COVERAGE_BINS        := $(addprefix $(OUTDIR)/coverage/,$(TARGETS))
.PHONY: libfuzzer-plain afl-cmplog coverage
libfuzzer-plain: $(LIBFUZZER_PLAIN_BINS)
coverage: $(COVERAGE_BINS)
ifneq ($(HAVE_AFL),)
afl: $(AFL_MUTATOR_SOS)
afl-cmplog: $(AFL_CMPLOG_BINS)
else
afl-cmplog:
	@echo "AFL++ CmpLog build skipped: $(AFL_CC) not found (install the afl++ package)"
endif

$(OBJDIR)/libfuzzer/engine-plain/%.o: fuzz/run/main_engine.c $(OBJDIR)/libfuzzer/.flags
	@mkdir -p $(@D)
	$(call msg,CC,[libfuzzer-plain] $< for $*)
	$(Q)$(CC_libfuzzer) $(BASE_CFLAGS) $(FLAGS_libfuzzer) $(EXTRA_CFLAGS) -DVMAFUZZ_TARGET=$*_target \
		-DVMAFUZZ_NO_CUSTOM_MUTATOR -MMD -MP -c $< -o $@ && echo '$<:' >>$(@:.o=.d)

$(LIBFUZZER_PLAIN_BINS): $(OUTDIR)/libfuzzer-plain/%: $(OBJDIR)/libfuzzer/engine-plain/%.o \
		$(call objs,libfuzzer,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_libfuzzer) $(LINK_libfuzzer) $^ $(LDLIBS) -o $@

$(OBJDIR)/mutator/aflmut/%.o: fuzz/run/main_afl_mutator.c $(OBJDIR)/mutator/.flags
	@mkdir -p $(@D)
	$(call msg,CC,[mutator] $< for $*)
	$(Q)$(CC_mutator) $(BASE_CFLAGS) $(FLAGS_mutator) $(EXTRA_CFLAGS) -DVMAFUZZ_TARGET=$*_target \
		-MMD -MP -c $< -o $@ && echo '$<:' >>$(@:.o=.d)

$(AFL_MUTATOR_SOS): $(OUTDIR)/afl/%-mutator.so: $(OBJDIR)/mutator/aflmut/%.o \
		$(call objs,mutator,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_mutator) -shared -Wl,--no-undefined $^ $(LDLIBS) -o $@

$(AFL_CMPLOG_BINS): $(OUTDIR)/afl-cmplog/%: $(OBJDIR)/afl-cmplog/engine/%.o \
		$(call objs,afl-cmplog,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_afl-cmplog) $(LINK_afl-cmplog) $^ $(LDLIBS) -o $@

$(COVERAGE_BINS): $(OUTDIR)/coverage/%: $(OBJDIR)/coverage/replay/%.o \
		$(call objs,coverage,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_coverage) $(LINK_coverage) $^ $(LDLIBS) -o $@

# ----------------------------------------------------------------- corpora
# Seeds depend on the tool binary: a change to the text format recompiles them.
$(SEEDS): $(OUTDIR)/corpus/%: corpus/%.txt $(TOOL_BIN)
	@mkdir -p $(@D)
	$(call msg,SEED,$@)
	$(Q)$(TOOL_BIN) compile $< -o $@

$(FORK_MM_SEEDS): $(OUTDIR)/corpus/fuzz_fork/mm_%: corpus/fuzz_mm/%.txt $(TOOL_BIN)
	@mkdir -p $(@D) $(OBJDIR)/fork-seeds
	$(call msg,SEED,$@)
	$(Q)sed 's/^target fuzz_mm$$/target fuzz_fork/' $< >$(OBJDIR)/fork-seeds/$*.txt
	$(Q)$(TOOL_BIN) compile $(OBJDIR)/fork-seeds/$*.txt -o $@

$(REGRESS): $(OUTDIR)/regress/%: corpus/regress/%.txt $(TOOL_BIN)
	@mkdir -p $(@D)
	$(call msg,SEED,$@)
	$(Q)$(TOOL_BIN) compile $< -o $@

# ------------------------------------------------------------------- misc
clean:
	rm -rf $(OUTDIR)

list-targets:
	@echo $(TARGETS)

help:
	@echo "goals: all libfuzzer afl replay tool corpus regress gcc-check"
	@echo "       tsan (out/tsan/tsan_stress: ThreadSanitizer stress on threads, needs liburcu)"
	@echo "       test (builds out/tests/*; ./build.sh test runs them)"
	@echo "       oss-fuzz (needs OSSFUZZ_OUT=dir) list-targets clean"
	@echo "       libfuzzer-plain (no custom mutator) afl-cmplog coverage (see \"mutator, cmplog, coverage\")"
	@echo "       bug-replay bug-libfuzzer bug-afl BUG=<name> (planted bugs: $(BUGS)) list-bugs"
	@echo "       kernel kernel-test kernel-check kernel-objs-FLAVOR [KSRC=tree] (kernel/maple/maple.mk, docs/kernel.md)"
	@echo "targets: $(TARGETS)"

FORCE:

# A failed compile must not leave a truncated object behind.
.DELETE_ON_ERROR:

# fuzz_conform, the model against this machine's kernel (live/live.mk), and
# the virtual machine's guest init (live/vm/vm.mk).
include live/live.mk
include live/vm/vm.mk

# The kernel backends (kernel/maple/maple.mk, kernel/vma/vma.mk): rules only
# for their goals (make kernel ...); the vma backend's goals are kernel goals too.
KERNEL_GOALS += kernel-vma%
-include kernel/maple/maple.mk
-include kernel/vma/vma.mk
-include kernel/targets.mk

-include $(wildcard $(OBJDIR)/*/*/*.d $(OBJDIR)/*/*/*/*.d $(OBJDIR)/*/*/*/*/*.d \
	$(OBJDIR)/*/*/*/*/*/*.d)
