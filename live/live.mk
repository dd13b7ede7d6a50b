# SPDX-License-Identifier: GPL-2.0
# The real-kernel runner's programs of their own: fuzz_conform
# (live/fuzz_conform.c), fuzz_mm's programs in the model and for real on
# this machine's kernel, under libFuzzer, and the server. Included by the
# Makefile; `make libfuzzer` builds both.
#
# fuzz_conform lives in live/ because it runs conform's code (conform_run,
# the live backend, the real processes), which sits above fuzz/.
# Its engine entry is fuzz/run/main_engine.c, as for every target; the conform
# sources are compiled in the engine's flavor beside the model and harness.
# Its server out/conform-server (live/server.h), which forks each
# input's first real process, is built without sanitizers (tool flavor) so
# that the real processes stay small, and static: without ld.so and libc's
# mappings each real process has half the VMAs, which every fork copies and
# every read of smaps and smaps_rollup after every call walks (measured side
# by side: docs/results/fidelity.md).

FUZZ_CONFORM_SRCS   := live/fuzz_conform.c live/conform_run.c live/live_backend.c \
		       live/conform_model.c live/conform_ops.c live/real_proc.c \
		       live/server.c live/conform_probe.c live/ksys.c live/wait.c
CONFORM_SERVER_SRCS := live/server_main.c live/server.c live/real_proc.c live/ksys.c live/wait.c
FUZZ_CONFORM        := $(OUTDIR)/libfuzzer/fuzz_conform
CONFORM_SERVER      := $(OUTDIR)/conform-server

# No comparison tracing in them (as in the model, Makefile's NOCMP_SRCS):
# they compare what the run produced, never the program's bytes.
NOCMP_SRCS += $(FUZZ_CONFORM_SRCS)
$(call objs,libfuzzer,$(FUZZ_CONFORM_SRCS)): private FLAGS_libfuzzer += $(NOCMP_FLAGS)

.PHONY: fuzz_conform
fuzz_conform: $(FUZZ_CONFORM) $(CONFORM_SERVER)
libfuzzer: fuzz_conform
gcc-check: $(OBJDIR)/gcc-check/bin/conform-server

$(FUZZ_CONFORM): $(OBJDIR)/libfuzzer/engine/fuzz_conform.o \
		$(call objs,libfuzzer,$(LIB_SRCS) $(FUZZ_CONFORM_SRCS)) | $(CONFORM_SERVER)
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_libfuzzer) $(LINK_libfuzzer) $(filter %.o,$^) $(LDLIBS) -o $@

$(CONFORM_SERVER): $(call objs,tool,$(CONFORM_SERVER_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_tool) $(LINK_tool) -static $^ $(LDLIBS) -o $@

$(OBJDIR)/gcc-check/bin/conform-server: $(call objs,gcc-check,$(CONFORM_SERVER_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_gcc-check) $^ $(LDLIBS) -o $@
