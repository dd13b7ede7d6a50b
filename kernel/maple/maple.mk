# SPDX-License-Identifier: GPL-2.0
#
# The kernel backend: the kernel's own lib/maple_tree.c, compiled from a
# kernel tree given at build time, behind the tree seam (fuzz/tree/tree_backend.h)
# as `tree_kernel` (docs/kernel.md). Included by the Makefile; every rule
# here is opt-in: nothing is defined unless a kernel goal is asked for, so
# the normal build needs no kernel tree.
#
#   make kernel [KSRC=<tree>]        objects of every flavor and the smoke test
#   make kernel-test                 out/kernel/tests/test_tree_kernel
#   make kernel-check                ... and run it
#   make kernel-objs-FLAVOR          FLAVOR: replay libfuzzer afl afl-cmplog
#   make kfuzz                       the kernel targets: out/kernel/FLAVOR/kfuzz_<name>
#   make kfuzz-stable                their determinism check: out/kernel/stable/kfuzz_<name>
#                                    (fuzz/run/main_stable.c, tests/stable.sh)
#   make kfuzz-oss-fuzz OSSFUZZ_OUT=DIR   the same for OSS-Fuzz (build.sh sets it up)
#
# KSRC defaults to what scripts/kernel-tree.sh prints (Debian's
# linux-source-6.12, unpacked into out/kernel/src/). For each flavor F:
#   $(call kernel_objs,F) = $(OBJDIR)/kernel-F/{kmt,kmt_backend,kmt_known}.o
# kmt.o is lib/maple_tree.c (with kernel/maple/kmt_unit.c around it) and the
# shim's kmem_cache (its linux.c, in tools/testing/shared or, in trees before
# that folder, tools/testing/radix-tree) in one relocatable object
# whose global symbols are all renamed kmt_k_<name> but the kmt_ ones, so it
# links beside the model's tree; kmt_backend.o is the backend; kmt_known.o
# the list of known findings the adapter sidesteps (kernel/maple/kmt_known.h). Link them
# with the runtime (src/runtime/*.c); add a goal's name to KERNEL_GOALS to
# have these rules defined for it.

KERNEL_GOALS += kernel kernel-test kernel-check kernel-objs-% kfuzz% $(OUTDIR)/kernel/%
KERNEL_WANTED := $(strip $(foreach g,$(KERNEL_GOALS),$(filter $(g),$(MAKECMDGOALS))))

kernel_objs = $(OBJDIR)/kernel-$(1)/kmt.o $(OBJDIR)/kernel-$(1)/kmt_backend.o \
	$(OBJDIR)/kernel-$(1)/kmt_known.o

ifneq ($(KERNEL_WANTED),)

ifeq ($(KSRC),)
KSRC := $(shell OUTDIR=$(OUTDIR) scripts/kernel-tree.sh)
ifeq ($(KSRC),)
$(error no kernel tree (see scripts/kernel-tree.sh above): set KSRC=<kernel tree>)
endif
endif
override KSRC := $(abspath $(KSRC))

KMT_OUT    := $(OUTDIR)/kernel
KMT_GEN    := $(KMT_OUT)/gen
KMT_CONFIG := $(KMT_OUT)/config.mk
KMT_GEN_HDRS := $(addprefix $(KMT_GEN)/generated/,autoconf.h bit-length.h map-shift.h)
LD ?= ld
OBJCOPY ?= objcopy
NM ?= nm

# The shim's generated/ headers (tools/testing/shared/shared.mk makes the
# same): its autoconf.h, the word size and the xarray's chunk shift. The
# autoconf.h is where the tree keeps it: tools/testing/shared, or before
# that folder existed tools/testing/radix-tree/generated (none: an empty
# one, and the probe names what the tree lacks).
KMT_AUTOCONF := $(firstword $(wildcard $(KSRC)/tools/testing/shared/autoconf.h \
	$(KSRC)/tools/testing/radix-tree/generated/autoconf.h))
$(KMT_GEN)/generated/autoconf.h: $(KMT_AUTOCONF)
	@mkdir -p $(@D)
	$(Q)$(if $<,cp $< $@,: > $@)
$(KMT_GEN)/generated/bit-length.h:
	@mkdir -p $(@D)
	$(Q)echo "#define CONFIG_$$(getconf LONG_BIT)BIT 1" > $@
$(KMT_GEN)/generated/map-shift.h:
	@mkdir -p $(@D)
	$(Q)echo "#define XA_CHUNK_SHIFT 6" > $@

# The quirks, found by probe compiles (kernel/maple/probe.sh): make rereads this
# once it is (re)made.
# (the tree's files by wildcard: a tree without them is the probe's to name)
$(KMT_CONFIG): kernel/maple/probe.sh $(wildcard $(KSRC)/lib/maple_tree.c \
		$(KSRC)/include/linux/maple_tree.h) $(KMT_GEN_HDRS) $(wildcard kernel/maple/shim/*.h kernel/maple/shim/*/*.h)
	@mkdir -p $(@D)
	$(call msg,PROBE,$(KSRC))
	$(Q)kernel/maple/probe.sh "$(CC)" "$(KSRC)" "$(KMT_GEN)" $@
# (the probe's verdict; these until it is made)
KMT_SHIM_DIR := tools/testing/shared
-include $(KMT_CONFIG)
# a config probed for another tree is made again
ifneq ($(KMT_PROBED_KSRC),$(KSRC))
$(KMT_CONFIG): FORCE
endif

# Kernel files: the kernel's dialect and warnings off (for them only) but
# implicit declarations, which would call a function the tree lacks as int
# (-w would silence them too; gcc ignores the -Wno- it does not know), the
# shim's include paths behind ours (kernel/maple/shim shadows its rcupdate.h and
# liburcu's uatomic.h), the prelude forced in first.
KMT_CFLAGS = -std=gnu11 -D_GNU_SOURCE -Wno-everything -Werror=implicit-function-declaration \
	-Ikernel/maple/shim $(KMT_SHIM_INC) -I$(KMT_GEN) \
	-I$(KSRC)/$(KMT_SHIM_DIR) -I$(KSRC)/tools/include $(KMT_ARCH_INC) -I$(KSRC)/lib -Isrc -I. \
	-include kernel/maple/shim/kmt_prelude.h $(KMT_QUIRK_CFLAGS) $(KMT_DEFS)

KMT_FLAVORS := replay libfuzzer $(if $(HAVE_AFL),afl)
# Flavors with rules but built only when asked for (./build.sh fuzz --afl
# asks for afl-cmplog, afl-fuzz's -c binary).
KMT_RULE_FLAVORS := $(KMT_FLAVORS) $(if $(HAVE_AFL),afl-cmplog) $(if $(OSSFUZZ_OUT),oss-fuzz) stable

# The kernel's files get edge coverage but no comparison tracing, for the
# reason the model gets none (Makefile, NOCMP_FLAGS): they compare indices,
# pivots and gaps derived from the run, and the validators that run after
# every step and inside the kernel's writes call the same walkers, so their
# tracing cannot be left out by function name alone. Measured side by side
# in docs/benchmarks.md.
KNOCMP_libfuzzer = $(NOCMP_FLAGS)

define kernel_rules
$(OBJDIR)/kernel-$(1)/.flags: FORCE
	@mkdir -p $$(@D)
	@echo '$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(FLAGS_SUM) $$(KMT_CFLAGS) $$(KNOCMP_$(1))' | cmp -s - $$@ || \
		echo '$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(FLAGS_SUM) $$(KMT_CFLAGS) $$(KNOCMP_$(1))' > $$@

$(OBJDIR)/kernel-$(1)/kmt_unit.o: kernel/maple/kmt_unit.c kernel/maple/kmt.h $(OBJDIR)/kernel-$(1)/.flags \
		$(KMT_CONFIG) $(KMT_GEN_HDRS)
	@mkdir -p $$(@D)
	$$(call msg,CC,[kernel-$(1)] $$(KSRC)/lib/maple_tree.c)
	$$(Q)$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(KMT_CFLAGS) $$(KNOCMP_$(1)) -MMD -MP -c $$< -o $$@ && echo '$$<:' >>$$(@:.o=.d)

$(OBJDIR)/kernel-$(1)/linux.o: $(KSRC)/$(KMT_SHIM_DIR)/linux.c $(OBJDIR)/kernel-$(1)/.flags \
		$(KMT_CONFIG) $(KMT_GEN_HDRS)
	@mkdir -p $$(@D)
	$$(call msg,CC,[kernel-$(1)] $$<)
	$$(Q)$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(KMT_CFLAGS) $$(KNOCMP_$(1)) -MMD -MP -c $$< -o $$@ && echo '$$<:' >>$$(@:.o=.d)

# One object, every global but the kmt_ ones renamed kmt_k_<name> (the
# list, from nm, is kept beside it as kmt.syms).
$(OBJDIR)/kernel-$(1)/kmt.o: $(OBJDIR)/kernel-$(1)/kmt_unit.o $(OBJDIR)/kernel-$(1)/linux.o
	$$(call msg,LD,$$@ (renamed))
	$$(Q)$$(LD) -r -o $$@.tmp $$^
	$$(Q)$$(NM) -g --defined-only $$@.tmp | \
		awk 'NF == 3 && $$$$3 !~ /^(kmt_|_+(asan|ubsan|sancov|odr_asan|start_|stop_))/ \
			{ print $$$$3, "kmt_k_" $$$$3 }' > $$(@:.o=.syms)
	$$(Q)$$(OBJCOPY) --redefine-syms=$$(@:.o=.syms) $$@.tmp $$@
	$$(Q)rm -f $$@.tmp

$(OBJDIR)/kernel-$(1)/kmt_backend.o: kernel/maple/kmt_backend.c kernel/maple/kmt.h $(OBJDIR)/kernel-$(1)/.flags \
		$(KMT_CONFIG)
	@mkdir -p $$(@D)
	$$(call msg,CC,[kernel-$(1)] $$<)
	$$(Q)$$(CC_$(1)) $$(BASE_CFLAGS) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(KMT_DEFS) $$(KNOCMP_$(1)) -MMD -MP -c $$< -o $$@ && echo '$$<:' >>$$(@:.o=.d)

$(OBJDIR)/kernel-$(1)/kmt_known.o: kernel/maple/kmt_known.c $(OBJDIR)/kernel-$(1)/.flags
	@mkdir -p $$(@D)
	$$(call msg,CC,[kernel-$(1)] $$<)
	$$(Q)$$(CC_$(1)) $$(BASE_CFLAGS) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(KNOCMP_$(1)) -MMD -MP -c $$< -o $$@ && echo '$$<:' >>$$(@:.o=.d)

.PHONY: kernel-objs-$(1)
kernel-objs-$(1): $(call kernel_objs,$(1))
endef
$(foreach f,$(KMT_RULE_FLAVORS),$(eval $(call kernel_rules,$(f))))

# The smoke test: the test flavor's runtime, the replay flavor's kernel.
KMT_RUNTIME_SRCS := $(wildcard src/runtime/*.c)
KMT_TEST_BIN := $(KMT_OUT)/tests/test_tree_kernel
$(KMT_TEST_BIN): $(OBJDIR)/test/tests/kernel/test_tree_kernel.o $(call kernel_objs,replay) \
		$(call objs,test,$(KMT_RUNTIME_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_test) $(LINK_test) $^ $(LDLIBS) -o $@

# The kernel targets: kernel/*/kfuzz_<name>.c, linked as a model target is
# (its engine or replay main, the harness and the model) with the kernel's
# objects, into out/kernel/<flavor>/kfuzz_<name>.
KFUZZ_SRCS    := $(wildcard kernel/*/kfuzz_*.c)
KFUZZ_TARGETS := $(basename $(notdir $(KFUZZ_SRCS)))
# KFUZZ_SRC_<target>: its source, in the folder of the backend it drives
$(foreach s,$(KFUZZ_SRCS),$(eval KFUZZ_SRC_$(basename $(notdir $(s))) := $(s)))
kfuzz_main_dir = $(if $(filter replay,$(1)),replay,engine)
# the determinism check's driver, beside the engine entry
KFUZZ_MAIN_stable = $(STABLE_MAIN)
# $(call kfuzz_objs,FLAVOR,TARGET): the kernel objects a target links: the
# maple tree's, and the vma backend's for a target of kernel/vma/
kfuzz_objs = $(call kernel_objs,$(1)) $(if $(filter kernel/vma/%,$(KFUZZ_SRC_$(2))),\
	$(OBJDIR)/kernel-$(1)/kvma.o $(OBJDIR)/kernel-$(1)/kvma_backend.o)
# $(call kfuzz_rules,FLAVOR,TARGET)
define kfuzz_rules
$(OUTDIR)/kernel/$(1)/$(2): $(KFUZZ_MAIN_$(1)) $(OBJDIR)/$(1)/$(call kfuzz_main_dir,$(1))/$(2).o \
		$(call objs,$(1),$(KFUZZ_SRC_$(2))) \
		$(call objs,$(1),$(LIB_SRCS)) $(call kfuzz_objs,$(1),$(2))
	@mkdir -p $$(@D)
	$$(call msg,LD,$$@)
	$$(Q)$$(CC_$(1)) $$(LINK_$(1)) $$^ $$(LDLIBS) -o $$@
endef
$(foreach f,$(KMT_RULE_FLAVORS),$(foreach t,$(KFUZZ_TARGETS),$(eval $(call kfuzz_rules,$(f),$(t)))))
# kfuzz and kernel build kernel/maple/'s targets; kernel/vma/vma.mk adds its
# own when the tree has what they need
KFUZZ_MAPLE := $(basename $(notdir $(wildcard kernel/maple/kfuzz_*.c)))
KFUZZ_BINS := $(foreach f,$(KMT_FLAVORS),$(addprefix $(OUTDIR)/kernel/$(f)/,$(KFUZZ_MAPLE)))

# OSS-Fuzz (build.sh with $LIB_FUZZING_ENGINE, $OUT and a kernel tree in
# $KSRC): the kernel targets beside the model's in $(OSSFUZZ_OUT), compiled
# with OSS-Fuzz's $CFLAGS and linked as it links ($CXX, $LIB_FUZZING_ENGINE).
ifneq ($(OSSFUZZ_OUT),)
KFUZZ_OSS_BINS := $(addprefix $(OSSFUZZ_OUT)/,$(KFUZZ_TARGETS))
define kfuzz_oss_rules
$(OSSFUZZ_OUT)/$(1): $(OBJDIR)/oss-fuzz/engine/$(1).o $(call objs,oss-fuzz,$(KFUZZ_SRC_$(1))) \
		$(call objs,oss-fuzz,$(LIB_SRCS)) $(call kfuzz_objs,oss-fuzz,$(1))
	@mkdir -p $$(@D)
	$$(call msg,LD,$$@)
	$$(Q)$$(CXX) $$(CXXFLAGS) $$^ $$(LIB_FUZZING_ENGINE) $$(LDLIBS) -o $$@
endef
$(foreach t,$(KFUZZ_TARGETS),$(eval $(call kfuzz_oss_rules,$(t))))
.PHONY: kfuzz-oss-fuzz
kfuzz-oss-fuzz: $(KFUZZ_OSS_BINS)
endif

.PHONY: kernel kernel-test kernel-check kfuzz kfuzz-stable
kfuzz: $(KFUZZ_BINS)
kfuzz-stable: $(addprefix $(OUTDIR)/kernel/stable/,$(KFUZZ_MAPLE))
kernel: $(foreach f,$(KMT_FLAVORS),kernel-objs-$(f)) kernel-test kfuzz
kernel-test: $(KMT_TEST_BIN)
kernel-check: $(KMT_TEST_BIN)
	$(KMT_TEST_BIN)

-include $(wildcard $(OBJDIR)/kernel-*/*.d)

endif
