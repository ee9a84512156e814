// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The cache simulator's configurations (vmtrace/cachesim.h): the check every
 * hierarchy passes and the --cache and --tlb spec strings. Nothing here
 * simulates; the engine (cachesim.c) takes the hierarchies these make.
 *
 * A message names the cache or TLB first and the numbers at fault
 * ("L1: line 96 is not a power of two").
 *
 * The file, in order:
 *   - messages (say() a reason, fail() into the caller's error) and the
 *     words of each setting, in their enums' order (policy_names...);
 *   - the checks: cache_ok() and tlb_ok() one level alone (geometry, enum
 *     values, plru's ways), check() the hierarchy (the name, levels from 1
 *     without a gap, one cache a level but an instruction and data pair at
 *     level 1, no private level outside a shared one, names unique), which
 *     also says which cache or TLB was at fault (struct culprit), for a
 *     parser's messages; vmt_hierarchy_check() is check();
 *   - numbers and names (parse_size(), parse_assoc()...), then the spec
 *     strings: split_spec() takes "NAME=F1:F2[:F3[:F4]]" apart, and
 *     vmt_hierarchy_add_cache_spec() / _add_tlb_spec() add one level outward.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vmtrace/cachesim.h"
#include "vmtrace/trace.h"

#define WHY_MAX		160	/* a reason, before a name or line number goes in front */
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
static const char *const inclusion_names[] = { "non-inclusive", "inclusive", "exclusive" };
static const char *const write_names[] = { "back", "through" };
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
