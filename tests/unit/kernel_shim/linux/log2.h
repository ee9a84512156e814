/* SPDX-License-Identifier: GPL-2.0 */
/* ilog2() and roundup_pow_of_two(), for test_replay_kernel.c. */
#ifndef VMTRACE_TEST_SHIM_LOG2_H
#define VMTRACE_TEST_SHIM_LOG2_H

#define ilog2(n)		(63 - __builtin_clzll((unsigned long long)(n)))
#define roundup_pow_of_two(n)	((n) <= 1 ? 1ul : 1ul << (64 - __builtin_clzll((n) - 1ull)))

#endif
