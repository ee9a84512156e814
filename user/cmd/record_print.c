// SPDX-License-Identifier: GPL-2.0
/*
 * One record, one line: the text `vmtrace dump-raw` and `vmtrace dump` share,
 * so that a trace file can be compared with the raw records it came from.
 */
#include <stdio.h>

#include "commands.h"

static const char *const access_names[] = { "?", "R", "W", "?", "X" };
static const char *const cause_names[] = { "protection", "demand", "cow", "other" };

void print_record(FILE *out, const struct vmt_record *rec)
{
	switch (rec->hdr.type) {
	case VMT_REC_REFERENCE:
		fprintf(out, "%llu ref cpu=%u pid=%u tid=%u addr=0x%llx ip=0x%llx pfn=0x%llx access=%s mode=%s cause=%s err=0x%x%s\n",
			(unsigned long long)rec->hdr.time_ns, rec->hdr.cpu, rec->hdr.pid,
			rec->hdr.tid, (unsigned long long)rec->ref.vaddr,
			(unsigned long long)rec->ref.ip, (unsigned long long)rec->ref.pfn,
			rec->ref.access < 5 ? access_names[rec->ref.access] : "?",
			rec->ref.kernel_mode ? "kernel" : "user",
			rec->ref.cause < 4 ? cause_names[rec->ref.cause] : "?",
			rec->ref.error_code,
			rec->ref.flags & VMT_REF_HUGE ? " huge=1" : "");
		break;
	case VMT_REC_EVICT:
		fprintf(out, "%llu evict cpu=%u pid=%u tid=%u addr=0x%llx pfn=0x%llx dirty=%d accessed=%d%s\n",
			(unsigned long long)rec->hdr.time_ns, rec->hdr.cpu, rec->hdr.pid,
			rec->hdr.tid, (unsigned long long)rec->ref.vaddr,
			(unsigned long long)rec->ref.pfn,
			!!(rec->ref.evict_flags & VMT_EVICT_DIRTY),
			!!(rec->ref.evict_flags & VMT_EVICT_ACCESSED),
			rec->ref.flags & VMT_REF_HUGE ? " huge=1" : "");
		break;
	case VMT_REC_LOST:
		fprintf(out, "%llu lost cpu=%u count=%llu\n", (unsigned long long)rec->hdr.time_ns,
			rec->hdr.cpu, (unsigned long long)rec->lost.count);
		break;
	default:
		fprintf(out, "%llu type=%u cpu=%u\n", (unsigned long long)rec->hdr.time_ns,
			rec->hdr.type, rec->hdr.cpu);
	}
}
