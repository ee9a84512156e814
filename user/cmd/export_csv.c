// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace export --format csv: a table a record type, for pandas, DuckDB,
 * sqlite3 and spreadsheets. Record types have different fields, and a
 * table of their union would be mostly empty cells of mixed meaning (op is
 * a VMA's, a DMA call's or a pagemap record's), so each type gets its own
 * file, TYPE.csv in the output directory (pandas.read_csv("out/ref.csv");
 * DuckDB's read_csv of them all with union_by_name = true joins them
 * anyway). Columns: time,cpu,pid,tid, then the type's fields by the names
 * dump gives them, every field always (dump leaves some out).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "export_csv.h"
#include "util/record_print.h"

typedef void (*csv_row_fn)(FILE *out, const struct vmt_record *rec, const void *data);

struct csv_table {
	const char *columns;	/* after time,cpu,pid,tid */
	csv_row_fn row;
};

/* ",\"TEXT\"": @data escaped, or "," alone when there is none (or it could not be had). */
static void csv_data(FILE *out, const struct vmt_record *rec, const void *data)
{
	fputc(',', out);
	if (!data)
		return;
	fputc('"', out);
	print_escaped(out, data, rec->hdr.data_len, "\"\"");
	fputc('"', out);
}

static void csv_comm(FILE *out, const char *comm)
{
	fputs(",\"", out);
	print_escaped(out, comm, comm_len(comm), "\"\"");
	fputc('"', out);
}

static void row_lost(FILE *out, const struct vmt_record *rec, const void *data)
{
	(void)data;
	fprintf(out, ",%llu", (unsigned long long)rec->lost.count);
}

static void row_ref(FILE *out, const struct vmt_record *rec, const void *data)
{
	const struct vmt_reference *r = &rec->ref;

	(void)data;
	fprintf(out, ",%llu,%llu,%llu,%s,%s,%s,%u,%d", (unsigned long long)r->vaddr,
		(unsigned long long)r->ip, (unsigned long long)r->pfn, access_name(r->access),
		r->kernel_mode ? "kernel" : "user", fault_cause_name(r->cause), r->error_code,
		!!(r->flags & VMT_REF_HUGE));
}

static void row_evict(FILE *out, const struct vmt_record *rec, const void *data)
{
	const struct vmt_reference *r = &rec->ref;

	(void)data;
	fprintf(out, ",%llu,%llu,%d,%d,%d", (unsigned long long)r->vaddr,
		(unsigned long long)r->pfn, !!(r->evict_flags & VMT_EVICT_DIRTY),
		!!(r->evict_flags & VMT_EVICT_ACCESSED), !!(r->flags & VMT_REF_HUGE));
}

static void row_marker(FILE *out, const struct vmt_record *rec, const void *data)
{
	fprintf(out, ",%u", rec->marker.id);
	csv_data(out, rec, data);
}

static void row_data(FILE *out, const struct vmt_record *rec, const void *data)
{
	(void)data;
	fprintf(out, ",%u", rec->hdr.data_len);
}

static void row_switch(FILE *out, const struct vmt_record *rec, const void *data)
{
	(void)data;
	fprintf(out, ",%u,%u,%u,%u", rec->sw.next_pid, rec->sw.next_tid, rec->sw.prev_state,
		rec->sw.preempt);
}

static void row_fork(FILE *out, const struct vmt_record *rec, const void *data)
{
	(void)data;
	fprintf(out, ",%u,%u,%llu", rec->fork.child_pid, rec->fork.child_tid,
		(unsigned long long)rec->fork.clone_flags);
}

static void row_exec(FILE *out, const struct vmt_record *rec, const void *data)
{
	fprintf(out, ",%u", rec->exec.old_tid);
	csv_data(out, rec, data);
	fprintf(out, ",%d", !!(rec->exec.flags & VMT_DATA_DROPPED));
}

static void row_exit(FILE *out, const struct vmt_record *rec, const void *data)
{
	(void)data;
	fprintf(out, ",%u,%u", rec->exit.exit_code, rec->exit.group_dead);
}

static void row_comm(FILE *out, const struct vmt_record *rec, const void *data)
{
	(void)data;
	csv_comm(out, rec->comm.comm);
}

static void row_vma(FILE *out, const struct vmt_record *rec, const void *data)
{
	const struct vmt_vma *v = &rec->vma;

	fprintf(out, ",%s,%s,%llu,%llu,%c%c%c%c,%s,%llu", v->op ? "map" : "unmap",
		vma_cause_name(v->cause), (unsigned long long)v->start,
		(unsigned long long)v->end, v->prot & VMT_PROT_READ ? 'r' : '-',
		v->prot & VMT_PROT_WRITE ? 'w' : '-', v->prot & VMT_PROT_EXEC ? 'x' : '-',
		v->prot & VMT_PROT_SHARED ? 's' : 'p', vma_kind_name(v->kind),
		(unsigned long long)v->offset);
	csv_data(out, rec, data);
	fprintf(out, ",%d", !!(v->flags & VMT_DATA_DROPPED));
}

static void row_task(FILE *out, const struct vmt_record *rec, const void *data)
{
	fprintf(out, ",%u", rec->task.ppid);
	csv_comm(out, rec->task.comm);
	csv_data(out, rec, data);
	fprintf(out, ",%d", !!(rec->task.flags & VMT_DATA_DROPPED));
}

static void row_dma(FILE *out, const struct vmt_record *rec, const void *data)
{
	const struct vmt_dma *d = &rec->dma;

	fprintf(out, ",%s,%s,%llu,%llu,%u,%u,%u,%u", dma_op_name(d->op), dma_dir_name(d->dir),
		(unsigned long long)d->dma_addr, (unsigned long long)d->phys_addr, d->size,
		d->index, d->count, d->in_task);
	csv_data(out, rec, data);
	fprintf(out, ",%d", !!(d->flags & VMT_DATA_DROPPED));
}

static void row_pagemap(FILE *out, const struct vmt_record *rec, const void *data)
{
	const struct vmt_pagemap *p = &rec->pagemap;

	(void)data;
	fprintf(out, ",%s,%llu,%llu,%u,%u", p->op ? "unmap" : "map", (unsigned long long)p->vaddr,
		(unsigned long long)p->pfn, p->huge, p->notify_event);
}

/* An exact access: its value as its bytes in memory order, in hex (none: empty). */
static void row_exact(FILE *out, const struct vmt_record *rec, const void *data)
{
	const struct vmt_exact *e = &rec->exact;
	const unsigned char *p = e->size > sizeof(e->value) ? data : e->value;

	fprintf(out, ",%llu,%u,%s,", (unsigned long long)e->addr, e->size,
		access_name(e->access));
	/* A bus record (cachesim --emit) moves a line: it holds no value. */
	if (p && !VMT_EXACT_BUS_CODE(e->flags) &&
	    (e->size <= sizeof(e->value) || rec->hdr.data_len >= e->size))
		for (unsigned int i = 0; i < e->size; i++)
			fprintf(out, "%02x", p[i]);
	fprintf(out, ",%llu,%s,%d,%d,%d,%s", (unsigned long long)e->ip,
		e->kernel_mode ? "kernel" : "user", !!(e->flags & VMT_EXACT_STRING),
		!!(e->flags & VMT_EXACT_SPLIT), !!(e->flags & VMT_EXACT_STACK),
		vmt_field_name(VMT_NAMES_EXACT_BUS, VMT_EXACT_BUS_CODE(e->flags)));
}

/* A type vmtrace does not know: its number and payload, as 64-bit words. */
static void row_other(FILE *out, const struct vmt_record *rec, const void *data)
{
	(void)data;
	fprintf(out, ",%u", rec->hdr.type);
	for (int i = 0; i < 5; i++)
		fprintf(out, ",%llu", (unsigned long long)rec->raw[i]);
}

#define OTHER_TYPES	VMT_REC_TYPES	/* tables[]' last: every unknown type */

static const struct csv_table tables[VMT_REC_TYPES + 1] = {
	[VMT_REC_NONE] = { "type,raw0,raw1,raw2,raw3,raw4", row_other },
	[VMT_REC_LOST] = { "count", row_lost },
	[VMT_REC_REFERENCE] = { "addr,ip,pfn,access,mode,cause,err,huge", row_ref },
	[VMT_REC_EVICT] = { "addr,pfn,dirty,accessed,huge", row_evict },
	[VMT_REC_MARKER] = { "id,text", row_marker },
	[VMT_REC_DATA] = { "len", row_data },
	[VMT_REC_SWITCH] = { "next_pid,next_tid,state,preempt", row_switch },
	[VMT_REC_FORK] = { "child_pid,child_tid,flags", row_fork },
	[VMT_REC_EXEC] = { "old_tid,file,file_dropped", row_exec },
	[VMT_REC_EXIT] = { "code,group_dead", row_exit },
	[VMT_REC_COMM] = { "comm", row_comm },
	[VMT_REC_VMA] = { "op,cause,start,end,prot,kind,offset,name,name_dropped", row_vma },
	[VMT_REC_TASK] = { "ppid,comm,exe,exe_dropped", row_task },
	[VMT_REC_DMA] = {
		"op,dir,dma,phys,size,index,count,in_task,dev,dev_dropped", row_dma,
	},
	[VMT_REC_PAGEMAP] = { "op,addr,pfn,huge,event", row_pagemap },
	[VMT_REC_EXACT] = { "addr,size,access,value,ip,mode,string,split,stack,bus", row_exact },
	[OTHER_TYPES] = { "type,raw0,raw1,raw2,raw3,raw4", row_other },
};

struct csv_export {
	struct vmt_trace *trace;
	const char *dir;		/* NULL: every row to one file */
	FILE *single;
	FILE *files[OTHER_TYPES + 1];	/* the directory's, opened at their first row */
};

static unsigned int table_of(const struct vmt_record *rec)
{
	return rec->hdr.type < OTHER_TYPES && rec->hdr.type != VMT_REC_NONE ? rec->hdr.type :
									    OTHER_TYPES;
}

static FILE *open_table(struct csv_export *x, unsigned int table)
{
	const char *type = table == OTHER_TYPES ? "other" : vmt_record_type_name(table);
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/%s.csv", x->dir, type) >= (int)sizeof(path)) {
		fprintf(stderr, "vmtrace export: %s: name too long\n", x->dir);
		return NULL;
	}
	x->files[table] = fopen(path, "w");
	if (!x->files[table])
		fprintf(stderr, "vmtrace export: cannot write %s: %s\n", path, strerror(errno));
	return x->files[table];
}

static int csv_record(void *ctx, const struct vmt_record *rec)
{
	struct csv_export *x = ctx;
	unsigned int table = table_of(rec);
	FILE *out = x->dir ? x->files[table] : x->single;
	const struct csv_table *tab = &tables[table];

	if (!out) {
		out = open_table(x, table);
		if (!out)
			return EXPORT_SAID;
		fprintf(out, "time,cpu,pid,tid,%s\n", tab->columns);
	}
	fprintf(out, "%llu,%u,%u,%u", (unsigned long long)rec->hdr.time_ns, rec->hdr.cpu,
		rec->hdr.pid, rec->hdr.tid);
	tab->row(out, rec, export_record_data(x->trace, rec));
	return fputc('\n', out) == EOF ? EXPORT_WRITE_ERROR : 0;
}

/* The one type @types names: its table. */
static unsigned int single_table(uint32_t types)
{
	unsigned int type = (unsigned int)__builtin_ctz(types);

	return type < OTHER_TYPES && type != VMT_REC_NONE ? type : OTHER_TYPES;
}

int64_t export_csv(struct vmt_trace *t, FILE *out, const struct export_options *o)
{
	struct csv_export x = { .trace = t, .single = out };
	int64_t ret;

	if (out) {
		/* The header even when no row follows: an empty table, not an empty file. */
		fprintf(out, "time,cpu,pid,tid,%s\n", tables[single_table(o->types)].columns);
		return export_each(t, VMT_ORDER_WRITTEN, csv_record, &x);
	}
	x.dir = o->out_path;
	if (mkdir(x.dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "vmtrace export: cannot make the directory %s: %s\n", x.dir,
			strerror(errno));
		return EXPORT_SAID;
	}
	ret = export_each(t, VMT_ORDER_WRITTEN, csv_record, &x);
	for (unsigned int i = 0; i <= OTHER_TYPES; i++) {
		if (!x.files[i])
			continue;
		ret = export_check_output(x.files[i], ret);
		if (fclose(x.files[i]) && ret >= 0)
			ret = EXPORT_WRITE_ERROR;
	}
	return ret;
}
