// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * What describes a whole trace rather than one record: opaque streams of
 * one entry, found by name. The session's settings (struct
 * vmt_trace_session: N, the policy, the events) are one; a reduced trace's
 * parameters (vmtrace/analysis.h) another. A reader that does not know a
 * stream's name passes it over, so a trace gains these without a new
 * format version (docs/FORMAT.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/trace.h"

int vmt_trace_writer_add_opaque(struct vmt_trace_writer *writer, const char *name,
				const void *entry, uint32_t size)
{
	struct vmt_trace_stream_info info = {
		.entry_size = size,
		.kind = VMT_STREAM_OPAQUE,
		.cpu = VMT_TRACE_ANY_CPU,
		.time_offset = VMT_TRACE_NO_TIME,
	};
	int id, err;

	if (strlen(name) >= sizeof(info.name))
		return -EINVAL;
	strcpy(info.name, name);
	id = vmt_trace_writer_add_stream(writer, &info);
	if (id < 0)
		return id;
	err = vmt_trace_writer_append(writer, (uint32_t)id, entry, 1);
	return err ? err : id;
}

int vmt_trace_writer_add_session(struct vmt_trace_writer *writer,
				 const struct vmt_trace_session *session)
{
	struct vmt_trace_session s = *session;

	s.size = sizeof(s);
	return vmt_trace_writer_add_opaque(writer, "session", &s, sizeof(s));
}

int vmt_trace_find_stream(const struct vmt_trace *trace, const char *name)
{
	for (uint32_t i = 0; i < vmt_trace_nr_streams(trace); i++)
		if (!strcmp(vmt_trace_stream(trace, i)->name, name))
			return (int)i;
	return -ENOENT;
}

int vmt_trace_read_opaque(struct vmt_trace *trace, const char *name, void *out, uint32_t size)
{
	int id = vmt_trace_find_stream(trace, name);
	const struct vmt_trace_stream_info *info;
	uint8_t *entry;
	int err;

	if (id < 0)
		return id;
	info = vmt_trace_stream(trace, (uint32_t)id);
	if (info->kind != VMT_STREAM_OPAQUE)
		return -ENOENT;
	entry = malloc(info->entry_size);
	if (!entry)
		return -ENOMEM;
	err = vmt_trace_read(trace, (uint32_t)id, 0, entry);
	if (!err) {
		memset(out, 0, size);
		memcpy(out, entry, size < info->entry_size ? size : info->entry_size);
	}
	free(entry);
	return err == -ERANGE ? -ENOENT : err;
}

int vmt_trace_session(struct vmt_trace *trace, struct vmt_trace_session *out)
{
	return vmt_trace_read_opaque(trace, "session", out, sizeof(*out));
}
