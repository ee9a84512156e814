/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kernel/protect/enabled_set.c takes from <linux/mm.h> and friends, so that
 * test_replay_kernel.c can build the kernel's enabled set in user space.
 */
#ifndef VMTRACE_TEST_SHIM_MM_H
#define VMTRACE_TEST_SHIM_MM_H

#include <string.h>

#define PAGE_SHIFT		12
#define PAGE_SIZE		(1ul << PAGE_SHIFT)
#define PAGE_MASK		(~(PAGE_SIZE - 1))
#define WARN_ON_ONCE(cond)	(!!(cond))
#define clamp_t(type, val, lo, hi) \
	((type)(val) < (type)(lo) ? (type)(lo) : (type)(val) > (type)(hi) ? (type)(hi) : (type)(val))

#endif
