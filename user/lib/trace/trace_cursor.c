// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Cursors: the records of every record stream of a trace, one at a time,
 * in the order the writer received them (through the order stream) or
 * merged by time, through the trace's filter (vmt_trace_set_filter()). They
 * reach entries through vmt_trace_read(), so each stream's frames are
 * decoded once, in turn.
 *
 * The filter narrows the work before it narrows the output: a stream of a
 * type or CPU left out is never read (in written order its runs are
 * stepped over by count), and a time range bounds each time-sorted stream
 * to [start, end) entries found with vmt_trace_seek_time(), so that no
 * frame before the range is decoded and the cursor ends when every stream
 * has passed its end. Pids, and times in streams that are not time-sorted,
 * are checked record by record.
 *
 * By time, a stream that is not time-sorted (the model codec's "mem", every
 * CPU's records in the order they were drained) is read through a time
 * view: its frames are loaded in turn into a heap, and its least record
 * leaves the heap once no frame still to load holds an earlier one, which
 * the frames' least times (VMT_FRAME_TIME_RANGE) tell. Each CPU's records
 * come in time order and the collector drains every ring in turn, so the
 * heap holds about a frame or two.
 *
 *   stream 3: |----frame----|----frame----|----frame----|----frame----|
 *                                 ^start (from)       ^end (first after to)
 *
 * A loop stream (VMT_STREAM_LOOPS: one thread's exact accesses as loop
 * descriptors) is read as a record stream of the records the "loops"
 * stream gives it, replayed in turn by its loop reader (loop_reader.c);
 * its entries are those records, not its bytes. When a loop stream's
 * times were not kept, the cursor reads the trace in written order,
 * whichever order it was asked for: the order stream's runs are then the
 * only order the exact accesses have, across threads and other records.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>

#include "trace/loop_reader.h"
#include "trace/trace_reader.h"

/* A record of a time view, and its place in the stream (ties go to the earlier). */
struct view_entry {
	struct vmt_record record;
	uint64_t index;
};

/* VMT_ORDER_TIME over a stream that is not time-sorted (see the top). */
struct time_view {
	struct view_entry *heap;	/* least (time, index) first */
	uint32_t len, capacity;
	uint64_t next_frame, nr_frames;
	uint64_t *least_after;		/* [k]: least time in frames k.., UINT64_MAX past them */
};

struct cursor_stream {
	struct time_view *view;		/* NULL but for a stream read through one */
	struct vmt_loop_reader *loop;	/* a loop stream's; NULL for any other */
	uint64_t entries;
	uint64_t next;			/* the next entry to return or pass over */
	uint64_t start, end;		/* the entries the filter's time range may pass */
	bool records;			/* a record stream the filter does not leave out */
	bool head_valid;		/* VMT_ORDER_TIME: @head is entry @next */
	struct vmt_record head;
};

struct vmt_trace_cursor {
	struct vmt_trace *trace;
	enum vmt_trace_order order;
	struct vmt_trace_filter filter;	/* zeroed when the trace has none */
	struct vmt_trace_filter *filter_copy;	/* the cursor's copy, its lists within */
	uint32_t nr_streams;
	struct cursor_stream *streams;
	/* Entries in the streams' [start, end) ranges not yet returned or passed over. */
	uint64_t remaining;
	/* VMT_ORDER_WRITTEN: the order stream's next run */
	int order_stream;
	uint64_t next_run;
	uint32_t run_stream, run_left;
};

static bool in_list(const uint32_t *list, uint32_t n, uint32_t value)
{
	for (uint32_t i = 0; i < n; i++)
		if (list[i] == value)
			return true;
	return false;
}

/* Of the types, only these have an address, and all but evictions an ip. */
#define RANGE_TYPES	(1u << VMT_REC_REFERENCE | 1u << VMT_REC_EVICT | 1u << VMT_REC_EXACT)

static bool type_passes(const struct vmt_trace_filter *f, uint32_t type)
{
	uint32_t types = f->types ? f->types : UINT32_MAX;

	if (!f->types && !f->nr_addrs && !f->nr_ips)
		return true;
	if (f->nr_addrs || f->nr_ips)
		types &= f->nr_ips ? RANGE_TYPES & ~(1u << VMT_REC_EVICT) : RANGE_TYPES;
	return type < 32 && (types & (1u << type));
}

/* A stream of mixed types (VMT_TRACE_ANY_TYPE) is read; its records are filtered. */
static bool stream_type_passes(const struct vmt_trace_filter *f, uint32_t type)
{
	return type == VMT_TRACE_ANY_TYPE || type_passes(f, type);
}

static bool in_ranges(const struct vmt_trace_range *r, uint32_t n, uint64_t value)
{
	for (uint32_t i = 0; i < n; i++)
		if (value >= r[i].start && value < r[i].end)
			return true;
	return false;
}

/* The filter's address and ip ranges (struct vmt_trace_filter says which records have them). */
static bool ranges_pass(const struct vmt_trace_filter *f, const struct vmt_record *r)
{
	uint64_t addr, ip;
	bool has_ip = true;

	switch (r->hdr.type) {
	case VMT_REC_REFERENCE:
		addr = r->ref.vaddr;
		ip = r->ref.ip;
		break;
	case VMT_REC_EVICT:
		addr = r->ref.vaddr;
		ip = 0;
		has_ip = false;
		break;
	case VMT_REC_EXACT:
		addr = r->exact.addr;
		ip = r->exact.ip;
		break;
	default:
		return false;
	}
	return (!f->nr_addrs || in_ranges(f->addrs, f->nr_addrs, addr)) &&
	       (!f->nr_ips || (has_ip && in_ranges(f->ips, f->nr_ips, ip)));
}

/* Whether @r lies in one of its process's phases: the last that starts at or before it. */
static bool in_phase(const struct vmt_trace_filter *f, const struct vmt_record *r)
{
	uint32_t lo = 0, hi = f->nr_phases;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct vmt_trace_phase *p = &f->phases[mid];

		if (p->pid < r->hdr.pid || (p->pid == r->hdr.pid && p->start <= r->hdr.time_ns))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && f->phases[lo - 1].pid == r->hdr.pid && r->hdr.time_ns < f->phases[lo - 1].end;
}

static bool record_passes(const struct vmt_trace_filter *f, const struct vmt_record *r)
{
	return type_passes(f, r->hdr.type) &&
	       (!f->nr_pids || in_list(f->pids, f->nr_pids, r->hdr.pid)) &&
	       (!f->nr_cpus || in_list(f->cpus, f->nr_cpus, r->hdr.cpu)) &&
	       (!f->time_range ||
		(r->hdr.time_ns >= f->from_time && r->hdr.time_ns <= f->to_time)) &&
	       ((!f->nr_addrs && !f->nr_ips) || ranges_pass(f, r)) &&
	       (!f->nr_phases || in_phase(f, r));
}

/* A time-sorted stream's entries within the filter's time range: [s->start, s->end). */
static int bound_by_time(struct vmt_trace_cursor *c, uint32_t id, struct cursor_stream *s,
			 const struct vmt_trace_stream_stats *st)
{
	const struct vmt_trace_filter *f = &c->filter;
	int64_t i;

	/* The directory answers the ranges that start or end outside the stream. */
	if (f->from_time > st->last_time || f->to_time < st->first_time) {
		s->start = s->end = s->entries;
		return 0;
	}
	if (f->from_time > st->first_time) {
		i = vmt_trace_seek_time(c->trace, id, f->from_time);
		if (i < 0)
			return (int)i;
		s->start = (uint64_t)i;
	}
	if (f->to_time < st->last_time) {
		i = vmt_trace_seek_time(c->trace, id, f->to_time + 1);
		if (i < 0)
			return (int)i;
		s->end = (uint64_t)i;
	}
	return 0;
}

/* Loop stream @th->stream_id, as a record stream of its records. */
static int init_loop_stream(struct vmt_trace_cursor *c, const struct vmt_trace_loops_thread *th)
{
	struct cursor_stream *s = &c->streams[th->stream_id];

	s->entries = s->end = th->records;
	if (!type_passes(&c->filter, VMT_REC_EXACT))
		return 0;
	s->records = true;
	c->remaining += s->entries;
	return vmt_loop_reader_open(c->trace, th, &s->loop);
}

static int init_stream(struct vmt_trace_cursor *c, uint32_t id)
{
	const struct vmt_trace_stream_info *info = vmt_trace_stream(c->trace, id);
	struct cursor_stream *s = &c->streams[id];
	struct vmt_trace_stream_stats st;
	int err;

	vmt_trace_stream_stats(c->trace, id, &st);
	s->entries = st.entries;
	s->end = st.entries;
	if (info->kind == VMT_STREAM_ORDER)
		c->order_stream = (int)id;
	if (info->kind == VMT_STREAM_LOOPS)
		return 0;	/* init_loop_stream()'s */
	if (info->kind != VMT_STREAM_RECORDS ||
	    !stream_type_passes(&c->filter, info->record_type) ||
	    (c->filter.nr_cpus && info->cpu != VMT_TRACE_ANY_CPU &&
	     !in_list(c->filter.cpus, c->filter.nr_cpus, info->cpu)))
		return 0;
	s->records = true;
	if (c->filter.time_range && st.time_sorted && st.entries) {
		/* Seeking decodes a frame or two: none ahead of them. */
		vmt_trace_read_ahead_limit(c->trace, id, 0);
		err = bound_by_time(c, id, s, &st);
		if (err)
			return err;
	}
	vmt_trace_read_ahead_limit(c->trace, id, s->end);
	c->remaining += s->end - s->start;
	return 0;
}

/*
 * A time view for stream @id when it needs one: a record stream read, not
 * time-sorted, whose frames all say their least time (version 3). Older
 * traces' unsorted streams are merged as they come.
 */
static int open_view(struct vmt_trace_cursor *c, uint32_t id)
{
	struct cursor_stream *s = &c->streams[id];
	struct vmt_trace_stream_stats st;
	struct time_view *v;
	uint64_t first, greatest;
	uint32_t count;

	vmt_trace_stream_stats(c->trace, id, &st);
	if (!s->records || s->loop || st.time_sorted || !st.frames)
		return 0;
	v = calloc(1, sizeof(*v));
	if (!v || !(v->least_after = malloc((st.frames + 1) * sizeof(uint64_t)))) {
		free(v);
		return vmt_trace_fail(c->trace, -ENOMEM, "out of memory");
	}
	v->nr_frames = st.frames;
	v->least_after[st.frames] = UINT64_MAX;
	for (uint64_t k = st.frames; k--;) {
		uint64_t least;

		if (vmt_trace_frame_span(c->trace, id, k, &first, &count, &least, &greatest)) {
			free(v->least_after);
			free(v);
			return 0;
		}
		v->least_after[k] = least < v->least_after[k + 1] ? least : v->least_after[k + 1];
	}
	s->view = v;
	return 0;
}

static bool view_before(const struct view_entry *a, const struct view_entry *b)
{
	return a->record.hdr.time_ns < b->record.hdr.time_ns ||
	       (a->record.hdr.time_ns == b->record.hdr.time_ns && a->index < b->index);
}

static void view_sift_down(struct time_view *v, uint32_t i)
{
	for (;;) {
		uint32_t least = i, l = 2 * i + 1, r = l + 1;
		struct view_entry t;

		if (l < v->len && view_before(&v->heap[l], &v->heap[least]))
			least = l;
		if (r < v->len && view_before(&v->heap[r], &v->heap[least]))
			least = r;
		if (least == i)
			return;
		t = v->heap[i];
		v->heap[i] = v->heap[least];
		v->heap[least] = t;
		i = least;
	}
}

static int view_push(struct vmt_trace_cursor *c, struct time_view *v, uint32_t id,
		     uint64_t index)
{
	uint32_t i;
	int err;

	if (v->len == v->capacity) {
		uint32_t capacity = v->capacity ? 2 * v->capacity : 4096;
		struct view_entry *heap = realloc(v->heap, (size_t)capacity * sizeof(*heap));

		if (!heap || capacity < v->capacity)
			return vmt_trace_fail(c->trace, -ENOMEM, "out of memory");
		v->heap = heap;
		v->capacity = capacity;
	}
	/* Read first: a failed read leaves the heap as it was. */
	i = v->len;
	err = vmt_trace_read(c->trace, id, index, &v->heap[i].record);
	if (err)
		return err;
	v->heap[i].index = index;
	v->len++;
	while (i && view_before(&v->heap[i], &v->heap[(i - 1) / 2])) {
		struct view_entry t = v->heap[i];

		v->heap[i] = v->heap[(i - 1) / 2];
		v->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

/* Frames into the heap until its least record is the stream's least left; 0 or -errno. */
static int view_fill(struct vmt_trace_cursor *c, uint32_t id)
{
	struct time_view *v = c->streams[id].view;

	while (v->next_frame < v->nr_frames &&
	       (!v->len || v->heap[0].record.hdr.time_ns > v->least_after[v->next_frame])) {
		const struct vmt_trace_filter *f = &c->filter;
		uint64_t first, least, greatest;
		uint32_t count;
		int err;

		/* A time range: no frame after it is read, none before it decoded. */
		if (f->time_range && v->least_after[v->next_frame] > f->to_time) {
			c->remaining -= c->streams[id].end - c->streams[id].next - v->len;
			c->streams[id].next = c->streams[id].end - v->len;
			v->next_frame = v->nr_frames;
			break;
		}
		vmt_trace_frame_span(c->trace, id, v->next_frame++, &first, &count, &least,
				     &greatest);
		if (f->time_range && greatest < f->from_time) {
			c->streams[id].next += count;
			c->remaining -= count;
			continue;
		}
		for (uint32_t i = 0; i < count; i++) {
			err = view_push(c, v, id, first + i);
			if (err)
				return err;
		}
	}
	return 0;
}

int vmt_trace_cursor_create(struct vmt_trace *t, enum vmt_trace_order order,
			    struct vmt_trace_cursor **cursor)
{
	const struct vmt_trace_filter *filter = vmt_trace_filter(t);
	struct vmt_trace_loops_thread *loops;
	struct vmt_trace_cursor *c;
	uint32_t nr_loops;
	int err;

	*cursor = NULL;
	if (order != VMT_ORDER_WRITTEN && order != VMT_ORDER_TIME)
		return vmt_trace_fail(t, -EINVAL, "unknown order %d", order);
	c = calloc(1, sizeof(*c));
	if (!c)
		return vmt_trace_fail(t, -ENOMEM, "out of memory");
	c->trace = t;
	c->order = order;
	c->nr_streams = vmt_trace_nr_streams(t);
	c->order_stream = -1;
	c->streams = calloc(c->nr_streams + 1, sizeof(*c->streams));
	if (filter) {
		/* A copy: the trace's may change while this cursor lives. */
		c->filter_copy = vmt_trace_filter_copy(filter);
		if (c->filter_copy)
			c->filter = *c->filter_copy;
	}
	if (!c->streams || (filter && !c->filter_copy)) {
		vmt_trace_cursor_free(c);
		return vmt_trace_fail(t, -ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < c->nr_streams; i++) {
		err = init_stream(c, i);
		if (err) {
			vmt_trace_cursor_free(c);
			return err;
		}
	}
	err = vmt_trace_loops(t, &loops, &nr_loops);
	for (uint32_t i = 0; !err && i < nr_loops; i++) {
		err = init_loop_stream(c, &loops[i]);
		if (!(loops[i].keep & VMT_LOOPS_KEEP_TIMES) && c->order_stream >= 0)
			c->order = order = VMT_ORDER_WRITTEN;
	}
	free(loops);
	if (err) {
		vmt_trace_cursor_free(c);
		return err;
	}
	/* In time order, a stream starts where its range does. */
	for (uint32_t i = 0; order == VMT_ORDER_TIME && i < c->nr_streams; i++) {
		c->streams[i].next = c->streams[i].start;
		err = open_view(c, i);
		if (err) {
			vmt_trace_cursor_free(c);
			return err;
		}
	}
	*cursor = c;
	return 0;
}

int vmt_trace_cursor_read(struct vmt_trace_cursor *c, struct vmt_record *records,
			  uint32_t *stream_ids, size_t max)
{
	size_t n = 0;

	if (max > INT_MAX)
		max = INT_MAX;
	while (n < max) {
		const struct vmt_record *r;
		uint32_t stream;
		int ret = vmt_trace_cursor_next(c, &r, &stream);

		if (ret < 0)
			return ret;
		if (!ret)
			break;
		records[n] = *r;
		if (stream_ids)
			stream_ids[n] = stream;
		n++;
	}
	return (int)n;
}

void vmt_trace_cursor_free(struct vmt_trace_cursor *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; c->streams && i < c->nr_streams; i++) {
		struct time_view *v = c->streams[i].view;

		vmt_loop_reader_free(c->streams[i].loop);
		if (v) {
			free(v->heap);
			free(v->least_after);
			free(v);
		}
	}
	free(c->streams);
	free(c->filter_copy);
	free(c);
}

/* Entry s->next of stream @id into s->head: 0 or -errno. */
static int read_head(struct vmt_trace_cursor *c, uint32_t id, struct cursor_stream *s)
{
	if (s->loop)
		return vmt_loop_reader_next(s->loop, &s->head);
	return vmt_trace_read(c->trace, id, s->next, &s->head);
}

/*
 * Entry s->next of stream @id, taken: 1 with the record when the filter
 * passes it, 0 when it does not.
 */
static int take(struct vmt_trace_cursor *c, uint32_t id, const struct vmt_record **record,
		uint32_t *stream_id)
{
	struct cursor_stream *s = &c->streams[id];

	if (s->view) {
		struct time_view *v = s->view;

		s->head = v->heap[0].record;
		v->heap[0] = v->heap[--v->len];
		view_sift_down(v, 0);
		s->next++;
		c->remaining--;
		goto taken;
	}
	if (!s->head_valid) {
		int err = read_head(c, id, s);

		if (err)
			return err;
	}
	s->head_valid = false;
	s->next++;
	c->remaining--;
taken:
	if (!record_passes(&c->filter, &s->head))
		return 0;
	/* The stream's head stays as it is until this stream is read again: after this call. */
	*record = &s->head;
	*stream_id = id;
	return 1;
}

static int next_by_time(struct vmt_trace_cursor *c, const struct vmt_record **record,
			uint32_t *stream_id)
{
	for (;;) {
		int best = -1, ret;

		for (uint32_t i = 0; i < c->nr_streams; i++) {
			struct cursor_stream *s = &c->streams[i];

			if (!s->records)
				continue;
			if (s->view) {
				int err = view_fill(c, i);

				if (err)
					return err;
				if (!s->view->len)
					continue;
				s->head = s->view->heap[0].record;
				s->head_valid = true;
			}
			if (s->next < s->start)
				s->next = s->start;
			if (s->next >= s->end)
				continue;
			if (!s->head_valid) {
				int err = read_head(c, i, s);

				if (err)
					return err;
				s->head_valid = true;
			}
			if (best < 0 || s->head.hdr.time_ns < c->streams[best].head.hdr.time_ns)
				best = (int)i;
		}
		if (best < 0)
			return 0;
		ret = take(c, (uint32_t)best, record, stream_id);
		if (ret)
			return ret;
	}
}

/*
 * The current run's next record in written order: 1 with it, 0 when it was
 * passed over (left out by the filter, or the run is over), or -errno.
 */
static int next_in_run(struct vmt_trace_cursor *c, const struct vmt_record **record,
		       uint32_t *stream_id)
{
	struct cursor_stream *s = &c->streams[c->run_stream];
	uint64_t skip;

	/* A killed writer's runs may name records whose frame it never wrote. */
	if (s->next >= s->entries) {
		c->run_left = 0;
		return 0;
	}
	if (s->records && s->next >= s->start && s->next < s->end) {
		c->run_left--;
		return take(c, c->run_stream, record, stream_id);
	}
	/* Outside the range: step over as much of the run as lies outside it, unread. */
	skip = c->run_left;
	if (s->records && s->next < s->start && s->start - s->next < skip)
		skip = s->start - s->next;
	if (s->entries - s->next < skip)
		skip = s->entries - s->next;
	s->next += skip;
	c->run_left -= (uint32_t)skip;
	return 0;
}

int vmt_trace_cursor_next(struct vmt_trace_cursor *c, const struct vmt_record **record,
			  uint32_t *stream_id)
{
	struct vmt_trace *t = c->trace;

	while (c->order == VMT_ORDER_WRITTEN && c->order_stream >= 0 && c->remaining) {
		uint8_t entry[sizeof(struct vmt_trace_order_run)];
		uint32_t run_stream;
		int err;

		if (c->run_left) {
			err = next_in_run(c, record, stream_id);
			if (err)
				return err;
			continue;
		}
		if (c->next_run >= c->streams[c->order_stream].entries)
			break;
		err = vmt_trace_read(t, (uint32_t)c->order_stream, c->next_run, entry);
		if (err)
			return err;
		run_stream = vmt_get32(entry);
		if (run_stream >= c->nr_streams ||
		    (vmt_trace_stream(t, run_stream)->kind != VMT_STREAM_RECORDS &&
		     vmt_trace_stream(t, run_stream)->kind != VMT_STREAM_LOOPS))
			return vmt_trace_fail(t, -EBADMSG,
					      "order stream entry %llu names stream %u, not a record stream",
					      (unsigned long long)c->next_run, run_stream);
		c->next_run++;
		c->run_stream = run_stream;
		c->run_left = vmt_get32(entry + 4);
	}
	if (!c->remaining)
		return 0;
	/* Records the order stream does not cover come by time. */
	return next_by_time(c, record, stream_id);
}
