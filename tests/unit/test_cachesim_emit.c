// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the cache simulator's bus view (vmt_cachesim_bus(),
 * user/lib/analysis/cachesim.c): what leaves the last level, against a
 * sequence worked out by hand (fills, write-backs, prefetches, in order,
 * with their causes), and over random traces against the simulator's own
 * counts (the last level's misses, write-backs and prefetches), in
 * hierarchies of one and two levels, two cores, an inclusive level, and a
 * last level that follows another hierarchy's level-1 cache.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vmtrace/cachesim.h"

/* A line as the bus view gave it, with what its cause said. */
struct line {
	uint64_t addr, ip, time;
	uint32_t size, pid, tid;
	uint16_t cpu;
	uint8_t access, flags;
};

struct lines {
	struct line *v;
	size_t n, room;
};

static int take(void *ctx, const struct vmt_cachesim_bus *b)
{
	struct lines *l = ctx;

	if (l->n == l->room) {
		size_t room = l->room ? 2 * l->room : 64;
		struct line *p = realloc(l->v, room * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->v = p;
		l->room = room;
	}
	l->v[l->n++] = (struct line){
		.addr = b->addr, .ip = b->cause->ip, .time = b->cause->time, .size = b->size,
		.pid = b->cause->pid, .tid = b->cause->tid, .cpu = b->cause->cpu,
		.access = b->access, .flags = b->flags,
	};
	return 0;
}

static void add_cache(struct vmt_hierarchy_config *h, const char *spec)
{
	struct vmt_trace_error err = { { 0 } };

	if (vmt_hierarchy_add_cache_spec(h, spec, &err))
		fail_msg("%s: %s", spec, err.message);
}

static struct vmt_cachesim *make(const struct vmt_hierarchy_config *h, unsigned int nr,
				 const struct vmt_cachesim_options *o)
{
	struct vmt_trace_error err = { { 0 } };
	struct vmt_cachesim *sim = NULL;

	if (vmt_cachesim_create(&sim, h, nr, o, &err))
		fail_msg("create: %s", err.message);
	return sim;
}

/* Hierarchy @hi's last cache level's counts, in all. */
static struct vmt_cache_counts last_level(const struct vmt_cachesim *sim, unsigned int hi)
{
	struct vmt_cachesim_row *rows;
	struct vmt_cache_counts c = { 0 };
	size_t n, i;

	assert_int_equal(vmt_cachesim_rows(sim, &rows, &n), 0);
	for (i = 0; i < n; i++)
		if (rows[i].hierarchy == hi && !rows[i].tlb && rows[i].id == VMT_CACHESIM_ALL)
			c = rows[i].counts;
	free(rows);
	return c;
}

static void access_at(struct vmt_cachesim *sim, uint64_t t, uint8_t access, uint64_t addr)
{
	struct vmt_cache_access a = {
		.addr = addr, .ip = 0x1000 + t, .size = 8, .pid = 7, .tid = 70 + (uint32_t)t,
		.cpu = 0, .access = access, .time = t,
	};

	assert_int_equal(vmt_cachesim_access(sim, &a), 0);
}

#define F	VMT_EXACT_BUS_FILL
#define WB	VMT_EXACT_BUS_WRITEBACK
#define PF	VMT_EXACT_BUS_PREFETCH

static void expect(const struct lines *got, const struct line *want, size_t n)
{
	size_t i;

	assert_int_equal(got->n, n);
	for (i = 0; i < n; i++) {
		const struct line *g = &got->v[i];

		if (g->time != want[i].time || g->addr != want[i].addr ||
		    g->flags != want[i].flags)
			fail_msg("line %zu: time %llu addr %#llx flags %#x, not %llu %#llx %#x", i,
				 (unsigned long long)g->time, (unsigned long long)g->addr, g->flags,
				 (unsigned long long)want[i].time,
				 (unsigned long long)want[i].addr, want[i].flags);
		assert_int_equal(g->access, g->flags & WB ? VMT_ACCESS_WRITE : VMT_ACCESS_READ);
		assert_int_equal(g->size, 64);
		assert_int_equal(g->ip, 0x1000 + g->time);
		assert_int_equal(g->tid, 70 + g->time);
		assert_int_equal(g->pid, 7);
	}
}

/*
 * One level, 2 sets x 2 ways of 64-byte lines (256 bytes), LRU,
 * write-back with write-allocate: line L = addr / 64 goes to set L % 2.
 *
 *  t  access  line set  what happens                          bus
 *  1  R 0x000   0   0   miss, set 0 {0}                        fill 0x000
 *  2  W 0x080   2   0   miss, set 0 {0, 2 dirty}               fill 0x080
 *  3  R 0x040   1   1   miss, set 1 {1}                        fill 0x040
 *  4  W 0x000   0   0   hit: 0 dirty, 2 the least recent
 *  5  R 0x100   4   0   miss, evicts 2 (dirty)                 fill 0x100, write-back 0x080
 *  6  R 0x180   6   0   miss, evicts 0 (dirty: t4)             fill 0x180, write-back 0x000
 *  7  R 0x0c0   3   1   miss, set 1 {1, 3}                     fill 0x0c0
 *  8  W 0x140   5   1   miss, evicts 1 (clean), 5 dirty        fill 0x140
 *  9  R 0x1c0   7   1   miss, evicts 3 (clean)                 fill 0x1c0
 * 10  R 0x0c0   3   1   miss, evicts 5 (dirty)                 fill 0x0c0, write-back 0x140
 * 11  R 0x1c4   7   1   hit
 *
 * Nine misses, three write-backs; each fill before its victim's write-back.
 */
static void test_bus_by_hand(void **state)
{
	static const struct line want[] = {
		{ .time = 1, .addr = 0x000, .flags = F }, { .time = 2, .addr = 0x080, .flags = F },
		{ .time = 3, .addr = 0x040, .flags = F }, { .time = 5, .addr = 0x100, .flags = F },
		{ .time = 5, .addr = 0x080, .flags = WB }, { .time = 6, .addr = 0x180, .flags = F },
		{ .time = 6, .addr = 0x000, .flags = WB }, { .time = 7, .addr = 0x0c0, .flags = F },
		{ .time = 8, .addr = 0x140, .flags = F }, { .time = 9, .addr = 0x1c0, .flags = F },
		{ .time = 10, .addr = 0x0c0, .flags = F },
		{ .time = 10, .addr = 0x140, .flags = WB },
	};
	static const struct { uint8_t access; uint64_t addr; } seq[] = {
		{ VMT_ACCESS_READ, 0x000 }, { VMT_ACCESS_WRITE, 0x080 }, { VMT_ACCESS_READ, 0x040 },
		{ VMT_ACCESS_WRITE, 0x000 }, { VMT_ACCESS_READ, 0x100 }, { VMT_ACCESS_READ, 0x180 },
		{ VMT_ACCESS_READ, 0x0c0 }, { VMT_ACCESS_WRITE, 0x140 }, { VMT_ACCESS_READ, 0x1c0 },
		{ VMT_ACCESS_READ, 0x0c0 }, { VMT_ACCESS_READ, 0x1c4 },
	};
	struct vmt_hierarchy_config h = { .name = "hand" };
	struct vmt_cachesim_options o = { .cores = 1 };
	struct vmt_cachesim *sim;
	struct vmt_cache_counts c;
	struct lines got = { 0 };
	size_t i;

	(void)state;
	add_cache(&h, "L1=256:2:64");
	sim = make(&h, 1, &o);
	assert_int_equal(vmt_cachesim_bus(sim, 1, take, &got), -EINVAL);
	assert_int_equal(vmt_cachesim_bus(sim, 0, take, &got), 0);
	for (i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
		access_at(sim, i + 1, seq[i].access, seq[i].addr);
	expect(&got, want, sizeof(want) / sizeof(want[0]));
	c = last_level(sim, 0);
	assert_int_equal(c.misses, 9);
	assert_int_equal(c.writebacks, 3);

	/* Turned off: nothing more, the simulation the same. */
	assert_int_equal(vmt_cachesim_bus(sim, 0, NULL, NULL), 0);
	access_at(sim, 12, VMT_ACCESS_READ, 0x200);
	assert_int_equal(got.n, sizeof(want) / sizeof(want[0]));
	assert_int_equal(last_level(sim, 0).misses, 10);
	vmt_cachesim_destroy(sim);
	free(got.v);
}

/*
 * The same cache with its next-line prefetcher:
 *  t  access  line  what happens                               bus
 *  1  R 0x000   0   miss; line 1 (set 1) not in: prefetched     fill 0x000, prefetch 0x040
 *  2  R 0x040   1   hit (prefetched)
 *  3  R 0x080   2   miss; line 3 (set 1) not in: prefetched     fill 0x080, prefetch 0x0c0
 *  4  W 0x0c0   3   hit, dirty
 *  5  R 0x140   5   miss, set 1 {1, 3 dirty}: evicts 1 (LRU)    fill 0x140, prefetch 0x180
 *                   (clean); line 6 (set 0) not in: prefetched,
 *                   evicting 0 (clean)
 *  6  R 0x1c0   7   miss, set 1 {3 dirty, 5}: evicts 3 (dirty)  fill 0x1c0, write-back 0x0c0
 *                   line 8 (set 0) not in: prefetched,          prefetch 0x200
 *                   evicting 2 (clean)
 */
static void test_bus_prefetch(void **state)
{
	static const struct line want[] = {
		{ .time = 1, .addr = 0x000, .flags = F }, { .time = 1, .addr = 0x040, .flags = PF },
		{ .time = 3, .addr = 0x080, .flags = F }, { .time = 3, .addr = 0x0c0, .flags = PF },
		{ .time = 5, .addr = 0x140, .flags = F }, { .time = 5, .addr = 0x180, .flags = PF },
		{ .time = 6, .addr = 0x1c0, .flags = F }, { .time = 6, .addr = 0x0c0, .flags = WB },
		{ .time = 6, .addr = 0x200, .flags = PF },
	};
	struct vmt_hierarchy_config h = { .name = "hand" };
	struct vmt_cachesim_options o = { .cores = 1 };
	struct vmt_cachesim *sim;
	struct vmt_cache_counts c;
	struct lines got = { 0 };

	(void)state;
	add_cache(&h, "L1=256:2:64");
	h.caches[0].prefetch = true;
	sim = make(&h, 1, &o);
	assert_int_equal(vmt_cachesim_bus(sim, 0, take, &got), 0);
	access_at(sim, 1, VMT_ACCESS_READ, 0x000);
	access_at(sim, 2, VMT_ACCESS_READ, 0x040);
	access_at(sim, 3, VMT_ACCESS_READ, 0x080);
	access_at(sim, 4, VMT_ACCESS_WRITE, 0x0c0);
	access_at(sim, 5, VMT_ACCESS_READ, 0x140);
	access_at(sim, 6, VMT_ACCESS_READ, 0x1c0);
	expect(&got, want, sizeof(want) / sizeof(want[0]));
	c = last_level(sim, 0);
	assert_int_equal(c.misses, 4);
	assert_int_equal(c.prefetches, 4);
	assert_int_equal(c.writebacks, 1);
	vmt_cachesim_destroy(sim);
	free(got.v);
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/*
 * A random access of @seed's: reads, writes and read-modify-writes of 1 to
 * 8 bytes (aligned to their size when @aligned, so that none straddles a
 * line), over 32 KiB of two processes and four threads on two CPUs.
 */
static struct vmt_cache_access random_access(uint64_t *seed, uint64_t t, bool aligned)
{
	static const uint8_t kinds[] = { VMT_ACCESS_READ, VMT_ACCESS_READ, VMT_ACCESS_WRITE,
					 VMT_ACCESS_RMW };
	uint64_t r = rng_next(seed);
	uint32_t size = aligned ? 1u << (r % 4) : 1 + (uint32_t)(r % 8);
	uint64_t addr = (r >> 8) % 32768;
	struct vmt_cache_access a;

	if (aligned)
		addr &= ~(uint64_t)(size - 1);
	a = (struct vmt_cache_access){
		.addr = addr, .ip = 0x400000 + (r >> 40) % 64, .size = size,
		.pid = 1 + (uint32_t)(r >> 50) % 2, .tid = 10 + (uint32_t)(r >> 52) % 4,
		.cpu = (uint16_t)((r >> 54) % 2), .access = kinds[(r >> 56) % 4], .time = t,
	};
	return a;
}

/* Every line whole and aligned, caused at a time that never goes back; the counts by flag. */
static void check_lines(const struct lines *got, uint32_t line, uint64_t *fills, uint64_t *wbs,
			uint64_t *pfs)
{
	size_t i;

	*fills = *wbs = *pfs = 0;
	for (i = 0; i < got->n; i++) {
		const struct line *g = &got->v[i];

		assert_int_equal(g->size, line);
		assert_int_equal(g->addr % line, 0);
		if (i)
			assert_true(g->time >= got->v[i - 1].time);
		assert_int_equal(g->ip, 0x400000 + (g->ip - 0x400000) % 64);
		switch (g->flags) {
		case F:
			assert_int_equal(g->access, VMT_ACCESS_READ);
			++*fills;
			break;
		case WB:
			assert_int_equal(g->access, VMT_ACCESS_WRITE);
			++*wbs;
			break;
		case PF:
			assert_int_equal(g->access, VMT_ACCESS_READ);
			++*pfs;
			break;
		default:
			fail_msg("line %zu: flags %#x", i, g->flags);
		}
	}
}

/*
 * Over 30000 random accesses, each hierarchy's bus view against its last
 * level's counts: as many fills as misses (no access reaches the last
 * level across a line: level 1's lines are as wide, or the accesses are
 * aligned), write-backs as write-backs, prefetches as prefetches.
 */
static void run_random(const char *const *specs, unsigned int nr_specs, bool prefetch,
		       bool inclusive, unsigned int cores, bool aligned)
{
	struct vmt_hierarchy_config h = { .name = "random" };
	struct vmt_cachesim_options o = { .cores = cores };
	struct vmt_cachesim *sim;
	struct vmt_cache_counts c;
	struct lines got = { 0 };
	uint64_t seed = 42 + nr_specs + 2 * prefetch + 4 * inclusive + 8 * cores, t;
	uint64_t fills, wbs, pfs;
	unsigned int i;

	for (i = 0; i < nr_specs; i++)
		add_cache(&h, specs[i]);
	h.caches[h.nr_caches - 1].prefetch = prefetch;
	if (inclusive)
		h.caches[h.nr_caches - 1].inclusion = VMT_CACHE_INCLUSIVE;
	sim = make(&h, 1, &o);
	assert_int_equal(vmt_cachesim_bus(sim, 0, take, &got), 0);
	for (t = 0; t < 30000; t++) {
		struct vmt_cache_access a = random_access(&seed, t / 3, aligned);

		assert_int_equal(vmt_cachesim_access(sim, &a), 0);
	}
	c = last_level(sim, 0);
	check_lines(&got, h.caches[h.nr_caches - 1].line, &fills, &wbs, &pfs);
	if (fills != c.misses || wbs != c.writebacks || pfs != c.prefetches)
		fail_msg("%s...: %llu fills, %llu write-backs, %llu prefetches; the counts %llu, "
			 "%llu, %llu", specs[0], (unsigned long long)fills, (unsigned long long)wbs,
			 (unsigned long long)pfs, (unsigned long long)c.misses,
			 (unsigned long long)c.writebacks, (unsigned long long)c.prefetches);
	assert_true(fills > 1000 && wbs > 100);
	assert_true(!prefetch || pfs > 100);
	vmt_cachesim_destroy(sim);
	free(got.v);
}

static void test_bus_random(void **state)
{
	static const char *const two[] = { "L1=1k:2:64", "L2=4k:4:64" };
	static const char *const one[] = { "L1=2k:4:64" };
	static const char *const wide[] = { "L1=1k:2:32", "L2=8k:8:128:plru" };

	(void)state;
	run_random(two, 2, false, false, 1, false);
	run_random(two, 2, true, false, 1, false);
	run_random(two, 2, false, true, 1, false);
	run_random(two, 2, false, false, 2, false);
	run_random(one, 1, false, false, 1, true);
	run_random(one, 1, true, false, 1, true);
	run_random(wide, 2, true, false, 1, false);
}

/*
 * A one-level hierarchy whose cache is an earlier hierarchy's level 1 too
 * follows that one (it is not simulated again): its bus view is what the
 * leader sent outward, the same as when it is simulated alone.
 */
static void test_bus_follower(void **state)
{
	struct vmt_hierarchy_config h[2] = { { .name = "two" }, { .name = "one" } };
	struct vmt_cachesim_options o = { .cores = 1 };
	struct lines alone = { 0 }, followed = { 0 }, leader = { 0 };
	struct vmt_cachesim *a, *b;
	uint64_t seed = 5, t;
	size_t i;

	(void)state;
	add_cache(&h[0], "L1=1k:2:64");
	add_cache(&h[0], "L2=4k:4:64");
	add_cache(&h[1], "L1=1k:2:64");
	h[0].caches[0].prefetch = h[1].caches[0].prefetch = true;
	a = make(&h[1], 1, &o);
	b = make(h, 2, &o);
	assert_int_equal(vmt_cachesim_bus(a, 0, take, &alone), 0);
	assert_int_equal(vmt_cachesim_bus(b, 1, take, &followed), 0);
	assert_int_equal(vmt_cachesim_bus(b, 0, take, &leader), 0);
	for (t = 0; t < 20000; t++) {
		struct vmt_cache_access x = random_access(&seed, t, true);

		assert_int_equal(vmt_cachesim_access(a, &x), 0);
		assert_int_equal(vmt_cachesim_access(b, &x), 0);
	}
	assert_true(alone.n > 1000);
	assert_int_equal(followed.n, alone.n);
	for (i = 0; i < alone.n; i++)
		assert_memory_equal(&followed.v[i], &alone.v[i], sizeof(alone.v[i]));
	assert_int_equal(last_level(b, 1).misses, last_level(a, 0).misses);
	assert_int_equal(last_level(b, 0).misses + last_level(b, 0).prefetches,
			 leader.n - last_level(b, 0).writebacks);
	vmt_cachesim_destroy(a);
	vmt_cachesim_destroy(b);
	free(alone.v);
	free(followed.v);
	free(leader.v);
}

/* A callback's error stops the simulation with it. */
static int refuse(void *ctx, const struct vmt_cachesim_bus *b)
{
	(void)ctx;
	(void)b;
	return -ENOSPC;
}

static void test_bus_error(void **state)
{
	struct vmt_hierarchy_config h = { .name = "err" };
	struct vmt_cachesim_options o = { .cores = 1 };
	struct vmt_cache_access a = { .addr = 0x1000, .size = 4, .access = VMT_ACCESS_READ };
	struct vmt_cachesim *sim;

	(void)state;
	add_cache(&h, "L1=256:2:64");
	sim = make(&h, 1, &o);
	assert_int_equal(vmt_cachesim_bus(sim, 0, refuse, NULL), 0);
	assert_int_equal(vmt_cachesim_access(sim, &a), -ENOSPC);
	vmt_cachesim_destroy(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bus_by_hand),
		cmocka_unit_test(test_bus_prefetch),
		cmocka_unit_test(test_bus_random),
		cmocka_unit_test(test_bus_follower),
		cmocka_unit_test(test_bus_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
