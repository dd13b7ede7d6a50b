# SPDX-License-Identifier: GPL-2.0
# The virtual machine's own program: the guest's /init (live/vm/guest_init.c),
# static, so that the initramfs needs no library for it. The rest of live/vm
# is part of the tool (the Makefile's LIVE_SRCS); the guest kernel is built
# by scripts/vm-kernel.sh, the whole run put together by scripts/vm.sh.
# Included by the Makefile; `make tool` builds it.

GUEST_INIT := $(OUTDIR)/vm/guest-init

.PHONY: guest-init
guest-init: $(GUEST_INIT)
tool: $(GUEST_INIT)
gcc-check: $(OBJDIR)/gcc-check/bin/guest-init

$(GUEST_INIT): $(call objs,tool,live/vm/guest_init.c)
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_tool) $(LINK_tool) -static $^ -o $@

$(OBJDIR)/gcc-check/bin/guest-init: $(call objs,gcc-check,live/vm/guest_init.c)
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC_gcc-check) -static $^ -o $@
