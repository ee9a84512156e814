// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * HMTT's interleaving: runs of one process's references in the merged
 * stream (vmtrace/analysis.h; docs/analysis/hmtt.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "analysis/analysis_util.h"

/*
 * The current run's pid and length; each run ended adds one to its
 * length's count in @lengths (length -> runs), whose distinct lengths are
 * few (at most sqrt(2 * references)), so the median is exact.
 */
struct interleave {
	struct vmt_analysis analysis;
	struct vmt_u64_map lengths;
	struct vmt_u64_map pids;
	uint32_t pid;
	uint64_t run;		/* the current run's references; 0: none yet */
	struct vmt_interleave_result result;
	struct vmt_hist_bucket *hist;
	size_t nr_hist;
};

static struct interleave *to_interleave(const struct vmt_analysis *a)
{
	return (struct interleave *)a;
}

static int interleave_end_run(struct interleave *il)
{
	uint64_t *runs;
	bool added;

	runs = vmt_u64_map_put(&il->lengths, il->run, &added);
	if (!runs)
		return -ENOMEM;
	(*runs)++;
	il->result.runs++;
	if (il->run > il->result.longest)
		il->result.longest = il->run;
	return 0;
}

static int interleave_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	struct interleave *il = to_interleave(a);
	bool added;
	int err;

	il->result.references++;
	if (il->run && ref->pid == il->pid) {
		il->run++;
		return 0;
	}
	if (!vmt_u64_map_put(&il->pids, ref->pid, &added))
		return -ENOMEM;
	if (il->run) {
		err = interleave_end_run(il);
		if (err)
			return err;
	}
	il->pid = ref->pid;
	il->run = 1;
	return 0;
}

static int interleave_finish(struct vmt_analysis *a)
{
	struct interleave *il = to_interleave(a);
	struct vmt_interleave_result *r = &il->result;
	uint64_t counts[VMT_VALUE_BUCKETS] = { 0 };
	uint64_t length, runs, seen = 0, *sorted;
	size_t pos = 0, n = 0, i;
	int err;

	if (il->run) {
		err = interleave_end_run(il);
		if (err)
			return err;
		il->run = 0;
	}
	r->switches = r->runs ? r->runs - 1 : 0;
	r->processes = il->pids.count;
	r->mean = r->runs ? (double)r->references / (double)r->runs : 0.0;
	sorted = malloc((il->lengths.count + 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	while (vmt_u64_map_next(&il->lengths, &pos, &length, &runs)) {
		sorted[n++] = length;
		counts[vmt_value_bucket(length)] += runs;
	}
	qsort(sorted, n, sizeof(*sorted), vmt_compare_u64);
	r->median = 0;
	for (i = 0; i < n; i++) {
		seen += *vmt_u64_map_get(&il->lengths, sorted[i]);
		/* The run at place (runs - 1) / 2 of the sorted runs. */
		if (seen > (r->runs - 1) / 2) {
			r->median = sorted[i];
			break;
		}
	}
	free(sorted);
	free(il->hist);
	return vmt_value_hist_compact(counts, &il->hist, &il->nr_hist);
}

static void interleave_destroy(struct vmt_analysis *a)
{
	struct interleave *il = to_interleave(a);

	vmt_u64_map_free(&il->lengths);
	vmt_u64_map_free(&il->pids);
	free(il->hist);
	free(il);
}

static const struct vmt_analysis_ops interleave_ops = {
	.name = "interleave",
	.reference = interleave_reference,
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
