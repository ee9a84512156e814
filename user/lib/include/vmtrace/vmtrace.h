/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libvmtrace, vmtrace's userspace library: every public header in one.
 *
 *   <vmtrace/device.h>    the device's ioctls and the per-CPU rings
 *   <vmtrace/trace.h>     trace files: the writer, the reader, verify, repair
 *   <vmtrace/analysis.h>  the analyses of a trace's references
 *
 * Each may also be included alone.
 */
#ifndef VMTRACE_VMTRACE_H
#define VMTRACE_VMTRACE_H

#include "vmtrace/device.h"
#include "vmtrace/trace.h"
#include "vmtrace/analysis.h"

#endif /* VMTRACE_VMTRACE_H */
