// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-synth PATTERN COUNT [SEED] > FILE: COUNT synthetic raw records (the
 * 64-byte records `record-raw` and `export --format raw` write), for the
 * codec benchmark and for trying the tools without the module. What a
 * protected process with a FIFO enabled set of 64 pages would log:
 *
 *   sweep    two arrays walked a page at a time by two loops (one reads,
 *            one writes), with the eviction of the page 64 admissions back
 *   random   uniformly random pages of a 1 GiB heap from 40 code sites,
 *            each with its eviction
 *   mixed    three processes on two CPUs taking turns at sweep, random and
 *            a small hot set, in phases of 5,000 records
 *
 * Times advance 1-3 us a record, frames come from a simple allocator, and
 * everything follows from SEED (default 1): the same arguments give the
 * same bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/vmtrace.h>

#define ENABLED_PAGES	64
#define PAGE		4096ull

struct gen {
	uint64_t rng;
	uint64_t time;
	uint64_t next_pfn;
	/* per process: the enabled set (FIFO) of page addresses */
	uint64_t fifo[3][ENABLED_PAGES];
	unsigned int fifo_len[3], fifo_head[3];
};

static uint64_t rnd(struct gen *g)
{
	/* xorshift64* */
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545f4914f6cdd1dull;
}

static void emit(const struct vmt_record *r)
{
	if (fwrite(r, sizeof(*r), 1, stdout) != 1) {
		perror("vmt-synth: write");
		exit(1);
	}
}

/* A reference of process @p at @addr from @ip, and the eviction it causes. */
static void reference(struct gen *g, unsigned int p, unsigned int cpu, uint64_t addr,
		      uint64_t ip, uint8_t access)
{
	struct vmt_record r;
	uint64_t page = addr & ~(PAGE - 1);

	memset(&r, 0, sizeof(r));
	g->time += 1000 + rnd(g) % 2000;
	r.hdr.time_ns = g->time;
	r.hdr.pid = 4000 + 17 * p;
	r.hdr.tid = r.hdr.pid + (unsigned int)(rnd(g) % 4 == 0);
	r.hdr.type = VMT_REC_REFERENCE;
	r.hdr.cpu = (uint16_t)cpu;
	r.ref.vaddr = addr;
	r.ref.ip = ip;
	r.ref.pfn = 0x100000 + (page >> 12) % 0x40000 + (g->next_pfn++ % 7 == 0 ? 0x80000 : 0);
	r.ref.access = access;
	r.ref.error_code = 4 | (access == VMT_ACCESS_WRITE ? 2 : 0) | 1;
	r.ref.cause = VMT_CAUSE_PROTECTION;
	emit(&r);
	if (g->fifo_len[p] == ENABLED_PAGES) {
		uint64_t old = g->fifo[p][g->fifo_head[p]];

		r.hdr.type = VMT_REC_EVICT;
		r.hdr.time_ns = g->time + 200 + rnd(g) % 300;
		r.ref.vaddr = old;
		r.ref.ip = 0;
		r.ref.pfn = 0x100000 + (old >> 12) % 0x40000;
		r.ref.access = 0;
		r.ref.error_code = 0;
		r.ref.cause = 0;
		r.ref.evict_flags = VMT_EVICT_ACCESSED | (rnd(g) % 3 == 0 ? VMT_EVICT_DIRTY : 0);
		emit(&r);
		g->fifo[p][g->fifo_head[p]] = page;
		g->fifo_head[p] = (g->fifo_head[p] + 1) % ENABLED_PAGES;
	} else {
		g->fifo[p][g->fifo_len[p]++] = page;
	}
}

static void sweep(struct gen *g, unsigned int p, unsigned int cpu, uint64_t i)
{
	uint64_t a = 0x7f0000000000ull + (i / 2) % 16384 * PAGE + 8 * (rnd(g) % 4);
	uint64_t b = 0x7f4000000000ull + (i / 2) % 16384 * PAGE;

	if (i % 2)
		reference(g, p, cpu, b, 0x401230 + 0x10 * (i % 3 == 0), VMT_ACCESS_WRITE);
	else
		reference(g, p, cpu, a, 0x401180, VMT_ACCESS_READ);
}

static void random_pages(struct gen *g, unsigned int p, unsigned int cpu)
{
	uint64_t site = rnd(g) % 40;

	reference(g, p, cpu, 0x560000000000ull + rnd(g) % (1ull << 30),
		  0x55d000401000ull + site * 0x3c, site % 4 ? VMT_ACCESS_READ : VMT_ACCESS_WRITE);
}

static void hot_set(struct gen *g, unsigned int p, unsigned int cpu)
{
	uint64_t page = rnd(g) % 200;

	reference(g, p, cpu, 0x7ffd00000000ull + page * PAGE + 64 * (rnd(g) % 64),
		  0x7f10002000ull + (page % 5) * 8, VMT_ACCESS_READ);
}

int main(int argc, char **argv)
{
	struct gen g;
	uint64_t count;
	const char *pattern;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: vmt-synth sweep|random|mixed COUNT [SEED] > FILE\n");
		return 2;
	}
	pattern = argv[1];
	count = strtoull(argv[2], NULL, 0);
	memset(&g, 0, sizeof(g));
	g.rng = argc == 4 ? strtoull(argv[3], NULL, 0) | 1 : 1;
	g.time = 1000000000;
	/* Each reference may add an eviction: COUNT counts references. */
	for (uint64_t i = 0; i < count; i++) {
		if (!strcmp(pattern, "sweep")) {
			sweep(&g, 0, 0, i);
		} else if (!strcmp(pattern, "random")) {
			random_pages(&g, 0, 0);
		} else if (!strcmp(pattern, "mixed")) {
			unsigned int phase = (unsigned int)(i / 5000 % 3);
			unsigned int p = (unsigned int)(i / 5000 % 3 + i / 15000) % 3;

			if (phase == 0)
				sweep(&g, p, p % 2, i);
			else if (phase == 1)
				random_pages(&g, p, p % 2);
			else
				hot_set(&g, p, p % 2);
		} else {
			fprintf(stderr, "vmt-synth: unknown pattern '%s'\n", pattern);
			return 2;
		}
	}
	return fflush(stdout) ? 1 : 0;
}
