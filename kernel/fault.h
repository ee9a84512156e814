/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fault probes (fault.c): the core attaches them with the other hooks.
 */
#ifndef _VMTRACE_FAULT_H
#define _VMTRACE_FAULT_H

struct vmt_hooks;

extern struct vmt_hooks vmt_fault_hooks;

#endif /* _VMTRACE_FAULT_H */
