// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the importer of other tools' text traces (vmt_import_*(),
 * user/lib/trace/trace_import.c): lackey's and din's lines into exact
 * records, field by field; the same records whatever the pieces the text
 * comes in; each kind of bad line refused with its line number and what is
 * wrong, and refused again after; lines up to VMT_IMPORT_MAX_LINE bytes, a
 * longer one refused but for valgrind's own; an input without an access;
 * an error of the caller's stopping the import.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vmtrace/trace.h"

#define MAX_RECORDS 64

struct sink {
	size_t n;
	struct vmt_record recs[MAX_RECORDS];
	int fail_at;		/* return -ENOSPC for this record (1-based); 0: never */
};

static int collect(void *arg, const struct vmt_record *rec)
{
	struct sink *s = arg;

	if (s->fail_at && s->n + 1 == (size_t)s->fail_at)
		return -ENOSPC;
	assert_true(s->n < MAX_RECORDS);
	s->recs[s->n++] = *rec;
	return 0;
}

/* Import @text in pieces of @piece bytes (0: whole); the result of the last call. */
static int import(unsigned int format, const char *text, size_t piece, struct sink *s,
		  struct vmt_import_stats *stats, struct vmt_trace_error *err)
{
	struct vmt_import_options o = { .pid = 77, .tid = 78, .cpu = 2, .name = "t.log" };
	size_t size = strlen(text), off = 0, n;
	struct vmt_import *imp;
	int ret = 0;

	memset(s, 0, offsetof(struct sink, fail_at));
	assert_int_equal(vmt_import_create(&imp, format, &o), 0);
	while (!ret && off < size) {
		n = piece && piece < size - off ? piece : size - off;
		ret = vmt_import_feed(imp, text + off, n, collect, s, err);
		off += n;
	}
	if (!ret)
		ret = vmt_import_finish(imp, collect, s, err);
	vmt_import_stats(imp, stats);
	vmt_import_free(imp);
	return ret;
}

static void expect(const struct vmt_record *r, uint64_t time, uint64_t addr, unsigned int size,
		   unsigned int access, uint64_t ip)
{
	static const uint8_t zero[16];

	assert_int_equal(r->hdr.type, VMT_REC_EXACT);
	assert_int_equal(r->hdr.time_ns, time);
	assert_int_equal(r->hdr.pid, 77);
	assert_int_equal(r->hdr.tid, 78);
	assert_int_equal(r->hdr.cpu, 2);
	assert_int_equal(r->hdr.data_len, 0);
	assert_int_equal(r->exact.addr, addr);
	assert_int_equal(r->exact.size, size);
	assert_int_equal(r->exact.access, access);
	assert_int_equal(r->exact.ip, ip);
	assert_int_equal(r->exact.kernel_mode, 0);
	assert_int_equal(r->exact.flags, 0);
	assert_memory_equal(r->exact.value, zero, sizeof(zero));
}

static const char lackey_text[] =
	"==4242== Lackey, an example Valgrind tool\n"
	"==4242== \n"
	" S 1fff000718,8\n"		/* before any I: ip 0 */
	"I  0401AB70,3\n"
	" L 7ff0001000,4\n"
	"\n"
	"I  0401ab73,5\r\n"
	" M 00000010,1\n"
	" S ffffffffffffffff,32\n"
	"--4242-- a message of valgrind -v\n"
	"I\t401ab78,15  \n"
	"==4242== Exit code:       0";		/* no newline at the end */

static void test_lackey(void **state)
{
	struct vmt_import_stats st;
	struct vmt_trace_error err;
	struct sink s;

	(void)state;
	assert_int_equal(import(VMT_IMPORT_LACKEY, lackey_text, 0, &s, &st, &err), 0);
	assert_int_equal(s.n, 7);
	expect(&s.recs[0], 0, 0x1fff000718, 8, VMT_ACCESS_WRITE, 0);
	expect(&s.recs[1], 1, 0x401ab70, 3, VMT_ACCESS_EXEC, 0x401ab70);
	expect(&s.recs[2], 2, 0x7ff0001000, 4, VMT_ACCESS_READ, 0x401ab70);
	expect(&s.recs[3], 3, 0x401ab73, 5, VMT_ACCESS_EXEC, 0x401ab73);
	expect(&s.recs[4], 4, 0x10, 1, VMT_ACCESS_RMW, 0x401ab73);
	expect(&s.recs[5], 5, UINT64_MAX, 32, VMT_ACCESS_WRITE, 0x401ab73);
	expect(&s.recs[6], 6, 0x401ab78, 15, VMT_ACCESS_EXEC, 0x401ab78);
	assert_int_equal(st.lines, 12);
	assert_int_equal(st.records, 7);
	assert_int_equal(st.fetches, 3);
	assert_int_equal(st.reads, 1);
	assert_int_equal(st.writes, 2);
	assert_int_equal(st.modifies, 1);
	assert_int_equal(st.skipped, 5);
	assert_int_equal(st.flushes, 0);
}

static void test_din(void **state)
{
	static const char text[] =
		"0 10\n"
		"1\t0x7FFD0010 8\r\n"
		"\n"
		"   2 401000   4096  \n"
		"3 0\n"
		"4 0\n"
		"0x2 0X401004\n"
		"4 10 8\n"
		"0 0000000000000000000000000000abc 1";
	struct vmt_import_stats st;
	struct vmt_trace_error err;
	struct sink s;

	(void)state;
	assert_int_equal(import(VMT_IMPORT_DIN, text, 0, &s, &st, &err), 0);
	assert_int_equal(s.n, 5);
	expect(&s.recs[0], 0, 0x10, 4, VMT_ACCESS_READ, 0);
	expect(&s.recs[1], 1, 0x7ffd0010, 8, VMT_ACCESS_WRITE, 0);
	expect(&s.recs[2], 2, 0x401000, 4096, VMT_ACCESS_EXEC, 0x401000);
	expect(&s.recs[3], 3, 0x401004, 4, VMT_ACCESS_EXEC, 0x401004);
	expect(&s.recs[4], 4, 0xabc, 1, VMT_ACCESS_READ, 0);
	assert_int_equal(st.lines, 9);
	assert_int_equal(st.skipped, 4);
	assert_int_equal(st.flushes, 2);
}

/* A byte at a time, 7 at a time...: the records of the whole text. */
static void test_pieces(void **state)
{
	struct vmt_import_stats whole_st, st;
	struct vmt_trace_error err;
	struct sink whole, s;

	(void)state;
	assert_int_equal(import(VMT_IMPORT_LACKEY, lackey_text, 0, &whole, &whole_st, &err), 0);
	for (size_t piece = 1; piece < sizeof(lackey_text); piece += 3) {
		assert_int_equal(import(VMT_IMPORT_LACKEY, lackey_text, piece, &s, &st, &err), 0);
		assert_int_equal(s.n, whole.n);
		assert_memory_equal(s.recs, whole.recs, whole.n * sizeof(whole.recs[0]));
		assert_memory_equal(&st, &whole_st, sizeof(st));
	}
}

static const struct bad_case {
	unsigned int format;
	const char *text;
	const char *message;
} bad_cases[] = {
	{ VMT_IMPORT_LACKEY, "I  400000,3\n L 7ff00g,4\n",
	  "t.log:2: bad hex digit 'g' in the address" },
	{ VMT_IMPORT_LACKEY, " L ,4", "t.log:1: want the address (hex), found ',4'" },
	{ VMT_IMPORT_LACKEY, "\n\n S 10,0\n", "t.log:3: size 0: an access is 1 to 4096 bytes" },
	{ VMT_IMPORT_LACKEY, " L 10,4097\n", "t.log:1: size 4097 is over 4096 bytes" },
	{ VMT_IMPORT_LACKEY, " L 10,99999999999999999999999\n",
	  "t.log:1: size 99999999999999999999 is over 4096 bytes" },
	{ VMT_IMPORT_LACKEY, " L 10,", "t.log:1: want a size (decimal), found the end of the line" },
	{ VMT_IMPORT_LACKEY, " L 10,4k\n", "t.log:1: bad digit 'k' in the size" },
	{ VMT_IMPORT_LACKEY, " L 10 4\n", "t.log:1: want ',' after the address, found ' 4'" },
	{ VMT_IMPORT_LACKEY, " S 10,4 x\n", "t.log:1: text after the size: 'x'" },
	{ VMT_IMPORT_LACKEY, " L 12345678901234567,4\n",
	  "t.log:1: the address '12345678901234567' is over 64 bits" },
	{ VMT_IMPORT_LACKEY, "I  1,1\nprogram output\n",
	  "t.log:2: not a line of lackey's (I, L, S or M ADDRESS,SIZE, or ==PID== ...): "
	  "'program output'" },
	{ VMT_IMPORT_LACKEY, " L0,4\n", "t.log:1: want a space after 'L', found '0,4'" },
	{ VMT_IMPORT_LACKEY, " X\x01\xff,4\n",
	  "t.log:1: not a line of lackey's (I, L, S or M ADDRESS,SIZE, or ==PID== ...): ' X??,4'" },
	{ VMT_IMPORT_DIN, "0 10\n5 10\n",
	  "t.log:2: unknown label 5 (0 read, 1 write, 2 instruction fetch, 3 escape, 4 flush)" },
	{ VMT_IMPORT_DIN, "10 10\n",
	  "t.log:1: unknown label 10 (0 read, 1 write, 2 instruction fetch, 3 escape, 4 flush)" },
	{ VMT_IMPORT_DIN, "0 10 0\n", "t.log:1: size 0: an access is 1 to 4096 bytes" },
	{ VMT_IMPORT_DIN, "0 1z\n", "t.log:1: bad hex digit 'z' in an address" },
	{ VMT_IMPORT_DIN, "0 0x\n", "t.log:1: want an address (hex), found the end of the line" },
	{ VMT_IMPORT_DIN, "0 10,4\n",
	  "t.log:1: want a space or the end of the line after the address, found ',4'" },
	{ VMT_IMPORT_DIN, "2\n", "t.log:1: want a space after the label, found the end of the line" },
	{ VMT_IMPORT_DIN, "0 10 4 comment\n", "t.log:1: text after the size: 'comment'" },
	{ VMT_IMPORT_DIN, "q 10\n", "t.log:1: want a label (hex), found 'q 10'" },
	{ VMT_IMPORT_DIN, "3 x\n", "t.log:1: want an address (hex), found 'x'" },
};

static void test_bad_lines(void **state)
{
	struct vmt_import_options o = { .name = "t.log" };
	struct vmt_import_stats st;
	struct vmt_trace_error err;
	struct vmt_import *imp;
	struct sink s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];

		/* whole, and a byte at a time: the same message */
		for (size_t piece = 0; piece < 2; piece++) {
			memset(&err, 0, sizeof(err));
			assert_int_equal(import(c->format, c->text, piece, &s, &st, &err), -EINVAL);
			assert_string_equal(err.message, c->message);
		}
	}
	/* Once refused, always: the next piece, and the end. */
	assert_int_equal(vmt_import_create(&imp, VMT_IMPORT_DIN, &o), 0);
	assert_int_equal(vmt_import_feed(imp, "0 10\n7 0\n", 9, collect, &s, &err), -EINVAL);
	assert_int_equal(vmt_import_feed(imp, "0 20\n", 5, collect, &s, &err), -EINVAL);
	assert_string_equal(err.message, "t.log:2: unknown label 7 (0 read, 1 write, "
			    "2 instruction fetch, 3 escape, 4 flush)");
	assert_int_equal(vmt_import_finish(imp, collect, &s, &err), -EINVAL);
	vmt_import_stats(imp, &st);
	assert_int_equal(st.lines, 2);
	assert_int_equal(st.records, 1);
	vmt_import_free(imp);
}

static void test_long_lines(void **state)
{
	size_t max = VMT_IMPORT_MAX_LINE, len = 3 * max;
	struct vmt_import_stats st;
	struct vmt_trace_error err;
	char *text = malloc(len + 64);
	struct sink s;

	(void)state;
	assert_non_null(text);
	/* din: "0 000...010" of exactly the longest line, then one a byte longer */
	memset(text, '0', max);
	text[1] = ' ';
	memcpy(text + max - 2, "10\n", 4);
	for (size_t piece = 0; piece < 1000; piece += 333) {
		assert_int_equal(import(VMT_IMPORT_DIN, text, piece, &s, &st, &err), 0);
		assert_int_equal(s.n, 1);
		assert_int_equal(s.recs[0].exact.addr, 0x10);
	}
	memcpy(text + max - 2, "010\n", 5);
	for (size_t piece = 0; piece < 1000; piece += 333) {
		assert_int_equal(import(VMT_IMPORT_DIN, text, piece, &s, &st, &err), -EINVAL);
		/* the line's first 41 bytes quoted: "0 " and 39 zeros */
		assert_string_equal(err.message, "t.log:1: a line longer than 4096 bytes: "
				    "'0 000000000000000000000000000000000000000...'");
	}
	/* lackey: a message of valgrind's three times the longest line is skipped */
	memset(text, 'x', len);
	memcpy(text, "==1== ", 6);
	strcpy(text + len, "\n L 20,2\n==1== end");
	for (size_t piece = 0; piece < 5000; piece += 999) {
		assert_int_equal(import(VMT_IMPORT_LACKEY, text, piece, &s, &st, &err), 0);
		assert_int_equal(s.n, 1);
		assert_int_equal(s.recs[0].exact.addr, 0x20);
		assert_int_equal(st.lines, 3);
		assert_int_equal(st.skipped, 2);
	}
	free(text);
}

static void test_no_access(void **state)
{
	struct vmt_import_stats st;
	struct vmt_trace_error err;
	struct sink s;

	(void)state;
	assert_int_equal(import(VMT_IMPORT_LACKEY, "==1== Lackey\n==1== \n", 0, &s, &st, &err),
			 -ENODATA);
	assert_string_equal(err.message,
			    "t.log: no access in 2 lines (valgrind --tool=lackey needs --trace-mem=yes)");
	assert_int_equal(import(VMT_IMPORT_DIN, "3 0\n4 0\n", 0, &s, &st, &err), -ENODATA);
	assert_string_equal(err.message, "t.log: no access in 2 lines");
	assert_int_equal(st.flushes, 1);
	assert_int_equal(import(VMT_IMPORT_DIN, "", 0, &s, &st, &err), -ENODATA);
	assert_string_equal(err.message, "t.log: no access in 0 lines");
}

/* The caller's error stops the import where it happened, and is returned. */
static void test_emit_error(void **state)
{
	struct vmt_import_stats st;
	struct vmt_trace_error err;
	struct sink s = { .fail_at = 3 };

	(void)state;
	assert_int_equal(import(VMT_IMPORT_LACKEY, lackey_text, 0, &s, &st, &err), -ENOSPC);
	assert_int_equal(s.n, 2);
	assert_int_equal(st.lines, 5);
	s.fail_at = 7;
	assert_int_equal(import(VMT_IMPORT_LACKEY, lackey_text, 0, &s, &st, &err), -ENOSPC);
	assert_int_equal(s.n, 6);
}

static void test_names(void **state)
{
	struct vmt_import_options o = { 0 };
	struct vmt_import *imp;

	(void)state;
	assert_string_equal(vmt_import_format_name(VMT_IMPORT_LACKEY), "lackey");
	assert_string_equal(vmt_import_format_name(VMT_IMPORT_DIN), "din");
	assert_null(vmt_import_format_name(0));
	assert_null(vmt_import_format_name(3));
	assert_int_equal(vmt_import_format_from_name("lackey"), VMT_IMPORT_LACKEY);
	assert_int_equal(vmt_import_format_from_name("din"), VMT_IMPORT_DIN);
	assert_int_equal(vmt_import_format_from_name("raw"), -EINVAL);
	assert_int_equal(vmt_import_create(&imp, 0, &o), -EINVAL);
	assert_null(imp);
	assert_int_equal(vmt_import_create(&imp, 7, &o), -EINVAL);
	vmt_import_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lackey),
		cmocka_unit_test(test_din),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_no_access),
		cmocka_unit_test(test_emit_error),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
