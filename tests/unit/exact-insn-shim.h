/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel types kernel/exact/exact_insn.c uses, for its userspace unit test. */
#ifndef VMT_EXACT_INSN_SHIM_H
#define VMT_EXACT_INSN_SHIM_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#endif
