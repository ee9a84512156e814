// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * SAD (Safely Allowed Drop) trace reduction (vmtrace/analysis.h), after
 * Kaplan, Smaragdakis and Wilson (SIGMETRICS '99), as Laplace used it.
 *
 * The rule. The references are cut, in time order, into windows: a window
 * grows until a reference to a unit it does not hold would make it hold
 * R + 1, and that reference starts the next. Within a window, the first
 * and the last reference to each unit are kept; every reference between
 * them is dropped. With R = 2:
 *
 *	trace:    a b a b a b | c a c a | b ...
 *	window:   {a,b}         {c,a}     {b,...
 *	kept:     a b . . a b   c a c a   b
 *
 * Why LRU faults stay exact for every memory of M >= R units. Take one
 * dropped reference to a at time t. Its window holds kept references to a
 * at t1 < t < t2, and every reference in [t1, t2] is to one of at most R
 * units. Compare the LRU stacks of the trace with and without it. They
 * are the same up to t; after t they differ in a's place alone (the order
 * of the other units follows their own references, which are the same),
 * until the reference at t2 puts a on top in both. Between t1 and t2, a's
 * place is 1 + the units other than a referenced since a's last reference,
 * all in the window: at most R <= M, so a stays resident in both, and the
 * resident sets (the top M: a and the same M - 1 others) are equal, so
 * every reference between them hits or faults alike. At a fault on x in
 * (t1, t2], x is not among the units referenced since t1 (those are
 * resident), so a's place is at most 1 + (R - 2) = R - 1 < M: a is not the
 * victim, and the victim, the M-th unit, is the same unit in both. The
 * dropped reference itself was a hit. Dropping the references one at a
 * time, in any order, each keeps this argument for the next: its kept
 * neighbours t1 and t2 stay, and dropping references only shrinks the set
 * of units between them. So faults, and which unit each evicts, are the
 * same for every M >= R. Below R they need not be: with R = 2, "a b a b a"
 * is one window, reduced to "a b b a" (the middle a dropped); with M = 1
 * the original faults 5 times, the reduction 3.
 *
 * One pass, bounded memory. A first reference in a window is kept at once;
 * a later one is held, as its unit's pending reference, until a still
 * later one drops it or the window ends and keeps it. The records after a
 * pending one wait with it in a queue, so that the reduced trace is
 * written in time order; the queue's head goes out as soon as it is
 * decided. A full queue ends the window its head waits on early (ending a
 * window early is one more cut: the rule and the proof hold for any cut
 * into windows of at most R units), so memory is the queue plus a slot a
 * unit: the footprint. Per process, each pid has windows of its own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "base/u64_map.h"

#define SAD_DEFAULT_QUEUE	131072u
#define SAD_NONE		UINT64_MAX

enum sad_state {
	SAD_KEPT,		/* a reference to write */
	SAD_DROPPED,
	SAD_PENDING,		/* its unit's last in an open window, so far */
	SAD_RECORD,		/* not a reference: written as it is */
};

struct sad_entry {
	struct vmt_record rec;
	uint64_t index;		/* references: their place in the unreduced stream */
	uint64_t window;	/* SAD_PENDING: the window it waits on ... */
	uint32_t space;		/* ... of this space */
	uint32_t state;		/* enum sad_state */
};

/* A unit's state in its space: the window it was last in, its pending reference. */
struct sad_unit {
	uint64_t window;	/* 0: never */
	uint64_t pending;	/* queue sequence number, or SAD_NONE */
};

/* The references reduced together: all, or one process's. */
struct sad_space {
	struct vmt_u64_map units;	/* unit key -> index in sad->units */
	uint64_t window;		/* the open window's number, from 1 */
	uint64_t distinct;		/* units in it */
};

struct sad {
	struct vmt_analysis analysis;
	struct vmt_trace *in;
	struct vmt_trace_writer *out;
	struct vmt_sad_options options;
	struct vmt_ref_options ref;
	int ref_index_stream;
	struct sad_space *spaces;
	uint32_t nr_spaces, room_spaces;
	struct vmt_u64_map space_of_pid;	/* per process: pid -> index in spaces */
	struct sad_unit *units;
	uint64_t nr_units, room_units;
	struct sad_entry *queue;		/* a ring: sequence number s is at s & mask */
	uint64_t mask, head, tail, max_queue;
	struct vmt_record ref_record;		/* the reference record before its reference() */
	bool have_ref_record;
	struct vmt_sad_stats stats;
};

static struct sad *to_sad(const struct vmt_analysis *a)
{
	return (struct sad *)a;
}

static struct sad_entry *entry_at(struct sad *sad, uint64_t seq)
{
	return &sad->queue[seq & sad->mask];
}

/* Write the queue's head entry. */
static int sad_write(struct sad *sad, const struct sad_entry *e)
{
	uint8_t data[VMT_MAX_DATA_LEN];
	const void *bytes = NULL;
	struct vmt_record rec = e->rec;
	struct vmt_trace_ref_index ri = { .time_ns = rec.hdr.time_ns, .index = e->index };
	int len, err;

	if (e->state == SAD_RECORD) {
		if (rec.hdr.data_len) {
			len = vmt_trace_record_data(sad->in, &rec, data, sizeof(data));
			if (len < 0)
				return len;
			rec.hdr.data_len = (uint32_t)len;
			bytes = data;
		}
		sad->stats.records++;
		return vmt_trace_writer_append_record_data(sad->out, &rec, bytes);
	}
	err = vmt_trace_writer_append_record_data(sad->out, &rec, NULL);
	if (!err)
		err = vmt_trace_writer_append(sad->out, (uint32_t)sad->ref_index_stream, &ri, 1);
	sad->stats.kept++;
	return err;
}

/* Write the head while it is decided; @all: every window ends (the trace did). */
static int sad_drain(struct sad *sad, bool all)
{
	int err;

	for (; sad->head != sad->tail; sad->head++) {
		struct sad_entry *e = entry_at(sad, sad->head);

		if (e->state == SAD_PENDING) {
			if (!all && sad->spaces[e->space].window == e->window)
				break;
			e->state = SAD_KEPT;
		}
		if (e->state == SAD_DROPPED)
			continue;
		err = sad_write(sad, e);
		if (err)
			return err;
	}
	return 0;
}

static void end_window(struct sad *sad, struct sad_space *space)
{
	space->window++;
	space->distinct = 0;
	sad->stats.windows++;
}

/* Room for one more entry at the tail: grow the queue, or end its head's window early. */
static int sad_make_room(struct sad *sad)
{
	uint64_t size = sad->mask + 1, used = sad->tail - sad->head;
	struct sad_entry *queue;
	int err;

	if (sad->queue && used < size)
		return 0;
	if (!sad->queue || size < sad->max_queue) {
		uint64_t new_size = sad->queue ? size * 2 : 64;

		queue = malloc(new_size * sizeof(*queue));
		if (!queue)
			return -ENOMEM;
		for (uint64_t s = sad->head; s != sad->tail; s++)
			queue[s & (new_size - 1)] = *entry_at(sad, s);
		free(sad->queue);
		sad->queue = queue;
		sad->mask = new_size - 1;
		return 0;
	}
	/* Full: the head is a pending reference (anything else would be out). */
	end_window(sad, &sad->spaces[entry_at(sad, sad->head)->space]);
	sad->stats.early_ends++;
	err = sad_drain(sad, false);
	return err;
}

static struct sad_entry *sad_push(struct sad *sad, const struct vmt_record *rec,
				  enum sad_state state, int *err)
{
	struct sad_entry *e;

	*err = sad_make_room(sad);
	if (*err)
		return NULL;
	e = entry_at(sad, sad->tail++);
	e->rec = *rec;
	e->state = state;
	e->index = 0;
	return e;
}

static int sad_record(struct vmt_analysis *a, const struct vmt_record *rec)
{
	struct sad *sad = to_sad(a);
	int err;

	if (sad->have_ref_record) {
		/* No reference() followed: a reference without a frame (--space physical). */
		sad->stats.no_frame++;
		sad->have_ref_record = false;
	}
	if (rec->hdr.type == VMT_REC_REFERENCE) {
		sad->ref_record = *rec;
		sad->have_ref_record = true;
		return 0;
	}
	if (!sad_push(sad, rec, SAD_RECORD, &err))
		return err;
	return sad_drain(sad, false);
}

/* The space @pid's references are reduced in; NULL when memory runs out. */
static struct sad_space *sad_space(struct sad *sad, uint32_t pid, uint32_t *index)
{
	uint64_t *slot = NULL;
	bool added = !sad->nr_spaces;

	if (sad->options.per_process) {
		slot = vmt_u64_map_put(&sad->space_of_pid, pid, &added);
		if (!slot)
			return NULL;
	}
	if (added) {
		struct sad_space *space;

		if (sad->nr_spaces == sad->room_spaces) {
			uint32_t room = sad->room_spaces ? sad->room_spaces * 2 : 8;

			space = realloc(sad->spaces, room * sizeof(*space));
			if (!space)
				return NULL;
			sad->spaces = space;
			sad->room_spaces = room;
		}
		space = &sad->spaces[sad->nr_spaces];
		if (vmt_u64_map_init(&space->units))
			return NULL;
		space->window = 1;
		space->distinct = 0;
		if (slot)
			*slot = sad->nr_spaces;
		sad->nr_spaces++;
	}
	*index = slot ? (uint32_t)*slot : 0;
	return &sad->spaces[*index];
}

/* @key's unit in @space; NULL when memory runs out. */
static struct sad_unit *sad_unit(struct sad *sad, struct sad_space *space, uint64_t key)
{
	bool added;
	uint64_t *slot = vmt_u64_map_put(&space->units, key, &added);

	if (!slot)
		return NULL;
	if (added) {
		if (sad->nr_units == sad->room_units) {
			uint64_t room = sad->room_units ? sad->room_units * 2 : 1024;
			struct sad_unit *units = realloc(sad->units, room * sizeof(*units));

			if (!units)
				return NULL;
			sad->units = units;
			sad->room_units = room;
		}
		*slot = sad->nr_units;
		sad->units[sad->nr_units++] = (struct sad_unit){ .window = 0, .pending = SAD_NONE };
	}
	return &sad->units[*slot];
}

static int sad_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	struct sad *sad = to_sad(a);
	struct sad_space *space;
	struct sad_unit *unit;
	struct sad_entry *e;
	uint32_t space_index;
	uint64_t seq;
	int err;

	sad->have_ref_record = false;
	sad->stats.references++;
	space = sad_space(sad, ref->pid, &space_index);
	unit = space ? sad_unit(sad, space, ref->key) : NULL;
	if (!unit)
		return -ENOMEM;
	/* Room first: ending a window early may change the unit's fate. */
	err = sad_make_room(sad);
	if (err)
		return err;
	seq = sad->tail;
	if (unit->window == space->window) {
		/* Seen in this window: the previous last (not the first) is dropped. */
		if (unit->pending != SAD_NONE)
			entry_at(sad, unit->pending)->state = SAD_DROPPED;
		e = sad_push(sad, &sad->ref_record, SAD_PENDING, &err);
		if (!e)
			return err;
		e->window = space->window;
		e->space = space_index;
		unit->pending = seq;
	} else {
		if (space->distinct == sad->options.r)
			end_window(sad, space);
		space->distinct++;
		unit->window = space->window;
		unit->pending = SAD_NONE;
		e = sad_push(sad, &sad->ref_record, SAD_KEPT, &err);
		if (!e)
			return err;
	}
	e->index = ref->index;
	return sad_drain(sad, false);
}

static int sad_finish(struct vmt_analysis *a)
{
	struct sad *sad = to_sad(a);
	struct vmt_trace_reduction r = {
		.size = sizeof(r),
		.method = VMT_REDUCTION_SAD,
		.flags = sad->options.per_process ? VMT_REDUCTION_PER_PROCESS : 0,
		.space = sad->ref.space,
		.unit = sad->ref.unit,
		.r = sad->options.r,
	};
	int err;

	if (sad->have_ref_record) {
		sad->stats.no_frame++;
		sad->have_ref_record = false;
	}
	for (uint32_t i = 0; i < sad->nr_spaces; i++)
		if (sad->spaces[i].distinct)
			sad->stats.windows++;
	err = sad_drain(sad, true);
	if (err)
		return err;
	r.references = sad->stats.references;
	r.kept = sad->stats.kept;
	err = vmt_trace_writer_add_opaque(sad->out, "reduction", &r, sizeof(r));
	return err < 0 ? err : 0;
}

static void sad_destroy(struct vmt_analysis *a)
{
	struct sad *sad = to_sad(a);

	for (uint32_t i = 0; i < sad->nr_spaces; i++)
		vmt_u64_map_free(&sad->spaces[i].units);
	free(sad->spaces);
	vmt_u64_map_free(&sad->space_of_pid);
	free(sad->units);
	free(sad->queue);
	free(sad);
}

static const struct vmt_analysis_ops sad_ops = {
	.name = "sad",
	.reference = sad_reference,
	.record = sad_record,
	.finish = sad_finish,
	.destroy = sad_destroy,
};

int vmt_sad_create(struct vmt_analysis **analysis, struct vmt_trace *in,
		   struct vmt_trace_writer *out, const struct vmt_ref_options *ref,
		   const struct vmt_sad_options *options)
{
	struct vmt_trace_stream_info info = {
		.entry_size = sizeof(struct vmt_trace_ref_index),
		.kind = VMT_STREAM_OPAQUE,
		.cpu = VMT_TRACE_ANY_CPU,
		.time_offset = 0,
		.name = "ref_index",
	};
	struct vmt_trace_session session;
	struct sad *sad;
	int err;

	if (!options->r)
		return -EINVAL;
	sad = calloc(1, sizeof(*sad));
	if (!sad)
		return -ENOMEM;
	if (vmt_u64_map_init(&sad->space_of_pid)) {
		free(sad);
		return -ENOMEM;
	}
	sad->analysis.ops = &sad_ops;
	sad->in = in;
	sad->out = out;
	sad->options = *options;
	sad->ref = *ref;
	sad->max_queue = options->queue_records ? options->queue_records : SAD_DEFAULT_QUEUE;
	if (!options->queue_records && sad->max_queue < 4 * options->r)
		sad->max_queue = 4 * options->r;
	/* A power of two, at least 2: the ring's size doubles up to it. */
	while (sad->max_queue & (sad->max_queue - 1))
		sad->max_queue &= sad->max_queue - 1;
	sad->max_queue = sad->max_queue < 64 ? 64 : sad->max_queue;
	err = vmt_trace_session(in, &session);
	if (!err)
		err = vmt_trace_writer_add_session(out, &session);
	else if (err == -ENOENT)
		err = 0;
	if (err >= 0) {
		sad->ref_index_stream = vmt_trace_writer_add_stream(out, &info);
		err = sad->ref_index_stream;
	}
	if (err < 0) {
		sad_destroy(&sad->analysis);
		return err;
	}
	*analysis = &sad->analysis;
	return 0;
}

void vmt_sad_stats(const struct vmt_analysis *analysis, struct vmt_sad_stats *stats)
{
	*stats = to_sad(analysis)->stats;
}

int vmt_trace_reduction(struct vmt_trace *trace, struct vmt_trace_reduction *out)
{
	return vmt_trace_read_opaque(trace, "reduction", out, sizeof(*out));
}
