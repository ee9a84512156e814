// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The DRAM behaviour of the memory traffic, as HMTT measured it: row-buffer
 * hits, misses and conflicts under an open-page policy, bank-level
 * parallelism, and how often each address bit changes between consecutive
 * accesses, through an address map (vmtrace/analysis.h;
 * docs/analysis/hmtt.md).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"
#include "analysis/analysis_util.h"

/* ---- The address map ---- */

static const char *const field_names[VMT_DRAM_NR_FIELDS] = {
	"ch", "rank", "bg", "bank", "row", "col",
};

/*
 * The presets: JEDEC devices' geometries laid out row : rank : bank group
 * : bank : column from the top, the channel at the 64-byte line (see
 * docs/analysis/hmtt.md for where each comes from).
 */
static const struct {
	const char *name, *summary, *spec;
} presets[] = {
	{ "ddr4-1ch", "DDR4, 1 channel, 2 ranks of 4Gb x8 chips: 8 GiB, 16 banks a rank",
	  "rank=17;bg=13,14;bank=15,16;row=18-32;col=0-12" },
	{ "ddr4-2ch", "DDR4, 2 channels of ddr4-1ch's, lines alternating: 16 GiB",
	  "ch=6;rank=18;bg=14,15;bank=16,17;row=19-33;col=0-5,7-13" },
	{ "ddr5-2ch", "DDR5, a DIMM's two 32-bit subchannels, 1 rank of 16Gb x8 chips: 16 GiB,\n"
		      "32 banks a channel, bank bits XORed with row bits (permutation interleaving)",
	  "ch=6;bg=13-15^18-20;bank=16-17^21-22;row=18-33;col=0-5,7-12" },
};
#define NR_PRESETS (sizeof(presets) / sizeof(presets[0]))

static int map_error(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (err && size) {
		va_start(ap, fmt);
		vsnprintf(err, size, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* A bit's number, 0..63, at *@s, which is moved past it: 0, or -1 (with a message). */
static int parse_bit(const char **s, const char *end, const char *item, unsigned int *bit,
		     char *err, size_t size)
{
	unsigned long v = 0;
	const char *p = *s;

	if (p == end)
		return map_error(err, size, "'%s': a bit number expected", item);
	if (*p < '0' || *p > '9')
		return map_error(err, size, "'%s': a bit number expected at '%c'", item, *p);
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (unsigned long)(*p++ - '0');
		if (v > 1000)
			break;
	}
	if (v > 63)
		return map_error(err, size, "'%s': bit %lu%s past 63", item, v,
				 v > 1000 ? "..." : "");
	*bit = (unsigned int)v;
	*s = p;
	return 0;
}

/*
 * Whether @mask, a new field bit, is the XOR of field bits given before it
 * (their masks reduced to a basis over GF(2), @basis[b] the one whose top
 * bit is b): then two addresses would differ in nothing the map tells
 * apart. Otherwise it joins the basis.
 */
static bool dependent(uint64_t basis[64], uint64_t mask)
{
	for (unsigned int b = 64; b-- > 0;)
		if ((mask >> b & 1) && basis[b])
			mask ^= basis[b];
	if (!mask)
		return true;
	basis[63 - __builtin_clzll(mask)] = mask;
	return false;
}

/* The field holding @mask as a bit of its own, if any. */
static const char *holder(const struct vmt_dram_map *map, uint64_t mask)
{
	for (unsigned int f = 0; f < VMT_DRAM_NR_FIELDS; f++)
		for (unsigned int i = 0; i < map->nr_bits[f]; i++)
			if (map->masks[f][i] == mask)
				return field_names[f];
	return NULL;
}

/*
 * One item of a field's list, "B", "L-H" or terms of those joined by '^'
 * (equally long, XORed bit by bit), from @item up to @end: its bits added
 * to @field's, the lowest first.
 */
static int parse_item(const char *item, const char *end, struct vmt_dram_map *map,
		      enum vmt_dram_field field, uint64_t basis[64], char *err, size_t size)
{
	unsigned int lo[VMT_DRAM_MAX_FIELD_BITS], len = 0, nr_terms = 0, t, k;
	char text[64];
	const char *p;
	int ret;

	snprintf(text, sizeof(text), "%s=%.*s", field_names[field], (int)(end - item), item);
	for (p = item; p <= end; p++) {
		unsigned int a, b;

		if (p == end || *p == '^')
			return map_error(err, size, "'%s': a bit number expected", text);
		ret = parse_bit(&p, end, text, &a, err, size);
		if (ret)
			return ret;
		b = a;
		if (p < end && *p == '-') {
			p++;
			ret = parse_bit(&p, end, text, &b, err, size);
			if (ret)
				return ret;
			if (b < a)
				return map_error(err, size, "'%s': range %u-%u backwards", text,
						 a, b);
		}
		if (p < end && *p != '^')
			return map_error(err, size, "'%s': unexpected '%c'", text, *p);
		if (nr_terms && b - a + 1 != len)
			return map_error(err, size, "'%s': XORed ranges of different lengths",
					 text);
		if (nr_terms == VMT_DRAM_MAX_FIELD_BITS)
			return map_error(err, size, "'%s': too many terms", text);
		len = b - a + 1;
		lo[nr_terms++] = a;
		if (p == end)
			break;
	}
	if (map->nr_bits[field] + len > VMT_DRAM_MAX_FIELD_BITS)
		return map_error(err, size, "'%s': too many bits", text);
	for (k = 0; k < len; k++) {
		uint64_t mask = 0, bit;
		const char *other;

		for (t = 0; t < nr_terms; t++) {
			bit = UINT64_C(1) << (lo[t] + k);
			if (mask & bit)
				return map_error(err, size, "'%s': bit %u XORed with itself", text,
						 lo[t] + k);
			mask |= bit;
		}
		if (dependent(basis, mask)) {
			other = holder(map, mask);
			if (other && nr_terms == 1)
				return map_error(err, size, "'%s': bit %u overlaps, already %s's",
						 text, lo[0] + k, other);
			return map_error(err, size,
					 "'%s': bit %u overlaps: the XOR of field bits given before",
					 text, lo[0] + k);
		}
		map->masks[field][map->nr_bits[field]++] = mask;
	}
	return 0;
}

int vmt_dram_map_parse(const char *spec, struct vmt_dram_map *map, char *err, size_t size)
{
	bool seen[VMT_DRAM_NR_FIELDS] = { false };
	const char *p = spec, *end, *eq, *item;
	uint64_t basis[64] = { 0 };
	unsigned int f, bank_bits = 0;
	int ret;

	memset(map, 0, sizeof(*map));
	if (err && size)
		*err = '\0';
	while (*p) {
		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		if (end == p) {
			p++;
			continue;
		}
		eq = memchr(p, '=', (size_t)(end - p));
		if (!eq)
			return map_error(err, size, "'%.*s': FIELD=BITS expected", (int)(end - p), p);
		for (f = 0; f < VMT_DRAM_NR_FIELDS; f++)
			if (strlen(field_names[f]) == (size_t)(eq - p) &&
			    !strncmp(p, field_names[f], (size_t)(eq - p)))
				break;
		if (f == VMT_DRAM_NR_FIELDS)
			return map_error(err, size,
					 "unknown field '%.*s' (ch, rank, bg, bank, row, col)",
					 (int)(eq - p), p);
		if (seen[f])
			return map_error(err, size, "field '%s' given twice", field_names[f]);
		seen[f] = true;
		for (item = eq + 1;; item++) {
			const char *comma = memchr(item, ',', (size_t)(end - item));
			const char *stop = comma ? comma : end;

			if (stop == item)
				return map_error(err, size, "'%.*s': a bit number expected",
						 (int)(end - p), p);
			ret = parse_item(item, stop, map, f, basis, err, size);
			if (ret)
				return ret;
			item = stop;
			if (item == end)
				break;
		}
		p = *end ? end + 1 : end;
	}
	if (!map->nr_bits[VMT_DRAM_ROW])
		return map_error(err, size, "no row bits (row=...)");
	if (!map->nr_bits[VMT_DRAM_BANK])
		return map_error(err, size, "no bank bits (bank=...)");
	for (f = VMT_DRAM_CHANNEL; f <= VMT_DRAM_BANK; f++)
		bank_bits += map->nr_bits[f];
	if (bank_bits > VMT_DRAM_MAX_BANK_BITS)
		return map_error(err, size, "%u bits select a bank (ch, rank, bg, bank): at most %u",
				 bank_bits, VMT_DRAM_MAX_BANK_BITS);
	return 0;
}

int vmt_dram_map_preset(const char *name, struct vmt_dram_map *map)
{
	for (unsigned int i = 0; i < NR_PRESETS; i++)
		if (!strcmp(name, presets[i].name))
			return vmt_dram_map_parse(presets[i].spec, map, NULL, 0);
	return -ENOENT;
}

const char *vmt_dram_map_preset_name(unsigned int i, const char **summary)
{
	if (i >= NR_PRESETS)
		return NULL;
	if (summary)
		*summary = presets[i].summary;
	return presets[i].name;
}

/* Appends to @buf (of @size, @len used): what snprintf() would, and the length. */
static size_t append(char *buf, size_t size, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(len < size ? buf + len : NULL, len < size ? size - len : 0, fmt, ap);
	va_end(ap);
	return len + (n > 0 ? (size_t)n : 0);
}

/* Bit @i of @f is bit @i - 1's and each of its terms one higher: it extends a range. */
static bool extends(const struct vmt_dram_map *map, enum vmt_dram_field f, unsigned int i)
{
	return i && map->masks[f][i] == map->masks[f][i - 1] << 1 &&
	       !(map->masks[f][i - 1] >> 63);
}

size_t vmt_dram_map_format(const struct vmt_dram_map *map, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int f, i, j, b;

	if (size)
		*buf = '\0';
	for (f = 0; f < VMT_DRAM_NR_FIELDS; f++) {
		if (!map->nr_bits[f])
			continue;
		len = append(buf, size, len, "%s%s=", len ? ";" : "", field_names[f]);
		for (i = 0; i < map->nr_bits[f]; i = j) {
			uint64_t m = map->masks[f][i];
			bool first = true;

			for (j = i + 1; j < map->nr_bits[f] && extends(map, f, j); j++)
				;
			len = append(buf, size, len, "%s", i ? "," : "");
			/* Each term, lowest bit first: "L-H" over the run i..j-1, or "B". */
			for (b = 0; b < 64; b++) {
				if (!(m >> b & 1))
					continue;
				len = append(buf, size, len, "%s%u", first ? "" : "^", b);
				if (j - i > 1)
					len = append(buf, size, len, "-%u", b + (j - i - 1));
				first = false;
			}
		}
	}
	return len;
}

uint64_t vmt_dram_decode(const struct vmt_dram_map *map, enum vmt_dram_field field,
			 uint64_t addr)
{
	uint64_t v = 0;

	if (field >= VMT_DRAM_NR_FIELDS)
		return 0;
	for (unsigned int i = 0; i < map->nr_bits[field]; i++)
		v |= (uint64_t)__builtin_parityll(addr & map->masks[field][i]) << i;
	return v;
}

uint64_t vmt_dram_bank(const struct vmt_dram_map *map, uint64_t addr)
{
	uint64_t id = 0;

	/* Channel highest, bank lowest. */
	for (unsigned int f = VMT_DRAM_CHANNEL; f <= VMT_DRAM_BANK; f++)
		id = id << map->nr_bits[f] | vmt_dram_decode(map, f, addr);
	return id;
}

uint64_t vmt_dram_field_bits(const struct vmt_dram_map *map, enum vmt_dram_field field)
{
	uint64_t bits = 0;

	if (field >= VMT_DRAM_NR_FIELDS)
		return 0;
	for (unsigned int i = 0; i < map->nr_bits[field]; i++)
		bits |= map->masks[field][i];
	return bits;
}

/* ---- The analysis ---- */

/*
 * Each access's bank (its channel, rank, bank group and bank, one number
 * below 2^bank_bits) and row, by the map's masks gathered in order: the
 * bank's, lowest bit first (bank, then bank group, rank, channel), and the
 * row's.
 *
 * Row buffers: the row open in each bank (NO_ROW: none yet); an access to
 * it is a hit, to a bank with none a miss, to another row a conflict (the
 * row is then the open one). Nothing closes a row.
 *
 * Bank-level parallelism: a ring of the last W accesses' banks, with each
 * bank's count in it and the number of banks whose count is not 0
 * (@distinct): each access that fills the ring to W ends a window, whose
 * distinct banks are summed. A stream of fewer than W accesses is one
 * window, at finish(). O(1) an access.
 *
 * Address bits: the previous access's address, XORed with this one's; each
 * set bit counted (flips[bit]).
 */
#define NO_ROW	UINT64_MAX

struct dram {
	struct vmt_analysis analysis;
	struct vmt_ref_options options;
	struct vmt_dram_map map;
	uint64_t bank_masks[VMT_DRAM_MAX_BANK_BITS];
	unsigned int bank_bits;
	uint64_t *open_row;	/* 2^bank_bits */
	uint32_t *in_window;	/* 2^bank_bits */
	uint16_t *ring;		/* W */
	unsigned int len, head, distinct;
	uint64_t prev_addr;
	struct vmt_dram_result result;
};

static struct dram *to_dram(const struct vmt_analysis *a)
{
	return (struct dram *)a;
}

static void dram_access(struct dram *d, uint64_t addr)
{
	struct vmt_dram_result *r = &d->result;
	uint64_t row = vmt_dram_decode(&d->map, VMT_DRAM_ROW, addr), changed;
	unsigned int bank = 0, i, w = r->window;

	for (i = 0; i < d->bank_bits; i++)
		bank |= (unsigned int)__builtin_parityll(addr & d->bank_masks[i]) << i;

	if (d->open_row[bank] == row) {
		r->hits++;
	} else {
		if (d->open_row[bank] == NO_ROW) {
			r->misses++;
			r->banks_touched++;
		} else {
			r->conflicts++;
		}
		d->open_row[bank] = row;
	}

	if (d->len == w) {
		if (!--d->in_window[d->ring[d->head]])
			d->distinct--;
		d->len--;
	}
	if (!d->in_window[bank]++)
		d->distinct++;
	d->ring[d->head] = (uint16_t)bank;
	d->head = d->head + 1 == w ? 0 : d->head + 1;
	if (++d->len == w) {
		r->windows++;
		r->window_banks += d->distinct;
		if (d->distinct > r->max_banks)
			r->max_banks = d->distinct;
	}

	if (r->references) {
		r->pairs++;
		for (changed = addr ^ d->prev_addr; changed; changed &= changed - 1)
			r->flips[__builtin_ctzll(changed)]++;
	}
	d->prev_addr = addr;
	r->references++;
}

static int dram_record(struct vmt_analysis *a, const struct vmt_record *rec)
{
	struct dram *d = to_dram(a);
	struct vmt_ref ref;

	if (!vmt_ref_from_record(rec, &d->options, &ref)) {
		/* Physical: a reference without a frame (an exact access has none), not one out of --addr. */
		if (d->options.space == VMT_REF_PHYSICAL &&
		    (d->options.source == VMT_REF_EXACT ? rec->hdr.type == VMT_REC_EXACT :
		     rec->hdr.type == VMT_REC_REFERENCE && !rec->ref.pfn))
			d->result.no_frame++;
		return 0;
	}
	dram_access(d, ref.addr);
	return 0;
}

static int dram_finish(struct vmt_analysis *a)
{
	struct vmt_dram_result *r = &to_dram(a)->result;

	/* Fewer accesses than a window: they are one. */
	if (r->references && !r->windows) {
		r->windows = 1;
		r->window_banks = r->max_banks = to_dram(a)->distinct;
	}
	return 0;
}

static void dram_destroy(struct vmt_analysis *a)
{
	struct dram *d = to_dram(a);

	free(d->open_row);
	free(d->in_window);
	free(d->ring);
	free(d);
}

static const struct vmt_analysis_ops dram_ops = {
	.name = "dram",
	.reference = vmt_analysis_no_reference,
	.record = dram_record,
	.finish = dram_finish,
	.destroy = dram_destroy,
};

/* Whether @map is one vmt_dram_map_parse() could have made (a caller may build one). */
static bool map_valid(const struct vmt_dram_map *map)
{
	unsigned int f, bank_bits = 0;

	for (f = 0; f < VMT_DRAM_NR_FIELDS; f++) {
		if (map->nr_bits[f] > VMT_DRAM_MAX_FIELD_BITS)
			return false;
		for (unsigned int i = 0; i < map->nr_bits[f]; i++)
			if (!map->masks[f][i])
				return false;
		if (f <= VMT_DRAM_BANK)
			bank_bits += map->nr_bits[f];
	}
	return map->nr_bits[VMT_DRAM_ROW] && map->nr_bits[VMT_DRAM_ROW] < 64 &&
	       map->nr_bits[VMT_DRAM_BANK] && bank_bits <= VMT_DRAM_MAX_BANK_BITS;
}

int vmt_dram_create(struct vmt_analysis **analysis, const struct vmt_ref_options *options,
		    const struct vmt_dram_map *map, unsigned int window)
{
	size_t banks;
	unsigned int f, i, n = 0;
	struct dram *d;

	if (window < VMT_DRAM_MIN_WINDOW || window > VMT_DRAM_MAX_WINDOW ||
	    options->space > VMT_REF_PHYSICAL || options->source > VMT_REF_EXACT ||
	    !map_valid(map))
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->analysis.ops = &dram_ops;
	d->options = *options;
	/* A memory access moves a line, whatever unit the other analyses count in. */
	d->options.unit = VMT_REF_LINE;
	d->map = *map;
	for (f = VMT_DRAM_BANK + 1; f-- > VMT_DRAM_CHANNEL;)
		for (i = 0; i < map->nr_bits[f]; i++)
			d->bank_masks[n++] = map->masks[f][i];
	d->bank_bits = n;
	banks = (size_t)1 << n;
	d->open_row = malloc(banks * sizeof(*d->open_row));
	d->in_window = calloc(banks, sizeof(*d->in_window));
	d->ring = calloc(window, sizeof(*d->ring));
	if (!d->open_row || !d->in_window || !d->ring) {
		dram_destroy(&d->analysis);
		return -ENOMEM;
	}
	for (size_t b = 0; b < banks; b++)
		d->open_row[b] = NO_ROW;
	d->result.banks = banks;
	d->result.window = window;
	*analysis = &d->analysis;
	return 0;
}

const struct vmt_dram_result *vmt_dram_result(const struct vmt_analysis *analysis)
{
	return &to_dram(analysis)->result;
}

double vmt_dram_hit_rate(const struct vmt_analysis *analysis)
{
	const struct vmt_dram_result *r = &to_dram(analysis)->result;

	return r->references ? 100.0 * (double)r->hits / (double)r->references : 0.0;
}

double vmt_dram_blp(const struct vmt_analysis *analysis)
{
	const struct vmt_dram_result *r = &to_dram(analysis)->result;

	return r->windows ? (double)r->window_banks / (double)r->windows : 0.0;
}
