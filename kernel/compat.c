// SPDX-License-Identifier: GPL-2.0
/*
 * Run-time lookups of kernel facilities that are not exported by name.
 */
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "compat.h"

struct vmt_tracepoint_lookup {
	const char *name;
	struct tracepoint *found;
};

static void vmt_match_tracepoint(struct tracepoint *tp, void *priv)
{
	struct vmt_tracepoint_lookup *lookup = priv;

	if (!strcmp(tp->name, lookup->name))
		lookup->found = tp;
}

/**
 * vmt_find_tracepoint() - a core-kernel tracepoint, by its event name
 * @name:	e.g. "page_fault_user"
 *
 * Tracepoints are not exported to modules by symbol; the kernel lists them
 * through for_each_kernel_tracepoint() (LTTng-modules finds them the same way).
 *
 * Return: the tracepoint, or NULL when this kernel has none of that name.
 */
struct tracepoint *vmt_find_tracepoint(const char *name)
{
	struct vmt_tracepoint_lookup lookup = { .name = name };

	for_each_kernel_tracepoint(vmt_match_tracepoint, &lookup);
	return lookup.found;
}
