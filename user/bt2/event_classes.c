// SPDX-License-Identifier: GPL-2.0
/*
 * The babeltrace2 trace class of a vmtrace trace, made from one table.
 *
 * Every record type is one event class, "vmtrace:" and the type's short name
 * (vmtrace:ref, vmtrace:vma...), whose payload has one field a table row
 * below: the record's fields by the names `vmtrace dump` prints them with,
 * integers (hexadecimal where dump prints hex), enumerations for the codes
 * dump prints as words, and strings for the variable-size data and names.
 * cpu_id, pid and tid, common to every record, are the event common context.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <vmtrace/trace.h>

#include "event_classes.h"

enum field_kind {
	F_UINT,		/* an unsigned integer shown in decimal */
	F_HEX,		/* shown in hexadecimal */
	F_BIT,		/* 1 when (value & mask) != 0, else 0 */
	F_ENUM,		/* a code with labels */
	F_COMM,		/* a NUL-padded char[VMT_COMM_LEN] */
	F_PROT,		/* struct vmt_vma.prot as /proc/PID/maps shows it: "rw-p" */
	F_DATA,		/* the record's variable-size data */
	F_VALUE,	/* an exact access's value: its bytes in memory order, in hex */
};

struct field_def {
	const char *name;
	unsigned char kind;	/* enum field_kind */
	unsigned char size;	/* bytes of the record's member: 1, 2, 4 or 8 */
	unsigned short offset;	/* of the member in struct vmt_record */
	unsigned int mask;	/* F_BIT; F_ENUM: the code's bits, 0 for the whole member */
	enum vmt_field_names names;	/* F_ENUM: the codes' labels */
};

#define MEMBER(m)	sizeof(((struct vmt_record *)0)->m), offsetof(struct vmt_record, m)
#define UINT(n, m)	{ n, F_UINT, MEMBER(m), 0, 0 }
#define HEX(n, m)	{ n, F_HEX, MEMBER(m), 0, 0 }
#define BIT(n, m, b)	{ n, F_BIT, MEMBER(m), b, 0 }
#define ENUM(n, m, t)	{ n, F_ENUM, MEMBER(m), 0, t }
/* A code in the member's bits @b (a mask of contiguous bits), with labels. */
#define ENUM_BITS(n, m, b, t)	{ n, F_ENUM, MEMBER(m), b, t }
#define KIND(n, k, m)	{ n, k, MEMBER(m), 0, 0 }
#define DATA(n)		{ n, F_DATA, 0, 0, 0, 0 }


static const struct field_def lost_fields[] = { UINT("count", lost.count) };
static const struct field_def ref_fields[] = {
	HEX("addr", ref.vaddr), HEX("ip", ref.ip), HEX("pfn", ref.pfn),
	ENUM("access", ref.access, VMT_NAMES_ACCESS), ENUM("mode", ref.kernel_mode, VMT_NAMES_MODE),
	ENUM("cause", ref.cause, VMT_NAMES_CAUSE), HEX("err", ref.error_code),
	BIT("huge", ref.flags, VMT_REF_HUGE),
};
static const struct field_def evict_fields[] = {
	HEX("addr", ref.vaddr), HEX("pfn", ref.pfn),
	BIT("dirty", ref.evict_flags, VMT_EVICT_DIRTY),
	BIT("accessed", ref.evict_flags, VMT_EVICT_ACCESSED),
	BIT("huge", ref.flags, VMT_REF_HUGE),
};
static const struct field_def marker_fields[] = { UINT("id", marker.id), DATA("text") };
static const struct field_def data_fields[] = { UINT("len", hdr.data_len) };
static const struct field_def switch_fields[] = {
	UINT("next_pid", sw.next_pid), UINT("next_tid", sw.next_tid),
	HEX("state", sw.prev_state), UINT("preempt", sw.preempt),
};
static const struct field_def fork_fields[] = {
	UINT("child_pid", fork.child_pid), UINT("child_tid", fork.child_tid),
	HEX("flags", fork.clone_flags),
};
static const struct field_def exec_fields[] = {
	UINT("old_tid", exec.old_tid), DATA("file"),
	BIT("file_dropped", exec.flags, VMT_DATA_DROPPED),
};
static const struct field_def exit_fields[] = {
	UINT("code", exit.exit_code), UINT("group_dead", exit.group_dead),
};
static const struct field_def comm_fields[] = { KIND("comm", F_COMM, comm.comm) };
static const struct field_def task_fields[] = {
	UINT("ppid", task.ppid), KIND("comm", F_COMM, task.comm), DATA("exe"),
	BIT("exe_dropped", task.flags, VMT_DATA_DROPPED),
};
static const struct field_def vma_fields[] = {
	ENUM("op", vma.op, VMT_NAMES_VMA_OP), ENUM("cause", vma.cause, VMT_NAMES_VMA_CAUSE),
	HEX("start", vma.start), HEX("end", vma.end), KIND("prot", F_PROT, vma.prot),
	ENUM("kind", vma.kind, VMT_NAMES_VMA_KIND), HEX("offset", vma.offset), DATA("name"),
	BIT("name_dropped", vma.flags, VMT_DATA_DROPPED),
};
static const struct field_def dma_fields[] = {
	ENUM("op", dma.op, VMT_NAMES_DMA_OP), ENUM("dir", dma.dir, VMT_NAMES_DMA_DIR),
	HEX("dma", dma.dma_addr), HEX("phys", dma.phys_addr), UINT("size", dma.size),
	UINT("index", dma.index), UINT("count", dma.count), UINT("in_task", dma.in_task),
	DATA("dev"), BIT("dev_dropped", dma.flags, VMT_DATA_DROPPED),
};
static const struct field_def pagemap_fields[] = {
	ENUM("op", pagemap.op, VMT_NAMES_PAGEMAP_OP), HEX("addr", pagemap.vaddr),
	HEX("pfn", pagemap.pfn), UINT("huge", pagemap.huge),
	UINT("event", pagemap.notify_event),
};
static const struct field_def exact_fields[] = {
	HEX("addr", exact.addr), UINT("size", exact.size),
	ENUM("access", exact.access, VMT_NAMES_ACCESS), KIND("value", F_VALUE, exact.value),
	HEX("ip", exact.ip), ENUM("mode", exact.kernel_mode, VMT_NAMES_MODE),
	BIT("string", exact.flags, VMT_EXACT_STRING), BIT("split", exact.flags, VMT_EXACT_SPLIT),
	BIT("stack", exact.flags, VMT_EXACT_STACK),
	ENUM_BITS("bus", exact.flags, VMT_EXACT_BUS_FILL | VMT_EXACT_BUS_WRITEBACK |
	      VMT_EXACT_BUS_PREFETCH, VMT_NAMES_EXACT_BUS),
};
static const struct field_def unknown_fields[] = { UINT("type", hdr.type) };

struct event_def {
	const struct field_def *fields;
	unsigned int nr_fields;
};

#define EVENT(f)	{ f, sizeof(f) / sizeof(f[0]) }
static const struct event_def event_defs[VMT_BT2_EVENT_CLASSES] = {
	[VMT_REC_NONE] = EVENT(unknown_fields),
	[VMT_REC_LOST] = EVENT(lost_fields),
	[VMT_REC_REFERENCE] = EVENT(ref_fields),
	[VMT_REC_EVICT] = EVENT(evict_fields),
	[VMT_REC_MARKER] = EVENT(marker_fields),
	[VMT_REC_DATA] = EVENT(data_fields),
	[VMT_REC_SWITCH] = EVENT(switch_fields),
	[VMT_REC_FORK] = EVENT(fork_fields),
	[VMT_REC_EXEC] = EVENT(exec_fields),
	[VMT_REC_EXIT] = EVENT(exit_fields),
	[VMT_REC_COMM] = EVENT(comm_fields),
	[VMT_REC_VMA] = EVENT(vma_fields),
	[VMT_REC_TASK] = EVENT(task_fields),
	[VMT_REC_DMA] = EVENT(dma_fields),
	[VMT_REC_PAGEMAP] = EVENT(pagemap_fields),
	[VMT_REC_EXACT] = EVENT(exact_fields),
	[VMT_REC_TYPES] = EVENT(unknown_fields),
};

static const char *const common_fields[] = { "cpu_id", "pid", "tid" };

static bt_field_class *enum_class_create(bt_trace_class *tc, const struct field_def *def)
{
	bt_field_class *fc = bt_field_class_enumeration_unsigned_create(tc);
	unsigned int nr_labels;
	const char *const *labels = vmt_field_names(def->names, &nr_labels);

	for (unsigned int i = 0; fc && i < nr_labels; i++) {
		bt_integer_range_set_unsigned *ranges;
		int bad;

		if (!strcmp(labels[i], "?"))
			continue;
		ranges = bt_integer_range_set_unsigned_create();
		bad = !ranges || bt_integer_range_set_unsigned_add_range(ranges, i, i) ||
		      bt_field_class_enumeration_unsigned_add_mapping(fc, labels[i], ranges);
		bt_integer_range_set_unsigned_put_ref(ranges);
		if (bad) {
			bt_field_class_put_ref(fc);
			return NULL;
		}
	}
	return fc;
}

static bt_field_class *field_class_create(bt_trace_class *tc, const struct field_def *def)
{
	bt_field_class *fc;

	switch (def->kind) {
	case F_ENUM:
		return enum_class_create(tc, def);
	case F_COMM:
	case F_PROT:
	case F_DATA:
	case F_VALUE:
		return bt_field_class_string_create(tc);
	}
	fc = bt_field_class_integer_unsigned_create(tc);
	if (fc && def->kind == F_HEX)
		bt_field_class_integer_set_preferred_display_base(fc,
			BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL);
	if (fc && def->kind == F_BIT)
		bt_field_class_integer_set_field_value_range(fc, 1);
	return fc;
}

/* A structure of @nr members; integers named @names, or made from @defs. */
static bt_field_class *struct_class_create(bt_trace_class *tc, const struct field_def *defs,
					   const char *const *names, unsigned int nr)
{
	bt_field_class *sc = bt_field_class_structure_create(tc);

	for (unsigned int i = 0; sc && i < nr; i++) {
		bt_field_class *fc = defs ? field_class_create(tc, &defs[i]) :
					    bt_field_class_integer_unsigned_create(tc);
		int bad = !fc || bt_field_class_structure_append_member(sc,
						defs ? defs[i].name : names[i], fc);

		bt_field_class_put_ref(fc);
		if (bad) {
			bt_field_class_put_ref(sc);
			return NULL;
		}
	}
	return sc;
}

static int event_class_create(struct vmt_bt2_classes *classes, bt_trace_class *tc,
			      unsigned int type)
{
	const struct event_def *def = &event_defs[type];
	const char *short_name = vmt_record_type_name(type);
	bt_event_class *ec = bt_event_class_create_with_id(classes->stream_class, type);
	bt_field_class *payload;
	char name[48];
	int bad;

	if (!ec)
		return -ENOMEM;
	classes->events[type] = ec;
	snprintf(name, sizeof(name), "vmtrace:%s",
		 short_name && type != VMT_REC_NONE ? short_name : "unknown");
	payload = struct_class_create(tc, def->fields, NULL, def->nr_fields);
	bad = !payload || bt_event_class_set_name(ec, name) ||
	      bt_event_class_set_payload_field_class(ec, payload);
	bt_field_class_put_ref(payload);
	return bad ? -ENOMEM : 0;
}

int vmt_bt2_classes_create(bt_trace_class *trace_class, bt_clock_class *clock_class,
			   struct vmt_bt2_classes *classes)
{
	bt_field_class *common;
	int bad;

	memset(classes, 0, sizeof(*classes));
	bt_trace_class_set_assigns_automatic_stream_class_id(trace_class, BT_FALSE);
	classes->stream_class = bt_stream_class_create_with_id(trace_class, 0);
	if (!classes->stream_class)
		return -ENOMEM;
	bt_stream_class_set_assigns_automatic_event_class_id(classes->stream_class, BT_FALSE);
	bt_stream_class_set_assigns_automatic_stream_id(classes->stream_class, BT_FALSE);
	common = struct_class_create(trace_class, NULL, common_fields,
				     sizeof(common_fields) / sizeof(common_fields[0]));
	bad = !common ||
	      bt_stream_class_set_name(classes->stream_class, "vmtrace") ||
	      bt_stream_class_set_default_clock_class(classes->stream_class, clock_class) ||
	      bt_stream_class_set_event_common_context_field_class(classes->stream_class, common);
	bt_field_class_put_ref(common);
	for (unsigned int t = 0; !bad && t < VMT_BT2_EVENT_CLASSES; t++)
		bad = event_class_create(classes, trace_class, t);
	if (bad) {
		vmt_bt2_classes_put(classes);
		return -ENOMEM;
	}
	return 0;
}

void vmt_bt2_classes_put(struct vmt_bt2_classes *classes)
{
	for (unsigned int t = 0; t < VMT_BT2_EVENT_CLASSES; t++)
		BT_EVENT_CLASS_PUT_REF_AND_RESET(classes->events[t]);
	BT_STREAM_CLASS_PUT_REF_AND_RESET(classes->stream_class);
}

const bt_event_class *vmt_bt2_event_class(const struct vmt_bt2_classes *classes,
					  const struct vmt_record *record)
{
	unsigned int type = record->hdr.type;

	return classes->events[type < VMT_REC_TYPES ? type : VMT_REC_TYPES];
}

static uint64_t member_value(const struct vmt_record *record, const struct field_def *def)
{
	const unsigned char *p = (const unsigned char *)record + def->offset;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (def->size) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	}
	memcpy(&u64, p, 8);
	return u64;
}

/*
 * @len bytes as text: printable ASCII as is, a backslash as \\ and other
 * bytes as \xNN, so that the string says exactly which bytes there were.
 */
static int set_escaped(bt_field *field, const unsigned char *p, size_t len)
{
	char buf[256];
	size_t n = 0;

	bt_field_string_clear(field);
	for (size_t i = 0; i < len; i++) {
		if (n + 4 >= sizeof(buf)) {
			if (bt_field_string_append_with_length(field, buf, n))
				return -ENOMEM;
			n = 0;
		}
		if (p[i] == '\\')
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\\\\");
		else if (p[i] < 0x20 || p[i] >= 0x7f)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\\x%02x", p[i]);
		else
			buf[n++] = (char)p[i];
	}
	return bt_field_string_append_with_length(field, buf, n) ? -ENOMEM : 0;
}

/*
 * An exact access's bytes in memory order, in hex; as dump prints it, "-"
 * when it has none (not decoded, or a bus record: cachesim --emit's line
 * moved) and "?" when a wide value's data is missing. Never empty: 2.0.4's
 * CTF round trip gave an empty string another event's value.
 */
static int set_value_hex(bt_field *field, const struct vmt_record *record, const void *data)
{
	const struct vmt_exact *e = &record->exact;
	const unsigned char *p = e->size > sizeof(e->value) ? data : e->value;
	char buf[2 * VMT_MAX_DATA_LEN + 1] = "-";

	if (e->size && !VMT_EXACT_BUS_CODE(e->flags)) {
		if (!p || (e->size > sizeof(e->value) && record->hdr.data_len < e->size))
			strcpy(buf, "?");
		else
			for (unsigned int i = 0; i < e->size && i < VMT_MAX_DATA_LEN; i++)
				snprintf(buf + 2 * i, 3, "%02x", p[i]);
	}
	return bt_field_string_set_value(field, buf) ? -ENOMEM : 0;
}

static int fill_field(bt_field *field, const struct vmt_record *record,
		      const struct field_def *def, const void *data)
{
	const char *comm;
	uint64_t v;
	size_t len;
	char prot[5];

	switch (def->kind) {
	case F_COMM:
		comm = (const char *)record + def->offset;
		len = strnlen(comm, VMT_COMM_LEN);
		return set_escaped(field, (const unsigned char *)comm, len);
	case F_DATA:
		return set_escaped(field, data, data ? record->hdr.data_len : 0);
	case F_VALUE:
		return set_value_hex(field, record, data);
	case F_PROT:
		v = member_value(record, def);
		snprintf(prot, sizeof(prot), "%c%c%c%c", v & VMT_PROT_READ ? 'r' : '-',
			 v & VMT_PROT_WRITE ? 'w' : '-', v & VMT_PROT_EXEC ? 'x' : '-',
			 v & VMT_PROT_SHARED ? 's' : 'p');
		return bt_field_string_set_value(field, prot) ? -ENOMEM : 0;
	}
	v = member_value(record, def);
	if (def->kind == F_BIT)
		v = !!(v & def->mask);
	else if (def->kind == F_ENUM && def->mask)
		v = (v & def->mask) >> __builtin_ctz(def->mask);
	bt_field_integer_unsigned_set_value(field, v);
	return 0;
}

int vmt_bt2_fill_event(bt_event *event, const struct vmt_record *record, const void *data)
{
	unsigned int type = record->hdr.type < VMT_REC_TYPES ? record->hdr.type : VMT_REC_TYPES;
	const struct event_def *def = &event_defs[type];
	bt_field *common = bt_event_borrow_common_context_field(event);
	bt_field *payload = bt_event_borrow_payload_field(event);
	const uint64_t ids[] = { record->hdr.cpu, record->hdr.pid, record->hdr.tid };

	for (unsigned int i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		bt_field_integer_unsigned_set_value(
			bt_field_structure_borrow_member_field_by_index(common, i), ids[i]);
	for (unsigned int i = 0; i < def->nr_fields; i++) {
		bt_field *field = bt_field_structure_borrow_member_field_by_index(payload, i);
		int err = fill_field(field, record, &def->fields[i], data);

		if (err)
			return err;
	}
	return 0;
}
