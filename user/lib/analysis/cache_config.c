// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The cache simulator's configurations (vmtrace/cachesim.h): the check every
 * hierarchy passes, the --cache and --tlb spec strings, the config file
 * (docs/analysis/cachesim.md, "The config file") and the presets. Nothing
 * here simulates; the engine (cachesim.c) takes the hierarchies these make.
 *
 * A message names the cache or TLB first and the numbers at fault
 * ("L1: line 96 is not a power of two"); the config parser puts the line
 * number before it ("line 7: ..."): the key's line for a bad value, the
 * block's for a cache or TLB as a whole (a set count of 0), the offending
 * block's for the levels of a hierarchy (a gap, a private level outside a
 * shared one).
 *
 * Outline, in order (about 1,100 lines, in five parts):
 *   - messages (say() a reason, fail() into the caller's error) and the
 *     words of each setting, in their enums' order (policy_names...);
 *   - the checks: cache_ok() and tlb_ok() one level alone (geometry, enum
 *     values, plru's ways), check() the hierarchy (the name, levels from 1
 *     without a gap, one cache a level but an instruction and data pair at
 *     level 1, no private level outside a shared one, names unique), which
 *     also says which cache or TLB was at fault (struct culprit), for the
 *     config file's line numbers; vmt_hierarchy_check() is check();
 *   - numbers and names (parse_size(), parse_assoc()...), then the spec
 *     strings: split_spec() takes "NAME=F1:F2[:F3[:F4]]" apart, and
 *     vmt_hierarchy_add_cache_spec() / _add_tlb_spec() add one level outward;
 *   - the config file: a struct parser reads a line at a time
 *     (parse_line()): hierarchy and block lines begin_hierarchy() and
 *     begin_block(), KEY VALUE lines set_key(); end_block() applies a
 *     block's defaults and checks it alone, end_hierarchy() checks the whole
 *     and each `next`;
 *   - the presets: the tables (psnap_levels, and a build function each),
 *     vmt_hierarchy_preset() and vmt_hierarchy_preset_name().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vmtrace/cachesim.h"
#include "vmtrace/trace.h"

#define WHY_MAX		160	/* a reason, before a name or line number goes in front */
#define CONFIG_LINE_MAX	1024	/* characters a config line, its newline apart */
#define SHOWN		40	/* characters of a bad value a message shows */
#define NAME_RULE	"1 to 15 of A-Z a-z 0-9 _ -"
#define SIZE_RULE	"a number of bytes, with k, M or G"

/* ---- Messages and words ---- */

struct why {
	char text[WHY_MAX];
};

static bool say(struct why *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool say(struct why *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why->text, sizeof(why->text), fmt, ap);
	va_end(ap);
	return false;
}

static int fail(struct vmt_trace_error *err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct vmt_trace_error *err, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* Each list in its enum's order. */
static const char *const policy_names[VMT_CACHE_POLICIES] = { "lru", "fifo", "random", "plru", "srrip" };
static const char *const kind_names[] = { "unified", "data", "instruction" };
static const char *const sharing_names[] = { "private", "shared" };
static const char *const inclusion_names[] = { "non-inclusive", "inclusive", "exclusive" };
static const char *const write_names[] = { "back", "through" };
static const char *const prefetch_names[] = { "none", "next-line" };
#define NR(a)	(sizeof(a) / sizeof((a)[0]))

/* The index of @word among @names, or -EINVAL. */
static int word_index(const char *const *names, unsigned int nr, const char *word)
{
	for (unsigned int i = 0; i < nr; i++)
		if (!strcmp(names[i], word))
			return (int)i;
	return -EINVAL;
}

/* "a, b, c" into @buf: the choices a message lists. */
static const char *word_list(char *buf, size_t size, const char *const *names, unsigned int nr,
			     uint32_t mask)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < nr && used < size; i++)
		if (mask & 1u << i)
			used += snprintf(buf + used, size - used, "%s%s", used ? ", " : "", names[i]);
	return buf;
}

const char *vmt_cache_policy_name(unsigned int policy)
{
	return policy < VMT_CACHE_POLICIES ? policy_names[policy] : NULL;
}

int vmt_cache_policy_from_name(const char *name)
{
	return name ? word_index(policy_names, VMT_CACHE_POLICIES, name) : -EINVAL;
}

/* ---- The checks ---- */

static bool power_of_two(uint64_t x)
{
	return x && !(x & (x - 1));
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* @len characters of @name: a cache's or TLB's name? */
static bool name_ok(const char *name, size_t len)
{
	if (!len || len >= VMT_CACHE_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!name_char(name[i]))
			return false;
	return true;
}

static bool stored_name_ok(const char name[VMT_CACHE_NAME_MAX])
{
	return name_ok(name, strnlen(name, VMT_CACHE_NAME_MAX));
}

/* Every setting of one cache alone; the reason in @why (without its name). */
static bool cache_ok(const struct vmt_cache_config *c, struct why *why)
{
	uint64_t ways, set_bytes;

	if (c->level < 1 || c->level > VMT_CACHE_MAX_LEVELS)
		return say(why, "level %u is not 1 to %u", c->level, VMT_CACHE_MAX_LEVELS);
	if (c->kind >= NR(kind_names))
		return say(why, "unknown kind %u", c->kind);
	if (c->policy >= VMT_CACHE_POLICIES)
		return say(why, "unknown policy %u", c->policy);
	if (c->inclusion >= NR(inclusion_names))
		return say(why, "unknown inclusion %u", c->inclusion);
	if (c->write >= NR(write_names))
		return say(why, "unknown write policy %u", c->write);
	if (!power_of_two(c->line))
		return say(why, "line %u is not a power of two", c->line);
	/* With more ways than one, "a set count of 0" says more. */
	if (c->line > c->size && c->assoc <= 1)
		return say(why, "line %u larger than the cache (%" PRIu64 " bytes)", c->line, c->size);
	ways = c->assoc ? c->assoc : c->size / c->line;
	set_bytes = ways * c->line;
	if (c->size < set_bytes)
		return say(why, "a set count of 0 (%" PRIu64 " bytes < one set of %" PRIu64 " x %u bytes)",
			   c->size, ways, c->line);
	if (c->size % set_bytes) {
		if (!c->assoc)
			return say(why, "%" PRIu64 " bytes is not a whole number of lines of %u bytes",
				   c->size, c->line);
		return say(why, "%" PRIu64 " bytes is not a whole number of sets of %u way%s of %u bytes",
			   c->size, c->assoc, c->assoc == 1 ? "" : "s", c->line);
	}
	if (c->size / c->line > UINT32_MAX)
		return say(why, "%" PRIu64 " lines, more than the %" PRIu32 " simulated at most",
			   c->size / c->line, UINT32_MAX);
	if (c->policy == VMT_CACHE_PLRU && !power_of_two(ways))
		return say(why, "plru needs a power-of-two number of ways, not %" PRIu64, ways);
	if (c->level == 1 && c->inclusion != VMT_CACHE_NON_INCLUSIVE)
		return say(why, "%s at level 1, with no level inside it", inclusion_names[c->inclusion]);
	if (c->level > 1 && c->kind != VMT_CACHE_UNIFIED)
		return say(why, "%s cache at level %u: only level 1 splits into instruction and data",
			   kind_names[c->kind], c->level);
	return true;
}

static bool tlb_ok(const struct vmt_tlb_config *t, struct why *why)
{
	uint32_t ways = t->assoc ? t->assoc : t->entries;

	if (t->level < 1 || t->level > VMT_CACHE_MAX_LEVELS)
		return say(why, "level %u is not 1 to %u", t->level, VMT_CACHE_MAX_LEVELS);
	if (t->policy >= VMT_CACHE_POLICIES)
		return say(why, "unknown policy %u", t->policy);
	if (!t->entries)
		return say(why, "no entries");
	if (t->entries < ways)
		return say(why, "a set count of 0 (%u entries < one set of %u ways)", t->entries, ways);
	if (t->entries % ways)
		return say(why, "%u entries is not a whole number of sets of %u ways", t->entries, ways);
	if (t->policy == VMT_CACHE_PLRU && !power_of_two(ways))
		return say(why, "plru needs a power-of-two number of ways, not %u", ways);
	return true;
}

/* Which cache or TLB a hierarchy's error is about (-1: neither), for the config file's line. */
struct culprit {
	int cache, tlb;
};

/* A level after the one before it (@p_name NULL for the first): from 1, outward, without a gap. */
static int check_step(const char *what, const char *name, unsigned int level, const char *p_name,
		      unsigned int p_level, struct vmt_trace_error *err)
{
	if (!p_name)
		return level == 1 ? 0 : fail(err, -EINVAL, "no level 1 inside %s", name);
	if (level < p_level)
		return fail(err, -EINVAL, "%s: level %u after %s's %u (%s go from the core outward)", name, level,
			    p_name, p_level, what);
	if (level > p_level + 1)
		return fail(err, -EINVAL, "no level %u between %s and %s", p_level + 1, p_name, name);
	return 0;
}

/* The first cache: unified, or an instruction or data one with its other half beside it. */
static int check_level1_alone(const struct vmt_hierarchy_config *h, struct vmt_trace_error *err)
{
	const struct vmt_cache_config *c = &h->caches[0];

	if (c->kind != VMT_CACHE_UNIFIED && (h->nr_caches == 1 || h->caches[1].level != 1))
		return fail(err, -EINVAL, "%s: %s cache at level 1 with no %s one beside it", c->name,
			    kind_names[c->kind],
			    kind_names[c->kind == VMT_CACHE_DATA ? VMT_CACHE_INSTRUCTION : VMT_CACHE_DATA]);
	return 0;
}

/* The level rules of the caches, from the core outward. */
static int check_cache_levels(const struct vmt_hierarchy_config *h, struct vmt_trace_error *err,
			      struct culprit *at)
{
	const struct vmt_cache_config *c, *p;
	struct why why;
	int ret;

	for (unsigned int i = 0; i < h->nr_caches; i++) {
		c = &h->caches[i];
		at->cache = (int)i;
		if (!stored_name_ok(c->name))
			return fail(err, -EINVAL, "cache %u: a name is %s", i, NAME_RULE);
		if (!cache_ok(c, &why))
			return fail(err, -EINVAL, "%s: %s", c->name, why.text);
		p = i ? &h->caches[i - 1] : NULL;
		ret = check_step("caches", c->name, c->level, p ? p->name : NULL, p ? p->level : 0, err);
		if (ret)
			return ret;
		if (!p)
			continue;
		if (c->level == p->level) {
			if (c->level > 1)
				return fail(err, -EINVAL, "two caches at level %u (%s, %s)", c->level, p->name, c->name);
			if (i > 1)
				return fail(err, -EINVAL, "%s: a third cache at level 1", c->name);
			if (c->kind == VMT_CACHE_UNIFIED || p->kind == VMT_CACHE_UNIFIED || c->kind == p->kind)
				return fail(err, -EINVAL,
					    "two caches at level 1 (%s, %s): only an instruction and a data one can share it",
					    p->name, c->name);
			if (c->shared != p->shared)
				return fail(err, -EINVAL, "%s and %s: one private and one shared (a pair is alike)",
					    p->name, c->name);
		}
		/* Every level outward of a shared one is shared, by this test on each pair in turn. */
		if (p->shared && !c->shared)
			return fail(err, -EINVAL, "%s: private, outside the shared %s", c->name, p->name);
	}
	at->cache = 0;
	return check_level1_alone(h, err);
}

static int check_tlb_levels(const struct vmt_hierarchy_config *h, struct vmt_trace_error *err,
			    struct culprit *at)
{
	const struct vmt_tlb_config *t, *p;
	struct why why;
	int ret;

	for (unsigned int i = 0; i < h->nr_tlbs; i++) {
		t = &h->tlbs[i];
		at->tlb = (int)i;
		if (!stored_name_ok(t->name))
			return fail(err, -EINVAL, "TLB %u: a name is %s", i, NAME_RULE);
		if (!tlb_ok(t, &why))
			return fail(err, -EINVAL, "%s: %s", t->name, why.text);
		p = i ? &h->tlbs[i - 1] : NULL;
		if (p && t->level == p->level)
			return fail(err, -EINVAL, "two TLBs at level %u (%s, %s)", t->level, p->name, t->name);
		ret = check_step("TLBs", t->name, t->level, p ? p->name : NULL, p ? p->level : 0, err);
		if (ret)
			return ret;
	}
	return 0;
}

/* The name of the @i-th cache, then TLB, of @h. */
static const char *level_name(const struct vmt_hierarchy_config *h, unsigned int i)
{
	return i < h->nr_caches ? h->caches[i].name : h->tlbs[i - h->nr_caches].name;
}

static int check(const struct vmt_hierarchy_config *h, struct vmt_trace_error *err, struct culprit *at)
{
	size_t len;
	int ret;

	at->cache = at->tlb = -1;
	if (!h)
		return fail(err, -EINVAL, "no hierarchy");
	len = strnlen(h->name, VMT_HIERARCHY_NAME_MAX);
	if (!len)
		return fail(err, -EINVAL, "a hierarchy with no name");
	if (len == VMT_HIERARCHY_NAME_MAX)
		return fail(err, -EINVAL, "a hierarchy name of more than %u characters",
			    VMT_HIERARCHY_NAME_MAX - 1);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)h->name[i] < ' ' || h->name[i] == 0x7f)
			return fail(err, -EINVAL, "a control character in a hierarchy name");
	if (h->nr_caches > VMT_CACHES_MAX)
		return fail(err, -EINVAL, "%u caches, more than %u", h->nr_caches, VMT_CACHES_MAX);
	if (h->nr_tlbs > VMT_TLBS_MAX)
		return fail(err, -EINVAL, "%u TLBs, more than %u", h->nr_tlbs, VMT_TLBS_MAX);
	if (!h->nr_caches)
		return fail(err, -EINVAL, "hierarchy %s has no cache", h->name);
	ret = check_cache_levels(h, err, at);
	if (ret)
		return ret;
	at->cache = -1;
	ret = check_tlb_levels(h, err, at);
	if (ret)
		return ret;
	for (unsigned int i = 1; i < h->nr_caches + h->nr_tlbs; i++)
		for (unsigned int j = 0; j < i; j++)
			if (!strcmp(level_name(h, i), level_name(h, j))) {
				at->cache = i < h->nr_caches ? (int)i : -1;
				at->tlb = i < h->nr_caches ? -1 : (int)(i - h->nr_caches);
				return fail(err, -EINVAL, "two levels named %s", level_name(h, i));
			}
	at->tlb = -1;
	return 0;
}

int vmt_hierarchy_check(const struct vmt_hierarchy_config *h, struct vmt_trace_error *err)
{
	struct culprit at;

	return check(h, err, &at);
}

/* ---- Numbers and names ---- */

/* @len decimal digits, at least one, that fit. */
static bool parse_number(const char *s, size_t len, uint64_t *v)
{
	*v = 0;
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || *v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return false;
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	}
	return true;
}

/* A number from 1 to UINT32_MAX (a TLB's entries, a level, ways). */
static bool parse_u32(const char *s, size_t len, uint32_t *out)
{
	uint64_t v;

	if (!parse_number(s, len, &v) || !v || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* A number of bytes, with k/K, m/M or g/G for 1024, 1024^2, 1024^3. */
static bool parse_size(const char *s, size_t len, uint64_t *v)
{
	static const char units[] = "kmg";
	const char *unit = len > 1 ? memchr(units, s[len - 1] | 0x20, sizeof(units) - 1) : NULL;
	unsigned int shift = unit ? 10 * (unsigned int)(unit - units + 1) : 0;

	if (!parse_number(s, unit ? len - 1 : len, v) || *v > UINT64_MAX >> shift)
		return false;
	*v <<= shift;
	return true;
}

/* Ways, or "full" (0). */
static bool parse_assoc(const char *s, size_t len, uint32_t *assoc)
{
	if (len == 4 && !memcmp(s, "full", 4)) {
		*assoc = 0;
		return true;
	}
	return parse_u32(s, len, assoc);
}

static int parse_policy(const char *s, size_t len)
{
	char word[16];

	if (len >= sizeof(word))
		return -EINVAL;
	memcpy(word, s, len);
	word[len] = '\0';
	return vmt_cache_policy_from_name(word);
}

/* Settings every cache starts with (docs/analysis/cachesim.md's defaults). */
static void cache_defaults(struct vmt_cache_config *c, uint8_t level)
{
	memset(c, 0, sizeof(*c));
	c->level = level;
	c->kind = VMT_CACHE_UNIFIED;
	c->policy = VMT_CACHE_LRU;
	c->inclusion = VMT_CACHE_NON_INCLUSIVE;
	c->write = VMT_CACHE_WRITE_BACK;
	c->shared = level > 2;
}

/* ---- The spec strings ---- */

/* "NAME=F1:F2[:...]", taken apart: the name and the fields (not NUL-terminated). */
struct spec {
	char name[VMT_CACHE_NAME_MAX];
	const char *field[4];
	size_t len[4];
	unsigned int nr;
};

static int split_spec(const char *text, struct spec *s, unsigned int min, unsigned int max,
		      const char *form, struct vmt_trace_error *err)
{
	const char *eq, *f;

	memset(s, 0, sizeof(*s));
	if (!text)
		return fail(err, -EINVAL, "no spec (%s)", form);
	eq = strchr(text, '=');
	if (!eq)
		return fail(err, -EINVAL, "'%.*s': no '=' (%s)", SHOWN, text, form);
	if (!name_ok(text, (size_t)(eq - text)))
		return fail(err, -EINVAL, "bad name '%.*s' (%s)", (int)(eq - text < SHOWN ? eq - text : SHOWN),
			    text, NAME_RULE);
	memcpy(s->name, text, (size_t)(eq - text));
	for (f = eq + 1;; f++) {
		s->field[s->nr] = f;
		s->len[s->nr] = strcspn(f, ":");
		f += s->len[s->nr++];
		if (!*f || s->nr == max)
			break;
	}
	if (*f)
		return fail(err, -EINVAL, "%s: junk after the %u fields of %s: '%.*s'", s->name, max, form,
			    SHOWN, f);
	if (s->nr < min)
		return fail(err, -EINVAL, "%s: '%.*s' is not %s", s->name, SHOWN, eq + 1, form);
	return 0;
}

/* The policy in field @i, if given. */
static int spec_policy(const struct spec *s, unsigned int i, uint8_t *policy, struct vmt_trace_error *err)
{
	char list[64];
	int p;

	if (s->nr <= i)
		return 0;
	p = parse_policy(s->field[i], s->len[i]);
	if (p < 0)
		return fail(err, -EINVAL, "%s: unknown policy '%.*s' (%s)", s->name,
			    (int)(s->len[i] < SHOWN ? s->len[i] : SHOWN), s->field[i],
			    word_list(list, sizeof(list), policy_names, VMT_CACHE_POLICIES, ~0u));
	*policy = (uint8_t)p;
	return 0;
}

#define FIELD(s, i)	(int)((s)->len[i] < SHOWN ? (s)->len[i] : SHOWN), (s)->field[i]

/* Is @name free in @h? */
static int name_free(const struct vmt_hierarchy_config *h, const char *name, struct vmt_trace_error *err)
{
	if (h->nr_caches > VMT_CACHES_MAX || h->nr_tlbs > VMT_TLBS_MAX)
		return fail(err, -EINVAL, "%s: added to a hierarchy of %u caches and %u TLBs, more than %u and %u",
			    name, h->nr_caches, h->nr_tlbs, VMT_CACHES_MAX, VMT_TLBS_MAX);
	for (unsigned int i = 0; i < h->nr_caches + h->nr_tlbs; i++)
		if (!strcmp(level_name(h, i), name))
			return fail(err, -EINVAL, "%s: a second level named %s", name, name);
	return 0;
}

int vmt_hierarchy_add_cache_spec(struct vmt_hierarchy_config *h, const char *text,
				 struct vmt_trace_error *err)
{
	struct vmt_cache_config c;
	struct why why;
	struct spec s;
	uint64_t line;
	int ret;

	if (!h)
		return fail(err, -EINVAL, "no hierarchy");
	ret = split_spec(text, &s, 3, 4, "NAME=SIZE:ASSOC:LINE[:POLICY]", err);
	if (ret)
		return ret;
	if (h->nr_caches >= VMT_CACHES_MAX)
		return fail(err, -EINVAL, "%s: no room for more than %u caches", s.name, VMT_CACHES_MAX);
	cache_defaults(&c, h->nr_caches ? h->caches[h->nr_caches - 1].level + 1 : 1);
	memcpy(c.name, s.name, sizeof(c.name));
	if (!parse_size(s.field[0], s.len[0], &c.size))
		return fail(err, -EINVAL, "%s: bad size '%.*s' (%s)", s.name, FIELD(&s, 0), SIZE_RULE);
	if (!parse_assoc(s.field[1], s.len[1], &c.assoc))
		return fail(err, -EINVAL, "%s: bad associativity '%.*s' (a number of ways, or full)", s.name,
			    FIELD(&s, 1));
	if (!parse_number(s.field[2], s.len[2], &line) || line > UINT32_MAX)
		return fail(err, -EINVAL, "%s: bad line '%.*s' (a number of bytes)", s.name, FIELD(&s, 2));
	c.line = (uint32_t)line;
	ret = spec_policy(&s, 3, &c.policy, err);
	if (ret)
		return ret;
	if (!cache_ok(&c, &why))
		return fail(err, -EINVAL, "%s: %s", c.name, why.text);
	ret = name_free(h, c.name, err);
	if (ret)
		return ret;
	h->caches[h->nr_caches++] = c;
	return 0;
}

int vmt_hierarchy_add_tlb_spec(struct vmt_hierarchy_config *h, const char *text,
			       struct vmt_trace_error *err)
{
	struct vmt_tlb_config t = { .policy = VMT_CACHE_LRU };
	struct why why;
	struct spec s;
	int ret;

	if (!h)
		return fail(err, -EINVAL, "no hierarchy");
	ret = split_spec(text, &s, 2, 3, "NAME=ENTRIES:ASSOC[:POLICY]", err);
	if (ret)
		return ret;
	if (h->nr_tlbs >= VMT_TLBS_MAX)
		return fail(err, -EINVAL, "%s: no room for more than %u TLBs", s.name, VMT_TLBS_MAX);
	t.level = h->nr_tlbs ? h->tlbs[h->nr_tlbs - 1].level + 1 : 1;
	memcpy(t.name, s.name, sizeof(t.name));
	if (!parse_u32(s.field[0], s.len[0], &t.entries))
		return fail(err, -EINVAL, "%s: bad entries '%.*s' (a number, 1 or more)", s.name, FIELD(&s, 0));
	if (!parse_assoc(s.field[1], s.len[1], &t.assoc))
		return fail(err, -EINVAL, "%s: bad associativity '%.*s' (a number of ways, or full)", s.name,
			    FIELD(&s, 1));
	ret = spec_policy(&s, 2, &t.policy, err);
	if (ret)
		return ret;
	if (!tlb_ok(&t, &why))
		return fail(err, -EINVAL, "%s: %s", t.name, why.text);
	ret = name_free(h, t.name, err);
	if (ret)
		return ret;
	h->tlbs[h->nr_tlbs++] = t;
	return 0;
}

/* ---- The config file ---- */

enum key {
	K_SIZE, K_ASSOC, K_LINE, K_POLICY, K_KIND, K_SHARING, K_INCLUSION, K_WRITE, K_PREFETCH,
	K_LEVEL, K_NEXT, K_ENTRIES, NR_KEYS
};
static const char *const key_names[NR_KEYS] = {
	"size", "assoc", "line", "policy", "kind", "sharing", "inclusion", "write", "prefetch",
	"level", "next", "entries",
};
#define BIT(k)		(1u << (k))
#define CACHE_KEYS	(BIT(K_ENTRIES) - 1)
#define TLB_KEYS	(BIT(K_ENTRIES) | BIT(K_ASSOC) | BIT(K_POLICY) | BIT(K_LEVEL))
#define CACHE_REQUIRED	(BIT(K_SIZE) | BIT(K_ASSOC) | BIT(K_LINE))
#define TLB_REQUIRED	(BIT(K_ENTRIES) | BIT(K_ASSOC))

/* The keys whose value is one of a list of words. */
static const struct choice {
	enum key key;
	const char *const *names;
	unsigned int nr;
} choices[] = {
	{ K_POLICY, policy_names, VMT_CACHE_POLICIES },
	{ K_KIND, kind_names, NR(kind_names) },
	{ K_SHARING, sharing_names, NR(sharing_names) },
	{ K_INCLUSION, inclusion_names, NR(inclusion_names) },
	{ K_WRITE, write_names, NR(write_names) },
	{ K_PREFETCH, prefetch_names, NR(prefetch_names) },
};

enum block { NO_BLOCK, CACHE_BLOCK, TLB_BLOCK };
static const char *const block_names[] = { "", "cache", "tlb" };

struct parser {
	struct vmt_hierarchy_config *hs;	/* the array given; hs[nr - 1] is being read */
	unsigned int max, nr;
	struct vmt_trace_error *err;
	unsigned int line;			/* the line being read, from 1 */
	bool open;				/* hs[nr - 1] not yet checked */
	/* Where the parts of the hierarchy being read are, for its messages. */
	unsigned int hierarchy_line, cache_lines[VMT_CACHES_MAX], tlb_lines[VMT_TLBS_MAX];
	char next[VMT_CACHES_MAX][VMT_CACHE_NAME_MAX];	/* each cache's `next`, "" for none */
	unsigned int next_lines[VMT_CACHES_MAX];
	/* The block being read. */
	enum block block;
	unsigned int block_line;
	unsigned int key_lines[NR_KEYS];	/* where each key was given; 0: not */
	struct vmt_cache_config cache;
	struct vmt_tlb_config tlb;
	char block_next[VMT_CACHE_NAME_MAX];
};

static int parse_error(struct parser *p, unsigned int line, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int parse_error(struct parser *p, unsigned int line, int ret, const char *fmt, ...)
{
	char why[sizeof(p->err->message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return fail(p->err, ret, "line %u: %.240s", line, why);
}

static const char *block_name(const struct parser *p)
{
	return p->block == CACHE_BLOCK ? p->cache.name : p->tlb.name;
}

/* The block read is complete: its defaults, its check, and into the hierarchy. */
static int end_block(struct parser *p)
{
	uint32_t required = p->block == CACHE_BLOCK ? CACHE_REQUIRED : TLB_REQUIRED;
	const struct vmt_cache_config *prev;
	struct vmt_hierarchy_config *h;
	struct why why;

	if (p->block == NO_BLOCK)
		return 0;
	h = &p->hs[p->nr - 1];
	for (unsigned int k = 0; k < NR_KEYS; k++)
		if (required & BIT(k) && !p->key_lines[k])
			return parse_error(p, p->block_line, -EINVAL, "%s %s has no %s", block_names[p->block],
					   block_name(p), key_names[k]);
	if (p->block == TLB_BLOCK) {
		if (!p->key_lines[K_LEVEL])
			p->tlb.level = h->nr_tlbs ? h->tlbs[h->nr_tlbs - 1].level + 1 : 1;
		if (!tlb_ok(&p->tlb, &why))
			return parse_error(p, p->block_line, -EINVAL, "%s: %s", p->tlb.name, why.text);
		p->tlb_lines[h->nr_tlbs] = p->block_line;
		h->tlbs[h->nr_tlbs++] = p->tlb;
		p->block = NO_BLOCK;
		return 0;
	}
	prev = h->nr_caches ? &h->caches[h->nr_caches - 1] : NULL;
	/* One more than the block before's, but an instruction and data pair shares level 1. */
	if (!p->key_lines[K_LEVEL])
		p->cache.level = !prev ? 1 : prev->level + 1;
	if (!p->key_lines[K_LEVEL] && h->nr_caches == 1 && prev->level == 1 &&
	    prev->kind != VMT_CACHE_UNIFIED && p->cache.kind != VMT_CACHE_UNIFIED && prev->kind != p->cache.kind)
		p->cache.level = 1;
	if (!p->key_lines[K_SHARING])
		p->cache.shared = p->cache.level > 2;
	if (!cache_ok(&p->cache, &why))
		return parse_error(p, p->block_line, -EINVAL, "%s: %s", p->cache.name, why.text);
	p->cache_lines[h->nr_caches] = p->block_line;
	p->next_lines[h->nr_caches] = p->key_lines[K_NEXT];
	memcpy(p->next[h->nr_caches], p->block_next, VMT_CACHE_NAME_MAX);
	h->caches[h->nr_caches++] = p->cache;
	p->block = NO_BLOCK;
	return 0;
}

/* The hierarchy read is complete: checked, and each `next` against the levels. */
static int end_hierarchy(struct parser *p)
{
	struct vmt_hierarchy_config *h;
	struct vmt_trace_error e;
	struct culprit at;
	unsigned int line;
	int ret;

	if (!p->open)
		return 0;
	h = &p->hs[p->nr - 1];
	ret = end_block(p);
	if (ret)
		return ret;
	p->open = false;
	if (check(h, &e, &at)) {
		line = at.cache >= 0 ? p->cache_lines[at.cache] :
		       at.tlb >= 0 ? p->tlb_lines[at.tlb] : p->hierarchy_line;
		return parse_error(p, line, -EINVAL, "%s", e.message);
	}
	for (unsigned int i = 0; i < h->nr_caches; i++) {
		const struct vmt_cache_config *outer = NULL;

		if (!p->next_lines[i])
			continue;
		for (unsigned int j = i + 1; j < h->nr_caches && !outer; j++)
			if (h->caches[j].level == h->caches[i].level + 1)
				outer = &h->caches[j];
		if (!outer)
			return parse_error(p, p->next_lines[i], -EINVAL, "next %s, but %s is the last level",
					   p->next[i], h->caches[i].name);
		if (strcmp(outer->name, p->next[i]))
			return parse_error(p, p->next_lines[i], -EINVAL, "next %s, but the level after %s is %s",
					   p->next[i], h->caches[i].name, outer->name);
	}
	return 0;
}

static bool hierarchy_name_ok(const char *name)
{
	size_t len = strlen(name);

	if (!len || len >= VMT_HIERARCHY_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!name_char(name[i]) && name[i] != '.' && name[i] != '+')
			return false;
	return true;
}

static int begin_hierarchy(struct parser *p, const char *name)
{
	struct vmt_hierarchy_config *h;
	int ret = end_hierarchy(p);

	if (ret)
		return ret;
	if (!hierarchy_name_ok(name))
		return parse_error(p, p->line, -EINVAL, "bad hierarchy name '%.*s' (1 to %u of A-Z a-z 0-9 _ - . +)",
				   SHOWN, name, VMT_HIERARCHY_NAME_MAX - 1);
	for (unsigned int i = 0; i < p->nr; i++)
		if (!strcmp(p->hs[i].name, name))
			return parse_error(p, p->line, -EINVAL, "a second hierarchy named %s", name);
	if (p->nr >= p->max)
		return parse_error(p, p->line, -ENOSPC, "hierarchy %s: room for %u hierarchies only", name, p->max);
	h = &p->hs[p->nr++];
	memset(h, 0, sizeof(*h));
	memcpy(h->name, name, strlen(name) + 1);
	p->open = true;
	p->hierarchy_line = p->line;
	return 0;
}

static int begin_block(struct parser *p, enum block block, const char *name)
{
	struct vmt_hierarchy_config *h;
	int ret;

	/* A first block before any hierarchy line starts one; the command may rename it. */
	ret = p->open ? end_block(p) : begin_hierarchy(p, "config");
	if (ret)
		return ret;
	h = &p->hs[p->nr - 1];
	if (!name_ok(name, strlen(name)))
		return parse_error(p, p->line, -EINVAL, "bad name '%.*s' (%s)", SHOWN, name, NAME_RULE);
	if (block == CACHE_BLOCK && h->nr_caches >= VMT_CACHES_MAX)
		return parse_error(p, p->line, -EINVAL, "more than %u caches in hierarchy %s", VMT_CACHES_MAX,
				   h->name);
	if (block == TLB_BLOCK && h->nr_tlbs >= VMT_TLBS_MAX)
		return parse_error(p, p->line, -EINVAL, "more than %u TLBs in hierarchy %s", VMT_TLBS_MAX,
				   h->name);
	p->block = block;
	p->block_line = p->line;
	memset(p->key_lines, 0, sizeof(p->key_lines));
	memset(p->block_next, 0, sizeof(p->block_next));
	cache_defaults(&p->cache, 0);
	memset(&p->tlb, 0, sizeof(p->tlb));
	memcpy(block == CACHE_BLOCK ? p->cache.name : p->tlb.name, name, strlen(name) + 1);
	return 0;
}

/* One KEY VALUE line of the block being read. */
static int set_key(struct parser *p, const char *key, const char *value)
{
	uint32_t keys = p->block == CACHE_BLOCK ? CACHE_KEYS : TLB_KEYS;
	char list[128];
	uint64_t v;
	uint32_t u;
	int k, i;

	if (p->block == NO_BLOCK)
		return parse_error(p, p->line, -EINVAL, "'%.*s' outside a block (hierarchy, cache or tlb first)",
				   SHOWN, key);
	k = word_index(key_names, NR_KEYS, key);
	if (k < 0 || !(keys & BIT(k)))
		return parse_error(p, p->line, -EINVAL, "unknown key '%.*s' in %s %s (%s)", SHOWN, key,
				   block_names[p->block], block_name(p),
				   word_list(list, sizeof(list), key_names, NR_KEYS, keys));
	if (p->key_lines[k])
		return parse_error(p, p->line, -EINVAL, "%s given twice in %s %s (first on line %u)", key,
				   block_names[p->block], block_name(p), p->key_lines[k]);
	if (!value)
		return parse_error(p, p->line, -EINVAL, "%s needs a value", key);
	p->key_lines[k] = p->line;
	for (i = 0; i < (int)NR(choices); i++) {
		const struct choice *c = &choices[i];
		int w = word_index(c->names, c->nr, value);

		if (c->key != (enum key)k)
			continue;
		if (w < 0)
			return parse_error(p, p->line, -EINVAL, "unknown %s '%.*s' (%s)", key, SHOWN, value,
					   word_list(list, sizeof(list), c->names, c->nr, ~0u));
		if (k == K_POLICY && p->block == TLB_BLOCK)
			p->tlb.policy = (uint8_t)w;
		else if (k == K_POLICY)
			p->cache.policy = (uint8_t)w;
		else if (k == K_KIND)
			p->cache.kind = (uint8_t)w;
		else if (k == K_SHARING)
			p->cache.shared = w;
		else if (k == K_INCLUSION)
			p->cache.inclusion = (uint8_t)w;
		else if (k == K_WRITE)
			p->cache.write = (uint8_t)w;
		else
			p->cache.prefetch = w;
		return 0;
	}
	switch (k) {
	case K_SIZE:
		if (!parse_size(value, strlen(value), &p->cache.size))
			return parse_error(p, p->line, -EINVAL, "bad size '%.*s' (%s)", SHOWN, value, SIZE_RULE);
		return 0;
	case K_ASSOC:
		if (!parse_assoc(value, strlen(value), p->block == TLB_BLOCK ? &p->tlb.assoc : &p->cache.assoc))
			return parse_error(p, p->line, -EINVAL, "bad assoc '%.*s' (a number of ways, or full)",
					   SHOWN, value);
		return 0;
	case K_LINE:
		if (!parse_number(value, strlen(value), &v) || v > UINT32_MAX)
			return parse_error(p, p->line, -EINVAL, "bad line '%.*s' (a number of bytes)", SHOWN, value);
		if (!power_of_two(v))
			return parse_error(p, p->line, -EINVAL, "line %" PRIu64 " is not a power of two", v);
		p->cache.line = (uint32_t)v;
		return 0;
	case K_ENTRIES:
		if (!parse_u32(value, strlen(value), &p->tlb.entries))
			return parse_error(p, p->line, -EINVAL, "bad entries '%.*s' (a number, 1 or more)",
					   SHOWN, value);
		return 0;
	case K_LEVEL:
		if (!parse_u32(value, strlen(value), &u) || u > VMT_CACHE_MAX_LEVELS)
			return parse_error(p, p->line, -EINVAL, "level '%.*s' is not 1 to %u", SHOWN, value,
					   VMT_CACHE_MAX_LEVELS);
		if (p->block == TLB_BLOCK)
			p->tlb.level = (uint8_t)u;
		else
			p->cache.level = (uint8_t)u;
		return 0;
	default: /* K_NEXT */
		if (!name_ok(value, strlen(value)))
			return parse_error(p, p->line, -EINVAL, "bad name '%.*s' (%s)", SHOWN, value, NAME_RULE);
		memcpy(p->block_next, value, strlen(value) + 1);
		return 0;
	}
}

/* One line, NUL-terminated, its comment and blanks still in it. */
static int parse_line(struct parser *p, char *s)
{
	static const char blanks[] = " \t\r\v\f";
	char *word[3];
	unsigned int n = 0;
	enum block block;

	s[strcspn(s, "#")] = '\0';
	while (n < 3) {
		s += strspn(s, blanks);
		if (!*s)
			break;
		word[n++] = s;
		s += strcspn(s, blanks);
		if (*s)
			*s++ = '\0';
	}
	if (!n)
		return 0;
	if (n == 3)
		return parse_error(p, p->line, -EINVAL, "junk after '%.*s %.*s': '%.*s'", SHOWN, word[0], SHOWN,
				   word[1], SHOWN, word[2]);
	if (!strcmp(word[0], "hierarchy") || !strcmp(word[0], "cache") || !strcmp(word[0], "tlb")) {
		if (n < 2)
			return parse_error(p, p->line, -EINVAL, "%s needs a name", word[0]);
		if (word[0][0] == 'h')
			return begin_hierarchy(p, word[1]);
		block = word[0][0] == 'c' ? CACHE_BLOCK : TLB_BLOCK;
		return begin_block(p, block, word[1]);
	}
	return set_key(p, word[0], n > 1 ? word[1] : NULL);
}

int vmt_hierarchy_parse(const char *text, size_t len, struct vmt_hierarchy_config *h,
			unsigned int max, unsigned int *nr, struct vmt_trace_error *err)
{
	struct parser p = { .hs = h, .max = max, .err = err };
	char line[CONFIG_LINE_MAX + 1];
	const char *nl;
	size_t pos = 0, n;
	int ret;

	if (nr)
		*nr = 0;
	if ((!text && len) || (!h && max) || !nr)
		return fail(err, -EINVAL, "no text, or nowhere to put the hierarchies");
	while (pos < len) {
		nl = memchr(text + pos, '\n', len - pos);
		n = (nl ? (size_t)(nl - text) : len) - pos;
		p.line++;
		if (n > CONFIG_LINE_MAX)
			return parse_error(&p, p.line, -EINVAL, "longer than %u characters", CONFIG_LINE_MAX);
		if (memchr(text + pos, '\0', n))
			return parse_error(&p, p.line, -EINVAL, "a NUL byte");
		memcpy(line, text + pos, n);
		line[n] = '\0';
		ret = parse_line(&p, line);
		if (ret)
			return ret;
		pos += n + (nl != NULL);
	}
	ret = end_hierarchy(&p);
	if (ret)
		return ret;
	if (!p.nr)
		return parse_error(&p, p.line ? p.line : 1, -EINVAL, "no cache block in the text");
	*nr = p.nr;
	return 0;
}

/* ---- The presets ---- */

#define KIB	1024u
#define MIB	(1024u * 1024u)

/* A cache of a preset, LRU, non-inclusive, write-back, shared from level 3 on. */
static struct vmt_cache_config *preset_cache(struct vmt_hierarchy_config *h, const char *name, uint8_t level,
					     uint8_t kind, uint64_t size, uint32_t assoc, uint32_t line)
{
	struct vmt_cache_config *c = &h->caches[h->nr_caches++];

	cache_defaults(c, level);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->kind = kind;
	c->size = size;
	c->assoc = assoc;
	c->line = line;
	return c;
}

/* An instruction and a data cache at level 1, alike, of 64-byte lines: the data one returned. */
static struct vmt_cache_config *preset_level1_pair(struct vmt_hierarchy_config *h, const char *insn,
						   const char *data, uint32_t size, uint32_t assoc)
{
	preset_cache(h, insn, 1, VMT_CACHE_INSTRUCTION, size, assoc, 64);
	return preset_cache(h, data, 1, VMT_CACHE_DATA, size, assoc, 64);
}

static void preset_tlb(struct vmt_hierarchy_config *h, const char *name, uint32_t entries, uint32_t assoc)
{
	struct vmt_tlb_config *t = &h->tlbs[h->nr_tlbs];

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->entries = entries;
	t->assoc = assoc;
	t->level = (uint8_t)++h->nr_tlbs;
	t->policy = VMT_CACHE_LRU;
}

/*
 * PSnAP's validation hierarchies (Olschanowsky et al., LCPC 2009, Table 1):
 * size, line and ways of L1, L2 and L3 (size 0: none).
 */
static const struct psnap_level {
	uint32_t size;
	uint16_t line;
	uint8_t assoc;
} psnap_levels[10][3] = {
	{ { 32 * KIB, 128, 2 }, { 1024 * KIB, 128, 8 } },		/* PowerPC */
	{ { 256 * KIB, 128, 8 }, { 9216 * KIB, 128, 12 } },		/* Itanium 2: 6144 sets */
	{ { 64 * KIB, 64, 2 }, { 512 * KIB, 64, 16 } },		/* MIPS SiCortex */
	{ { 32 * KIB, 32, 4 }, { 128 * KIB, 64, 2 } },		/* Opteron */
	/*
	 * "Budapest": the paper's L3 is 1024 KB of 48 ways of 64 bytes, which is
	 * 341 1/3 sets; it is 341 here (1023 KiB), the whole sets it holds.
	 */
	{ { 64 * KIB, 64, 2 }, { 512 * KIB, 64, 16 }, { 341 * 48 * 64, 64, 48 } },
	{ { 64 * KIB, 128, 8 }, { 4096 * KIB, 128, 8 }, { 16384 * KIB, 128, 16 } },	/* POWER6 */
	/* 3 with other L2s: 8 and 32 ways, 32- and 128-byte lines */
	{ { 64 * KIB, 64, 2 }, { 512 * KIB, 64, 8 } },
	{ { 64 * KIB, 64, 2 }, { 512 * KIB, 64, 32 } },
	{ { 64 * KIB, 64, 2 }, { 512 * KIB, 32, 16 } },
	{ { 64 * KIB, 64, 2 }, { 512 * KIB, 128, 16 } },
};

static void build_psnap(struct vmt_hierarchy_config *h, unsigned int id)
{
	static const char *const names[3] = { "L1", "L2", "L3" };

	snprintf(h->name, sizeof(h->name), "psnap%u", id + 1);
	for (unsigned int l = 0; l < 3 && psnap_levels[id][l].size; l++) {
		const struct psnap_level *p = &psnap_levels[id][l];

		preset_cache(h, names[l], (uint8_t)(l + 1), VMT_CACHE_UNIFIED, p->size, p->assoc, p->line);
	}
}

/*
 * Cachegrind's defaults when it cannot read the CPU's caches: valgrind's
 * cachegrind/cg-arch.c, configure_caches(), for x86 and amd64 (the same for
 * ppc32 and ppc64): I1 and D1 65536 bytes 2-way 64-byte lines, LL 262144
 * bytes 8-way 64-byte lines. Cachegrind simulates one core: compare with
 * --cores 1.
 */
static void build_cachegrind(struct vmt_hierarchy_config *h, unsigned int id)
{
	(void)id;
	preset_level1_pair(h, "I1", "D1", 64 * KIB, 2);
	preset_cache(h, "LL", 2, VMT_CACHE_UNIFIED, 256 * KIB, 8, 64);
}

/*
 * drcachesim's defaults (DynamoRIO, clients/drcachesim/common/options.cpp):
 * -L1I_size and -L1D_size 32K, -L1I_assoc and -L1D_assoc 8, -LL_size 8M,
 * -LL_assoc 16, -line_size 64, -replace_policy LRU, and -data_prefetcher
 * nextline, on the L1D's misses. Its LL is one for all its cores: shared.
 */
static void build_drcachesim(struct vmt_hierarchy_config *h, unsigned int id)
{
	(void)id;
	preset_level1_pair(h, "L1I", "L1D", 32 * KIB, 8)->prefetch = true;
	preset_cache(h, "LL", 2, VMT_CACHE_UNIFIED, 8 * MIB, 16, 64)->shared = true;
}

static void build_skylake(struct vmt_hierarchy_config *h, unsigned int id)
{
	(void)id;
	preset_level1_pair(h, "L1I", "L1D", 32 * KIB, 8);
	preset_cache(h, "L2", 2, VMT_CACHE_UNIFIED, 256 * KIB, 4, 64);
	preset_cache(h, "L3", 3, VMT_CACHE_UNIFIED, 8 * MIB, 16, 64)->inclusion = VMT_CACHE_INCLUSIVE;
	preset_tlb(h, "DTLB", 64, 4);
	preset_tlb(h, "STLB", 1536, 12);
}

#define PSNAP(n, summary)	{ "psnap" #n, "PSnAP " #n ", " summary, n - 1, 1, build_psnap }
static const struct preset {
	const char *name, *summary;
	unsigned int first, count;	/* the ids given to build() */
	void (*build)(struct vmt_hierarchy_config *h, unsigned int id);
} presets[] = {
	{ "psnap", "PSnAP's ten validation hierarchies, psnap1 to psnap10", 0, 10, build_psnap },
	PSNAP(1, "PowerPC: L1 32 KiB 2-way, L2 1 MiB 8-way, 128 B lines"),
	PSNAP(2, "Itanium 2: L1 256 KiB 8-way, L2 9 MiB 12-way, 128 B lines"),
	PSNAP(3, "SiCortex MIPS: L1 64 KiB 2-way, L2 512 KiB 16-way, 64 B lines"),
	PSNAP(4, "Opteron: L1 32 KiB 4-way 32 B, L2 128 KiB 2-way 64 B"),
	PSNAP(5, "Budapest: L1 64 KiB 2-way, L2 512 KiB 16-way, L3 1023 KiB 48-way (341 sets), 64 B lines"),
	PSNAP(6, "POWER6: L1 64 KiB 8-way, L2 4 MiB 8-way, L3 16 MiB 16-way, 128 B lines"),
	PSNAP(7, "L1 64 KiB 2-way, L2 512 KiB 8-way, 64 B lines"),
	PSNAP(8, "L1 64 KiB 2-way, L2 512 KiB 32-way, 64 B lines"),
	PSNAP(9, "L1 64 KiB 2-way 64 B, L2 512 KiB 16-way 32 B"),
	PSNAP(10, "L1 64 KiB 2-way 64 B, L2 512 KiB 16-way 128 B"),
	{ "cachegrind", "cachegrind's defaults: I1, D1 64 KiB 2-way, LL 256 KiB 8-way, 64 B lines",
	  0, 1, build_cachegrind },
	{ "drcachesim", "drcachesim's defaults: L1I, L1D 32 KiB 8-way (next-line prefetch), "
	  "LL 8 MiB 16-way shared, 64 B lines", 0, 1, build_drcachesim },
	{ "skylake", "Skylake client: L1I, L1D 32 KiB 8-way, L2 256 KiB 4-way, L3 8 MiB 16-way "
	  "shared inclusive, 64 B lines; DTLB 64 4-way, STLB 1536 12-way", 0, 1, build_skylake },
};

int vmt_hierarchy_preset(const char *name, struct vmt_hierarchy_config *h, unsigned int max,
			 unsigned int *nr)
{
	if (nr)
		*nr = 0;
	if (!name || !nr || (!h && max))
		return -EINVAL;
	for (unsigned int i = 0; i < NR(presets); i++) {
		const struct preset *p = &presets[i];

		if (strcmp(p->name, name))
			continue;
		if (p->count > max)
			return -ENOSPC;
		for (unsigned int j = 0; j < p->count; j++) {
			memset(&h[j], 0, sizeof(h[j]));
			snprintf(h[j].name, sizeof(h[j].name), "%s", p->name);
			p->build(&h[j], p->first + j);
		}
		*nr = p->count;
		return 0;
	}
	return -ENOENT;
}

const char *vmt_hierarchy_preset_name(unsigned int i, const char **summary)
{
	if (i >= NR(presets))
		return NULL;
	if (summary)
		*summary = presets[i].summary;
	return presets[i].name;
}
