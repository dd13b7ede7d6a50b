/* SPDX-License-Identifier: GPL-2.0 */
/* What runs for real and as which system call (conform_ops.h). */
#include "conform_ops.h"

#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>

void conform_op_call(const struct prog_desc *d, const struct prog_op *op, struct mm_call *c)
{
	memset(c, 0, sizeof(*c));
	c->code = op->code;
	prog_decode_args(d, op, &c->a);
}

const char *conform_op_text(const struct prog_desc *d, const struct prog_op *op, char *buf,
			    size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	buf[0] = 0;
	if (f) {
		prog_print_op(f, d, op);
		fclose(f);
	}
	buf[len - 1] = 0;
	return buf;
}

const char *conform_call_refuses(const struct mm_call *c)
{
	switch (c->code) {
	case MMF_OP_FORK:
		return c->a.policy ? "the reverted anon_vma policy is no kernel's" : NULL;
	case MMF_OP_UPROBE:
		return "uprobes do not run for real";
	default:
		return c->code < MMF_NOPS ? NULL : "not one of fuzz_mm's operations";
	}
}

const char *conform_op_refuses(const struct prog_desc *d, const struct prog_op *op, bool repro)
{
	struct mm_call c;

	conform_op_call(d, op, &c);
	if (c.code >= MMF_NOPS)
		return "not one of fuzz_mm's operations";
	if (repro) {
		/* a reproducer runs one process, anonymous memory only */
		switch (c.code) {
		case MMF_OP_MMAP:
			if (c.a.kind != MMF_PRIVATE_ANON && c.a.kind != MMF_SHARED_ANON)
				return "file mappings do not run in a reproducer (anonymous memory "
				       "only)";
			break;
		case MMF_OP_MUNMAP:
		case MMF_OP_MPROTECT:
		case MMF_OP_MADVISE:
		case MMF_OP_TOUCH:
		case MMF_OP_FORK:
		case MMF_OP_MREMAP:
		case MMF_OP_MLOCK:
		case MMF_OP_MUNLOCK:
		case MMF_OP_MLOCKALL:
		case MMF_OP_MUNLOCKALL:
			break;
		default:
			return CONFORM_REPRO_ONLY;
		}
		if (c.a.proc % MMF_MAX_PROCS)
			return "only process p0 runs in a reproducer";
	}
	if (op->fiber)
		return "only thread t0 runs for real";
	if (op->fail_at)
		return "fail_at (allocation failure) has no real counterpart";
	return conform_call_refuses(&c);
}

const char *conform_prog_refuses(const struct prog_desc *d, const struct prog *p, bool repro,
				 char *buf, size_t len)
{
	/* no_zero_page and the version are the kernel's to say (conform and
	 * repro follow it) */
	if (p->config & ~MM_CONFIG_KERNEL) {
		snprintf(buf, len, "config bits %#x have no real counterpart", p->config);
		return buf;
	}
	for (unsigned i = 0; i < p->nops; i++) {
		const char *why = conform_op_refuses(d, &p->ops[i], repro);

		if (why) {
			char text[160];

			snprintf(buf, len, "operation %u (%s): %s", i,
				 conform_op_text(d, &p->ops[i], text, sizeof(text)), why);
			return buf;
		}
	}
	return NULL;
}

void conform_kcall(const struct mm_call *c, struct kcall *k)
{
	static const int32_t codes[MMF_NOPS] = {
	    [MMF_OP_MMAP] = KSYS_MMAP,	       [MMF_OP_MUNMAP] = KSYS_MUNMAP,
	    [MMF_OP_MPROTECT] = KSYS_MPROTECT, [MMF_OP_MADVISE] = KSYS_MADVISE,
	    [MMF_OP_TOUCH] = KSYS_TOUCH,       [MMF_OP_FORK] = KSYS_FORK,
	    [MMF_OP_EXIT] = KSYS_EXIT,	       [MMF_OP_MREMAP] = KSYS_MREMAP,
	    [MMF_OP_MLOCK] = KSYS_MLOCK,       [MMF_OP_MUNLOCK] = KSYS_MUNLOCK,
	    [MMF_OP_MLOCKALL] = KSYS_MLOCKALL, [MMF_OP_MUNLOCKALL] = KSYS_MUNLOCKALL,
	};

	memset(k, 0, sizeof(*k));
	k->code = c->code < MMF_NOPS ? codes[c->code] : -1;
	k->start = c->start;
	k->len = c->len;
	if (c->code == MMF_OP_MMAP || c->code == MMF_OP_MPROTECT)
		k->prot = mmf_prot(c->a.prot);
	if (c->code == MMF_OP_MMAP) {
		k->flags = mmf_mmap_flags(&c->a);
		/* a model file's offset: the page's place in the window (model_backend.c) */
		if (!(k->flags & MAP_ANONYMOUS))
			k->offset = (c->start - MMF_WINDOW_LO) & ~(KSYS_PAGE - 1);
	}
	if (c->code == MMF_OP_MADVISE)
		k->advice = mmf_advice(c->a.advice);
	if (c->code == MMF_OP_TOUCH) {
		k->write = c->a.access == 1;
		k->touch_max_pages = CONFORM_TOUCH_MAX_PAGES;
		k->value = c->value;
	}
	if (c->code == MMF_OP_MREMAP) {
		k->flags = c->a.remap_flags & 7; /* MREMAP_MAYMOVE, _FIXED, _DONTUNMAP */
		k->new_addr = c->to;
		k->new_len = c->to_len;
	}
	if (c->code == MMF_OP_MLOCK)
		k->flags = c->a.lock ? MLOCK_ONFAULT : 0;
	if (c->code == MMF_OP_MLOCKALL)
		k->flags = c->a.mcl & 7; /* MCL_CURRENT, _FUTURE, _ONFAULT */
}

uint64_t conform_pg(uint64_t addr)
{
	return (addr - MMF_WINDOW_LO) >> MMF_PAGE_SHIFT;
}

void conform_print_result(FILE *out, int64_t r)
{
	if (r < 0)
		fprintf(out, "-%s", strerrorname_np((int)-r) ? strerrorname_np((int)-r) : "?");
	else if (r >= (int64_t)MMF_WINDOW_LO)
		fprintf(out, "0x%" PRIx64 " (@0x%" PRIx64 ")", (uint64_t)r,
			conform_pg((uint64_t)r));
	else
		fprintf(out, "%" PRId64, r);
}

struct flag_name {
	int bit;
	const char *name;
};

/* The bits of @v named, joined by '|'; @none when there are none. */
static void print_bits(FILE *out, int v, const struct flag_name *names, unsigned n,
		       const char *none)
{
	bool any = false;

	for (unsigned i = 0; i < n; i++)
		if (v & names[i].bit) {
			fprintf(out, "%s%s", any ? "|" : "", names[i].name);
			any = true;
			v &= ~names[i].bit;
		}
	if (v)
		fprintf(out, "%s%#x", any ? "|" : "", (unsigned)v);
	else if (!any)
		fprintf(out, "%s", none);
}

void conform_print_prot(FILE *out, int prot)
{
	static const struct flag_name names[] = {
	    {PROT_READ, "PROT_READ"}, {PROT_WRITE, "PROT_WRITE"}, {PROT_EXEC, "PROT_EXEC"}};

	print_bits(out, prot, names, 3, "PROT_NONE");
}

void conform_print_mmap_flags(FILE *out, int flags)
{
	static const struct flag_name names[] = {{MAP_SHARED, "MAP_SHARED"},
						 {MAP_PRIVATE, "MAP_PRIVATE"},
						 {MAP_ANONYMOUS, "MAP_ANONYMOUS"},
						 {MAP_FIXED, "MAP_FIXED"},
						 {MAP_FIXED_NOREPLACE, "MAP_FIXED_NOREPLACE"},
						 {MAP_POPULATE, "MAP_POPULATE"},
						 {MAP_LOCKED, "MAP_LOCKED"},
						 {MAP_GROWSDOWN, "MAP_GROWSDOWN"}};

	print_bits(out, flags, names, sizeof(names) / sizeof(names[0]), "0");
}

void conform_print_mremap_flags(FILE *out, int flags)
{
	static const struct flag_name names[] = {{MREMAP_MAYMOVE, "MREMAP_MAYMOVE"},
						 {MREMAP_FIXED, "MREMAP_FIXED"},
						 {MREMAP_DONTUNMAP, "MREMAP_DONTUNMAP"}};

	print_bits(out, flags, names, 3, "0");
}

void conform_print_mcl_flags(FILE *out, int flags)
{
	static const struct flag_name names[] = {
	    {MCL_CURRENT, "MCL_CURRENT"}, {MCL_FUTURE, "MCL_FUTURE"}, {MCL_ONFAULT, "MCL_ONFAULT"}};

	print_bits(out, flags, names, 3, "0");
}

void conform_print_advice(FILE *out, int advice)
{
	static const struct flag_name names[] = {{MADV_DONTNEED, "MADV_DONTNEED"},
						 {MADV_DONTFORK, "MADV_DONTFORK"},
						 {MADV_DOFORK, "MADV_DOFORK"},
						 {MADV_WIPEONFORK, "MADV_WIPEONFORK"},
						 {MADV_KEEPONFORK, "MADV_KEEPONFORK"},
						 {MADV_FREE, "MADV_FREE"},
						 {MADV_COLD, "MADV_COLD"},
						 {MADV_PAGEOUT, "MADV_PAGEOUT"},
						 {MADV_POPULATE_READ, "MADV_POPULATE_READ"},
						 {MADV_POPULATE_WRITE, "MADV_POPULATE_WRITE"},
						 {MADV_DONTNEED_LOCKED, "MADV_DONTNEED_LOCKED"}};

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (advice == names[i].bit) {
			fprintf(out, "%s", names[i].name);
			return;
		}
	fprintf(out, "%d", advice);
}

static const struct flag_name modes[] = {{1, "UFFDIO_REGISTER_MODE_MISSING"},
					 {2, "UFFDIO_REGISTER_MODE_WP"},
					 {4, "UFFDIO_REGISTER_MODE_MINOR"}};

/* The calls that name no range, as what runs for real; false: it names one. */
static bool print_rangeless(FILE *out, const struct mm_call *c)
{
	unsigned h = c->a.handle % MMF_FDS;

	switch (c->code) {
	case MMF_OP_FORK:
		fprintf(out, "fork()");
		return true;
	case MMF_OP_EXIT:
		fprintf(out, "exit(0)");
		return true;
	case MMF_OP_UFFD_CREATE:
		fprintf(out,
			"userfaultfd(O_CLOEXEC|O_NONBLOCK) into the lowest free of h0-h%u, "
			"UFFDIO_API(UFFD_FEATURE_SIGBUS%s%s)",
			MMF_FDS - 1, c->a.features & 1 ? "|UFFD_FEATURE_EVENT_FORK" : "",
			c->a.features & 2 ? "|UFFD_FEATURE_EVENT_REMAP" : "");
		return true;
	case MMF_OP_MUNLOCKALL:
		fprintf(out, "munlockall()");
		return true;
	case MMF_OP_MLOCKALL: {
		struct kcall k;

		conform_kcall(c, &k);
		fprintf(out, "mlockall(");
		conform_print_mcl_flags(out, k.flags);
		fprintf(out, ")");
		return true;
	}
	case MMF_OP_UFFD_RELEASE:
		fprintf(out, "close(h%u)", h);
		return true;
	case MMF_OP_MAP_LIMIT:
		fprintf(out, "map_limit: vm.max_map_count leaves the process its VMA count + %u",
			c->a.n);
		return true;
	case MMF_OP_ROLLUP:
	case MMF_OP_DELAY:
	case MMF_OP_AWAIT:
		fprintf(out, "nothing (%s)", mmf_ops[c->code].name);
		return true;
	}
	return false;
}

void conform_print_call(FILE *out, const struct mm_call *c)
{
	struct kcall k;

	if (print_rangeless(out, c))
		return;
	conform_kcall(c, &k);
	if (c->code == MMF_OP_UFFD_REGISTER || c->code == MMF_OP_UFFD_UNREGISTER)
		fprintf(out, "ioctl(h%u, %s, ", c->a.handle % MMF_FDS,
			c->code == MMF_OP_UFFD_REGISTER ? "UFFDIO_REGISTER" : "UFFDIO_UNREGISTER");
	else
		fprintf(out, "%s(",
			c->code == MMF_OP_MLOCK && k.flags ? "mlock2"
							   : mmf_ops[c->code % MMF_NOPS].name);
	fprintf(out, "0x%" PRIx64 " @0x%" PRIx64 ", 0x%" PRIx64 " (%" PRIu64 " pages)", c->start,
		conform_pg(c->start), c->len, c->len >> MMF_PAGE_SHIFT);
	switch (c->code) {
	case MMF_OP_MMAP:
		fprintf(out, ", ");
		conform_print_prot(out, k.prot);
		fprintf(out, ", ");
		conform_print_mmap_flags(out, k.flags);
		if (!(k.flags & MAP_ANONYMOUS))
			fprintf(out, ", f%u, 0x%" PRIx64, c->a.file % MMF_FILES, k.offset);
		break;
	case MMF_OP_MPROTECT:
		fprintf(out, ", ");
		conform_print_prot(out, k.prot);
		break;
	case MMF_OP_MADVISE:
		fprintf(out, ", ");
		conform_print_advice(out, k.advice);
		break;
	case MMF_OP_TOUCH:
		if (k.write)
			fprintf(out, ", write 0x%" PRIx64 " + k", k.value);
		else
			fprintf(out, ", read");
		break;
	case MMF_OP_UFFD_REGISTER:
		fprintf(out, ", ");
		print_bits(out, c->a.modes, modes, 3, "0");
		break;
	case MMF_OP_MREMAP:
		fprintf(out, ", 0x%" PRIx64 " (%" PRIu64 " pages), ", k.new_len,
			k.new_len >> MMF_PAGE_SHIFT);
		conform_print_mremap_flags(out, k.flags);
		fprintf(out, ", 0x%" PRIx64 " @0x%" PRIx64, k.new_addr, conform_pg(k.new_addr));
		break;
	case MMF_OP_MLOCK:
		if (k.flags)
			fprintf(out, ", MLOCK_ONFAULT");
		break;
	default:
		break;
	}
	fprintf(out, ")");
}
