// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace export --format din: the references as Dinero IV's traditional
 * "din" input, which its descendants (and many a course's cache simulator)
 * read too: one line a reference, "LABEL ADDRESS", the label 0 for a data
 * read, 1 for a data write, 2 for an instruction fetch, the address in hex
 * without 0x. In time order, the other record types left out. din has no
 * process: the references of every process the filter passes are mixed.
 */
#include <stdio.h>

#include "export_din.h"

/* An instruction fetch, else a write, else a read: the access bits a fault sets. */
static int din_label(uint8_t access)
{
	if (access & VMT_ACCESS_EXEC)
		return 2;
	return access & VMT_ACCESS_WRITE ? 1 : 0;
}

static int din_record(void *out, const struct vmt_record *rec)
{
	if (rec->hdr.type != VMT_REC_REFERENCE)
		return 0;
	return fprintf(out, "%d %llx\n", din_label(rec->ref.access),
		       (unsigned long long)rec->ref.vaddr) < 0 ? EXPORT_WRITE_ERROR : 0;
}

int64_t export_din(struct vmt_trace *t, FILE *out, const struct export_options *o)
{
	(void)o;
	return export_each(t, VMT_ORDER_TIME, din_record, out);
}
