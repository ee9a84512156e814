// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the model codec (user/lib/codec/codec_model.c, model_replay.c,
 * range_coder.c): the range coder gives back every bit and reads exactly
 * what it wrote; FIFO evictions, replayed from the references of their
 * frame, cost almost nothing and CLOCK's second chances round-trip; a
 * trace written with it (every CPU's references and evictions in one "mem"
 * stream, every other record type in its own) reads back, in both orders
 * and through filters, exactly as the same records written without
 * compression; and a "mem" stream drained as the collector drains rings,
 * each CPU's batch in turn, its times out of order across frames, reads
 * back by time as a stable sort of its records (the cursor's time view);
 * exact records (mode 4) round-trip, and a strided instruction's cost
 * almost nothing; decoded without their values, exact records come back
 * whole but for those (a record with data keeps its data's offset). test_trace_codec.c has its round trips on synthetic and
 * random records, cut payloads and flipped bytes.
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
#include <unistd.h>
#include <cmocka.h>

#include "vmtrace/trace.h"
#include "codec/codec.h"
#include "codec/range_coder.h"

#include "temp_file.h"

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Bits of every skew, and direct bits, come back; the decoder reads what the encoder wrote. */
static void test_range_coder_round_trip(void **state)
{
	enum { N = 20000 };
	static uint8_t bits[N], widths[N];
	static uint64_t values[N];
	uint16_t probs[8], dprobs[8];
	struct vmt_buf out = { 0 };
	struct vmt_rc_encoder enc;
	struct vmt_rc_decoder dec;

	(void)state;
	rng_state = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 8; i++)
		probs[i] = dprobs[i] = VMT_RC_PROB_INIT;
	vmt_rc_encoder_init(&enc, &out);
	for (int i = 0; i < N; i++) {
		unsigned int ctx = i % 8;

		/* Context k gives a 1 with probability about k/8. */
		bits[i] = rng() % 8 < ctx;
		vmt_rc_encode_bit(&enc, &probs[ctx], bits[i]);
		widths[i] = (uint8_t)(rng() % 65);
		values[i] = widths[i] ? rng() >> (64 - widths[i]) : 0;
		vmt_rc_encode_direct(&enc, values[i], widths[i]);
	}
	assert_int_equal(vmt_rc_encoder_finish(&enc), 0);
	vmt_rc_decoder_init(&dec, out.data, out.size);
	for (int i = 0; i < N; i++) {
		assert_int_equal(vmt_rc_decode_bit(&dec, &dprobs[i % 8]), bits[i]);
		assert_true(vmt_rc_decode_direct(&dec, widths[i]) == values[i]);
	}
	assert_int_equal(vmt_rc_decoder_consumed(&dec), out.size);
	assert_int_equal(vmt_rc_decoder_overrun(&dec), 0);
	assert_memory_equal(probs, dprobs, sizeof(probs));
	vmt_buf_free(&out);
}

static struct vmt_record memref(uint16_t type, uint64_t time, uint32_t pid, uint64_t vaddr,
				uint64_t pfn)
{
	struct vmt_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.time_ns = time;
	r.hdr.pid = r.hdr.tid = pid;
	r.hdr.type = type;
	r.ref.vaddr = vaddr;
	r.ref.pfn = pfn;
	if (type == VMT_REC_REFERENCE) {
		r.ref.ip = 0x401000 + 8 * (vaddr >> 12 & 3);
		r.ref.error_code = 5;
		r.ref.access = VMT_ACCESS_READ;
	} else {
		r.ref.evict_flags = VMT_EVICT_ACCESSED;
	}
	return r;
}

/*
 * A process touching random pages of 4096 under a FIFO set of 64 pages:
 * each reference after the 64th evicts the oldest page. When @clock, every
 * third eviction passes over the oldest page first (its second chance,
 * which moves it to the newest end).
 */
static size_t enabled_set_trace(struct vmt_record *out, size_t refs, bool clock,
				bool with_evictions)
{
	uint64_t set[4096], time = 1000000;
	size_t head = 0, len = 0, n = 0;

	for (size_t i = 0; i < refs; i++) {
		uint64_t page = 0x10000 + rng() % 4096;

		time += 10 * (1 + rng() % 300);
		out[n++] = memref(VMT_REC_REFERENCE, time, 7, page << 12 | (rng() % 512) * 8,
				  0x8000 + page);
		set[(head + len++) % 4096] = page;
		if (len <= 64)
			continue;
		if (clock && i % 3 == 0) {
			set[(head + len++) % 4096] = set[head % 4096];
			head++;
			len--;
		}
		if (with_evictions)
			out[n++] = memref(VMT_REC_EVICT, time + 10, 7, set[head % 4096] << 12,
					  0x8000 + set[head % 4096]);
		head++;
		len--;
	}
	return n;
}

static size_t model_size(const struct vmt_record *recs, size_t n)
{
	struct vmt_buf out = { 0 };
	struct vmt_record *back = malloc(n * sizeof(*back));
	size_t size;

	assert_non_null(back);
	assert_int_equal(vmt_codec_compress(VMT_CODEC_MODEL, 0, 0, sizeof(*recs), recs,
					    n * sizeof(*recs), &out), 0);
	assert_int_equal(vmt_codec_decompress(VMT_CODEC_MODEL, 0, sizeof(*recs), out.data,
					      out.size, back, n * sizeof(*recs), 0), 0);
	assert_memory_equal(back, recs, n * sizeof(*recs));
	size = out.size;
	vmt_buf_free(&out);
	free(back);
	return size;
}

/* FIFO evictions follow from the references: under a bit each; CLOCK's round-trip. */
static void test_evictions_replayed(void **state)
{
	enum { REFS = 8000 };
	struct vmt_record *recs = malloc(2 * REFS * sizeof(*recs));
	size_t with, without, n, evictions;

	(void)state;
	assert_non_null(recs);
	rng_state = 42;
	n = enabled_set_trace(recs, REFS, false, true);
	evictions = n - REFS;
	with = model_size(recs, n);
	rng_state = 42;
	without = model_size(recs, enabled_set_trace(recs, REFS, false, false));
	print_message("FIFO: %zu bytes with %zu evictions, %zu without\n", with, evictions,
		      without);
	/* Time (10 bits or so) is most of an eviction's cost: its page costs next to nothing. */
	assert_true((with - without) * 8 < evictions * 3);

	rng_state = 43;
	n = enabled_set_trace(recs, REFS, true, true);
	with = model_size(recs, n);
	print_message("CLOCK: %zu bytes for %zu records\n", with, n);
	free(recs);
}

/*
 * A page that faults again is reached where it was last time: references
 * to random pages of 4096, each page always at its own offset, against the
 * same pages at fresh random offsets. The second reference of a page and
 * after costs at least 6 bits less (its offset is the page's last: under a
 * bit, against 9 bits or so through the offset's tree).
 */
static void test_page_offsets_predicted(void **state)
{
	enum { REFS = 8000, PAGES = 4096 };
	static struct vmt_record recs[REFS];
	static uint16_t offset[PAGES];
	static bool seen[PAGES];
	size_t fixed, fresh, again = 0;

	(void)state;
	rng_state = 44;
	for (int p = 0; p < PAGES; p++)
		offset[p] = (uint16_t)(rng() % 512 * 8);
	for (int pass = 0; pass < 2; pass++) {
		uint64_t time = 1000000, seed = 45;

		for (size_t i = 0; i < REFS; i++) {
			uint64_t page;

			rng_state = seed;
			page = rng() % PAGES;
			seed = rng_state;
			time += 10 * (1 + rng() % 300);
			recs[i] = memref(VMT_REC_REFERENCE, time, 7,
					 (0x10000 + page) << 12 |
					 (pass ? rng() % 512 * 8 : offset[page]), 0x8000 + page);
			if (!pass) {
				again += seen[page];
				seen[page] = true;
			}
		}
		if (pass)
			fresh = model_size(recs, REFS);
		else
			fixed = model_size(recs, REFS);
	}
	print_message("%zu references (%zu to a page seen before): %zu bytes at each page's own offset, %zu at fresh ones\n",
		      (size_t)REFS, again, fixed, fresh);
	assert_true(again > REFS / 3);
	assert_true((fresh - fixed) * 8 > again * 6);
}

/* The mode byte of @recs' model payload. */
static unsigned int model_mode(const struct vmt_record *recs, size_t n)
{
	struct vmt_buf out = { 0 };
	unsigned int mode;

	assert_int_equal(vmt_codec_compress(VMT_CODEC_MODEL, 0, 0, sizeof(*recs), recs,
					    n * sizeof(*recs), &out), 0);
	mode = out.data[0];
	vmt_buf_free(&out);
	return mode;
}

/*
 * Exact records (mode 3: each coded by its instruction). Two CPUs, each
 * running a loop of three instructions: one sweeping an array by 8 bytes
 * (wrapping every 64), one at random addresses, one at a fixed one, with
 * random values, sizes and kinds now and then, and a reference between
 * them: every record round-trips. Then two instructions on one CPU
 * sweeping two arrays at strides of 8 and 520 bytes, at a steady time
 * step, value 0: every field is its instruction's prediction (ip, address,
 * size word, value) or the CPU's (type, time, task), some 10 near-certain
 * bits a record, well under one bit of output a record.
 */
static void test_exact_by_instruction(void **state)
{
	enum { N = 12000 };
	static struct vmt_record recs[N];
	uint64_t time = 5000000, at[2][3] = { { 0 } };
	size_t size;

	(void)state;
	rng_state = 46;
	for (size_t i = 0; i < N; i++) {
		struct vmt_record *r = &recs[i];
		unsigned int cpu = rng() % 5 == 0, k = (unsigned int)(i / 2 % 3);

		time += 1 + rng() % 7000;
		if (rng() % 97 == 0) {
			*r = memref(VMT_REC_REFERENCE, time, 9, 0x7000000 + (rng() % 64 << 12), 77);
			r->hdr.cpu = (uint16_t)cpu;
			continue;
		}
		memset(r, 0, sizeof(*r));
		r->hdr.type = VMT_REC_EXACT;
		r->hdr.time_ns = time;
		r->hdr.cpu = (uint16_t)cpu;
		r->hdr.pid = 9;
		r->hdr.tid = 9 + cpu;
		r->exact.ip = 0x401000 + 0x100 * cpu + 4 * k;
		at[cpu][k] = k == 0 ? (at[cpu][0] + 8) % 512 : k == 1 ? rng() % 100000 * 8 : 64;
		r->exact.addr = 0x10000000000ull + 0x100000 * cpu + at[cpu][k];
		r->exact.size = rng() % 50 ? 8 : 1 + rng() % 16;
		r->exact.access = rng() % 40 ? VMT_ACCESS_READ : VMT_ACCESS_WRITE;
		if (rng() % 3)
			vmt_put64(r->exact.value, rng());
	}
	model_size(recs, N);
	assert_int_equal(model_mode(recs, N), 4);
	/* A frame without exact records is of mode 2, as before. */
	rng_state = 47;
	for (size_t i = 0; i < 400; i++)
		recs[i] = memref(VMT_REC_REFERENCE, 1000 * i, 7, rng() % 64 << 12, 5);
	assert_int_equal(model_mode(recs, 400), 2);

	for (size_t i = 0; i < N; i++) {
		struct vmt_record *r = &recs[i];

		memset(r, 0, sizeof(*r));
		r->hdr.type = VMT_REC_EXACT;
		r->hdr.time_ns = 1000 + 50 * i;
		r->hdr.pid = r->hdr.tid = 9;
		r->exact.ip = 0x401000 + 4 * (i % 2);
		r->exact.addr = 0x10000000000ull + (i % 2 ? 0x800000 + 520 * (i / 2) : 8 * (i / 2));
		r->exact.size = 8;
		r->exact.access = VMT_ACCESS_READ;
	}
	size = model_size(recs, N);
	print_message("%d exact records of two strided instructions: %zu bytes\n", N, size);
	assert_true(size * 8 < N);
}

/*
 * Mode 4 keeps exact records' values in a stream of their own: decoded
 * without it (VMT_CODEC_NO_VALUES), every record comes back as it was
 * but for the value bytes of exact records without data, which read zero.
 * Records of two CPUs, exact ones with random values (some wide, with data,
 * whose last word is the data's offset), references and a marker between
 * them. A records' stream size past the payload is refused.
 */
static void test_values_apart(void **state)
{
	enum { N = 3000 };
	static struct vmt_record recs[N], back[N], want[N];
	struct vmt_buf out = { 0 };
	uint64_t time = 7000, data_off = 0;

	(void)state;
	rng_state = 48;
	for (size_t i = 0; i < N; i++) {
		struct vmt_record *r = &recs[i];

		time += rng() % 900;
		memset(r, 0, sizeof(*r));
		if (rng() % 50 == 0) {
			*r = memref(VMT_REC_REFERENCE, time, 9, 0x7000000 + (rng() % 64 << 12), 77);
		} else if (rng() % 200 == 0) {
			r->hdr.type = VMT_REC_MARKER;
			r->raw[0] = rng();
		} else {
			r->hdr.type = VMT_REC_EXACT;
			r->exact.ip = 0x401000 + 4 * (rng() % 5);
			r->exact.addr = 0x20000000ull + rng() % 4096 * 8;
			r->exact.size = 8;
			r->exact.access = VMT_ACCESS_READ;
			vmt_put64(r->exact.value, rng());
			if (rng() % 30 == 0) {	/* a wide access: its value in the data */
				r->exact.size = 64;
				r->hdr.data_len = 64;
				r->raw[VMT_DATA_OFF_WORD] = data_off;
				data_off += 64;
			}
		}
		r->hdr.time_ns = time;
		r->hdr.cpu = (uint16_t)(rng() % 2);
		r->hdr.pid = 9;
		r->hdr.tid = 9 + r->hdr.cpu;
		want[i] = *r;
		if (r->hdr.type == VMT_REC_EXACT && !r->hdr.data_len)
			memset(want[i].exact.value, 0, sizeof(want[i].exact.value));
	}
	assert_int_equal(vmt_codec_compress(VMT_CODEC_MODEL, 0, 0, sizeof(recs[0]), recs,
					    sizeof(recs), &out), 0);
	assert_int_equal(out.data[0], 4);
	assert_int_equal(vmt_codec_decompress(VMT_CODEC_MODEL, 0, sizeof(recs[0]), out.data,
					      out.size, back, sizeof(back), 0), 0);
	assert_memory_equal(back, recs, sizeof(recs));
	assert_int_equal(vmt_codec_decompress(VMT_CODEC_MODEL, 0, sizeof(recs[0]), out.data,
					      out.size, back, sizeof(back), VMT_CODEC_NO_VALUES),
			 0);
	assert_memory_equal(back, want, sizeof(want));
	/* The records' stream's size (after mode, base time and unit) past the payload. */
	vmt_put32(out.data + 17, (uint32_t)(out.size - 21 + 1));
	assert_int_equal(vmt_codec_decompress(VMT_CODEC_MODEL, 0, sizeof(recs[0]), out.data,
					      out.size, back, sizeof(back), VMT_CODEC_NO_VALUES),
			 -EBADMSG);
	assert_int_equal(vmt_codec_decompress(VMT_CODEC_MODEL, 0, sizeof(recs[0]), out.data,
					      out.size, back, sizeof(back), 0), -EBADMSG);
	vmt_buf_free(&out);
}

/* Every record type, on two CPUs, some with data. */
static size_t every_type(struct vmt_record *out, const char **data)
{
	static const char *const texts[] = {
		"/usr/bin/python3", "a longer text, past one chunk of forty bytes",
	};
	size_t n = 0;
	uint64_t time = 5000;

	rng_state = 7;
	for (int round = 0; round < 300; round++) {
		for (uint16_t type = VMT_REC_LOST; type < VMT_REC_TYPES; type++) {
			struct vmt_record *r = &out[n];

			if (type == VMT_REC_DATA)
				continue;
			memset(r, 0, sizeof(*r));
			time += 30 + rng() % 100;
			r->hdr.time_ns = time;
			r->hdr.type = type;
			r->hdr.cpu = (uint16_t)(rng() % 2);
			r->hdr.pid = 100 + (uint32_t)(rng() % 3);
			r->hdr.tid = r->hdr.pid + (uint32_t)(rng() % 2);
			for (int w = 0; w < 4; w++)
				r->raw[w] = rng() % 4 ? rng() % 100000 : rng();
			if (type == VMT_REC_REFERENCE || type == VMT_REC_EVICT) {
				r->ref.vaddr = (0x7f0000 + rng() % 300) << 12;
				r->ref.pfn = r->ref.vaddr >> 12 ^ 0x5000;
				r->ref.flags = 0;
				r->ref.reserved = 0;
			}
			data[n] = NULL;
			if (type == VMT_REC_EXEC || type == VMT_REC_MARKER || type == VMT_REC_TASK)
				data[n] = texts[round % 2];
			if (data[n])
				r->hdr.data_len = (uint32_t)strlen(data[n]);
			r->raw[VMT_DATA_OFF_WORD] = 0;
			n++;
		}
	}
	return n;
}

static struct vmt_trace *write_with(unsigned int codec, const char *file,
				    const struct vmt_record *recs, const char **data, size_t n)
{
	/* The model trace through the worker pool, as vmtrace record writes it. */
	struct vmt_trace_writer_options o = { .frame_bytes = 4096, .codec = codec,
					      .workers = codec == VMT_CODEC_MODEL ? 2 : 0 };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct vmt_trace *t;

	assert_int_equal(vmt_trace_writer_create(&w, file, &o, &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(vmt_trace_writer_append_record_data(w, &recs[i], data[i]), 0);
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
	assert_int_equal(vmt_trace_open(&t, file, VMT_TRACE_OPEN_SCAN, &err), 0);
	return t;
}

/* Both traces give the same records, with the same data, in @order. */
static void same_records(struct vmt_trace *a, struct vmt_trace *b, enum vmt_trace_order order)
{
	struct vmt_trace_cursor *ca, *cb;
	const struct vmt_record *ra, *rb;
	uint32_t sa, sb;
	size_t count = 0;
	int ga, gb;

	assert_int_equal(vmt_trace_cursor_create(a, order, &ca), 0);
	assert_int_equal(vmt_trace_cursor_create(b, order, &cb), 0);
	for (;;) {
		ga = vmt_trace_cursor_next(ca, &ra, &sa);
		gb = vmt_trace_cursor_next(cb, &rb, &sb);
		assert_int_equal(ga, gb);
		if (ga <= 0)
			break;
		assert_memory_equal(ra, rb, sizeof(*ra));
		count++;
	}
	assert_true(count > 0);
	vmt_trace_cursor_free(ca);
	vmt_trace_cursor_free(cb);
}

static void test_every_record_type_through_the_container(void **state)
{
	static struct vmt_record recs[300 * VMT_REC_TYPES];
	static const char *data[300 * VMT_REC_TYPES];
	static const uint32_t cpu1[] = { 1 };
	char plain_path[sizeof(path) + 8];
	struct vmt_trace *model, *plain;
	struct vmt_trace_filter f = { 0 };
	size_t n = every_type(recs, data);
	bool mem_stream = false;

	(void)state;
	snprintf(plain_path, sizeof(plain_path), "%s.none", path);
	model = write_with(VMT_CODEC_MODEL, path, recs, data, n);
	plain = write_with(VMT_CODEC_NONE, plain_path, recs, data, n);
	for (uint32_t i = 0; i < vmt_trace_nr_streams(model); i++) {
		const struct vmt_trace_stream_info *si = vmt_trace_stream(model, i);

		if (si->kind == VMT_STREAM_RECORDS && si->record_type == VMT_TRACE_ANY_TYPE) {
			assert_string_equal(si->name, "mem");
			mem_stream = true;
		}
	}
	assert_true(mem_stream);
	same_records(model, plain, VMT_ORDER_WRITTEN);
	same_records(model, plain, VMT_ORDER_TIME);

	/* Evictions only, on CPU 1: the mem streams are read and filtered record by record. */
	f.types = 1u << VMT_REC_EVICT;
	f.nr_cpus = 1;
	f.cpus = cpu1;
	assert_int_equal(vmt_trace_set_filter(model, &f), 0);
	assert_int_equal(vmt_trace_set_filter(plain, &f), 0);
	same_records(model, plain, VMT_ORDER_WRITTEN);
	same_records(model, plain, VMT_ORDER_TIME);
	f.types = 1u << VMT_REC_EXEC | 1u << VMT_REC_REFERENCE;
	f.nr_cpus = 0;
	f.time_range = 1;
	f.from_time = recs[n / 3].hdr.time_ns;
	f.to_time = recs[n / 2].hdr.time_ns;
	assert_int_equal(vmt_trace_set_filter(model, &f), 0);
	assert_int_equal(vmt_trace_set_filter(plain, &f), 0);
	same_records(model, plain, VMT_ORDER_TIME);
	same_records(model, plain, VMT_ORDER_WRITTEN);

	vmt_trace_close(model);
	vmt_trace_close(plain);
	unlink(plain_path);
}

/* By time, then by written place: the order a time view must give. */
struct placed {
	struct vmt_record r;
	size_t index;
};

static int by_time_then_place(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	if (x->r.hdr.time_ns != y->r.hdr.time_ns)
		return x->r.hdr.time_ns < y->r.hdr.time_ns ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * Three CPUs' references and evictions, each CPU's in time order, appended
 * in drain batches of 1 to 200 records a CPU in turn, the CPUs' clocks apart
 * by up to 3,000 records' time: in 64-record frames the stream is out of
 * order across many frames. By time, with and without filters, the cursor
 * gives a stable sort of what was written, and the file checks clean.
 */
static void test_drained_mem_stream_by_time(void **state)
{
	enum { CPUS = 3, N = 12000 };
	static struct vmt_record recs[N];
	static struct placed sorted[N];
	static const char *data[N];
	static const uint32_t cpu2[] = { 2 };
	uint64_t clock[CPUS] = { 1000000, 1000000 + 30000, 1000000 + 90000 };
	struct vmt_trace_filter f = { 0 };
	struct vmt_trace_stream_stats st;
	const struct vmt_record *r;
	struct vmt_trace_cursor *c;
	struct vmt_trace *t;
	size_t n = 0, k;
	uint32_t id;

	(void)state;
	rng_state = 11;
	while (n < N) {
		uint16_t cpu = (uint16_t)(rng() % CPUS);
		size_t batch = 1 + rng() % 200;

		for (size_t i = 0; i < batch && n < N; i++, n++) {
			struct vmt_record *x = &recs[n];

			memset(x, 0, sizeof(*x));
			/* Equal times now and then, within a CPU and across. */
			clock[cpu] += rng() % 4 ? 10 + rng() % 40 : 0;
			x->hdr.time_ns = clock[cpu];
			x->hdr.cpu = cpu;
			x->hdr.type = rng() % 2 ? VMT_REC_REFERENCE : VMT_REC_EVICT;
			x->hdr.pid = x->hdr.tid = 300 + cpu;
			x->ref.vaddr = (0x7f0000 + rng() % 500) << 12;
			x->ref.pfn = x->ref.vaddr >> 12 ^ 0x9000;
			x->ref.ip = 0x401000 + rng() % 64;
			sorted[n] = (struct placed){ *x, n };
		}
	}
	t = write_with(VMT_CODEC_MODEL, path, recs, data, N);
	assert_int_equal(vmt_trace_check(t), 0);
	assert_int_equal(vmt_trace_nr_streams(t), 2);	/* order and mem */
	for (id = 0; vmt_trace_stream(t, id)->kind != VMT_STREAM_RECORDS; id++)
		;
	assert_int_equal(vmt_trace_stream_stats(t, id, &st), 0);
	assert_false(st.time_sorted);
	assert_true(st.frames >= N / 64);
	qsort(sorted, N, sizeof(sorted[0]), by_time_then_place);
	assert_int_equal(st.first_time, sorted[0].r.hdr.time_ns);
	assert_int_equal(st.last_time, sorted[N - 1].r.hdr.time_ns);

	/* Whole, then CPU 2's evictions from a third of the way to two thirds. */
	for (int pass = 0; pass < 2; pass++) {
		if (pass) {
			f.types = 1u << VMT_REC_EVICT;
			f.nr_cpus = 1;
			f.cpus = cpu2;
			f.time_range = 1;
			f.from_time = sorted[N / 3].r.hdr.time_ns;
			f.to_time = sorted[2 * N / 3].r.hdr.time_ns;
			assert_int_equal(vmt_trace_set_filter(t, &f), 0);
		}
		assert_int_equal(vmt_trace_cursor_create(t, VMT_ORDER_TIME, &c), 0);
		k = 0;
		for (size_t i = 0; i < N; i++) {
			const struct vmt_record *want = &sorted[i].r;

			if (pass && (want->hdr.type != VMT_REC_EVICT || want->hdr.cpu != 2 ||
				     want->hdr.time_ns < f.from_time || want->hdr.time_ns > f.to_time))
				continue;
			assert_int_equal(vmt_trace_cursor_next(c, &r, &id), 1);
			assert_memory_equal(r, want, sizeof(*r));
			k++;
		}
		assert_int_equal(vmt_trace_cursor_next(c, &r, &id), 0);
		assert_true(k > (pass ? 100u : (size_t)N - 1));
		vmt_trace_cursor_free(c);
	}
	/* Written order is the order they came in. */
	assert_int_equal(vmt_trace_set_filter(t, NULL), 0);
	assert_int_equal(vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &c), 0);
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(vmt_trace_cursor_next(c, &r, &id), 1);
		assert_memory_equal(r, &recs[i], sizeof(*r));
	}
	vmt_trace_cursor_free(c);
	vmt_trace_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range_coder_round_trip),
		cmocka_unit_test(test_evictions_replayed),
		cmocka_unit_test(test_page_offsets_predicted),
		cmocka_unit_test(test_exact_by_instruction),
		cmocka_unit_test(test_values_apart),
		cmocka_unit_test_setup_teardown(test_every_record_type_through_the_container,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_drained_mem_stream_by_time, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
