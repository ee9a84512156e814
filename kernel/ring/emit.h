/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing records to this CPU's ring of a session: stamping them, and
 * carrying their variable-size data.
 */
#ifndef _VMTRACE_EMIT_H
#define _VMTRACE_EMIT_H

#include <linux/types.h>
#include <uapi/linux/vmtrace.h>

struct path;
struct vmt_session;

int vmt_emit_as(struct vmt_session *s, struct vmt_record *rec, u16 type, pid_t pid,
		pid_t tid, const void *data, u32 len);
int vmt_emit_data(struct vmt_session *s, struct vmt_record *rec, u16 type,
		  const void *data, u32 len);
int vmt_emit(struct vmt_session *s, struct vmt_record *rec, u16 type);
const char *vmt_path_name(const struct path *path, u32 *len);
int vmt_emit_init(void);
void vmt_emit_exit(void);
void vmt_emit_count_dropped(struct vmt_session *s);
void vmt_emit_count_missed(struct vmt_session *s);

#endif /* _VMTRACE_EMIT_H */
