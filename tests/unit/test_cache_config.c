// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the cache simulator's configurations
 * (user/lib/analysis/cache_config.c): the --cache and --tlb spec strings,
 * the hierarchy check and each of its messages, the config file of
 * docs/analysis/cachesim.md with its line numbers, and the presets, their
 * geometry against the doc's tables, each passing the check.
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

static struct vmt_trace_error err;

/* @call returns @code and says @says, exactly. */
#define assert_fails(call, code, says) do {					\
		memset(&err, 0, sizeof(err));						\
		assert_int_equal((call), (code));					\
		assert_string_equal(err.message, (says));				\
	} while (0)

static void add_cache(struct vmt_hierarchy_config *h, const char *spec)
{
	memset(&err, 0, sizeof(err));
	if (vmt_hierarchy_add_cache_spec(h, spec, &err))
		fail_msg("%s: %s", spec, err.message);
}

static void add_tlb(struct vmt_hierarchy_config *h, const char *spec)
{
	memset(&err, 0, sizeof(err));
	if (vmt_hierarchy_add_tlb_spec(h, spec, &err))
		fail_msg("%s: %s", spec, err.message);
}

static struct vmt_hierarchy_config named(const char *name)
{
	struct vmt_hierarchy_config h;

	memset(&h, 0, sizeof(h));
	snprintf(h.name, sizeof(h.name), "%s", name);
	return h;
}

static void assert_checks(const struct vmt_hierarchy_config *h)
{
	memset(&err, 0, sizeof(err));
	if (vmt_hierarchy_check(h, &err))
		fail_msg("hierarchy %s: %s", h->name, err.message);
}

static uint64_t sets(const struct vmt_cache_config *c)
{
	return c->size / ((uint64_t)(c->assoc ? c->assoc : c->size / c->line) * c->line);
}

static void test_policy_names(void **state)
{
	static const char *const names[] = { "lru", "fifo", "random", "plru", "srrip" };

	(void)state;
	for (unsigned int p = 0; p < VMT_CACHE_POLICIES; p++) {
		assert_string_equal(vmt_cache_policy_name(p), names[p]);
		assert_int_equal(vmt_cache_policy_from_name(names[p]), p);
	}
	assert_null(vmt_cache_policy_name(VMT_CACHE_POLICIES));
	assert_int_equal(vmt_cache_policy_from_name("lfu"), -EINVAL);
	assert_int_equal(vmt_cache_policy_from_name("LRU"), -EINVAL);
	assert_int_equal(vmt_cache_policy_from_name(""), -EINVAL);
	assert_int_equal(vmt_cache_policy_from_name(NULL), -EINVAL);
}

/* Four levels outward, each spec's numbers, and the defaults of the doc's table. */
static void test_cache_specs(void **state)
{
	struct vmt_hierarchy_config h = named("custom");
	const struct vmt_cache_config *c = h.caches;

	(void)state;
	add_cache(&h, "L1=32k:8:64");
	add_cache(&h, "L2=1M:16:64:srrip");
	add_cache(&h, "L3=8m:full:64:plru");
	add_cache(&h, "L4_x-9=1G:16:128:fifo");
	assert_int_equal(h.nr_caches, 4);
	assert_string_equal(c[0].name, "L1");
	assert_int_equal(c[0].size, 32768);
	assert_int_equal(c[0].assoc, 8);
	assert_int_equal(c[0].line, 64);
	assert_int_equal(c[0].policy, VMT_CACHE_LRU);
	assert_int_equal(c[1].size, 1 << 20);
	assert_int_equal(c[1].policy, VMT_CACHE_SRRIP);
	assert_int_equal(c[2].size, 8 << 20);
	assert_int_equal(c[2].assoc, 0);	/* full: 131072 ways, a power of two for plru */
	assert_int_equal(c[2].policy, VMT_CACHE_PLRU);
	assert_string_equal(c[3].name, "L4_x-9");
	assert_int_equal(c[3].size, 1ull << 30);
	assert_int_equal(c[3].line, 128);
	assert_int_equal(c[3].policy, VMT_CACHE_FIFO);
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(c[i].level, i + 1);
		assert_int_equal(c[i].kind, VMT_CACHE_UNIFIED);
		assert_int_equal(c[i].inclusion, VMT_CACHE_NON_INCLUSIVE);
		assert_int_equal(c[i].write, VMT_CACHE_WRITE_BACK);
		assert_int_equal(c[i].shared, i >= 2);	/* levels 1 and 2 private, 3 and 4 shared */
		assert_false(c[i].prefetch);
	}
	assert_checks(&h);
	assert_fails(vmt_hierarchy_add_cache_spec(&h, "L5=2G:16:64", &err), -EINVAL,
		     "L5: level 5 is not 1 to 4");
	assert_int_equal(h.nr_caches, 4);
}

static void test_cache_spec_sizes(void **state)
{
	static const struct {
		const char *spec;
		uint64_t size;
	} sizes[] = {
		{ "C=4096:1:64", 4096 }, { "C=4k:1:64", 4096 }, { "C=4K:1:64", 4096 },
		{ "C=3m:1:64", 3 << 20 }, { "C=3M:1:64", 3 << 20 }, { "C=2g:1:64", 2ull << 30 },
		{ "C=2G:1:64", 2ull << 30 }, { "C=64:full:64", 64 },
	};
	static const char *const bad[] = { "32q", "", "k", "-1", "1.5k", "32kb", "18446744073709551616",
					   "17179869184G" };
	char spec[64], message[128];

	(void)state;
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct vmt_hierarchy_config h = named("s");

		add_cache(&h, sizes[i].spec);
		assert_int_equal(h.caches[0].size, sizes[i].size);
	}
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct vmt_hierarchy_config h = named("s");

		snprintf(spec, sizeof(spec), "L1=%s:8:64", bad[i]);
		snprintf(message, sizeof(message), "L1: bad size '%s' (a number of bytes, with k, M or G)", bad[i]);
		assert_fails(vmt_hierarchy_add_cache_spec(&h, spec, &err), -EINVAL, message);
		assert_int_equal(h.nr_caches, 0);
	}
}

/* Every error of a --cache spec, with its message; a failed add changes nothing. */
static void test_cache_spec_errors(void **state)
{
	static const struct {
		const char *spec, *message;
	} cases[] = {
		{ "L1=32k:8:96", "L1: line 96 is not a power of two" },
		{ "L1=32k:8:0", "L1: line 0 is not a power of two" },
		{ "L2=1000:8:64", "L2: 1000 bytes is not a whole number of sets of 8 ways of 64 bytes" },
		{ "L2=1000:1:64", "L2: 1000 bytes is not a whole number of sets of 1 way of 64 bytes" },
		{ "L1=1000:full:64", "L1: 1000 bytes is not a whole number of lines of 64 bytes" },
		{ "L1=32:8:64", "L1: a set count of 0 (32 bytes < one set of 8 x 64 bytes)" },
		{ "L1=1k:32:64", "L1: a set count of 0 (1024 bytes < one set of 32 x 64 bytes)" },
		{ "L1=64:1:128", "L1: line 128 larger than the cache (64 bytes)" },
		{ "L1=64:full:128", "L1: line 128 larger than the cache (64 bytes)" },
		{ "L1=0:1:64", "L1: line 64 larger than the cache (0 bytes)" },
		{ "L1=32k:8:64:lfu", "L1: unknown policy 'lfu' (lru, fifo, random, plru, srrip)" },
		{ "L1=32k:8:64:", "L1: unknown policy '' (lru, fifo, random, plru, srrip)" },
		{ "L1=48k:12:64:plru", "L1: plru needs a power-of-two number of ways, not 12" },
		{ "L1=48k:full:64:plru", "L1: plru needs a power-of-two number of ways, not 768" },
		{ "L1=32k:0:64", "L1: bad associativity '0' (a number of ways, or full)" },
		{ "L1=32k:fully:64", "L1: bad associativity 'fully' (a number of ways, or full)" },
		{ "L1=32k:8:x", "L1: bad line 'x' (a number of bytes)" },
		{ "L1=32k:8:4294967296", "L1: bad line '4294967296' (a number of bytes)" },
		{ "L1=1024G:1:1", "L1: 1099511627776 lines, more than the 4294967295 simulated at most" },
		{ "L1", "'L1': no '=' (NAME=SIZE:ASSOC:LINE[:POLICY])" },
		{ "L 1=32k:8:64", "bad name 'L 1' (1 to 15 of A-Z a-z 0-9 _ -)" },
		{ "=32k:8:64", "bad name '' (1 to 15 of A-Z a-z 0-9 _ -)" },
		{ "L1234567890123456=32k:8:64", "bad name 'L1234567890123456' (1 to 15 of A-Z a-z 0-9 _ -)" },
		{ "L1=32k:8", "L1: '32k:8' is not NAME=SIZE:ASSOC:LINE[:POLICY]" },
		{ "L1=32k:8:64:lru:x",
		  "L1: junk after the 4 fields of NAME=SIZE:ASSOC:LINE[:POLICY]: ':x'" },
	};

	(void)state;
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vmt_hierarchy_config h = named("e");

		assert_fails(vmt_hierarchy_add_cache_spec(&h, cases[i].spec, &err), -EINVAL, cases[i].message);
		assert_int_equal(h.nr_caches, 0);
	}
}

/* Room, names taken, and set counts that are not powers of two. */
static void test_cache_spec_hierarchy(void **state)
{
	struct vmt_hierarchy_config h = named("r");

	(void)state;
	add_cache(&h, "L1=32k:8:64");
	assert_fails(vmt_hierarchy_add_cache_spec(&h, "L1=1M:8:64", &err), -EINVAL,
		     "L1: a second level named L1");
	add_tlb(&h, "T=64:4");
	assert_fails(vmt_hierarchy_add_cache_spec(&h, "T=1M:8:64", &err), -EINVAL, "T: a second level named T");
	add_cache(&h, "L2=1536:8:64");		/* 3 sets */
	add_cache(&h, "L3=3000k:12:64");	/* 4000 sets */
	assert_int_equal(sets(&h.caches[1]), 3);
	assert_int_equal(sets(&h.caches[2]), 4000);
	assert_checks(&h);
	assert_fails(vmt_hierarchy_add_cache_spec(NULL, "L1=32k:8:64", &err), -EINVAL, "no hierarchy");
	assert_fails(vmt_hierarchy_add_cache_spec(&h, NULL, &err), -EINVAL,
		     "no spec (NAME=SIZE:ASSOC:LINE[:POLICY])");
	h.nr_caches = VMT_CACHES_MAX;
	assert_fails(vmt_hierarchy_add_cache_spec(&h, "L9=1M:8:64", &err), -EINVAL,
		     "L9: no room for more than 8 caches");
}

static void test_tlb_specs(void **state)
{
	static const struct {
		const char *spec, *message;
	} cases[] = {
		{ "DTLB=100:8", "DTLB: 100 entries is not a whole number of sets of 8 ways" },
		{ "DTLB=4:8", "DTLB: a set count of 0 (4 entries < one set of 8 ways)" },
		{ "DTLB=0:1", "DTLB: bad entries '0' (a number, 1 or more)" },
		{ "DTLB=64k:4", "DTLB: bad entries '64k' (a number, 1 or more)" },
		{ "DTLB=64:0", "DTLB: bad associativity '0' (a number of ways, or full)" },
		{ "DTLB=48:full:plru", "DTLB: plru needs a power-of-two number of ways, not 48" },
		{ "DTLB=48:12:plru", "DTLB: plru needs a power-of-two number of ways, not 12" },
		{ "DTLB=64:4:lfu", "DTLB: unknown policy 'lfu' (lru, fifo, random, plru, srrip)" },
		{ "DTLB=64", "DTLB: '64' is not NAME=ENTRIES:ASSOC[:POLICY]" },
		{ "DTLB=64:4:lru:x", "DTLB: junk after the 3 fields of NAME=ENTRIES:ASSOC[:POLICY]: ':x'" },
		{ "DTLB:64:4", "'DTLB:64:4': no '=' (NAME=ENTRIES:ASSOC[:POLICY])" },
	};
	struct vmt_hierarchy_config h = named("t");

	(void)state;
	add_cache(&h, "L1=32k:8:64");
	add_tlb(&h, "DTLB=64:4");
	add_tlb(&h, "STLB=1536:12:srrip");
	add_tlb(&h, "T3=64:full:plru");
	assert_int_equal(h.nr_tlbs, 3);
	assert_string_equal(h.tlbs[0].name, "DTLB");
	assert_int_equal(h.tlbs[0].entries, 64);
	assert_int_equal(h.tlbs[0].assoc, 4);
	assert_int_equal(h.tlbs[0].policy, VMT_CACHE_LRU);
	assert_int_equal(h.tlbs[1].entries, 1536);
	assert_int_equal(h.tlbs[1].assoc, 12);
	assert_int_equal(h.tlbs[1].policy, VMT_CACHE_SRRIP);
	assert_int_equal(h.tlbs[2].assoc, 0);
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(h.tlbs[i].level, i + 1);
	assert_checks(&h);
	assert_fails(vmt_hierarchy_add_tlb_spec(&h, "DTLB=64:4", &err), -EINVAL,
		     "DTLB: a second level named DTLB");
	add_tlb(&h, "T4=8:2");
	assert_fails(vmt_hierarchy_add_tlb_spec(&h, "T5=8:2", &err), -EINVAL, "T5: no room for more than 4 TLBs");
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vmt_hierarchy_config e = named("e");

		assert_fails(vmt_hierarchy_add_tlb_spec(&e, cases[i].spec, &err), -EINVAL, cases[i].message);
		assert_int_equal(e.nr_tlbs, 0);
	}
}

/* A two-level hierarchy to break: L1 32k:8:64, L2 1M:16:64. */
static struct vmt_hierarchy_config two_levels(void)
{
	struct vmt_hierarchy_config h = named("two");

	add_cache(&h, "L1=32k:8:64");
	add_cache(&h, "L2=1M:16:64");
	assert_checks(&h);
	return h;
}

/* Each rule of vmt_hierarchy_check() broken once, by hand. */
static void test_check_levels(void **state)
{
	struct vmt_hierarchy_config h;

	(void)state;
	h = two_levels();
	h.caches[1].level = 3;
	snprintf(h.caches[1].name, VMT_CACHE_NAME_MAX, "L3");
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "no level 2 between L1 and L3");
	h = two_levels();
	h.caches[0] = h.caches[1];
	snprintf(h.caches[1].name, VMT_CACHE_NAME_MAX, "L2b");
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "no level 1 inside L2");
	h = two_levels();
	add_cache(&h, "L3=8M:16:64");
	h.caches[2].level = 2;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "two caches at level 2 (L2, L3)");
	h.caches[2].level = 1;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL,
		     "L3: level 1 after L2's 2 (caches go from the core outward)");
	h.caches[2].level = 0;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "L3: level 0 is not 1 to 4");
	h.caches[2].level = 3;
	h.caches[2].shared = false;
	h.caches[1].shared = true;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "L3: private, outside the shared L2");
	h = two_levels();
	h.caches[0].shared = true;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "L2: private, outside the shared L1");
	h.caches[1].shared = true;
	assert_checks(&h);
	h = two_levels();
	h.caches[0].inclusion = VMT_CACHE_INCLUSIVE;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "L1: inclusive at level 1, with no level inside it");
	h.caches[0].inclusion = VMT_CACHE_EXCLUSIVE;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "L1: exclusive at level 1, with no level inside it");
	h.caches[0].inclusion = VMT_CACHE_NON_INCLUSIVE;
	h.caches[1].inclusion = VMT_CACHE_EXCLUSIVE;
	assert_checks(&h);
	h.caches[1].kind = VMT_CACHE_DATA;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL,
		     "L2: data cache at level 2: only level 1 splits into instruction and data");
}

/* Level 1: one unified cache, or an instruction and a data one, alike in sharing. */
static void test_check_level1_pair(void **state)
{
	struct vmt_hierarchy_config h = named("pair");

	(void)state;
	add_cache(&h, "L1I=32k:8:64");
	add_cache(&h, "L1D=32k:8:64");
	add_cache(&h, "L2=1M:16:64");
	h.caches[0].kind = VMT_CACHE_INSTRUCTION;
	h.caches[1].kind = VMT_CACHE_DATA;
	h.caches[1].level = 1;
	h.caches[2].level = 2;
	assert_checks(&h);
	h.caches[0].kind = VMT_CACHE_DATA;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL,
		     "two caches at level 1 (L1I, L1D): only an instruction and a data one can share it");
	h.caches[0].kind = VMT_CACHE_UNIFIED;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL,
		     "two caches at level 1 (L1I, L1D): only an instruction and a data one can share it");
	h.caches[0].kind = VMT_CACHE_INSTRUCTION;
	h.caches[1].shared = true;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL,
		     "L1I and L1D: one private and one shared (a pair is alike)");
	h.caches[1].shared = false;
	h.caches[2].level = 1;
	h.caches[2].kind = VMT_CACHE_DATA;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "L2: a third cache at level 1");
	h.nr_caches = 1;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL,
		     "L1I: instruction cache at level 1 with no data one beside it");
	h.caches[0].kind = VMT_CACHE_DATA;
	h.caches[1] = (struct vmt_cache_config){ .name = "L2", .size = 1 << 20, .assoc = 16, .line = 64,
						 .level = 2 };
	h.nr_caches = 2;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL,
		     "L1I: data cache at level 1 with no instruction one beside it");
}

/* Names, counts, values out of their enums, the geometry (assoc 0: size / line ways), and TLBs. */
static void test_check_values(void **state)
{
	struct vmt_hierarchy_config h;

	(void)state;
	h = two_levels();
	h.name[0] = '\0';
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "a hierarchy with no name");
	memset(h.name, 'x', sizeof(h.name));
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "a hierarchy name of more than 31 characters");
	snprintf(h.name, sizeof(h.name), "a\tb");
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "a control character in a hierarchy name");
	snprintf(h.name, sizeof(h.name), "skylake.conf");	/* the command may name it after a file */
	assert_checks(&h);
	h.nr_caches = 0;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "hierarchy skylake.conf has no cache");
	h.nr_caches = VMT_CACHES_MAX + 1;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "9 caches, more than 8");
	h = two_levels();
	h.nr_tlbs = VMT_TLBS_MAX + 1;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "5 TLBs, more than 4");
	h = two_levels();
	h.caches[1].name[0] = '\0';
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "cache 1: a name is 1 to 15 of A-Z a-z 0-9 _ -");
	memset(h.caches[1].name, 'A', VMT_CACHE_NAME_MAX);
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "cache 1: a name is 1 to 15 of A-Z a-z 0-9 _ -");
	snprintf(h.caches[1].name, VMT_CACHE_NAME_MAX, "L1");
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "two levels named L1");
	h = two_levels();
	h.caches[0].policy = VMT_CACHE_POLICIES;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "L1: unknown policy 5");
	h = two_levels();
	h.caches[0].kind = 3;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "L1: unknown kind 3");
	h = two_levels();
	h.caches[0].inclusion = 3;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "L1: unknown inclusion 3");
	h = two_levels();
	h.caches[0].write = 2;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "L1: unknown write policy 2");
	h = two_levels();
	h.caches[1].size = 1000;
	h.caches[1].assoc = 8;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL,
		     "L2: 1000 bytes is not a whole number of sets of 8 ways of 64 bytes");
	/* assoc 0 is size / line ways: one set, any number of lines */
	h.caches[1].size = 960;
	h.caches[1].assoc = 0;
	assert_checks(&h);
	h.caches[1].policy = VMT_CACHE_PLRU;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL,
		     "L2: plru needs a power-of-two number of ways, not 15");
	h.caches[1].size = 1024;
	assert_checks(&h);
	/* assoc up to the lines, not beyond */
	h.caches[1].assoc = 16;
	assert_checks(&h);
	h.caches[1].assoc = 32;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL,
		     "L2: a set count of 0 (1024 bytes < one set of 32 x 64 bytes)");
	assert_int_equal(vmt_hierarchy_check(&h, NULL), -EINVAL);
	assert_fails(vmt_hierarchy_check(NULL, &err), -EINVAL, "no hierarchy");
}

static void test_check_tlbs(void **state)
{
	struct vmt_hierarchy_config h = two_levels();

	(void)state;
	add_tlb(&h, "DTLB=64:4");
	add_tlb(&h, "STLB=1536:12");
	assert_checks(&h);
	h.tlbs[1].level = 3;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "no level 2 between DTLB and STLB");
	h.tlbs[1].level = 1;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "two TLBs at level 1 (DTLB, STLB)");
	h.tlbs[1].level = 2;
	h.tlbs[0].level = 2;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "no level 1 inside DTLB");
	h.tlbs[0].level = 1;
	h.tlbs[1].entries = 1000;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL,
		     "STLB: 1000 entries is not a whole number of sets of 12 ways");
	h.tlbs[1].entries = 0;
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "STLB: no entries");
	h.tlbs[1].entries = 1536;
	snprintf(h.tlbs[1].name, VMT_CACHE_NAME_MAX, "L2");
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "two levels named L2");
	snprintf(h.tlbs[1].name, VMT_CACHE_NAME_MAX, "S TLB");
	assert_fails(vmt_hierarchy_check(&h, &err), -EINVAL, "TLB 1: a name is 1 to 15 of A-Z a-z 0-9 _ -");
}

/* The doc's example, with an instruction and data pair, a second hierarchy and every setting. */
static const char example[] =
	"# two hierarchies\n"
	"hierarchy small\n"
	"cache L1\n"
	"  size 32k\n"
	"  assoc 8            # or: full\n"
	"  line 64\n"
	"  policy lru         # lru fifo random plru srrip\n"
	"  kind unified       # unified, data, instruction\n"
	"  sharing private    # private, shared\n"
	"  inclusion non-inclusive   # non-inclusive, inclusive, exclusive\n"
	"  write back         # back, through\n"
	"  prefetch none      # none, next-line\n"
	"cache L2\n"
	"  size 1M\n"
	"  assoc 16\n"
	"  line 64\n"
	"  level 2            # default: one more than the block before's (an I/D pair shares one)\n"
	"  next L3            # optional: the cache this level misses to, checked\n"
	"cache L3\n"
	"\tsize 3M\n"
	"\tassoc 12\r\n"
	"\tline 64\n"
	"\tinclusion exclusive\n"
	"\twrite through\n"
	"\tpolicy srrip\n"
	"tlb DTLB\n"
	"  entries 64\n"
	"  assoc 4\n"
	"  policy lru\n"
	"tlb STLB\n"
	"  entries 1536\n"
	"  assoc 12\n"
	"\n"
	"hierarchy split-1.5\n"
	"cache L1I\n"
	"  kind instruction\n"
	"  size 32k\n"
	"  assoc full\n"
	"  line 64\n"
	"  next L2\n"
	"cache L1D\n"
	"  kind data\n"
	"  size 48k\n"
	"  assoc 12\n"
	"  line 64\n"
	"  prefetch next-line\n"
	"  policy plru     # 12 ways: the check catches it\n";

static void test_config_example(void **state)
{
	struct vmt_hierarchy_config h[4];
	const struct vmt_cache_config *c;
	char text[sizeof(example) + 64];
	unsigned int nr = 99;

	(void)state;
	/* plru on 12 ways, at the L1D block's line */
	assert_fails(vmt_hierarchy_parse(example, strlen(example), h, 4, &nr, &err), -EINVAL,
		     "line 41: L1D: plru needs a power-of-two number of ways, not 12");
	assert_int_equal(nr, 0);
	snprintf(text, sizeof(text), "%.*s  policy fifo\ncache L2\n size 2M\n assoc 8\n line 64\n",
		 (int)(strstr(example, "  policy plru") - example), example);
	memset(&err, 0, sizeof(err));
	assert_int_equal(vmt_hierarchy_parse(text, strlen(text), h, 4, &nr, &err), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(h[0].name, "small");
	assert_int_equal(h[0].nr_caches, 3);
	c = h[0].caches;
	assert_string_equal(c[0].name, "L1");
	assert_int_equal(c[0].size, 32768);
	assert_int_equal(c[0].assoc, 8);
	assert_int_equal(c[0].line, 64);
	assert_int_equal(c[0].level, 1);
	assert_int_equal(c[1].size, 1 << 20);
	assert_int_equal(c[1].assoc, 16);
	assert_int_equal(c[1].level, 2);
	assert_false(c[1].shared);
	assert_string_equal(c[2].name, "L3");
	assert_int_equal(c[2].size, 3 << 20);
	assert_int_equal(c[2].assoc, 12);
	assert_int_equal(sets(&c[2]), 4096);
	assert_int_equal(c[2].level, 3);	/* by default */
	assert_true(c[2].shared);		/* by default, at level 3 */
	assert_int_equal(c[2].inclusion, VMT_CACHE_EXCLUSIVE);
	assert_int_equal(c[2].write, VMT_CACHE_WRITE_THROUGH);
	assert_int_equal(c[2].policy, VMT_CACHE_SRRIP);
	assert_int_equal(h[0].nr_tlbs, 2);
	assert_string_equal(h[0].tlbs[0].name, "DTLB");
	assert_int_equal(h[0].tlbs[0].entries, 64);
	assert_int_equal(h[0].tlbs[0].assoc, 4);
	assert_int_equal(h[0].tlbs[0].level, 1);
	assert_int_equal(h[0].tlbs[1].entries, 1536);
	assert_int_equal(h[0].tlbs[1].assoc, 12);
	assert_int_equal(h[0].tlbs[1].level, 2);
	assert_string_equal(h[1].name, "split-1.5");
	assert_int_equal(h[1].nr_caches, 3);
	c = h[1].caches;
	assert_int_equal(c[0].kind, VMT_CACHE_INSTRUCTION);
	assert_int_equal(c[0].assoc, 0);
	assert_int_equal(c[1].kind, VMT_CACHE_DATA);
	assert_int_equal(c[1].level, 1);	/* the pair shares level 1 */
	assert_true(c[1].prefetch);
	assert_false(c[0].prefetch);
	assert_int_equal(c[1].policy, VMT_CACHE_FIFO);
	assert_int_equal(c[2].level, 2);
	assert_false(c[2].shared);
	for (unsigned int i = 0; i < nr; i++)
		assert_checks(&h[i]);
	/* Room for one: -ENOSPC at the second hierarchy's line. */
	assert_fails(vmt_hierarchy_parse(text, strlen(text), h, 1, &nr, &err), -ENOSPC,
		     "line 34: hierarchy split-1.5: room for 1 hierarchies only");
}

/* Before any hierarchy line, a hierarchy named "config"; the text need not end in a NUL or newline. */
static void test_config_implicit(void **state)
{
	static const char text[] = "cache L1\nsize 32k\nassoc 8\nline 64\ncache L2\nsize 1M\nassoc 8\nline 64JUNK";
	struct vmt_hierarchy_config h[2];
	unsigned int nr;

	(void)state;
	memset(&err, 0, sizeof(err));
	assert_int_equal(vmt_hierarchy_parse(text, strlen(text) - 4, h, 2, &nr, &err), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(h[0].name, "config");
	assert_int_equal(h[0].nr_caches, 2);
	assert_int_equal(h[0].caches[1].line, 64);
	assert_fails(vmt_hierarchy_parse(text, strlen(text), h, 2, &nr, &err), -EINVAL,
		     "line 8: bad line '64JUNK' (a number of bytes)");
	assert_fails(vmt_hierarchy_parse("", 0, h, 2, &nr, &err), -EINVAL, "line 1: no cache block in the text");
	assert_fails(vmt_hierarchy_parse("# nothing\n\n", 11, h, 2, &nr, &err), -EINVAL,
		     "line 2: no cache block in the text");
	assert_fails(vmt_hierarchy_parse(text, strlen(text), h, 2, NULL, &err), -EINVAL,
		     "no text, or nowhere to put the hierarchies");
}

/* Every error of a config file, with its line. */
static void test_config_errors(void **state)
{
	static const struct {
		const char *text, *message;
	} cases[] = {
		{ "cache L1\n size 32k\n assoc 8\n line 96\n",
		  "line 4: line 96 is not a power of two" },
		{ "cache L1\n sise 32k\n",
		  "line 2: unknown key 'sise' in cache L1 (size, assoc, line, policy, kind, sharing, inclusion, "
		  "write, prefetch, level, next)" },
		{ "tlb DTLB\n line 64\n",
		  "line 2: unknown key 'line' in tlb DTLB (assoc, policy, level, entries)" },
		{ "cache L1\n size 32k\n assoc 8\n size 64k\n",
		  "line 4: size given twice in cache L1 (first on line 2)" },
		{ "cache L1\n size 32k\n assoc 8\ncache L2\n",
		  "line 1: cache L1 has no line" },
		{ "tlb DTLB\n assoc 4\n", "line 1: tlb DTLB has no entries" },
		{ "cache L1\n size 32k x\n", "line 2: junk after 'size 32k': 'x'" },
		{ "cache L1 L2\n", "line 1: junk after 'cache L1': 'L2'" },
		{ "cache L1\n size\n", "line 2: size needs a value" },
		{ "cache\n", "line 1: cache needs a name" },
		{ "hierarchy\n", "line 1: hierarchy needs a name" },
		{ "size 32k\n", "line 1: 'size' outside a block (hierarchy, cache or tlb first)" },
		{ "hierarchy a\nsize 32k\n", "line 2: 'size' outside a block (hierarchy, cache or tlb first)" },
		{ "cache L1\n policy lfu\n", "line 2: unknown policy 'lfu' (lru, fifo, random, plru, srrip)" },
		{ "cache L1\n kind both\n", "line 2: unknown kind 'both' (unified, data, instruction)" },
		{ "cache L1\n sharing all\n", "line 2: unknown sharing 'all' (private, shared)" },
		{ "cache L1\n inclusion non_inclusive\n",
		  "line 2: unknown inclusion 'non_inclusive' (non-inclusive, inclusive, exclusive)" },
		{ "cache L1\n write around\n", "line 2: unknown write 'around' (back, through)" },
		{ "cache L1\n prefetch stride\n", "line 2: unknown prefetch 'stride' (none, next-line)" },
		{ "cache L1\n level 5\n", "line 2: level '5' is not 1 to 4" },
		{ "cache L1\n level 0\n", "line 2: level '0' is not 1 to 4" },
		{ "cache L1\n size 32q\n", "line 2: bad size '32q' (a number of bytes, with k, M or G)" },
		{ "cache L1\n assoc 0\n", "line 2: bad assoc '0' (a number of ways, or full)" },
		{ "tlb T\n entries -1\n", "line 2: bad entries '-1' (a number, 1 or more)" },
		{ "cache L1\n next L 2\n", "line 2: junk after 'next L': '2'" },
		{ "cache L1\n next L2.\n", "line 2: bad name 'L2.' (1 to 15 of A-Z a-z 0-9 _ -)" },
		{ "cache L1.a\n", "line 1: bad name 'L1.a' (1 to 15 of A-Z a-z 0-9 _ -)" },
		{ "hierarchy a,b\n", "line 1: bad hierarchy name 'a,b' (1 to 31 of A-Z a-z 0-9 _ - . +)" },
		{ "cache L1\n size 32\n assoc 8\n line 64\n",
		  "line 1: L1: a set count of 0 (32 bytes < one set of 8 x 64 bytes)" },
		{ "cache L1\n size 1k\n assoc 1\n line 64\n\n\ncache L3\n level 3\n size 8M\n assoc 16\n line 64\n",
		  "line 7: no level 2 between L1 and L3" },
		{ "cache L1\n size 1k\n assoc 1\n line 64\ncache L2\n size 8M\n assoc 16\n line 64\n sharing shared\n"
		  "cache L3\n size 8M\n assoc 16\n line 64\n sharing private\n",
		  "line 10: L3: private, outside the shared L2" },
		{ "cache L1\n size 1k\n assoc 1\n line 64\n next L3\ncache L2\n size 8M\n assoc 16\n line 64\n",
		  "line 5: next L3, but the level after L1 is L2" },
		{ "cache L1\n size 1k\n assoc 1\n line 64\ncache L2\n size 8M\n assoc 16\n line 64\n next L3\n",
		  "line 9: next L3, but L2 is the last level" },
		{ "hierarchy a\n\nhierarchy b\n", "line 1: hierarchy a has no cache" },
		{ "hierarchy a\ntlb T\n entries 8\n assoc 2\n", "line 1: hierarchy a has no cache" },
		{ "hierarchy a\ncache L1\n size 1k\n assoc 1\n line 64\nhierarchy a\n",
		  "line 6: a second hierarchy named a" },
		{ "cache L1\n size 1k\n assoc 1\n line 64\nhierarchy config\n",
		  "line 5: a second hierarchy named config" },
		{ "tlb A\n entries 8\n assoc 2\ntlb B\n entries 8\n assoc 2\n level 1\n"
		  "cache L1\n size 1k\n assoc 1\n line 64\n",
		  "line 4: two TLBs at level 1 (A, B)" },
		{ "cache a\n size 1k\n assoc 1\n line 64\ncache b\n size 1k\n assoc 1\n line 64\n"
		  "cache c\n size 1k\n assoc 1\n line 64\ncache d\n size 1k\n assoc 1\n line 64\n"
		  "cache e\n size 1k\n assoc 1\n line 64\n",
		  "line 17: e: level 5 is not 1 to 4" },
	};
	struct vmt_hierarchy_config h[2];
	unsigned int nr;

	(void)state;
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(vmt_hierarchy_parse(cases[i].text, strlen(cases[i].text), h, 2, &nr, &err), -EINVAL);
		if (strcmp(err.message, cases[i].message))
			fail_msg("case %u: '%s', not '%s'", i, err.message, cases[i].message);
		assert_int_equal(nr, 0);
	}
}

/* Lines of 1024 characters at most, NUL bytes, nine caches. */
static void test_config_limits(void **state)
{
	struct vmt_hierarchy_config h[1];
	char text[4096];
	unsigned int nr;
	size_t n;

	(void)state;
	n = (size_t)snprintf(text, sizeof(text), "cache L1\n size 1k\n assoc 1\n line 64\n#");
	memset(text + n, 'x', 1023);	/* a comment line of 1024 characters */
	text[n + 1023] = '\n';
	memset(&err, 0, sizeof(err));
	assert_int_equal(vmt_hierarchy_parse(text, n + 1024, h, 1, &nr, &err), 0);
	assert_int_equal(nr, 1);
	text[n + 1023] = 'x';
	text[n + 1024] = '\n';
	assert_fails(vmt_hierarchy_parse(text, n + 1025, h, 1, &nr, &err), -EINVAL,
		     "line 5: longer than 1024 characters");
	assert_fails(vmt_hierarchy_parse("cache L1\n size 1k\0\n", 19, h, 1, &nr, &err), -EINVAL,
		     "line 2: a NUL byte");
	n = 0;
	for (unsigned int i = 0; i < 9; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "cache C%u\n size 1k\n assoc 1\n line 64\n level 1\n",
				      i);
	assert_fails(vmt_hierarchy_parse(text, n, h, 1, &nr, &err), -EINVAL,
		     "line 41: more than 8 caches in hierarchy config");
}

/* PSnAP's Table 1 as docs/analysis/cachesim.md has it: KB / line / ways, L1, L2, L3 (0: none). */
static const unsigned int psnap_table[10][3][3] = {
	{ { 32, 128, 2 }, { 1024, 128, 8 } },
	{ { 256, 128, 8 }, { 9216, 128, 12 } },
	{ { 64, 64, 2 }, { 512, 64, 16 } },
	{ { 32, 32, 4 }, { 128, 64, 2 } },
	{ { 64, 64, 2 }, { 512, 64, 16 }, { 1024, 64, 48 } },
	{ { 64, 128, 8 }, { 4096, 128, 8 }, { 16384, 128, 16 } },
	{ { 64, 64, 2 }, { 512, 64, 8 } },
	{ { 64, 64, 2 }, { 512, 64, 32 } },
	{ { 64, 64, 2 }, { 512, 32, 16 } },
	{ { 64, 64, 2 }, { 512, 128, 16 } },
};

static void test_presets_psnap(void **state)
{
	static const char *const names[3] = { "L1", "L2", "L3" };
	struct vmt_hierarchy_config h[10];
	unsigned int nr;
	char name[16];

	(void)state;
	assert_int_equal(vmt_hierarchy_preset("psnap", h, 10, &nr), 0);
	assert_int_equal(nr, 10);
	for (unsigned int id = 0; id < 10; id++) {
		snprintf(name, sizeof(name), "psnap%u", id + 1);
		assert_string_equal(h[id].name, name);
		assert_int_equal(h[id].nr_tlbs, 0);
		assert_int_equal(h[id].nr_caches, psnap_table[id][2][0] ? 3 : 2);
		for (unsigned int l = 0; l < h[id].nr_caches; l++) {
			const struct vmt_cache_config *c = &h[id].caches[l];
			const unsigned int *row = psnap_table[id][l];

			assert_string_equal(c->name, names[l]);
			assert_int_equal(c->level, l + 1);
			/* 5's L3 is 341 whole sets of 48 x 64 bytes: 1023 KiB, not 1024 */
			assert_int_equal(c->size, id == 4 && l == 2 ? 341 * 48 * 64 : row[0] * 1024ull);
			assert_int_equal(c->line, row[1]);
			assert_int_equal(c->assoc, row[2]);
			assert_int_equal(c->kind, VMT_CACHE_UNIFIED);
			assert_int_equal(c->policy, VMT_CACHE_LRU);
			assert_int_equal(c->shared, l == 2);
			assert_false(c->prefetch);
		}
		assert_checks(&h[id]);
	}
	/* Set counts, number by number: 2 and 5 are not powers of two; 6's are. */
	assert_int_equal(sets(&h[1].caches[0]), 256);
	assert_int_equal(sets(&h[1].caches[1]), 6144);
	assert_int_equal(sets(&h[4].caches[2]), 341);
	assert_int_equal(sets(&h[5].caches[0]), 64);
	assert_int_equal(sets(&h[5].caches[1]), 4096);
	assert_int_equal(sets(&h[5].caches[2]), 8192);
	assert_int_equal(sets(&h[0].caches[0]), 128);
	assert_int_equal(sets(&h[0].caches[1]), 1024);
	/* One alone is the same as the psnap set's. */
	for (unsigned int id = 0; id < 10; id++) {
		struct vmt_hierarchy_config one;

		snprintf(name, sizeof(name), "psnap%u", id + 1);
		assert_int_equal(vmt_hierarchy_preset(name, &one, 1, &nr), 0);
		assert_int_equal(nr, 1);
		assert_memory_equal(&one, &h[id], sizeof(one));
	}
	assert_int_equal(vmt_hierarchy_preset("psnap", h, 9, &nr), -ENOSPC);
	assert_int_equal(nr, 0);
	assert_int_equal(vmt_hierarchy_preset("psnap11", h, 9, &nr), -ENOENT);
	assert_int_equal(vmt_hierarchy_preset("psnap0", h, 9, &nr), -ENOENT);
	assert_int_equal(vmt_hierarchy_preset("PSNAP", h, 9, &nr), -ENOENT);
	assert_int_equal(vmt_hierarchy_preset(NULL, h, 9, &nr), -EINVAL);
	assert_int_equal(vmt_hierarchy_preset("psnap1", h, 0, &nr), -ENOSPC);
}

static void assert_cache(const struct vmt_cache_config *c, const char *name, unsigned int level,
			 unsigned int kind, uint64_t size, unsigned int assoc, bool shared, bool prefetch)
{
	assert_string_equal(c->name, name);
	assert_int_equal(c->level, level);
	assert_int_equal(c->kind, kind);
	assert_int_equal(c->size, size);
	assert_int_equal(c->assoc, assoc);
	assert_int_equal(c->line, 64);
	assert_int_equal(c->policy, VMT_CACHE_LRU);
	assert_int_equal(c->write, VMT_CACHE_WRITE_BACK);
	assert_int_equal(c->shared, shared);
	assert_int_equal(c->prefetch, prefetch);
}

static void test_presets_tools(void **state)
{
	struct vmt_hierarchy_config h;
	unsigned int nr;

	(void)state;
	assert_int_equal(vmt_hierarchy_preset("cachegrind", &h, 1, &nr), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(h.name, "cachegrind");
	assert_int_equal(h.nr_caches, 3);
	assert_int_equal(h.nr_tlbs, 0);
	assert_cache(&h.caches[0], "I1", 1, VMT_CACHE_INSTRUCTION, 65536, 2, false, false);
	assert_cache(&h.caches[1], "D1", 1, VMT_CACHE_DATA, 65536, 2, false, false);
	assert_cache(&h.caches[2], "LL", 2, VMT_CACHE_UNIFIED, 262144, 8, false, false);
	assert_checks(&h);

	assert_int_equal(vmt_hierarchy_preset("drcachesim", &h, 1, &nr), 0);
	assert_string_equal(h.name, "drcachesim");
	assert_int_equal(h.nr_caches, 3);
	assert_cache(&h.caches[0], "L1I", 1, VMT_CACHE_INSTRUCTION, 32768, 8, false, false);
	assert_cache(&h.caches[1], "L1D", 1, VMT_CACHE_DATA, 32768, 8, false, true);
	assert_cache(&h.caches[2], "LL", 2, VMT_CACHE_UNIFIED, 8 << 20, 16, true, false);
	assert_checks(&h);

	assert_int_equal(vmt_hierarchy_preset("skylake", &h, 1, &nr), 0);
	assert_string_equal(h.name, "skylake");
	assert_int_equal(h.nr_caches, 4);
	assert_cache(&h.caches[0], "L1I", 1, VMT_CACHE_INSTRUCTION, 32768, 8, false, false);
	assert_cache(&h.caches[1], "L1D", 1, VMT_CACHE_DATA, 32768, 8, false, false);
	assert_cache(&h.caches[2], "L2", 2, VMT_CACHE_UNIFIED, 256 << 10, 4, false, false);
	assert_cache(&h.caches[3], "L3", 3, VMT_CACHE_UNIFIED, 8 << 20, 16, true, false);
	assert_int_equal(h.caches[2].inclusion, VMT_CACHE_NON_INCLUSIVE);
	assert_int_equal(h.caches[3].inclusion, VMT_CACHE_INCLUSIVE);
	assert_int_equal(h.nr_tlbs, 2);
	assert_string_equal(h.tlbs[0].name, "DTLB");
	assert_int_equal(h.tlbs[0].entries, 64);
	assert_int_equal(h.tlbs[0].assoc, 4);
	assert_int_equal(h.tlbs[0].level, 1);
	assert_string_equal(h.tlbs[1].name, "STLB");
	assert_int_equal(h.tlbs[1].entries, 1536);
	assert_int_equal(h.tlbs[1].assoc, 12);
	assert_int_equal(h.tlbs[1].level, 2);
	assert_checks(&h);
	assert_int_equal(vmt_hierarchy_preset("skylake", NULL, 0, &nr), -ENOSPC);
	assert_int_equal(vmt_hierarchy_preset("nehalem", NULL, 0, &nr), -ENOENT);
}

/* Every preset the enumeration names exists, in the doc's order, and passes the check. */
static void test_presets_all_check(void **state)
{
	static const char *const order[] = {
		"psnap", "psnap1", "psnap2", "psnap3", "psnap4", "psnap5", "psnap6", "psnap7", "psnap8",
		"psnap9", "psnap10", "cachegrind", "drcachesim", "skylake",
	};
	struct vmt_hierarchy_config h[10];
	const char *name, *summary;
	unsigned int i, nr;

	(void)state;
	for (i = 0; (name = vmt_hierarchy_preset_name(i, &summary)); i++) {
		assert_true(i < sizeof(order) / sizeof(order[0]));
		assert_string_equal(name, order[i]);
		assert_non_null(summary);
		assert_true(strlen(summary) > 10 && !strchr(summary, '\n'));
		assert_int_equal(vmt_hierarchy_preset(name, h, 10, &nr), 0);
		assert_int_equal(nr, strcmp(name, "psnap") ? 1 : 10);
		for (unsigned int j = 0; j < nr; j++)
			assert_checks(&h[j]);
	}
	assert_int_equal(i, sizeof(order) / sizeof(order[0]));
	assert_null(vmt_hierarchy_preset_name(i, &summary));
	assert_string_equal(vmt_hierarchy_preset_name(0, NULL), "psnap");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_names),
		cmocka_unit_test(test_cache_specs),
		cmocka_unit_test(test_cache_spec_sizes),
		cmocka_unit_test(test_cache_spec_errors),
		cmocka_unit_test(test_cache_spec_hierarchy),
		cmocka_unit_test(test_tlb_specs),
		cmocka_unit_test(test_check_levels),
		cmocka_unit_test(test_check_level1_pair),
		cmocka_unit_test(test_check_values),
		cmocka_unit_test(test_check_tlbs),
		cmocka_unit_test(test_config_example),
		cmocka_unit_test(test_config_implicit),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_config_limits),
		cmocka_unit_test(test_presets_psnap),
		cmocka_unit_test(test_presets_tools),
		cmocka_unit_test(test_presets_all_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
