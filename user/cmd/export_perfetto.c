// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace export --format perfetto: the Trace Event Format (the JSON of
 * chrome://tracing, which ui.perfetto.dev opens), written as the records
 * are read in time order, in memory that grows with the processes, threads
 * and CPUs of the trace and a bucket's pages, never with its records:
 *
 *   {"displayTimeUnit":"ns","otherData":{...},"traceEvents":[
 *   {"ph":"M",...,"name":"process_name","args":{"name":"make"}},   task, exec, comm
 *   {"ph":"X",...,"pid":CPUS_PID,"tid":CPU's track,"dur":...},      a task on a CPU
 *   {"ph":"i",...,"s":"t","name":"phase 2"},                        a marker
 *   {"ph":"C",...,"name":"references","args":{"count":N}},         a closed bucket
 *   ...]}
 *
 * Times are microseconds (ns / 1000, three decimals) of the trace's clock.
 * The CPUs' tracks are the threads of a process no task has (CPUS_PID,
 * beyond the kernel's PID_MAX_LIMIT), the totals' counters another's.
 * A counter is written for a bucket when the first record past it comes, for
 * every process that referenced memory in it, and once more at zero in the
 * bucket after its last, so that the tracks fall back to zero between bursts.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow_array.h"
#include "base/u64_map.h"
#include "export_perfetto.h"
#include "util/record_print.h"

#define CPUS_PID	(1u << 30)
#define COUNTERS_PID	(CPUS_PID - 1)
#define TARGET_BUCKETS	1000
#define NAME_LEN	(VMT_COMM_LEN + 1)

struct cpu_track {
	uint64_t start;		/* of the slice running */
	uint32_t pid, tid;
	bool running;		/* a task (not the idle one) since start */
	bool named;		/* its thread_name event written */
};

struct process_counters {
	uint32_t pid;
	uint64_t references;	/* in the open bucket */
	struct vmt_u64_map pages;	/* page numbers referenced in it */
	bool map_live;
	bool shown;		/* the last counters written were not zero */
};

struct perfetto {
	struct vmt_trace *trace;
	FILE *out;
	const struct export_options *options;
	bool first_event;
	uint64_t last_time;

	struct cpu_track *cpus;
	uint64_t cpus_room;

	struct vmt_u64_map thread_names;	/* tid -> index in names */
	char (*names)[NAME_LEN];
	uint64_t nr_names, names_room;

	struct vmt_u64_map process_index;	/* pid -> index in procs */
	struct process_counters *procs;
	uint64_t nr_procs, procs_room;

	uint64_t origin, bucket_ns, bucket;
	bool bucket_open;
	bool totals_shown;
	uint64_t dma_bytes[3];	/* mapped in the open bucket, by direction */
	bool dma_seen, dma_shown;
	uint64_t references_written;
};

/* A JSON string of @len bytes: bytes past ASCII as \u00XX, so the file is valid UTF-8. */
static void json_string(FILE *out, const void *bytes, size_t len)
{
	const unsigned char *p = bytes;

	fputc('"', out);
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '"' || p[i] == '\\')
			fprintf(out, "\\%c", p[i]);
		else if (p[i] < 0x20 || p[i] >= 0x7f)
			fprintf(out, "\\u%04x", p[i]);
		else
			fputc(p[i], out);
	}
	fputc('"', out);
}

/* `{"ph":PH,"ts":US,"pid":PID,"tid":TID`, after a comma but for the first; the caller ends it. */
static void event_begin(struct perfetto *p, const char *ph, uint64_t ns, uint32_t pid,
			uint32_t tid)
{
	fprintf(p->out, "%s{\"ph\":\"%s\",\"ts\":%llu.%03llu,\"pid\":%u,\"tid\":%u",
		p->first_event ? "" : ",\n", ph, (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000), pid, tid);
	p->first_event = false;
}

/* A metadata event: @what (process_name, thread_name) of pid/tid is @name. */
static void name_event(struct perfetto *p, const char *what, uint64_t ns, uint32_t pid,
		       uint32_t tid, const void *name, size_t len)
{
	event_begin(p, "M", ns, pid, tid);
	fprintf(p->out, ",\"name\":\"%s\",\"args\":{\"name\":", what);
	json_string(p->out, name, len);
	fputs("}}", p->out);
}

/*
 * The index of @key in an array looked up through @map (key -> index), a
 * new zeroed element at its end for a new key; -1 when memory runs out.
 */
static int64_t index_of(struct vmt_u64_map *map, uint64_t key, void **array, uint64_t *room,
			uint64_t *n, size_t size)
{
	uint64_t *slot;
	bool added;

	slot = vmt_u64_map_put(map, key, &added);
	if (!slot)
		return -1;
	if (added) {
		*slot = *n;
		if (vmt_grow_array(array, room, *n + 1, size))
			return -1;
		++*n;
	}
	return (int64_t)*slot;
}

static int remember_thread_name(struct perfetto *p, uint32_t tid, const void *name, size_t len)
{
	int64_t i = index_of(&p->thread_names, tid, (void **)&p->names, &p->names_room,
			     &p->nr_names, sizeof(*p->names));

	if (i < 0)
		return EXPORT_NO_MEMORY;
	if (len >= NAME_LEN)
		len = NAME_LEN - 1;
	memcpy(p->names[i], name, len);
	p->names[i][len] = '\0';
	return 0;
}

/* Thread @tid of @pid is called @name, and so is the process when @tid leads it. */
static int name_thread(struct perfetto *p, uint64_t ns, uint32_t pid, uint32_t tid,
		       const void *name, size_t len)
{
	name_event(p, "thread_name", ns, pid, tid, name, len);
	if (pid == tid)
		name_event(p, "process_name", ns, pid, pid, name, len);
	return remember_thread_name(p, tid, name, len);
}

/* The name the slices of a thread on a CPU get: its comm, else its tid. */
static const char *thread_name(struct perfetto *p, uint32_t tid, char *buf, size_t size)
{
	uint64_t *slot = vmt_u64_map_get(&p->thread_names, tid);

	if (slot && p->names[*slot][0])
		return p->names[*slot];
	snprintf(buf, size, "tid %u", tid);
	return buf;
}

static int on_exec(struct perfetto *p, const struct vmt_record *rec)
{
	const char *file = export_record_data(p->trace, rec), *base;
	size_t len = rec->hdr.data_len;

	if (!file)
		return 0;
	/* What exec makes the comm: the file name's last part. */
	base = memrchr(file, '/', len);
	base = base ? base + 1 : file;
	return name_thread(p, rec->hdr.time_ns, rec->hdr.pid, rec->hdr.tid, base,
			   len - (size_t)(base - file));
}

/* A child starts with its parent's name. */
static int on_fork(struct perfetto *p, const struct vmt_record *rec)
{
	uint64_t *slot = vmt_u64_map_get(&p->thread_names, rec->hdr.tid);
	char name[NAME_LEN];

	if (!slot)
		return 0;
	memcpy(name, p->names[*slot], NAME_LEN);
	return name_thread(p, rec->hdr.time_ns, rec->fork.child_pid, rec->fork.child_tid, name,
			   strlen(name));
}

static void end_slice(struct perfetto *p, uint32_t cpu, uint64_t ns)
{
	struct cpu_track *c = &p->cpus[cpu];
	char buf[32];
	const char *name = thread_name(p, c->tid, buf, sizeof(buf));

	event_begin(p, "X", c->start, CPUS_PID, CPUS_PID + 1 + cpu);
	fprintf(p->out, ",\"dur\":%llu.%03llu,\"name\":",
		(unsigned long long)((ns - c->start) / 1000),
		(unsigned long long)((ns - c->start) % 1000));
	json_string(p->out, name, strlen(name));
	fprintf(p->out, ",\"args\":{\"pid\":%u,\"tid\":%u}}", c->pid, c->tid);
	c->running = false;
}

static int on_switch(struct perfetto *p, const struct vmt_record *rec)
{
	uint32_t cpu = rec->hdr.cpu;
	struct cpu_track *c;

	if (vmt_grow_array((void **)&p->cpus, &p->cpus_room, (uint64_t)cpu + 1, sizeof(*c)))
		return EXPORT_NO_MEMORY;
	c = &p->cpus[cpu];
	if (!c->named) {
		char name[16];

		snprintf(name, sizeof(name), "CPU %u", cpu);
		name_event(p, "thread_name", rec->hdr.time_ns, CPUS_PID, CPUS_PID + 1 + cpu, name,
			   strlen(name));
		event_begin(p, "M", rec->hdr.time_ns, CPUS_PID, CPUS_PID + 1 + cpu);
		fprintf(p->out, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%u}}", cpu);
		c->named = true;
	}
	if (c->running)
		end_slice(p, cpu, rec->hdr.time_ns);
	if (rec->sw.next_tid) {
		c->running = true;
		c->start = rec->hdr.time_ns;
		c->pid = rec->sw.next_pid;
		c->tid = rec->sw.next_tid;
	}
	return 0;
}

static void on_marker(struct perfetto *p, const struct vmt_record *rec)
{
	const char *text = export_record_data(p->trace, rec);
	char name[32];

	event_begin(p, "i", rec->hdr.time_ns, rec->hdr.pid, rec->hdr.tid);
	fputs(",\"s\":\"t\",\"name\":", p->out);
	if (text) {
		json_string(p->out, text, rec->hdr.data_len);
	} else {
		snprintf(name, sizeof(name), "marker %u", rec->marker.id);
		json_string(p->out, name, strlen(name));
	}
	fprintf(p->out, ",\"args\":{\"id\":%u}}", rec->marker.id);
}

/* Counters a bucket: named @name, one series @key; written when nonzero or just after. */
static void counter(struct perfetto *p, uint64_t ns, uint32_t pid, const char *name,
		    const char *key, uint64_t value)
{
	event_begin(p, "C", ns, pid, pid);
	fprintf(p->out, ",\"name\":\"%s\",\"args\":{\"%s\":%llu}}", name, key,
		(unsigned long long)value);
}

static void close_bucket(struct perfetto *p, uint64_t bucket)
{
	uint64_t ns = p->origin + bucket * p->bucket_ns, references = 0, pages = 0;
	bool any_dma;

	for (uint64_t i = 0; i < p->nr_procs; i++) {
		struct process_counters *pc = &p->procs[i];
		uint64_t n = pc->map_live ? pc->pages.count : 0;

		if (pc->references || pc->shown) {
			counter(p, ns, pc->pid, "references", "count", pc->references);
			counter(p, ns, pc->pid, "working set", "pages", n);
		}
		pc->shown = pc->references;
		references += pc->references;
		pages += n;
		pc->references = 0;
		if (pc->map_live)
			vmt_u64_map_free(&pc->pages);
		pc->map_live = false;
	}
	if (references || p->totals_shown) {
		counter(p, ns, COUNTERS_PID, "references", "count", references);
		counter(p, ns, COUNTERS_PID, "working set", "pages", pages);
	}
	p->totals_shown = references;
	if (!p->dma_seen)
		return;
	any_dma = p->dma_bytes[0] || p->dma_bytes[1] || p->dma_bytes[2];
	if (any_dma || p->dma_shown) {
		event_begin(p, "C", ns, COUNTERS_PID, COUNTERS_PID);
		fputs(",\"name\":\"DMA bytes\",\"args\":{", p->out);
		for (unsigned int dir = 0; dir < 3; dir++)
			fprintf(p->out, "%s\"%s\":%llu", dir ? "," : "", dma_dir_name(dir),
				(unsigned long long)p->dma_bytes[dir]);
		fputs("}}", p->out);
	}
	p->dma_shown = any_dma;
	memset(p->dma_bytes, 0, sizeof(p->dma_bytes));
}

/* Close the open bucket when @ns is past it (and the one after, to show the zeros). */
static void advance_bucket(struct perfetto *p, uint64_t ns)
{
	uint64_t bucket = ns > p->origin ? (ns - p->origin) / p->bucket_ns : 0;

	if (!p->bucket_open) {
		p->bucket = bucket;
		p->bucket_open = true;
		return;
	}
	if (bucket <= p->bucket)
		return;
	close_bucket(p, p->bucket);
	if (bucket > p->bucket + 1)
		close_bucket(p, p->bucket + 1);
	p->bucket = bucket;
}

static struct process_counters *process_of(struct perfetto *p, uint32_t pid)
{
	int64_t i = index_of(&p->process_index, pid, (void **)&p->procs, &p->procs_room,
			     &p->nr_procs, sizeof(*p->procs));

	if (i < 0)
		return NULL;
	p->procs[i].pid = pid;
	return &p->procs[i];
}

static int on_reference(struct perfetto *p, const struct vmt_record *rec)
{
	struct process_counters *pc = process_of(p, rec->hdr.pid);
	bool added;

	if (!pc)
		return EXPORT_NO_MEMORY;
	if (!pc->map_live) {
		if (vmt_u64_map_init(&pc->pages))
			return EXPORT_NO_MEMORY;
		pc->map_live = true;
	}
	if (!vmt_u64_map_put(&pc->pages, rec->ref.vaddr >> 12, &added))
		return EXPORT_NO_MEMORY;
	pc->references++;
	if (p->references_written >= p->options->max_references)
		return 0;
	p->references_written++;
	event_begin(p, "i", rec->hdr.time_ns, rec->hdr.pid, rec->hdr.tid);
	fprintf(p->out, ",\"s\":\"t\",\"name\":\"ref %s\",\"args\":{\"addr\":\"0x%llx\",\"ip\":\"0x%llx\"}}",
		access_name(rec->ref.access), (unsigned long long)rec->ref.vaddr,
		(unsigned long long)rec->ref.ip);
	return 0;
}

static void on_dma(struct perfetto *p, const struct vmt_record *rec)
{
	uint8_t op = rec->dma.op;

	p->dma_seen = true;
	if ((op == VMT_DMA_MAP_PAGE || op == VMT_DMA_MAP_SG || op == VMT_DMA_ALLOC) &&
	    rec->dma.dir < 3)
		p->dma_bytes[rec->dma.dir] += rec->dma.size;
}

static int perfetto_record(void *ctx, const struct vmt_record *rec)
{
	struct perfetto *p = ctx;

	advance_bucket(p, rec->hdr.time_ns);
	if (rec->hdr.time_ns > p->last_time)
		p->last_time = rec->hdr.time_ns;
	switch (rec->hdr.type) {
	case VMT_REC_REFERENCE:
		return on_reference(p, rec);
	case VMT_REC_SWITCH:
		return on_switch(p, rec);
	case VMT_REC_MARKER:
		on_marker(p, rec);
		return 0;
	case VMT_REC_DMA:
		on_dma(p, rec);
		return 0;
	case VMT_REC_TASK:
		return name_thread(p, rec->hdr.time_ns, rec->hdr.pid, rec->hdr.tid,
				   rec->task.comm, comm_len(rec->task.comm));
	case VMT_REC_COMM:
		return name_thread(p, rec->hdr.time_ns, rec->hdr.pid, rec->hdr.tid,
				   rec->comm.comm, comm_len(rec->comm.comm));
	case VMT_REC_EXEC:
		return on_exec(p, rec);
	case VMT_REC_FORK:
		return on_fork(p, rec);
	}
	return 0;
}

/* The records' first and last times, from the streams' stats, within --from and --to. */
static void time_span(struct vmt_trace *t, const struct export_options *o, uint64_t *first,
		      uint64_t *last)
{
	*first = UINT64_MAX;
	*last = 0;
	for (uint32_t i = 0; i < vmt_trace_nr_streams(t); i++) {
		struct vmt_trace_stream_stats st;

		if (vmt_trace_stream(t, i)->kind != VMT_STREAM_RECORDS ||
		    vmt_trace_stream_stats(t, i, &st) || !st.entries)
			continue;
		if (st.first_time < *first)
			*first = st.first_time;
		if (st.last_time > *last)
			*last = st.last_time;
	}
	if (*first < o->from_time)
		*first = o->from_time;
	if (*last > o->to_time)
		*last = o->to_time;
	if (*first > *last)
		*first = *last = 0;
}

static void perfetto_free(struct perfetto *p)
{
	for (uint64_t i = 0; i < p->nr_procs; i++)
		if (p->procs[i].map_live)
			vmt_u64_map_free(&p->procs[i].pages);
	free(p->procs);
	free(p->names);
	free(p->cpus);
	vmt_u64_map_free(&p->thread_names);
	vmt_u64_map_free(&p->process_index);
}

int64_t export_perfetto(struct vmt_trace *t, FILE *out, const struct export_options *o)
{
	struct perfetto p = { .trace = t, .out = out, .options = o, .first_event = true };
	uint64_t last;
	int64_t ret;

	if (vmt_u64_map_init(&p.thread_names))
		return EXPORT_NO_MEMORY;
	if (vmt_u64_map_init(&p.process_index)) {
		vmt_u64_map_free(&p.thread_names);
		return EXPORT_NO_MEMORY;
	}
	time_span(t, o, &p.origin, &last);
	p.bucket_ns = o->bucket_ns ? o->bucket_ns : (last - p.origin) / TARGET_BUCKETS + 1;
	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"vmtrace export\",\"bucket_ns\":%llu,\"origin_ns\":%llu},\"traceEvents\":[\n",
		(unsigned long long)p.bucket_ns, (unsigned long long)p.origin);
	name_event(&p, "process_name", p.origin, CPUS_PID, CPUS_PID, "CPUs", 4);
	name_event(&p, "process_name", p.origin, COUNTERS_PID, COUNTERS_PID, "vmtrace totals", 14);
	ret = export_each(t, VMT_ORDER_TIME, perfetto_record, &p);
	if (ret >= 0) {
		for (uint32_t cpu = 0; cpu < p.cpus_room; cpu++)
			if (p.cpus[cpu].running)
				end_slice(&p, cpu, p.last_time);
		if (p.bucket_open) {
			close_bucket(&p, p.bucket);
			close_bucket(&p, p.bucket + 1);
		}
		fputs("\n]}\n", out);
	}
	perfetto_free(&p);
	return ret;
}
