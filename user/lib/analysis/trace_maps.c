// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Attributing references to mappings from the trace alone: the VMA records
 * (the state dump, exec, and the address-space system calls) are replayed
 * in time order into a map per process, FORK records give a child its
 * parent's map, and each reference is looked up in its process's map as it
 * was at that moment.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <vmtrace/trace.h>

struct mapping {
	uint64_t start, end;
	uint32_t label;			/* index into the labels */
};

struct process_map {
	uint32_t pid;
	struct mapping *maps;		/* sorted by start, not overlapping */
	uint32_t nr, cap;
};

struct attributor {
	struct process_map *procs;
	uint32_t nr_procs, cap_procs;
	struct vmt_trace_mapping_count *labels;
	uint32_t nr_labels, cap_labels;
};

static struct process_map *process_of(struct attributor *a, uint32_t pid, bool create)
{
	struct process_map *grown;

	for (uint32_t i = 0; i < a->nr_procs; i++)
		if (a->procs[i].pid == pid)
			return &a->procs[i];
	if (!create)
		return NULL;
	if (a->nr_procs == a->cap_procs) {
		a->cap_procs = a->cap_procs ? 2 * a->cap_procs : 16;
		grown = realloc(a->procs, a->cap_procs * sizeof(*grown));
		if (!grown)
			return NULL;
		a->procs = grown;
	}
	memset(&a->procs[a->nr_procs], 0, sizeof(a->procs[0]));
	a->procs[a->nr_procs].pid = pid;
	return &a->procs[a->nr_procs++];
}

static int insert_at(struct process_map *p, uint32_t i, const struct mapping *m)
{
	struct mapping *grown;

	if (p->nr == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 32;
		grown = realloc(p->maps, p->cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		p->maps = grown;
	}
	memmove(&p->maps[i + 1], &p->maps[i], (p->nr - i) * sizeof(*grown));
	p->maps[i] = *m;
	p->nr++;
	return 0;
}

/* Empty [start, end): trim or split the mappings overlapping it. */
static int unmap_range(struct process_map *p, uint64_t start, uint64_t end)
{
	struct mapping tail;

	for (uint32_t i = 0; i < p->nr; i++) {
		struct mapping *m = &p->maps[i];

		if (m->end <= start || m->start >= end)
			continue;
		if (m->start < start && m->end > end) {
			tail = *m;
			tail.start = end;
			m->end = start;
			return insert_at(p, i + 1, &tail);
		}
		if (m->start < start) {
			m->end = start;
		} else if (m->end > end) {
			m->start = end;
		} else {
			memmove(m, m + 1, (p->nr - i - 1) * sizeof(*m));
			p->nr--;
			i--;
		}
	}
	return 0;
}

static int map_range(struct process_map *p, const struct mapping *m)
{
	uint32_t i = 0;
	int err = unmap_range(p, m->start, m->end);

	if (err)
		return err;
	while (i < p->nr && p->maps[i].start < m->start)
		i++;
	return insert_at(p, i, m);
}

static const struct mapping *lookup(const struct process_map *p, uint64_t addr)
{
	uint32_t lo = 0, hi = p->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nr && p->maps[lo].start <= addr ? &p->maps[lo] : NULL;
}

/* The label of a MAP record: "[heap]", "[anon]", a file's path... */
static int label_of(struct attributor *a, struct vmt_trace *t, const struct vmt_record *rec)
{
	static const char *const kinds[] = { "[anon]", NULL, "[heap]", "[stack]", NULL };
	static char data[VMT_MAX_DATA_LEN + 1];
	struct vmt_trace_mapping_count *grown;
	const char *name = data;
	int len;

	if (rec->vma.kind < 5 && kinds[rec->vma.kind]) {
		name = kinds[rec->vma.kind];
	} else {
		len = vmt_trace_record_data(t, rec, data, VMT_MAX_DATA_LEN);
		if (len < 0)
			return len;
		data[len] = 0;
		if (!len)
			name = "[unnamed]";
	}
	for (uint32_t i = 0; i < a->nr_labels; i++)
		if (!strcmp(a->labels[i].name, name))
			return (int)i;
	if (a->nr_labels == a->cap_labels) {
		a->cap_labels = a->cap_labels ? 2 * a->cap_labels : 32;
		grown = realloc(a->labels, a->cap_labels * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		a->labels = grown;
	}
	memset(&a->labels[a->nr_labels], 0, sizeof(*grown));
	a->labels[a->nr_labels].name = strdup(name);
	if (!a->labels[a->nr_labels].name)
		return -ENOMEM;
	a->labels[a->nr_labels].kind = rec->vma.kind;
	return (int)a->nr_labels++;
}

static int fork_map(struct attributor *a, uint32_t parent, uint32_t child)
{
	struct process_map *c, *p;

	c = process_of(a, child, true);
	if (!c)
		return -ENOMEM;
	c->nr = 0;
	p = process_of(a, parent, false);
	if (!p || !p->nr)
		return 0;
	if (c->cap < p->nr) {
		struct mapping *grown = realloc(c->maps, p->nr * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		c->maps = grown;
		c->cap = p->nr;
	}
	memcpy(c->maps, p->maps, p->nr * sizeof(*c->maps));
	c->nr = p->nr;
	return 0;
}

static int by_references(const void *x, const void *y)
{
	const struct vmt_trace_mapping_count *a = x, *b = y;

	if (a->references != b->references)
		return a->references > b->references ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int attribute_one(struct attributor *a, struct vmt_trace *t,
			 const struct vmt_record *rec, struct vmt_trace_attribution *out)
{
	struct process_map *p;
	const struct mapping *m;
	struct mapping add;
	int label;

	switch (rec->hdr.type) {
	case VMT_REC_REFERENCE:
		out->references++;
		p = process_of(a, rec->hdr.pid, false);
		m = p ? lookup(p, rec->ref.vaddr) : NULL;
		if (m) {
			out->attributed++;
			a->labels[m->label].references++;
		}
		return 0;
	case VMT_REC_FORK:
		return rec->fork.child_pid == rec->hdr.pid ? 0 :
		       fork_map(a, rec->hdr.pid, rec->fork.child_pid);
	case VMT_REC_EXEC:
		p = process_of(a, rec->hdr.pid, false);
		if (p)
			p->nr = 0;
		return 0;
	case VMT_REC_VMA:
		p = process_of(a, rec->hdr.pid, true);
		if (!p)
			return -ENOMEM;
		if (rec->vma.op == VMT_VMA_UNMAP)
			return unmap_range(p, rec->vma.start, rec->vma.end);
		label = label_of(a, t, rec);
		if (label < 0)
			return label;
		add.start = rec->vma.start;
		add.end = rec->vma.end;
		add.label = (uint32_t)label;
		return map_range(p, &add);
	}
	return 0;
}

int vmt_trace_attribute(struct vmt_trace *trace, struct vmt_trace_attribution **result)
{
	struct vmt_trace_attribution *out = calloc(1, sizeof(*out));
	struct attributor a = { 0 };
	struct vmt_trace_cursor *cursor = NULL;
	const struct vmt_record *rec;
	uint32_t stream;
	int n, err;

	if (!out)
		return -ENOMEM;
	err = vmt_trace_cursor_create(trace, VMT_ORDER_TIME, &cursor);
	while (!err && (n = vmt_trace_cursor_next(cursor, &rec, &stream)) > 0)
		err = attribute_one(&a, trace, rec, out);
	if (!err && n < 0)
		err = n;
	vmt_trace_cursor_free(cursor);
	for (uint32_t i = 0; i < a.nr_procs; i++)
		free(a.procs[i].maps);
	free(a.procs);
	if (err) {
		out->mappings = a.labels;
		out->nr_mappings = a.nr_labels;
		vmt_trace_attribution_free(out);
		return err;
	}
	qsort(a.labels, a.nr_labels, sizeof(*a.labels), by_references);
	out->mappings = a.labels;
	out->nr_mappings = a.nr_labels;
	*result = out;
	return 0;
}

void vmt_trace_attribution_free(struct vmt_trace_attribution *attribution)
{
	if (!attribution)
		return;
	for (uint32_t i = 0; i < attribution->nr_mappings; i++)
		free(attribution->mappings[i].name);
	free(attribution->mappings);
	free(attribution);
}
