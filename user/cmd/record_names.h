/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The words records' codes print as, index = code: `vmtrace dump`'s
 * (record_print.c) and the babeltrace2 plugin's enumerations' (user/bt2).
 * "?" is a code without a name.
 */
#ifndef VMTRACE_CMD_RECORD_NAMES_H
#define VMTRACE_CMD_RECORD_NAMES_H

static const char *const access_names[] = { "?", "R", "W", "RW", "X" };
static const char *const cause_names[] = { "protection", "demand", "cow", "other" };
static const char *const vma_causes[] = {
	"dump", "exec", "mmap", "munmap", "mremap", "mprotect", "brk",
};
static const char *const vma_kinds[] = { "anon", "file", "heap", "stack", "special" };
static const char *const dma_ops[] = {
	"map_page", "unmap_page", "map_sg", "unmap_sg", "alloc", "free",
};
static const char *const dma_dirs[] = { "bidirectional", "to_device", "from_device", "none" };

#endif
