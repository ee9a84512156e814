/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for the record rings. Included at the bottom of ring.c so that
 * they can reach its static helpers.
 */
#ifndef _VMTRACE_RING_KUNIT_H
#define _VMTRACE_RING_KUNIT_H

#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

/* A record whose vaddr carries a sequence number, so order can be checked. */
static struct vmt_record ring_test_rec(u64 seq)
{
	struct vmt_record rec = {};

	rec.hdr.type = VMT_REC_REFERENCE;
	rec.hdr.time_ns = 1000 + seq;
	rec.ref.vaddr = seq;
	return rec;
}

static struct vmt_ring *ring_test_new(struct kunit *test, u32 nr, u32 flags)
{
	struct vmt_ring *ring = kunit_kzalloc(test, sizeof(*ring), GFP_KERNEL);
	void *mem = vzalloc(vmt_ring_bytes(nr));

	if (!ring || !mem) {
		vfree(mem);
		kunit_skip(test, "out of memory");
	}
	KUNIT_ASSERT_EQ(test, vmt_ring_init(ring, mem, nr, 3, flags), 0);
	return ring;
}

static void ring_test_free(struct vmt_ring *ring)
{
	vfree(ring->meta);
}

static u32 ring_test_read(struct vmt_ring *ring, struct vmt_record *out, u32 max)
{
	return vmt_ring_consume(ring->meta, ring->records, out, max);
}

static void ring_test_init_rejects_bad_sizes(struct kunit *test)
{
	static const u32 bad[] = { 0, 1, 3, 6, 100, 0x80000001 };
	struct vmt_ring ring;
	char mem[1];
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, vmt_ring_init(&ring, mem, bad[i], 0, 0),
				    -EINVAL, "nr_records %u", bad[i]);
	KUNIT_EXPECT_EQ(test, vmt_ring_init(&ring, mem, 8, 0, 0x80), -EINVAL);
}

static void ring_test_meta_describes_ring(struct kunit *test)
{
	struct vmt_ring *ring = ring_test_new(test, 16, VMT_RING_OVERWRITE);

	KUNIT_EXPECT_EQ(test, ring->meta->meta_size, sizeof(struct vmt_ring_meta));
	KUNIT_EXPECT_EQ(test, ring->meta->abi_version, VMT_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, ring->meta->record_size, VMT_RECORD_SIZE);
	KUNIT_EXPECT_EQ(test, ring->meta->nr_records, 16);
	KUNIT_EXPECT_EQ(test, ring->meta->cpu, 3);
	KUNIT_EXPECT_EQ(test, ring->meta->flags, VMT_RING_OVERWRITE);
	KUNIT_EXPECT_EQ(test, ring->meta->records_offset, PAGE_SIZE);
	KUNIT_EXPECT_PTR_EQ(test, (void *)ring->records, (void *)ring->meta + PAGE_SIZE);
	ring_test_free(ring);
}

/* Twenty records through eight slots, read in threes: order survives the wrap. */
static void ring_test_wraps_in_order(struct kunit *test)
{
	struct vmt_ring *ring = ring_test_new(test, 8, 0);
	struct vmt_record rec, out[3];
	u64 next_write = 0, next_read = 0;
	u32 n, i;

	while (next_read < 20) {
		while (next_write < 20 && next_write - next_read < 8) {
			rec = ring_test_rec(next_write++);
			KUNIT_ASSERT_EQ(test, vmt_ring_write(ring, &rec), 0);
		}
		n = ring_test_read(ring, out, ARRAY_SIZE(out));
		KUNIT_ASSERT_GT(test, n, 0);
		for (i = 0; i < n; i++) {
			KUNIT_EXPECT_EQ(test, out[i].hdr.type, VMT_REC_REFERENCE);
			KUNIT_EXPECT_EQ(test, out[i].ref.vaddr, next_read++);
		}
	}
	KUNIT_EXPECT_EQ(test, ring->meta->head, 20);
	KUNIT_EXPECT_EQ(test, ring->meta->tail, 20);
	KUNIT_EXPECT_EQ(test, ring->meta->written, 20);
	KUNIT_EXPECT_EQ(test, ring->meta->lost, 0);
	ring_test_free(ring);
}

/*
 * A full ring drops and counts; the first record that fits afterwards comes
 * behind a LOST record carrying the exact count:
 *
 *   write 0..11 into 8 slots     -> 0..7 kept, 8..11 lost (4)
 *   read all, write 12           -> 0..7, LOST(4), 12
 */
static void ring_test_full_counts_loss_in_band(struct kunit *test)
{
	struct vmt_ring *ring = ring_test_new(test, 8, 0);
	struct vmt_record rec, out[8];
	u64 seq;
	u32 n, i;

	for (seq = 0; seq < 12; seq++) {
		rec = ring_test_rec(seq);
		KUNIT_EXPECT_EQ(test, vmt_ring_write(ring, &rec), seq < 8 ? 0 : -ENOSPC);
	}
	KUNIT_EXPECT_EQ(test, ring->meta->lost, 4);
	KUNIT_EXPECT_EQ(test, ring->meta->written, 8);

	n = ring_test_read(ring, out, ARRAY_SIZE(out));
	KUNIT_ASSERT_EQ(test, n, 8);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, out[i].ref.vaddr, i);

	rec = ring_test_rec(12);
	KUNIT_EXPECT_EQ(test, vmt_ring_write(ring, &rec), 0);
	n = ring_test_read(ring, out, ARRAY_SIZE(out));
	KUNIT_ASSERT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, out[0].hdr.type, VMT_REC_LOST);
	KUNIT_EXPECT_EQ(test, out[0].hdr.cpu, 3);
	KUNIT_EXPECT_EQ(test, out[0].lost.count, 4);
	KUNIT_EXPECT_EQ(test, out[1].hdr.type, VMT_REC_REFERENCE);
	KUNIT_EXPECT_EQ(test, out[1].ref.vaddr, 12);
	KUNIT_EXPECT_EQ(test, ring->meta->written, 9);
	KUNIT_EXPECT_EQ(test, ring->meta->lost, 4);
	ring_test_free(ring);
}

/*
 * A record after a loss needs two slots (LOST + itself). With one free slot
 * it is dropped too, and counted into the same gap.
 */
static void ring_test_loss_record_needs_room(struct kunit *test)
{
	struct vmt_ring *ring = ring_test_new(test, 8, 0);
	struct vmt_record rec, out[8];
	u64 seq;

	for (seq = 0; seq < 9; seq++) {	/* 8 kept, 1 lost */
		rec = ring_test_rec(seq);
		vmt_ring_write(ring, &rec);
	}
	KUNIT_ASSERT_EQ(test, ring_test_read(ring, out, 1), 1);	/* one slot free */
	rec = ring_test_rec(9);
	KUNIT_EXPECT_EQ(test, vmt_ring_write(ring, &rec), -ENOSPC);
	KUNIT_EXPECT_EQ(test, ring->meta->lost, 2);

	KUNIT_ASSERT_EQ(test, ring_test_read(ring, out, 8), 7);	/* all free */
	rec = ring_test_rec(10);
	KUNIT_EXPECT_EQ(test, vmt_ring_write(ring, &rec), 0);
	KUNIT_ASSERT_EQ(test, ring_test_read(ring, out, 8), 2);
	KUNIT_EXPECT_EQ(test, out[0].hdr.type, VMT_REC_LOST);
	KUNIT_EXPECT_EQ(test, out[0].lost.count, 2);
	KUNIT_EXPECT_EQ(test, out[1].ref.vaddr, 10);
	ring_test_free(ring);
}

/*
 * A record with data takes 1 + DIV_ROUND_UP(len, 40) slots, written together
 * or dropped together:
 *
 *   8 slots: write A with 100 bytes (4 slots), B with 150 (5: no room)
 *   -> A, DATA(40), DATA(40), DATA(20); B and its 4 chunks lost (5)
 */
static void ring_test_data_is_all_or_nothing(struct kunit *test)
{
	struct vmt_ring *ring = ring_test_new(test, 8, 0);
	struct vmt_record rec, out[8];
	u8 data[150];
	u32 i, n;

	for (i = 0; i < sizeof(data); i++)
		data[i] = i;
	rec = ring_test_rec(1);
	KUNIT_EXPECT_EQ(test, vmt_ring_write_data(ring, &rec, data, 100), 0);
	rec = ring_test_rec(2);
	KUNIT_EXPECT_EQ(test, vmt_ring_write_data(ring, &rec, data, 150), -ENOSPC);
	KUNIT_EXPECT_EQ(test, ring->meta->lost, 5);
	KUNIT_EXPECT_EQ(test, ring->meta->written, 4);
	rec = ring_test_rec(3);
	KUNIT_EXPECT_EQ(test, vmt_ring_write_data(ring, &rec, data, VMT_MAX_DATA_LEN + 1),
			-EINVAL);

	n = ring_test_read(ring, out, ARRAY_SIZE(out));
	KUNIT_ASSERT_EQ(test, n, 4);
	KUNIT_EXPECT_EQ(test, out[0].hdr.type, VMT_REC_REFERENCE);
	KUNIT_EXPECT_EQ(test, out[0].hdr.data_len, 100);
	for (i = 1; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, out[i].hdr.type, VMT_REC_DATA);
		KUNIT_EXPECT_EQ(test, out[i].hdr.time_ns, out[0].hdr.time_ns);
		KUNIT_EXPECT_EQ(test, out[i].hdr.data_len, i < 3 ? 40 : 20);
		KUNIT_EXPECT_EQ(test, out[i].data.bytes[0], (i - 1) * 40);
	}
	KUNIT_EXPECT_EQ(test, out[3].data.bytes[19], 99);
	KUNIT_EXPECT_EQ(test, out[3].data.bytes[20], 0);

	/* The gap is one LOST record counting the record and its chunks. */
	rec = ring_test_rec(4);
	KUNIT_EXPECT_EQ(test, vmt_ring_write_data(ring, &rec, data, 40), 0);
	n = ring_test_read(ring, out, ARRAY_SIZE(out));
	KUNIT_ASSERT_EQ(test, n, 3);
	KUNIT_EXPECT_EQ(test, out[0].hdr.type, VMT_REC_LOST);
	KUNIT_EXPECT_EQ(test, out[0].lost.count, 5);
	KUNIT_EXPECT_EQ(test, out[1].ref.vaddr, 4);
	KUNIT_EXPECT_EQ(test, out[2].hdr.data_len, 40);
	ring_test_free(ring);
}

/* Overwrite mode never drops: the newest nr records are in the ring. */
static void ring_test_overwrite_keeps_newest(struct kunit *test)
{
	struct vmt_ring *ring = ring_test_new(test, 8, VMT_RING_OVERWRITE);
	struct vmt_record rec;
	u64 seq;

	for (seq = 0; seq < 20; seq++) {
		rec = ring_test_rec(seq);
		KUNIT_EXPECT_EQ(test, vmt_ring_write(ring, &rec), 0);
	}
	KUNIT_EXPECT_EQ(test, ring->meta->head, 20);
	KUNIT_EXPECT_EQ(test, ring->meta->lost, 0);
	for (seq = 12; seq < 20; seq++)
		KUNIT_EXPECT_EQ(test, ring->records[seq & 7].ref.vaddr, seq);
	ring_test_free(ring);
}

/* A reader that writes a bogus tail loses its own data, not the kernel's memory. */
static void ring_test_bogus_tail_stays_in_bounds(struct kunit *test)
{
	struct vmt_ring *ring = ring_test_new(test, 8, 0);
	struct vmt_record rec = ring_test_rec(1);
	u64 bogus[] = { 1000, U64_MAX, 7 };
	int i;

	for (i = 0; i < ARRAY_SIZE(bogus); i++) {
		WRITE_ONCE(ring->meta->tail, bogus[i]);
		vmt_ring_write(ring, &rec);
	}
	KUNIT_EXPECT_EQ(test, ring->written + ring->lost, ARRAY_SIZE(bogus));
	ring_test_free(ring);
}

struct ring_race {
	struct vmt_ring *ring;
	u64 total;
	u64 consumed;
	u64 lost_seen;
	u64 out_of_order;
	bool done;
	struct completion finished;
};

/*
 * The reader thread: checks that the sequence numbers it sees advance by one,
 * or by exactly the count of the LOST record in front of them.
 */
static int ring_race_reader(void *arg)
{
	struct ring_race *race = arg;
	struct vmt_record out[8];
	u64 expect = 0;
	u32 n, i;

	for (;;) {
		/* Pairs with the writer's release: all its records are published. */
		bool done = smp_load_acquire(&race->done);

		n = ring_test_read(race->ring, out, ARRAY_SIZE(out));
		for (i = 0; i < n; i++) {
			if (out[i].hdr.type == VMT_REC_LOST) {
				race->lost_seen += out[i].lost.count;
				expect += out[i].lost.count;
				continue;
			}
			if (out[i].ref.vaddr != expect)
				race->out_of_order++;
			expect = out[i].ref.vaddr + 1;
			race->consumed++;
		}
		if (!n && done)
			break;
		if (!n)
			cond_resched();
	}
	complete(&race->finished);
	return 0;
}

/*
 * A CPU for the reader other than @writer_cpu. The guest tests load the module
 * with the other CPUs offline (tests/vm/lib.sh: QEMU's TCG hangs now and then
 * when the kernel patches code that another vCPU runs, and loading registers
 * tracepoints), so bring one up when none is online; *@brought_up says which.
 */
static int ring_race_reader_cpu(int writer_cpu, int *brought_up)
{
	int cpu = cpumask_any_but(cpu_online_mask, writer_cpu);

	*brought_up = -1;
	if (cpu < nr_cpu_ids)
		return cpu;
	for_each_present_cpu(cpu) {
		if (!cpu_online(cpu) && !add_cpu(cpu)) {
			*brought_up = cpu;
			return cpu;
		}
	}
	return -1;
}

/* The writer on one CPU, the reader on another, 200000 records through 64 slots. */
static void ring_test_reader_races_writer(struct kunit *test)
{
	struct ring_race race = { .total = 200000 };
	int writer_cpu, reader_cpu, brought_up;
	struct task_struct *reader;
	struct vmt_record rec;
	u64 seq;

	/* The test's own thread, which ends with the case: pin it for the run. */
	writer_cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(writer_cpu)), 0);
	race.ring = ring_test_new(test, 64, 0);
	init_completion(&race.finished);
	reader_cpu = ring_race_reader_cpu(writer_cpu, &brought_up);
	if (reader_cpu < 0) {
		ring_test_free(race.ring);
		kunit_skip(test, "no second CPU to race on");
	}
	reader = kthread_create(ring_race_reader, &race, "vmt-ring-test");
	if (IS_ERR(reader)) {
		ring_test_free(race.ring);
		if (brought_up >= 0)
			remove_cpu(brought_up);
		KUNIT_FAIL(test, "no reader thread: %ld", PTR_ERR(reader));
		return;
	}
	/* kthread_stop() below needs the task after it has returned. */
	get_task_struct(reader);
	kthread_bind(reader, reader_cpu);
	wake_up_process(reader);
	for (seq = 0; seq < race.total; seq++) {
		rec = ring_test_rec(seq);
		vmt_ring_write(race.ring, &rec);
		if (!(seq & 1023))
			cond_resched();
	}
	/* Pairs with the reader's acquire: it drains once more after this. */
	smp_store_release(&race.done, true);
	wait_for_completion(&race.finished);
	/* The reader has returned: wait for it to exit before its CPU goes. */
	kthread_stop(reader);
	put_task_struct(reader);
	if (brought_up >= 0)
		KUNIT_EXPECT_EQ(test, remove_cpu(brought_up), 0);

	/* The gap still pending at the end has no LOST record yet. */
	KUNIT_EXPECT_EQ(test, race.out_of_order, 0);
	KUNIT_EXPECT_EQ(test, race.consumed, race.ring->written);
	KUNIT_EXPECT_EQ(test, race.lost_seen + race.ring->pending_lost, race.ring->lost);
	KUNIT_EXPECT_EQ(test, race.consumed + race.ring->lost, race.total);
	kunit_info(test, "writer on CPU %d, reader on CPU %d%s: %llu consumed, %llu lost",
		   writer_cpu, reader_cpu, brought_up >= 0 ? " (brought up for the test)" : "",
		   race.consumed, race.ring->lost);
	ring_test_free(race.ring);
}

static struct kunit_case vmt_ring_test_cases[] = {
	KUNIT_CASE(ring_test_init_rejects_bad_sizes),
	KUNIT_CASE(ring_test_meta_describes_ring),
	KUNIT_CASE(ring_test_wraps_in_order),
	KUNIT_CASE(ring_test_full_counts_loss_in_band),
	KUNIT_CASE(ring_test_loss_record_needs_room),
	KUNIT_CASE(ring_test_data_is_all_or_nothing),
	KUNIT_CASE(ring_test_overwrite_keeps_newest),
	KUNIT_CASE(ring_test_bogus_tail_stays_in_bounds),
	KUNIT_CASE(ring_test_reader_races_writer),
	{}
};

static struct kunit_suite vmt_ring_test_suite = {
	.name = "vmtrace-ring",
	.test_cases = vmt_ring_test_cases,
};

kunit_test_suite(vmt_ring_test_suite);

#endif /* _VMTRACE_RING_KUNIT_H */
