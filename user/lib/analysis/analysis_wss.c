// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Working-set size (vmtrace/analysis.h): the distinct units referenced in
 * each window of a fixed length, the windows tumbling from the first
 * reference, as damo's `report wss` reports DAMON's snapshots.
 *
 *   t0        t0+T       t0+2T      t0+3T
 *   |  a b a c |  (none)  |  b b d   |
 *   window 0: 3 units     1: 0       2: 2
 *
 * One map holds every unit seen with the window it was last seen in, plus
 * one (0 is never a window's stamp): a reference whose unit's stamp is not
 * the current window's is the unit's first in this window. Nothing is
 * cleared between windows, so a reference costs one map lookup. Memory:
 * the map grows with the footprint; the series holds the windows that saw
 * a reference (those that saw none, of size 0, are only counted), so it
 * grows with neither the trace's length nor, for a tiny T, its duration
 * over T beyond its references.
 *
 * Windows start at the first reference, which only a pass from the start
 * knows: so the work splits by units, not by time (vmt_wss_share()). Each
 * share reads every reference, and counts those of its units alone: the
 * windows' units, bytes and references add up over the shares, and the
 * windows that saw a reference are those any share saw one in.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "analysis/analysis_util.h"
#include "base/pack.h"
#include "base/u64_map.h"

struct wss {
	struct vmt_analysis analysis;
	unsigned int share, shares;	/* the units counted: those whose hash is share mod shares */
	uint64_t window_ns;
	uint64_t first_ns;		/* window 0's start */
	struct vmt_u64_map stamps;	/* unit -> last window seen in, + 1 */
	struct vmt_wss_window *windows;	/* those with a reference */
	size_t nr, room;
	uint64_t current;		/* windows[nr - 1]'s number, from 0 */
	bool seen;			/* a reference: first_ns is set */
};

static struct wss *to_wss(const struct vmt_analysis *a)
{
	return (struct wss *)a;
}

/* A window for references from @w on; 0 or -ENOMEM. */
static int wss_open_window(struct wss *wss, uint64_t w)
{
	if (wss->nr == wss->room) {
		size_t room = wss->room ? wss->room * 2 : 256;
		struct vmt_wss_window *grown = realloc(wss->windows, room * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		wss->windows = grown;
		wss->room = room;
	}
	memset(&wss->windows[wss->nr], 0, sizeof(wss->windows[0]));
	wss->windows[wss->nr].start_ns = wss->first_ns + w * wss->window_ns;
	wss->nr++;
	wss->current = w;
	return 0;
}

static int wss_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	struct wss *wss = to_wss(a);
	struct vmt_wss_window *cur;
	uint64_t w, *stamp;
	bool added;
	int err;

	if (!wss->seen) {
		wss->first_ns = ref->time_ns;
		wss->seen = true;
	}
	if (wss->shares > 1 && vmt_mix64(ref->key) % wss->shares != wss->share)
		return 0;
	/* Time order: a reference never goes back to an earlier window. */
	w = (ref->time_ns - wss->first_ns) / wss->window_ns;
	if (!wss->nr || w != wss->current) {
		err = wss_open_window(wss, w);
		if (err)
			return err;
	}
	stamp = vmt_u64_map_put(&wss->stamps, ref->key, &added);
	if (!stamp)
		return -ENOMEM;
	cur = &wss->windows[wss->nr - 1];
	cur->references++;
	if (*stamp != w + 1) {
		*stamp = w + 1;
		cur->units++;
		cur->bytes += ref->size;
	}
	return 0;
}

static void wss_destroy(struct vmt_analysis *a)
{
	struct wss *wss = to_wss(a);

	vmt_u64_map_free(&wss->stamps);
	free(wss->windows);
	free(wss);
}

/* Packed: whether a reference was seen, the first one's time, the windows (number and counts). */
static int wss_pack(struct vmt_analysis *a, void **data, size_t *size)
{
	struct wss *wss = to_wss(a);
	struct vmt_packer p = { 0 };

	vmt_pack_u64(&p, wss->seen);
	vmt_pack_u64(&p, wss->first_ns);
	vmt_pack_u64(&p, wss->nr);
	for (size_t i = 0; i < wss->nr; i++) {
		const struct vmt_wss_window *w = &wss->windows[i];

		vmt_pack_u64(&p, (w->start_ns - wss->first_ns) / wss->window_ns);
		vmt_pack_u64(&p, w->units);
		vmt_pack_u64(&p, w->bytes);
		vmt_pack_u64(&p, w->references);
	}
	return vmt_pack_done(&p, data, size);
}

/* Another share's windows, joined by number with this one's (both in order). */
static int wss_merge(struct vmt_analysis *a, const void *data, size_t size)
{
	struct wss *wss = to_wss(a);
	struct vmt_unpacker u = { .p = data, .end = (const uint8_t *)data + size };
	struct vmt_wss_window *mine = wss->windows, *joined;
	size_t nr = wss->nr, n, i = 0, k = 0;
	uint64_t seen, first, number, last = 0;

	seen = vmt_unpack_max(&u, 1);
	first = vmt_unpack_u64(&u);
	/* Each window is at least 4 bytes packed. */
	n = (size_t)vmt_unpack_max(&u, size / 4);
	if (u.err)
		return -EBADMSG;
	if (!seen)
		return u.p == u.end && !n ? 0 : -EBADMSG;
	if (wss->seen && first != wss->first_ns)
		return -EINVAL;		/* not the same references */
	joined = malloc((nr + n ? nr + n : 1) * sizeof(*joined));
	if (!joined)
		return -ENOMEM;
	wss->first_ns = first;
	wss->seen = true;
	for (size_t q = 0; q < n && !u.err; q++) {
		struct vmt_wss_window w;

		number = vmt_unpack_u64(&u);
		w.units = vmt_unpack_u64(&u);
		w.bytes = vmt_unpack_u64(&u);
		w.references = vmt_unpack_u64(&u);
		if ((q && number <= last) || number > (UINT64_MAX - first) / wss->window_ns) {
			u.err = -EBADMSG;
			break;
		}
		last = number;
		w.start_ns = first + number * wss->window_ns;
		for (; i < nr && mine[i].start_ns < w.start_ns; i++)
			joined[k++] = mine[i];
		if (i < nr && mine[i].start_ns == w.start_ns) {
			w.units += mine[i].units;
			w.bytes += mine[i].bytes;
			w.references += mine[i].references;
			i++;
		}
		joined[k++] = w;
	}
	if (u.err || u.p != u.end) {
		free(joined);
		return -EBADMSG;
	}
	for (; i < nr; i++)
		joined[k++] = mine[i];
	free(wss->windows);
	wss->windows = joined;
	wss->nr = wss->room = k;
	wss->current = k ? (joined[k - 1].start_ns - first) / wss->window_ns : 0;
	return 0;
}

static const struct vmt_analysis_ops wss_ops = {
	.name = "wss",
	.reference = wss_reference,
	.destroy = wss_destroy,
	.pack = wss_pack,
	.merge = wss_merge,
};

int vmt_wss_share(struct vmt_analysis *analysis, unsigned int share, unsigned int shares)
{
	struct wss *wss = to_wss(analysis);

	if (!shares || share >= shares)
		return -EINVAL;
	wss->share = share;
	wss->shares = shares;
	return 0;
}

int vmt_wss_create(struct vmt_analysis **analysis, uint64_t window_ns)
{
	struct wss *wss;

	if (!window_ns)
		return -EINVAL;
	wss = calloc(1, sizeof(*wss));
	if (!wss)
		return -ENOMEM;
	if (vmt_u64_map_init(&wss->stamps)) {
		free(wss);
		return -ENOMEM;
	}
	wss->analysis.ops = &wss_ops;
	wss->window_ns = window_ns;
	*analysis = &wss->analysis;
	return 0;
}

const struct vmt_wss_window *vmt_wss_windows(const struct vmt_analysis *analysis, size_t *nr)
{
	const struct wss *wss = to_wss(analysis);

	*nr = wss->nr;
	return wss->windows;
}

/*
 * The nearest-rank percentile of @zeros windows of size 0 and @n sorted
 * sizes after them: the smallest size that at least @p percent of the
 * windows do not exceed (p = 0: the smallest).
 */
static uint64_t nearest_rank(const uint64_t *sorted, size_t n, uint64_t zeros, unsigned int p)
{
	uint64_t rank = ((unsigned __int128)p * (n + zeros) + 99) / 100;

	if (!rank)
		rank = 1;
	if (rank <= zeros)
		return 0;
	return sorted[rank - zeros - 1];
}

/*
 * Units and bytes sorted on their own: with huge pages among the units,
 * the window at a percentile of one need not be at the other's.
 */
int vmt_wss_summarize(const struct vmt_analysis *analysis, const unsigned int *percents,
		      unsigned int nr_percents, struct vmt_wss_summary *summary)
{
	const struct wss *wss = to_wss(analysis);
	uint64_t *units, *bytes, total_units = 0, total_bytes = 0, windows, zeros;
	unsigned int i;

	memset(summary, 0, sizeof(*summary));
	if (nr_percents > VMT_WSS_MAX_PERCENTILES)
		return -EINVAL;
	for (i = 0; i < nr_percents; i++)
		if (percents[i] > 100)
			return -EINVAL;
	if (!wss->nr)
		return -ENODATA;
	windows = wss->current + 1;
	zeros = windows - wss->nr;
	units = malloc(wss->nr * sizeof(*units));
	bytes = malloc(wss->nr * sizeof(*bytes));
	if (!units || !bytes) {
		free(units);
		free(bytes);
		return -ENOMEM;
	}
	for (size_t w = 0; w < wss->nr; w++) {
		units[w] = wss->windows[w].units;
		bytes[w] = wss->windows[w].bytes;
		total_units += units[w];
		total_bytes += bytes[w];
	}
	qsort(units, wss->nr, sizeof(*units), vmt_compare_u64);
	qsort(bytes, wss->nr, sizeof(*bytes), vmt_compare_u64);
	for (i = 0; i < nr_percents; i++) {
		summary->percent[i] = percents[i];
		summary->units[i] = nearest_rank(units, wss->nr, zeros, percents[i]);
		summary->bytes[i] = nearest_rank(bytes, wss->nr, zeros, percents[i]);
	}
	summary->nr_percentiles = nr_percents;
	summary->windows = windows;
	summary->empty_windows = zeros;
	summary->window_ns = wss->window_ns;
	summary->mean_units = (double)total_units / windows;
	summary->mean_bytes = (double)total_bytes / windows;
	free(units);
	free(bytes);
	return 0;
}
