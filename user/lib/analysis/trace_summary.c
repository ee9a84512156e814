// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Summaries of a trace (vmt_trace_summarize()): one pass over the records
 * in written order, counting by type, CPU and process, references by time
 * slice, and references by (pid, page) in an open-addressing hash table,
 * which gives the footprints and the top pages.
 *
 * In parts (vmt_trace_summarizer_*(): the commands' parallel runs), each
 * part counts its records so, and a later part merges into an earlier:
 * counts add up, a process's times widen and its name is the later part's
 * when it has one (the last record's, as one pass has it), and the page
 * tables join, a page new to the earlier part adding to the footprints.
 * Packed, a part is its counts, its processes and its page table's pages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/trace.h"
#include "base/pack.h"

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

struct vmt_trace_summarizer {
	struct vmt_trace *trace;
	struct vmt_trace_summary *s;
	struct page_table pages;
	uint32_t processes_capacity;
	uint32_t last_process;		/* the index of the last pid looked up */
	uint32_t top;			/* top pages to keep */
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

static struct vmt_trace_process *find_process(struct vmt_trace_summarizer *z, uint32_t pid, uint64_t time)
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
static int name_process(struct vmt_trace_summarizer *z, struct vmt_trace_process *p,
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

static int count_record(struct vmt_trace_summarizer *z, const struct vmt_record *rec)
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

static int keep_top_pages(struct vmt_trace_summarizer *z, uint32_t top)
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

int vmt_trace_summarizer_create(struct vmt_trace *trace,
				const struct vmt_trace_summary_options *options,
				struct vmt_trace_summarizer **out)
{
	uint32_t buckets = options && options->time_buckets ? options->time_buckets
							     : DEFAULT_BUCKETS;
	struct vmt_trace_summarizer *z = calloc(1, sizeof(*z));
	uint64_t span;

	*out = NULL;
	if (!z)
		return -ENOMEM;
	z->trace = trace;
	z->top = options && options->top_pages ? options->top_pages : DEFAULT_TOP;
	z->s = calloc(1, sizeof(*z->s));
	if (!z->s) {
		free(z);
		return -ENOMEM;
	}
	time_span(trace, z->s);
	span = z->s->last_time - z->s->first_time + 1;
	z->s->nr_buckets = buckets;
	z->s->bucket_ns = span / buckets + (span % buckets != 0);
	z->s->bucket_references = calloc(buckets, sizeof(uint64_t));
	if (!z->s->bucket_references) {
		vmt_trace_summarizer_free(z);
		return -ENOMEM;
	}
	*out = z;
	return 0;
}

int vmt_trace_summarizer_read(struct vmt_trace_summarizer *z)
{
	struct vmt_trace_cursor *cursor = NULL;
	const struct vmt_record *rec;
	uint32_t stream;
	int ret;

	ret = vmt_trace_cursor_create(z->trace, VMT_ORDER_WRITTEN, &cursor);
	while (!ret && (ret = vmt_trace_cursor_next(cursor, &rec, &stream)) == 1)
		ret = count_record(z, rec);
	vmt_trace_cursor_free(cursor);
	return ret;
}

/* @later's process @q into @z's processes. */
static int merge_process(struct vmt_trace_summarizer *z, const struct vmt_trace_process *q)
{
	struct vmt_trace_process *p = find_process(z, q->pid, q->first_time);

	if (!p)
		return -ENOMEM;
	p->records += q->records;
	p->references += q->references;
	p->writes += q->writes;
	p->evictions += q->evictions;
	p->first_time = q->first_time < p->first_time ? q->first_time : p->first_time;
	p->last_time = q->last_time > p->last_time ? q->last_time : p->last_time;
	if (q->comm[0])
		memcpy(p->comm, q->comm, sizeof(p->comm));
	if (q->exe) {
		char *exe = strdup(q->exe);

		if (!exe)
			return -ENOMEM;
		free(p->exe);
		p->exe = exe;
	}
	return 0;
}

/* A page of a later part: its counts added, and the footprints if new here. */
static int merge_page(struct vmt_trace_summarizer *z, const struct page_slot *q)
{
	struct vmt_trace_process *p;
	struct page_slot *slot;
	int is_new;

	slot = table_find(&z->pages, q->pid, q->address - 1, &is_new);
	if (!slot)
		return -ENOMEM;
	slot->references += q->references;
	slot->writes += q->writes;
	if (is_new) {
		p = find_process(z, q->pid, 0);
		if (!p)
			return -ENOMEM;
		p->pages++;
		z->s->pages++;
	}
	return 0;
}

int vmt_trace_summarizer_merge(struct vmt_trace_summarizer *z,
			       const struct vmt_trace_summarizer *later)
{
	struct vmt_trace_summary *s = z->s;
	const struct vmt_trace_summary *l = later->s;
	int err;

	if (l->nr_buckets != s->nr_buckets || l->bucket_ns != s->bucket_ns ||
	    l->first_time != s->first_time)
		return -EINVAL;
	s->records += l->records;
	for (unsigned int i = 0; i < VMT_SUMMARY_TYPES; i++)
		s->by_type[i] += l->by_type[i];
	s->other_types += l->other_types;
	if (l->nr_cpus > s->nr_cpus && grow_cpus(s, l->nr_cpus - 1))
		return -ENOMEM;
	for (uint32_t i = 0; i < l->nr_cpus; i++) {
		s->by_cpu[i] += l->by_cpu[i];
		s->lost_by_cpu[i] += l->lost_by_cpu[i];
	}
	s->lost += l->lost;
	/* Processes first: a page's process is then found, not made. */
	for (uint32_t i = 0; i < l->nr_processes; i++) {
		err = merge_process(z, &l->processes[i]);
		if (err)
			return err;
	}
	for (uint32_t i = 0; i < s->nr_buckets; i++)
		s->bucket_references[i] += l->bucket_references[i];
	for (unsigned int i = 0; i < 8; i++)
		s->exact_by_access[i] += l->exact_by_access[i];
	s->exact_kernel += l->exact_kernel;
	for (uint64_t i = 0; later->pages.slots && i <= later->pages.mask; i++) {
		if (!later->pages.slots[i].address)
			continue;
		err = merge_page(z, &later->pages.slots[i]);
		if (err)
			return err;
	}
	return 0;
}

int vmt_trace_summarizer_pack(const struct vmt_trace_summarizer *z, void **data, size_t *size)
{
	const struct vmt_trace_summary *s = z->s;
	struct vmt_packer p = { 0 };

	vmt_pack_u64(&p, s->records);
	for (unsigned int i = 0; i < VMT_SUMMARY_TYPES; i++)
		vmt_pack_u64(&p, s->by_type[i]);
	vmt_pack_u64(&p, s->other_types);
	vmt_pack_u64(&p, s->nr_cpus);
	for (uint32_t i = 0; i < s->nr_cpus; i++) {
		vmt_pack_u64(&p, s->by_cpu[i]);
		vmt_pack_u64(&p, s->lost_by_cpu[i]);
	}
	vmt_pack_u64(&p, s->lost);
	vmt_pack_u64(&p, s->nr_processes);
	for (uint32_t i = 0; i < s->nr_processes; i++) {
		const struct vmt_trace_process *q = &s->processes[i];

		vmt_pack_u64(&p, q->pid);
		vmt_pack_u64(&p, q->records);
		vmt_pack_u64(&p, q->references);
		vmt_pack_u64(&p, q->writes);
		vmt_pack_u64(&p, q->evictions);
		vmt_pack_u64(&p, q->first_time);
		vmt_pack_u64(&p, q->last_time);
		vmt_pack_bytes(&p, q->comm, sizeof(q->comm));
		vmt_pack_bytes(&p, q->exe ? q->exe : "", q->exe ? strlen(q->exe) + 1 : 0);
	}
	vmt_pack_u64(&p, s->nr_buckets);
	for (uint32_t i = 0; i < s->nr_buckets; i++)
		vmt_pack_u64(&p, s->bucket_references[i]);
	for (unsigned int i = 0; i < 8; i++)
		vmt_pack_u64(&p, s->exact_by_access[i]);
	vmt_pack_u64(&p, s->exact_kernel);
	vmt_pack_u64(&p, z->pages.used);
	for (uint64_t i = 0; z->pages.slots && i <= z->pages.mask; i++) {
		const struct page_slot *q = &z->pages.slots[i];

		if (!q->address)
			continue;
		vmt_pack_u64(&p, q->pid);
		vmt_pack_u64(&p, q->address - 1);
		vmt_pack_u64(&p, q->references);
		vmt_pack_u64(&p, q->writes);
	}
	return vmt_pack_done(&p, data, size);
}

/* The counts of a packed part into @l, a summary of no records with @z's buckets. */
static int unpack_summary(struct vmt_unpacker *u, struct vmt_trace_summarizer *l)
{
	struct vmt_trace_summary *s = l->s;
	uint64_t n;
	int err;

	s->records = vmt_unpack_u64(u);
	for (unsigned int i = 0; i < VMT_SUMMARY_TYPES; i++)
		s->by_type[i] = vmt_unpack_u64(u);
	s->other_types = vmt_unpack_u64(u);
	n = vmt_unpack_max(u, UINT16_MAX + 1);
	if (n && !u->err && grow_cpus(s, (uint32_t)n - 1))
		return -ENOMEM;
	for (uint32_t i = 0; i < n && !u->err; i++) {
		s->by_cpu[i] = vmt_unpack_u64(u);
		s->lost_by_cpu[i] = vmt_unpack_u64(u);
	}
	s->lost = vmt_unpack_u64(u);
	n = vmt_unpack_max(u, UINT32_MAX);
	for (uint64_t i = 0; i < n && !u->err; i++) {
		struct vmt_trace_process *q;
		const char *exe;
		size_t len;

		q = find_process(l, (uint32_t)vmt_unpack_max(u, UINT32_MAX), 0);
		if (!q)
			return -ENOMEM;
		q->records = vmt_unpack_u64(u);
		q->references = vmt_unpack_u64(u);
		q->writes = vmt_unpack_u64(u);
		q->evictions = vmt_unpack_u64(u);
		q->first_time = vmt_unpack_u64(u);
		q->last_time = vmt_unpack_u64(u);
		vmt_unpack_bytes(u, q->comm, sizeof(q->comm));
		exe = vmt_unpack_span(u, &len);
		if (exe && len) {
			if (exe[len - 1] != '\0')
				return -EBADMSG;
			q->exe = strdup(exe);
			if (!q->exe)
				return -ENOMEM;
		}
	}
	if (vmt_unpack_u64(u) != s->nr_buckets)
		return -EBADMSG;
	for (uint32_t i = 0; i < s->nr_buckets; i++)
		s->bucket_references[i] = vmt_unpack_u64(u);
	for (unsigned int i = 0; i < 8; i++)
		s->exact_by_access[i] = vmt_unpack_u64(u);
	s->exact_kernel = vmt_unpack_u64(u);
	n = vmt_unpack_u64(u);
	for (uint64_t i = 0; i < n && !u->err; i++) {
		struct page_slot q;
		struct page_slot *slot;
		int is_new;

		q.pid = (uint32_t)vmt_unpack_max(u, UINT32_MAX);
		q.address = vmt_unpack_max(u, UINT64_MAX - 1);
		slot = u->err ? NULL : table_find(&l->pages, q.pid, q.address, &is_new);
		if (!u->err && !slot)
			return -ENOMEM;
		if (slot && !is_new)
			return -EBADMSG;
		if (slot) {
			slot->references = vmt_unpack_u64(u);
			slot->writes = vmt_unpack_u64(u);
		}
	}
	err = u->err;
	if (!err && u->p != u->end)
		err = -EBADMSG;
	return err;
}

int vmt_trace_summarizer_unpack_merge(struct vmt_trace_summarizer *z, const void *data,
				      size_t size)
{
	struct vmt_unpacker u = { .p = data, .end = (const uint8_t *)data + size };
	struct vmt_trace_summarizer *l = calloc(1, sizeof(*l));
	int err = -ENOMEM;

	if (!l)
		return -ENOMEM;
	l->s = calloc(1, sizeof(*l->s));
	if (l->s) {
		*l->s = (struct vmt_trace_summary){
			.first_time = z->s->first_time, .last_time = z->s->last_time,
			.nr_buckets = z->s->nr_buckets, .bucket_ns = z->s->bucket_ns,
		};
		l->s->bucket_references = calloc(z->s->nr_buckets, sizeof(uint64_t));
	}
	if (l->s && l->s->bucket_references)
		err = unpack_summary(&u, l);
	if (!err)
		err = vmt_trace_summarizer_merge(z, l);
	vmt_trace_summarizer_free(l);
	return err;
}

int vmt_trace_summarizer_finish(struct vmt_trace_summarizer *z,
				struct vmt_trace_summary **summary)
{
	int ret = keep_top_pages(z, z->top);

	*summary = NULL;
	if (ret) {
		vmt_trace_summarizer_free(z);
		return ret;
	}
	if (z->s->nr_processes)
		qsort(z->s->processes, z->s->nr_processes, sizeof(*z->s->processes),
		      by_references);
	if (!z->s->records)
		z->s->first_time = z->s->last_time = 0;
	*summary = z->s;
	z->s = NULL;
	vmt_trace_summarizer_free(z);
	return 0;
}

void vmt_trace_summarizer_free(struct vmt_trace_summarizer *z)
{
	if (!z)
		return;
	vmt_trace_summary_free(z->s);
	free(z->pages.slots);
	free(z);
}

int vmt_trace_summarize(struct vmt_trace *trace, const struct vmt_trace_summary_options *options,
			struct vmt_trace_summary **summary)
{
	struct vmt_trace_summarizer *z;
	int ret;

	*summary = NULL;
	ret = vmt_trace_summarizer_create(trace, options, &z);
	if (ret)
		return ret;
	ret = vmt_trace_summarizer_read(z);
	if (ret) {
		vmt_trace_summarizer_free(z);
		return ret;
	}
	return vmt_trace_summarizer_finish(z, summary);
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
