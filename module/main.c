// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace module glue: brings /dev/vmtrace and /sys/kernel/vmtrace up, and
 * everything down (the session is static until the first configure).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <uapi/linux/vmtrace.h>

#include "core.h"
#include "device.h"
#include "sysfs.h"

static int __init vmt_init(void)
{
	int err;

	err = vmt_core_init();
	if (err)
		return err;
	err = vmt_sysfs_init();
	if (err)
		goto out_core_exit;
	err = vmt_device_register();
	if (err)
		goto out_sysfs_exit;
	pr_info("loaded, ABI %u\n", VMT_ABI_VERSION);
	return 0;

out_sysfs_exit:
	vmt_sysfs_exit();
out_core_exit:
	vmt_core_exit();
	return err;
}

/* Stops tracing if it is on, and frees the rings. */
static void __exit vmt_exit(void)
{
	vmt_device_unregister();
	vmt_sysfs_exit();
	vmt_core_exit();
	pr_info("unloaded\n");
}

module_init(vmt_init);
module_exit(vmt_exit);
MODULE_DESCRIPTION("vmtrace: memory-reference tracer");
MODULE_LICENSE("GPL");
