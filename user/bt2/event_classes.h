/* SPDX-License-Identifier: GPL-2.0 */
/*
 * event_classes.c: the babeltrace2 trace class of a vmtrace trace (one event
 * class a record type, their fields) and the filling of an event's fields
 * from a record. plugin.c drives the component and its message iterator.
 */
#ifndef VMTRACE_BT2_EVENT_CLASSES_H
#define VMTRACE_BT2_EVENT_CLASSES_H

#include <babeltrace2/babeltrace.h>
#include <linux/vmtrace.h>

/* Event class of record type t at [t]; [VMT_REC_TYPES]: records of an unknown type. */
#define VMT_BT2_EVENT_CLASSES	(VMT_REC_TYPES + 1)

struct vmt_bt2_classes {
	bt_stream_class *stream_class;
	bt_event_class *events[VMT_BT2_EVENT_CLASSES];
};

/*
 * The stream class (one stream a CPU, clock @clock_class) and the event
 * classes, in @trace_class. 0 or -ENOMEM; on failure what was made is put.
 */
int vmt_bt2_classes_create(bt_trace_class *trace_class, bt_clock_class *clock_class,
			   struct vmt_bt2_classes *classes);
void vmt_bt2_classes_put(struct vmt_bt2_classes *classes);

/* The event class of @record's type. */
const bt_event_class *vmt_bt2_event_class(const struct vmt_bt2_classes *classes,
					  const struct vmt_record *record);

/*
 * Set @event's fields from @record; @data is its hdr.data_len bytes of
 * variable-size data, or NULL when it has none or they could not be read.
 * 0 or -ENOMEM.
 */
int vmt_bt2_fill_event(bt_event *event, const struct vmt_record *record, const void *data);

#endif
