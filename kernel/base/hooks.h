/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's hooks into the kernel: each concern lists its tracepoint
 * probes and kprobes in one struct vmt_hooks; hooks.c attaches a table of
 * them it is given (core.c's) at load and detaches it at unload. They stay
 * attached in between and act only while vmt_session_tracing().
 */
#ifndef _VMTRACE_HOOKS_H
#define _VMTRACE_HOOKS_H

#include <linux/kprobes.h>
#include <linux/tracepoint.h>

/* A probe on the tracepoint @name, found by name at load. */
struct vmt_tracepoint_probe {
	const char *name;
	void *fn;
	struct tracepoint *tp;	/* found at load */
};

/*
 * struct vmt_hooks - one concern's hooks
 * @name:	the concern, for the kernel log
 * @probes:	its tracepoint probes, attached in order
 * @nr_probes:	how many
 * @kprobes:	its kprobes, attached after the probes
 * @nr_kprobes:	how many
 * @attach:	what else it attaches, last (hooks that differ by kernel)
 * @detach:	undoes @attach
 */
struct vmt_hooks {
	const char *name;
	struct vmt_tracepoint_probe *probes;
	unsigned int nr_probes;
	struct kprobe **kprobes;
	unsigned int nr_kprobes;
	int (*attach)(void);
	void (*detach)(void);
};

/* In a struct vmt_hooks initializer: the arrays @p and @k, and their sizes. */
#define VMT_HOOKS_PROBES(p)	.probes = (p), .nr_probes = ARRAY_SIZE(p)
#define VMT_HOOKS_KPROBES(k)	.kprobes = (k), .nr_kprobes = ARRAY_SIZE(k)

int vmt_hooks_attach(struct vmt_hooks *const *table, unsigned int n);
void vmt_hooks_detach(struct vmt_hooks *const *table, unsigned int n);
/* For a concern that picks its hooks at load (dma.c). */
int vmt_hooks_attach_one(struct vmt_hooks *h);
void vmt_hooks_detach_one(struct vmt_hooks *h);

#endif /* _VMTRACE_HOOKS_H */
