// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The short names of record types (in stream names and in dump lines), and the
 * words the codes of some record fields print as (vmtrace dump, babeltrace2).
 */
#include <vmtrace/trace.h>

static const char *const type_names[VMT_REC_TYPES] = {
	[VMT_REC_NONE] = "none",
	[VMT_REC_LOST] = "lost",
	[VMT_REC_REFERENCE] = "ref",
	[VMT_REC_EVICT] = "evict",
	[VMT_REC_MARKER] = "marker",
	[VMT_REC_DATA] = "data",
	[VMT_REC_SWITCH] = "switch",
	[VMT_REC_FORK] = "fork",
	[VMT_REC_EXEC] = "exec",
	[VMT_REC_EXIT] = "exit",
	[VMT_REC_COMM] = "comm",
	[VMT_REC_VMA] = "vma",
	[VMT_REC_TASK] = "task",
	[VMT_REC_DMA] = "dma",
	[VMT_REC_PAGEMAP] = "pagemap",
	[VMT_REC_EXACT] = "exact",
};

const char *vmt_record_type_name(unsigned int type)
{
	return type < VMT_REC_TYPES ? type_names[type] : NULL;
}

static const char *const access_names[] = { "?", "R", "W", "RW", "X" };
static const char *const cause_names[] = { "protection", "demand", "cow", "other" };
static const char *const mode_names[] = { "user", "kernel" };
static const char *const vma_ops[] = { "unmap", "map" };
static const char *const vma_causes[] = {
	"dump", "exec", "mmap", "munmap", "mremap", "mprotect", "brk",
};
static const char *const vma_kinds[] = { "anon", "file", "heap", "stack", "special" };
static const char *const dma_ops[] = {
	"map_page", "unmap_page", "map_sg", "unmap_sg", "alloc", "free",
};
static const char *const dma_dirs[] = { "bidirectional", "to_device", "from_device", "none" };
static const char *const pagemap_ops[] = { "map", "unmap" };
/* By VMT_EXACT_BUS_CODE(): bit 0 fill, bit 1 writeback, bit 2 prefetch. */
static const char *const exact_bus[] = {
	"none", "fill", "writeback", "fill+writeback", "prefetch", "fill+prefetch",
	"writeback+prefetch", "fill+writeback+prefetch",
};

#define TABLE(t)	{ t, sizeof(t) / sizeof(t[0]) }
static const struct {
	const char *const *names;
	unsigned int count;
} field_tables[VMT_NAMES_COUNT] = {
	[VMT_NAMES_ACCESS] = TABLE(access_names),
	[VMT_NAMES_CAUSE] = TABLE(cause_names),
	[VMT_NAMES_MODE] = TABLE(mode_names),
	[VMT_NAMES_VMA_OP] = TABLE(vma_ops),
	[VMT_NAMES_VMA_CAUSE] = TABLE(vma_causes),
	[VMT_NAMES_VMA_KIND] = TABLE(vma_kinds),
	[VMT_NAMES_DMA_OP] = TABLE(dma_ops),
	[VMT_NAMES_DMA_DIR] = TABLE(dma_dirs),
	[VMT_NAMES_PAGEMAP_OP] = TABLE(pagemap_ops),
	[VMT_NAMES_EXACT_BUS] = TABLE(exact_bus),
};

const char *const *vmt_field_names(enum vmt_field_names field, unsigned int *count)
{
	if ((unsigned int)field >= VMT_NAMES_COUNT) {
		*count = 0;
		return NULL;
	}
	*count = field_tables[field].count;
	return field_tables[field].names;
}

const char *vmt_field_name(enum vmt_field_names field, unsigned int code)
{
	unsigned int count;
	const char *const *names = vmt_field_names(field, &count);

	return code < count ? names[code] : "?";
}
