// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Records with data, put back together from the DATA records that follow
 * them on their CPU (device/record_assembler.h). Only the bytes: where
 * they go (a trace's data stream, a line of dump-raw) is the caller's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device/record_assembler.h"

/* A record with data, and as much of its data as has come. */
struct vmt_record_assembly_slot {
	struct vmt_record owner;
	uint32_t have;
	bool active;
	uint8_t bytes[VMT_MAX_DATA_LEN];
};

void vmt_record_assembler_init(struct vmt_record_assembler *a, vmt_record_assembled_fn assembled,
			       void *ctx)
{
	memset(a, 0, sizeof(*a));
	a->assembled = assembled;
	a->ctx = ctx;
}

static struct vmt_record_assembly_slot *slot_of(struct vmt_record_assembler *a, uint32_t cpu,
						bool create)
{
	struct vmt_record_assembly_slot **grown;

	if (cpu >= a->nr_cpus) {
		if (!create)
			return NULL;
		grown = realloc(a->by_cpu, (cpu + 1) * sizeof(*grown));
		if (!grown)
			return NULL;
		memset(grown + a->nr_cpus, 0, (cpu + 1 - a->nr_cpus) * sizeof(*grown));
		a->by_cpu = grown;
		a->nr_cpus = cpu + 1;
	}
	if (!a->by_cpu[cpu] && create)
		a->by_cpu[cpu] = calloc(1, sizeof(*a->by_cpu[cpu]));
	return a->by_cpu[cpu];
}

/* The data of @s's record is in, or is all there will be. */
static int hand_on(struct vmt_record_assembler *a, struct vmt_record_assembly_slot *s)
{
	bool cut = s->have < s->owner.hdr.data_len;

	s->active = false;
	s->owner.hdr.data_len = s->have;
	return a->assembled(a->ctx, &s->owner, s->bytes, cut);
}

int vmt_record_assembler_add(struct vmt_record_assembler *a, const struct vmt_record *record)
{
	struct vmt_record_assembly_slot *s = slot_of(a, record->hdr.cpu, false);
	uint32_t n;
	int err;

	if (record->hdr.type == VMT_REC_DATA) {
		if (!s || !s->active)
			return VMT_ASSEMBLY_ORPHAN;
		n = record->hdr.data_len;
		if (n > VMT_DATA_CHUNK)
			n = VMT_DATA_CHUNK;
		if (n > s->owner.hdr.data_len - s->have)
			n = s->owner.hdr.data_len - s->have;
		memcpy(s->bytes + s->have, record->data.bytes, n);
		s->have += n;
		return s->have == s->owner.hdr.data_len ? hand_on(a, s) : VMT_ASSEMBLY_TAKEN;
	}
	/* Its data ended early (the ring lost nothing: it was never written). */
	if (s && s->active) {
		err = hand_on(a, s);
		if (err)
			return err;
	}
	if (!record->hdr.data_len)
		return VMT_ASSEMBLY_NO_DATA;
	if (record->hdr.data_len > VMT_MAX_DATA_LEN)
		return VMT_ASSEMBLY_TOO_LONG;
	s = slot_of(a, record->hdr.cpu, true);
	if (!s)
		return -ENOMEM;
	s->owner = *record;
	s->have = 0;
	s->active = true;
	return VMT_ASSEMBLY_TAKEN;
}

int vmt_record_assembler_flush(struct vmt_record_assembler *a)
{
	int err = 0;

	for (uint32_t cpu = 0; cpu < a->nr_cpus && !err; cpu++)
		if (a->by_cpu[cpu] && a->by_cpu[cpu]->active)
			err = hand_on(a, a->by_cpu[cpu]);
	return err;
}

void vmt_record_assembler_free(struct vmt_record_assembler *a)
{
	for (uint32_t cpu = 0; cpu < a->nr_cpus; cpu++)
		free(a->by_cpu[cpu]);
	free(a->by_cpu);
	a->by_cpu = NULL;
	a->nr_cpus = 0;
}
