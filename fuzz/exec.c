/* Running programs: the failure report and fail_at (exec.h). */
#include "exec.h"

#include "alloc.h"
#include "check.h"

#include <string.h>

/* Present when a sanitizer runtime is linked: lets the report follow an
 * AddressSanitizer or UndefinedBehaviorSanitizer report too. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static struct exec *current;

void exec_report(FILE *out, struct exec *x)
{
	fprintf(out, "--- program (%s), ", x->desc->target);
	if (x->step < 0)
		fprintf(out, "before the first step ---\n");
	else
		fprintf(out, "step %d of %u ---\n", x->step, x->prog.nops);
	prog_print(out, x->desc, &x->prog, x->step);
	if (x->dump_state) {
		fprintf(out, "--- state ---\n");
		x->dump_state(out, x->state);
	}
	fprintf(out, "--- end of report ---\n");
}

static void report_hook(FILE *out, void *arg)
{
	exec_report(out, arg);
}

static void death_hook(void)
{
	if (current)
		exec_report(stderr, current);
}

void exec_begin(struct exec *x, const struct prog_desc *d, const uint8_t *data, size_t size,
		void (*dump_state)(FILE *, void *), void *state)
{
	static bool death_installed;

	memset(x, 0, sizeof(*x));
	x->desc = d;
	x->step = -1;
	x->dump_state = dump_state;
	x->state = state;
	prog_decode(d, data, size, &x->prog);
	current = x;
	check_set_context(report_hook, x);
	if (!death_installed && __sanitizer_set_death_callback) {
		__sanitizer_set_death_callback(death_hook);
		death_installed = true;
	}
}

void exec_end(struct exec *x)
{
	(void)x;
	current = NULL;
	check_set_context(NULL, NULL);
	alloc_fail_disarm();
}

void exec_arm(const struct prog_op *op)
{
	alloc_fail_arm(op->fail_at);
}

bool exec_disarm(void)
{
	bool fired = alloc_fail_fired();

	alloc_fail_disarm();
	return fired;
}
