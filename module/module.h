/* SPDX-License-Identifier: GPL-2.0 */
/* The module's interfaces, set up and torn down by main.c. */
#ifndef _VMTRACE_MODULE_H
#define _VMTRACE_MODULE_H

int vmt_device_register(void);
void vmt_device_unregister(void);
int vmt_sysfs_init(void);
void vmt_sysfs_exit(void);

#endif /* _VMTRACE_MODULE_H */
