/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_places.c: where an instruction is, by a trace's VMA records: the
 * mapping that last held it (a file's path, or [heap], anon...) and its
 * offset there (in the file, for a file's mapping). cachesim --top and
 * loops --show name their instructions so.
 */
#ifndef VMTRACE_CMD_IP_PLACES_H
#define VMTRACE_CMD_IP_PLACES_H

#include <stdbool.h>
#include <stdint.h>

#include "vmtrace/trace.h"

struct ip_place {
	uint32_t pid;		/* asked: the process */
	uint64_t ip;		/* asked: the instruction */
	char name[64];		/* found: the mapping's name */
	uint64_t offset;
	bool found;
};

/*
 * One pass over @t's VMA records alone (its filter replaced by one of them:
 * set it again after), each of @n places filled where a mapping held it.
 */
void place_ips(struct vmt_trace *t, struct ip_place *places, size_t n);
/* "NAME+0xOFFSET", or "(no mapping in the trace)", in @buf. */
const char *ip_place_text(const struct ip_place *p, char *buf, size_t size);

#endif
