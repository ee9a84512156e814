/* SPDX-License-Identifier: GPL-2.0 */
/* export_din.c: vmtrace export --format din. */
#ifndef VMTRACE_CMD_EXPORT_DIN_H
#define VMTRACE_CMD_EXPORT_DIN_H

#include <stdint.h>
#include <stdio.h>

#include "vmtrace/trace.h"
#include "util/export_records.h"

/* Writes the records the trace's filter passes; their count, or an EXPORT_* error. */
int64_t export_din(struct vmt_trace *t, FILE *out, const struct export_options *o);

#endif
