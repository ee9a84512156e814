/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/vmtrace: registered and removed by main.c. */
#ifndef _VMTRACE_DEVICE_H
#define _VMTRACE_DEVICE_H

int vmt_device_register(void);
void vmt_device_unregister(void);

#endif /* _VMTRACE_DEVICE_H */
