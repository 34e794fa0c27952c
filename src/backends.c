/* The backend table: one row per backend, each naming the planner target
 * it plans for (defined in its folder) and its entry points. */
#include <string.h>

#include "backends.h"
#include "cpu/cpu.h"
#include "pallas/pallas.h"

/* The planner's targets; each one's id is its position here. */
static const Target *const targets[] = {&cpu_target, &tpu_target};
#define NTARGETS (int)(sizeof targets / sizeof targets[0])
_Static_assert(NTARGETS <= MAXTARGETS, "Inst.plan has a slot per target");

static const Backend backends[] = {
	{.name = "cpu", .target = &cpu_target, .run = exec_run, .clean_errors = exec_clean_errors, .release = exec_release},
	{.name = "pallas", .target = &tpu_target, .emit_kernel = emit_pallas_kernel, .emit_module = emit_pallas_module,
	 .chips = tpu_chips},
	{.name = "pallas-gpu", .target = &tpu_target, .emit_kernel = emit_pallas_kernel,
	 .emit_module = emit_pallas_module, .variant = true, .chips = tpu_chips},
};
#define NBACKENDS (int)(sizeof backends / sizeof backends[0])

const Target *target_at(int id)
{
	if (id < 0 || id >= NTARGETS)
		return NULL;
	if (targets[id]->id != id)
		die("a target's id is not its place in the table");
	return targets[id];
}

const Target *target_named(const char *name)
{
	for (int i = 0; i < NTARGETS; i++)
		if (!strcmp(targets[i]->name, name))
			return target_at(i);
	return NULL;
}

const Backend *backend_named(const char *name)
{
	for (int i = 0; i < NBACKENDS; i++)
		if (!strcmp(backends[i].name, name))
			return &backends[i];
	return NULL;
}

const Backend *backend_native(void)
{
	return &backends[0];
}

void target_names(Buf *b)
{
	for (int i = 0; i < NTARGETS; i++)
		buf_printf(b, "%s%s", i ? ", " : "", targets[i]->name);
}

void emit_backend_names(Buf *b)
{
	for (int i = 0; athene_emit_target(i); i++)
		buf_printf(b, "%s%s", i ? ", " : "", athene_emit_target(i));
}

bool backend_chip_ok(const Backend *b, const char *chip)
{
	for (int i = 0; b->chips && b->chips[i]; i++)
		if (!strcmp(b->chips[i], chip))
			return true;
	return false;
}

const char *athene_emit_target(int i)
{
	for (int b = 0; b < NBACKENDS; b++)
		if (backends[b].emit_kernel && i-- == 0)
			return backends[b].name;
	return NULL;
}

const char *athene_emit_chip(const char *target, int i)
{
	const Backend *b = target ? backend_named(target) : NULL;
	if (!b || !b->emit_kernel || !b->chips || i < 0)
		return NULL;
	for (int k = 0; k <= i; k++)
		if (!b->chips[k])
			return NULL;
	return b->chips[i];
}
