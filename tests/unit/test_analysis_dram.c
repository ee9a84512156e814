// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the DRAM analysis (user/lib/analysis/analysis_dram.c): the
 * address map's text form, good and bad; the presets' decoding of
 * addresses composed by hand; row-buffer hits, misses and conflicts,
 * bank-level parallelism and address-bit changes on short sequences worked
 * out by hand; and all three against a plain recomputation of their
 * definitions on a random sequence.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "vmtrace/analysis.h"

#include "temp_file.h"
#include "trace_file.h"

#define BIT(n)	(UINT64_C(1) << (n))

/* A reference to physical address @pa (its frame and the offset in its page) by @pid. */
static struct vmt_record phys_rec(uint64_t time, uint32_t pid, uint64_t pa)
{
	struct vmt_record r = reference_record(time, pid, 0x7f0000000000 | (pa & 0xfff));

	r.ref.pfn = pa >> 12;
	return r;
}

static struct vmt_record exact_rec(uint64_t time, uint64_t addr)
{
	struct vmt_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.time_ns = time;
	r.hdr.pid = r.hdr.tid = 7;
	r.hdr.type = VMT_REC_EXACT;
	r.exact.addr = addr;
	r.exact.size = 8;
	r.exact.access = VMT_ACCESS_READ;
	return r;
}

static void parse_ok(const char *spec, struct vmt_dram_map *map)
{
	char err[160];
	int ret = vmt_dram_map_parse(spec, map, err, sizeof(err));

	if (ret)
		fail_msg("'%s': %s", spec, err);
}

/* Run DRAM with @spec's map and window @window over @recs, in @space from @source. */
static struct vmt_analysis *dram_run(const struct vmt_record *recs, size_t n, const char *spec,
				     unsigned int window, enum vmt_ref_space space,
				     enum vmt_ref_source source)
{
	struct vmt_ref_options o = { .space = space, .unit = VMT_REF_PAGE, .source = source };
	struct vmt_trace *t = write_trace_and_open(path, recs, n, 64 * 7, NULL);
	struct vmt_dram_map map;
	struct vmt_analysis *a;

	if (vmt_dram_map_preset(spec, &map))
		parse_ok(spec, &map);
	assert_int_equal(vmt_dram_create(&a, &o, &map, window), 0);
	assert_int_equal(vmt_analyze(t, &o, &a, 1, NULL), 0);
	vmt_trace_close(t);
	return a;
}

/* ---- The map's text ---- */

/*
 * The example of the doc: each field's bits, the lowest first; a range
 * L-H gives L..H; XORed terms give masks of several bits.
 */
static void test_parse_good(void **state)
{
	struct vmt_dram_map m, again;
	char text[512];
	size_t len;

	(void)state;
	parse_ok("ch=6;rank=16;bg=7,8;bank=9,10;row=17-32;col=0-5,11-15", &m);
	assert_int_equal(m.nr_bits[VMT_DRAM_CHANNEL], 1);
	assert_int_equal(m.nr_bits[VMT_DRAM_RANK], 1);
	assert_int_equal(m.nr_bits[VMT_DRAM_BANK_GROUP], 2);
	assert_int_equal(m.nr_bits[VMT_DRAM_BANK], 2);
	assert_int_equal(m.nr_bits[VMT_DRAM_ROW], 16);
	assert_int_equal(m.nr_bits[VMT_DRAM_COLUMN], 11);
	assert_true(m.masks[VMT_DRAM_CHANNEL][0] == BIT(6));
	assert_true(m.masks[VMT_DRAM_BANK_GROUP][1] == BIT(8));
	assert_true(m.masks[VMT_DRAM_ROW][0] == BIT(17));
	assert_true(m.masks[VMT_DRAM_ROW][15] == BIT(32));
	assert_true(m.masks[VMT_DRAM_COLUMN][5] == BIT(5));
	assert_true(m.masks[VMT_DRAM_COLUMN][6] == BIT(11));
	assert_true(vmt_dram_field_bits(&m, VMT_DRAM_COLUMN) == (0x3f | 0x1f << 11));
	len = vmt_dram_map_format(&m, text, sizeof(text));
	assert_int_equal(len, strlen(text));
	assert_string_equal(text, "ch=6;rank=16;bg=7-8;bank=9-10;row=17-32;col=0-5,11-15");

	/*
	 * XOR: bank bit 0 = a9 ^ a13, bit 1 = a10 ^ a14 (13 and 14 also the
	 * row's: fine, no field bit is the XOR of others); bg 20-21^25-26 is
	 * 20^25, 21^26. Fields in any order, empty items skipped.
	 */
	parse_ok("row=13-24;bank=9^13,10^14;;bg=20-21^25-26;", &m);
	assert_int_equal(m.nr_bits[VMT_DRAM_BANK], 2);
	assert_true(m.masks[VMT_DRAM_BANK][0] == (BIT(9) | BIT(13)));
	assert_true(m.masks[VMT_DRAM_BANK][1] == (BIT(10) | BIT(14)));
	assert_true(m.masks[VMT_DRAM_BANK_GROUP][0] == (BIT(20) | BIT(25)));
	assert_true(m.masks[VMT_DRAM_BANK_GROUP][1] == (BIT(21) | BIT(26)));
	assert_int_equal(m.nr_bits[VMT_DRAM_CHANNEL] + m.nr_bits[VMT_DRAM_COLUMN], 0);
	vmt_dram_map_format(&m, text, sizeof(text));
	assert_string_equal(text, "bg=20-21^25-26;bank=9-10^13-14;row=13-24");
	parse_ok(text, &again);
	assert_memory_equal(&m, &again, sizeof(m));

	/* The presets: three, each read back from its text as the same map. */
	for (unsigned int i = 0; i < 3; i++) {
		const char *summary = NULL, *name = vmt_dram_map_preset_name(i, &summary);

		assert_non_null(name);
		assert_non_null(summary);
		assert_int_equal(vmt_dram_map_preset(name, &m), 0);
		vmt_dram_map_format(&m, text, sizeof(text));
		parse_ok(text, &again);
		assert_memory_equal(&m, &again, sizeof(m));
	}
	assert_null(vmt_dram_map_preset_name(3, NULL));
	assert_int_equal(vmt_dram_map_preset("ddr3", &m), -ENOENT);

	/* A buffer too small: cut, '\0' ended, the length needed told. */
	len = strlen(text);
	assert_int_equal(vmt_dram_map_format(&m, text, 5), len);
	assert_int_equal(strlen(text), 4);
}

/* Each bad spec refused, with (a part of) the message expected. */
static void test_parse_bad(void **state)
{
	static const struct { const char *spec, *message; } bad[] = {
		{ "", "no row bits" },
		{ "row=17-32", "no bank bits" },
		{ "bank=9,10", "no row bits" },
		{ "bank=9,10;row=10-20", "bit 10 overlaps, already bank's" },
		{ "ch=6;bank=9;row=17-32;col=0-6", "bit 6 overlaps, already ch's" },
		{ "bank=9,10;row=17-64", "bit 64 past 63" },
		{ "bank=9;row=70", "bit 70 past 63" },
		{ "bank=9;row=99999999999999999999", "past 63" },
		{ "bank=9;row=20-17", "range 20-17 backwards" },
		{ "bank=9;row=17-32;foo=3", "unknown field 'foo'" },
		{ "bank=9;bank=10;row=17", "field 'bank' given twice" },
		{ "bank=9^9;row=17", "bit 9 XORed with itself" },
		/* 10^11, 10, then 11 = (10^11) ^ 10: a XOR of bits given before. */
		{ "bank=9,10^11;row=10,11", "bit 11 overlaps: the XOR of field bits" },
		{ "bank=9^10,10^9;row=17", "bit 10 overlaps: the XOR" },
		{ "bg=13-15^18-19;bank=9;row=20", "XORed ranges of different lengths" },
		{ "bank;row=1", "'bank': FIELD=BITS expected" },
		{ "bank=;row=1", "a bit number expected" },
		{ "bank=9,;row=1", "a bit number expected" },
		{ "bank=9^;row=1", "a bit number expected" },
		{ "bank=x;row=1", "a bit number expected at 'x'" },
		{ "bank=9;row=17-", "'row=17-': a bit number expected" },
		{ "bank=9a;row=1", "unexpected 'a'" },
		{ "bank=9 ;row=1", "unexpected ' '" },
		{ "bank=0-12;row=20", "13 bits select a bank" },
	};
	struct vmt_dram_map m;
	char err[160];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strcpy(err, "(none)");
		if (vmt_dram_map_parse(bad[i].spec, &m, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' taken", bad[i].spec);
		if (!strstr(err, bad[i].message))
			fail_msg("'%s': '%s', not '%s'", bad[i].spec, err, bad[i].message);
	}
	/* No room for a message: refused all the same. */
	assert_int_equal(vmt_dram_map_parse("row=1", &m, NULL, 0), -EINVAL);
}

/* ---- The presets ---- */

static void assert_fields(const struct vmt_dram_map *m, uint64_t addr, const uint64_t want[6])
{
	for (unsigned int f = 0; f < VMT_DRAM_NR_FIELDS; f++)
		if (vmt_dram_decode(m, f, addr) != want[f])
			fail_msg("%#llx: field %u is %#llx, not %#llx", (unsigned long long)addr,
				 f, (unsigned long long)vmt_dram_decode(m, f, addr),
				 (unsigned long long)want[f]);
}

static void test_presets(void **state)
{
	struct vmt_dram_map m;

	(void)state;
	/*
	 * ddr4-1ch: rank=17;bg=13,14;bank=15,16;row=18-32;col=0-12.
	 * 0x48d36a48 = 0x1234 << 18 | 1 << 17 | 2 << 15 | 3 << 13 | 0xa48:
	 *   0x48d36a48 >> 18 = 0x1234 (row); bit 17 of 0x...36a48 (0011 0110
	 *   1010 0100 1000, bits 17..0 of 0x36a48) is 1 (rank); bits 16-15 =
	 *   10 (bank 2); bits 14-13 = 11 (bg 3); bits 12-0 = 0xa48 (col).
	 * Bank number: ((rank << 2 | bg) << 2 | bank) = (1 << 2 | 3) << 2 | 2 = 30.
	 */
	assert_int_equal(vmt_dram_map_preset("ddr4-1ch", &m), 0);
	assert_fields(&m, 0x48d36a48, (const uint64_t[6]){ 0, 1, 3, 2, 0x1234, 0xa48 });
	assert_int_equal(vmt_dram_bank(&m, 0x48d36a48), 30);

	/*
	 * ddr4-2ch: ch=6;rank=18;bg=14,15;bank=16,17;row=19-33;col=0-5,7-13.
	 * 0x3fffcbfbf = 0x7fff << 19 | 1 << 18 | 0 << 16 | 2 << 14 | 0x7f << 7
	 * | 0 << 6 | 0x3f: row 0x7fff, rank 1, bank 0, bg 2, ch 0, col 0x3f |
	 * 0x7f << 6 = 0x1fff. Bank number ((ch << 1 | rank) << 2 | bg) << 2 |
	 * bank = (1 << 2 | 2) << 2 = 24. With bit 6 set, channel 1: 24 + 32 (six bits, ch the
	 * highest).
	 */
	assert_int_equal(vmt_dram_map_preset("ddr4-2ch", &m), 0);
	assert_fields(&m, 0x3fffcbfbf, (const uint64_t[6]){ 0, 1, 2, 0, 0x7fff, 0x1fff });
	assert_int_equal(vmt_dram_bank(&m, 0x3fffcbfbf), 24);
	assert_int_equal(vmt_dram_bank(&m, 0x3fffcbfbf | BIT(6)), 24 + 32);

	/*
	 * ddr5-2ch: ch=6;bg=13-15^18-20;bank=16-17^21-22;row=18-33;col=0-5,7-12.
	 * 0x295d568 = 0xa5 << 18 | 01b << 16 | 110b << 13 | 101010b << 7 | 1 << 6
	 * | 0x28: row 0xa5, so a18..a22 = 1 0 1 0 0; a13..a15 = 0 1 1,
	 * a16 a17 = 1 0. bg = (a13^a18) | (a14^a19) << 1 | (a15^a20) << 2 =
	 * 1 | 1 << 1 | 0 << 2 = 3; bank = (a16^a21) | (a17^a22) << 1 = 1;
	 * ch 1; col = 0x28 | 101010b << 6 = 0xaa8. Bank number (ch << 3 | bg)
	 * << 2 | bank = (8 + 3) * 4 + 1 = 45.
	 */
	assert_int_equal(vmt_dram_map_preset("ddr5-2ch", &m), 0);
	assert_fields(&m, 0x295d568, (const uint64_t[6]){ 1, 0, 3, 1, 0xa5, 0xaa8 });
	assert_int_equal(vmt_dram_bank(&m, 0x295d568), 45);
	/* Row bit 0 (a18) flips bg bit 0 too: bg 2, row 0xa4. */
	assert_fields(&m, 0x295d568 ^ BIT(18), (const uint64_t[6]){ 1, 0, 2, 1, 0xa4, 0xaa8 });
}

/* ---- Row buffers, parallelism and bits on sequences made by hand ---- */

/*
 * Map bank=12;row=13-20 (2 banks, the row above): physical addresses
 * (row << 13 | bank << 12), each at another line of its page:
 *
 *   bank,row:  0,1   0,1   1,1   0,2       1,1   0,1       1,3
 *              miss  hit   miss  conflict  hit   conflict  conflict
 *
 * hits 2, misses 2, conflicts 3; banks touched 2 of 2. A reference with
 * no frame is passed over, and counted.
 */
static void test_row_buffer(void **state)
{
	static const unsigned int seq[][2] = {
		{ 0, 1 }, { 0, 1 }, { 1, 1 }, { 0, 2 }, { 1, 1 }, { 0, 1 }, { 1, 3 },
	};
	const struct vmt_dram_result *r;
	struct vmt_record recs[8];
	struct vmt_analysis *a;
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < 7; i++, n++)
		recs[n] = phys_rec(100 + n, 1, (uint64_t)seq[i][1] << 13 |
				   (uint64_t)seq[i][0] << 12 | i * 64);
	recs[n] = reference_record(100 + n, 1, 0x7f0000000100);	/* no frame */
	n++;
	a = dram_run(recs, n, "bank=12;row=13-20", 4, VMT_REF_PHYSICAL, VMT_REF_FAULTS);
	r = vmt_dram_result(a);
	assert_int_equal(r->references, 7);
	assert_int_equal(r->no_frame, 1);
	assert_int_equal(r->hits, 2);
	assert_int_equal(r->misses, 2);
	assert_int_equal(r->conflicts, 3);
	assert_int_equal(r->banks, 2);
	assert_int_equal(r->banks_touched, 2);
	assert_true(vmt_dram_hit_rate(a) == 100.0 * 2 / 7);
	vmt_analysis_destroy(a);

	/* Virtual: the records' virtual addresses, all in one row of bank 0. */
	a = dram_run(recs, n, "bank=12;row=13-20", 4, VMT_REF_VIRTUAL, VMT_REF_FAULTS);
	r = vmt_dram_result(a);
	assert_int_equal(r->references, 8);
	assert_int_equal(r->no_frame, 0);
	assert_int_equal(r->misses, 1);
	assert_int_equal(r->hits, 7);
	vmt_analysis_destroy(a);
}

/*
 * Map bank=6,7;row=8-20 (4 banks a line apart), exact accesses at the
 * addresses bank << 6 (plus a byte offset, dropped with the line):
 *
 *   banks 0 1 0 2 3 3 0, window 3:
 *   [0 1 0] 2, [1 0 2] 3, [0 2 3] 3, [2 3 3] 2, [3 3 0] 2:
 *   5 windows, 12 banks, BLP 2.4, at most 3.
 *   window 8 (more than the 7 accesses): one window, all 4 banks.
 *
 *   bits 7..6: 00 01 00 10 11 11 00; of the 6 pairs, bit 6 changes in
 *   00-01, 01-00, 10-11, 11-00 (4), bit 7 in 00-10, 11-00 (2).
 *
 *   rows all 0: misses 4 (each bank's first), hits 3.
 */
static void test_blp_and_bits(void **state)
{
	static const unsigned int banks[] = { 0, 1, 0, 2, 3, 3, 0 };
	const struct vmt_dram_result *r;
	struct vmt_record recs[7];
	struct vmt_analysis *a;

	(void)state;
	for (unsigned int i = 0; i < 7; i++)
		recs[i] = exact_rec(10 + i, (uint64_t)banks[i] << 6 | (i * 5 % 64));
	a = dram_run(recs, 7, "bank=6,7;row=8-20", 3, VMT_REF_VIRTUAL, VMT_REF_EXACT);
	r = vmt_dram_result(a);
	assert_int_equal(r->references, 7);
	assert_int_equal(r->windows, 5);
	assert_int_equal(r->window_banks, 12);
	assert_int_equal(r->max_banks, 3);
	assert_true(vmt_dram_blp(a) == 12.0 / 5);
	assert_int_equal(r->pairs, 6);
	for (unsigned int b = 0; b < 64; b++)
		assert_int_equal(r->flips[b], b == 6 ? 4 : b == 7 ? 2 : 0);
	assert_int_equal(r->misses, 4);
	assert_int_equal(r->hits, 3);
	assert_int_equal(r->conflicts, 0);
	vmt_analysis_destroy(a);

	a = dram_run(recs, 7, "bank=6,7;row=8-20", 8, VMT_REF_VIRTUAL, VMT_REF_EXACT);
	r = vmt_dram_result(a);
	assert_int_equal(r->windows, 1);
	assert_int_equal(r->window_banks, 4);
	assert_true(vmt_dram_blp(a) == 4.0);
	vmt_analysis_destroy(a);

	/* Exact accesses have no frame: in the physical space, none. */
	a = dram_run(recs, 7, "bank=6,7;row=8-20", 3, VMT_REF_PHYSICAL, VMT_REF_EXACT);
	r = vmt_dram_result(a);
	assert_int_equal(r->references, 0);
	assert_int_equal(r->no_frame, 7);
	assert_int_equal(r->windows, 0);
	assert_true(vmt_dram_blp(a) == 0.0 && vmt_dram_hit_rate(a) == 0.0);
	vmt_analysis_destroy(a);
}

/* ---- Against the definitions, on a random sequence ---- */

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

static unsigned int bit(uint64_t a, unsigned int b)
{
	return (unsigned int)(a >> b & 1);
}

/* ddr5-2ch written out plainly: (ch, bg, bank) as one number, and the row. */
static unsigned int ddr5_bank(uint64_t a)
{
	unsigned int bg = (bit(a, 13) ^ bit(a, 18)) | (bit(a, 14) ^ bit(a, 19)) << 1 |
			  (bit(a, 15) ^ bit(a, 20)) << 2;
	unsigned int bank = (bit(a, 16) ^ bit(a, 21)) | (bit(a, 17) ^ bit(a, 22)) << 1;

	return bit(a, 6) * 100 + bg * 10 + bank;
}

static uint64_t ddr5_row(uint64_t a)
{
	return a >> 18 & 0xffff;
}

/*
 * 3000 lines near 1 GiB: half a jump anywhere in 8 MiB, half a step of a
 * few lines from the previous one. Recounted here by the definitions:
 * each access against the last earlier one to its bank (none: a miss; the
 * same row: a hit; else a conflict); each window's distinct banks by
 * comparing every pair; each pair's bits one by one.
 */
static void test_random(void **state)
{
	enum { N = 3000, W = 16 };
	struct vmt_record *recs = calloc(N, sizeof(*recs));
	uint64_t *pa = calloc(N, sizeof(*pa)), seed = 35, x = 0;
	uint64_t hits = 0, misses = 0, conflicts = 0, sum = 0, flips[64] = { 0 };
	const struct vmt_dram_result *r;
	struct vmt_dram_map m;
	struct vmt_analysis *a;
	size_t i, j, k;

	(void)state;
	assert_non_null(recs);
	assert_non_null(pa);
	assert_int_equal(vmt_dram_map_preset("ddr5-2ch", &m), 0);
	for (i = 0; i < N; i++) {
		if (i == 0 || lcg(&seed) % 2)
			x = (UINT64_C(1) << 30) + (lcg(&seed) % (UINT64_C(8) << 20));
		else
			x += 64 * (lcg(&seed) % 5);
		pa[i] = x & ~UINT64_C(63);
		recs[i] = phys_rec(1000 + i, 1 + (unsigned int)(i % 3), x);
		/* The library's decoding is the plain one. */
		assert_int_equal(vmt_dram_decode(&m, VMT_DRAM_ROW, x), ddr5_row(x));
		assert_int_equal(vmt_dram_decode(&m, VMT_DRAM_CHANNEL, x), bit(x, 6));
	}
	for (i = 0; i < N; i++) {
		for (j = i; j-- > 0;)
			if (ddr5_bank(pa[j]) == ddr5_bank(pa[i]))
				break;
		if (j == (size_t)-1)
			misses++;
		else if (ddr5_row(pa[j]) == ddr5_row(pa[i]))
			hits++;
		else
			conflicts++;
		if (i)
			for (unsigned int b = 0; b < 64; b++)
				flips[b] += bit(pa[i], b) != bit(pa[i - 1], b);
	}
	for (i = 0; i + W <= N; i++) {
		for (j = i; j < i + W; j++) {
			for (k = i; k < j; k++)
				if (ddr5_bank(pa[k]) == ddr5_bank(pa[j]))
					break;
			sum += k == j;
		}
	}
	assert_true(hits > 100 && conflicts > 100);

	a = dram_run(recs, N, "ddr5-2ch", W, VMT_REF_PHYSICAL, VMT_REF_FAULTS);
	r = vmt_dram_result(a);
	assert_int_equal(r->references, N);
	assert_int_equal(r->hits, hits);
	assert_int_equal(r->misses, misses);
	assert_int_equal(r->conflicts, conflicts);
	assert_int_equal(r->banks_touched, misses);
	assert_int_equal(r->windows, N - W + 1);
	assert_int_equal(r->window_banks, sum);
	assert_int_equal(r->pairs, N - 1);
	for (unsigned int b = 0; b < 64; b++)
		assert_int_equal(r->flips[b], flips[b]);
	vmt_analysis_destroy(a);
	free(recs);
	free(pa);
}

/* ---- Bad input ---- */

static void test_bad_create(void **state)
{
	struct vmt_ref_options o = { .space = VMT_REF_PHYSICAL };
	struct vmt_analysis *a = NULL;
	struct vmt_dram_map m;

	(void)state;
	assert_int_equal(vmt_dram_map_preset("ddr4-1ch", &m), 0);
	assert_int_equal(vmt_dram_create(&a, &o, &m, 1), -EINVAL);
	assert_int_equal(vmt_dram_create(&a, &o, &m, VMT_DRAM_MAX_WINDOW + 1), -EINVAL);
	o.space = (enum vmt_ref_space)7;
	assert_int_equal(vmt_dram_create(&a, &o, &m, 32), -EINVAL);
	o.space = VMT_REF_PHYSICAL;
	/* A map made by hand: no row, too many bank bits, an empty mask. */
	m.nr_bits[VMT_DRAM_ROW] = 0;
	assert_int_equal(vmt_dram_create(&a, &o, &m, 32), -EINVAL);
	assert_int_equal(vmt_dram_map_preset("ddr4-1ch", &m), 0);
	m.nr_bits[VMT_DRAM_BANK] = 13;
	assert_int_equal(vmt_dram_create(&a, &o, &m, 32), -EINVAL);
	assert_int_equal(vmt_dram_map_preset("ddr4-1ch", &m), 0);
	m.masks[VMT_DRAM_ROW][3] = 0;
	assert_int_equal(vmt_dram_create(&a, &o, &m, 32), -EINVAL);
	assert_null(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_presets),
		cmocka_unit_test_setup_teardown(test_row_buffer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blp_and_bits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random, setup, teardown),
		cmocka_unit_test(test_bad_create),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
