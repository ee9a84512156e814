// SPDX-License-Identifier: GPL-2.0
/*
 * A benchmark module for `make bench`: the record ring's write path.
 *
 * It builds kernel/ring/ring.c into itself, lays one ring out in vmalloc memory,
 * and writes @records reference records into it from a kthread bound to
 * CPU 0, each stamped as the fault probe stamps them, while a second kthread
 * bound to CPU 1 drains it with vmt_ring_consume() as the collector does. It
 * does so twice, prints each result to the kernel log, and stays loaded
 * until removed:
 *
 * - paced: before each burst of a quarter of the ring, the writer waits until
 *   the burst fits, so no record is lost; only the time spent writing counts
 *   (the write path's rate), and the wall time gives the sustained rate with
 *   the consumer keeping up.
 * - free: the writer never waits; the rate and the records the ring dropped
 *   because the consumer fell behind.
 *
 *   vmt_bench_ring: paced: N records, 0 lost, write path R records/s, sustained S records/s
 *   vmt_bench_ring: free: N records, L lost, R records/s
 */
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

/* The ring itself, not its KUnit suite (that is vmtrace-kunit.ko's). */
#undef CONFIG_VMTRACE_KUNIT_TEST
#include "../../kernel/ring/ring.c"

static unsigned int records = 4000000;
module_param(records, uint, 0444);
MODULE_PARM_DESC(records, "records each run writes");
static unsigned int ring_records = 8192;
module_param(ring_records, uint, 0444);
MODULE_PARM_DESC(ring_records, "slots in the ring (a power of two)");

#define CONSUME_BATCH	256

struct bench_run {
	struct vmt_ring ring;
	bool paced;
	bool writer_done;
	u64 write_ns;		/* time inside the writes (paced) */
	u64 wall_ns;		/* first write to the last record consumed */
	u64 consumed;
	struct completion consumer_done;
	struct completion writer_exit;
};

static void bench_fill(struct vmt_record *rec, u64 i)
{
	rec->hdr.time_ns = ktime_get_mono_fast_ns();
	rec->hdr.pid = 1;
	rec->hdr.tid = 1;
	rec->hdr.type = VMT_REC_REFERENCE;
	rec->hdr.cpu = raw_smp_processor_id();
	rec->ref.vaddr = 0x7f0000000000ULL + (i << PAGE_SHIFT);
	rec->ref.pfn = i;
	rec->ref.access = VMT_ACCESS_WRITE;
	rec->ref.cause = VMT_CAUSE_DEMAND;
}

static u64 bench_free_slots(struct bench_run *run)
{
	/* Pairs with the reader's release of tail, as in vmt_ring_write(). */
	u64 tail = smp_load_acquire(&run->ring.meta->tail);

	return (u64)run->ring.mask + 1 - (run->ring.head - tail);
}

static int bench_writer(void *arg)
{
	struct bench_run *run = arg;
	u64 burst = ((u64)run->ring.mask + 1) / 4;
	struct vmt_record rec = {};
	u64 i = 0, t;

	while (i < records) {
		u64 end = min_t(u64, records, i + burst);

		if (run->paced)
			while (bench_free_slots(run) < end - i)
				cpu_relax();
		t = ktime_get_ns();
		for (; i < end; i++) {
			bench_fill(&rec, i);
			vmt_ring_write(&run->ring, &rec);
		}
		run->write_ns += ktime_get_ns() - t;
		cond_resched();
	}
	/* Pairs with the consumer's acquire: every record is published first. */
	smp_store_release(&run->writer_done, true);
	kthread_complete_and_exit(&run->writer_exit, 0);
}

static int bench_consumer(void *arg)
{
	struct bench_run *run = arg;
	struct vmt_record *buf;
	u32 n;

	buf = kmalloc_array(CONSUME_BATCH, sizeof(*buf), GFP_KERNEL);
	if (buf) {
		for (;;) {
			/* Pairs with the writer's release: its records are all published. */
			bool done = smp_load_acquire(&run->writer_done);

			n = vmt_ring_consume(run->ring.meta, run->ring.records,
					     buf, CONSUME_BATCH);
			run->consumed += n;
			if (!n && done)
				break;
			if (!n)
				cond_resched();
		}
		kfree(buf);
	}
	kthread_complete_and_exit(&run->consumer_done, 0);
}

static u64 bench_rate(u64 n, u64 ns)
{
	return ns ? div64_u64(n * NSEC_PER_SEC, ns) : 0;
}

static int bench_one(bool paced)
{
	struct task_struct *writer, *consumer;
	struct bench_run *run;
	void *mem;
	u64 t;
	int err;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	mem = vzalloc(vmt_ring_bytes(ring_records));
	err = -ENOMEM;
	if (!mem)
		goto out_free_run;
	err = vmt_ring_init(&run->ring, mem, ring_records, 0, 0);
	if (err)
		goto out_free_mem;
	run->paced = paced;
	init_completion(&run->consumer_done);
	init_completion(&run->writer_exit);

	consumer = kthread_create(bench_consumer, run, "vmt_bench_read");
	err = PTR_ERR_OR_ZERO(consumer);
	if (err)
		goto out_free_mem;
	writer = kthread_create(bench_writer, run, "vmt_bench_write");
	err = PTR_ERR_OR_ZERO(writer);
	if (err)
		goto out_stop_consumer;
	kthread_bind(writer, 0);
	kthread_bind(consumer, num_online_cpus() > 1 ? 1 : 0);

	t = ktime_get_ns();
	wake_up_process(consumer);
	wake_up_process(writer);
	wait_for_completion(&run->writer_exit);
	wait_for_completion(&run->consumer_done);
	run->wall_ns = ktime_get_ns() - t;

	if (paced)
		pr_info("vmt_bench_ring: paced: %u records, %llu lost, %llu consumed, write path %llu records/s, sustained %llu records/s\n",
			records, run->ring.lost, run->consumed,
			bench_rate(run->ring.written, run->write_ns),
			bench_rate(run->consumed, run->wall_ns));
	else
		pr_info("vmt_bench_ring: free: %u records, %llu lost, %llu consumed, %llu records/s\n",
			records, run->ring.lost, run->consumed,
			bench_rate(records, run->write_ns));
	err = 0;
	goto out_free_mem;

out_stop_consumer:
	/* Never woken: kthread_stop() makes it exit without running its loop. */
	kthread_stop(consumer);
out_free_mem:
	vfree(mem);
out_free_run:
	kfree(run);
	return err;
}

static int __init vmt_bench_ring_init(void)
{
	int err;

	err = bench_one(true);
	if (!err)
		err = bench_one(false);
	return err;
}
module_init(vmt_bench_ring_init);

static void __exit vmt_bench_ring_exit(void)
{
}
module_exit(vmt_bench_ring_exit);
MODULE_DESCRIPTION("vmtrace benchmark: the record ring's write path");
MODULE_LICENSE("GPL");
