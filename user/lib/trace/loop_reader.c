// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Loop streams, read: the "loops" stream's list of threads checked against
 * the streams it names (vmt_trace_loops()), and one thread's descriptors
 * replayed by the loop decoder (codec/loop_codec.h) from the stream's
 * bytes, a frame at a time as vmt_trace_read() decodes them, into exact
 * records: the thread's pid and tid, type VMT_REC_EXACT, time 0 and no
 * value unless the side stream kept them. A thread of a loop set
 * (codec/loop_sets.h: its own stream empty) replays the set's first
 * thread's descriptors, moved to its bases and CPUs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codec/loop_codec.h"
#include "codec/loop_sets.h"
#include "format/trace_format.h"
#include "trace/loop_reader.h"
#include "trace/trace_reader.h"

struct vmt_loop_reader {
	struct vmt_trace *trace;
	struct vmt_trace_loops_thread thread;
	struct vmt_loop_set_member set;	/* rank 0: no set, or its first thread */
	uint32_t from;			/* the stream its descriptors are read from */
	uint64_t bytes, pos;		/* the stream's, and the next to hand the decoder */
	uint64_t next;			/* the next record */
	struct vmt_loop_decoder *decoder;
};

/* A side stream fit for @th: 32-byte opaque entries, one a record. */
static int check_side(struct vmt_trace *t, const struct vmt_trace_loops_thread *th)
{
	const struct vmt_trace_stream_info *side;
	struct vmt_trace_stream_stats st;

	if (th->side_stream_id == VMT_TRACE_NO_TIME)
		return th->keep ? -EBADMSG : 0;
	if (th->side_stream_id >= vmt_trace_nr_streams(t))
		return -EBADMSG;
	side = vmt_trace_stream(t, th->side_stream_id);
	vmt_trace_stream_stats(t, th->side_stream_id, &st);
	return side->kind == VMT_STREAM_OPAQUE && side->entry_size == VMT_LOOPS_SIDE_SIZE &&
	       st.entries == th->records ? 0 : -EBADMSG;
}

/*
 * Every loop stream in the list: the list is written when the writer closes
 * the trace, so loop streams it does not name are a writer's that died (a
 * file made whole again by vmt_trace_repair()). Their accesses cannot be
 * read: said, not passed over.
 */
static int unlisted(struct vmt_trace *t, const struct vmt_trace_loops_thread *list, uint32_t n)
{
	uint32_t missing = 0, first = 0;

	for (uint32_t i = vmt_trace_nr_streams(t); i-- > 0;) {
		uint32_t k = 0;

		if (vmt_trace_stream(t, i)->kind != VMT_STREAM_LOOPS)
			continue;
		while (k < n && list[k].stream_id != i)
			k++;
		if (k == n) {
			missing++;
			first = i;
		}
	}
	if (!missing)
		return 0;
	return vmt_trace_fail(t, -EBADMSG,
			      "%u loop streams (the first: %s) that the \"loops\" list does not name: their writer did not finish, and their exact accesses cannot be read (make them again from the source trace: vmtrace loops)",
			      missing, vmt_trace_stream(t, first)->name);
}

int vmt_trace_loops(struct vmt_trace *t, struct vmt_trace_loops_thread **threads,
		    uint32_t *nr_threads)
{
	struct vmt_trace_stream_stats st;
	struct vmt_trace_loops_thread *list;
	int id = vmt_trace_find_stream(t, "loops"), err;

	*threads = NULL;
	*nr_threads = 0;
	if (id < 0)
		return unlisted(t, NULL, 0);
	vmt_trace_stream_stats(t, (uint32_t)id, &st);
	if (vmt_trace_stream(t, (uint32_t)id)->entry_size != VMT_LOOPS_ENTRY_SIZE ||
	    st.entries > vmt_trace_nr_streams(t))
		return vmt_trace_fail(t, -EBADMSG, "the loops stream (%d) has %llu entries of %u bytes",
				      id, (unsigned long long)st.entries,
				      vmt_trace_stream(t, (uint32_t)id)->entry_size);
	list = calloc(st.entries + 1, sizeof(*list));
	if (!list)
		return vmt_trace_fail(t, -ENOMEM, "out of memory");
	for (uint64_t i = 0; i < st.entries; i++) {
		uint8_t entry[VMT_LOOPS_ENTRY_SIZE];
		const struct vmt_trace_loops_thread *th = &list[i];

		err = vmt_trace_read(t, (uint32_t)id, i, entry);
		if (err) {
			free(list);
			return err;
		}
		vmt_loops_entry_decode(entry, &list[i]);
		if (th->stream_id >= vmt_trace_nr_streams(t) ||
		    vmt_trace_stream(t, th->stream_id)->kind != VMT_STREAM_LOOPS ||
		    (th->keep & ~(VMT_LOOPS_KEEP_TIMES | VMT_LOOPS_KEEP_VALUES)) ||
		    check_side(t, th)) {
			/* Said before the list (and @th in it) is freed. */
			err = vmt_trace_fail(t, -EBADMSG,
					     "loops stream entry %llu: stream %u or its side stream %u is no loop stream of %llu records",
					     (unsigned long long)i, th->stream_id, th->side_stream_id,
					     (unsigned long long)th->records);
			free(list);
			return err;
		}
	}
	err = unlisted(t, list, (uint32_t)st.entries);
	if (err) {
		free(list);
		return err;
	}
	*threads = list;
	*nr_threads = (uint32_t)st.entries;
	return 0;
}

int vmt_trace_check_loops(struct vmt_trace *t)
{
	struct vmt_trace_loops_thread *threads;
	struct vmt_loop_reader *r;
	struct vmt_record rec;
	uint32_t n;
	int err = vmt_trace_loops(t, &threads, &n);

	for (uint32_t i = 0; !err && i < n; i++) {
		err = vmt_loop_reader_open(t, &threads[i], &r);
		for (uint64_t k = 0; !err && k < threads[i].records; k++)
			err = vmt_loop_reader_next(r, &rec);
		vmt_loop_reader_free(r);
	}
	free(threads);
	return err;
}

static int source(void *arg, uint8_t *buf, size_t max)
{
	struct vmt_loop_reader *r = arg;
	size_t n = 0;

	for (; n < max && r->pos < r->bytes; n++) {
		int err = vmt_trace_read(r->trace, r->from, r->pos++, buf + n);

		if (err)
			return err;
	}
	return (int)n;
}

/* A loop set's bytes are read whole: no set of a trace's threads comes near this. */
#define MAX_SET_BYTES	(16u << 20)

/*
 * The loop set that loop stream @id belongs to, if any: 1 with *@m, 0 when
 * none names it, or -errno with the message.
 */
static int find_set(struct vmt_trace *t, uint32_t id, struct vmt_loop_set_member *m)
{
	for (uint32_t i = 0; i < vmt_trace_nr_streams(t); i++) {
		struct vmt_trace_stream_stats st;
		uint8_t *bytes;
		char msg[128];
		int ret = 0;

		if (vmt_trace_stream(t, i)->kind != VMT_STREAM_LOOPSET)
			continue;
		vmt_trace_stream_stats(t, i, &st);
		if (st.entries > MAX_SET_BYTES)
			return vmt_trace_fail(t, -EBADMSG, "loop set %s: %llu bytes, more than %u",
					      vmt_trace_stream(t, i)->name,
					      (unsigned long long)st.entries, MAX_SET_BYTES);
		bytes = malloc(st.entries + 1);
		if (!bytes)
			return vmt_trace_fail(t, -ENOMEM, "out of memory");
		for (uint64_t k = 0; !ret && k < st.entries; k++)
			ret = vmt_trace_read(t, i, k, bytes + k);
		if (!ret)
			ret = vmt_loop_set_find(bytes, st.entries, id, m, msg, sizeof(msg));
		free(bytes);
		if (ret == -EBADMSG)
			return vmt_trace_fail(t, ret, "%s: %s", vmt_trace_stream(t, i)->name, msg);
		if (ret == -ENOMEM)
			return vmt_trace_fail(t, ret, "out of memory");
		if (ret < 0)
			return ret;
		if (!ret)
			continue;
		if (m->template_stream >= vmt_trace_nr_streams(t) ||
		    vmt_trace_stream(t, m->template_stream)->kind != VMT_STREAM_LOOPS) {
			vmt_loop_set_member_free(m);
			return vmt_trace_fail(t, -EBADMSG, "%s: its first thread's stream is no loop stream",
					      vmt_trace_stream(t, i)->name);
		}
		return 1;
	}
	return 0;
}

int vmt_loop_reader_open(struct vmt_trace *t, const struct vmt_trace_loops_thread *thread,
			 struct vmt_loop_reader **reader)
{
	struct vmt_trace_stream_stats st;
	struct vmt_loop_reader *r = calloc(1, sizeof(*r));
	int ret;

	*reader = NULL;
	if (!r || vmt_loop_decoder_create(&r->decoder, source, r)) {
		free(r);
		return vmt_trace_fail(t, -ENOMEM, "out of memory");
	}
	r->trace = t;
	r->thread = *thread;
	r->from = thread->stream_id;
	ret = find_set(t, thread->stream_id, &r->set);
	if (ret < 0) {
		vmt_loop_reader_free(r);
		return ret;
	}
	if (ret) {
		vmt_trace_stream_stats(t, thread->stream_id, &st);
		if (st.entries) {
			vmt_loop_reader_free(r);
			return vmt_trace_fail(t, -EBADMSG,
					      "loop stream %u: in a loop set, yet %llu bytes of its own",
					      thread->stream_id, (unsigned long long)st.entries);
		}
		r->from = r->set.template_stream;
		vmt_loop_decoder_rebase(r->decoder, r->set.nr_keys, r->set.shift, r->set.cpu);
	}
	vmt_trace_stream_stats(t, r->from, &st);
	r->bytes = st.entries;
	*reader = r;
	return 0;
}

int vmt_loop_reader_set(const struct vmt_loop_reader *r, uint32_t *template_stream,
			uint32_t *rank, uint32_t *nr_ranks)
{
	if (!r->set.rank)
		return 0;
	*template_stream = r->set.template_stream;
	*rank = r->set.rank;
	*nr_ranks = r->set.nr_ranks;
	return 1;
}

int vmt_loop_reader_next(struct vmt_loop_reader *r, struct vmt_record *record)
{
	struct vmt_loop_access a;
	struct vmt_exact *x = &record->exact;
	int ret;

	if (r->next >= r->thread.records)
		return vmt_trace_fail(r->trace, -ERANGE, "loop stream %u has %llu records",
				      r->thread.stream_id, (unsigned long long)r->thread.records);
	ret = vmt_loop_decoder_next(r->decoder, &a);
	if (ret <= 0)
		return vmt_trace_fail(r->trace, ret ? ret : -EBADMSG, "loop stream %u, record %llu: %s",
				      r->thread.stream_id, (unsigned long long)r->next,
				      ret ? vmt_loop_decoder_error(r->decoder)
					  : "the descriptors end before it");
	memset(record, 0, sizeof(*record));
	record->hdr.pid = r->thread.pid;
	record->hdr.tid = r->thread.tid;
	record->hdr.type = VMT_REC_EXACT;
	record->hdr.cpu = a.cpu;
	x->addr = a.addr;
	x->ip = a.ip;
	x->size = a.size;
	x->access = a.access;
	x->kernel_mode = a.kernel_mode;
	x->flags = a.flags;
	if (r->thread.side_stream_id != VMT_TRACE_NO_TIME) {
		uint8_t side[VMT_LOOPS_SIDE_SIZE];

		ret = vmt_trace_read(r->trace, r->thread.side_stream_id, r->next, side);
		if (ret)
			return ret;
		record->hdr.time_ns = vmt_get64(side);
		memcpy(x->value, side + 8, sizeof(x->value));
		record->hdr.data_len = vmt_get32(side + 24);
	}
	/* The last record: the descriptors must end with it. */
	if (++r->next == r->thread.records && vmt_loop_decoder_next(r->decoder, &a) != 0)
		return vmt_trace_fail(r->trace, -EBADMSG,
				      "loop stream %u: the descriptors replay more than its %llu records",
				      r->thread.stream_id, (unsigned long long)r->thread.records);
	return 0;
}

int vmt_loop_reader_next_element(struct vmt_loop_reader *r, struct vmt_loop_element *element)
{
	int ret = vmt_loop_decoder_next_element(r->decoder, element);

	if (ret < 0)
		return vmt_trace_fail(r->trace, ret, "loop stream %u: %s", r->thread.stream_id,
				      vmt_loop_decoder_error(r->decoder));
	return ret;
}

void vmt_loop_reader_free(struct vmt_loop_reader *r)
{
	if (!r)
		return;
	vmt_loop_decoder_free(r->decoder);
	vmt_loop_set_member_free(&r->set);
	free(r);
}
