// SPDX-License-Identifier: GPL-2.0
/*
 * The model codec's enabled-set replay (user/lib/codec/model_replay.c, driven by
 * code_eviction() in codec_model.c) against the kernel's own enabled set
 * (kernel/protect/enabled_set.c, built here in user space over the shims in
 * tests/unit/kernel_shim/): a simulated process faults on pages, the
 * kernel's set admits them and chooses the victims, FIFO or CLOCK (with
 * Accessed bits the simulation keeps), batches included, and the trace of
 * those references and evictions goes through the model codec's encoder.
 * The replay must find every victim where the kernel took it: under FIFO
 * always the oldest page, under CLOCK after passing over exactly the pages
 * the kernel gave a second chance. Both files are included, so that the
 * test reaches their static functions, as the kernel's KUnit suites do.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#include "../../kernel/protect/enabled_set.c"
#include "../../user/lib/codec/codec_model.c"

#define PAGES		400
#define BASE		0x7f0000000000ul
#define PID		77

struct sim {
	struct vmt_eset set;
	void *storage;
	bool accessed[PAGES];		/* the pages' Accessed bits */
	uint64_t second_chances;	/* young() said yes: the kernel passed the page over */
	uint64_t rng, time;
	struct vmt_record *recs;
	size_t n;
};

static uint64_t sim_rng(struct sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

static bool young(void *ctx, unsigned long addr)
{
	struct sim *s = ctx;
	size_t page = (addr - BASE) >> PAGE_SHIFT;
	bool was = s->accessed[page];

	s->accessed[page] = false;
	s->second_chances += was;
	return was;
}

static void emit(struct sim *s, uint16_t type, unsigned long addr, uint64_t ip)
{
	struct vmt_record *r = &s->recs[s->n++];

	memset(r, 0, sizeof(*r));
	s->time += 10 * (1 + sim_rng(s) % 200);
	r->hdr.time_ns = s->time;
	r->hdr.pid = r->hdr.tid = PID;
	r->hdr.type = type;
	r->ref.vaddr = addr;
	r->ref.pfn = 0x1000 + ((addr - BASE) >> PAGE_SHIFT);
	r->ref.ip = ip;
	if (type == VMT_REC_REFERENCE) {
		r->ref.access = VMT_ACCESS_READ;
		r->ref.error_code = 4;
	} else {
		r->ref.evict_flags = VMT_EVICT_ACCESSED;
	}
}

/*
 * @accesses accesses, 3 in 4 to a hot set of @hot pages, to a kernel set of
 * @capacity pages: an access to an enabled page sets its Accessed bit; one
 * to a protected page faults (a reference), is admitted, and evicts.
 */
static void simulate(struct sim *s, u32 capacity, bool clock, size_t accesses, size_t hot)
{
	u32 slots = vmt_eset_slots(capacity);
	unsigned long victims[VMT_ESET_BATCH_MAX];

	memset(s, 0, sizeof(*s));
	s->rng = 0x2545f4914f6cdd1dull + capacity + clock;
	s->time = 1000000;
	s->storage = calloc(1, vmt_eset_storage(slots));
	s->recs = calloc(2 * accesses, sizeof(*s->recs));
	assert_non_null(s->storage);
	assert_non_null(s->recs);
	vmt_eset_init(&s->set, s->storage, slots, capacity, clock);
	for (size_t i = 0; i < accesses; i++) {
		size_t page = sim_rng(s) % 4 ? sim_rng(s) % hot : sim_rng(s) % PAGES;
		unsigned long addr = BASE + (page << PAGE_SHIFT);
		u32 k;

		if (vmt_eset_find(&s->set, addr) >= 0) {
			s->accessed[page] = true;
			continue;
		}
		/* A new ip each fault: no run of same-ip faults pins pages. */
		emit(s, VMT_REC_REFERENCE, addr + 8 * (i % 500), 0x400000 + 4 * i);
		assert_true(vmt_eset_admit(&s->set, addr, PID, 0x400000 + 4 * i, false));
		s->accessed[page] = true;
		while (vmt_eset_over(&s->set)) {
			k = vmt_eset_evict(&s->set, victims, VMT_ESET_BATCH_MAX, young, s);
			assert_true(k > 0);
			for (u32 v = 0; v < k; v++)
				emit(s, VMT_REC_EVICT, victims[v], 0);
		}
	}
}

/* The encoder over the whole trace, as one frame; its walk counters, and a round trip. */
static void replay(struct sim *s, bool requeue, uint64_t *passes, uint64_t *misses)
{
	uint32_t n = (uint32_t)s->n;
	struct model *m = model_new(n);
	struct vmt_buf out = { 0 };
	struct vmt_record *back = malloc(s->n * sizeof(*back));
	int64_t unit;

	assert_non_null(m);
	assert_non_null(back);
	unit = frame_time_unit(s->recs, n, m);
	assert_int_equal(encode_frame(m, s->recs, n, (uint64_t)unit, requeue, MODEL_CODED_2, &out), 0);
	*passes = m->walk_passes;
	*misses = m->walk_misses;
	assert_int_equal(vmt_model_decompress(out.data, out.size, back, s->n * sizeof(*back), false), 0);
	assert_memory_equal(back, s->recs, s->n * sizeof(*back));
	vmt_buf_free(&out);
	model_free(m);
	free(back);
}

static size_t evictions(const struct sim *s)
{
	size_t count = 0;

	for (size_t i = 0; i < s->n; i++)
		count += s->recs[i].hdr.type == VMT_REC_EVICT;
	return count;
}

static void sim_free(struct sim *s)
{
	free(s->storage);
	free(s->recs);
}

/* FIFO, N = 40, 64 and 300 (batches of 1, 2 and 9): every victim is the replay's oldest page. */
static void test_fifo_agrees(void **state)
{
	static const u32 capacities[] = { 40, 64, 300 };
	struct sim s;
	uint64_t passes, misses;

	(void)state;
	for (size_t c = 0; c < sizeof(capacities) / sizeof(capacities[0]); c++) {
		simulate(&s, capacities[c], false, 60000, 48);
		assert_true(evictions(&s) > 1000);
		replay(&s, false, &passes, &misses);
		print_message("FIFO N=%u: %zu evictions, %llu passed over, %llu not found\n",
			      capacities[c], evictions(&s), (unsigned long long)passes,
			      (unsigned long long)misses);
		assert_int_equal(misses, 0);
		assert_int_equal(passes, 0);
		sim_free(&s);
	}
}

/*
 * CLOCK: every victim is in the replayed set, and the replay passes over
 * the pages the kernel gave a second chance: exactly, while the hand never
 * goes round the whole set (hot set N/2). When it does (hot set N), the
 * kernel gives N second chances and evicts the oldest, which the replay
 * finds first, and the page of the current run it passed over unasked
 * (pinned) stays behind the others, which the replay does not know: the
 * counts then differ, not the victims.
 */
static void test_clock_agrees(void **state)
{
	struct sim s;
	uint64_t passes, misses;

	(void)state;
	for (size_t hot = 32; hot <= 64; hot += 32) {
		simulate(&s, 64, true, 60000, hot);
		assert_true(evictions(&s) > 1000);
		assert_true(s.second_chances > 1000);
		replay(&s, true, &passes, &misses);
		print_message("CLOCK N=64, hot %zu: %zu evictions, %llu second chances, "
			      "replay passed %llu, %llu not found\n", hot, evictions(&s), (unsigned long long)s.second_chances,
			      (unsigned long long)passes, (unsigned long long)misses);
		assert_int_equal(misses, 0);
		if (hot == 32)
			assert_int_equal(passes, s.second_chances);
		sim_free(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_agrees),
		cmocka_unit_test(test_clock_agrees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
