// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes taken as a cache config file
 * (vmt_hierarchy_parse()), and each of their lines as a --cache spec (or,
 * after a '!', a --tlb spec), are refused with a message or give
 * hierarchies that pass vmt_hierarchy_check(), without a read out of bounds.
 * What it asserts (abort() otherwise):
 *   - the parser returns 0 with 1 to 3 hierarchies, each passing the check,
 *     or an error, no hierarchy, and a message "line N: ...";
 *   - a spec that fails leaves the hierarchy as it was, with a message;
 *   - levels added by specs alone always pass the check.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/cachesim.h"

#define ROOM	3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(const struct vmt_trace_error *err)
{
	size_t len = strnlen(err->message, sizeof(err->message));

	if (!len || len == sizeof(err->message))
		abort();
}

static void parse(const uint8_t *data, size_t size)
{
	struct vmt_hierarchy_config h[ROOM];
	struct vmt_trace_error err = { { 0 } };
	unsigned int nr = 99;
	char *text;
	int ret;

	/* An exact-size copy, not NUL-terminated, so ASan sees any read past its end. */
	text = malloc(size ? size : 1);
	if (!text)
		return;
	memcpy(text, data, size);
	ret = vmt_hierarchy_parse(text, size, h, ROOM, &nr, &err);
	free(text);
	if (ret) {
		if ((ret != -EINVAL && ret != -ENOSPC) || nr || strncmp(err.message, "line ", 5))
			abort();
		check_message(&err);
		return;
	}
	if (nr < 1 || nr > ROOM)
		abort();
	for (unsigned int i = 0; i < nr; i++)
		if (vmt_hierarchy_check(&h[i], &err))
			abort();
}

static void specs(const uint8_t *data, size_t size)
{
	struct vmt_hierarchy_config h = { .name = "fuzz" }, before;
	struct vmt_trace_error err;
	size_t pos = 0, n;
	char *line;
	int ret;

	while (pos < size) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);

		n = (nl ? (size_t)(nl - data) : size) - pos;
		line = malloc(n + 1);
		if (!line)
			return;
		memcpy(line, data + pos, n);
		line[n] = '\0';
		before = h;
		memset(&err, 0, sizeof(err));
		if (n && line[0] == '!')
			ret = vmt_hierarchy_add_tlb_spec(&h, line + 1, &err);
		else
			ret = vmt_hierarchy_add_cache_spec(&h, line, &err);
		free(line);
		if (ret) {
			if (ret != -EINVAL || memcmp(&before, &h, sizeof(h)))
				abort();
			check_message(&err);
		}
		pos += n + (nl != NULL);
	}
	if (h.nr_caches && vmt_hierarchy_check(&h, &err))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	parse(data, size);
	specs(data, size);
	return 0;
}
