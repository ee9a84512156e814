// SPDX-License-Identifier: GPL-2.0
/*
 * The babeltrace2 plugin `vmtrace`, source component class `trace`
 * (source.vmtrace.trace): a vmtrace trace file as babeltrace2 messages.
 *
 * One babeltrace2 trace a file, one stream a CPU, every stream on one clock
 * class: "monotonic", 1 GHz, the records' ktime_get_mono_fast_ns() values as
 * they are. Its origin is the Unix epoch, at the offset the collector
 * measured when tracing started (the session's realtime_offset_ns, as LTTng
 * measures its own), so that its events merge by time with other traces of
 * the machine (LTTng's); clock-offset-ns sets another offset, and 0 makes
 * the origin the clock's own zero, as for a trace without that measure. The message
 * iterator reads the records merged by time (a libvmtrace cursor), so every
 * stream's events come in time order; seeking to a time starts the cursor
 * there (a time filter) instead of reading what comes before.
 *
 * Parameters: inputs (an array of one path: what babeltrace2's automatic
 * source discovery passes, which finds this class through the
 * babeltrace.support-info query), clock-offset-ns (signed integer).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vmtrace/trace.h>

#include "event_classes.h"

#define NS_PER_S	1000000000LL

struct vmt_source {
	char *path;
	int64_t clock_offset_ns;	/* the clock's origin from its own zero */
	bool clock_offset_given;	/* by the clock-offset-ns parameter */
	bt_trace *trace;
	struct vmt_bt2_classes classes;
	uint32_t nr_cpus;	/* highest CPU with records + 1 */
	bt_stream **streams;	/* stream of CPU c at [c]; NULL for a CPU without records */
};

enum iter_state { ITER_BEGIN, ITER_EVENTS, ITER_END, ITER_DONE };

struct vmt_source_iter {
	struct vmt_source *source;
	struct vmt_trace *trace;
	struct vmt_trace_cursor *cursor;
	enum iter_state state;
	uint32_t next_cpu;	/* ITER_BEGIN, ITER_END: the next stream to begin or end */
	uint64_t last_time;	/* of the last event: clock snapshots never go back */
	unsigned char data[VMT_MAX_DATA_LEN];
};

/* ---- The component ----------------------------------------------------- */

/* "PATH: " before libvmtrace's @message, unless it names the file already. */
static const char *path_prefix(const char *path, const char *message, char *buf, size_t size)
{
	if (!strncmp(message, path, strlen(path)))
		return "";
	snprintf(buf, size, "%s: ", path);
	return buf;
}

static int source_error(bt_self_component_source *self, const char *what, const char *path,
			int err)
{
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
		bt_self_component_source_as_self_component(self), "%s%s%s: %s", what,
		path ? " " : "", path ? path : "", strerror(-err));
	return err;
}

/* The parameters: inputs=["PATH"] (or path="PATH"), clock-offset-ns=N. */
static int read_params(bt_self_component_source *self, struct vmt_source *src,
		       const bt_value *params)
{
	const bt_value *inputs = bt_value_map_borrow_entry_value_const(params, "inputs");
	const bt_value *path = bt_value_map_borrow_entry_value_const(params, "path");
	const bt_value *offset = bt_value_map_borrow_entry_value_const(params, "clock-offset-ns");

	if (inputs && bt_value_is_array(inputs) && bt_value_array_get_length(inputs) == 1)
		path = bt_value_array_borrow_element_by_index_const(inputs, 0);
	else if (inputs)
		path = NULL;
	if (!path || !bt_value_is_string(path))
		return source_error(self, "expected one trace file: inputs=[\"FILE.vmt\"]",
				    NULL, -EINVAL);
	src->path = strdup(bt_value_string_get(path));
	if (!src->path)
		return -ENOMEM;
	src->clock_offset_given = offset != NULL;
	if (offset && bt_value_is_signed_integer(offset))
		src->clock_offset_ns = bt_value_integer_signed_get(offset);
	else if (offset)
		return source_error(self, "clock-offset-ns must be a signed integer", NULL,
				    -EINVAL);
	return 0;
}

/* "monotonic": nanoseconds of ktime_get_mono_fast_ns(). */
static bt_clock_class *clock_class_create(bt_self_component_source *self, int64_t offset_ns)
{
	bt_clock_class *cc = bt_clock_class_create(
		bt_self_component_source_as_self_component(self));
	int64_t s = offset_ns / NS_PER_S, ns = offset_ns % NS_PER_S;

	if (!cc)
		return NULL;
	if (ns < 0) {
		ns += NS_PER_S;
		s--;
	}
	if (bt_clock_class_set_name(cc, "monotonic") ||
	    bt_clock_class_set_description(cc, "ktime_get_mono_fast_ns(): CLOCK_MONOTONIC")) {
		bt_clock_class_put_ref(cc);
		return NULL;
	}
	bt_clock_class_set_frequency(cc, NS_PER_S);
	bt_clock_class_set_origin_is_unix_epoch(cc, offset_ns != 0);
	bt_clock_class_set_offset(cc, s, (uint64_t)ns);
	return cc;
}

/*
 * The CPUs with records: from the trace's streams, and, for a stream of
 * any CPU (the model codec's "mem"), from its records, read through once.
 */
static int find_cpus(struct vmt_source *src, struct vmt_trace *trace)
{
	uint32_t n = vmt_trace_nr_streams(trace);
	bool *has = calloc(UINT16_MAX + 1, sizeof(*has));
	struct vmt_trace_stream_stats st;
	struct vmt_record rec;
	int err;

	if (!has)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const struct vmt_trace_stream_info *info = vmt_trace_stream(trace, i);

		if (info->kind != VMT_STREAM_RECORDS)
			continue;
		if (info->cpu != VMT_TRACE_ANY_CPU) {
			if (info->cpu <= UINT16_MAX)
				has[info->cpu] = true;
			continue;
		}
		vmt_trace_stream_stats(trace, i, &st);
		for (uint64_t k = 0; k < st.entries; k++) {
			err = vmt_trace_read(trace, i, k, &rec);
			if (err) {
				free(has);
				return err;
			}
			has[rec.hdr.cpu] = true;
		}
	}
	for (uint32_t cpu = 0; cpu <= UINT16_MAX; cpu++)
		if (has[cpu])
			src->nr_cpus = cpu + 1;
	src->streams = calloc(src->nr_cpus ? src->nr_cpus : 1, sizeof(*src->streams));
	if (!src->streams) {
		free(has);
		return -ENOMEM;
	}
	for (uint32_t cpu = 0; cpu < src->nr_cpus; cpu++) {
		char name[24];

		if (!has[cpu])
			continue;
		src->streams[cpu] = bt_stream_create_with_id(src->classes.stream_class,
							     src->trace, cpu);
		snprintf(name, sizeof(name), "cpu%u", cpu);
		if (!src->streams[cpu] || bt_stream_set_name(src->streams[cpu], name)) {
			free(has);
			return -ENOMEM;
		}
	}
	free(has);
	return 0;
}

static int build_trace(bt_self_component_source *self, struct vmt_source *src)
{
	bt_trace_class *tc = NULL;
	bt_clock_class *cc = NULL;
	struct vmt_trace_error err;
	struct vmt_trace_session session;
	struct vmt_trace *trace = NULL;
	const char *base = strrchr(src->path, '/');
	int ret = vmt_trace_open(&trace, src->path, 0, &err);

	if (ret) {
		char buf[512];

		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			bt_self_component_source_as_self_component(self), "%s%s",
			path_prefix(src->path, err.message, buf, sizeof(buf)), err.message);
		return ret;
	}
	/* Without clock-offset-ns, the epoch is where the trace measured it. */
	if (!src->clock_offset_given && !vmt_trace_session(trace, &session))
		src->clock_offset_ns = session.realtime_offset_ns;
	ret = -ENOMEM;
	tc = bt_trace_class_create(bt_self_component_source_as_self_component(self));
	cc = clock_class_create(self, src->clock_offset_ns);
	if (!tc || !cc || vmt_bt2_classes_create(tc, cc, &src->classes))
		goto out;
	src->trace = bt_trace_create(tc);
	if (!src->trace || bt_trace_set_name(src->trace, base ? base + 1 : src->path) ||
	    bt_trace_set_environment_entry_string(src->trace, "tracer_name", "vmtrace"))
		goto out;
	ret = find_cpus(src, trace);
out:
	vmt_trace_close(trace);
	bt_clock_class_put_ref(cc);
	bt_trace_class_put_ref(tc);
	return ret;
}

static void source_free(struct vmt_source *src)
{
	for (uint32_t c = 0; c < src->nr_cpus; c++)
		bt_stream_put_ref(src->streams[c]);
	free(src->streams);
	vmt_bt2_classes_put(&src->classes);
	bt_trace_put_ref(src->trace);
	free(src->path);
	free(src);
}

static bt_component_class_initialize_method_status
source_initialize(bt_self_component_source *self,
		  bt_self_component_source_configuration *config __attribute__((unused)),
		  const bt_value *params, void *data __attribute__((unused)))
{
	struct vmt_source *src = calloc(1, sizeof(*src));
	int err = src ? read_params(self, src, params) : -ENOMEM;

	if (!err)
		err = build_trace(self, src);
	if (!err && bt_self_component_source_add_output_port(self, "out", NULL, NULL))
		err = -ENOMEM;
	if (err) {
		if (src)
			source_free(src);
		return err == -ENOMEM ? BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR :
					BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	bt_self_component_set_data(bt_self_component_source_as_self_component(self), src);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void source_finalize(bt_self_component_source *self)
{
	source_free(bt_self_component_get_data(
		bt_self_component_source_as_self_component(self)));
}

/*
 * babeltrace.support-info: a file that starts with the trace file's magic
 * is ours, surely (weight 1); anything else is not (0).
 */
static bt_component_class_query_method_status
source_query(bt_self_component_class_source *cls __attribute__((unused)),
	     bt_private_query_executor *exec __attribute__((unused)), const char *object,
	     const bt_value *params, void *data __attribute__((unused)),
	     const bt_value **result)
{
	static const char magic[8] = "VMTRACE";
	const bt_value *type, *input;
	double weight = 0;
	char head[sizeof(magic)];
	FILE *f;

	if (strcmp(object, "babeltrace.support-info"))
		return BT_COMPONENT_CLASS_QUERY_METHOD_STATUS_UNKNOWN_OBJECT;
	type = bt_value_map_borrow_entry_value_const(params, "type");
	input = bt_value_map_borrow_entry_value_const(params, "input");
	if (type && input && bt_value_is_string(type) && bt_value_is_string(input) &&
	    !strcmp(bt_value_string_get(type), "file")) {
		f = fopen(bt_value_string_get(input), "rb");
		if (f && fread(head, 1, sizeof(head), f) == sizeof(head) &&
		    !memcmp(head, magic, sizeof(magic)))
			weight = 1;
		if (f)
			fclose(f);
	}
	*result = bt_value_real_create_init(weight);
	return *result ? BT_COMPONENT_CLASS_QUERY_METHOD_STATUS_OK :
			 BT_COMPONENT_CLASS_QUERY_METHOD_STATUS_MEMORY_ERROR;
}

/* ---- The message iterator ------------------------------------------------ */

static int iter_error(bt_self_message_iterator *self, const struct vmt_source_iter *it,
		      const char *what, int err)
{
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self, "%s: %s: %s",
		it->source->path, what, it->trace ? vmt_trace_error_message(it->trace) :
						    strerror(-err));
	return err;
}

/* Start over from the first record at or after @from (the clock's value). */
static int iter_restart(struct vmt_source_iter *it, uint64_t from)
{
	struct vmt_trace_filter filter = {
		.time_range = from > 0, .from_time = from, .to_time = UINT64_MAX,
	};
	int err;

	vmt_trace_cursor_free(it->cursor);
	it->cursor = NULL;
	err = vmt_trace_set_filter(it->trace, &filter);
	if (!err)
		err = vmt_trace_cursor_create(it->trace, VMT_ORDER_TIME, &it->cursor);
	it->state = ITER_BEGIN;
	it->next_cpu = 0;
	it->last_time = from;
	return err;
}

static bt_message_iterator_class_initialize_method_status
iter_initialize(bt_self_message_iterator *self,
		bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *port __attribute__((unused)))
{
	struct vmt_source_iter *it = calloc(1, sizeof(*it));
	struct vmt_trace_error err;
	int ret;

	if (!it)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	it->source = bt_self_component_get_data(bt_self_message_iterator_borrow_component(self));
	ret = vmt_trace_open(&it->trace, it->source->path, 0, &err);
	if (ret) {
		char buf[512];

		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self, "%s%s",
			path_prefix(it->source->path, err.message, buf, sizeof(buf)), err.message);
		free(it);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	ret = iter_restart(it, 0);
	if (ret) {
		iter_error(self, it, "reading", ret);
		vmt_trace_close(it->trace);
		free(it);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	bt_self_message_iterator_configuration_set_can_seek_forward(config, BT_TRUE);
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void iter_finalize(bt_self_message_iterator *self)
{
	struct vmt_source_iter *it = bt_self_message_iterator_get_data(self);

	vmt_trace_cursor_free(it->cursor);
	vmt_trace_close(it->trace);
	free(it);
}

/* The next stream from it->next_cpu on, or NULL past the last. */
static bt_stream *next_stream(struct vmt_source_iter *it)
{
	struct vmt_source *src = it->source;

	while (it->next_cpu < src->nr_cpus && !src->streams[it->next_cpu])
		it->next_cpu++;
	return it->next_cpu < src->nr_cpus ? src->streams[it->next_cpu++] : NULL;
}

/* The event message of the cursor's next record; NULL at the end (*@err 0) or on error. */
static bt_message *next_event(bt_self_message_iterator *self, struct vmt_source_iter *it,
			      int *err)
{
	struct vmt_source *src = it->source;
	const struct vmt_record *rec;
	const void *data = NULL;
	bt_message *msg;
	uint32_t stream_id;
	int ret = vmt_trace_cursor_next(it->cursor, &rec, &stream_id);

	*err = ret < 0 ? iter_error(self, it, "reading", ret) : 0;
	if (ret <= 0)
		return NULL;
	if (rec->hdr.cpu >= src->nr_cpus || !src->streams[rec->hdr.cpu]) {
		*err = iter_error(self, it, "a record of a CPU without a stream", -EBADMSG);
		return NULL;
	}
	if (rec->hdr.data_len && vmt_trace_record_data(it->trace, rec, it->data,
						       sizeof(it->data)) >= 0)
		data = it->data;
	/* A record out of time order (never in a kernel's trace) takes the time before it. */
	if (rec->hdr.time_ns > it->last_time)
		it->last_time = rec->hdr.time_ns;
	msg = bt_message_event_create_with_default_clock_snapshot(self,
		vmt_bt2_event_class(&src->classes, rec), src->streams[rec->hdr.cpu],
		it->last_time);
	if (!msg || vmt_bt2_fill_event(bt_message_event_borrow_event(msg), rec, data)) {
		bt_message_put_ref(msg);
		*err = -ENOMEM;
		return NULL;
	}
	return msg;
}

static bt_message_iterator_class_next_method_status
iter_next(bt_self_message_iterator *self, bt_message_array_const msgs, uint64_t capacity,
	  uint64_t *count)
{
	struct vmt_source_iter *it = bt_self_message_iterator_get_data(self);
	uint64_t n = 0;
	int err = 0;

	while (n < capacity && it->state != ITER_DONE && !err) {
		bt_stream *stream = NULL;
		bt_message *msg = NULL;

		switch (it->state) {
		case ITER_BEGIN:
		case ITER_END:
			stream = next_stream(it);
			if (stream && it->state == ITER_BEGIN)
				msg = bt_message_stream_beginning_create(self, stream);
			else if (stream)
				msg = bt_message_stream_end_create(self, stream);
			else
				it->state = it->state == ITER_BEGIN ? ITER_EVENTS : ITER_DONE;
			if (stream && !msg)
				err = -ENOMEM;
			break;
		case ITER_EVENTS:
			msg = next_event(self, it, &err);
			if (!msg && !err) {
				it->state = ITER_END;
				it->next_cpu = 0;
			}
			break;
		case ITER_DONE:
			break;
		}
		if (msg)
			msgs[n++] = msg;
	}
	if (err) {
		/* The messages made before the error are not given. */
		while (n)
			bt_message_put_ref(msgs[--n]);
		*count = 0;
		return err == -ENOMEM ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR :
					BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
	*count = n;
	return n ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK :
		   BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
}

static bt_message_iterator_class_seek_beginning_method_status
iter_seek_beginning(bt_self_message_iterator *self)
{
	struct vmt_source_iter *it = bt_self_message_iterator_get_data(self);
	int err = iter_restart(it, 0);

	return err ? iter_error(self, it, "seeking", err),
		BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_ERROR :
		BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_OK;
}

static bt_message_iterator_class_can_seek_beginning_method_status
iter_can_seek_beginning(bt_self_message_iterator *self __attribute__((unused)), bt_bool *can)
{
	*can = BT_TRUE;
	return BT_MESSAGE_ITERATOR_CLASS_CAN_SEEK_BEGINNING_METHOD_STATUS_OK;
}

/* The clock's value at @ns from its origin is @ns less the offset. */
static bt_message_iterator_class_seek_ns_from_origin_method_status
iter_seek_ns(bt_self_message_iterator *self, int64_t ns)
{
	struct vmt_source_iter *it = bt_self_message_iterator_get_data(self);
	int64_t offset = it->source->clock_offset_ns;
	uint64_t from = ns > offset ? (uint64_t)ns - (uint64_t)offset : 0;
	int err = iter_restart(it, from);

	return err ? iter_error(self, it, "seeking", err),
		BT_MESSAGE_ITERATOR_CLASS_SEEK_NS_FROM_ORIGIN_METHOD_STATUS_ERROR :
		BT_MESSAGE_ITERATOR_CLASS_SEEK_NS_FROM_ORIGIN_METHOD_STATUS_OK;
}

static bt_message_iterator_class_can_seek_ns_from_origin_method_status
iter_can_seek_ns(bt_self_message_iterator *self __attribute__((unused)),
		 int64_t ns __attribute__((unused)), bt_bool *can)
{
	*can = BT_TRUE;
	return BT_MESSAGE_ITERATOR_CLASS_CAN_SEEK_NS_FROM_ORIGIN_METHOD_STATUS_OK;
}

BT_PLUGIN_MODULE();
BT_PLUGIN(vmtrace);
BT_PLUGIN_DESCRIPTION("Read vmtrace memory-reference traces (.vmt files).");
BT_PLUGIN_LICENSE("GPL-2.0");
BT_PLUGIN_SOURCE_COMPONENT_CLASS(trace, iter_next);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_DESCRIPTION(trace,
	"Read a vmtrace trace file: one stream a CPU, one event class a record type.");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_HELP(trace,
	"Parameters: inputs=[\"FILE.vmt\"], clock-offset-ns=NS (the clock's origin is then the "
	"Unix epoch, NS before the trace's zero; by default, the offset the trace measured "
	"when it started; 0: the trace's own zero). See docs/babeltrace2.md.");
BT_PLUGIN_SOURCE_COMPONENT_CLASS_INITIALIZE_METHOD(trace, source_initialize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_FINALIZE_METHOD(trace, source_finalize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_QUERY_METHOD(trace, source_query);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(trace, iter_initialize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(trace, iter_finalize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHODS(trace,
	iter_seek_beginning, iter_can_seek_beginning);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_SEEK_NS_FROM_ORIGIN_METHODS(trace,
	iter_seek_ns, iter_can_seek_ns);
