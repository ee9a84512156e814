// SPDX-License-Identifier: GPL-2.0
/*
 * One record, one line: the text `vmtrace dump-raw` and `vmtrace dump` share,
 * so that a trace file can be compared with the raw records it came from.
 * Every line starts "TIME TYPE cpu=C pid=P tid=T"; variable-size data is
 * printed quoted, with \\, \" and \xNN for bytes that are not printable.
 */
#include <stdio.h>

#include <vmtrace/trace.h>

#include "record_print.h"

#define NAME(field, i)	vmt_field_name(field, i)

const char *access_name(unsigned int access) { return NAME(VMT_NAMES_ACCESS, access); }
const char *fault_cause_name(unsigned int cause) { return NAME(VMT_NAMES_CAUSE, cause); }
const char *vma_cause_name(unsigned int cause) { return NAME(VMT_NAMES_VMA_CAUSE, cause); }
const char *vma_kind_name(unsigned int kind) { return NAME(VMT_NAMES_VMA_KIND, kind); }
const char *dma_op_name(unsigned int op) { return NAME(VMT_NAMES_DMA_OP, op); }
const char *dma_dir_name(unsigned int dir) { return NAME(VMT_NAMES_DMA_DIR, dir); }

void print_escaped(FILE *out, const void *bytes, uint32_t len, const char *quote)
{
	const unsigned char *p = bytes;

	for (uint32_t i = 0; i < len; i++) {
		if (p[i] == '"')
			fputs(quote, out);
		else if (p[i] == '\\')
			fputs("\\\\", out);
		else if (p[i] < 0x20 || p[i] >= 0x7f)
			fprintf(out, "\\x%02x", p[i]);
		else
			fputc(p[i], out);
	}
}

/* " KEY=\"...\"": @len bytes at @p, quoted. */
static void print_bytes(FILE *out, const char *key, const unsigned char *p, uint32_t len)
{
	fprintf(out, " %s=\"", key);
	print_escaped(out, p, len, "\\\"");
	fputc('"', out);
}

/* The record's data, if it has any: quoted, or ? when it could not be had. */
static void print_data(FILE *out, const char *key, const struct vmt_record *rec,
		       const void *data)
{
	if (!rec->hdr.data_len)
		return;
	if (data)
		print_bytes(out, key, data, rec->hdr.data_len);
	else
		fprintf(out, " %s=?", key);
}

uint32_t comm_len(const char *comm)
{
	uint32_t len = 0;

	while (len < VMT_COMM_LEN && comm[len])
		len++;
	return len;
}

static void print_comm(FILE *out, const char *comm)
{
	print_bytes(out, "comm", (const unsigned char *)comm, comm_len(comm));
}

static void print_vma(FILE *out, const struct vmt_record *rec, const void *data)
{
	const struct vmt_vma *v = &rec->vma;

	fprintf(out, " op=%s cause=%s start=0x%llx end=0x%llx", v->op ? "map" : "unmap",
		NAME(VMT_NAMES_VMA_CAUSE, v->cause), (unsigned long long)v->start,
		(unsigned long long)v->end);
	if (v->op == VMT_VMA_UNMAP)
		return;
	fprintf(out, " prot=%c%c%c%c kind=%s", v->prot & VMT_PROT_READ ? 'r' : '-',
		v->prot & VMT_PROT_WRITE ? 'w' : '-', v->prot & VMT_PROT_EXEC ? 'x' : '-',
		v->prot & VMT_PROT_SHARED ? 's' : 'p', NAME(VMT_NAMES_VMA_KIND, v->kind));
	if (v->kind == VMT_VMA_FILE)
		fprintf(out, " offset=0x%llx", (unsigned long long)v->offset);
	print_data(out, "name", rec, data);
	if (v->flags & VMT_DATA_DROPPED)
		fprintf(out, " name_dropped=1");
}

/*
 * An exact access: its value as the little-endian number for sizes up to 8,
 * its bytes in memory order (hex) beyond; "-" when not decoded (size 0), "?"
 * when a wide value's data could not be had.
 */
static void print_exact(FILE *out, const struct vmt_record *rec, const void *data)
{
	const struct vmt_exact *e = &rec->exact;
	const unsigned char *bytes = e->size > sizeof(e->value) ? data : e->value;
	unsigned long long v = 0;

	fprintf(out, " addr=0x%llx size=%u access=%s value=", (unsigned long long)e->addr, e->size,
		NAME(VMT_NAMES_ACCESS, e->access));
	/* A bus record (cachesim --emit) moves a line: it holds no value. */
	if (!e->size || (e->flags & (VMT_EXACT_BUS_FILL | VMT_EXACT_BUS_WRITEBACK |
				   VMT_EXACT_BUS_PREFETCH))) {
		fputc('-', out);
	} else if (!bytes || (e->size > sizeof(e->value) && rec->hdr.data_len < e->size)) {
		fputc('?', out);
	} else if (e->size <= 8) {
		for (unsigned int i = e->size; i-- > 0;)
			v = v << 8 | bytes[i];
		fprintf(out, "0x%llx", v);
	} else {
		for (unsigned int i = 0; i < e->size; i++)
			fprintf(out, "%02x", bytes[i]);
	}
	fprintf(out, " ip=0x%llx mode=%s", (unsigned long long)e->ip,
		e->kernel_mode ? "kernel" : "user");
	if (e->flags & VMT_EXACT_STRING)
		fputs(" string=1", out);
	if (e->flags & VMT_EXACT_SPLIT)
		fputs(" split=1", out);
	if (e->flags & VMT_EXACT_STACK)
		fputs(" stack=1", out);
	if (VMT_EXACT_BUS_CODE(e->flags))
		fprintf(out, " bus=%s",
			vmt_field_name(VMT_NAMES_EXACT_BUS, VMT_EXACT_BUS_CODE(e->flags)));
}

void print_record(FILE *out, const struct vmt_record *rec, const void *data)
{
	const char *type = vmt_record_type_name(rec->hdr.type);

	fprintf(out, "%llu ", (unsigned long long)rec->hdr.time_ns);
	if (type)
		fprintf(out, "%s", type);
	else
		fprintf(out, "type=%u", rec->hdr.type);
	fprintf(out, " cpu=%u", rec->hdr.cpu);
	if (rec->hdr.type == VMT_REC_LOST) {
		fprintf(out, " count=%llu\n", (unsigned long long)rec->lost.count);
		return;
	}
	fprintf(out, " pid=%u tid=%u", rec->hdr.pid, rec->hdr.tid);
	switch (rec->hdr.type) {
	case VMT_REC_REFERENCE:
		fprintf(out, " addr=0x%llx ip=0x%llx pfn=0x%llx access=%s mode=%s cause=%s err=0x%x%s",
			(unsigned long long)rec->ref.vaddr, (unsigned long long)rec->ref.ip,
			(unsigned long long)rec->ref.pfn, NAME(VMT_NAMES_ACCESS, rec->ref.access),
			rec->ref.kernel_mode ? "kernel" : "user", NAME(VMT_NAMES_CAUSE, rec->ref.cause),
			rec->ref.error_code, rec->ref.flags & VMT_REF_HUGE ? " huge=1" : "");
		break;
	case VMT_REC_EVICT:
		fprintf(out, " addr=0x%llx pfn=0x%llx dirty=%d accessed=%d%s",
			(unsigned long long)rec->ref.vaddr, (unsigned long long)rec->ref.pfn,
			!!(rec->ref.evict_flags & VMT_EVICT_DIRTY),
			!!(rec->ref.evict_flags & VMT_EVICT_ACCESSED),
			rec->ref.flags & VMT_REF_HUGE ? " huge=1" : "");
		break;
	case VMT_REC_DATA:
		fprintf(out, " len=%u", rec->hdr.data_len);
		break;
	case VMT_REC_SWITCH:
		fprintf(out, " next_pid=%u next_tid=%u state=0x%x preempt=%u", rec->sw.next_pid,
			rec->sw.next_tid, rec->sw.prev_state, rec->sw.preempt);
		break;
	case VMT_REC_FORK:
		fprintf(out, " child_pid=%u child_tid=%u flags=0x%llx", rec->fork.child_pid,
			rec->fork.child_tid, (unsigned long long)rec->fork.clone_flags);
		break;
	case VMT_REC_EXEC:
		fprintf(out, " old_tid=%u", rec->exec.old_tid);
		print_data(out, "file", rec, data);
		break;
	case VMT_REC_EXIT:
		fprintf(out, " code=%u group_dead=%u", rec->exit.exit_code, rec->exit.group_dead);
		break;
	case VMT_REC_COMM:
		print_comm(out, rec->comm.comm);
		break;
	case VMT_REC_TASK:
		fprintf(out, " ppid=%u", rec->task.ppid);
		print_comm(out, rec->task.comm);
		print_data(out, "exe", rec, data);
		break;
	case VMT_REC_VMA:
		print_vma(out, rec, data);
		break;
	case VMT_REC_DMA:
		fprintf(out, " op=%s dir=%s dma=0x%llx phys=0x%llx size=%u seg=%u/%u in_task=%u",
			NAME(VMT_NAMES_DMA_OP, rec->dma.op), NAME(VMT_NAMES_DMA_DIR, rec->dma.dir),
			(unsigned long long)rec->dma.dma_addr,
			(unsigned long long)rec->dma.phys_addr, rec->dma.size, rec->dma.index,
			rec->dma.count, rec->dma.in_task);
		print_data(out, "dev", rec, data);
		break;
	case VMT_REC_PAGEMAP:
		fprintf(out, " op=%s addr=0x%llx pfn=0x%llx%s", rec->pagemap.op ? "unmap" : "map",
			(unsigned long long)rec->pagemap.vaddr,
			(unsigned long long)rec->pagemap.pfn, rec->pagemap.huge ? " huge=1" : "");
		if (rec->pagemap.op)
			fprintf(out, " event=%u", rec->pagemap.notify_event);
		break;
	case VMT_REC_EXACT:
		print_exact(out, rec, data);
		break;
	case VMT_REC_MARKER:
		fprintf(out, " id=%u", rec->marker.id);
		print_data(out, "text", rec, data);
		break;
	}
	fputc('\n', out);
}
