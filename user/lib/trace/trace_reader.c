// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The trace reader. Opening reads the file header and the directory (or, to
 * verify or repair, scans every block); entries are then reached through
 * the directory, one frame read and decompressed at a time, and each
 * stream keeps its last decoded frame.
 *
 * Nothing read from the file is trusted: sizes are checked against the file
 * and the format's limits before anything is allocated, and every error
 * names the frame (its number in file order) or the byte offset.
 *
 * Outline, in the file's order:
 *   - the handle and its error (vmt_trace_fail());
 *   - opening: the directory (load_directory()), or every block scanned
 *     (scan_blocks()) to verify or to repair (vmt_trace_scan_for_repair()),
 *     or to follow a file still being written (vmt_trace_follow() scans on
 *     from where the last scan stopped), from a path or from memory;
 *   - what the directory says: streams, frames, the filter (a copy in one
 *     allocation, vmt_trace_filter_copy(), which cursors take too),
 *     statistics and a frame's span (vmt_trace_frame_span(), for
 *     trace_cursor.c);
 *   - reading: a frame read, checked and decompressed (decode_frame(),
 *     which changes nothing in the trace) into its stream's cache
 *     (load_frame()), or taken from the frames decoded ahead on threads
 *     (frame_readahead.c, vmt_trace_set_threads(): each stream's next
 *     frames are queued as one is loaded; vmt_trace_skip_values(): exact
 *     records decoded without their values), entry i (vmt_trace_read(): the frame by binary
 *     search of the stream's first entries), and frame seeking
 *     (vmt_trace_seek_time(): the first frame whose last time is at or
 *     after t, by binary search of the directory when the stream is sorted,
 *     then a search inside it);
 *   - vmt_trace_check(): every frame decoded;
 *   - trace sets (vmt_trace_open_set(), or a set file that
 *     vmt_trace_open() finds: trace_set.c reads it): each file opened as a
 *     trace of its own, its streams and frames made the set's (the data and
 *     order streams joined, times moved so that the files follow each
 *     other), and each of its frames decoded by its own trace, then its
 *     entries made the set's (decode_member_frame()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec/codec.h"
#include "trace/frame_readahead.h"
#include "trace/trace_reader.h"
#include "trace/trace_set.h"

struct reader_stream {
	struct vmt_trace_stream_info info;
	uint64_t *frames;		/* indices into trace->frames, in entry order */
	uint64_t nr_frames;
	uint64_t entries;
	bool time_sorted;
	uint64_t cached_frame;		/* index into trace->frames, or UINT64_MAX */
	struct vmt_frame_buf cache;	/* frame cached_frame, decoded */
	uint64_t ahead_limit;		/* read no frame ahead from this entry on */
};

struct vmt_trace {
	int fd;				/* -1 for a trace in memory */
	const uint8_t *mem;
	uint64_t size;
	uint64_t data_end;		/* where the blocks end: the directory, or the file's end */
	bool growing;			/* VMT_TRACE_OPEN_GROWING: vmt_trace_follow() reads on */
	bool ended;			/* growing, and the scan reached the directory */
	uint32_t version;		/* the file header's format version */
	struct reader_stream *streams;
	uint32_t nr_streams;
	struct vmt_frame_ref *frames;	/* in file order */
	uint64_t nr_frames, frames_capacity;
	uint64_t frames_decoded;	/* here, not counting the read-ahead's */
	struct vmt_readahead *readahead;	/* NULL: one thread */
	uint32_t ahead;			/* frames a stream queues ahead */
	bool skip_values;		/* vmt_trace_skip_values() */
	struct vmt_buf payload;
	struct vmt_trace_filter *filter;	/* vmt_trace_filter_copy()'s */
	/* A trace set (vmt_trace_open_set()): its files, and where each frame is */
	struct set_member *members;
	uint32_t nr_members;
	struct frame_source *sources;	/* [frame]: its file and number there */
	char error[256];
};

/*
 * A file of a trace set, open as a trace of its own, and what its entries
 * become in the set: its streams' numbers there, its times moved later by
 * @time_shift, its data offsets by @data_base.
 */
struct set_member {
	struct vmt_trace *trace;
	char *path;
	uint32_t *stream_map;		/* [its stream]: the set's */
	uint64_t time_shift;
	uint64_t data_base;
};

struct frame_source {
	uint32_t member;
	uint64_t frame;
};

int vmt_trace_fail(struct vmt_trace *t, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->error, sizeof(t->error), fmt, ap);
	va_end(ap);
	return err;
}

const char *vmt_trace_error_message(const struct vmt_trace *trace)
{
	return trace->error;
}

/* Reads exactly @len bytes at @offset; a short read is a truncated file. */
/*
 * Reads @len bytes at @offset, or says why not in @why. It changes nothing
 * in @t, so that frames may be read on several threads (frame_readahead.c).
 */
static int pread_exact(const struct vmt_trace *t, uint64_t offset, void *buf, size_t len,
		       const char *what, char *why, size_t why_len)
{
	uint8_t *p = buf;

	if (offset > t->size || len > t->size - offset) {
		snprintf(why, why_len, "%s at byte %llu: file truncated (%llu bytes)", what,
			 (unsigned long long)offset, (unsigned long long)t->size);
		return -EIO;
	}
	if (t->fd < 0) {
		memcpy(buf, t->mem + offset, len);
		return 0;
	}
	while (len) {
		ssize_t n = pread(t->fd, p, len, (off_t)offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? -errno : -EIO;

			snprintf(why, why_len, "%s at byte %llu: %s", what, (unsigned long long)offset,
				 n < 0 ? strerror(-err) : "file truncated");
			return err;
		}
		p += n;
		len -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}

static int trace_pread(struct vmt_trace *t, uint64_t offset, void *buf, size_t len,
		       const char *what)
{
	char why[sizeof(t->error)];
	int err = pread_exact(t, offset, buf, len, what, why, sizeof(why));

	return err ? vmt_trace_fail(t, err, "%s", why) : 0;
}

static int add_stream(struct vmt_trace *t, const struct vmt_trace_stream_info *info)
{
	struct reader_stream *streams;

	streams = realloc(t->streams, (t->nr_streams + 1) * sizeof(*streams));
	if (!streams)
		return vmt_trace_fail(t, -ENOMEM, "out of memory");
	t->streams = streams;
	memset(&streams[t->nr_streams], 0, sizeof(*streams));
	streams[t->nr_streams].info = *info;
	streams[t->nr_streams].cached_frame = UINT64_MAX;
	streams[t->nr_streams].ahead_limit = UINT64_MAX;
	streams[t->nr_streams].time_sorted = info->time_offset != VMT_TRACE_NO_TIME;
	t->nr_streams++;
	return 0;
}

/*
 * Checks that frame @ref continues its stream, and adds it to the list
 * (@frame_no names it in messages).
 */
static int add_frame(struct vmt_trace *t, const struct vmt_frame_ref *ref)
{
	uint64_t frame_no = t->nr_frames;
	struct reader_stream *s;

	if (ref->stream_id >= t->nr_streams)
		return vmt_trace_fail(t, -EBADMSG, "frame %llu at byte %llu: no stream %u",
				      (unsigned long long)frame_no, (unsigned long long)ref->offset,
				      ref->stream_id);
	s = &t->streams[ref->stream_id];
	if (!ref->entry_count ||
	    (uint64_t)ref->entry_count * s->info.entry_size > VMT_MAX_FRAME_RAW ||
	    ref->first_entry != s->entries || (ref->flags & ~VMT_FRAME_FLAGS) ||
	    ref->flags == VMT_FRAME_FLAGS)
		return vmt_trace_fail(t, -EBADMSG,
				      "frame %llu at byte %llu: %u entries from %llu (flags 0x%x) do not continue stream %u at entry %llu",
				      (unsigned long long)frame_no, (unsigned long long)ref->offset,
				      ref->entry_count, (unsigned long long)ref->first_entry,
				      ref->flags, ref->stream_id, (unsigned long long)s->entries);
	if (t->nr_frames == t->frames_capacity) {
		uint64_t capacity = t->frames_capacity ? 2 * t->frames_capacity : 64;
		struct vmt_frame_ref *frames = realloc(t->frames, capacity * sizeof(*frames));

		if (!frames)
			return vmt_trace_fail(t, -ENOMEM, "out of memory");
		t->frames = frames;
		t->frames_capacity = capacity;
	}
	if (!(ref->flags & VMT_FRAME_TIME_SORTED) ||
	    (s->nr_frames && ref->first_time < t->frames[s->frames[s->nr_frames - 1]].last_time))
		s->time_sorted = false;
	if ((s->nr_frames & (s->nr_frames - 1)) == 0) {
		uint64_t *idx = realloc(s->frames, (s->nr_frames ? 2 * s->nr_frames : 1) *
					sizeof(*idx));

		if (!idx)
			return vmt_trace_fail(t, -ENOMEM, "out of memory");
		s->frames = idx;
	}
	s->frames[s->nr_frames++] = frame_no;
	s->entries += ref->entry_count;
	t->frames[t->nr_frames++] = *ref;
	return 0;
}

static int load_directory(struct vmt_trace *t)
{
	uint8_t trailer[VMT_TRAILER_SIZE], *dir = NULL, *p;
	uint64_t dir_offset, dir_size, nr_frames;
	uint32_t dir_crc, nr_streams;
	char why[160];
	int err;

	if (t->size < VMT_FILE_HEADER_SIZE + VMT_TRAILER_SIZE)
		return vmt_trace_fail(t, -ENODATA,
				      "no directory: the file ends at byte %llu (the writer did not finish? 'vmtrace verify --repair' rebuilds it)",
				      (unsigned long long)t->size);
	err = trace_pread(t, t->size - VMT_TRAILER_SIZE, trailer, sizeof(trailer), "trailer");
	if (err)
		return err;
	err = vmt_trailer_decode(trailer, &dir_offset, &dir_size, &dir_crc, why, sizeof(why));
	if (err)
		return vmt_trace_fail(t, err, "trailer at byte %llu: %s%s",
				      (unsigned long long)(t->size - VMT_TRAILER_SIZE), why,
				      err == -ENODATA ? "; 'vmtrace verify --repair' rebuilds the directory" : "");
	if (dir_offset < VMT_FILE_HEADER_SIZE || dir_size < VMT_DIR_HEADER_SIZE ||
	    dir_size > t->size || dir_offset != t->size - VMT_TRAILER_SIZE - dir_size)
		return vmt_trace_fail(t, -EBADMSG,
				      "trailer at byte %llu: nonsense directory place (%llu bytes at byte %llu in a %llu-byte file)",
				      (unsigned long long)(t->size - VMT_TRAILER_SIZE),
				      (unsigned long long)dir_size, (unsigned long long)dir_offset,
				      (unsigned long long)t->size);
	t->data_end = dir_offset;
	dir = malloc(dir_size);
	if (!dir)
		return vmt_trace_fail(t, -ENOMEM, "out of memory for a %llu-byte directory",
				      (unsigned long long)dir_size);
	err = trace_pread(t, dir_offset, dir, dir_size, "directory");
	if (err)
		goto out;
	err = -EBADMSG;
	if (!vmt_checksum_matches(dir_crc, vmt_crc32(dir, dir_size))) {
		vmt_trace_fail(t, err, "directory at byte %llu: checksum mismatch (stored 0x%08x, computed 0x%08x)",
			       (unsigned long long)dir_offset, dir_crc, vmt_crc32(dir, dir_size));
		goto out;
	}
	nr_streams = vmt_get32(dir + 4);
	nr_frames = vmt_get64(dir + 8);
	if (memcmp(dir, VMT_MAGIC_DIRECTORY, 4) || nr_streams > VMT_MAX_STREAMS ||
	    nr_frames > dir_size / VMT_DIR_FRAME_SIZE ||
	    dir_size != VMT_DIR_HEADER_SIZE + (uint64_t)nr_streams * VMT_STREAM_BLOCK_SIZE +
			nr_frames * VMT_DIR_FRAME_SIZE) {
		vmt_trace_fail(t, err, "directory at byte %llu: wrong magic or nonsense counts (%u streams, %llu frames in %llu bytes)",
			       (unsigned long long)dir_offset, nr_streams,
			       (unsigned long long)nr_frames, (unsigned long long)dir_size);
		goto out;
	}
	p = dir + VMT_DIR_HEADER_SIZE;
	for (uint32_t i = 0; i < nr_streams; i++, p += VMT_STREAM_BLOCK_SIZE) {
		struct vmt_trace_stream_info info;

		err = vmt_stream_block_decode(p, &info, why, sizeof(why));
		if (!err && info.id != i)
			err = -EBADMSG, snprintf(why, sizeof(why), "stream %u listed as stream %u", info.id, i);
		if (err) {
			vmt_trace_fail(t, err, "directory at byte %llu: %s", (unsigned long long)dir_offset,
				       why);
			goto out;
		}
		err = add_stream(t, &info);
		if (err)
			goto out;
	}
	for (uint64_t i = 0; i < nr_frames; i++, p += VMT_DIR_FRAME_SIZE) {
		struct vmt_frame_ref ref;
		uint64_t prev_end = i ? t->frames[i - 1].offset + VMT_FRAME_HEADER_SIZE
				      : VMT_FILE_HEADER_SIZE;

		vmt_frame_ref_decode(p, &ref);
		if (ref.offset < prev_end || ref.offset > dir_offset - VMT_FRAME_HEADER_SIZE) {
			err = vmt_trace_fail(t, -EBADMSG, "directory: frame %llu at nonsense byte offset %llu",
					     (unsigned long long)i, (unsigned long long)ref.offset);
			goto out;
		}
		err = add_frame(t, &ref);
		if (err)
			goto out;
	}
	err = 0;
out:
	free(dir);
	return err;
}

/*
 * Reads and checks the header of frame @frame_no at @offset and its
 * payload's checksum, leaving the payload in @payload; or says why not in
 * @why. Like pread_exact(), it changes nothing in @t.
 */
static int read_payload(const struct vmt_trace *t, uint64_t frame_no, uint64_t offset,
			struct vmt_frame_header *h, struct vmt_buf *payload, char *why,
			size_t why_len)
{
	uint8_t raw[VMT_FRAME_HEADER_SIZE];
	char reason[160];
	int err;

	err = pread_exact(t, offset, raw, sizeof(raw), "frame header", reason, sizeof(reason));
	if (err)
		goto fail;
	err = vmt_frame_header_decode(raw, h, reason, sizeof(reason));
	if (!err && h->stream_id >= t->nr_streams)
		err = -EBADMSG, snprintf(reason, sizeof(reason), "no stream %u", h->stream_id);
	if (!err)
		err = vmt_frame_header_check_sizes(h, t->streams[h->stream_id].info.entry_size,
						   reason, sizeof(reason));
	if (!err && h->comp_size > t->data_end - offset - VMT_FRAME_HEADER_SIZE)
		err = -EIO, snprintf(reason, sizeof(reason),
				     "%u-byte payload runs past byte %llu (truncated?)",
				     h->comp_size, (unsigned long long)t->data_end);
	if (err) {
		snprintf(why, why_len, "frame %llu at byte %llu: %s", (unsigned long long)frame_no,
			 (unsigned long long)offset, reason);
		return err;
	}
	if (vmt_buf_reserve(payload, h->comp_size ? h->comp_size : 1)) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	err = pread_exact(t, offset + VMT_FRAME_HEADER_SIZE, payload->data, h->comp_size,
			  "frame payload", reason, sizeof(reason));
	if (err)
		goto fail;
	payload->size = h->comp_size;
	if (!vmt_checksum_matches(h->payload_crc, vmt_crc32(payload->data, h->comp_size))) {
		snprintf(why, why_len,
			 "frame %llu at byte %llu: payload checksum mismatch (stored 0x%08x, computed 0x%08x)",
			 (unsigned long long)frame_no, (unsigned long long)offset, h->payload_crc,
			 vmt_crc32(payload->data, h->comp_size));
		return -EBADMSG;
	}
	return 0;
fail:
	snprintf(why, why_len, "frame %llu: %s", (unsigned long long)frame_no, reason);
	return err;
}

/*
 * Scans the blocks from the file header on. With @tolerant, scanning stops
 * quietly at the first incomplete or corrupt block and @report says where
 * and why; without, that block is an error.
 */
static int scan_blocks(struct vmt_trace *t, uint64_t offset, bool tolerant,
		       struct vmt_trace_repair_report *report)
{
	char why[200] = "";
	int err = 0;

	while (offset < t->size) {
		uint8_t block[VMT_FRAME_HEADER_SIZE];
		struct vmt_trace_stream_info info;
		struct vmt_frame_header h;
		struct vmt_frame_ref ref;

		if (t->size - offset < 4) {
			snprintf(why, sizeof(why), "partial block at byte %llu", (unsigned long long)offset);
			err = -EIO;
			break;
		}
		err = trace_pread(t, offset, block, 4, "block");
		if (err)
			break;
		if (!memcmp(block, VMT_MAGIC_DIRECTORY, 4)) {
			snprintf(why, sizeof(why), "directory at byte %llu", (unsigned long long)offset);
			t->ended = true;
			break;
		}
		if (!memcmp(block, VMT_MAGIC_STREAM, 4)) {
			if (t->size - offset < VMT_STREAM_BLOCK_SIZE) {
				snprintf(why, sizeof(why), "stream block at byte %llu: truncated",
					 (unsigned long long)offset);
				err = -EIO;
				break;
			}
			err = trace_pread(t, offset, block, VMT_STREAM_BLOCK_SIZE, "stream block");
			if (!err)
				err = vmt_stream_block_decode(block, &info, why, sizeof(why));
			if (!err && info.id != t->nr_streams)
				err = -EBADMSG, snprintf(why, sizeof(why), "stream %u out of order (expected %u)",
							 info.id, t->nr_streams);
			if (!err && t->nr_streams >= VMT_MAX_STREAMS)
				err = -EBADMSG, snprintf(why, sizeof(why), "too many streams");
			if (err) {
				char detail[160];

				snprintf(detail, sizeof(detail), "%s", why);
				snprintf(why, sizeof(why), "stream block at byte %llu: %.150s",
					 (unsigned long long)offset, detail);
				break;
			}
			err = add_stream(t, &info);
			if (err)
				return err;
			offset += VMT_STREAM_BLOCK_SIZE;
			continue;
		}
		if (memcmp(block, VMT_MAGIC_FRAME, 4)) {
			snprintf(why, sizeof(why),
				 "block at byte %llu: unknown magic (after %llu frames)",
				 (unsigned long long)offset, (unsigned long long)t->nr_frames);
			err = -EBADMSG;
			break;
		}
		t->data_end = t->size;
		err = read_payload(t, t->nr_frames, offset, &h, &t->payload, t->error,
				   sizeof(t->error));
		if (!err) {
			ref = (struct vmt_frame_ref){
				.offset = offset, .first_entry = h.first_entry,
				.first_time = h.first_time, .last_time = h.last_time,
				.stream_id = h.stream_id, .entry_count = h.entry_count,
				.flags = h.flags,
			};
			err = add_frame(t, &ref);
		}
		if (err) {
			snprintf(why, sizeof(why), "%.190s", t->error);
			break;
		}
		offset += VMT_FRAME_HEADER_SIZE + h.comp_size;
	}
	t->data_end = offset;
	if (report) {
		report->frames = t->nr_frames;
		report->streams = t->nr_streams;
		report->data_end = offset;
		report->dropped_bytes = t->size - offset;
		snprintf(report->reason, sizeof(report->reason), "%s",
			 offset == t->size ? "end of file" : why);
	}
	if (err == -ENOMEM || (err && !tolerant))
		return vmt_trace_fail(t, err, "%s", why);
	return 0;
}

static void trace_free(struct vmt_trace *t)
{
	if (!t)
		return;
	/* First the workers, which read the streams and frames. */
	vmt_readahead_destroy(t->readahead);
	for (uint32_t i = 0; i < t->nr_streams; i++) {
		free(t->streams[i].frames);
		vmt_frame_buf_free(&t->streams[i].cache);
	}
	free(t->streams);
	free(t->frames);
	vmt_buf_free(&t->payload);
	free(t->filter);
	for (uint32_t i = 0; i < t->nr_members; i++) {
		trace_free(t->members[i].trace);
		free(t->members[i].path);
		free(t->members[i].stream_map);
	}
	free(t->members);
	free(t->sources);
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}

void vmt_trace_close(struct vmt_trace *trace)
{
	if (trace)
		trace_free(trace);
}

static int trace_open_common(struct vmt_trace *t, unsigned int flags, bool tolerant,
			     struct vmt_trace_repair_report *report)
{
	uint8_t header[VMT_FILE_HEADER_SIZE];
	int err;

	if (t->size < VMT_FILE_HEADER_SIZE)
		return vmt_trace_fail(t, -EIO, "file header: file truncated at byte %llu (a header is %u bytes)",
				      (unsigned long long)t->size, VMT_FILE_HEADER_SIZE);
	err = trace_pread(t, 0, header, sizeof(header), "file header");
	if (err)
		return err;
	err = vmt_file_header_check(header, t->error, sizeof(t->error));
	if (err)
		return err;
	t->version = vmt_get32(header + 8);
	if (flags & VMT_TRACE_OPEN_GROWING) {
		t->growing = true;
		return scan_blocks(t, VMT_FILE_HEADER_SIZE, true, NULL);
	}
	if (flags & VMT_TRACE_OPEN_SCAN)
		return scan_blocks(t, VMT_FILE_HEADER_SIZE, tolerant, report);
	return load_directory(t);
}

/* The blocks written since: scanning goes on from where it stopped. */
int vmt_trace_follow(struct vmt_trace *t)
{
	struct stat st;
	int err;

	if (!t->growing)
		return vmt_trace_fail(t, -EINVAL, "the trace was not opened to follow (VMT_TRACE_OPEN_GROWING)");
	if (t->ended)
		return 1;
	if (fstat(t->fd, &st))
		return vmt_trace_fail(t, -errno, "fstat: %s", strerror(errno));
	if ((uint64_t)st.st_size < t->data_end)
		return vmt_trace_fail(t, -EIO, "the file shrank to %lld bytes, below its blocks' %llu",
				      (long long)st.st_size, (unsigned long long)t->data_end);
	if ((uint64_t)st.st_size == t->data_end)
		return 0;
	t->size = (uint64_t)st.st_size;
	err = scan_blocks(t, t->data_end, true, NULL);
	return err ? err : t->ended;
}

uint32_t vmt_trace_format_version(const struct vmt_trace *trace)
{
	return trace->version;
}

static struct vmt_trace *trace_new(void)
{
	struct vmt_trace *t = calloc(1, sizeof(*t));

	if (t)
		t->fd = -1;
	return t;
}

/*
 * "@name: " before the message in @msg (@size bytes, at most 256), as much
 * of the name as leaves room for the message.
 */
static void name_message(char *msg, size_t size, const char *name)
{
	char why[256];
	size_t n = strnlen(msg, size - 1), room, at;

	if (size > sizeof(why))
		size = sizeof(why);
	room = size - 1;
	n = n < room ? n : room;
	memcpy(why, msg, n);
	at = (size_t)snprintf(msg, size, "%.*s: ", (int)(n + 3 < room ? room - n - 3 : 0), name);
	n = at + n <= room ? n : room - at;
	memcpy(msg + at, why, n);
	msg[at + n] = '\0';
}

/*
 * When the file open in @t is a set file (trace_set.h), the set it names,
 * opened into *@trace: 0 or -errno. 1 when it is not one.
 */
static int open_if_set(struct vmt_trace *t, const char *path, unsigned int flags, bool in_set,
		       struct vmt_trace **trace, struct vmt_trace_error *err)
{
	char head[sizeof(VMT_TRACE_SET_MAGIC)], **paths;
	size_t len = t->size < sizeof(head) ? (size_t)t->size : sizeof(head);
	unsigned int n;
	int ret;

	if (pread_exact(t, 0, head, len, "file header", err->message, sizeof(err->message)) ||
	    !vmt_trace_set_file_is(head, len))
		return 1;
	/* Not even itself: a set that named a set could name itself. */
	if (in_set) {
		snprintf(err->message, sizeof(err->message), "%.200s: a trace set within a set",
			 path);
		return -EINVAL;
	}
	ret = vmt_trace_set_file_read(t->fd, path, &paths, &n, err->message,
				      sizeof(err->message));
	if (ret)
		return ret;
	ret = vmt_trace_open_set(trace, (const char *const *)paths, n, flags, err);
	vmt_trace_set_paths_free(paths, n);
	if (ret)
		name_message(err->message, sizeof(err->message), path);
	return ret;
}

static int trace_open_path(struct vmt_trace **trace, const char *path, unsigned int flags,
			   bool tolerant, struct vmt_trace_repair_report *report, bool in_set,
			   struct vmt_trace_error *err)
{
	struct vmt_trace *t = trace_new();
	struct stat st;
	int ret;

	*trace = NULL;
	if (!t) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		return -ENOMEM;
	}
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0 || fstat(t->fd, &st)) {
		ret = -errno;
		snprintf(err->message, sizeof(err->message), "cannot read %s: %s", path,
			 strerror(errno));
		trace_free(t);
		return ret;
	}
	t->size = (uint64_t)st.st_size;
	ret = open_if_set(t, path, flags, in_set, trace, err);
	if (ret <= 0) {
		trace_free(t);
		return ret;
	}
	ret = trace_open_common(t, flags, tolerant, report);
	if (ret) {
		snprintf(err->message, sizeof(err->message), "%s: %.200s", path, t->error);
		trace_free(t);
		return ret;
	}
	*trace = t;
	return 0;
}

int vmt_trace_open(struct vmt_trace **trace, const char *path, unsigned int flags,
		   struct vmt_trace_error *err)
{
	return trace_open_path(trace, path, flags, false, NULL, false, err);
}

int vmt_trace_open_memory(struct vmt_trace **trace, const void *data, size_t size,
			  unsigned int flags, struct vmt_trace_error *err)
{
	struct vmt_trace *t = trace_new();
	int ret;

	*trace = NULL;
	if (!t) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		return -ENOMEM;
	}
	t->mem = data;
	t->size = size;
	ret = trace_open_common(t, flags, false, NULL);
	if (ret) {
		snprintf(err->message, sizeof(err->message), "%s", t->error);
		trace_free(t);
		return ret;
	}
	*trace = t;
	return 0;
}

/* ---- Trace sets ---------------------------------------------------------- */

/*
 * The least and greatest times of @t's frames of timed streams (an
 * unsorted frame of a file before version 3 says its first and last
 * entry's); false when no stream has times.
 */
static bool time_bounds(const struct vmt_trace *t, uint64_t *least, uint64_t *greatest)
{
	bool any = false;

	*least = UINT64_MAX;
	*greatest = 0;
	for (uint64_t i = 0; i < t->nr_frames; i++) {
		const struct vmt_frame_ref *ref = &t->frames[i];

		if (t->streams[ref->stream_id].info.time_offset == VMT_TRACE_NO_TIME)
			continue;
		any = true;
		*least = ref->first_time < *least ? ref->first_time : *least;
		*greatest = ref->last_time > *greatest ? ref->last_time : *greatest;
	}
	return any;
}

/*
 * Member @k's streams into set @t: its data stream and its order stream
 * each joined to the set's one (the first file's), every other stream a
 * stream of the set. A file of loop streams cannot join: their replay
 * names the streams of its own file.
 */
static int join_streams(struct vmt_trace *t, struct set_member *m, int *data_id, int *order_id)
{
	const struct vmt_trace *f = m->trace;

	m->stream_map = calloc(f->nr_streams ? f->nr_streams : 1, sizeof(*m->stream_map));
	if (!m->stream_map)
		return vmt_trace_fail(t, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < f->nr_streams; i++) {
		struct vmt_trace_stream_info info = f->streams[i].info;
		int *joined = info.kind == VMT_STREAM_DATA ? data_id :
			      info.kind == VMT_STREAM_ORDER ? order_id : NULL;
		int err;

		if (info.kind == VMT_STREAM_LOOPS || info.kind == VMT_STREAM_LOOPSET)
			return vmt_trace_fail(t, -EINVAL,
					      "%s: loop streams (a file of vmtrace loops) cannot join a trace set",
					      m->path);
		if (joined && *joined >= 0) {
			m->stream_map[i] = (uint32_t)*joined;
			continue;
		}
		if (t->nr_streams >= VMT_MAX_STREAMS)
			return vmt_trace_fail(t, -E2BIG, "%s: more than %u streams in the set",
					      m->path, VMT_MAX_STREAMS);
		info.id = t->nr_streams;
		err = add_stream(t, &info);
		if (err)
			return err;
		if (joined)
			*joined = (int)info.id;
		m->stream_map[i] = info.id;
	}
	return 0;
}

/* Member @k's frames into set @t, as join_streams() placed their streams. */
static int join_frames(struct vmt_trace *t, uint32_t k, uint64_t order_base)
{
	const struct set_member *m = &t->members[k];
	const struct vmt_trace *f = m->trace;

	for (uint64_t i = 0; i < f->nr_frames; i++) {
		struct vmt_frame_ref ref = f->frames[i];
		const struct vmt_trace_stream_info *info = &f->streams[ref.stream_id].info;
		int err;

		ref.stream_id = m->stream_map[ref.stream_id];
		if (info->kind == VMT_STREAM_DATA)
			ref.first_entry += m->data_base;
		else if (info->kind == VMT_STREAM_ORDER)
			ref.first_entry += order_base;
		if (info->time_offset != VMT_TRACE_NO_TIME) {
			ref.first_time += m->time_shift;
			ref.last_time += m->time_shift;
		}
		err = add_frame(t, &ref);
		if (err)
			return err;
		t->sources[t->nr_frames - 1] = (struct frame_source){ k, i };
	}
	return 0;
}

/* Entries of @t's first stream of @kind (its one data or order stream), 0 without. */
static uint64_t kind_entries(const struct vmt_trace *t, uint32_t kind)
{
	for (uint32_t i = 0; i < t->nr_streams; i++)
		if (t->streams[i].info.kind == kind)
			return t->streams[i].entries;
	return 0;
}

/* The files opened; the set made of them (vmt_trace_open_set()). */
static int join_members(struct vmt_trace *t)
{
	uint64_t end = 0, data = 0, order = 0, frames = 0, least, greatest;
	int data_id = -1, order_id = -1, err;

	for (uint32_t k = 0; k < t->nr_members; k++)
		frames += t->members[k].trace->nr_frames;
	t->sources = calloc(frames ? frames : 1, sizeof(*t->sources));
	if (!t->sources)
		return vmt_trace_fail(t, -ENOMEM, "out of memory");
	t->version = UINT32_MAX;
	for (uint32_t k = 0; k < t->nr_members; k++) {
		struct set_member *m = &t->members[k];
		const struct vmt_trace *f = m->trace;

		err = join_streams(t, m, &data_id, &order_id);
		if (err)
			return err;
		/* One after another: a file that starts before the last ends starts after it. */
		if (time_bounds(f, &least, &greatest)) {
			if (k && least <= end) {
				/* Moved past the end of time, its times would wrap: refused. */
				if (end == UINT64_MAX || greatest > UINT64_MAX - (end + 1 - least))
					return vmt_trace_fail(t, -EOVERFLOW,
							      "%s: its times cannot follow the files before it (the last at %llu ns) without passing 2^64 ns",
							      m->path, (unsigned long long)end);
				m->time_shift = end + 1 - least;
			}
			if (greatest + m->time_shift > end)
				end = greatest + m->time_shift;
		}
		m->data_base = data;
		err = join_frames(t, k, order);
		if (err)
			return err;
		data += kind_entries(f, VMT_STREAM_DATA);
		order += kind_entries(f, VMT_STREAM_ORDER);
		t->version = f->version < t->version ? f->version : t->version;
	}
	return 0;
}

int vmt_trace_open_set(struct vmt_trace **trace, const char *const *paths, unsigned int n,
		       unsigned int flags, struct vmt_trace_error *err)
{
	struct vmt_trace *t;
	int ret = 0;

	*trace = NULL;
	if (n < 1 || n > VMT_TRACE_MAX_SET) {
		snprintf(err->message, sizeof(err->message), "a trace set of %u files: from 1 to %u",
			 n, VMT_TRACE_MAX_SET);
		return -EINVAL;
	}
	if (flags & VMT_TRACE_OPEN_SCAN) {
		snprintf(err->message, sizeof(err->message),
			 "a trace set is read through its files' directories: verify or repair each file alone");
		return -EINVAL;
	}
	t = trace_new();
	if (t)
		t->members = calloc(n, sizeof(*t->members));
	if (!t || !t->members) {
		trace_free(t);
		snprintf(err->message, sizeof(err->message), "out of memory");
		return -ENOMEM;
	}
	for (uint32_t k = 0; k < n && !ret; k++) {
		struct set_member *m = &t->members[k];

		m->path = strdup(paths[k]);
		if (!m->path) {
			snprintf(err->message, sizeof(err->message), "out of memory");
			ret = -ENOMEM;
			break;
		}
		t->nr_members++;
		ret = trace_open_path(&m->trace, paths[k], flags, false, NULL, true, err);
	}
	if (!ret) {
		ret = join_members(t);
		if (ret)
			snprintf(err->message, sizeof(err->message), "%s", t->error);
	}
	if (ret) {
		trace_free(t);
		return ret;
	}
	*trace = t;
	return 0;
}

unsigned int vmt_trace_set_files(const struct vmt_trace *trace)
{
	return trace->nr_members;
}

const char *vmt_trace_set_file(const struct vmt_trace *trace, unsigned int k,
			       uint64_t *time_shift)
{
	if (k >= trace->nr_members)
		return NULL;
	if (time_shift)
		*time_shift = trace->members[k].time_shift;
	return trace->members[k].path;
}

int vmt_trace_scan_for_repair(const char *path, struct vmt_trace_stream_info **streams,
			      uint32_t *nr_streams, struct vmt_frame_ref **frames,
			      uint64_t *nr_frames, struct vmt_trace_repair_report *report,
			      struct vmt_trace_error *err)
{
	struct vmt_trace *t;
	int ret;

	memset(report, 0, sizeof(*report));
	ret = trace_open_path(&t, path, VMT_TRACE_OPEN_SCAN, true, report, false, err);
	if (ret)
		return ret;
	*streams = calloc(t->nr_streams + 1, sizeof(**streams));
	if (!*streams) {
		trace_free(t);
		snprintf(err->message, sizeof(err->message), "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < t->nr_streams; i++)
		(*streams)[i] = t->streams[i].info;
	*nr_streams = t->nr_streams;
	*frames = t->frames;
	*nr_frames = t->nr_frames;
	t->frames = NULL;
	trace_free(t);
	return 0;
}

uint32_t vmt_trace_nr_streams(const struct vmt_trace *trace)
{
	return trace->nr_streams;
}

const struct vmt_trace_stream_info *vmt_trace_stream(const struct vmt_trace *trace,
						     uint32_t stream_id)
{
	return stream_id < trace->nr_streams ? &trace->streams[stream_id].info : NULL;
}

struct vmt_trace_filter *vmt_trace_filter_copy(const struct vmt_trace_filter *filter)
{
	size_t ranges = (size_t)filter->nr_addrs + filter->nr_ips;
	size_t ids = (size_t)filter->nr_pids + filter->nr_cpus;
	struct vmt_trace_filter *copy;
	struct vmt_trace_phase *phase;
	struct vmt_trace_range *r;
	uint32_t *id;

	/* One block: the filter, its phases and ranges (8-byte aligned after it), its ids. */
	copy = malloc(sizeof(*copy) + filter->nr_phases * sizeof(*phase) + ranges * sizeof(*r) +
		      ids * sizeof(*id));
	if (!copy)
		return NULL;
	*copy = *filter;
	phase = (struct vmt_trace_phase *)(copy + 1);
	if (filter->nr_phases)
		memcpy(phase, filter->phases, filter->nr_phases * sizeof(*phase));
	copy->phases = phase;
	r = (struct vmt_trace_range *)(phase + filter->nr_phases);
	id = (uint32_t *)(r + ranges);
	if (filter->nr_addrs)
		memcpy(r, filter->addrs, filter->nr_addrs * sizeof(*r));
	if (filter->nr_ips)
		memcpy(r + filter->nr_addrs, filter->ips, filter->nr_ips * sizeof(*r));
	if (filter->nr_pids)
		memcpy(id, filter->pids, filter->nr_pids * sizeof(*id));
	if (filter->nr_cpus)
		memcpy(id + filter->nr_pids, filter->cpus, filter->nr_cpus * sizeof(*id));
	copy->addrs = r;
	copy->ips = r + filter->nr_addrs;
	copy->pids = id;
	copy->cpus = id + filter->nr_pids;
	return copy;
}

static bool ranges_valid(const struct vmt_trace_range *r, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (r[i].start >= r[i].end)
			return false;
	return true;
}

/* Each phase not empty, in order of pid and start, a process's apart. */
static bool phases_valid(const struct vmt_trace_phase *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (p[i].start >= p[i].end)
			return false;
		if (i && (p[i].pid < p[i - 1].pid ||
			  (p[i].pid == p[i - 1].pid && p[i].start < p[i - 1].end)))
			return false;
	}
	return true;
}

int vmt_trace_set_filter(struct vmt_trace *trace, const struct vmt_trace_filter *filter)
{
	struct vmt_trace_filter *copy;

	if (!filter) {
		free(trace->filter);
		trace->filter = NULL;
		return 0;
	}
	if (filter->time_range && filter->from_time > filter->to_time)
		return vmt_trace_fail(trace, -EINVAL, "time range %llu..%llu ends before it starts",
				      (unsigned long long)filter->from_time,
				      (unsigned long long)filter->to_time);
	if ((filter->nr_pids && !filter->pids) || (filter->nr_cpus && !filter->cpus) ||
	    (filter->nr_addrs && !filter->addrs) || (filter->nr_ips && !filter->ips) ||
	    (filter->nr_phases && !filter->phases))
		return vmt_trace_fail(trace, -EINVAL, "filter: a count without its list");
	if (!ranges_valid(filter->addrs, filter->nr_addrs) ||
	    !ranges_valid(filter->ips, filter->nr_ips))
		return vmt_trace_fail(trace, -EINVAL, "filter: an address range that ends where or before it starts");
	if (!phases_valid(filter->phases, filter->nr_phases))
		return vmt_trace_fail(trace, -EINVAL, "filter: phases empty, out of order or overlapping");
	copy = vmt_trace_filter_copy(filter);
	if (!copy)
		return vmt_trace_fail(trace, -ENOMEM, "out of memory");
	free(trace->filter);
	trace->filter = copy;
	return 0;
}

const struct vmt_trace_filter *vmt_trace_filter(const struct vmt_trace *t)
{
	return t->filter;
}

uint64_t vmt_trace_nr_frames(const struct vmt_trace *trace)
{
	return trace->nr_frames;
}

uint64_t vmt_trace_frames_decoded(const struct vmt_trace *trace)
{
	return trace->frames_decoded +
	       (trace->readahead ? vmt_readahead_decoded(trace->readahead) : 0);
}

int vmt_trace_stream_stats(const struct vmt_trace *trace, uint32_t stream_id,
			   struct vmt_trace_stream_stats *stats)
{
	const struct reader_stream *s;

	if (stream_id >= trace->nr_streams)
		return -EINVAL;
	s = &trace->streams[stream_id];
	memset(stats, 0, sizeof(*stats));
	stats->entries = s->entries;
	stats->frames = s->nr_frames;
	stats->time_sorted = s->time_sorted;
	if (s->nr_frames && s->info.time_offset != VMT_TRACE_NO_TIME) {
		stats->first_time = trace->frames[s->frames[0]].first_time;
		stats->last_time = trace->frames[s->frames[s->nr_frames - 1]].last_time;
	}
	/* Not sorted: the frames' bounds (exact with TIME_RANGE, else their ends). */
	for (uint64_t k = 1; !s->time_sorted && k < s->nr_frames; k++) {
		const struct vmt_frame_ref *ref = &trace->frames[s->frames[k]];

		if (ref->first_time < stats->first_time)
			stats->first_time = ref->first_time;
		if (ref->last_time > stats->last_time)
			stats->last_time = ref->last_time;
	}
	return 0;
}

int vmt_trace_frame_span(const struct vmt_trace *t, uint32_t stream_id, uint64_t k,
			 uint64_t *first_entry, uint32_t *count, uint64_t *least_time,
			 uint64_t *greatest_time)
{
	const struct vmt_frame_ref *ref;

	if (stream_id >= t->nr_streams || k >= t->streams[stream_id].nr_frames)
		return -EINVAL;
	ref = &t->frames[t->streams[stream_id].frames[k]];
	*first_entry = ref->first_entry;
	*count = ref->entry_count;
	*least_time = ref->first_time;
	*greatest_time = ref->last_time;
	return ref->flags & VMT_FRAME_FLAGS ? 0 : -ENOENT;
}

/*
 * Decodes frame @frame_no into @buf and checks it against the directory;
 * or says why not in buf->why. It changes nothing in @t: the read-ahead's
 * workers call it (on the trace as decode_job()'s @ctx) as well as
 * load_frame().
 */
static int decode_member_frame(const struct vmt_trace *t, uint64_t frame_no,
			       struct vmt_frame_buf *buf);

static int decode_frame(const struct vmt_trace *t, uint64_t frame_no, struct vmt_frame_buf *buf)
{
	const struct vmt_frame_ref *ref = &t->frames[frame_no];
	const struct reader_stream *s = &t->streams[ref->stream_id];
	const char *why = NULL;
	struct vmt_frame_header h;
	int err;

	if (t->members)
		return decode_member_frame(t, frame_no, buf);

	err = read_payload(t, frame_no, ref->offset, &h, &buf->payload, buf->why, sizeof(buf->why));
	if (err)
		return err;
	if (h.stream_id != ref->stream_id || h.first_entry != ref->first_entry ||
	    h.entry_count != ref->entry_count || h.first_time != ref->first_time ||
	    h.last_time != ref->last_time || h.flags != ref->flags) {
		why = "header disagrees with the directory";
		err = -EBADMSG;
		goto fail;
	}
	if (buf->capacity < h.raw_size) {
		uint8_t *data = realloc(buf->data, h.raw_size);

		if (!data) {
			snprintf(buf->why, sizeof(buf->why), "out of memory");
			return -ENOMEM;
		}
		buf->data = data;
		buf->capacity = h.raw_size;
	}
	err = vmt_codec_decompress(h.codec & 0xff, h.codec >> 8, s->info.entry_size,
				   buf->payload.data, buf->payload.size, buf->data, h.raw_size,
				   t->skip_values ? VMT_CODEC_NO_VALUES : 0);
	if (err) {
		snprintf(buf->why, sizeof(buf->why),
			 "frame %llu at byte %llu: %s payload does not decode to %u bytes",
			 (unsigned long long)frame_no, (unsigned long long)ref->offset,
			 vmt_codec_name(h.codec & 0xff), h.raw_size);
		return err;
	}
	if (s->info.time_offset != VMT_TRACE_NO_TIME) {
		uint64_t first, last, least, greatest, prev, time;
		bool sorted = true;

		/* The header's times: the first and last entry's, or (TIME_RANGE) the bounds. */
		first = last = least = greatest = prev = vmt_get64(buf->data + s->info.time_offset);
		for (uint32_t i = 1; i < h.entry_count; i++) {
			time = vmt_get64(buf->data + (size_t)i * s->info.entry_size +
					 s->info.time_offset);
			sorted &= time >= prev;
			least = time < least ? time : least;
			greatest = time > greatest ? time : greatest;
			last = prev = time;
		}
		if (h.flags & VMT_FRAME_TIME_RANGE) {
			first = least;
			last = greatest;
		}
		if ((!sorted && (h.flags & VMT_FRAME_TIME_SORTED)) || first != h.first_time ||
		    last != h.last_time) {
			why = "entry times disagree with the header";
			err = -EBADMSG;
			goto fail;
		}
	}
	return 0;
fail:
	snprintf(buf->why, sizeof(buf->why), "frame %llu at byte %llu: %s",
		 (unsigned long long)frame_no, (unsigned long long)ref->offset, why);
	return err;
}

/*
 * A set's frame @frame_no: decoded by its file's trace (checked against
 * that file's directory), then its entries made the set's: times moved
 * later by the file's shift, records' data offsets by its data base, order
 * runs' streams renumbered. Like decode_frame(), it changes nothing in @t.
 */
static int decode_member_frame(const struct vmt_trace *t, uint64_t frame_no,
			       struct vmt_frame_buf *buf)
{
	const struct frame_source *src = &t->sources[frame_no];
	const struct set_member *m = &t->members[src->member];
	const struct vmt_frame_ref *ref = &t->frames[frame_no];
	const struct vmt_trace_stream_info *info = &t->streams[ref->stream_id].info;
	int err = decode_frame(m->trace, src->frame, buf);

	if (err) {
		name_message(buf->why, sizeof(buf->why), m->path);
		return err;
	}
	for (uint32_t i = 0; i < ref->entry_count; i++) {
		uint8_t *e = buf->data + (size_t)i * info->entry_size;
		struct vmt_record r;

		if (info->kind == VMT_STREAM_ORDER) {
			uint32_t id = vmt_get32(e);

			vmt_put32(e, id < m->trace->nr_streams ? m->stream_map[id] : UINT32_MAX);
			continue;
		}
		if (info->time_offset != VMT_TRACE_NO_TIME && m->time_shift)
			vmt_put64(e + info->time_offset,
				  vmt_get64(e + info->time_offset) + m->time_shift);
		if (info->kind != VMT_STREAM_RECORDS || !m->data_base ||
		    info->entry_size != sizeof(r))
			continue;
		memcpy(&r, e, sizeof(r));
		if (r.hdr.data_len) {
			r.raw[VMT_DATA_OFF_WORD] += m->data_base;
			memcpy(e, &r, sizeof(r));
		}
	}
	return 0;
}

static int decode_job(void *ctx, uint64_t frame_no, struct vmt_frame_buf *buf)
{
	return decode_frame(ctx, frame_no, buf);
}

static uint64_t frame_of_entry(const struct vmt_trace *t, const struct reader_stream *s,
			       uint64_t index);

/*
 * Queues for the read-ahead the frames of @s after frame @frame_no, up to
 * t->ahead of them, none past the stream's read-ahead limit.
 */
static void queue_ahead(struct vmt_trace *t, struct reader_stream *s, uint64_t frame_no)
{
	uint64_t k = frame_of_entry(t, s, t->frames[frame_no].first_entry);

	for (uint64_t end = k + 1 + t->ahead; ++k < end && k < s->nr_frames;) {
		if (t->frames[s->frames[k]].first_entry >= s->ahead_limit)
			break;
		vmt_readahead_queue(t->readahead, s->frames[k]);
	}
}

/* Frame @frame_no into its stream's cache: decoded ahead, or here. */
static int load_frame(struct vmt_trace *t, uint64_t frame_no)
{
	struct reader_stream *s = &t->streams[t->frames[frame_no].stream_id];
	int err;

	if (s->cached_frame == frame_no)
		return 0;
	s->cached_frame = UINT64_MAX;
	if (t->readahead && vmt_readahead_take(t->readahead, frame_no, &s->cache)) {
		err = s->cache.err;
	} else {
		err = decode_frame(t, frame_no, &s->cache);
		t->frames_decoded += !err;
	}
	if (err)
		return vmt_trace_fail(t, err, "%s", s->cache.why);
	s->cached_frame = frame_no;
	if (t->readahead)
		queue_ahead(t, s, frame_no);
	return 0;
}

int vmt_trace_set_threads(struct vmt_trace *t, unsigned int threads)
{
	struct vmt_readahead *ra = NULL;
	int err;

	if (threads < 1 || threads > VMT_TRACE_MAX_THREADS)
		return vmt_trace_fail(t, -EINVAL, "%u threads: from 1 to %u", threads,
				      VMT_TRACE_MAX_THREADS);
	if (t->readahead)
		t->frames_decoded += vmt_readahead_decoded(t->readahead);
	vmt_readahead_destroy(t->readahead);
	t->readahead = NULL;
	if (threads == 1)
		return 0;
	/*
	 * The reader decodes too (a queued frame it needs and no worker has
	 * begun), so threads - 1 workers; each stream queues twice as many
	 * frames ahead as there are threads, in twice as many slots.
	 */
	t->ahead = 2 * threads;
	err = vmt_readahead_create(&ra, threads - 1, 4 * threads, decode_job, t);
	if (err)
		return vmt_trace_fail(t, err, "cannot start %u decoding threads: %s", threads,
				      strerror(-err));
	t->readahead = ra;
	return 0;
}

int vmt_trace_skip_values(struct vmt_trace *t)
{
	/* The read-ahead's workers read the flag: it changes while there are none. */
	if (t->readahead)
		return vmt_trace_fail(t, -EBUSY, "values are skipped from the start, before "
				      "frames are decoded ahead");
	t->skip_values = true;
	for (uint32_t k = 0; k < t->nr_members; k++)
		t->members[k].trace->skip_values = true;
	return 0;
}

void vmt_trace_read_ahead_limit(struct vmt_trace *t, uint32_t stream_id, uint64_t end)
{
	if (stream_id < t->nr_streams)
		t->streams[stream_id].ahead_limit = end;
}

/* The position in the stream's frame list of the frame holding entry @index. */
static uint64_t frame_of_entry(const struct vmt_trace *t, const struct reader_stream *s,
			       uint64_t index)
{
	uint64_t lo = 0, hi = s->nr_frames - 1;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;

		if (t->frames[s->frames[mid]].first_entry <= index)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static const uint8_t *entry_at(struct vmt_trace *t, uint32_t stream_id, uint64_t index, int *err)
{
	struct reader_stream *s;
	uint64_t frame_no;

	if (stream_id >= t->nr_streams) {
		*err = vmt_trace_fail(t, -EINVAL, "no stream %u", stream_id);
		return NULL;
	}
	s = &t->streams[stream_id];
	/* Entries are read in turn, mostly: the frame in the cache first. */
	if (s->cached_frame != UINT64_MAX) {
		const struct vmt_frame_ref *ref = &t->frames[s->cached_frame];

		if (index >= ref->first_entry && index - ref->first_entry < ref->entry_count)
			return s->cache.data + (index - ref->first_entry) * s->info.entry_size;
	}
	if (index >= s->entries) {
		*err = vmt_trace_fail(t, -ERANGE, "stream %u has %llu entries, not %llu", stream_id,
				      (unsigned long long)s->entries, (unsigned long long)index + 1);
		return NULL;
	}
	frame_no = s->frames[frame_of_entry(t, s, index)];
	*err = load_frame(t, frame_no);
	if (*err)
		return NULL;
	return s->cache.data + (index - t->frames[frame_no].first_entry) * s->info.entry_size;
}

int vmt_trace_read(struct vmt_trace *trace, uint32_t stream_id, uint64_t index, void *entry)
{
	const uint8_t *p;
	int err;

	p = entry_at(trace, stream_id, index, &err);
	if (!p)
		return err;
	memcpy(entry, p, trace->streams[stream_id].info.entry_size);
	return 0;
}

/* In a loaded frame: the first entry at or after @time, or the frame's count. */
static uint32_t search_frame(const struct reader_stream *s, uint32_t count, uint64_t time,
			     bool sorted)
{
	uint32_t lo = 0, hi = count;

	if (!sorted) {
		while (lo < count &&
		       vmt_get64(s->cache.data + (size_t)lo * s->info.entry_size + s->info.time_offset) < time)
			lo++;
		return lo;
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (vmt_get64(s->cache.data + (size_t)mid * s->info.entry_size + s->info.time_offset) < time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t vmt_trace_seek_time(struct vmt_trace *t, uint32_t stream_id, uint64_t time)
{
	struct reader_stream *s;
	uint64_t k = 0;

	if (stream_id >= t->nr_streams)
		return vmt_trace_fail(t, -EINVAL, "no stream %u", stream_id);
	s = &t->streams[stream_id];
	if (s->info.time_offset == VMT_TRACE_NO_TIME)
		return vmt_trace_fail(t, -EINVAL, "stream %u has no times", stream_id);
	if (s->time_sorted) {
		uint64_t lo = 0, hi = s->nr_frames;

		/* The first frame whose last entry is at or after @time. */
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (t->frames[s->frames[mid]].last_time < time)
				lo = mid + 1;
			else
				hi = mid;
		}
		k = lo;
	}
	for (; k < s->nr_frames; k++) {
		const struct vmt_frame_ref *ref = &t->frames[s->frames[k]];
		bool sorted = ref->flags & VMT_FRAME_TIME_SORTED;
		uint32_t i;
		int err;

		/* Sorted or TIME_RANGE: last_time is the greatest. */
		if ((ref->flags & VMT_FRAME_FLAGS) && ref->last_time < time)
			continue;
		err = load_frame(t, s->frames[k]);
		if (err)
			return err;
		i = search_frame(s, ref->entry_count, time, sorted);
		if (i < ref->entry_count)
			return (int64_t)(ref->first_entry + i);
	}
	return (int64_t)s->entries;
}

int vmt_trace_check(struct vmt_trace *t)
{
	for (uint64_t i = 0; i < t->nr_frames; i++) {
		int err = load_frame(t, i);

		if (err)
			return err;
	}
	return 0;
}
