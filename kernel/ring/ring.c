// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace record rings.
 *
 * One ring per CPU, one producer (the tracer, on that CPU), one consumer (the
 * collector, through mmap). A ring is one zeroed, page-aligned area:
 *
 *   +------------------+----------+----------+-----+------------------+
 *   | vmt_ring_meta    | record 0 | record 1 | ... | record nr - 1    |
 *   | (one page)       |          |          |     |                  |
 *   +------------------+----------+----------+-----+------------------+
 *                      ^ slot of record n is n & (nr - 1)
 *
 * head and tail are free-running 64-bit counts of records; head - tail is the
 * number of unread records. The producer never waits: when the ring is full it
 * drops the record and counts it, and the next record that fits is preceded by
 * a VMT_REC_LOST record carrying the number dropped since the previous one, so
 * a reader sees each gap where it happened:
 *
 *   written + lost == records offered to vmt_ring_write(), exactly
 *   sum of LOST records' counts + pending_lost == lost
 *
 * In overwrite (flight-recorder) mode the producer ignores tail and the
 * newest nr records are always in the ring.
 *
 * The producer trusts nothing in the shared page but tail, and uses tail only
 * to decide whether a slot is free: every store goes to slot head & mask, in
 * bounds whatever a reader wrote.
 */
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/log2.h>
#include <linux/irqflags.h>
#include <linux/string.h>
#include <asm/barrier.h>
#include <asm/page.h>

#include "ring/ring.h"

/**
 * vmt_ring_bytes() - size of the area a ring of @nr_records needs
 * @nr_records:	number of record slots
 *
 * Return: the control page plus the records, in bytes.
 */
size_t vmt_ring_bytes(u32 nr_records)
{
	return PAGE_SIZE + (size_t)nr_records * sizeof(struct vmt_record);
}

/**
 * vmt_ring_init() - lay a ring out over zeroed memory
 * @ring:	the producer's state, filled in here
 * @mem:	vmt_ring_bytes(@nr_records) of page-aligned memory, zeroed from
 *		the control page's head on (its first fields are written here)
 * @nr_records:	slots; a power of two, at least 2
 * @cpu:	the CPU whose records the ring carries
 * @flags:	VMT_RING_* flags
 *
 * Return: 0, or -EINVAL for a bad @nr_records or unknown @flags.
 */
int vmt_ring_init(struct vmt_ring *ring, void *mem, u32 nr_records, u32 cpu,
		  u32 flags)
{
	struct vmt_ring_meta *meta = mem;

	BUILD_BUG_ON(sizeof(struct vmt_record) != VMT_RECORD_SIZE);
	BUILD_BUG_ON(sizeof(struct vmt_ring_meta) > PAGE_SIZE);

	if (nr_records < 2 || !is_power_of_2(nr_records))
		return -EINVAL;
	if (flags & ~VMT_RING_OVERWRITE)
		return -EINVAL;

	memset(ring, 0, sizeof(*ring));
	ring->meta = meta;
	ring->records = mem + PAGE_SIZE;
	ring->mask = nr_records - 1;
	ring->cpu = cpu;
	ring->overwrite = flags & VMT_RING_OVERWRITE;

	meta->meta_size = sizeof(*meta);
	meta->abi_version = VMT_ABI_VERSION;
	meta->record_size = sizeof(struct vmt_record);
	meta->nr_records = nr_records;
	meta->cpu = cpu;
	meta->flags = flags;
	meta->records_offset = PAGE_SIZE;
	return 0;
}

static void vmt_ring_put_lost(struct vmt_ring *ring, u64 time_ns)
{
	struct vmt_record *slot = &ring->records[ring->head & ring->mask];

	memset(slot, 0, sizeof(*slot));
	slot->hdr.time_ns = time_ns;
	slot->hdr.type = VMT_REC_LOST;
	slot->hdr.cpu = ring->cpu;
	slot->lost.count = ring->pending_lost;
	ring->pending_lost = 0;
	ring->head++;
}

/*
 * Copy @len bytes of @data into DATA records after @rec, from slot @head on.
 * Each chunk's header is @rec's, with its own type and length.
 */
static void vmt_ring_put_data(struct vmt_ring *ring, u64 head,
			      const struct vmt_record *rec, const void *data, u32 len)
{
	struct vmt_record *slot;
	u32 off, n;

	for (off = 0; off < len; off += n, head++) {
		n = min_t(u32, len - off, VMT_DATA_CHUNK);
		slot = &ring->records[head & ring->mask];
		slot->hdr = rec->hdr;
		slot->hdr.type = VMT_REC_DATA;
		slot->hdr.data_len = n;
		memcpy(slot->data.bytes, data + off, n);
		memset(slot->data.bytes + n, 0, VMT_DATA_CHUNK - n);
	}
}

/**
 * vmt_ring_write_data() - append a record and its variable-size data
 * @ring:	the ring; only one producer may write to a ring at a time
 * @rec:	the record, copied into the ring; its hdr.data_len is set to @len
 * @data:	the data, copied into VMT_REC_DATA records right after it
 * @len:	bytes at @data, at most VMT_MAX_DATA_LEN
 *
 * The record and its data records are written together or dropped together
 * (and all counted lost): a reader never sees one without the others.
 * Never sleeps, never allocates; safe with interrupts disabled. Interrupts
 * are disabled here so that records written from an interrupt on this CPU
 * cannot interleave with those of the task it interrupted.
 *
 * Return: 0, -EINVAL for a @len over VMT_MAX_DATA_LEN (nothing written or
 * counted), or -ENOSPC when the ring was full and the records were dropped
 * (and counted).
 */
int vmt_ring_write_data(struct vmt_ring *ring, struct vmt_record *rec,
			const void *data, u32 len)
{
	struct vmt_ring_meta *meta = ring->meta;
	u64 chunks = DIV_ROUND_UP(len, VMT_DATA_CHUNK);
	unsigned long irqflags;
	u64 need;
	int ret = 0;

	if (len > VMT_MAX_DATA_LEN)
		return -EINVAL;
	rec->hdr.data_len = len;
	local_irq_save(irqflags);
	need = 1 + chunks + (ring->pending_lost ? 1 : 0);
	if (!ring->overwrite) {
		/* Pairs with the reader's release of tail: its reads are done. */
		u64 tail = smp_load_acquire(&meta->tail);

		if (ring->head - tail + need > (u64)ring->mask + 1) {
			ring->pending_lost += 1 + chunks;
			ring->lost += 1 + chunks;
			WRITE_ONCE(meta->lost, ring->lost);
			ret = -ENOSPC;
			goto out;
		}
		if (ring->pending_lost)
			vmt_ring_put_lost(ring, rec->hdr.time_ns);
	} else if (1 + chunks > (u64)ring->mask + 1) {
		/* It would overwrite itself. */
		ring->lost += 1 + chunks;
		WRITE_ONCE(meta->lost, ring->lost);
		ret = -ENOSPC;
		goto out;
	}
	ring->records[ring->head & ring->mask] = *rec;
	vmt_ring_put_data(ring, ring->head + 1, rec, data, len);
	ring->head += 1 + chunks;
	ring->written += 1 + chunks;
	WRITE_ONCE(meta->written, ring->written);
	/* Pairs with the reader's acquire of head: the records are visible first. */
	smp_store_release(&meta->head, ring->head);
out:
	local_irq_restore(irqflags);
	return ret;
}

/**
 * vmt_ring_write() - append one record without data
 * @ring:	the ring; only one producer may write to a ring at a time
 * @rec:	the record, copied into the ring; its hdr.data_len is set to 0
 *
 * Return: 0, or -ENOSPC when the ring was full and the record was dropped
 * (and counted).
 */
int vmt_ring_write(struct vmt_ring *ring, struct vmt_record *rec)
{
	return vmt_ring_write_data(ring, rec, NULL, 0);
}

/**
 * vmt_ring_consume() - the reader's side, for in-kernel readers and tests
 * @meta:	the ring's control page
 * @records:	its records
 * @out:	where to copy records to
 * @max:	room in @out
 *
 * Copies the oldest unread records, up to @max, and releases their slots.
 * The collector does the same in userspace with the same barriers.
 *
 * Return: the number of records copied.
 */
u32 vmt_ring_consume(struct vmt_ring_meta *meta,
		     const struct vmt_record *records,
		     struct vmt_record *out, u32 max)
{
	u64 tail = READ_ONCE(meta->tail);
	/* Pairs with the producer's release of head. */
	u64 head = smp_load_acquire(&meta->head);
	u32 mask = READ_ONCE(meta->nr_records) - 1;
	u32 n = 0;

	while (tail + n != head && n < max) {
		out[n] = records[(tail + n) & mask];
		n++;
	}
	/* Pairs with the producer's acquire of tail: our reads are done. */
	smp_store_release(&meta->tail, tail + n);
	return n;
}

#ifdef CONFIG_VMTRACE_KUNIT_TEST
#include "tests/ring-kunit.h"
#endif
