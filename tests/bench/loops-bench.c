// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-loops-bench [-r RUNS] [-p PEER_RUNS] [-w WINDOW] [-n N] [-d DIR] [TRACE]:
 * the loop codec's speed (user/lib/codec/loop_codec.c), for
 * scripts/bench-loops, with its peers in the same run. Builds access
 * streams in memory, one thread each:
 *
 *   matmul   C = A B of N x N doubles (-n, default 128), ijk: a load of
 *            A[i][k] and of B[k][j] each k, a store of C[i][j] each j;
 *            three fixed ips
 *   triad    a[i] = b[i] + s c[i] over 2^19 doubles: two loads, a store
 *   chase    p = p->next over a random cycle of 2^20 16-byte nodes
 *            (Sattolo's shuffle, fixed seed): one ip, irregular
 *   lackey   with TRACE: the exact records of its first thread, in the
 *            order written (a lackey trace `vmtrace convert` made)
 *
 * and, on one core, in CPU time (CLOCK_PROCESS_CPUTIME_ID), medians of
 * RUNS (default 3):
 *
 *   loops    vmt_loop_encoder_add() over the stream (and _finish()), the
 *            bytes to a memory sink; vmt_loop_decoder_next() replaying
 *            them from memory. The replay's count and checksum must equal
 *            the stream's, or the bench fails rather than print a speed.
 *            Then the descriptors through zstd -3, as a trace's frames
 *            store them (bytes only), and the heap (mallinfo2(): in use,
 *            malloc'd and mmap'd) at its peak above the start while
 *            encoding the stream cut to its first 1/16, to its first half,
 *            and the whole stream (with the instructions numbered then),
 *            and while replaying: whether memory grows with the trace.
 *   zstd3, zstd19, xz9
 *            the peers: libzstd at levels 3 and 19, liblzma at preset 9
 *            (no check), one buffer, over the stream as 24-byte records
 *            (u64 addr, u64 ip, u16 size, u16 cpu, u8 access, kernel_mode,
 *            flags, a zero byte; little-endian); the round trip must give
 *            the bytes back. zstd19 and xz9 run PEER_RUNS times (default 1).
 *   model    the library's trace writer, model codec (as `vmtrace record
 *            --codec model`), over the stream as 64-byte VMT_REC_EXACT
 *            records (pid 1, tid 1, time its index, values 0) into a file
 *            in DIR (default $TMPDIR or /tmp); read back with a cursor.
 *   loopsfile the same writer with loops_window WINDOW (as `vmtrace
 *            loops`): the loop codec end to end, through the trace layer
 *            and the file; read back with a cursor. Both checked as loops.
 *
 * A line "STREAM-WHAT VALUE" a figure: -accesses, and for each codec C
 * C-bytes, C-enc-s, C-dec-s (seconds), and loops-zstd-bytes,
 * loops-heap-16th, loops-heap-half, loops-heap, loops-dec-heap (bytes),
 * loops-keys-16th, loops-keys-half, loops-keys; rss-max-kb last.
 */
#include <errno.h>
#include <lzma.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include <vmtrace/trace.h>

#include "codec/loop_codec.h"

#define MAX_RUNS	9

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static void die(const char *what, int err)
{
	fprintf(stderr, "vmt-loops-bench: %s: %s\n", what, err ? strerror(err < 0 ? -err : err) : "failed");
	exit(1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory", ENOMEM);
	return p;
}

/* ---- The streams ---------------------------------------------------------- */

struct stream {
	const char *name;
	struct vmt_loop_access *a;
	size_t n, room;
	uint64_t sum;		/* checksum(), over all of them in order */
};

/* Order-sensitive: a replay that loses, adds, moves or changes an access differs. */
static inline uint64_t checksum(uint64_t h, uint64_t addr, uint64_t ip, unsigned int size,
				unsigned int cpu, unsigned int access, unsigned int kernel_mode,
				unsigned int flags)
{
	uint64_t v = addr ^ ip * 0x9e3779b97f4a7c15ull ^
		     ((uint64_t)size << 48 | (uint64_t)cpu << 32 | access << 16 |
		      kernel_mode << 8 | flags);

	return (h ^ v) * 0x100000001b3ull;
}

static inline uint64_t checksum_access(uint64_t h, const struct vmt_loop_access *a)
{
	return checksum(h, a->addr, a->ip, a->size, a->cpu, a->access, a->kernel_mode, a->flags);
}

static void add(struct stream *s, uint64_t ip, uint64_t addr, unsigned int access)
{
	struct vmt_loop_access *a;

	if (s->n == s->room) {
		s->room = s->room ? 2 * s->room : 1 << 20;
		s->a = realloc(s->a, s->room * sizeof(*s->a));
		if (!s->a)
			die("out of memory", ENOMEM);
	}
	a = &s->a[s->n++];
	memset(a, 0, sizeof(*a));
	a->addr = addr;
	a->ip = ip;
	a->size = 8;
	a->access = (uint8_t)access;
}

static void finish_stream(struct stream *s)
{
	s->sum = 0;
	for (size_t i = 0; i < s->n; i++)
		s->sum = checksum_access(s->sum, &s->a[i]);
}

static void gen_matmul(struct stream *s, uint64_t n)
{
	uint64_t a = 0x555555558040ull, b = a + n * n * 8, c = b + n * n * 8;

	s->name = "matmul";
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++) {
			for (uint64_t k = 0; k < n; k++) {
				add(s, 0x555555555190ull, a + (i * n + k) * 8, VMT_ACCESS_READ);
				add(s, 0x555555555196ull, b + (k * n + j) * 8, VMT_ACCESS_READ);
			}
			add(s, 0x5555555551a8ull, c + (i * n + j) * 8, VMT_ACCESS_WRITE);
		}
	finish_stream(s);
}

static void gen_triad(struct stream *s, uint64_t n)
{
	uint64_t a = 0x7ffff7a00010ull, b = a + n * 8 + 64, c = b + n * 8 + 64;

	s->name = "triad";
	for (uint64_t i = 0; i < n; i++) {
		add(s, 0x401210, b + i * 8, VMT_ACCESS_READ);
		add(s, 0x401216, c + i * 8, VMT_ACCESS_READ);
		add(s, 0x40121f, a + i * 8, VMT_ACCESS_WRITE);
	}
	finish_stream(s);
}

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void gen_chase(struct stream *s, uint64_t n)
{
	uint64_t base = 0x7ffff6000010ull, seed = 32, p = 0;
	uint32_t *next = xmalloc(n * sizeof(*next));

	s->name = "chase";
	for (uint64_t i = 0; i < n; i++)
		next[i] = (uint32_t)i;
	/* Sattolo: one cycle through every node. */
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = splitmix(&seed) % i;
		uint32_t t = next[i];

		next[i] = next[j];
		next[j] = t;
	}
	for (uint64_t i = 0; i < n; i++) {
		add(s, 0x4011f3, base + p * 16, VMT_ACCESS_READ);
		p = next[p];
	}
	free(next);
	finish_stream(s);
}

/* The exact records of @path's first thread, in the order written. */
static void load_trace(struct stream *s, const char *path)
{
	struct vmt_trace_error terr;
	struct vmt_trace_cursor *cur;
	const struct vmt_record *rec;
	struct vmt_trace *t;
	uint32_t sid, pid = 0, tid = 0;
	uint64_t others = 0;
	bool first = true;
	int ret;

	s->name = "lackey";
	ret = vmt_trace_open(&t, path, 0, &terr);
	if (ret) {
		fprintf(stderr, "vmt-loops-bench: %s: %s\n", path, terr.message);
		exit(1);
	}
	ret = vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &cur);
	if (ret)
		die("a cursor", ret);
	while ((ret = vmt_trace_cursor_next(cur, &rec, &sid)) > 0) {
		struct vmt_loop_access *a;

		if (rec->hdr.type != VMT_REC_EXACT)
			continue;
		if (first) {
			pid = rec->hdr.pid;
			tid = rec->hdr.tid;
			first = false;
		}
		if (rec->hdr.pid != pid || rec->hdr.tid != tid) {
			others++;
			continue;
		}
		add(s, rec->exact.ip, rec->exact.addr, rec->exact.access);
		a = &s->a[s->n - 1];
		a->size = rec->exact.size;
		a->cpu = rec->hdr.cpu;
		a->kernel_mode = rec->exact.kernel_mode;
		a->flags = rec->exact.flags;
	}
	if (ret < 0)
		die(path, ret);
	vmt_trace_cursor_free(cur);
	vmt_trace_close(t);
	if (others)
		fprintf(stderr, "vmt-loops-bench: %s: %llu exact records of other threads left out\n",
			path, (unsigned long long)others);
	finish_stream(s);
}

/* ---- The loop codec ------------------------------------------------------- */

struct buf {
	uint8_t *p;
	size_t len, cap, pos;
};

static int buf_sink(void *arg, const uint8_t *bytes, size_t n)
{
	struct buf *b = arg;

	if (b->len + n > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 1 << 20;

		while (cap < b->len + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			return -ENOMEM;
		b->cap = cap;
	}
	memcpy(b->p + b->len, bytes, n);
	b->len += n;
	return 0;
}

static int buf_source(void *arg, uint8_t *to, size_t max)
{
	struct buf *b = arg;
	size_t n = b->len - b->pos < max ? b->len - b->pos : max;

	memcpy(to, b->p + b->pos, n);
	b->pos += n;
	return (int)n;
}

static int null_sink(void *arg, const uint8_t *bytes, size_t n)
{
	(void)bytes;
	*(size_t *)arg += n;
	return 0;
}

/* Seconds to encode @s into @out (emptied first). */
static double loops_encode(const struct stream *s, uint32_t window, struct buf *out)
{
	struct vmt_loop_encoder *e;
	double t0, t;
	int ret;

	out->len = 0;
	ret = vmt_loop_encoder_create(&e, window, buf_sink, out);
	if (ret)
		die("vmt_loop_encoder_create", ret);
	t0 = cpu_now();
	for (size_t i = 0; i < s->n; i++) {
		ret = vmt_loop_encoder_add(e, &s->a[i]);
		if (ret)
			die("vmt_loop_encoder_add", ret);
	}
	ret = vmt_loop_encoder_finish(e);
	t = cpu_now() - t0;
	if (ret)
		die("vmt_loop_encoder_finish", ret);
	vmt_loop_encoder_free(e);
	return t;
}

static void check(const struct stream *s, const char *codec, uint64_t n, uint64_t sum)
{
	if (n != s->n || sum != s->sum) {
		fprintf(stderr, "vmt-loops-bench: %s, %s: replayed %llu accesses (checksum %016llx), "
			"not the %zu given (%016llx)\n", s->name, codec, (unsigned long long)n,
			(unsigned long long)sum, s->n, (unsigned long long)s->sum);
		exit(1);
	}
}

/* Seconds to replay @in; checked against @s. */
static double loops_decode(const struct stream *s, struct buf *in)
{
	struct vmt_loop_decoder *d;
	struct vmt_loop_access a;
	uint64_t n = 0, sum = 0;
	double t0, t;
	int ret;

	in->pos = 0;
	ret = vmt_loop_decoder_create(&d, buf_source, in);
	if (ret)
		die("vmt_loop_decoder_create", ret);
	t0 = cpu_now();
	while ((ret = vmt_loop_decoder_next(d, &a)) > 0) {
		sum = checksum_access(sum, &a);
		n++;
	}
	t = cpu_now() - t0;
	if (ret < 0) {
		fprintf(stderr, "vmt-loops-bench: %s: %s\n", s->name, vmt_loop_decoder_error(d));
		exit(1);
	}
	vmt_loop_decoder_free(d);
	check(s, "loops", n, sum);
	return t;
}

static size_t heap_now(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

#define HEAP_EVERY	4096u

/*
 * The heap's peak above its start while encoding @s's first @n accesses
 * (and finishing), through a sink that keeps nothing; the instructions it
 * numbered in *@keys. Untimed.
 */
static size_t encoder_heap(const struct stream *s, size_t n, uint32_t window, uint64_t *keys)
{
	struct vmt_loop_encoder_stats st;
	struct vmt_loop_encoder *e;
	size_t base = heap_now(), peak = 0, bytes = 0, h;
	int ret;

	ret = vmt_loop_encoder_create(&e, window, null_sink, &bytes);
	if (ret)
		die("vmt_loop_encoder_create", ret);
	for (size_t i = 0; i < n; i++) {
		ret = vmt_loop_encoder_add(e, &s->a[i]);
		if (ret)
			die("vmt_loop_encoder_add", ret);
		if (i % HEAP_EVERY == 0 && (h = heap_now() - base) > peak)
			peak = h;
	}
	ret = vmt_loop_encoder_finish(e);
	if (ret)
		die("vmt_loop_encoder_finish", ret);
	if ((h = heap_now() - base) > peak)
		peak = h;
	vmt_loop_encoder_stats(e, &st);
	*keys = st.keys;
	vmt_loop_encoder_free(e);
	return peak;
}

/* The heap's peak above its start while replaying @in. Untimed. */
static size_t decoder_heap(struct buf *in)
{
	struct vmt_loop_decoder *d;
	struct vmt_loop_access a;
	size_t base = heap_now(), peak = 0, h;
	int ret;

	in->pos = 0;
	ret = vmt_loop_decoder_create(&d, buf_source, in);
	if (ret)
		die("vmt_loop_decoder_create", ret);
	for (size_t i = 0; (ret = vmt_loop_decoder_next(d, &a)) > 0; i++)
		if (i % HEAP_EVERY == 0 && (h = heap_now() - base) > peak)
			peak = h;
	if (ret < 0)
		die("vmt_loop_decoder_next", ret);
	vmt_loop_decoder_free(d);
	return peak;
}

/* ---- The peers ------------------------------------------------------------ */

#define REC24	24

static uint8_t *pack24(const struct stream *s)
{
	uint8_t *p = xmalloc(s->n * REC24), *q = p;

	for (size_t i = 0; i < s->n; i++, q += REC24) {
		const struct vmt_loop_access *a = &s->a[i];

		for (int b = 0; b < 8; b++) {
			q[b] = (uint8_t)(a->addr >> 8 * b);
			q[8 + b] = (uint8_t)(a->ip >> 8 * b);
		}
		q[16] = (uint8_t)a->size;
		q[17] = (uint8_t)(a->size >> 8);
		q[18] = (uint8_t)a->cpu;
		q[19] = (uint8_t)(a->cpu >> 8);
		q[20] = a->access;
		q[21] = a->kernel_mode;
		q[22] = a->flags;
		q[23] = 0;
	}
	return p;
}

struct peer_result {
	size_t bytes;
	double enc_s, dec_s;
};

static void zstd_run(const uint8_t *in, size_t len, int level, int runs, struct peer_result *r)
{
	size_t cap = ZSTD_compressBound(len), n = 0;
	uint8_t *out = xmalloc(cap), *back = xmalloc(len);
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	double enc[MAX_RUNS], dec[MAX_RUNS];

	if (!cctx || !dctx)
		die("zstd contexts", ENOMEM);
	for (int i = 0; i < runs; i++) {
		double t0 = cpu_now();

		n = ZSTD_compressCCtx(cctx, out, cap, in, len, level);
		enc[i] = cpu_now() - t0;
		if (ZSTD_isError(n))
			die(ZSTD_getErrorName(n), 0);
		t0 = cpu_now();
		if (ZSTD_decompressDCtx(dctx, back, len, out, n) != len)
			die("zstd: the round trip", 0);
		dec[i] = cpu_now() - t0;
		if (memcmp(back, in, len))
			die("zstd: the round trip", 0);
	}
	r->bytes = n;
	r->enc_s = median(enc, runs);
	r->dec_s = median(dec, runs);
	ZSTD_freeCCtx(cctx);
	ZSTD_freeDCtx(dctx);
	free(out);
	free(back);
}

static void xz_run(const uint8_t *in, size_t len, uint32_t preset, int runs, struct peer_result *r)
{
	size_t cap = lzma_stream_buffer_bound(len), n = 0;
	uint8_t *out = xmalloc(cap), *back = xmalloc(len);
	double enc[MAX_RUNS], dec[MAX_RUNS];

	for (int i = 0; i < runs; i++) {
		uint64_t memlimit = UINT64_MAX;
		size_t in_pos = 0, out_pos = 0;
		double t0 = cpu_now();

		n = 0;
		if (lzma_easy_buffer_encode(preset, LZMA_CHECK_NONE, NULL, in, len, out, &n, cap) !=
		    LZMA_OK)
			die("xz: encoding", 0);
		enc[i] = cpu_now() - t0;
		t0 = cpu_now();
		if (lzma_stream_buffer_decode(&memlimit, 0, NULL, out, &in_pos, n, back, &out_pos,
					      len) != LZMA_OK || out_pos != len)
			die("xz: the round trip", 0);
		dec[i] = cpu_now() - t0;
		if (memcmp(back, in, len))
			die("xz: the round trip", 0);
	}
	r->bytes = n;
	r->enc_s = median(enc, runs);
	r->dec_s = median(dec, runs);
	free(out);
	free(back);
}

/* Through the library's writer into @path, and back with a cursor; checked. */
static void file_run(const struct stream *s, const char *path, uint32_t loops_window, int runs,
		     struct peer_result *r)
{
	struct vmt_trace_writer_options wo = {
		.codec = VMT_CODEC_MODEL, .loops_window = loops_window,
	};
	double enc[MAX_RUNS], dec[MAX_RUNS];
	const char *what = loops_window ? "loopsfile" : "model";

	for (int i = 0; i < runs; i++) {
		struct vmt_trace_writer *w;
		struct vmt_trace_cursor *cur;
		struct vmt_trace_error terr;
		const struct vmt_record *rec;
		struct vmt_record x;
		struct vmt_trace *t;
		uint64_t n = 0, sum = 0;
		uint32_t sid;
		double t0 = cpu_now();
		int ret;

		ret = vmt_trace_writer_create(&w, path, &wo, &terr);
		if (ret) {
			fprintf(stderr, "vmt-loops-bench: %s: %s\n", path, terr.message);
			exit(1);
		}
		memset(&x, 0, sizeof(x));
		x.hdr.type = VMT_REC_EXACT;
		x.hdr.pid = x.hdr.tid = 1;
		for (size_t k = 0; k < s->n; k++) {
			const struct vmt_loop_access *a = &s->a[k];

			x.hdr.time_ns = k;
			x.hdr.cpu = a->cpu;
			x.exact.addr = a->addr;
			x.exact.ip = a->ip;
			x.exact.size = a->size;
			x.exact.access = a->access;
			x.exact.kernel_mode = a->kernel_mode;
			x.exact.flags = a->flags;
			ret = vmt_trace_writer_append_record(w, &x);
			if (ret) {
				fprintf(stderr, "vmt-loops-bench: %s: %s\n", path,
					vmt_trace_writer_error_message(w));
				exit(1);
			}
		}
		ret = vmt_trace_writer_close(w, &terr);
		enc[i] = cpu_now() - t0;
		if (ret) {
			fprintf(stderr, "vmt-loops-bench: %s: %s\n", path, terr.message);
			exit(1);
		}

		t0 = cpu_now();
		ret = vmt_trace_open(&t, path, 0, &terr);
		if (ret) {
			fprintf(stderr, "vmt-loops-bench: %s: %s\n", path, terr.message);
			exit(1);
		}
		ret = vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &cur);
		if (ret)
			die("a cursor", ret);
		while ((ret = vmt_trace_cursor_next(cur, &rec, &sid)) > 0) {
			if (rec->hdr.type != VMT_REC_EXACT)
				continue;
			sum = checksum(sum, rec->exact.addr, rec->exact.ip, rec->exact.size,
				       rec->hdr.cpu, rec->exact.access, rec->exact.kernel_mode,
				       rec->exact.flags);
			n++;
		}
		if (ret < 0)
			die(path, ret);
		vmt_trace_cursor_free(cur);
		vmt_trace_close(t);
		dec[i] = cpu_now() - t0;
		check(s, what, n, sum);
	}
	{
		FILE *f = fopen(path, "rb");

		if (!f || fseek(f, 0, SEEK_END))
			die(path, errno);
		r->bytes = (size_t)ftell(f);
		fclose(f);
	}
	unlink(path);
	r->enc_s = median(enc, runs);
	r->dec_s = median(dec, runs);
}

static void print_peer(const struct stream *s, const char *codec, const struct peer_result *r)
{
	printf("%s-%s-bytes %zu\n", s->name, codec, r->bytes);
	printf("%s-%s-enc-s %.4f\n", s->name, codec, r->enc_s);
	printf("%s-%s-dec-s %.4f\n", s->name, codec, r->dec_s);
}

/* ---- main ----------------------------------------------------------------- */

static void bench(struct stream *s, uint32_t window, int runs, int peer_runs, const char *dir,
		  bool peers)
{
	double enc[MAX_RUNS], dec[MAX_RUNS];
	struct buf out = { 0 };
	struct peer_result r;
	uint64_t keys;
	size_t zcap, zn;
	char path[4096];
	uint8_t *packed, *z;

	printf("%s-accesses %zu\n", s->name, s->n);
	for (int i = 0; i < runs; i++) {
		enc[i] = loops_encode(s, window, &out);
		dec[i] = loops_decode(s, &out);
	}
	r = (struct peer_result){ .bytes = out.len, .enc_s = median(enc, runs),
				  .dec_s = median(dec, runs) };
	print_peer(s, "loops", &r);
	zcap = ZSTD_compressBound(out.len);
	z = xmalloc(zcap);
	zn = ZSTD_compress(z, zcap, out.p, out.len, 3);
	if (ZSTD_isError(zn))
		die(ZSTD_getErrorName(zn), 0);
	printf("%s-loops-zstd-bytes %zu\n", s->name, zn);
	free(z);
	for (int i = 0; i < 3; i++) {
		static const char *const part[] = { "-16th", "-half", "" };
		size_t h = encoder_heap(s, i == 0 ? s->n / 16 : i == 1 ? s->n / 2 : s->n, window,
					&keys);

		printf("%s-loops-heap%s %zu\n", s->name, part[i], h);
		printf("%s-loops-keys%s %llu\n", s->name, part[i], (unsigned long long)keys);
	}
	printf("%s-loops-dec-heap %zu\n", s->name, decoder_heap(&out));
	free(out.p);
	fflush(stdout);
	if (!peers)
		return;

	packed = pack24(s);
	zstd_run(packed, s->n * REC24, 3, runs, &r);
	print_peer(s, "zstd3", &r);
	zstd_run(packed, s->n * REC24, 19, peer_runs, &r);
	print_peer(s, "zstd19", &r);
	fflush(stdout);
	xz_run(packed, s->n * REC24, 9, peer_runs, &r);
	print_peer(s, "xz9", &r);
	free(packed);
	fflush(stdout);

	snprintf(path, sizeof(path), "%s/vmt-loops-bench.%d.vmt", dir, (int)getpid());
	file_run(s, path, 0, runs, &r);
	print_peer(s, "model", &r);
	file_run(s, path, window, runs, &r);
	print_peer(s, "loopsfile", &r);
	fflush(stdout);
}

static void usage(void)
{
	fprintf(stderr, "usage: vmt-loops-bench [-r RUNS 1..%d] [-p PEER_RUNS 1..%d] "
		"[-w WINDOW] [-n N] [-d DIR] [-s STREAMS] [-L] [TRACE]\n", MAX_RUNS, MAX_RUNS);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	const char *only = "matmul,triad,chase,lackey";
	int runs = 3, peer_runs = 1, c;
	bool peers = true;
	unsigned long n = 128, window = VMT_LOOP_WINDOW_DEFAULT;
	struct rusage ru;

	while ((c = getopt(argc, argv, "r:p:w:n:d:s:L")) != -1) {
		switch (c) {
		case 'r':
			runs = atoi(optarg);
			break;
		case 'p':
			peer_runs = atoi(optarg);
			break;
		case 'w':
			window = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			dir = optarg;
			break;
		case 's':
			only = optarg;
			break;
		case 'L':
			peers = false;
			break;
		default:
			usage();
		}
	}
	if (runs < 1 || runs > MAX_RUNS || peer_runs < 1 || peer_runs > MAX_RUNS ||
	    !window || window > VMT_LOOP_WINDOW_MAX || n < 2 || n > 1024 || argc - optind > 1)
		usage();
	printf("window %lu\n", window);
	for (int k = 0; k < 4; k++) {
		static const char *const names[] = { "matmul", "triad", "chase", "lackey" };
		struct stream s = { 0 };

		if (!strstr(only, names[k]))
			continue;
		switch (k) {
		case 0:
			gen_matmul(&s, n);
			break;
		case 1:
			gen_triad(&s, 1u << 19);
			break;
		case 2:
			gen_chase(&s, 1u << 20);
			break;
		default:
			if (optind == argc)
				continue;
			load_trace(&s, argv[optind]);
		}
		bench(&s, (uint32_t)window, runs, peer_runs, dir, peers);
		free(s.a);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("rss-max-kb %ld\n", ru.ru_maxrss);
	return 0;
}
