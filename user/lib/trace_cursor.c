// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Cursors: the records of every record stream of a trace, one at a time,
 * in the order the writer received them (through the order stream) or
 * merged by time. They reach entries through vmt_trace_read(), so each
 * stream's frames are decoded once, in turn.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "trace_format.h"

struct vmt_trace_cursor {
	struct vmt_trace *trace;
	enum vmt_trace_order order;
	uint32_t nr_streams;
	uint64_t *entries;		/* per stream: its entry count */
	uint64_t *next;			/* per stream: the next entry to return */
	/* VMT_ORDER_WRITTEN: the order stream's next run */
	int order_stream;
	uint64_t next_run;
	uint32_t run_stream, run_left;
	/* VMT_ORDER_TIME: each record stream's next record, once read */
	struct vmt_record *heads;
	bool *head_valid;
	struct vmt_record record;
};

static bool is_record_stream(const struct vmt_trace *t, uint32_t stream_id)
{
	return vmt_trace_stream(t, stream_id)->kind == VMT_STREAM_RECORDS;
}

int vmt_trace_cursor_create(struct vmt_trace *t, enum vmt_trace_order order,
			    struct vmt_trace_cursor **cursor)
{
	struct vmt_trace_cursor *c = calloc(1, sizeof(*c));
	size_t n = vmt_trace_nr_streams(t) + 1;

	*cursor = NULL;
	if (order != VMT_ORDER_WRITTEN && order != VMT_ORDER_TIME) {
		free(c);
		return vmt_trace_fail(t, -EINVAL, "unknown order %d", order);
	}
	if (!c)
		return vmt_trace_fail(t, -ENOMEM, "out of memory");
	c->entries = calloc(n, sizeof(*c->entries));
	c->next = calloc(n, sizeof(*c->next));
	c->heads = calloc(n, sizeof(*c->heads));
	c->head_valid = calloc(n, sizeof(*c->head_valid));
	if (!c->entries || !c->next || !c->heads || !c->head_valid) {
		vmt_trace_cursor_free(c);
		return vmt_trace_fail(t, -ENOMEM, "out of memory");
	}
	c->trace = t;
	c->order = order;
	c->nr_streams = vmt_trace_nr_streams(t);
	c->order_stream = -1;
	for (uint32_t i = 0; i < c->nr_streams; i++) {
		struct vmt_trace_stream_stats st;

		vmt_trace_stream_stats(t, i, &st);
		c->entries[i] = st.entries;
		if (vmt_trace_stream(t, i)->kind == VMT_STREAM_ORDER)
			c->order_stream = (int)i;
	}
	*cursor = c;
	return 0;
}

void vmt_trace_cursor_free(struct vmt_trace_cursor *c)
{
	if (!c)
		return;
	free(c->entries);
	free(c->next);
	free(c->heads);
	free(c->head_valid);
	free(c);
}

static int cursor_take(struct vmt_trace_cursor *c, uint32_t stream_id,
		       const struct vmt_record **record, uint32_t *out_stream)
{
	int err = vmt_trace_read(c->trace, stream_id, c->next[stream_id], &c->record);

	if (err)
		return err;
	c->next[stream_id]++;
	*record = &c->record;
	*out_stream = stream_id;
	return 1;
}

static int cursor_next_by_time(struct vmt_trace_cursor *c, const struct vmt_record **record,
			       uint32_t *stream_id)
{
	struct vmt_trace *t = c->trace;
	int best = -1;

	for (uint32_t i = 0; i < c->nr_streams; i++) {
		if (!is_record_stream(t, i) || c->next[i] >= c->entries[i])
			continue;
		if (!c->head_valid[i]) {
			int err = vmt_trace_read(t, i, c->next[i], &c->heads[i]);

			if (err)
				return err;
			c->head_valid[i] = true;
		}
		if (best < 0 || c->heads[i].hdr.time_ns < c->heads[best].hdr.time_ns)
			best = (int)i;
	}
	if (best < 0)
		return 0;
	c->record = c->heads[best];
	c->head_valid[best] = false;
	c->next[best]++;
	*record = &c->record;
	*stream_id = (uint32_t)best;
	return 1;
}

int vmt_trace_cursor_next(struct vmt_trace_cursor *c, const struct vmt_record **record,
			  uint32_t *stream_id)
{
	struct vmt_trace *t = c->trace;

	while (c->order == VMT_ORDER_WRITTEN && c->order_stream >= 0) {
		struct vmt_trace_order_run run;
		uint8_t entry[sizeof(run)];
		int err;

		if (c->run_left) {
			/* A killed writer's runs may name records whose frame it never wrote. */
			if (c->next[c->run_stream] >= c->entries[c->run_stream]) {
				c->run_left = 0;
				continue;
			}
			c->run_left--;
			return cursor_take(c, c->run_stream, record, stream_id);
		}
		if (c->next_run >= c->entries[c->order_stream])
			break;
		err = vmt_trace_read(t, (uint32_t)c->order_stream, c->next_run, entry);
		if (err)
			return err;
		run.stream_id = vmt_get32(entry);
		run.count = vmt_get32(entry + 4);
		if (run.stream_id >= c->nr_streams || !is_record_stream(t, run.stream_id))
			return vmt_trace_fail(t, -EBADMSG,
					      "order stream entry %llu names stream %u, not a record stream",
					      (unsigned long long)c->next_run, run.stream_id);
		c->next_run++;
		c->run_stream = run.stream_id;
		c->run_left = run.count;
	}
	/* Records the order stream does not cover come by time. */
	return cursor_next_by_time(c, record, stream_id);
}
