// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The model codec: a frame of struct vmt_record coded field by field
 * against what the tracer makes likely, with an adaptive binary range coder
 * (codec/range_coder.h). docs/FORMAT.md describes the payload; this is
 * the model:
 *
 *   - time: the difference from the previous record of the same CPU (of any
 *     CPU for a CPU's first record), in units of the greatest common divisor
 *     of the frame's differences (the clocksource's granularity), per
 *     context of record type;
 *   - cpu, type, pid, tid, data_len: "as the previous one" bits first;
 *   - a reference's ip as one of the last four that followed the CPU's
 *     last ip, one of the 64 most recent, within a page evicted earlier in
 *     the frame, or a difference; its vaddr as the ip (a fetch), the ip's
 *     page plus its page stride, the page that followed the CPU's last
 *     page, a recent page's next, a page evicted earlier (by its age in
 *     evictions), or a difference, then the offset: the ip's last; from
 *     MODEL_CODED_2, the page's last (a page faulting again after its
 *     eviction is reached where it was before), one of the ip's 3 before,
 *     or through one of 32 trees the ip picks (an instruction reaches the
 *     same fields of its structures); in MODEL_CODED, through one tree; its pfn from the
 *     (pid, page) map of the frame (model_replay.c), a neighbour's, a
 *     recent pfn - page distance, the last new one's next; its error code
 *     as the ip's, and access, kernel_mode, cause, flags as the last
 *     reference with that error code had them;
 *   - an eviction as a walk of its process's enabled set, replayed from
 *     the frame's references (model_replay.c), oldest first: one bit per
 *     page passed, and the page in full only when it is not there. Under
 *     CLOCK the pages passed over had their second chance and move to the
 *     newest end, as the kernel moves them; the encoder tries that walk
 *     too when the first one passed over many pages, and keeps the smaller
 *     (test_replay_kernel.c holds the replay against kernel/protect/enabled_set.c);
 *   - from MODEL_CODED_3 (a frame with exact records), the type first as
 *     the CPU's last record's, and an exact record against its instruction
 *     (code_exact(): the ip that followed the CPU's last, the ip's last
 *     address plus its stride, its size word);
 *   - every other record type: its five payload words each as the same
 *     type's last or a difference from it.
 *
 * The encoder and the decoder run the same function (code_record()), which
 * codes a field when encoding and fills it in when decoding, so the two
 * cannot disagree on the model. Below the fields, a bit tree and a number
 * (code_tree(), code_uint()) decode on paths of their own, the same bits in
 * the same order as they encode, with the coder's state in registers
 * (decoding bounds reading a trace). All state lives in one frame: a frame
 * decodes alone. A frame the model does not shrink is stored as it is.
 * Built with -DVMT_MODEL_STATS, the encoder adds up the bits each field
 * costs in vmt_model_cost[] (what tuned the model).
 *
 * Outline, in the file's order: the coding primitives (a bit, direct bits,
 * a tree, a number, a difference); the model's state, kept per thread from
 * frame to frame; the fields, from code_time() through code_reference(),
 * code_eviction(), code_other(), code_value() (mode 4's value stream) and
 * code_exact() (modes 3 and 4) to code_record(); the frames,
 * vmt_model_compress() and vmt_model_decompress() (mode 4: the records'
 * stream, then the values', which a reader may leave undecoded).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/trace.h"
#include "codec/codec_model.h"
#include "codec/model_replay.h"
#include "format/trace_format.h"
#include "codec/range_coder.h"

#define MODEL_STORED		0	/* payload: mode byte, then the records */
#define MODEL_CODED		1	/* mode byte, then the header below, then the range coder */
/* The same, and a reference's offset in the page in the context of its ip (OFFSET_TREES). */
#define MODEL_CODED_2		2
/* The same, and an exact record coded by its instruction (code_exact()). */
#define MODEL_CODED_3		3
/*
 * The same, and an exact record's value (its two value words) coded in a
 * stream of its own, after the records' (code_value()): a reader that
 * does not want values decodes the first stream alone.
 */
#define MODEL_CODED_4		4
/* Mode byte flag: entries passed over in an eviction walk move to the newest end. */
#define MODEL_REQUEUE		0x80
#define MODEL_HEADER		(1 + 8 + 8)	/* mode, base time, time unit */
#define MODEL_HEADER_4		(MODEL_HEADER + 4)	/* and the records' stream's bytes */
#define VMT_MODEL_FIELDS	14	/* VMT_MODEL_STATS: the parts FIELD() names */

#define IP_MTF			64
#define RECENT_PAGES		4
#define SUCCESSORS		4
#define DISTANCES		4
#define WALK_MAX		96
#define TYPE_SLOTS		16
#define CLASSES			3	/* reference, eviction, other */
#define PAGE_SHIFT		12
#define PAGE_OFFSET_MASK	0xfffu
#define OFFSETS			4	/* an ip's recent offsets (MODEL_CODED_2) */
#define OFFSET_TREE_BITS	5	/* 2^5 offset trees a reference's ip picks (MODEL_CODED_2) */
#define OFFSET_TREES		(1 << OFFSET_TREE_BITS)

struct uint_model {
	uint16_t len[128];		/* bit length 0..64, a 7-bit tree */
	uint16_t mant[65][16];		/* the 4 bits below the leading one, per length */
};

struct sint_model {
	uint16_t sign[2];
	struct uint_model mag;
};

struct cpu_state {
	uint64_t last_time;
	uint64_t last_units;		/* its last time difference, in units (mode 4) */
	uint64_t last_page;
	uint32_t last_ip;		/* its last reference's ip_state, or VMT_REPLAY_NONE */
	uint32_t last_page_index;	/* its last reference's replay page, or VMT_REPLAY_NONE */
	uint32_t last_exact;		/* its last exact record's exact_ip (MODEL_CODED_3) */
	uint32_t pid, tid, other_tid;
	uint8_t last_class, run;
	uint16_t last_type;		/* its last record's type (MODEL_CODED_3) */
	bool has_task;
};

struct ip_state {
	uint64_t last_page, page_stride;
	/* The ips that followed it on its CPU, newest first. */
	uint64_t successors[SUCCESSORS];
	uint32_t nr_successors;
	uint32_t error_code;
	/* Its last offsets in their pages, newest first (MODEL_CODED: the first only). */
	uint16_t offsets[OFFSETS];
	uint8_t nr_offsets;
	uint8_t offset_hits;		/* whether its last two were among them, newest low */
	uint8_t page_offset_hits;	/* whether its last two were their page's last */
	bool fetch;
};

/* An exact record's instruction (MODEL_CODED_3): what its next access is coded against. */
struct exact_ip {
	uint64_t ip, addr, word2;	/* its ip, its last address, its last size/access/flags word */
	uint64_t stride;		/* its last address less the one before */
	uint32_t next;			/* the exact_ip that followed it on its CPU, or NONE */
	uint8_t hit;			/* its last address was its stride's */
};

/* Every probability of the model; reset to 1/2 at the start of a frame. */
struct model_probs {
	uint16_t same_cpu[CLASSES];
	uint16_t is_ref[CLASSES * 4], is_evict[CLASSES * 4];
	uint16_t same_task[CLASSES], same_pid[CLASSES], tid_rank[CLASSES][4];
	uint16_t no_data[CLASSES];
	uint16_t successor_rank[8], page_successor_hit[2], ip_in_evicted, page_in_evicted[2];
	uint16_t ip_offset[1 << PAGE_SHIFT];
	uint16_t fetch[3], page_stride_hit[2], recent_rank[8], same_offset[2];
	uint16_t recent_offset[2][4], offset_rank[2][4], page_offset[5];
	uint16_t offset[2][1 << PAGE_SHIFT], ip_offset_tree[OFFSET_TREES][1 << PAGE_SHIFT];
	uint16_t same_error[2];
	uint16_t flags_hit[2];
	uint16_t pfn_map[2], pfn_zero[2], pfn_neighbour[2], pfn_distance[2][8], pfn_next[2];
	uint16_t walk[2][4][16], in_walk[2][8];
	uint16_t evict_same[2], evict_offset_zero, evict_small_flags, dirty[4], accessed[4];
	uint16_t same_word[TYPE_SLOTS][5];
	uint16_t same_type[CLASSES * 4], exact_next[2], exact_stride[2], exact_word2[2];
	struct uint_model cpu, type, pid, tid, data_len, error_code, small[4], flags[2];
	struct sint_model time[CLASSES * CLASSES * 2];
	struct uint_model ip_rank, evicted_rank[2];
	struct sint_model ip, page[2], pfn[2], evict_page, evict_ip, word[5];
	struct sint_model exact_ip, exact_addr[2];
	uint16_t same_value[2];		/* MODEL_CODED_4: the value stream's own */
	uint16_t same_step[CLASSES];	/* MODEL_CODED_4: a time difference as the CPU's last */
	struct sint_model value[2];
};

struct model {
	bool decoding;
	bool corrupt;			/* the decoder met a value no encoder writes */
	bool requeue;			/* MODEL_REQUEUE */
	bool skip_values;		/* decoding mode 4, its value stream left alone */
	unsigned int revision;		/* MODEL_CODED to MODEL_CODED_4 */
	/*
	 * The coder in use, and (mode 4) the value stream's: code_value()
	 * swaps them, so that the primitives below code into either.
	 */
	struct vmt_rc_encoder enc, value_enc;
	struct vmt_rc_decoder dec, value_dec;
	struct vmt_buf value_out;	/* encoding mode 4: the value stream */
	uint64_t unit;			/* time unit: the differences' GCD */
	uint64_t last_time;
	uint16_t last_cpu;
	uint8_t last_class;
	uint64_t last_new_pfn, last_evict_page;
	/* pfn - page of the last new pairs, distinct, newest first */
	uint64_t distances[DISTANCES];
	uint32_t nr_distances;
	uint64_t recent_pages[RECENT_PAGES];	/* the last pages referenced, newest first */
	uint32_t nr_recent;
	uint64_t ips[IP_MTF];		/* recent ips, newest first */
	uint32_t nr_ips;
	uint32_t *evictions;		/* the page each eviction took, in order */
	uint32_t nr_evictions;
	/* By error code's low byte and whether the page was seen in the frame. */
	struct vmt_reference ref_flags[512];
	bool ref_flags_valid[512];
	struct vmt_reference last_evict;
	uint64_t words[TYPE_SLOTS][5];
	uint64_t data_words[2];		/* mode 4: the last exact record with data's value words */
	uint64_t walk_passes;		/* entries passed over by found evictions */
	uint64_t walk_misses;		/* evictions not found in the replayed set */
	uint32_t max_records;
	/* The reference's page when code_offset() looked it up already, else NULL. */
	struct vmt_replay_page *ref_page;
	bool ref_page_added;
	struct vmt_index cpu_index, ip_index, exact_index;
	struct cpu_state *cpus;
	struct ip_state *ip_states;
	struct exact_ip *exact_ips;
	struct vmt_replay replay;
	struct model_probs p;
};

/* ---- Coding primitives: encode @bit/@value, or decode and return it -------- */

#ifdef VMT_MODEL_STATS
#include <math.h>
/* Bits the encoder's kept output spent on each part of the records (tests/bench/model-stats.c). */
double vmt_model_cost[VMT_MODEL_FIELDS];
const char *const vmt_model_field_names[VMT_MODEL_FIELDS] = {
	"cpu, type", "time of a reference", "time of an eviction", "time of another record",
	"pid, tid, data_len", "reference: ip", "reference: page", "reference: offset",
	"reference: error code, flags", "reference: pfn", "eviction: page (the walk)",
	"eviction: pfn", "eviction: the rest", "other records",
};
static int vmt_model_field;
#define FIELD(f) (vmt_model_field = (f))
#else
#define FIELD(f) ((void)0)
#endif

/* A bit through coder @enc or @dec: the model's own, or mode 4's value stream's. */
static inline unsigned int code_bit_in(struct model *m, struct vmt_rc_encoder *enc,
				       struct vmt_rc_decoder *dec, uint16_t *prob, unsigned int bit)
{
#ifdef VMT_MODEL_STATS
	if (!m->decoding)
		vmt_model_cost[vmt_model_field] -= log2((bit ? 65536.0 - *prob : *prob) / 65536.0);
#endif
	if (m->decoding)
		return vmt_rc_decode_bit(dec, prob);
	vmt_rc_encode_bit(enc, prob, bit);
	return bit;
}

static inline unsigned int code_bit(struct model *m, uint16_t *prob, unsigned int bit)
{
	return code_bit_in(m, &m->enc, &m->dec, prob, bit);
}

static inline uint64_t code_direct(struct model *m, uint64_t value, unsigned int nbits)
{
#ifdef VMT_MODEL_STATS
	if (!m->decoding)
		vmt_model_cost[vmt_model_field] += nbits;
#endif
	if (m->decoding)
		return vmt_rc_decode_direct(&m->dec, nbits);
	vmt_rc_encode_direct(&m->enc, value, nbits);
	return value;
}

/* @nbits bits of @value through a bit tree of 2^@nbits probabilities. */
static unsigned int code_tree(struct model *m, uint16_t *probs, unsigned int nbits,
			      unsigned int value)
{
	unsigned int node = 1;

	/* A rank's few bits (mostly 0) are cheaper with a branch than without. */
	if (m->decoding)
		return nbits <= 3 ? vmt_rc_decode_tree_repeating(&m->dec, probs, nbits) :
				    vmt_rc_decode_tree(&m->dec, probs, nbits);
	for (unsigned int i = nbits; i--;)
		node = node << 1 | code_bit(m, &probs[node], (value >> i) & 1);
	return node - (1u << nbits);
}

/*
 * code_uint() decoding, the coder's state in registers for all its parts:
 * the length's bits mostly repeat (a branch each), the ones below it do not.
 */
static uint64_t decode_uint(struct model *m, struct uint_model *um)
{
	struct vmt_rc_decoder d = m->dec;
	unsigned int len = vmt_rc_decode_tree_repeating(&d, um->len, 7), rest, top;
	uint64_t value = len;

	if (len > 64) {
		m->corrupt = true;
		value = 0;
	} else if (len > 1) {
		rest = len - 1;
		top = rest < 4 ? rest : 4;
		value = 1ull << rest |
			(uint64_t)vmt_rc_decode_tree(&d, um->mant[len], top) << (rest - top) |
			vmt_rc_decode_direct(&d, rest - top);
	}
	m->dec = d;
	return value;
}

/*
 * A number: its bit length (0 to 64), then the 4 bits below its leading
 * one in the length's context, then the rest at probability 1/2 each.
 */
static uint64_t code_uint(struct model *m, struct uint_model *um, uint64_t value)
{
	unsigned int len = value ? 64 - (unsigned int)__builtin_clzll(value) : 0, rest, top;
	uint64_t high, low;

	if (m->decoding)
		return decode_uint(m, um);
	len = code_tree(m, um->len, 7, len);
	if (len > 64) {
		m->corrupt = true;
		return 0;
	}
	if (len <= 1)
		return len;
	rest = len - 1;
	top = rest < 4 ? rest : 4;
	high = code_tree(m, um->mant[len], top, (unsigned int)(value >> (rest - top)) &
						((1u << top) - 1));
	low = code_direct(m, value & ((1ull << (rest - top)) - 1), rest - top);
	return 1ull << rest | high << (rest - top) | low;
}

/* A difference, modulo 2^64: magnitude, then sign. */
static uint64_t code_sint(struct model *m, struct sint_model *sm, uint64_t diff)
{
	bool negative = (int64_t)diff < 0;
	uint64_t mag = code_uint(m, &sm->mag, negative ? 0 - diff : diff);

	if (!mag)
		return 0;
	negative = code_bit(m, &sm->sign[mag == 1], negative);
	return negative ? 0 - mag : mag;
}

/* ---- Model state ---------------------------------------------------------- */

static void model_reset_probs(struct model_probs *p)
{
	uint16_t *probs = (uint16_t *)p;

	_Static_assert(sizeof(*p) % sizeof(uint16_t) == 0, "probabilities only");
	for (size_t i = 0; i < sizeof(*p) / sizeof(uint16_t); i++)
		probs[i] = VMT_RC_PROB_INIT;
}

static void model_free(struct model *m)
{
	vmt_index_free(&m->cpu_index);
	vmt_index_free(&m->ip_index);
	vmt_index_free(&m->exact_index);
	free(m->evictions);
	free(m->cpus);
	free(m->ip_states);
	free(m->exact_ips);
	vmt_replay_free(&m->replay);
	vmt_buf_free(&m->value_out);
	free(m);
}

static struct model *model_new(uint32_t nr_records)
{
	struct model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->max_records = nr_records;
	m->evictions = malloc((nr_records + 1) * sizeof(*m->evictions));
	m->cpus = malloc((nr_records + 1) * sizeof(*m->cpus));
	m->ip_states = malloc((nr_records + 1) * sizeof(*m->ip_states));
	m->exact_ips = malloc((nr_records + 1) * sizeof(*m->exact_ips));
	if (!m->evictions || !m->cpus || !m->ip_states || !m->exact_ips ||
	    vmt_index_init(&m->cpu_index, nr_records + 1) ||
	    vmt_index_init(&m->ip_index, nr_records + 1) ||
	    vmt_index_init(&m->exact_index, nr_records + 1) ||
	    vmt_replay_init(&m->replay, nr_records)) {
		model_free(m);
		return NULL;
	}
	return m;
}

/*
 * Each thread keeps its last model for the next frame: allocating and
 * faulting in its tables anew cost about a tenth of decoding a 1 MiB frame.
 * A model for a default frame (4 MiB, 65536 records) serves every smaller
 * one, such as a stream's last; a larger one, more than 4 times too large,
 * is replaced, so that clearing its tables stays in proportion.
 */
#define KEPT_RECORDS	65536
static pthread_key_t model_key;
static pthread_once_t model_key_once = PTHREAD_ONCE_INIT;
static int model_key_err;

static void model_destroy(void *m)
{
	model_free(m);
}

static void model_key_create(void)
{
	model_key_err = pthread_key_create(&model_key, model_destroy);
}

static struct model *model_get(uint32_t nr_records)
{
	struct model *m;

	if (pthread_once(&model_key_once, model_key_create) || model_key_err)
		return model_new(nr_records);
	m = pthread_getspecific(model_key);
	if (m && m->max_records >= nr_records &&
	    (m->max_records <= KEPT_RECORDS || m->max_records / 4 <= nr_records))
		return m;
	if (m)
		model_free(m);
	m = model_new(nr_records);
	if (pthread_setspecific(model_key, m) && m) {
		model_free(m);
		return NULL;
	}
	return m;
}

/* Done with @m: kept for the thread's next frame unless it could not be. */
static void model_put(struct model *m)
{
	if (model_key_err || pthread_getspecific(model_key) != m)
		model_free(m);
}

/* Back to the state a frame starts in, the tables emptied. */
static void model_start(struct model *m, uint64_t base_time, uint64_t unit, bool requeue,
			unsigned int revision)
{
	vmt_index_clear(&m->cpu_index);
	vmt_index_clear(&m->ip_index);
	if (revision >= MODEL_CODED_3)
		vmt_index_clear(&m->exact_index);
	vmt_replay_clear(&m->replay);
	model_reset_probs(&m->p);
	m->corrupt = false;
	m->requeue = requeue;
	m->revision = revision;
	m->unit = unit;
	m->last_time = base_time;
	m->last_cpu = 0;
	m->last_class = 0;
	m->last_new_pfn = 0;
	m->nr_distances = 0;
	m->nr_recent = 0;
	m->last_evict_page = 0;
	/* The lists' unused entries are read as bases (ips[0]): zero in every pass. */
	memset(m->ips, 0, sizeof(m->ips));
	memset(m->recent_pages, 0, sizeof(m->recent_pages));
	m->nr_ips = 0;
	m->nr_evictions = 0;
	memset(m->ref_flags_valid, 0, sizeof(m->ref_flags_valid));
	memset(&m->last_evict, 0, sizeof(m->last_evict));
	memset(m->words, 0, sizeof(m->words));
	memset(m->data_words, 0, sizeof(m->data_words));
	m->walk_passes = 0;
	m->walk_misses = 0;
}

static unsigned int record_class(unsigned int type)
{
	return type == VMT_REC_REFERENCE ? 0 : type == VMT_REC_EVICT ? 1 : 2;
}

/* The state of @cpu, made on first use (*added set). */
static struct cpu_state *cpu_state(struct model *m, uint16_t cpu, bool *added)
{
	uint32_t i = vmt_index_add(&m->cpu_index, cpu, added);

	if (i == VMT_REPLAY_NONE) {	/* more CPUs than records: not from an encoder */
		m->corrupt = true;
		i = 0;
		*added = false;
	}
	if (*added)
		m->cpus[i] = (struct cpu_state){ .last_time = m->last_time,
						 .last_ip = VMT_REPLAY_NONE,
						 .last_page_index = VMT_REPLAY_NONE,
						 .last_exact = VMT_REPLAY_NONE,
						 .last_type = VMT_REC_REFERENCE };
	return &m->cpus[i];
}

/* ---- Fields --------------------------------------------------------------- */

/* @bits bits of a hash of @value (Fibonacci hashing: the top bits of a product). */
static inline unsigned int hash_bits(uint64_t value, unsigned int bits)
{
	return (unsigned int)((value * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

static uint64_t code_time(struct model *m, struct cpu_state *c, bool new_cpu, unsigned int cls,
			  uint64_t time)
{
	uint64_t prev = new_cpu ? m->last_time : c->last_time;
	struct sint_model *sm = &m->p.time[(cls * CLASSES + c->last_class) * 2 + new_cpu];
	uint64_t diff = time - prev, units = 0;

	/* The unit divides every difference the encoder codes (frame_time_unit()). */
	if (!m->decoding)
		units = (int64_t)diff < 0 ? 0 - ((0 - diff) / m->unit) : diff / m->unit;
	/*
	 * Mode 4: first whether it is the CPU's last difference, one bit where
	 * the clock steps evenly (a synthetic trace's times are its indices)
	 * rather than a number's eight or more.
	 */
	if (m->revision >= MODEL_CODED_4 && !new_cpu &&
	    code_bit(m, &m->p.same_step[cls], units == c->last_units))
		units = c->last_units;
	else
		units = code_sint(m, sm, units);
	c->last_units = units;
	return prev + units * m->unit;
}

/* @value's place in @list, or @n. */
static inline uint32_t rank_in(const uint64_t *list, uint32_t n, uint64_t value)
{
	uint32_t k;

	for (k = 0; k < n && list[k] != value; k++)
		;
	return k;
}

/*
 * Move @value, at @k in @list (@n entries of @max; @k == @n: not in it),
 * to the front, as its newest. A short move entry by entry: most are.
 */
static inline void list_to_front(uint64_t *list, uint32_t *n, uint32_t max, uint32_t k,
				 uint64_t value)
{
	if (k == *n) {
		if (*n < max)
			(*n)++;
		k = *n - 1;
	}
	if (k > 8) {
		memmove(&list[1], &list[0], k * sizeof(list[0]));
	} else {
		for (; k; k--)
			list[k] = list[k - 1];
	}
	list[0] = value;
}

static inline void move_to_front(uint64_t *list, uint32_t *n, uint32_t max, uint64_t value)
{
	list_to_front(list, n, max, rank_in(list, *n, value), value);
}

/*
 * A page that was evicted earlier in the frame (a page faults again after
 * it left the set), as its age: evictions since its last. *found says
 * whether it was; @vpage is returned as it is when not.
 */
static uint64_t code_evicted_page(struct model *m, uint16_t *hit, struct uint_model *age_model,
				  uint32_t pid, uint64_t vpage, bool *found)
{
	uint32_t i = m->decoding ? VMT_REPLAY_NONE : vmt_replay_find_page(&m->replay, pid, vpage);
	const struct vmt_replay_page *page = i != VMT_REPLAY_NONE ? &m->replay.pages[i] : NULL;
	uint64_t age = 0;

	*found = page && page->evicted_at && page->pid == pid && page->vpage == vpage;
	if (*found)
		age = m->nr_evictions - page->evicted_at;
	*found = m->nr_evictions && code_bit(m, hit, *found);
	if (!*found)
		return vpage;
	age = code_uint(m, age_model, age);
	if (age >= m->nr_evictions) {
		m->corrupt = true;
		return vpage;
	}
	page = &m->replay.pages[m->evictions[m->nr_evictions - 1 - age]];
	/* An encoder names a page by its last eviction only. */
	if (page->evicted_at != m->nr_evictions - age)
		m->corrupt = true;
	return page->vpage;
}

/*
 * An ip: the one that followed the CPU's last ip last time, a recent one,
 * one in a recently evicted page (an instruction fetch faulting it back),
 * or a difference from the last.
 */
static uint64_t code_ip(struct model *m, struct cpu_state *c, uint32_t pid, uint64_t ip)
{
	struct ip_state *prev = c->last_ip != VMT_REPLAY_NONE ? &m->ip_states[c->last_ip] : NULL;
	uint64_t k;
	bool found;

	if (prev && prev->nr_successors) {
		/* The decoder's ip is 0: no need to look for it. */
		k = m->decoding ? 0 : rank_in(prev->successors, prev->nr_successors, ip);
		k = code_tree(m, m->p.successor_rank, 3,
			      (unsigned int)(k < prev->nr_successors ? k : SUCCESSORS));
		if (k < prev->nr_successors) {
			ip = prev->successors[k];
			goto known;
		}
		if (k != SUCCESSORS)
			m->corrupt = true;
	}
	k = code_uint(m, &m->p.ip_rank, m->decoding ? 0 : rank_in(m->ips, m->nr_ips, ip));
	if (k < m->nr_ips) {
		ip = m->ips[k];
		list_to_front(m->ips, &m->nr_ips, IP_MTF, (uint32_t)k, ip);
		return ip;
	}
	if (k > m->nr_ips)
		m->corrupt = true;
	ip = code_evicted_page(m, &m->p.ip_in_evicted, &m->p.evicted_rank[0], pid,
			       ip >> PAGE_SHIFT, &found) << PAGE_SHIFT | (ip & PAGE_OFFSET_MASK);
	if (found)
		ip = (ip & ~(uint64_t)PAGE_OFFSET_MASK) |
		     code_tree(m, m->p.ip_offset, PAGE_SHIFT, ip & PAGE_OFFSET_MASK);
	else
		ip = m->ips[0] + code_sint(m, &m->p.ip, ip - m->ips[0]);
known:
	move_to_front(m->ips, &m->nr_ips, IP_MTF, ip);
	return ip;
}

/*
 * A pfn: from the page's own, a neighbour's, a recent pair's distance, the
 * last new one's next, or a difference.
 */
static uint64_t code_pfn(struct model *m, unsigned int cls, struct vmt_replay_page *page,
			 uint64_t pfn)
{
	uint32_t neighbour, k;
	uint64_t guess;

	if (page->has_pfn && code_bit(m, &m->p.pfn_map[cls], pfn == page->pfn))
		return page->pfn;
	if (code_bit(m, &m->p.pfn_zero[cls], pfn == 0))
		return 0;
	neighbour = vmt_replay_find_page(&m->replay, page->pid, page->vpage - 1);
	if (neighbour != VMT_REPLAY_NONE && m->replay.pages[neighbour].has_pfn &&
	    m->replay.pages[neighbour].pfn) {
		guess = m->replay.pages[neighbour].pfn + 1;
		if (code_bit(m, &m->p.pfn_neighbour[cls], pfn == guess))
			goto learnt;
	}
	/* Frames handed out in the order of the pages: a recent pair's distance. */
	k = rank_in(m->distances, m->nr_distances, pfn - page->vpage);
	k = code_tree(m, m->p.pfn_distance[cls], 3, k < m->nr_distances ? k : DISTANCES);
	if (k < m->nr_distances) {
		guess = page->vpage + m->distances[k];
		goto learnt;
	}
	if (k != DISTANCES)
		m->corrupt = true;
	guess = m->last_new_pfn + 1;
	if (code_bit(m, &m->p.pfn_next[cls], pfn == guess))
		goto learnt;
	guess = m->last_new_pfn + code_sint(m, &m->p.pfn[cls], pfn - m->last_new_pfn);
learnt:
	m->last_new_pfn = guess;
	move_to_front(m->distances, &m->nr_distances, DISTANCES, guess - page->vpage);
	return guess;
}

static struct vmt_replay_page *page_of(struct model *m, uint32_t pid, uint64_t vaddr,
				       bool *added)
{
	uint32_t i = vmt_replay_page(&m->replay, pid, vaddr >> PAGE_SHIFT, added);

	if (i == VMT_REPLAY_NONE) {	/* more pages than records: not from an encoder */
		m->corrupt = true;
		i = 0;
		*added = false;
	}
	return &m->replay.pages[i];
}

/* The small fields a reference shares with an eviction, evict_flags apart. */
static bool same_small_fields(const struct vmt_reference *a, const struct vmt_reference *b)
{
	return a->access == b->access && a->kernel_mode == b->kernel_mode &&
	       a->cause == b->cause && a->flags == b->flags && a->reserved == b->reserved;
}

static void copy_small_fields(struct vmt_reference *to, const struct vmt_reference *from)
{
	to->access = from->access;
	to->kernel_mode = from->kernel_mode;
	to->cause = from->cause;
	to->flags = from->flags;
	to->reserved = from->reserved;
}

static void code_small_fields(struct model *m, struct vmt_reference *ref)
{
	ref->access = (uint8_t)code_uint(m, &m->p.small[0], ref->access);
	ref->kernel_mode = (uint8_t)code_uint(m, &m->p.small[1], ref->kernel_mode);
	ref->cause = (uint8_t)code_uint(m, &m->p.small[2], ref->cause);
	ref->flags = (uint32_t)code_uint(m, &m->p.flags[0], ref->flags);
	ref->reserved = (uint32_t)code_uint(m, &m->p.flags[1], ref->reserved);
}

/* access, kernel_mode, cause...: as the last reference with this error code had them. */
static void code_ref_flags(struct model *m, struct vmt_reference *ref, bool seen)
{
	struct vmt_reference *f = &m->ref_flags[(ref->error_code & 0xff) | (unsigned int)seen << 8];
	bool *valid = &m->ref_flags_valid[(ref->error_code & 0xff) | (unsigned int)seen << 8];

	if (*valid && code_bit(m, &m->p.flags_hit[seen],
			       same_small_fields(ref, f) && ref->evict_flags == f->evict_flags)) {
		copy_small_fields(ref, f);
		ref->evict_flags = f->evict_flags;
		return;
	}
	code_small_fields(m, ref);
	ref->evict_flags = (uint8_t)code_uint(m, &m->p.small[3], ref->evict_flags);
	*f = *ref;
	*valid = true;
}

/*
 * The tree a reference's offset in its page is coded with: from
 * MODEL_CODED_2, one of OFFSET_TREES picked by its ip, as an instruction
 * reaches the same fields of its structures again and again.
 */
static uint16_t *offset_tree(struct model *m, uint64_t ip)
{
	if (m->revision < MODEL_CODED_2)
		return m->p.offset[0];
	return m->p.ip_offset_tree[hash_bits(ip, OFFSET_TREE_BITS)];
}

/*
 * A reference's offset in its page: the ip's last; from MODEL_CODED_2, the
 * page's last (see below), one of the ip's OFFSETS - 1 before (an
 * instruction walking a few fields, or a few structures' same field: a
 * tenth of python3's references); or through the ip's tree.
 */
static unsigned int code_offset(struct model *m, struct ip_state *is, bool new_ip, uint64_t ip,
				uint32_t pid, uint64_t vpage, unsigned int offset)
{
	struct vmt_replay_page *page;
	unsigned int k, hit;

	if (!new_ip && code_bit(m, &m->p.same_offset[is->fetch], offset == is->offsets[0]))
		return is->offsets[0];
	if (m->revision < MODEL_CODED_2)
		return code_tree(m, offset_tree(m, ip), PAGE_SHIFT, offset);
	/*
	 * Where the page was reached last time: a page that faults again after
	 * its eviction is often reached where it was before (half of xz's
	 * references, a tenth of python3's).
	 */
	page = m->ref_page = page_of(m, pid, vpage << PAGE_SHIFT, &m->ref_page_added);
	if (page->has_offset && (new_ip || page->last_offset != is->offsets[0])) {
		unsigned int ctx = new_ip ? 4 : is->page_offset_hits & 3;

		hit = code_bit(m, &m->p.page_offset[ctx], offset == page->last_offset);
		if (!new_ip)
			is->page_offset_hits = (uint8_t)(is->page_offset_hits << 1 | hit);
		if (hit)
			return page->last_offset;
	}
	if (new_ip || is->nr_offsets < 2)
		return code_tree(m, offset_tree(m, ip), PAGE_SHIFT, offset);
	for (k = 1; k < is->nr_offsets && is->offsets[k] != offset; k++)
		;
	/* In the context of the ip's last two: some ips hash, others walk. */
	hit = code_bit(m, &m->p.recent_offset[is->fetch][is->offset_hits & 3],
		       k < is->nr_offsets);
	is->offset_hits = (uint8_t)(is->offset_hits << 1 | hit);
	if (!hit)
		return code_tree(m, offset_tree(m, ip), PAGE_SHIFT, offset);
	/* Ranks 1..OFFSETS - 1, as 0..2 of a 2-bit tree. */
	_Static_assert(OFFSETS - 1 <= 4, "ranks in a 2-bit tree");
	k = code_tree(m, m->p.offset_rank[is->fetch], 2, k - 1) + 1;
	if (k >= is->nr_offsets) {
		m->corrupt = true;
		return 0;
	}
	return is->offsets[k];
}

/* @offset to the front of @is's recent offsets. */
static void remember_offset(struct model *m, struct ip_state *is, uint16_t offset)
{
	unsigned int k, max = m->revision < MODEL_CODED_2 ? 1 : OFFSETS;

	for (k = 0; k < is->nr_offsets && is->offsets[k] != offset; k++)
		;
	if (k == is->nr_offsets) {
		if (is->nr_offsets < max)
			is->nr_offsets++;
		k = is->nr_offsets - 1;
	}
	for (; k; k--)		/* at most OFFSETS - 1: no memmove() call */
		is->offsets[k] = is->offsets[k - 1];
	is->offsets[0] = offset;
}

/*
 * A reference's address: the ip itself (a fetch), or a page (the ip's last
 * plus its stride, a recent page's next, or a difference) and an offset.
 */
static uint64_t code_vaddr(struct model *m, struct cpu_state *c, struct ip_state *is,
			   bool new_ip, uint32_t pid, uint64_t ip, uint64_t vaddr)
{
	uint64_t vpage = vaddr >> PAGE_SHIFT, base;
	unsigned int offset = vaddr & PAGE_OFFSET_MASK, k;
	bool found;

	if (code_bit(m, &m->p.fetch[new_ip ? 2 : is->fetch], vaddr == ip))
		return ip;
	if (!new_ip && code_bit(m, &m->p.page_stride_hit[is->page_stride == 0],
				vpage == is->last_page + is->page_stride)) {
		vpage = is->last_page + is->page_stride;
		goto offset;
	}
	if (c->last_page_index != VMT_REPLAY_NONE) {
		const struct vmt_replay_page *last = &m->replay.pages[c->last_page_index];

		if (last->has_next && code_bit(m, &m->p.page_successor_hit[new_ip],
					       vpage == last->next_vpage)) {
			vpage = last->next_vpage;
			goto offset;
		}
	}
	for (k = 0; k < m->nr_recent && m->recent_pages[k] + 1 != vpage; k++)
		;
	k = code_tree(m, m->p.recent_rank, 3, k < m->nr_recent ? k : RECENT_PAGES);
	if (k < m->nr_recent) {
		vpage = m->recent_pages[k] + 1;
		goto offset;
	}
	if (k != RECENT_PAGES)
		m->corrupt = true;
	vpage = code_evicted_page(m, &m->p.page_in_evicted[new_ip], &m->p.evicted_rank[1], pid,
				  vpage, &found);
	if (found)
		goto offset;
	base = new_ip ? c->last_page : is->last_page;
	vpage = base + code_sint(m, &m->p.page[new_ip], vpage - base);
offset:
	FIELD(7);
	return vpage << PAGE_SHIFT | code_offset(m, is, new_ip, ip, pid, vpage, offset);
}

static void code_reference(struct model *m, struct cpu_state *c, struct vmt_record *r)
{
	struct vmt_reference *ref = &r->ref;
	struct vmt_replay_page *page;
	struct vmt_replay_queue *q;
	struct ip_state *is;
	bool new_ip, new_page;
	uint32_t i;

	m->ref_page = NULL;
	ref->ip = code_ip(m, c, r->hdr.pid, ref->ip);
	FIELD(6);
	i = vmt_index_add(&m->ip_index, ref->ip, &new_ip);
	if (i == VMT_REPLAY_NONE) {
		m->corrupt = true;
		return;
	}
	is = &m->ip_states[i];
	if (new_ip)
		*is = (struct ip_state){ 0 };
	if (c->last_ip != VMT_REPLAY_NONE) {
		struct ip_state *prev = &m->ip_states[c->last_ip];

		move_to_front(prev->successors, &prev->nr_successors, SUCCESSORS, ref->ip);
	}
	c->last_ip = i;

	ref->vaddr = code_vaddr(m, c, is, new_ip, r->hdr.pid, ref->ip, ref->vaddr);
	FIELD(8);
	if (!new_ip)
		is->page_stride = (ref->vaddr >> PAGE_SHIFT) - is->last_page;
	is->last_page = ref->vaddr >> PAGE_SHIFT;
	remember_offset(m, is, ref->vaddr & PAGE_OFFSET_MASK);
	is->fetch = ref->vaddr == ref->ip;
	c->last_page = ref->vaddr >> PAGE_SHIFT;
	move_to_front(m->recent_pages, &m->nr_recent, RECENT_PAGES, c->last_page);

	if (new_ip || !code_bit(m, &m->p.same_error[0], ref->error_code == is->error_code))
		ref->error_code = (uint32_t)code_uint(m, &m->p.error_code, ref->error_code);
	else
		ref->error_code = is->error_code;
	is->error_code = ref->error_code;

	if (m->ref_page) {
		page = m->ref_page;
		new_page = m->ref_page_added;
	} else {
		page = page_of(m, r->hdr.pid, ref->vaddr, &new_page);
	}
	if (c->last_page_index != VMT_REPLAY_NONE) {
		m->replay.pages[c->last_page_index].next_vpage = page->vpage;
		m->replay.pages[c->last_page_index].has_next = true;
	}
	c->last_page_index = (uint32_t)(page - m->replay.pages);
	page->last_offset = ref->vaddr & PAGE_OFFSET_MASK;
	page->has_offset = true;
	code_ref_flags(m, ref, !new_page);
	FIELD(9);
	ref->pfn = code_pfn(m, 0, page, ref->pfn);
	page->pfn = ref->pfn;
	page->has_pfn = true;
	q = vmt_replay_queue(&m->replay, r->hdr.pid);
	if (!q) {
		m->corrupt = true;
		return;
	}
	if (!page->queued)
		page->written = false;
	page->written |= (ref->access & VMT_ACCESS_WRITE) != 0;
	vmt_replay_admit(&m->replay, q, (uint32_t)(page - m->replay.pages));
}

static void code_eviction(struct model *m, struct vmt_record *r)
{
	struct vmt_reference *ref = &r->ref, *last = &m->last_evict;
	struct vmt_replay_queue *q = vmt_replay_queue(&m->replay, r->hdr.pid);
	struct vmt_replay_page *page = NULL;
	uint32_t node, passed[WALK_MAX];
	unsigned int k = 0, f;
	bool found = false, new_page;

	if (!q) {
		m->corrupt = true;
		return;
	}
	FIELD(10);
	/* Is it among the first WALK_MAX pages of the queue? By how full it is. */
	node = m->decoding ? VMT_REPLAY_NONE : q->head;	/* the decoder learns it from the bit */
	for (; node != VMT_REPLAY_NONE && k < WALK_MAX; node = m->replay.pages[node].next, k++)
		if (ref->vaddr == m->replay.pages[node].vpage << PAGE_SHIFT)
			break;
	found = node != VMT_REPLAY_NONE && k < WALK_MAX;
	f = 32 - (unsigned int)__builtin_clz(q->len | 1);
	found = code_bit(m, &m->p.in_walk[m->requeue][f < 8 ? f : 7], found) && q->len;
	k = 0;
	for (node = q->head; found && node != VMT_REPLAY_NONE && k < WALK_MAX;
	     node = m->replay.pages[node].next) {
		page = &m->replay.pages[node];
		/* A page passed over before was accessed: it is likely to be again. */
		if (code_bit(m, &m->p.walk[m->requeue][page->passes][k < 15 ? k : 15],
			     ref->vaddr == page->vpage << PAGE_SHIFT))
			break;
		passed[k++] = node;
		if (page->passes < 3)
			page->passes++;
	}
	if (found && (node == VMT_REPLAY_NONE || k == WALK_MAX)) {
		m->corrupt = true;	/* the walk ran out: not from an encoder */
		return;
	}
	if (found) {
		ref->vaddr = page->vpage << PAGE_SHIFT;
		m->walk_passes += k;
		if (m->requeue)
			for (unsigned int i = 0; i < k; i++)
				vmt_replay_requeue(&m->replay, q, passed[i]);
	} else {
		uint64_t vpage = m->last_evict_page +
				 code_sint(m, &m->p.evict_page,
					   (ref->vaddr >> PAGE_SHIFT) - m->last_evict_page);
		unsigned int offset = 0;

		m->walk_misses++;

		if (!code_bit(m, &m->p.evict_offset_zero, !(ref->vaddr & PAGE_OFFSET_MASK)))
			offset = code_tree(m, m->p.offset[1], PAGE_SHIFT,
					   ref->vaddr & PAGE_OFFSET_MASK);
		ref->vaddr = vpage << PAGE_SHIFT | offset;
		page = page_of(m, r->hdr.pid, ref->vaddr, &new_page);
	}
	m->last_evict_page = ref->vaddr >> PAGE_SHIFT;

	FIELD(11);
	ref->pfn = code_pfn(m, 1, page, ref->pfn);
	FIELD(12);
	page->pfn = ref->pfn;
	page->has_pfn = true;

	if (code_bit(m, &m->p.evict_same[found], ref->ip == last->ip &&
		     ref->error_code == last->error_code && same_small_fields(ref, last))) {
		ref->ip = last->ip;
		ref->error_code = last->error_code;
		copy_small_fields(ref, last);
	} else {
		ref->ip = last->ip + code_sint(m, &m->p.evict_ip, ref->ip - last->ip);
		ref->error_code = (uint32_t)code_uint(m, &m->p.error_code, ref->error_code);
		code_small_fields(m, ref);
	}
	/* Dirty from a write seen since it was enabled; accessed, always under FIFO. */
	if (code_bit(m, &m->p.evict_small_flags, ref->evict_flags <= 3)) {
		f = (unsigned int)found << 1 | (found && page->written);
		f = code_bit(m, &m->p.dirty[f], ref->evict_flags & VMT_EVICT_DIRTY) |
		    code_bit(m, &m->p.accessed[f], (ref->evict_flags & VMT_EVICT_ACCESSED) != 0)
			    << 1;
		ref->evict_flags = (uint8_t)f;
	} else {
		ref->evict_flags = (uint8_t)code_uint(m, &m->p.small[3], ref->evict_flags);
	}
	*last = *ref;
	vmt_replay_remove(&m->replay, (uint32_t)(page - m->replay.pages));
	if (m->nr_evictions < m->max_records) {
		m->evictions[m->nr_evictions++] = (uint32_t)(page - m->replay.pages);
		page->evicted_at = m->nr_evictions;
	}
}

static void code_other(struct model *m, struct vmt_record *r)
{
	unsigned int slot = r->hdr.type < TYPE_SLOTS ? r->hdr.type : TYPE_SLOTS - 1;
	uint64_t *last = m->words[slot];

	FIELD(13);
	for (unsigned int i = 0; i < 5; i++) {
		if (code_bit(m, &m->p.same_word[slot][i], r->raw[i] == last[i]))
			r->raw[i] = last[i];
		else
			r->raw[i] = last[i] + code_sint(m, &m->p.word[i], r->raw[i] - last[i]);
		last[i] = r->raw[i];
	}
}

/*
 * An exact record (MODEL_CODED_3): its ip as the one that followed the
 * CPU's last exact ip the last time, or a difference from the last exact
 * record's ip; its address as its ip's last plus its ip's last stride, or
 * a difference from its ip's last (the last exact record's, for an ip's
 * first); its size, access and flags word as its ip's last, or a
 * difference; its value's two words as code_other() codes them. A loop's
 * access costs a few bits, and the decoder finds its ip without a lookup.
 */
_Static_assert(VMT_REC_EXACT < TYPE_SLOTS, "exact records have a slot of their own");

/* An exact record's two value words, each as @base's or a difference from it. */
static void code_words(struct model *m, __u64 *words, const uint64_t *base, uint16_t *same,
		       struct sint_model *diff)
{
	for (unsigned int k = 0; k < 2; k++) {
		if (code_bit(m, &same[k], words[k] == base[k]))
			words[k] = base[k];
		else
			words[k] = base[k] + code_sint(m, &diff[k], words[k] - base[k]);
	}
}

static void swap_coders(struct model *m)
{
	if (m->decoding) {
		struct vmt_rc_decoder t = m->dec;

		m->dec = m->value_dec;
		m->value_dec = t;
	} else {
		struct vmt_rc_encoder t = m->enc;

		m->enc = m->value_enc;
		m->value_enc = t;
	}
}

/*
 * Mode 4: an exact record's value in the value stream, against the last
 * exact record's, with probabilities of their own, so that the records'
 * stream decodes the same whether the value stream is decoded or not;
 * left zero by a decoder that skips it. (A record with data keeps its
 * words in the records' stream, against the last such record's: its
 * second word is the offset of the data, which a reader needs.)
 */
static void code_value(struct model *m, __u64 *words, const uint64_t *base)
{
	if (m->decoding && m->skip_values)
		return;
	/* code_words()' bits, in its order; the coders swapped for a difference alone. */
	for (unsigned int k = 0; k < 2; k++) {
		if (code_bit_in(m, &m->value_enc, &m->value_dec, &m->p.same_value[k],
				words[k] == base[k])) {
			words[k] = base[k];
		} else {
			swap_coders(m);
			words[k] = base[k] + code_sint(m, &m->p.value[k], words[k] - base[k]);
			swap_coders(m);
		}
	}
}

static void code_exact(struct model *m, struct cpu_state *c, struct vmt_record *r)
{
	uint64_t *last = m->words[VMT_REC_EXACT];
	struct exact_ip *prev = c->last_exact != VMT_REPLAY_NONE ?
				&m->exact_ips[c->last_exact] : NULL, *x;
	uint32_t i;
	bool added = false;

	FIELD(13);
	if (prev && prev->next != VMT_REPLAY_NONE &&
	    code_bit(m, &m->p.exact_next[prev->hit], r->exact.ip == m->exact_ips[prev->next].ip)) {
		i = prev->next;
	} else {
		r->exact.ip = last[1] + code_sint(m, &m->p.exact_ip, r->exact.ip - last[1]);
		i = vmt_index_add(&m->exact_index, r->exact.ip, &added);
		if (i == VMT_REPLAY_NONE) {	/* more ips than records: not from an encoder */
			m->corrupt = true;
			return;
		}
	}
	x = &m->exact_ips[i];
	if (added)
		*x = (struct exact_ip){ .ip = r->exact.ip, .addr = last[0], .word2 = last[2],
					.next = VMT_REPLAY_NONE };
	r->exact.ip = x->ip;
	if (prev)
		prev->next = i;
	if (!added && code_bit(m, &m->p.exact_stride[x->hit],
			       r->exact.addr == x->addr + x->stride)) {
		r->exact.addr = x->addr + x->stride;
		x->hit = 1;
	} else {
		r->exact.addr = x->addr + code_sint(m, &m->p.exact_addr[added],
						    r->exact.addr - x->addr);
		x->stride = added ? 0 : r->exact.addr - x->addr;
		x->hit = 0;
	}
	x->addr = r->exact.addr;
	if (code_bit(m, &m->p.exact_word2[added], r->raw[2] == x->word2))
		r->raw[2] = x->word2;
	else
		r->raw[2] = x->word2 + code_sint(m, &m->p.word[2], r->raw[2] - x->word2);
	x->word2 = r->raw[2];
	if (m->revision < MODEL_CODED_4) {
		code_words(m, &r->raw[3], &last[3], &m->p.same_word[VMT_REC_EXACT][3], &m->p.word[3]);
	} else if (r->hdr.data_len) {
		code_words(m, &r->raw[3], m->data_words, &m->p.same_word[VMT_REC_EXACT][3],
			   &m->p.word[3]);
		memcpy(m->data_words, &r->raw[3], sizeof(m->data_words));
	} else {
		code_value(m, &r->raw[3], &last[3]);
	}
	/* Word by word: a wider load of words just stored would wait for them. */
	for (unsigned int k = 0; k < 5; k++)
		last[k] = r->raw[k];
	c->last_exact = i;
}

/* Code @r, or decode into it (zeroed). */
static void code_record(struct model *m, struct vmt_record *r)
{
	struct vmt_record_header *h = &r->hdr;
	struct cpu_state *c;
	unsigned int cls, ctx;
	bool new_cpu, same;

	FIELD(0);
	if (code_bit(m, &m->p.same_cpu[m->last_class], h->cpu == m->last_cpu))
		h->cpu = m->last_cpu;
	else
		h->cpu = (uint16_t)code_uint(m, &m->p.cpu, h->cpu);
	c = cpu_state(m, h->cpu, &new_cpu);

	ctx = c->last_class * 4 + (c->run < 3 ? c->run : 3);
	/* Mode 3: first whether it is of the CPU's last record's type (an exact record's, mostly). */
	if (m->revision >= MODEL_CODED_3 &&
	    code_bit(m, &m->p.same_type[ctx], h->type == c->last_type))
		h->type = c->last_type;
	else if (code_bit(m, &m->p.is_ref[ctx], h->type == VMT_REC_REFERENCE))
		h->type = VMT_REC_REFERENCE;
	else if (code_bit(m, &m->p.is_evict[ctx], h->type == VMT_REC_EVICT))
		h->type = VMT_REC_EVICT;
	else
		h->type = (uint16_t)code_uint(m, &m->p.type, h->type);
	cls = record_class(h->type);

	FIELD(1 + cls);
	h->time_ns = code_time(m, c, new_cpu, cls, h->time_ns);
	FIELD(4);

	same = c->has_task && code_bit(m, &m->p.same_task[cls],
				       h->pid == c->pid && h->tid == c->tid);
	if (same) {
		h->pid = c->pid;
		h->tid = c->tid;
	} else {
		if (c->has_task && code_bit(m, &m->p.same_pid[cls], h->pid == c->pid))
			h->pid = c->pid;
		else
			h->pid = (uint32_t)code_uint(m, &m->p.pid, h->pid);
		const uint32_t tids[3] = { h->pid, c->tid, c->other_tid };
		unsigned int k;

		for (k = 0; k < 3 && h->tid != tids[k]; k++)
			;
		k = code_tree(m, m->p.tid_rank[cls], 2, k);
		h->tid = k < 3 ? tids[k] : (uint32_t)code_uint(m, &m->p.tid, h->tid);
	}
	if (code_bit(m, &m->p.no_data[cls], h->data_len == 0))
		h->data_len = 0;
	else
		h->data_len = (uint32_t)code_uint(m, &m->p.data_len, h->data_len);

	FIELD(5);
	if (cls == 0)
		code_reference(m, c, r);
	else if (cls == 1)
		code_eviction(m, r);
	else if (h->type == VMT_REC_EXACT && m->revision >= MODEL_CODED_3)
		code_exact(m, c, r);
	else
		code_other(m, r);

	c->run = cls == c->last_class && c->run < 255 ? c->run + 1 : 0;
	c->last_class = (uint8_t)cls;
	c->last_type = h->type;
	c->last_time = h->time_ns;
	if (h->tid != c->tid)
		c->other_tid = c->tid;
	c->pid = h->pid;
	c->tid = h->tid;
	c->has_task = true;
	m->last_cpu = h->cpu;
	m->last_class = (uint8_t)cls;
	m->last_time = h->time_ns;
}

/* ---- Frames ---------------------------------------------------------------- */

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * The GCD of the time differences code_time() will code: each record's
 * from its CPU's previous record, or from the previous record for a CPU's
 * first. 1 when they are all zero. Uses @m's CPU table, which holds @n CPUs.
 */
static int64_t frame_time_unit(const struct vmt_record *recs, uint32_t n, struct model *m)
{
	uint64_t unit = 0, last = recs[0].hdr.time_ns;
	bool added;

	vmt_index_clear(&m->cpu_index);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = vmt_index_add(&m->cpu_index, recs[i].hdr.cpu, &added);
		uint64_t prev = added ? last : m->cpus[c].last_time, diff;

		diff = recs[i].hdr.time_ns - prev;
		unit = gcd64(unit, (int64_t)diff < 0 ? 0 - diff : diff);
		if (unit == 1)
			return 1;	/* and so it stays (a division a record saved) */
		m->cpus[c].last_time = last = recs[i].hdr.time_ns;
	}
	return unit ? (int64_t)(unit > INT64_MAX ? 1 : unit) : 1;
}

static int encode_frame(struct model *m, const struct vmt_record *recs, uint32_t n,
			uint64_t unit, bool requeue, unsigned int revision, struct vmt_buf *out)
{
	size_t header = revision >= MODEL_CODED_4 ? MODEL_HEADER_4 : MODEL_HEADER;
	uint8_t *h;
	int err;

	out->size = 0;
	err = vmt_buf_reserve(out, (size_t)n * sizeof(*recs) / 4 + header + 64);
	if (err)
		return err;
	h = out->data;
	h[0] = (uint8_t)(revision | (requeue ? MODEL_REQUEUE : 0));
	vmt_put64(h + 1, recs[0].hdr.time_ns);
	vmt_put64(h + 9, unit);
	out->size = header;
	m->decoding = false;
	model_start(m, recs[0].hdr.time_ns, unit, requeue, revision);
	vmt_rc_encoder_init(&m->enc, out);
	m->value_out.size = 0;
	vmt_rc_encoder_init(&m->value_enc, &m->value_out);
	for (uint32_t i = 0; i < n; i++) {
		struct vmt_record r = recs[i];

		code_record(m, &r);
		if (m->corrupt)
			return -ENOMEM;	/* a table full: cannot happen, tables fit n */
	}
	err = vmt_rc_encoder_finish(&m->enc);
	if (err || revision < MODEL_CODED_4)
		return err;
	/* Mode 4: the records' stream's size, then the value stream after it. */
	err = vmt_rc_encoder_finish(&m->value_enc);
	if (!err && out->size - header > UINT32_MAX)
		err = -EOVERFLOW;	/* cannot happen: a frame is at most VMT_MAX_FRAME_RAW */
	if (!err)
		err = vmt_buf_reserve(out, out->size + m->value_out.size);
	if (err)
		return err;
	vmt_put32(out->data + MODEL_HEADER, (uint32_t)(out->size - header));
	memcpy(out->data + out->size, m->value_out.data, m->value_out.size);
	out->size += m->value_out.size;
	return 0;
}

int vmt_model_compress(const void *src, size_t size, struct vmt_buf *out)
{
	const struct vmt_record *recs = src;
	uint32_t n = (uint32_t)(size / sizeof(*recs));
	struct vmt_buf alt = { 0 };
	unsigned int revision = MODEL_CODED_2;
	struct model *m;
	int64_t unit;
	int err;

	if (size % sizeof(*recs) || size > VMT_MAX_FRAME_RAW)
		return -EINVAL;
	if (!n)
		goto stored;
	m = model_get(n);
	if (!m)
		return -ENOMEM;
	unit = frame_time_unit(recs, n, m);
	/* Mode 4 for a frame with exact records; the rest code as mode 2 did, byte for byte. */
	for (uint32_t i = 0; i < n && revision == MODEL_CODED_2; i++)
		if (recs[i].hdr.type == VMT_REC_EXACT)
			revision = MODEL_CODED_4;
#ifdef VMT_MODEL_STATS
	double before[VMT_MODEL_FIELDS], first[VMT_MODEL_FIELDS];

	memcpy(before, vmt_model_cost, sizeof(before));
#endif
	err = encode_frame(m, recs, n, (uint64_t)unit, false, revision, out);
#ifdef VMT_MODEL_STATS
	memcpy(first, vmt_model_cost, sizeof(first));
#endif
	/*
	 * Walks that passed many pages over before their victim: CLOCK's
	 * second chances, which a walk that moves them to the newest end
	 * follows. FIFO passes over only the pages of the current run (and a
	 * frame's first evictions, of pages it never saw): under 8 an eviction
	 * on make bench's FIFO traces, 14 to 70 on its CLOCK ones.
	 */
	if (!err && m->walk_passes > 8 * (uint64_t)m->nr_evictions) {
		err = encode_frame(m, recs, n, (uint64_t)unit, true, revision, &alt);
		if (!err && alt.size < out->size) {
			struct vmt_buf t = *out;

			*out = alt;
			alt = t;
#ifdef VMT_MODEL_STATS
			/* The second pass's bits only. */
			for (int i = 0; i < VMT_MODEL_FIELDS; i++)
				vmt_model_cost[i] = before[i] + vmt_model_cost[i] - first[i];
		} else {
			memcpy(vmt_model_cost, first, sizeof(first));
#endif
		}
	}
	vmt_buf_free(&alt);
	model_put(m);
	if (err)
		return err;
	if (out->size < size + 1)
		return 0;
stored:
	err = vmt_buf_reserve(out, size + 1);
	if (err)
		return err;
	out->data[0] = MODEL_STORED;
	memcpy(out->data + 1, src, size);
	out->size = size + 1;
	return 0;
}

int vmt_model_decompress(const void *src, size_t size, void *dst, size_t dst_size,
			 bool skip_values)
{
	const uint8_t *in = src;
	struct vmt_record *recs = dst;
	uint32_t n = (uint32_t)(dst_size / sizeof(*recs));
	size_t header = MODEL_HEADER, records_size;
	unsigned int revision;
	uint64_t unit;
	struct model *m;
	int err = 0;

	if (dst_size % sizeof(*recs) || dst_size > VMT_MAX_FRAME_RAW || size < 1)
		return -EBADMSG;
	if (in[0] == MODEL_STORED) {
		if (size != dst_size + 1)
			return -EBADMSG;
		memcpy(dst, in + 1, dst_size);
		return 0;
	}
	revision = in[0] & ~MODEL_REQUEUE;
	if (revision >= MODEL_CODED_4)
		header = MODEL_HEADER_4;
	if (revision < MODEL_CODED || revision > MODEL_CODED_4 || size < header || !n)
		return -EBADMSG;
	unit = vmt_get64(in + 9);
	records_size = revision >= MODEL_CODED_4 ? vmt_get32(in + MODEL_HEADER) : size - header;
	if (!unit || unit > INT64_MAX || records_size > size - header)
		return -EBADMSG;
	m = model_get(n);
	if (!m)
		return -ENOMEM;
	m->decoding = true;
	m->skip_values = skip_values;
	model_start(m, vmt_get64(in + 1), unit, in[0] & MODEL_REQUEUE, revision);
	vmt_rc_decoder_init(&m->dec, in + header, records_size);
	if (revision >= MODEL_CODED_4 && !m->skip_values)
		vmt_rc_decoder_init(&m->value_dec, in + header + records_size,
				    size - header - records_size);
	/* Each record zeroed as it is decoded, while its line is in the cache. */
	for (uint32_t i = 0; i < n && !m->corrupt; i++) {
		memset(&recs[i], 0, sizeof(recs[i]));
		code_record(m, &recs[i]);
	}
	if (m->corrupt || vmt_rc_decoder_consumed(&m->dec) != records_size)
		err = -EBADMSG;
	if (revision >= MODEL_CODED_4 && !m->skip_values &&
	    vmt_rc_decoder_consumed(&m->value_dec) != size - header - records_size)
		err = -EBADMSG;
	model_put(m);
	return err;
}
