// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Summaries of a trace (vmt_trace_summarize()): one pass over the records
 * in written order, counting by type, CPU and process, references by time
 * slice, and references by (pid, page) in an open-addressing hash table,
 * which gives the footprints and the top pages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/trace.h"

#define PAGE_SHIFT	12
#define DEFAULT_BUCKETS	10
#define DEFAULT_TOP	10

struct page_slot {
	uint64_t address;	/* page address + 1 (0: the slot is free) */
	uint32_t pid;
	uint64_t references, writes;
};

struct page_table {
	struct page_slot *slots;
	uint64_t mask, used;
};

struct summarizer {
	struct vmt_trace *trace;
	struct vmt_trace_summary *s;
	struct page_table pages;
	uint32_t processes_capacity;
	uint32_t last_process;		/* the index of the last pid looked up */
};

static uint64_t hash_page(uint32_t pid, uint64_t address)
{
	uint64_t h = (address >> PAGE_SHIFT) ^ ((uint64_t)pid << 40);

	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static int table_grow(struct page_table *t)
{
	uint64_t capacity = t->slots ? 2 * (t->mask + 1) : 1024;
	struct page_slot *slots = calloc(capacity, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (uint64_t i = 0; t->slots && i <= t->mask; i++) {
		struct page_slot *old = &t->slots[i];
		uint64_t j;

		if (!old->address)
			continue;
		j = hash_page(old->pid, old->address - 1) & (capacity - 1);
		while (slots[j].address)
			j = (j + 1) & (capacity - 1);
		slots[j] = *old;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = capacity - 1;
	return 0;
}

/* The slot of (pid, page), made if new; NULL when out of memory. */
static struct page_slot *table_find(struct page_table *t, uint32_t pid, uint64_t address,
				    int *is_new)
{
	uint64_t i;

	if (!t->slots || 2 * (t->used + 1) > t->mask + 1)
		if (table_grow(t))
			return NULL;
	i = hash_page(pid, address) & t->mask;
	while (t->slots[i].address) {
		if (t->slots[i].address == address + 1 && t->slots[i].pid == pid) {
			*is_new = 0;
			return &t->slots[i];
		}
		i = (i + 1) & t->mask;
	}
	t->slots[i].address = address + 1;
	t->slots[i].pid = pid;
	t->used++;
	*is_new = 1;
	return &t->slots[i];
}

static struct vmt_trace_process *find_process(struct summarizer *z, uint32_t pid, uint64_t time)
{
	struct vmt_trace_summary *s = z->s;
	struct vmt_trace_process *p;

	if (z->last_process < s->nr_processes && s->processes[z->last_process].pid == pid)
		return &s->processes[z->last_process];
	for (uint32_t i = 0; i < s->nr_processes; i++)
		if (s->processes[i].pid == pid)
			return &s->processes[z->last_process = i];
	if (s->nr_processes == z->processes_capacity) {
		uint32_t capacity = z->processes_capacity ? 2 * z->processes_capacity : 16;

		p = realloc(s->processes, capacity * sizeof(*p));
		if (!p)
			return NULL;
		s->processes = p;
		z->processes_capacity = capacity;
	}
	p = &s->processes[s->nr_processes];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->first_time = time;
	z->last_process = s->nr_processes++;
	return p;
}

static int grow_cpus(struct vmt_trace_summary *s, uint32_t cpu)
{
	uint32_t n = cpu + 1;
	uint64_t *by_cpu = realloc(s->by_cpu, n * sizeof(*by_cpu));
	uint64_t *lost;

	if (!by_cpu)
		return -ENOMEM;
	s->by_cpu = by_cpu;
	lost = realloc(s->lost_by_cpu, n * sizeof(*lost));
	if (!lost)
		return -ENOMEM;
	s->lost_by_cpu = lost;
	memset(by_cpu + s->nr_cpus, 0, (n - s->nr_cpus) * sizeof(*by_cpu));
	memset(lost + s->nr_cpus, 0, (n - s->nr_cpus) * sizeof(*lost));
	s->nr_cpus = n;
	return 0;
}

/*
 * What the task records say of @p: its name (the leader's, from the state
 * dump's TASK record or a COMM record) and executable (TASK's and EXEC's
 * data). Data that cannot be read leaves the name as it was.
 */
static int name_process(struct summarizer *z, struct vmt_trace_process *p,
			const struct vmt_record *rec)
{
	const char *comm = NULL;
	char *exe;
	int len;

	if (rec->hdr.type == VMT_REC_TASK && rec->hdr.tid == rec->hdr.pid)
		comm = rec->task.comm;
	else if (rec->hdr.type == VMT_REC_COMM && rec->hdr.tid == rec->hdr.pid)
		comm = rec->comm.comm;
	if (comm)
		memcpy(p->comm, comm, VMT_COMM_LEN);
	if ((rec->hdr.type != VMT_REC_TASK && rec->hdr.type != VMT_REC_EXEC) ||
	    !rec->hdr.data_len)
		return 0;
	exe = malloc(rec->hdr.data_len + 1);
	if (!exe)
		return -ENOMEM;
	len = vmt_trace_record_data(z->trace, rec, exe, rec->hdr.data_len);
	if (len < 0) {
		free(exe);
		return len == -ENOMEM ? len : 0;
	}
	exe[len] = '\0';
	free(p->exe);
	p->exe = exe;
	return 0;
}

static int count_record(struct summarizer *z, const struct vmt_record *rec)
{
	struct vmt_trace_summary *s = z->s;
	struct vmt_trace_process *p;
	struct page_slot *slot;
	uint64_t t = rec->hdr.time_ns;
	int is_new;

	s->records++;
	if (rec->hdr.type < VMT_SUMMARY_TYPES)
		s->by_type[rec->hdr.type]++;
	else
		s->other_types++;
	if (rec->hdr.cpu >= s->nr_cpus && grow_cpus(s, rec->hdr.cpu))
		return -ENOMEM;
	s->by_cpu[rec->hdr.cpu]++;
	if (rec->hdr.type == VMT_REC_LOST) {
		s->lost += rec->lost.count;
		s->lost_by_cpu[rec->hdr.cpu] += rec->lost.count;
		return 0;
	}
	p = find_process(z, rec->hdr.pid, t);
	if (!p)
		return -ENOMEM;
	p->records++;
	if (t < p->first_time)
		p->first_time = t;
	if (t > p->last_time)
		p->last_time = t;
	if (rec->hdr.type == VMT_REC_EVICT)
		p->evictions++;
	if (rec->hdr.type == VMT_REC_EXACT) {
		s->exact_by_access[rec->exact.access & 7]++;
		s->exact_kernel += rec->exact.kernel_mode != 0;
	}
	if (rec->hdr.type != VMT_REC_REFERENCE)
		return name_process(z, p, rec);
	p->references++;
	if (s->nr_buckets && t >= s->first_time) {
		uint64_t b = (t - s->first_time) / s->bucket_ns;

		s->bucket_references[b < s->nr_buckets ? b : s->nr_buckets - 1]++;
	}
	slot = table_find(&z->pages, rec->hdr.pid, rec->ref.vaddr & ~((1ull << PAGE_SHIFT) - 1),
			  &is_new);
	if (!slot)
		return -ENOMEM;
	slot->references++;
	if (rec->ref.access & VMT_ACCESS_WRITE) {
		slot->writes++;
		p->writes++;
	}
	if (is_new) {
		p->pages++;
		s->pages++;
	}
	return 0;
}

/* The span of the record streams' times, from the directory alone. */
static void time_span(struct vmt_trace *t, struct vmt_trace_summary *s)
{
	struct vmt_trace_stream_stats st;
	int any = 0;

	for (uint32_t i = 0; i < vmt_trace_nr_streams(t); i++) {
		if (vmt_trace_stream(t, i)->kind != VMT_STREAM_RECORDS ||
		    vmt_trace_stream_stats(t, i, &st) || !st.entries)
			continue;
		if (!any || st.first_time < s->first_time)
			s->first_time = st.first_time;
		if (!any || st.last_time > s->last_time)
			s->last_time = st.last_time;
		any = 1;
	}
}

static int by_references(const void *a, const void *b)
{
	const struct vmt_trace_process *x = a, *y = b;

	if (x->references != y->references)
		return x->references > y->references ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int page_by_references(const void *a, const void *b)
{
	const struct page_slot *x = a, *y = b;

	if (x->references != y->references)
		return x->references > y->references ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->address < y->address ? -1 : x->address > y->address;
}

static int keep_top_pages(struct summarizer *z, uint32_t top)
{
	struct vmt_trace_summary *s = z->s;
	struct page_table *t = &z->pages;
	uint64_t n = 0;

	/* Pack the used slots to the front, sort, keep the first @top. */
	for (uint64_t i = 0; t->slots && i <= t->mask; i++)
		if (t->slots[i].address)
			t->slots[n++] = t->slots[i];
	if (n)
		qsort(t->slots, n, sizeof(*t->slots), page_by_references);
	s->nr_top_pages = n < top ? (uint32_t)n : top;
	s->top_pages = calloc(s->nr_top_pages ? s->nr_top_pages : 1, sizeof(*s->top_pages));
	if (!s->top_pages)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nr_top_pages; i++)
		s->top_pages[i] = (struct vmt_trace_page){
			.pid = t->slots[i].pid, .address = t->slots[i].address - 1,
			.references = t->slots[i].references, .writes = t->slots[i].writes,
		};
	return 0;
}

int vmt_trace_summarize(struct vmt_trace *trace, const struct vmt_trace_summary_options *options,
			struct vmt_trace_summary **summary)
{
	uint32_t buckets = options && options->time_buckets ? options->time_buckets
							     : DEFAULT_BUCKETS;
	uint32_t top = options && options->top_pages ? options->top_pages : DEFAULT_TOP;
	struct summarizer z = { .trace = trace };
	struct vmt_trace_cursor *cursor = NULL;
	const struct vmt_record *rec;
	uint32_t stream;
	uint64_t span;
	int ret;

	*summary = NULL;
	z.s = calloc(1, sizeof(*z.s));
	if (!z.s)
		return -ENOMEM;
	time_span(trace, z.s);
	span = z.s->last_time - z.s->first_time + 1;
	z.s->nr_buckets = buckets;
	z.s->bucket_ns = span / buckets + (span % buckets != 0);
	z.s->bucket_references = calloc(buckets, sizeof(uint64_t));
	ret = z.s->bucket_references ? vmt_trace_cursor_create(trace, VMT_ORDER_WRITTEN, &cursor)
				     : -ENOMEM;
	while (!ret && (ret = vmt_trace_cursor_next(cursor, &rec, &stream)) == 1)
		ret = count_record(&z, rec);
	vmt_trace_cursor_free(cursor);
	if (!ret)
		ret = keep_top_pages(&z, top);
	free(z.pages.slots);
	if (ret) {
		vmt_trace_summary_free(z.s);
		return ret;
	}
	if (z.s->nr_processes)
		qsort(z.s->processes, z.s->nr_processes, sizeof(*z.s->processes), by_references);
	if (!z.s->records)
		z.s->first_time = z.s->last_time = 0;
	*summary = z.s;
	return 0;
}

void vmt_trace_summary_free(struct vmt_trace_summary *s)
{
	if (!s)
		return;
	free(s->by_cpu);
	free(s->lost_by_cpu);
	for (uint32_t i = 0; i < s->nr_processes; i++)
		free(s->processes[i].exe);
	free(s->processes);
	free(s->bucket_references);
	free(s->top_pages);
	free(s);
}
