// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * HMTT's interleaving: runs of one process's references in the merged
 * stream, of all processes and of each, and a slice of the stream kept to
 * draw (vmtrace/analysis.h; docs/analysis/hmtt.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "analysis/analysis_util.h"

/* A process: its numbers, and its run lengths (length -> runs), sorted by finish(). */
struct il_process {
	struct vmt_u64_map lengths;
	struct vmt_interleave_length *sorted;
	size_t nr_sorted;
};

/*
 * The current run's process and length; each run ended adds one to its
 * length's count in @lengths (length -> runs) and in its process's, whose
 * distinct lengths are few (at most sqrt(2 * references)), so the medians
 * are exact. Memory: a process's distinct run lengths and name, and the
 * slice.
 */
struct interleave {
	struct vmt_analysis analysis;
	struct vmt_u64_map lengths;
	struct vmt_u64_map pids;	/* pid -> its place in @procs */
	struct vmt_interleave_process *out;	/* the processes' numbers, by place */
	struct il_process *procs;
	size_t nr_procs, room;
	size_t cur;		/* the current run's process */
	uint64_t run;		/* the current run's references; 0: none yet */
	struct vmt_interleave_result result;
	struct vmt_hist_bucket *hist;
	size_t nr_hist;
	uint64_t slice_first, slice_count;	/* count 0: no slice kept */
	struct vmt_interleave_ref *slice;
	size_t nr_slice;
	struct vmt_u64_map names;	/* pid -> its name's place in @comms */
	char (*comms)[VMT_COMM_LEN + 1];
	size_t nr_comms, comms_room;
};

static struct interleave *to_interleave(const struct vmt_analysis *a)
{
	return (struct interleave *)a;
}

static int count_length(struct vmt_u64_map *lengths, uint64_t length)
{
	bool added;
	uint64_t *runs = vmt_u64_map_put(lengths, length, &added);

	if (!runs)
		return -ENOMEM;
	(*runs)++;
	return 0;
}

static int interleave_end_run(struct interleave *il)
{
	struct vmt_interleave_process *p = &il->out[il->cur];
	int err;

	err = count_length(&il->lengths, il->run);
	if (!err)
		err = count_length(&il->procs[il->cur].lengths, il->run);
	if (err)
		return err;
	il->result.runs++;
	if (il->run > il->result.longest)
		il->result.longest = il->run;
	p->runs++;
	p->references += il->run;
	p->short_runs += il->run < VMT_INTERLEAVE_SHORT_RUN;
	if (il->run > p->longest)
		p->longest = il->run;
	return 0;
}

/* @pid's place in the processes, made at its first reference; -ENOMEM. */
static int interleave_process(struct interleave *il, uint32_t pid, size_t *place)
{
	uint64_t *slot;
	bool added;

	slot = vmt_u64_map_put(&il->pids, pid, &added);
	if (!slot)
		return -ENOMEM;
	if (!added) {
		*place = *slot;
		return 0;
	}
	if (il->nr_procs == il->room) {
		size_t room = il->room ? il->room * 2 : 16;
		struct vmt_interleave_process *out = realloc(il->out, room * sizeof(*out));
		struct il_process *procs;

		if (!out)
			return -ENOMEM;
		il->out = out;
		procs = realloc(il->procs, room * sizeof(*procs));
		if (!procs)
			return -ENOMEM;
		il->procs = procs;
		il->room = room;
	}
	memset(&il->out[il->nr_procs], 0, sizeof(il->out[0]));
	memset(&il->procs[il->nr_procs], 0, sizeof(il->procs[0]));
	if (vmt_u64_map_init(&il->procs[il->nr_procs].lengths))
		return -ENOMEM;
	il->out[il->nr_procs].pid = pid;
	*slot = *place = il->nr_procs++;
	return 0;
}

/* A leader's TASK or COMM record names its process: the last one. */
static int interleave_record(struct vmt_analysis *a, const struct vmt_record *rec)
{
	struct interleave *il = to_interleave(a);
	const char *comm;
	uint64_t *slot;
	bool added;

	if (rec->hdr.tid != rec->hdr.pid)
		return 0;
	if (rec->hdr.type == VMT_REC_TASK)
		comm = rec->task.comm;
	else if (rec->hdr.type == VMT_REC_COMM)
		comm = rec->comm.comm;
	else
		return 0;
	slot = vmt_u64_map_put(&il->names, rec->hdr.pid, &added);
	if (!slot)
		return -ENOMEM;
	if (added) {
		if (il->nr_comms == il->comms_room) {
			size_t room = il->comms_room ? il->comms_room * 2 : 16;
			char (*grown)[VMT_COMM_LEN + 1] = realloc(il->comms, room * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			il->comms = grown;
			il->comms_room = room;
		}
		*slot = il->nr_comms++;
	}
	memcpy(il->comms[*slot], comm, VMT_COMM_LEN);
	il->comms[*slot][VMT_COMM_LEN] = '\0';
	return 0;
}

static int interleave_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	struct interleave *il = to_interleave(a);
	uint64_t index = il->result.references++;
	size_t place;
	int err;

	if (index >= il->slice_first && index - il->slice_first < il->slice_count)
		il->slice[il->nr_slice++] = (struct vmt_interleave_ref){
			.index = index, .time_ns = ref->time_ns, .addr = ref->addr,
			.pid = ref->pid,
		};
	if (il->run && ref->pid == il->out[il->cur].pid) {
		il->run++;
		return 0;
	}
	if (il->run) {
		err = interleave_end_run(il);
		if (err)
			return err;
	}
	err = interleave_process(il, ref->pid, &place);
	if (err)
		return err;
	il->cur = place;
	il->run = 1;
	return 0;
}

static int compare_lengths(const void *a, const void *b)
{
	const struct vmt_interleave_length *x = a, *y = b;

	return (x->length > y->length) - (x->length < y->length);
}

/*
 * @lengths (length -> runs) sorted by length in *@sorted (malloc()ed),
 * with the median of its @runs runs (the run at place (runs - 1) / 2),
 * and the counts of @hist's buckets added (when not NULL).
 */
static int sort_lengths(const struct vmt_u64_map *lengths, uint64_t runs,
			struct vmt_interleave_length **sorted, size_t *nr, uint64_t *median,
			uint64_t *hist)
{
	struct vmt_interleave_length *s;
	uint64_t length, count, seen = 0;
	size_t pos = 0, n = 0, i;

	s = malloc((lengths->count + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	while (vmt_u64_map_next(lengths, &pos, &length, &count)) {
		s[n++] = (struct vmt_interleave_length){ .length = length, .runs = count };
		if (hist)
			hist[vmt_value_bucket(length)] += count;
	}
	qsort(s, n, sizeof(*s), compare_lengths);
	*median = 0;
	for (i = 0; i < n; i++) {
		seen += s[i].runs;
		if (seen > (runs - 1) / 2) {
			*median = s[i].length;
			break;
		}
	}
	*sorted = s;
	*nr = n;
	return 0;
}

static int interleave_finish(struct vmt_analysis *a)
{
	struct interleave *il = to_interleave(a);
	struct vmt_interleave_result *r = &il->result;
	uint64_t counts[VMT_VALUE_BUCKETS] = { 0 };
	struct vmt_interleave_length *sorted;
	uint64_t *slot;
	size_t n, i;
	int err;

	if (il->run) {
		err = interleave_end_run(il);
		if (err)
			return err;
		il->run = 0;
	}
	r->switches = r->runs ? r->runs - 1 : 0;
	r->processes = il->nr_procs;
	r->mean = r->runs ? (double)r->references / (double)r->runs : 0.0;
	err = sort_lengths(&il->lengths, r->runs, &sorted, &n, &r->median, counts);
	if (err)
		return err;
	free(sorted);
	for (i = 0; i < il->nr_procs; i++) {
		struct vmt_interleave_process *p = &il->out[i];
		struct il_process *q = &il->procs[i];

		free(q->sorted);
		q->sorted = NULL;
		err = sort_lengths(&q->lengths, p->runs, &q->sorted, &q->nr_sorted, &p->median,
				   NULL);
		if (err)
			return err;
		p->mean = p->runs ? (double)p->references / (double)p->runs : 0.0;
		slot = vmt_u64_map_get(&il->names, p->pid);
		if (slot)
			memcpy(p->comm, il->comms[*slot], sizeof(p->comm));
	}
	free(il->hist);
	il->hist = NULL;
	return vmt_value_hist_compact(counts, &il->hist, &il->nr_hist);
}

static void interleave_destroy(struct vmt_analysis *a)
{
	struct interleave *il = to_interleave(a);

	for (size_t i = 0; i < il->nr_procs; i++) {
		vmt_u64_map_free(&il->procs[i].lengths);
		free(il->procs[i].sorted);
	}
	free(il->procs);
	free(il->out);
	vmt_u64_map_free(&il->lengths);
	vmt_u64_map_free(&il->pids);
	free(il->hist);
	free(il->slice);
	vmt_u64_map_free(&il->names);
	free(il->comms);
	free(il);
}

static const struct vmt_analysis_ops interleave_ops = {
	.name = "interleave",
	.reference = interleave_reference,
	.record = interleave_record,
	.finish = interleave_finish,
	.destroy = interleave_destroy,
};

int vmt_interleave_create(struct vmt_analysis **analysis)
{
	struct interleave *il = calloc(1, sizeof(*il));

	if (!il)
		return -ENOMEM;
	if (vmt_u64_maps_init(&il->lengths, &il->pids)) {
		free(il);
		return -ENOMEM;
	}
	if (vmt_u64_map_init(&il->names)) {
		vmt_u64_map_free(&il->lengths);
		vmt_u64_map_free(&il->pids);
		free(il);
		return -ENOMEM;
	}
	il->analysis.ops = &interleave_ops;
	*analysis = &il->analysis;
	return 0;
}

const struct vmt_interleave_result *vmt_interleave_result(const struct vmt_analysis *analysis)
{
	return &to_interleave(analysis)->result;
}

size_t vmt_interleave_histogram(const struct vmt_analysis *analysis,
				const struct vmt_hist_bucket **buckets)
{
	*buckets = to_interleave(analysis)->hist;
	return to_interleave(analysis)->nr_hist;
}

double vmt_interleave_mean_run(const struct vmt_analysis *analysis)
{
	return to_interleave(analysis)->result.mean;
}

size_t vmt_interleave_processes(const struct vmt_analysis *analysis,
				const struct vmt_interleave_process **processes)
{
	*processes = to_interleave(analysis)->out;
	return to_interleave(analysis)->nr_procs;
}

size_t vmt_interleave_process_lengths(const struct vmt_analysis *analysis, size_t i,
				      const struct vmt_interleave_length **lengths)
{
	const struct interleave *il = to_interleave(analysis);

	if (i >= il->nr_procs) {
		*lengths = NULL;
		return 0;
	}
	*lengths = il->procs[i].sorted;
	return il->procs[i].nr_sorted;
}

int vmt_interleave_keep_slice(struct vmt_analysis *analysis, uint64_t first, uint64_t count)
{
	struct interleave *il = to_interleave(analysis);
	struct vmt_interleave_ref *slice;

	if (!count || count > VMT_INTERLEAVE_MAX_SLICE || first > UINT64_MAX - count)
		return -EINVAL;
	slice = malloc(count * sizeof(*slice));
	if (!slice)
		return -ENOMEM;
	free(il->slice);
	il->slice = slice;
	il->nr_slice = 0;
	il->slice_first = first;
	il->slice_count = count;
	return 0;
}

size_t vmt_interleave_slice(const struct vmt_analysis *analysis,
			    const struct vmt_interleave_ref **refs)
{
	*refs = to_interleave(analysis)->slice;
	return to_interleave(analysis)->nr_slice;
}
