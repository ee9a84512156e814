// SPDX-License-Identifier: GPL-2.0
/*
 * A test module that does one thing: logs a kernel WARNING when loaded, and
 * refuses to stay loaded. tests/vm/host/vm-run-catches-warn.sh uses it to show
 * that scripts/vm-run fails a run whose guest kernel warned.
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/module.h>

static int __init vmt_test_warn_init(void)
{
	WARN(1, "vmtrace test: deliberate warning\n");
	return -EAGAIN;
}
module_init(vmt_test_warn_init);
MODULE_DESCRIPTION("vmtrace test: warns on load");
MODULE_LICENSE("GPL");
