/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libvmtrace, vmtrace's userspace library: every public header in one.
 *
 *   <vmtrace/device.h>    the device's ioctls and the per-CPU rings
 *   <vmtrace/trace.h>     trace files: the writer, the reader, verify, repair
 *   <vmtrace/analysis.h>  the analyses of a trace's references
 *   <vmtrace/cachesim.h>  the cache and TLB simulator and its configurations
 *
 * Each may also be included alone.
 */
#ifndef VMTRACE_VMTRACE_H
#define VMTRACE_VMTRACE_H

#include "vmtrace/device.h"
#include "vmtrace/trace.h"
#include "vmtrace/analysis.h"
#include "vmtrace/cachesim.h"
#include "vmtrace/profile.h"

#endif /* VMTRACE_VMTRACE_H */
