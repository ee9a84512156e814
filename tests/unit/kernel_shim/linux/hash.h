/* SPDX-License-Identifier: GPL-2.0 */
/* hash_long() as the kernel's <linux/hash.h> has it on 64-bit, for test_replay_kernel.c. */
#ifndef VMTRACE_TEST_SHIM_HASH_H
#define VMTRACE_TEST_SHIM_HASH_H

#define GOLDEN_RATIO_64 0x61C8864680B583EBull

static inline u32 hash_long(unsigned long val, unsigned int bits)
{
	return (u32)((val * GOLDEN_RATIO_64) >> (64 - bits));
}

#endif
