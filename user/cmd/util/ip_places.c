// SPDX-License-Identifier: GPL-2.0
/* Instructions' mappings, by a trace's VMA records (ip_places.h). */
#include <inttypes.h>
#include <stdio.h>

#include "ip_places.h"

void place_ips(struct vmt_trace *t, struct ip_place *places, size_t n)
{
	struct vmt_trace_filter f = { .types = 1u << VMT_REC_VMA };
	struct vmt_trace_cursor *cursor;
	const struct vmt_record *rec;
	uint32_t stream;
	size_t i;

	if (vmt_trace_set_filter(t, &f) || vmt_trace_cursor_create(t, VMT_ORDER_TIME, &cursor))
		return;
	while (vmt_trace_cursor_next(cursor, &rec, &stream) > 0) {
		const struct vmt_vma *v = &rec->vma;
		char data[VMT_MAX_DATA_LEN];
		int len = 0;

		if (v->op != VMT_VMA_MAP)
			continue;
		for (i = 0; i < n; i++) {
			struct ip_place *p = &places[i];

			if (p->pid != rec->hdr.pid || p->ip < v->start || p->ip >= v->end)
				continue;
			if (rec->hdr.data_len && !len)
				len = vmt_trace_record_data(t, rec, data, sizeof(data));
			snprintf(p->name, sizeof(p->name), "%.*s", len > 0 ? len : 4,
				 len > 0 ? data : vmt_field_name(VMT_NAMES_VMA_KIND, v->kind));
			p->offset = p->ip - v->start + (v->kind == VMT_VMA_FILE ? v->offset : 0);
			p->found = true;
		}
	}
	vmt_trace_cursor_free(cursor);
}

const char *ip_place_text(const struct ip_place *p, char *buf, size_t size)
{
	if (p->found)
		snprintf(buf, size, "%s+%#" PRIx64, p->name, p->offset);
	else
		snprintf(buf, size, "(no mapping in the trace)");
	return buf;
}
