// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for `vmtrace dump --diff` (user/cmd/util/record_diff.c, built in
 * here): exact lines for references, evictions, lost records and other
 * types; each pid keeps its own chains of references and evictions; and
 * summing the columns gives every time and address back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../user/cmd/util/record_diff.c"

static struct vmt_record ref(uint64_t time, uint32_t pid, uint16_t cpu, uint16_t type,
			     uint64_t vaddr, uint8_t access)
{
	struct vmt_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.time_ns = time;
	r.hdr.pid = pid;
	r.hdr.tid = pid + 1;
	r.hdr.cpu = cpu;
	r.hdr.type = type;
	r.ref.vaddr = vaddr;
	r.ref.access = access;
	return r;
}

/* The text of @n records, header line included; free() it. */
static char *encode(const struct vmt_record *records, size_t n)
{
	struct record_diff *d = record_diff_new();
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	assert_non_null(d);
	assert_non_null(out);
	record_diff_header(out);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(record_diff_print(d, out, &records[i]), 0);
	fclose(out);
	record_diff_free(d);
	return text;
}

static void test_exact_lines(void **state)
{
	struct vmt_record r[8];
	char *text;

	(void)state;
	r[0] = ref(1000, 7, 0, VMT_REC_REFERENCE, 0x7f0000001000, VMT_ACCESS_READ);
	r[1] = ref(1250, 7, 0, VMT_REC_REFERENCE, 0x7f0000003008, VMT_ACCESS_WRITE);
	r[2] = ref(1300, 9, 1, VMT_REC_REFERENCE, 0x400000, VMT_ACCESS_EXEC);
	r[2].ref.kernel_mode = 1;
	r[3] = ref(1200, 7, 0, VMT_REC_EVICT, 0x7f0000000000, 0);	/* drained late */
	r[3].ref.evict_flags = VMT_EVICT_DIRTY | VMT_EVICT_ACCESSED;
	r[4] = ref(1400, 7, 0, VMT_REC_REFERENCE, 0x7f0000002000, VMT_ACCESS_READ);
	r[4].ref.flags = VMT_REF_HUGE;
	r[5] = ref(1500, 7, 0, VMT_REC_EVICT, 0x7f0000001000, 0);
	r[6] = ref(1600, 0, 1, VMT_REC_LOST, 0, 0);
	r[6].lost.count = 12;
	r[7] = ref(1700, 9, 1, 250, 0, 0);
	text = encode(r, 8);
	assert_string_equal(text,
			    "# vmtrace diff 1: dt pid tid cpu kind delta\n"
			    "1000 7 8 0 R 139637976731648\n"
			    "250 7 8 0 W 8200\n"
			    "50 9 10 1 Xk 4194304\n"
			    "-100 7 8 0 Ed 139637976727552\n"
			    "200 7 8 0 Rh -4104\n"
			    "100 7 8 0 E 4096\n"
			    "100 - - 1 L 12\n"
			    "100 9 10 1 T250 0\n");
	free(text);
}

/* 3,000 records of 40 pids (the table grows): the sums give them back. */
static void test_sums_give_back(void **state)
{
	enum { N = 3000, PIDS = 40 };
	struct vmt_record *r = calloc(N, sizeof(*r));
	uint64_t time = 0, refs[PIDS] = { 0 }, evicts[PIDS] = { 0 };
	char *text, *line, *save = NULL;
	size_t i = 0;

	(void)state;
	assert_non_null(r);
	for (size_t k = 0; k < N; k++) {
		uint64_t addr = (k * 0x9e3779b97f4a7c15ull) >> 16;

		r[k] = ref(5000 + 37 * k - 100 * (k % 3), 1000 + (uint32_t)(k % PIDS),
			   (uint16_t)(k % 4), k % 5 == 4 ? VMT_REC_EVICT : VMT_REC_REFERENCE,
			   addr, VMT_ACCESS_READ);
	}
	text = encode(r, N);
	line = strtok_r(text, "\n", &save);
	assert_string_equal(line, "# vmtrace diff 1: dt pid tid cpu kind delta");
	while ((line = strtok_r(NULL, "\n", &save))) {
		long long dt, delta;
		unsigned int pid, tid, cpu;
		char kind[8];
		uint64_t *last;

		assert_true(i < N);
		assert_int_equal(sscanf(line, "%lld %u %u %u %7s %lld", &dt, &pid, &tid, &cpu,
					kind, &delta), 6);
		time += (uint64_t)dt;
		last = kind[0] == 'E' ? &evicts[pid - 1000] : &refs[pid - 1000];
		*last += (uint64_t)delta;
		assert_int_equal(time, r[i].hdr.time_ns);
		assert_int_equal(pid, r[i].hdr.pid);
		assert_int_equal(*last, r[i].ref.vaddr);
		assert_int_equal(kind[0] == 'E', r[i].hdr.type == VMT_REC_EVICT);
		i++;
	}
	assert_int_equal(i, N);
	free(text);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_lines),
		cmocka_unit_test(test_sums_give_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
