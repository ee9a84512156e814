/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hmtt_traffic.c: vmtrace hmtt's tables of memory traffic: the dma
 * section's requests by device and direction, and the traffic section
 * (docs/analysis/hmtt.md).
 */
#ifndef VMTRACE_CMD_HMTT_TRAFFIC_H
#define VMTRACE_CMD_HMTT_TRAFFIC_H

#include <stdbool.h>

#include "vmtrace/analysis.h"

/* The dma analysis's requests by device and direction, and their sizes' CDF. */
void hmtt_print_dma_devices(bool csv, const struct vmt_analysis *dma, bool *first);
/* The traffic analysis's tables. */
void hmtt_print_traffic(bool csv, const struct vmt_analysis *traffic, bool *first);

#endif
