/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Trace set files (trace_set.c): a text file naming the traces of a set,
 * which vmt_trace_open() opens as one trace through vmt_trace_open_set().
 * Internal to libvmtrace; docs/FORMAT.md, "Trace sets", is the format.
 */
#ifndef VMTRACE_INTERNAL_TRACE_SET_H
#define VMTRACE_INTERNAL_TRACE_SET_H

#include <stdbool.h>
#include <stddef.h>

/* The first line of a set file. */
#define VMT_TRACE_SET_MAGIC	"vmtrace trace set\n"

/* Whether the @len bytes at @head, a file's first, begin a set file. */
bool vmt_trace_set_file_is(const void *head, size_t len);
/*
 * The paths the set file open at @fd (named @path) lists, each relative
 * one taken from @path's folder: *@paths (and each path) malloc()ed, for
 * vmt_trace_set_paths_free(). 0, or -errno with the reason in @why.
 */
int vmt_trace_set_file_read(int fd, const char *path, char ***paths, unsigned int *n,
			    char *why, size_t why_len);
void vmt_trace_set_paths_free(char **paths, unsigned int n);

#endif /* VMTRACE_INTERNAL_TRACE_SET_H */
