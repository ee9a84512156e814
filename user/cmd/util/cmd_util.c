// SPDX-License-Identifier: GPL-2.0
/* Small helpers the commands share (cmd_util.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd_util.h"
#include "vmtrace/analysis.h"

long long parse_number(const char *cmd, const char *what, const char *text,
		       long long min, long long max)
{
	long long n;
	char *end;

	errno = 0;
	n = strtoll(text, &end, 0);
	if (errno || *end || !*text || n < min || n > max) {
		fprintf(stderr, "vmtrace %s: bad %s '%s' (%lld..%lld)\n", cmd, what, text, min, max);
		return -1;
	}
	return n;
}

int parse_addr_range(const char *cmd, const char *what, const char *text, uint64_t *start,
		     uint64_t *end)
{
	unsigned long long s, e;
	char *dash, *rest;

	errno = 0;
	s = strtoull(text, &dash, 0);
	if (dash != text && *dash == '-' && dash[1] != '-' && *text != '-') {
		e = strtoull(dash + 1, &rest, 0);
		if (!errno && rest != dash + 1 && !*rest && s < e) {
			*start = s;
			*end = e;
			return 0;
		}
	}
	fprintf(stderr, "vmtrace %s: %s: '%s' is not START-END with START < END\n", cmd, what, text);
	return -1;
}

int parse_duration(const char *text, bool bare_ns, uint64_t *ns)
{
	static const struct { const char *name; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	double value, n;
	char *end;

	errno = 0;
	value = strtod(text, &end);
	if (end == text || errno || !(text[0] >= '0' && text[0] <= '9') || !isfinite(value))
		return -EINVAL;
	if (bare_ns && !*end) {
		n = value;
	} else {
		size_t i = 0;

		while (i < sizeof(units) / sizeof(units[0]) && strcmp(end, units[i].name))
			i++;
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		n = value * units[i].ns;
	}
	if (n < 1 || n > 1e18)
		return -ERANGE;
	*ns = (uint64_t)n;
	return 0;
}

bool same_file(const char *in, const char *out)
{
	struct stat a, b;

	return !stat(in, &a) && !stat(out, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

struct vmt_trace *open_or_say(const char *cmd, const char *path, unsigned int flags)
{
	struct vmt_trace_error err;
	struct vmt_trace *t;

	if (vmt_trace_open(&t, path, flags, &err)) {
		fprintf(stderr, "vmtrace %s: %s\n", cmd, err.message);
		return NULL;
	}
	return t;
}

const char *describe_session(int err, const struct vmt_trace_session *s, char *buf,
			     size_t size)
{
	int len;

	if (err == -ENOENT)
		snprintf(buf, size, "settings not recorded (a converted or older trace)");
	else if (err)
		snprintf(buf, size, "settings unreadable: %s", strerror(-err));
	else if (!(s->flags & VMT_CONFIG_PROTECT))
		snprintf(buf, size, "no --protect: page faults only");
	else {
		len = snprintf(buf, size, "protect: N=%u %s", s->enabled_pages,
			       s->policy == VMT_POLICY_CLOCK ? "clock" :
			       s->policy == VMT_POLICY_FIFO ? "fifo" : "policy?");
		if (s->reprotect_ms && len > 0 && (size_t)len < size)
			snprintf(buf + len, size - (size_t)len, ", reprotect every %u ms",
				 s->reprotect_ms);
	}
	return buf;
}

const char *describe_reduction(const struct vmt_trace_reduction *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s-reduced with R=%llu%s: %llu of %llu references kept; LRU exact at %llu %s or more",
		 r->method == VMT_REDUCTION_SAD ? "SAD" : "?", (unsigned long long)r->r,
		 r->flags & VMT_REDUCTION_PER_PROCESS ? " (per process)" : "",
		 (unsigned long long)r->kept, (unsigned long long)r->references,
		 (unsigned long long)r->r, r->unit == VMT_REF_LINE ? "lines" : "pages");
	return buf;
}
