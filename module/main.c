// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace module glue: brings /dev/vmtrace and /sys/kernel/vmtrace up, and
 * everything down (the session is static until the first configure).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <uapi/linux/vmtrace.h>

#include "../kernel/compat.h"
#include "../kernel/emit.h"
#include "../kernel/session.h"
#include "vmtrace.h"

static int __init vmt_init(void)
{
	int err;

	vmt_compat_init();
	err = vmt_emit_init();
	if (err)
		return err;
	err = vmt_probes_register();
	if (err) {
		pr_err("cannot attach to the tracepoints: %d\n", err);
		goto out_emit_exit;
	}
	err = vmt_sysfs_init();
	if (err)
		goto out_probes;
	err = vmt_device_register();
	if (err)
		goto out_sysfs_exit;
	pr_info("loaded, ABI %u\n", VMT_ABI_VERSION);
	return 0;

out_sysfs_exit:
	vmt_sysfs_exit();
out_probes:
	vmt_probes_unregister();
out_emit_exit:
	vmt_emit_exit();
	return err;
}

/* Stops tracing if it is on, and frees the rings. */
static void __exit vmt_exit(void)
{
	vmt_device_unregister();
	vmt_sysfs_exit();
	vmt_session_exit();
	vmt_probes_unregister();
	vmt_emit_exit();
	pr_info("unloaded\n");
}

module_init(vmt_init);
module_exit(vmt_exit);
MODULE_DESCRIPTION("vmtrace: memory-reference tracer");
MODULE_LICENSE("GPL");
