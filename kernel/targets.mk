# SPDX-License-Identifier: GPL-2.0
#
# The kernel targets: kernel/<backend>/kfuzz_<name>.c, each linked as a
# model target is (its engine or replay main, the harness and the model)
# with the kernel objects its backend names (KFUZZ_KOBJS_<target>, in
# kernel/maple/maple.mk and kernel/vma/vma.mk), into
# out/kernel/<tree>/<flavor>/kfuzz_<name>. A target its tree cannot give
# (KFUZZ_CANNOT_<target>: the probe's sentence, naming the tree, its
# version and what it lacks) is not built: asking for it
# says why, with exit status 2. Included by the Makefile after the
# backends, for kernel goals only.
#
#   make kernel        every target the tree can give, in every flavor, and
#                      the backends' tests; a sentence for each it cannot
#   make kfuzz         the targets alone; make kfuzz-stable: the determinism check's

ifneq ($(KERNEL_WANTED),)

KFUZZ_SRCS    := $(wildcard kernel/*/kfuzz_*.c)
KFUZZ_ALL     := $(basename $(notdir $(KFUZZ_SRCS)))
# KFUZZ_SRC_<target>: its source, in the folder of the backend it drives
$(foreach s,$(KFUZZ_SRCS),$(eval KFUZZ_SRC_$(basename $(notdir $(s))) := $(s)))
KFUZZ_TARGETS := $(strip $(foreach t,$(KFUZZ_ALL),$(if $(KFUZZ_CANNOT_$(t)),,$(t))))
KFUZZ_NOT     := $(filter-out $(KFUZZ_TARGETS),$(KFUZZ_ALL))
kfuzz_main_dir = $(if $(filter replay coverage,$(1)),replay,engine)
# the determinism check's driver, beside the engine entry
KFUZZ_MAIN_stable = $(STABLE_MAIN)

# $(call kfuzz_rules,FLAVOR,TARGET)
define kfuzz_rules
$(KMT_OUT)/$(1)/$(2): $(KFUZZ_MAIN_$(1)) $(OBJDIR)/$(1)/$(call kfuzz_main_dir,$(1))/$(2).o \
		$(call objs,$(1),$(KFUZZ_SRC_$(2))) \
		$(call objs,$(1),$(LIB_SRCS)) $(call KFUZZ_KOBJS_$(2),$(1))
	@mkdir -p $$(@D)
	$$(call msg,LD,$$@)
	$$(Q)$$(CC_$(1)) $$(LINK_$(1)) $$^ $$(LDLIBS) -o $$@
endef
# $(call kfuzz_cannot,TARGET): every build of it says why there is none
define kfuzz_cannot
$(foreach f,$(KMT_RULE_FLAVORS),$(KMT_OUT)/$(f)/$(1)) $(OSSFUZZ_OUT)/$(1): FORCE
	@echo "kernel: $(KFUZZ_CANNOT_$(1))" >&2; exit 2
endef
$(foreach f,$(KMT_RULE_FLAVORS),$(foreach t,$(KFUZZ_TARGETS),$(eval $(call kfuzz_rules,$(f),$(t)))))
$(foreach t,$(KFUZZ_NOT),$(eval $(call kfuzz_cannot,$(t))))
KFUZZ_BINS := $(foreach f,$(KMT_FLAVORS),$(addprefix $(KMT_OUT)/$(f)/,$(KFUZZ_TARGETS)))

# The same paths through out/kernel/<flavor>/ when this is the tree in use.
ifeq ($(KTREE_IN_USE),yes)
$(foreach f,$(KMT_RULE_FLAVORS),$(foreach t,$(KFUZZ_ALL),$(eval $(OUTDIR)/kernel/$(f)/$(t): $(KMT_OUT)/$(f)/$(t) ; @:)))
endif

# OSS-Fuzz (build.sh with $LIB_FUZZING_ENGINE, $OUT and a kernel tree in
# $KSRC): the kernel targets beside the model's in $(OSSFUZZ_OUT), compiled
# with OSS-Fuzz's $CFLAGS and linked as it links ($CXX, $LIB_FUZZING_ENGINE).
ifneq ($(OSSFUZZ_OUT),)
KFUZZ_OSS_BINS := $(addprefix $(OSSFUZZ_OUT)/,$(KFUZZ_TARGETS))
define kfuzz_oss_rules
$(OSSFUZZ_OUT)/$(1): $(OBJDIR)/oss-fuzz/engine/$(1).o $(call objs,oss-fuzz,$(KFUZZ_SRC_$(1))) \
		$(call objs,oss-fuzz,$(LIB_SRCS)) $(call KFUZZ_KOBJS_$(1),oss-fuzz)
	@mkdir -p $$(@D)
	$$(call msg,LD,$$@)
	$$(Q)$$(CXX) $$(CXXFLAGS) $$^ $$(LIB_FUZZING_ENGINE) $$(LDLIBS) -o $$@
endef
$(foreach t,$(KFUZZ_TARGETS),$(eval $(call kfuzz_oss_rules,$(t))))
.PHONY: kfuzz-oss-fuzz
kfuzz-oss-fuzz: $(KFUZZ_OSS_BINS) kernel-notes
endif

.PHONY: kernel kfuzz kfuzz-stable kernel-notes
kfuzz: $(KFUZZ_BINS) kernel-notes
kfuzz-stable: $(addprefix $(KMT_OUT)/stable/,$(KFUZZ_TARGETS))
kernel: $(KFUZZ_BINS) $(foreach t,$(KFUZZ_TARGETS),$(KFUZZ_TESTS_$(t))) kernel-notes
# what the tree cannot give, one sentence each; nothing at all: exit 2
kernel-notes:
	@$(foreach t,$(KFUZZ_NOT),echo "kernel: $(KFUZZ_CANNOT_$(t))" >&2;) \
		$(if $(KFUZZ_TARGETS),:,exit 2)

endif
