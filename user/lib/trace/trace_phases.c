// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Phases between markers (vmt_trace_marker_phases()): each process's
 * markers read in time order through a cursor that passes markers alone,
 * a phase opened at a marker @first and closed at the process's next
 * marker @last (or any, VMT_TRACE_ANY_MARKER), the ones left open closed
 * at the trace's end. What HMTT's I-Code events mark: the stretch of one
 * program's run to analyse alone.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "vmtrace/trace.h"
#include "trace/trace_reader.h"

/* A process's open phase: where it began, or none. */
struct open_phase {
	uint32_t pid;
	bool open;
	uint64_t start;
};

static int by_pid_then_start(const void *a, const void *b)
{
	const struct vmt_trace_phase *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The process's entry in @open (added, closed, when new), or NULL out of memory. */
static struct open_phase *find_open(struct open_phase **open, uint32_t *n, uint32_t *room,
				    uint32_t pid)
{
	for (uint32_t i = 0; i < *n; i++)
		if ((*open)[i].pid == pid)
			return &(*open)[i];
	if (*n == *room) {
		uint32_t grown = *room ? 2 * *room : 16;
		struct open_phase *p = realloc(*open, grown * sizeof(*p));

		if (!p)
			return NULL;
		*open = p;
		*room = grown;
	}
	(*open)[*n] = (struct open_phase){ .pid = pid };
	return &(*open)[(*n)++];
}

static int add_phase(struct vmt_trace_phase **out, uint32_t *n, uint32_t *room, uint32_t pid,
		     uint64_t start, uint64_t end)
{
	if (*n == *room) {
		uint32_t grown = *room ? 2 * *room : 64;
		struct vmt_trace_phase *p;

		if (grown < *room)
			return -E2BIG;
		p = realloc(*out, grown * sizeof(*p));
		if (!p)
			return -ENOMEM;
		*out = p;
		*room = grown;
	}
	(*out)[(*n)++] = (struct vmt_trace_phase){ .pid = pid, .start = start, .end = end };
	return 0;
}

/* The phases, the trace's filter already set to markers alone. */
static int scan(struct vmt_trace *t, uint32_t first, uint32_t last,
		struct vmt_trace_phase **phases, uint32_t *nr_phases)
{
	struct open_phase *open = NULL;
	uint32_t nr_open = 0, open_room = 0, n = 0, room = 0;
	struct vmt_trace_phase *out = NULL;
	const struct vmt_record *r;
	struct vmt_trace_cursor *c;
	uint32_t stream;
	int err;

	err = vmt_trace_cursor_create(t, VMT_ORDER_TIME, &c);
	if (err)
		return err;
	while ((err = vmt_trace_cursor_next(c, &r, &stream)) == 1) {
		struct open_phase *p = find_open(&open, &nr_open, &open_room, r->hdr.pid);
		uint32_t id = r->marker.id;

		err = -ENOMEM;
		if (!p)
			break;
		err = 0;
		if (p->open && (last == VMT_TRACE_ANY_MARKER || id == last)) {
			/* An empty phase (two markers at one time) holds nothing: none. */
			if (r->hdr.time_ns > p->start)
				err = add_phase(&out, &n, &room, p->pid, p->start, r->hdr.time_ns);
			p->open = false;
		}
		if (!err && !p->open && id == first) {
			p->open = true;
			p->start = r->hdr.time_ns;
		}
		if (err)
			break;
	}
	vmt_trace_cursor_free(c);
	for (uint32_t i = 0; err >= 0 && i < nr_open; i++)
		if (open[i].open)
			err = add_phase(&out, &n, &room, open[i].pid, open[i].start, UINT64_MAX);
	free(open);
	if (err >= 0 && !n)
		err = -ENOENT;
	if (err < 0) {
		free(out);
		return err;
	}
	qsort(out, n, sizeof(*out), by_pid_then_start);
	*phases = out;
	*nr_phases = n;
	return 0;
}

int vmt_trace_marker_phases(struct vmt_trace *trace, uint32_t first, uint32_t last,
			    struct vmt_trace_phase **phases, uint32_t *nr_phases)
{
	const struct vmt_trace_filter *had = vmt_trace_filter(trace);
	struct vmt_trace_filter markers = { .types = 1u << VMT_REC_MARKER };
	struct vmt_trace_filter *saved = NULL;
	int err;

	*phases = NULL;
	*nr_phases = 0;
	if (had) {
		saved = vmt_trace_filter_copy(had);
		if (!saved)
			return -ENOMEM;
	}
	err = vmt_trace_set_filter(trace, &markers);
	if (!err)
		err = scan(trace, first, last, phases, nr_phases);
	/* The caller's filter back: it was valid, and its copy is made before the scan's. */
	vmt_trace_set_filter(trace, saved);
	free(saved);
	return err;
}
