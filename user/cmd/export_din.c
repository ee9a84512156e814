// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace export --format din: the references and exact accesses as Dinero
 * IV's traditional "din" input, which its descendants (and many a course's
 * cache simulator) read too: one line an access, "LABEL ADDRESS", the label
 * 0 for a data read, 1 for a data write, 2 for an instruction fetch, the
 * address in hex without 0x. din has no read-modify-write: an exact RMW
 * access is a read line and a write line of its address, as Dinero would
 * see the two. din has no size either (Dinero IV takes every access as 4
 * bytes), so none is written; `convert --from din` reads the lines back
 * into the same lines. In time order, the other record types left out.
 * din has no process: the accesses of every process the filter passes are
 * mixed.
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

static int din_line(FILE *out, int label, uint64_t addr)
{
	return fprintf(out, "%d %llx\n", label, (unsigned long long)addr) < 0 ?
	       EXPORT_WRITE_ERROR : 0;
}

static int din_record(void *out, const struct vmt_record *rec)
{
	int err;

	switch (rec->hdr.type) {
	case VMT_REC_REFERENCE:
		return din_line(out, din_label(rec->ref.access), rec->ref.vaddr);
	case VMT_REC_EXACT:
		if (rec->exact.access == VMT_ACCESS_RMW) {
			err = din_line(out, 0, rec->exact.addr);
			if (err)
				return err;
		}
		return din_line(out, din_label(rec->exact.access), rec->exact.addr);
	}
	return 0;
}

int64_t export_din(struct vmt_trace *t, FILE *out, const struct export_options *o)
{
	(void)o;
	return export_each(t, VMT_ORDER_TIME, din_record, out);
}
