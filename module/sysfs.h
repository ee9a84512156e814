/* SPDX-License-Identifier: GPL-2.0 */
/* /sys/kernel/vmtrace: set up and torn down by main.c. */
#ifndef _VMTRACE_SYSFS_H
#define _VMTRACE_SYSFS_H

int vmt_sysfs_init(void);
void vmt_sysfs_exit(void);

#endif /* _VMTRACE_SYSFS_H */
