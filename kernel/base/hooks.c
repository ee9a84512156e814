// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching a table of concerns' hooks (struct vmt_hooks) at load, and
 * detaching them at unload; the table is the caller's (core.c's). The
 * probes stay attached from load to unload: switching the page-fault
 * tracepoint on and off patches the fault path's code, which
 * Debian's 6.12 under QEMU TCG does not survive while other CPUs fault.
 */
#include <linux/kernel.h>

#include "base/compat.h"
#include "base/hooks.h"

static void vmt_hooks_detach_probes(struct vmt_hooks *h, unsigned int n)
{
	while (n--)
		tracepoint_probe_unregister(h->probes[n].tp, h->probes[n].fn, NULL);
}

static void vmt_hooks_detach_kprobes(struct vmt_hooks *h, unsigned int n)
{
	while (n--)
		unregister_kprobe(h->kprobes[n]);
}

/**
 * vmt_hooks_attach_one() - attach one concern's hooks
 * @h:		the hooks
 *
 * Return: 0, or the error attaching one of them gave; none stays attached
 * on error, and detaching waits for no running probe (the caller does).
 */
int vmt_hooks_attach_one(struct vmt_hooks *h)
{
	unsigned int i, k;
	int err;

	for (i = 0; i < h->nr_probes; i++) {
		h->probes[i].tp = vmt_find_tracepoint(h->probes[i].name);
		if (!h->probes[i].tp) {
			pr_err("vmtrace: %s: no tracepoint %s in this kernel\n", h->name,
			       h->probes[i].name);
			return -ENOENT;
		}
	}
	for (i = 0; i < h->nr_probes; i++) {
		err = tracepoint_probe_register(h->probes[i].tp, h->probes[i].fn, NULL);
		if (err)
			goto out_detach_probes;
	}
	for (k = 0; k < h->nr_kprobes; k++) {
		err = register_kprobe(h->kprobes[k]);
		if (err) {
			pr_err("vmtrace: %s: cannot attach a kprobe to %s: %d\n", h->name,
			       h->kprobes[k]->symbol_name, err);
			goto out_detach_kprobes;
		}
	}
	if (h->attach) {
		err = h->attach();
		if (err) {
			pr_err("vmtrace: %s: cannot attach: %d\n", h->name, err);
			goto out_detach_kprobes;
		}
	}
	return 0;

out_detach_kprobes:
	vmt_hooks_detach_kprobes(h, k);
out_detach_probes:
	vmt_hooks_detach_probes(h, i);
	return err;
}

/* Detach what vmt_hooks_attach_one() attached; the caller waits. */
void vmt_hooks_detach_one(struct vmt_hooks *h)
{
	if (h->detach)
		h->detach();
	vmt_hooks_detach_kprobes(h, h->nr_kprobes);
	vmt_hooks_detach_probes(h, h->nr_probes);
}

/**
 * vmt_hooks_attach() - attach every hook of a table, in order, at load
 * @table:	the concerns' hooks
 * @n:		how many
 *
 * Return: 0, -ENOENT when this kernel lacks one of the tracepoints, or the
 * error attaching one gave; nothing stays attached on error.
 */
int vmt_hooks_attach(struct vmt_hooks *const *table, unsigned int n)
{
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		err = vmt_hooks_attach_one(table[i]);
		if (err)
			goto out_detach;
	}
	return 0;

out_detach:
	while (i--)
		vmt_hooks_detach_one(table[i]);
	/* A probe may still run on another CPU: wait, as at unload. */
	tracepoint_synchronize_unregister();
	return err;
}

/**
 * vmt_hooks_detach() - detach every hook of a table, in reverse order, and
 * wait until none runs, at unload
 * @table:	what vmt_hooks_attach() attached
 * @n:		how many
 */
void vmt_hooks_detach(struct vmt_hooks *const *table, unsigned int n)
{
	while (n--)
		vmt_hooks_detach_one(table[n]);
	/* After this no probe runs, so rings and settings may change. */
	tracepoint_synchronize_unregister();
}
