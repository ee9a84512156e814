// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The short names of record types: in stream names and in dump lines. */
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
