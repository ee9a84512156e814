// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Other tools' text traces (valgrind's lackey, Dinero IV's din) into exact
 * records: a line splitter over pieces of input of any size, then a parser
 * a format. Both are hand loops over the bytes, no sscanf: these traces run
 * to hundreds of megabytes, and a line that is not of the format must be
 * named and explained, not half read. The formats: vmtrace/trace.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vmtrace/trace.h>

/* The din size of a line without one: Dinero IV's, which reads every access as 4 bytes. */
#define DIN_DEFAULT_SIZE	4

struct vmt_import {
	unsigned int format;
	char *name;
	struct vmt_record proto;	/* header fields every record shares */
	uint64_t last_ip;		/* lackey: the address of the last "I" line */
	struct vmt_import_stats stats;
	int failed;			/* 0, or the error every call returns after a bad line */
	bool discarding;		/* skipping the rest of an over-long line of valgrind's */
	char why[128];			/* what is wrong with the bad line */
	char quoted[48];
	size_t carry_len;
	char carry[VMT_IMPORT_MAX_LINE];	/* a line cut at the end of a piece */
};

static const char *const format_names[] = {
	[VMT_IMPORT_LACKEY] = "lackey",
	[VMT_IMPORT_DIN] = "din",
};
#define NR_FORMATS (sizeof(format_names) / sizeof(format_names[0]))

const char *vmt_import_format_name(unsigned int format)
{
	return format < NR_FORMATS ? format_names[format] : NULL;
}

int vmt_import_format_from_name(const char *name)
{
	for (unsigned int i = 0; i < NR_FORMATS; i++)
		if (format_names[i] && !strcmp(format_names[i], name))
			return (int)i;
	return -EINVAL;
}

int vmt_import_create(struct vmt_import **import, unsigned int format,
		      const struct vmt_import_options *options)
{
	struct vmt_import *imp;

	*import = NULL;
	if (!vmt_import_format_name(format))
		return -EINVAL;
	imp = calloc(1, sizeof(*imp));
	if (!imp)
		return -ENOMEM;
	imp->name = strdup(options->name ? options->name : "input");
	if (!imp->name) {
		free(imp);
		return -ENOMEM;
	}
	imp->format = format;
	imp->proto.hdr.pid = options->pid;
	imp->proto.hdr.tid = options->tid;
	imp->proto.hdr.cpu = options->cpu;
	imp->proto.hdr.type = VMT_REC_EXACT;
	*import = imp;
	return 0;
}

void vmt_import_free(struct vmt_import *import)
{
	if (!import)
		return;
	free(import->name);
	free(import);
}

void vmt_import_stats(const struct vmt_import *import, struct vmt_import_stats *stats)
{
	*stats = import->stats;
}

/* Say what is wrong with the line being parsed; -1, a parser's "bad line". */
__attribute__((format(printf, 2, 3)))
static int bad(struct vmt_import *imp, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(imp->why, sizeof(imp->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* The text from @p to @end for a message: quoted, cut short, unprintable bytes as '?'. */
static const char *quote(struct vmt_import *imp, const char *p, const char *end)
{
	size_t n = 0, max = sizeof(imp->quoted) - 6;

	if (p == end)
		return "the end of the line";
	imp->quoted[n++] = '\'';
	for (; p < end && n < max; p++)
		imp->quoted[n++] = *p >= ' ' && *p < 0x7f ? *p : '?';
	if (p < end) {
		memcpy(imp->quoted + n, "...", 3);
		n += 3;
	}
	imp->quoted[n++] = '\'';
	imp->quoted[n] = '\0';
	return imp->quoted;
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool is_digit(char c)
{
	return (unsigned int)(unsigned char)c - '0' < 10u;
}

static inline int hex_digit(char c)
{
	unsigned int u = (unsigned char)c;

	if (u - '0' < 10u)
		return (int)(u - '0');
	u |= 0x20;
	if (u - 'a' < 6u)
		return (int)(u - 'a' + 10);
	return -1;
}

static inline bool is_alnum(char c)
{
	unsigned int u = (unsigned char)c | 0x20u;

	return is_digit(c) || u - 'a' < 26u;
}

/* A hex number at *@p: its digits up to the first byte that is not one. */
static int parse_hex(struct vmt_import *imp, const char **p, const char *end, const char *what,
		     uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d;

	if (s == end || (d = hex_digit(*s)) < 0)
		return bad(imp, "want %s (hex), found %s", what, quote(imp, s, end));
	do {
		if (v >> 60) {
			while (s < end && hex_digit(*s) >= 0)
				s++;
			return bad(imp, "%s %s is over 64 bits", what, quote(imp, *p, s));
		}
		v = v << 4 | (uint64_t)d;
	} while (++s < end && (d = hex_digit(*s)) >= 0);
	if (s < end && is_alnum(*s))
		return bad(imp, "bad hex digit '%c' in %s", *s, what);
	*p = s;
	*out = v;
	return 0;
}

/* A size at *@p: decimal, 1 to VMT_IMPORT_MAX_SIZE. */
static int parse_size(struct vmt_import *imp, const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (s == end || !is_digit(*s))
		return bad(imp, "want a size (decimal), found %s", quote(imp, s, end));
	for (; s < end && is_digit(*s); s++)
		if (v <= VMT_IMPORT_MAX_SIZE)
			v = v * 10 + (uint64_t)(*s - '0');
	if (s < end && is_alnum(*s))
		return bad(imp, "bad digit '%c' in the size", *s);
	if (!v)
		return bad(imp, "size 0: an access is 1 to %d bytes", VMT_IMPORT_MAX_SIZE);
	if (v > VMT_IMPORT_MAX_SIZE)
		return bad(imp, "size %.*s is over %d bytes", (int)(s - *p > 20 ? 20 : s - *p), *p,
			   VMT_IMPORT_MAX_SIZE);
	*p = s;
	*out = v;
	return 0;
}

/* Nothing but blanks may follow the last field. */
static int parse_end(struct vmt_import *imp, const char *p, const char *end, const char *after)
{
	while (p < end && is_blank(*p))
		p++;
	if (p < end)
		return bad(imp, "text after %s: %s", after, quote(imp, p, end));
	return 0;
}

static void fill(struct vmt_import *imp, struct vmt_record *rec, uint64_t addr, uint64_t size,
		 uint8_t access, uint64_t ip)
{
	*rec = imp->proto;
	rec->hdr.time_ns = imp->stats.records;
	rec->exact.addr = addr;
	rec->exact.ip = ip;
	rec->exact.size = (uint16_t)size;
	rec->exact.access = access;
}

/*
 * "I  0401ab70,3", " L 1fff000718,8", " S ...", " M ..."; "==PID== ...".
 * 1 with *@rec made, 0 for a line that makes none, -1 for a bad line.
 */
static int parse_lackey(struct vmt_import *imp, const char *s, const char *end,
			struct vmt_record *rec)
{
	const char *p = s;
	uint64_t addr, size;
	uint8_t access;
	char kind;

	if (end - s >= 2 && ((s[0] == '=' && s[1] == '=') || (s[0] == '-' && s[1] == '-')))
		return 0;
	while (p < end && is_blank(*p))
		p++;
	if (p == end)
		return 0;
	kind = *p++;
	switch (kind) {
	case 'I':
		access = VMT_ACCESS_EXEC;
		break;
	case 'L':
		access = VMT_ACCESS_READ;
		break;
	case 'S':
		access = VMT_ACCESS_WRITE;
		break;
	case 'M':
		access = VMT_ACCESS_RMW;
		break;
	default:
		return bad(imp, "not a line of lackey's (I, L, S or M ADDRESS,SIZE, or ==PID== ...): %s",
			   quote(imp, s, end));
	}
	if (p == end || !is_blank(*p))
		return bad(imp, "want a space after '%c', found %s", kind, quote(imp, p, end));
	while (p < end && is_blank(*p))
		p++;
	if (parse_hex(imp, &p, end, "the address", &addr))
		return -1;
	if (p == end || *p != ',')
		return bad(imp, "want ',' after the address, found %s", quote(imp, p, end));
	p++;
	if (parse_size(imp, &p, end, &size) || parse_end(imp, p, end, "the size"))
		return -1;
	if (kind == 'I')
		imp->last_ip = addr;
	fill(imp, rec, addr, size, access, imp->last_ip);
	return 1;
}

/* "LABEL ADDRESS [SIZE]": "0 7ffd1234", "2 0x401000 4". */
static int parse_din(struct vmt_import *imp, const char *s, const char *end,
		     struct vmt_record *rec)
{
	static const uint8_t access[] = { VMT_ACCESS_READ, VMT_ACCESS_WRITE, VMT_ACCESS_EXEC };
	const char *p = s, *label_text;
	uint64_t label, addr, size = DIN_DEFAULT_SIZE;

	while (p < end && is_blank(*p))
		p++;
	if (p == end)
		return 0;
	label_text = p;
	if (end - p >= 2 && p[0] == '0' && (p[1] | 0x20) == 'x')
		p += 2;
	if (parse_hex(imp, &p, end, "a label", &label))
		return -1;
	if (label > 4)
		return bad(imp, "unknown label %.*s (0 read, 1 write, 2 instruction fetch, 3 escape, 4 flush)",
			   (int)(p - label_text > 20 ? 20 : p - label_text), label_text);
	if (p == end || !is_blank(*p))
		return bad(imp, "want a space after the label, found %s", quote(imp, p, end));
	while (p < end && is_blank(*p))
		p++;
	if (end - p >= 2 && p[0] == '0' && (p[1] | 0x20) == 'x')
		p += 2;
	if (parse_hex(imp, &p, end, "an address", &addr))
		return -1;
	if (p < end && !is_blank(*p))
		return bad(imp, "want a space or the end of the line after the address, found %s",
			   quote(imp, p, end));
	while (p < end && is_blank(*p))
		p++;
	if (p < end && (parse_size(imp, &p, end, &size) || parse_end(imp, p, end, "the size")))
		return -1;
	if (label == 4)
		imp->stats.flushes++;
	if (label >= 3)
		return 0;
	fill(imp, rec, addr, size, access[label], label == 2 ? addr : 0);
	return 1;
}

static int fail(struct vmt_import *imp, struct vmt_trace_error *err)
{
	imp->failed = -EINVAL;
	snprintf(err->message, sizeof(err->message), "%.100s:%llu: %s", imp->name,
		 (unsigned long long)imp->stats.lines, imp->why);
	return imp->failed;
}

static int take_line(struct vmt_import *imp, const char *s, size_t len, vmt_import_emit_fn emit,
		     void *arg, struct vmt_trace_error *err)
{
	struct vmt_record rec;
	int ret;

	imp->stats.lines++;
	if (len && s[len - 1] == '\r')
		len--;
	if (imp->format == VMT_IMPORT_LACKEY)
		ret = parse_lackey(imp, s, s + len, &rec);
	else
		ret = parse_din(imp, s, s + len, &rec);
	if (ret < 0)
		return fail(imp, err);
	if (!ret) {
		imp->stats.skipped++;
		return 0;
	}
	imp->stats.records++;
	switch (rec.exact.access) {
	case VMT_ACCESS_EXEC:
		imp->stats.fetches++;
		break;
	case VMT_ACCESS_READ:
		imp->stats.reads++;
		break;
	case VMT_ACCESS_WRITE:
		imp->stats.writes++;
		break;
	default:
		imp->stats.modifies++;
	}
	return emit(arg, &rec);
}

/*
 * A line longer than VMT_IMPORT_MAX_LINE, its first bytes in carry: a
 * message of valgrind's is skipped to its end; any other is an error.
 */
static int long_line(struct vmt_import *imp, struct vmt_trace_error *err)
{
	const char *c = imp->carry;

	imp->stats.lines++;
	imp->carry_len = 0;
	if (imp->format == VMT_IMPORT_LACKEY &&
	    ((c[0] == '=' && c[1] == '=') || (c[0] == '-' && c[1] == '-'))) {
		imp->stats.skipped++;
		return 0;
	}
	bad(imp, "a line longer than %d bytes: %s", VMT_IMPORT_MAX_LINE,
	    quote(imp, c, c + VMT_IMPORT_MAX_LINE));
	return fail(imp, err);
}

int vmt_import_feed(struct vmt_import *import, const void *data, size_t size,
		    vmt_import_emit_fn emit, void *arg, struct vmt_trace_error *err)
{
	struct vmt_import *imp = import;
	const char *p = data, *end = p + size;
	int ret;

	if (imp->failed)
		return fail(imp, err);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl : end;
		size_t len = (size_t)(stop - p);

		if (imp->discarding) {
			imp->discarding = !nl;
		} else if (imp->carry_len + len > VMT_IMPORT_MAX_LINE) {
			memcpy(imp->carry + imp->carry_len, p, VMT_IMPORT_MAX_LINE - imp->carry_len);
			ret = long_line(imp, err);
			if (ret)
				return ret;
			imp->discarding = !nl;
		} else if (!imp->carry_len && nl) {
			/* The common case: a whole line in this piece, parsed where it is. */
			ret = take_line(imp, p, len, emit, arg, err);
			if (ret)
				return ret;
		} else {
			/* A line across pieces, gathered in carry. */
			memcpy(imp->carry + imp->carry_len, p, len);
			imp->carry_len += len;
			if (nl) {
				len = imp->carry_len;
				imp->carry_len = 0;
				ret = take_line(imp, imp->carry, len, emit, arg, err);
				if (ret)
					return ret;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

int vmt_import_finish(struct vmt_import *import, vmt_import_emit_fn emit, void *arg,
		      struct vmt_trace_error *err)
{
	struct vmt_import *imp = import;
	size_t len = imp->carry_len;
	int ret;

	if (imp->failed)
		return fail(imp, err);
	imp->discarding = false;
	if (len) {
		imp->carry_len = 0;
		ret = take_line(imp, imp->carry, len, emit, arg, err);
		if (ret)
			return ret;
	}
	if (!imp->stats.records) {
		snprintf(err->message, sizeof(err->message), "%.100s: no access in %llu line%s%s",
			 imp->name, (unsigned long long)imp->stats.lines,
			 imp->stats.lines == 1 ? "" : "s",
			 imp->format == VMT_IMPORT_LACKEY ?
			 " (valgrind --tool=lackey needs --trace-mem=yes)" : "");
		return -ENODATA;
	}
	return 0;
}
