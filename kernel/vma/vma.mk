# SPDX-License-Identifier: GPL-2.0
#
# The vma backend: the kernel's own mm/vma.c, compiled from the kernel tree
# with the stubs of tools/testing/vma, behind the address-space seam
# (fuzz/as/as_backend.h) as `as_kernel_vma` (docs/kernel.md, "The vma
# backend"). Included by the Makefile after kernel/maple/maple.mk, whose goals
# list (KERNEL_GOALS) names ours (kernel-vma%), so its variables (KSRC,
# KMT_GEN, KMT_QUIRK_CFLAGS, ...) and the maple tree's objects are there:
#
#   make kernel-vma [KSRC=<tree>]     objects of every flavor and the test
#   make kernel-vma-test              out/kernel/tests/test_vma_kernel
#   make kernel-vma-check             ... and run it
#   make kernel-vma-objs-FLAVOR       FLAVOR: replay libfuzzer afl
#
# For each flavor F:
#   $(call kernel_vma_objs,F) = kvma.o kvma_backend.o kmt.o kmt_known.o of
#   $(KOBJ)/kernel-F/ (the tree's own folder: kernel/maple/maple.mk)
# kvma.o is mm/vma.c (with kernel/vma/kvma_unit.c around it) in a relocatable
# object whose references to the maple tree are renamed with kmt.o's list
# (kmt.syms: they bind to kmt.o's tree, nodes failable through the runtime)
# and whose own globals are renamed kvma_k_<name> but the kvma_ ones, so it
# links beside the model (vma_merge_new_range, validate_mm ...).

kernel_vma_objs = $(KOBJ)/kernel-$(1)/kvma.o $(KOBJ)/kernel-$(1)/kvma_backend.o \
	$(KOBJ)/kernel-$(1)/kmt.o $(KOBJ)/kernel-$(1)/kmt_known.o

ifneq ($(KERNEL_WANTED),)

KVMA_CONFIG := $(KMT_OUT)/vma_config.mk

# (the maple tree's flags read from its config as it is now: made in the
# same run, its variables here are still the old ones; the tree's files by
# wildcard: a tree without them is the probe's to name;
# its verdict then, exit status 2, is kept in the config as KVMA_UNSUPPORTED;
# a probe that fails otherwise leaves its last word as KVMA_CANNOT)
$(KVMA_CONFIG): kernel/vma/probe.sh $(KMT_CONFIG) $(wildcard $(KSRC)/mm/vma*.c $(KSRC)/mm/vma.h \
		$(KSRC)/tools/testing/vma/*.h $(KSRC)/tools/testing/vma/include/*.h) $(KMT_GEN_HDRS) \
		$(wildcard kernel/vma/shim/*.h kernel/vma/shim/*/*.h)
	@mkdir -p $(@D)
	$(call msg,PROBE,$(KSRC) (vma))
	$(Q)kernel/vma/probe.sh "$(CC)" "$(KSRC)" "$(KMT_GEN)" \
		"$$(sed -n 's/^KMT_ARCH_INC := //p; s/^KMT_QUIRK_CFLAGS := //p' $(KMT_CONFIG) | tr '\n' ' ')" $@ \
		2>$@.log || [ $$? -eq 2 ] || \
		printf 'KVMA_PROBED_KSRC := %s\nKVMA_CANNOT := kfuzz_vma cannot be built from %s: %s (the probe: %s)\n' \
		'$(KSRC)' '$(KTREE_NAME)' \
		"$$(grep '^vma_probe: ' $@.log | tail -n 1 | sed 's/^vma_probe: //; s/:$$//' | tr -d '$$#')" \
		'$@.log' >$@
KVMA_UNSUPPORTED :=
-include $(KVMA_CONFIG)
ifneq ($(KVMA_PROBED_KSRC),$(KSRC))
$(KVMA_CONFIG): FORCE
endif

# Kernel files: as the maple tree's (kernel/maple/maple.mk), plus our RCU shadow
# (kernel/vma/shim, first), tools/testing/vma before tools/include (as its
# Makefile has it), validate_mm compiled in, no implicit declarations, the stubs and vma.c by path.
# (warnings off but implicit declarations: -w would silence those too; gcc
# ignores the -Wno- it does not know). kernel/vma/probe.sh compiles with the
# same include path.
KVMA_CFLAGS = -std=gnu11 -D_GNU_SOURCE -Wno-everything -Werror=implicit-function-declaration \
	-Ikernel/vma/shim -Ikernel/maple/shim -I$(KMT_GEN) \
	-I$(KSRC)/tools/testing/shared -I$(KSRC)/tools/testing/vma -I$(KSRC)/tools/include \
	-I$(KSRC)/lib -Isrc -I. -include kernel/maple/shim/kmt_prelude.h $(KMT_ARCH_INC) \
	$(KMT_QUIRK_CFLAGS) -DCONFIG_DEBUG_VM_MAPLE_TREE \
	-DKVMA_INTERNAL_H='"$(KSRC)/tools/testing/vma/vma_internal.h"' \
	-DKVMA_VMA_H='"$(KSRC)/mm/vma.h"' -DKVMA_VMA_C='"$(KSRC)/mm/vma.c"' \
	$(if $(KVMA_VMA_INIT),-DKVMA_VMA_INIT_C='"$(KVMA_VMA_INIT)"') \
	-DKVMA_CALLERS_C='"$(CURDIR)/$(KVMA_CALLERS)"' \
	-DKVMA_LAYOUT_NAME='"$(KVMA_LAYOUT)"' $(KVMA_DEFS)
# the tools/lib files the stubs need (KVMA_LIBS), one object each
kvma_lib_objs = $(addprefix $(KOBJ)/kernel-$(1)/kvma-lib-,$(notdir $(KVMA_LIBS:.c=.o)))

define kernel_vma_rules
$(KOBJ)/kernel-$(1)/.vma-flags: FORCE
	@mkdir -p $$(@D)
	@echo '$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(FLAGS_SUM) $$(KVMA_CFLAGS) $$(KNOCMP_$(1))' | cmp -s - $$@ || \
		echo '$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(FLAGS_SUM) $$(KVMA_CFLAGS) $$(KNOCMP_$(1))' > $$@

$(KOBJ)/kernel-$(1)/kvma_unit.o: kernel/vma/kvma_unit.c kernel/vma/kvma_space.c kernel/vma/kvma.h $(KVMA_CALLERS) \
		$(KOBJ)/kernel-$(1)/.vma-flags $(KVMA_CONFIG) $(KMT_GEN_HDRS)
	@mkdir -p $$(@D)
	$$(if $$(KVMA_UNSUPPORTED),@echo "$$(KVMA_UNSUPPORTED)" >&2; exit 2)
	$$(call msg,CC,[kernel-$(1)] $$(KSRC)/mm/vma.c)
	$$(Q)$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(KVMA_CFLAGS) $$(KNOCMP_$(1)) -MMD -MP -c $$< -o $$@ && echo '$$<:' >>$$(@:.o=.d)

$(KOBJ)/kernel-$(1)/kvma-lib-%.o: $(KSRC)/tools/lib/%.c $(KOBJ)/kernel-$(1)/.vma-flags \
		$(KVMA_CONFIG) $(KMT_GEN_HDRS)
	@mkdir -p $$(@D)
	$$(call msg,CC,[kernel-$(1)] $$<)
	$$(Q)$$(CC_$(1)) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(KVMA_CFLAGS) $$(KNOCMP_$(1)) -MMD -MP -c $$< -o $$@ && echo '$$<:' >>$$(@:.o=.d)

# Renamed: the maple tree's names as kmt.o has them, ours kvma_k_<name>
# (a name both define, as a sanitizer's may be, once: objcopy refuses two).
$(KOBJ)/kernel-$(1)/kvma.o: $(KOBJ)/kernel-$(1)/kvma_unit.o $(call kvma_lib_objs,$(1)) \
		$(KOBJ)/kernel-$(1)/kmt.o
	$$(call msg,LD,$$@ (renamed))
	$$(Q)$$(LD) -r -o $$@.tmp $$(filter-out %/kmt.o,$$^)
	$$(Q){ cat $$(KOBJ)/kernel-$(1)/kmt.syms; \
		$$(NM) -g --defined-only $$@.tmp | \
		awk 'NF == 3 && $$$$3 !~ /^(kvma_|_+(asan|ubsan|msan|tsan|sancov|odr_asan|llvm|prof|start_|stop_))/ \
			{ print $$$$3, "kvma_k_" $$$$3 }'; } | awk '!seen[$$$$1]++' > $$(@:.o=.syms)
	$$(Q)$$(OBJCOPY) --redefine-syms=$$(@:.o=.syms) $$@.tmp $$@
	$$(Q)rm -f $$@.tmp

$(KOBJ)/kernel-$(1)/kvma_backend.o: kernel/vma/kvma_backend.c kernel/vma/kvma_backend.h \
		kernel/vma/kvma.h kernel/maple/kmt.h $(KOBJ)/kernel-$(1)/.vma-flags $(KVMA_CONFIG)
	@mkdir -p $$(@D)
	$$(call msg,CC,[kernel-$(1)] $$<)
	$$(Q)$$(CC_$(1)) $$(BASE_CFLAGS) $$(FLAGS_$(1)) $$(EXTRA_CFLAGS) $$(KNOCMP_$(1)) \
		-DKVMA_TREE_RELEASE='"$(KTREE_VERSION)"' -MMD -MP -c $$< -o $$@ && echo '$$<:' >>$$(@:.o=.d)

.PHONY: kernel-vma-objs-$(1)
kernel-vma-objs-$(1): $(call kernel_vma_objs,$(1))
endef
$(foreach f,$(KMT_RULE_FLAVORS),$(eval $(call kernel_vma_rules,$(f))))

# The test: the test flavor's model, harness and runtime, the replay
# flavor's kernel objects.
KVMA_TEST_BIN := $(KMT_OUT)/tests/test_vma_kernel
$(KVMA_TEST_BIN): $(OBJDIR)/test/tests/kernel/test_vma_kernel.o $(call kernel_vma_objs,replay) \
		$(call objs,test,$(LIB_SRCS))
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_test) $(LINK_test) $^ $(LDLIBS) -o $@

.PHONY: kernel-vma kernel-vma-test kernel-vma-check kernel-vma-unsupported
kernel-vma: $(foreach f,$(KMT_FLAVORS),kernel-vma-objs-$(f)) kernel-vma-test
kernel-vma-test: $(KVMA_TEST_BIN)
kernel-vma-check: $(KVMA_TEST_BIN)
	$(KVMA_TEST_BIN)

# What kfuzz_vma links of the kernel (kernel/targets.mk links it), and
# whether the tree can give it: not without the maple tree.
KFUZZ_KOBJS_kfuzz_vma = $(call kernel_vma_objs,$(1))
KFUZZ_CANNOT_kfuzz_vma = $(or $(if $(KMT_CANNOT),kfuzz_vma cannot be built from $(KTREE_NAME): \
	it needs the maple tree ($(KMT_CANNOT))),$(KVMA_UNSUPPORTED),$(KVMA_CANNOT))
KFUZZ_TESTS_kfuzz_vma = $(KVMA_TEST_BIN)

endif
