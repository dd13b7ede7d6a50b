# SPDX-License-Identifier: GPL-2.0
#
# The kernel backend: the kernel's own lib/maple_tree.c, compiled from a
# kernel tree given at build time, behind the tree seam (fuzz/tree/tree_backend.h)
# as `tree_kernel` (docs/kernel.md). Included by the Makefile; every rule
# here is opt-in: nothing is defined unless a kernel goal is asked for, so
# the normal build needs no kernel tree.
#
#   make kernel [KSRC=<tree>]        the kernel targets, objects and tests of the tree
#   make kernel-test                 out/kernel/tests/test_tree_kernel
#   make kernel-check                ... and run it
#   make kernel-objs-FLAVOR          FLAVOR: replay libfuzzer afl afl-cmplog
#   make kfuzz                       the kernel targets: out/kernel/FLAVOR/kfuzz_<name>
#   make kfuzz-stable                their determinism check: out/kernel/stable/kfuzz_<name>
#                                    (fuzz/run/main_stable.c, tests/stable.sh)
#   make kfuzz-oss-fuzz OSSFUZZ_OUT=DIR   the same for OSS-Fuzz (build.sh sets it up)
#
# The tree (scripts/kernel-tree.sh): KSRC names it (6.1, 6.12, current or a
# path) and is recorded, so that later builds without KSRC use it too
# (KSRC_RECORD=no: this build only); without KSRC, the recorded tree, else
# Debian's 6.12. Each tree's builds are kept apart, side by side, in
# out/kernel/<version>-<hash of the compiled files>/ (KMT_OUT): its probes'
# answers, generated headers, objects (obj/kernel-F/), targets (F/) and
# tests (tests/); out/kernel/current names the recorded tree's, and
# out/kernel/{replay,libfuzzer,...} lead there. For each flavor F:
#   $(call kernel_objs,F) = $(KOBJ)/kernel-F/{kmt,kmt_backend,kmt_known}.o
# kmt.o is lib/maple_tree.c (with kernel/maple/kmt_unit.c around it) and the
# shim's kmem_cache (its linux.c, in tools/testing/shared or, in trees before
# that folder, tools/testing/radix-tree) in one relocatable object
# whose global symbols are all renamed kmt_k_<name> but the kmt_ ones, so it
# links beside the model's tree; kmt_backend.o is the backend; kmt_known.o
# the list of known findings the adapter sidesteps (kernel/maple/kmt_known.h).
# Link them with the runtime (src/runtime/*.c); add a goal's name to
# KERNEL_GOALS to have these rules defined for it. What a tree cannot build
# (its probe says why) is one sentence and exit status 2, never a make error.

KERNEL_GOALS += kernel kernel-test kernel-check kernel-notes kernel-objs-% kfuzz% $(OUTDIR)/kernel/%
KERNEL_WANTED := $(strip $(foreach g,$(KERNEL_GOALS),$(filter $(g),$(MAKECMDGOALS))))

kernel_objs = $(KOBJ)/kernel-$(1)/kmt.o $(KOBJ)/kernel-$(1)/kmt_backend.o \
	$(KOBJ)/kernel-$(1)/kmt_known.o

ifneq ($(KERNEL_WANTED),)

KSRC_RECORD ?= yes
KTREE_SPEC := $(KSRC)
override KSRC := $(shell OUTDIR=$(OUTDIR) scripts/kernel-tree.sh \
	$(if $(and $(KTREE_SPEC),$(filter yes,$(KSRC_RECORD))),--record) $(KTREE_SPEC))
ifeq ($(KSRC),)
$(error no kernel tree (the reason is just above))
endif
KTREE_KEY := $(shell scripts/kernel-tree.sh --key $(KSRC))
ifeq ($(KTREE_KEY),)
$(error $(KSRC): no kernel version (the reason is just above))
endif
# the version is the key without its last part, the hash
KTREE_VERSION := $(patsubst %-$(lastword $(subst -, ,$(KTREE_KEY))),%,$(KTREE_KEY))
KTREE_NAME := $(KSRC) (Linux $(KTREE_VERSION))

KMT_OUT    := $(OUTDIR)/kernel/$(KTREE_KEY)
KOBJ       := $(KMT_OUT)/obj
KMT_GEN    := $(KMT_OUT)/gen
KMT_CONFIG := $(KMT_OUT)/config.mk
KMT_GEN_HDRS := $(addprefix $(KMT_GEN)/generated/,autoconf.h bit-length.h map-shift.h)
LD ?= ld
OBJCOPY ?= objcopy
NM ?= nm

# The tree in use (the recorded one): out/kernel/current is its builds, and
# the flavors' folders of out/kernel lead there; its path and version are
# written beside its builds for the tools that name it.
KTREE_IN_USE := $(if $(and $(KTREE_SPEC),$(filter-out yes,$(KSRC_RECORD))),,yes)
$(shell mkdir -p $(KMT_OUT) && printf 'path %s\nversion %s\nkey %s\n' '$(KSRC)' \
	'$(KTREE_VERSION)' '$(KTREE_KEY)' >$(KMT_OUT)/tree.tmp && mv $(KMT_OUT)/tree.tmp $(KMT_OUT)/tree)
ifeq ($(KTREE_IN_USE),yes)
KTREE_LINKS := replay libfuzzer afl afl-cmplog stable coverage tests
$(shell cd $(OUTDIR)/kernel && ln -sfn $(KTREE_KEY) current && \
	for d in $(KTREE_LINKS); do [ -L $$d ] || rm -rf $$d; ln -sfn current/$$d $$d; done)
endif

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
# (the tree's files by wildcard: a tree without them is the probe's to name;
# a probe that fails leaves its sentence in the config, KMT_CANNOT, and its
# log beside it, and the build goes on without the maple tree's targets)
$(KMT_CONFIG): kernel/maple/probe.sh $(wildcard $(KSRC)/lib/maple_tree.c \
		$(KSRC)/include/linux/maple_tree.h) $(KMT_GEN_HDRS) $(wildcard kernel/maple/shim/*.h kernel/maple/shim/*/*.h)
	@mkdir -p $(@D)
	$(call msg,PROBE,$(KSRC))
	$(Q)kernel/maple/probe.sh "$(CC)" "$(KSRC)" "$(KMT_GEN)" $@ 2>$@.log || \
		{ why=$$(grep '^probe: ' $@.log | tail -n 1 | sed 's/^probe: //; s/:$$//' | tr -d '$$#'); \
		case $$why in *"cannot be built"*) ;; \
		*) why="kfuzz_mtree cannot be built from $(KTREE_NAME): $$why (the probe: $@.log)" ;; esac; \
		printf 'KMT_PROBED_KSRC := %s\nKMT_CANNOT := %s\n' '$(KSRC)' "$$why" >$@; }
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
KMT_RULE_FLAVORS := $(KMT_FLAVORS) $(if $(HAVE_AFL),afl-cmplog) $(if $(OSSFUZZ_OUT),oss-fuzz) stable coverage

# The kernel's files get edge coverage but no comparison tracing, for the
# reason the model gets none (Makefile, NOCMP_FLAGS): they compare indices,
# pivots and gaps derived from the run, and the validators that run after
# every step and inside the kernel's writes call the same walkers, so their
# tracing cannot be left out by function name alone. Why and how it was
# measured: docs/benchmarks.md; the figures: docs/results/benchmarks.md.
KNOCMP_libfuzzer = $(NOCMP_FLAGS)

define kernel_rules
$(KOBJ)/kernel-$(1)/.flags: FORCE
	@mkdir -p $$(@D)
	@echo '$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(FLAGS_SUM) $$(KMT_CFLAGS) $$(KNOCMP_$(1))' | cmp -s - $$@ || \
		echo '$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(FLAGS_SUM) $$(KMT_CFLAGS) $$(KNOCMP_$(1))' > $$@

$(KOBJ)/kernel-$(1)/kmt_unit.o: kernel/maple/kmt_unit.c kernel/maple/kmt.h $(KOBJ)/kernel-$(1)/.flags \
		$(KMT_CONFIG) $(KMT_GEN_HDRS)
	@mkdir -p $$(@D)
	$$(call msg,CC,[kernel-$(1)] $$(KSRC)/lib/maple_tree.c)
	$$(Q)$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(KMT_CFLAGS) $$(KNOCMP_$(1)) -MMD -MP -c $$< -o $$@ && echo '$$<:' >>$$(@:.o=.d)

$(KOBJ)/kernel-$(1)/linux.o: $(KSRC)/$(KMT_SHIM_DIR)/linux.c $(KOBJ)/kernel-$(1)/.flags \
		$(KMT_CONFIG) $(KMT_GEN_HDRS)
	@mkdir -p $$(@D)
	$$(call msg,CC,[kernel-$(1)] $$<)
	$$(Q)$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(KMT_CFLAGS) $$(KNOCMP_$(1)) -MMD -MP -c $$< -o $$@ && echo '$$<:' >>$$(@:.o=.d)

# One object, every global but the kmt_ ones renamed kmt_k_<name> (the
# list, from nm, is kept beside it as kmt.syms).
$(KOBJ)/kernel-$(1)/kmt.o: $(KOBJ)/kernel-$(1)/kmt_unit.o $(KOBJ)/kernel-$(1)/linux.o
	$$(call msg,LD,$$@ (renamed))
	$$(Q)$$(LD) -r -o $$@.tmp $$^
	$$(Q)$$(NM) -g --defined-only $$@.tmp | \
		awk 'NF == 3 && $$$$3 !~ /^(kmt_|_+(asan|ubsan|msan|tsan|sancov|odr_asan|llvm|prof|start_|stop_))/ \
			{ print $$$$3, "kmt_k_" $$$$3 }' > $$(@:.o=.syms)
	$$(Q)$$(OBJCOPY) --redefine-syms=$$(@:.o=.syms) $$@.tmp $$@
	$$(Q)rm -f $$@.tmp

$(KOBJ)/kernel-$(1)/kmt_backend.o: kernel/maple/kmt_backend.c kernel/maple/kmt.h $(KOBJ)/kernel-$(1)/.flags \
		$(KMT_CONFIG)
	@mkdir -p $$(@D)
	$$(call msg,CC,[kernel-$(1)] $$<)
	$$(Q)$$(CC_$(1)) $$(BASE_CFLAGS) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(KMT_DEFS) $$(KNOCMP_$(1)) -MMD -MP -c $$< -o $$@ && echo '$$<:' >>$$(@:.o=.d)

$(KOBJ)/kernel-$(1)/kmt_known.o: kernel/maple/kmt_known.c $(KOBJ)/kernel-$(1)/.flags
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

# What kfuzz_mtree links of the kernel (kernel/targets.mk links it), and
# whether the tree can give it.
KFUZZ_KOBJS_kfuzz_mtree = $(call kernel_objs,$(1))
KFUZZ_CANNOT_kfuzz_mtree = $(KMT_CANNOT)
KFUZZ_TESTS_kfuzz_mtree = $(KMT_TEST_BIN)

.PHONY: kernel-test kernel-check
kernel-test: $(KMT_TEST_BIN)
kernel-check: $(KMT_TEST_BIN)
	$(KMT_TEST_BIN)

-include $(wildcard $(KOBJ)/kernel-*/*.d)

endif
