// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The trace writer's container layer: the file's streams, frames and
 * directory. It buffers each stream's entries until a frame's worth,
 * compresses the frame and appends it, header and payload, with one write.
 * The directory, kept in memory meanwhile, is written by
 * vmt_frame_writer_close(); until then the file is a sequence of complete
 * blocks (plus, if the process dies mid-write, one partial block at the end).
 *
 * With workers (options.workers), a full frame goes to a worker pool
 * (work_pool.c) with its header filled in but for the payload's size and
 * checksum; the workers compress frames in parallel, and the pool appends
 * them, and the stream blocks queued between them, in the order they were
 * queued. Only the appending thread touches the file, the directory and
 * the offsets then; the lock guards what other threads read of them (the
 * statistics) and the first error, which every later call returns.
 *
 * What entries mean is not this file's: the public writer above it
 * (trace_writer.c) makes the record, order and data streams of a ring's
 * records, and finishes its own part before it calls flush or close here;
 * nothing here calls up. The blocks' bytes are trace_format.c's.
 *
 * Outline, in the file's order: the writer and its file; streams; frames
 * (their headers from the times noted as entries are appended,
 * note_times(); compressed here or by the workers, appended in order);
 * flush and close; then, at the end,
 * encoded blocks: a relay's writer takes stream blocks and frames that
 * another writer made (append_block), or resumes a file one left, and any
 * writer can hand each block it writes to a sink (a relay's client).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/codec.h"
#include "format/trace_format.h"
#include "trace/frame_writer.h"
#include "trace/trace_reader.h"
#include "base/work_pool.h"

/* Records are stored as the kernel wrote them: its byte order is the file's. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "struct vmt_record entries are stored as they are: little-endian hosts only");

#define DEFAULT_FRAME_BYTES	(1u << 20)
/*
 * The model codec learns within a frame, so larger frames are smaller: on
 * make bench's traces (docs/BENCHMARKS.md), 4 MiB frames made 7 of 9 at
 * least 2x smaller than xz -9 (1 MiB ones 5), at the cost of a seek of
 * 7.1 to 12.8 ms rather than 2.1 to 3.7, and of decompression 0 to 14%
 * slower, below 200 MB/s on one synthetic trace (at 1 MiB, on none).
 */
#define DEFAULT_MODEL_FRAME_BYTES	(4u << 20)
#define MAX_WORKERS		256
#define QUEUED_PER_WORKER	4
/* Appended jobs a writer keeps for the next frames. */
#define SPARE_JOBS		2

/* A frame to compress and append, or a stream block to append as it is. */
struct write_job {
	struct vmt_work work;
	bool is_frame;
	struct vmt_frame_header h;	/* all but sequence, comp_size, payload_crc */
	unsigned int codec, stage2;
	uint32_t entry_size;
	uint8_t *data;			/* the frame's entries, or the block */
	size_t len, cap;		/* data's bytes and its room */
	struct vmt_buf payload;
	int err;			/* from compressing */
	struct write_job *next_spare;	/* in vmt_frame_writer.spare */
};

struct writer_stream {
	struct vmt_trace_stream_info info;
	uint8_t *pending;		/* entries not in a frame yet */
	uint32_t nr_pending;
	/*
	 * The pending entries' times (a stream with times), noted as they are
	 * appended, while they are in the cache: the first, the last, the
	 * least and the greatest, and whether one came before the one before.
	 */
	uint64_t first_time, last_time, least_time, greatest_time;
	bool unsorted;
	uint32_t frame_entries;		/* entries a frame holds */
	uint64_t written;		/* entries already in frames */
};

struct vmt_frame_writer {
	int fd;
	uint64_t end;			/* bytes written */
	uint64_t raw_written;		/* entry bytes in the frames written */
	struct vmt_trace_writer_options options;
	struct writer_stream *streams;
	uint32_t nr_streams;
	struct vmt_frame_ref *frames;
	uint64_t nr_frames, frames_capacity;
	struct vmt_buf block;
	struct write_job sync_job;	/* without workers: the one frame being written */
	struct vmt_work_pool *pool;	/* with workers */
	struct write_job *spare;	/* jobs appended, their buffers kept for the next */
	unsigned int nr_spare;
	vmt_trace_block_sink sink;	/* every stream block and frame, as written */
	void *sink_ctx;
	bool encoded;			/* blocks come encoded (append_block): no pending */
	pthread_mutex_t lock;		/* error, failed; end, nr_frames, raw_written; spare */
	int failed;			/* the first error of a queued job */
	char error[256];
};

static void compress_job(struct vmt_work *work, void *writer);
static void append_job(struct vmt_work *work, void *writer);
static int queue_block(struct vmt_frame_writer *w, const void *block, size_t len);
static int start_workers(struct vmt_frame_writer *w, const char *path,
			 struct vmt_trace_error *err);

int vmt_frame_writer_fail(struct vmt_frame_writer *w, int err, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&w->lock);
	va_start(ap, fmt);
	vsnprintf(w->error, sizeof(w->error), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&w->lock);
	return err;
}

/* The error a queued job met, which ends the writer: 0 while there is none. */
static int queued_error(struct vmt_frame_writer *w)
{
	int err;

	pthread_mutex_lock(&w->lock);
	err = w->failed;
	pthread_mutex_unlock(&w->lock);
	return err;
}

void vmt_frame_writer_stats(struct vmt_frame_writer *w, struct vmt_trace_writer_stats *stats)
{
	pthread_mutex_lock(&w->lock);
	stats->frames = w->nr_frames;
	stats->bytes = w->end;
	stats->raw_bytes = w->raw_written;
	pthread_mutex_unlock(&w->lock);
	stats->stalls = w->pool ? vmt_work_pool_stalls(w->pool) : 0;
}

const char *vmt_frame_writer_error_message(const struct vmt_frame_writer *w)
{
	return w->error;
}

/* Called by the one thread that appends (see the top of this file). */
static int write_all(struct vmt_frame_writer *w, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t done = 0;

	while (w->fd >= 0 && done < len) {
		ssize_t n = write(w->fd, p + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return vmt_frame_writer_fail(w, n < 0 ? -errno : -EIO,
						     "write at byte %llu: %s",
						     (unsigned long long)(w->end + done),
						     strerror(n < 0 ? errno : EIO));
		done += (size_t)n;
	}
	pthread_mutex_lock(&w->lock);
	w->end += len;
	pthread_mutex_unlock(&w->lock);
	return 0;
}

/* A stream block or a frame: to the file, then to the sink. */
static int emit_block(struct vmt_frame_writer *w, const void *block, size_t len)
{
	int err = write_all(w, block, len);

	if (!err && w->sink) {
		err = w->sink(w->sink_ctx, block, len);
		if (err)
			vmt_frame_writer_fail(w, err, "the block sink failed: %s", strerror(-err));
	}
	return err;
}

int vmt_frame_writer_create(struct vmt_frame_writer **writer, const char *path,
			    const struct vmt_trace_writer_options *options,
			    struct vmt_trace_error *err)
{
	uint8_t header[VMT_FILE_HEADER_SIZE];
	struct vmt_frame_writer *w;
	int ret;

	*writer = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		return -ENOMEM;
	}
	if (options)
		w->options = *options;
	if (!w->options.frame_bytes)
		w->options.frame_bytes = w->options.codec == VMT_CODEC_MODEL ?
					 DEFAULT_MODEL_FRAME_BYTES : DEFAULT_FRAME_BYTES;
	if (!w->options.stage2)
		w->options.stage2 = VMT_CODEC_ZSTD;
	if (w->options.codec > VMT_CODEC_MODEL || w->options.stage2 > VMT_CODEC_XZ ||
	    w->options.frame_bytes > VMT_MAX_FRAME_RAW || w->options.workers > MAX_WORKERS ||
	    (w->options.codec == VMT_CODEC_XZ && (w->options.level < 0 || w->options.level > 9))) {
		snprintf(err->message, sizeof(err->message),
			 "bad writer options: codec %u, second stage %u, level %d, frame %u bytes (at most %u), %u workers (at most %u)",
			 w->options.codec, w->options.stage2, w->options.level,
			 w->options.frame_bytes, VMT_MAX_FRAME_RAW, w->options.workers,
			 MAX_WORKERS);
		free(w);
		return -EINVAL;
	}
	pthread_mutex_init(&w->lock, NULL);
	w->fd = -1;
	if (path)
		w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (path && w->fd < 0) {
		ret = -errno;
		snprintf(err->message, sizeof(err->message), "cannot create %s: %s", path,
			 strerror(errno));
		vmt_frame_writer_abandon(w);
		return ret;
	}
	/* From here on, a failure removes the file it made: create leaves nothing. */
	vmt_file_header_encode(header);
	ret = write_all(w, header, sizeof(header));
	if (ret) {
		snprintf(err->message, sizeof(err->message), "%s: %.200s", path ? path : "(no file)",
			 w->error);
		vmt_frame_writer_abandon(w);
		if (path)
			unlink(path);
		return ret;
	}
	ret = start_workers(w, path, err);
	if (ret)
		return ret;
	*writer = w;
	return 0;
}

static int start_workers(struct vmt_frame_writer *w, const char *path,
			 struct vmt_trace_error *err)
{
	int ret;

	if (w->options.workers) {
		unsigned int queued = w->options.max_queued ? w->options.max_queued
					: QUEUED_PER_WORKER * w->options.workers;

		ret = vmt_work_pool_create(&w->pool, w->options.workers, queued,
					   w->options.caller_compresses, compress_job, append_job, w);
		if (ret) {
			snprintf(err->message, sizeof(err->message),
				 "cannot start %u compression threads: %s", w->options.workers,
				 strerror(-ret));
			vmt_frame_writer_abandon(w);
			if (path)
				unlink(path);
			return ret;
		}
	}
	return 0;
}

int vmt_frame_writer_add_stream(struct vmt_frame_writer *w,
				const struct vmt_trace_stream_info *info)
{
	struct vmt_trace_stream_info checked = *info;
	uint8_t block[VMT_STREAM_BLOCK_SIZE];
	struct writer_stream *streams, *s;
	char why[160];
	int err;

	checked.name[sizeof(checked.name) - 1] = '\0';
	checked.id = w->nr_streams;
	err = vmt_stream_info_check(&checked, why, sizeof(why));
	if (err)
		return vmt_frame_writer_fail(w, -EINVAL, "stream '%s': %s", checked.name, why);
	if (w->nr_streams >= VMT_MAX_STREAMS)
		return vmt_frame_writer_fail(w, -ENOSPC, "more than %u streams", VMT_MAX_STREAMS);
	streams = realloc(w->streams, (w->nr_streams + 1) * sizeof(*streams));
	if (!streams)
		return vmt_frame_writer_fail(w, -ENOMEM, "out of memory");
	w->streams = streams;
	s = &streams[w->nr_streams];
	memset(s, 0, sizeof(*s));
	s->info = checked;
	s->frame_entries = w->options.frame_bytes / checked.entry_size;
	if (!s->frame_entries)
		s->frame_entries = 1;
	/* An encoded writer's frames come whole (append_block): nothing pends. */
	s->pending = w->encoded ? NULL : malloc((size_t)s->frame_entries * checked.entry_size);
	if (!s->pending && !w->encoded)
		return vmt_frame_writer_fail(w, -ENOMEM, "out of memory");
	vmt_stream_block_encode(block, &checked);
	err = w->pool ? queue_block(w, block, sizeof(block)) : emit_block(w, block, sizeof(block));
	if (err) {
		free(s->pending);
		return err;
	}
	return (int)w->nr_streams++;
}

uint32_t vmt_frame_writer_nr_streams(const struct vmt_frame_writer *w)
{
	return w->nr_streams;
}

unsigned int vmt_frame_writer_codec(const struct vmt_frame_writer *w)
{
	return w->options.codec;
}

const struct vmt_trace_stream_info *vmt_frame_writer_stream(const struct vmt_frame_writer *w,
							    uint32_t id)
{
	return &w->streams[id].info;
}

static uint64_t entry_time(const struct vmt_trace_stream_info *info, const uint8_t *entry)
{
	return vmt_get64(entry + info->time_offset);
}

static int add_frame_ref(struct vmt_frame_writer *w, const struct vmt_frame_ref *ref)
{
	if (w->nr_frames == w->frames_capacity) {
		uint64_t capacity = w->frames_capacity ? 2 * w->frames_capacity : 64;
		struct vmt_frame_ref *frames = realloc(w->frames, capacity * sizeof(*frames));

		if (!frames)
			return vmt_frame_writer_fail(w, -ENOMEM, "out of memory");
		w->frames = frames;
		w->frames_capacity = capacity;
	}
	pthread_mutex_lock(&w->lock);
	w->frames[w->nr_frames++] = *ref;
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static void choose_codec(const struct vmt_frame_writer *w, const struct writer_stream *s,
			 unsigned int *codec, unsigned int *stage2)
{
	*codec = w->options.codec;
	*stage2 = 0;
	if (*codec == VMT_CODEC_VPC || *codec == VMT_CODEC_MODEL) {
		if (s->info.kind == VMT_STREAM_RECORDS)
			*stage2 = *codec == VMT_CODEC_VPC ? w->options.stage2 : 0;
		else
			*codec = w->options.stage2;
	}
}

static struct write_job *job_of(struct vmt_work *work)
{
	return (struct write_job *)((char *)work - offsetof(struct write_job, work));
}

/* The part that runs in parallel; the job's errors wait for append_frame(). */
static void compress_job(struct vmt_work *work, void *writer)
{
	const struct vmt_frame_writer *w = writer;
	struct write_job *job = job_of(work);

	if (job->is_frame)
		job->err = vmt_codec_compress(job->codec, job->stage2, w->options.level,
					      job->entry_size, job->data, job->len, &job->payload);
}

/* Header and payload with one write, and the frame into the directory. */
static int append_frame(struct vmt_frame_writer *w, struct write_job *job)
{
	struct vmt_frame_header *h = &job->h;
	struct vmt_frame_ref ref;
	int err;

	if (job->err)
		return vmt_frame_writer_fail(w, job->err, "stream %u: %s compression failed",
					     h->stream_id, vmt_codec_name(job->codec));
	h->sequence = w->nr_frames;
	h->comp_size = (uint32_t)job->payload.size;
	h->payload_crc = vmt_crc32(job->payload.data, job->payload.size);
	err = vmt_buf_reserve(&w->block, VMT_FRAME_HEADER_SIZE + job->payload.size);
	if (err)
		return vmt_frame_writer_fail(w, err, "out of memory");
	vmt_frame_header_encode(w->block.data, h);
	memcpy(w->block.data + VMT_FRAME_HEADER_SIZE, job->payload.data, job->payload.size);
	ref = (struct vmt_frame_ref){
		.offset = w->end, .first_entry = h->first_entry, .first_time = h->first_time,
		.last_time = h->last_time, .stream_id = h->stream_id,
		.entry_count = h->entry_count, .flags = h->flags,
	};
	err = add_frame_ref(w, &ref);
	if (err)
		return err;
	err = emit_block(w, w->block.data, VMT_FRAME_HEADER_SIZE + job->payload.size);
	pthread_mutex_lock(&w->lock);
	if (err)
		w->nr_frames--;
	else
		w->raw_written += h->raw_size;
	pthread_mutex_unlock(&w->lock);
	return err;
}

static void free_job(struct write_job *job)
{
	free(job->data);
	vmt_buf_free(&job->payload);
	free(job);
}

/*
 * A job to queue: an appended one, whose frame buffer and payload are
 * used again (a frame of a fresh buffer costs its pages' faults each
 * time, 4 MiB of them with the model codec), or a new one; NULL: no memory.
 */
static struct write_job *take_job(struct vmt_frame_writer *w)
{
	struct write_job *job;

	pthread_mutex_lock(&w->lock);
	job = w->spare;
	if (job) {
		w->spare = job->next_spare;
		w->nr_spare--;
	}
	pthread_mutex_unlock(&w->lock);
	return job ? job : calloc(1, sizeof(*job));
}

/* @job appended: kept for take_job(), SPARE_JOBS at most, or freed. */
static void put_job(struct vmt_frame_writer *w, struct write_job *job)
{
	pthread_mutex_lock(&w->lock);
	if (w->nr_spare < SPARE_JOBS) {
		job->next_spare = w->spare;
		w->spare = job;
		w->nr_spare++;
		job = NULL;
	}
	pthread_mutex_unlock(&w->lock);
	if (job)
		free_job(job);
}

/* @job's data room for @len bytes (what it held is dropped). */
static int job_room(struct write_job *job, size_t len)
{
	if (job->cap >= len)
		return 0;
	free(job->data);
	job->data = malloc(len);
	job->cap = job->data ? len : 0;
	return job->data ? 0 : -ENOMEM;
}

/* In sequence order, one at a time: nothing more reaches the file after an error. */
static void append_job(struct vmt_work *work, void *writer)
{
	struct vmt_frame_writer *w = writer;
	struct write_job *job = job_of(work);
	int err = queued_error(w);

	if (!err)
		err = job->is_frame ? append_frame(w, job) : emit_block(w, job->data, job->len);
	if (err) {
		pthread_mutex_lock(&w->lock);
		if (!w->failed)
			w->failed = err;
		pthread_mutex_unlock(&w->lock);
	}
	put_job(w, job);
}

static int queue_block(struct vmt_frame_writer *w, const void *block, size_t len)
{
	int err = queued_error(w);
	struct write_job *job;

	if (err)
		return err;
	job = take_job(w);
	if (!job || job_room(job, len)) {
		if (job)
			free_job(job);
		return vmt_frame_writer_fail(w, -ENOMEM, "out of memory");
	}
	memcpy(job->data, block, len);
	job->len = len;
	job->is_frame = false;
	job->err = 0;
	vmt_work_pool_submit(w->pool, &job->work);
	return 0;
}

/* The header of the frame @s's pending entries make, but what compressing them gives. */
static void frame_header_init(const struct vmt_frame_writer *w, const struct writer_stream *s,
			      struct write_job *job)
{
	struct vmt_frame_header *h = &job->h;

	memset(h, 0, sizeof(*h));
	choose_codec(w, s, &job->codec, &job->stage2);
	job->entry_size = s->info.entry_size;
	job->len = (size_t)s->nr_pending * s->info.entry_size;
	job->err = 0;
	job->is_frame = true;
	h->stream_id = s->info.id;
	h->first_entry = s->written;
	h->entry_count = s->nr_pending;
	h->codec = vmt_codec_field(job->codec, job->stage2);
	h->raw_size = (uint32_t)job->len;
	if (s->info.time_offset != VMT_TRACE_NO_TIME) {
		/* Sorted, or (VMT_FRAME_TIME_RANGE) the least and greatest time. */
		h->flags = s->unsorted ? VMT_FRAME_TIME_RANGE : VMT_FRAME_TIME_SORTED;
		h->first_time = s->unsorted ? s->least_time : s->first_time;
		h->last_time = s->unsorted ? s->greatest_time : s->last_time;
	}
}

/* @n entries at @p, about to be appended to @s's pending ones: their times noted. */
static void note_times(struct writer_stream *s, const uint8_t *p, size_t n)
{
	uint64_t prev, least, greatest;
	bool unsorted;

	if (!n)
		return;
	if (!s->nr_pending) {
		s->first_time = s->last_time = s->least_time = s->greatest_time = entry_time(&s->info, p);
		s->unsorted = false;
	}
	prev = s->last_time;
	least = s->least_time;
	greatest = s->greatest_time;
	unsorted = s->unsorted;
	for (size_t i = 0; i < n; i++, p += s->info.entry_size) {
		uint64_t t = entry_time(&s->info, p);

		unsorted |= t < prev;
		least = t < least ? t : least;
		greatest = t > greatest ? t : greatest;
		prev = t;
	}
	s->last_time = prev;
	s->least_time = least;
	s->greatest_time = greatest;
	s->unsorted = unsorted;
}

/* Hand the frame to the workers, and give the stream a new buffer. */
static int queue_frame(struct vmt_frame_writer *w, struct writer_stream *s)
{
	size_t size = (size_t)s->frame_entries * s->info.entry_size;
	struct write_job *job = take_job(w);
	uint8_t *fresh;

	if (!job || job_room(job, size)) {
		if (job)
			free_job(job);
		return vmt_frame_writer_fail(w, -ENOMEM, "out of memory");
	}
	/* The stream's buffer to the job, the job's (as large) to the stream. */
	fresh = job->data;
	frame_header_init(w, s, job);
	job->data = s->pending;
	job->cap = size;
	s->pending = fresh;
	s->written += s->nr_pending;
	s->nr_pending = 0;
	vmt_work_pool_submit(w->pool, &job->work);
	return 0;
}

static int write_frame(struct vmt_frame_writer *w, struct writer_stream *s)
{
	struct write_job *job = &w->sync_job;
	int err;

	if (!s->nr_pending)
		return 0;
	if (w->pool) {
		err = queued_error(w);
		return err ? err : queue_frame(w, s);
	}
	frame_header_init(w, s, job);
	job->err = vmt_codec_compress(job->codec, job->stage2, w->options.level, job->entry_size,
				      s->pending, job->len, &job->payload);
	err = append_frame(w, job);
	if (err)
		return err;
	s->written += s->nr_pending;
	s->nr_pending = 0;
	return 0;
}

int vmt_frame_writer_append(struct vmt_frame_writer *w, uint32_t stream_id, const void *entries,
			    size_t count)
{
	const uint8_t *p = entries;
	struct writer_stream *s;

	if (stream_id >= w->nr_streams)
		return vmt_frame_writer_fail(w, -EINVAL, "no stream %u", stream_id);
	if (w->encoded)
		return vmt_frame_writer_fail(w, -EINVAL, "a writer of encoded blocks takes no entries");
	s = &w->streams[stream_id];
	while (count) {
		size_t n = s->frame_entries - s->nr_pending;
		int err;

		if (n > count)
			n = count;
		if (s->info.time_offset != VMT_TRACE_NO_TIME)
			note_times(s, p, n);
		memcpy(s->pending + (size_t)s->nr_pending * s->info.entry_size, p,
		       n * s->info.entry_size);
		s->nr_pending += (uint32_t)n;
		p += n * s->info.entry_size;
		count -= n;
		if (s->nr_pending == s->frame_entries) {
			err = write_frame(w, s);
			if (err)
				return err;
		}
	}
	return 0;
}

int vmt_frame_writer_flush(struct vmt_frame_writer *w)
{
	int err = 0;

	for (uint32_t i = 0; i < w->nr_streams && !err; i++)
		err = write_frame(w, &w->streams[i]);
	if (w->pool) {
		vmt_work_pool_wait(w->pool);
		if (!err)
			err = queued_error(w);
	}
	return err;
}

/* Stops the workers first: what they had queued is in the file then. */
static void writer_free(struct vmt_frame_writer *w)
{
	vmt_work_pool_destroy(w->pool);
	while (w->spare) {
		struct write_job *job = w->spare;

		w->spare = job->next_spare;
		free_job(job);
	}
	if (w->fd >= 0)
		close(w->fd);
	for (uint32_t i = 0; i < w->nr_streams; i++)
		free(w->streams[i].pending);
	free(w->streams);
	free(w->frames);
	vmt_buf_free(&w->sync_job.payload);
	vmt_buf_free(&w->block);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

void vmt_frame_writer_abandon(struct vmt_frame_writer *w)
{
	if (w)
		writer_free(w);
}

int vmt_frame_writer_close(struct vmt_frame_writer *w, struct vmt_trace_error *err)
{
	struct vmt_trace_stream_info *infos = NULL;
	int ret;

	ret = vmt_frame_writer_flush(w);
	if (!ret) {
		infos = malloc((w->nr_streams + 1) * sizeof(*infos));
		ret = infos ? 0 : vmt_frame_writer_fail(w, -ENOMEM, "out of memory");
	}
	if (!ret) {
		for (uint32_t i = 0; i < w->nr_streams; i++)
			infos[i] = w->streams[i].info;
		ret = vmt_directory_encode(infos, w->nr_streams, w->frames, w->nr_frames, w->end,
					   &w->block);
		if (ret)
			vmt_frame_writer_fail(w, ret, "directory too large");
	}
	if (!ret)
		ret = write_all(w, w->block.data, w->block.size);
	vmt_work_pool_destroy(w->pool);
	w->pool = NULL;
	if (w->fd >= 0 && close(w->fd) && !ret)
		ret = vmt_frame_writer_fail(w, -errno, "close: %s", strerror(errno));
	w->fd = -1;
	if (ret && err)
		snprintf(err->message, sizeof(err->message), "%s", w->error);
	free(infos);
	writer_free(w);
	return ret;
}

/* ---- Encoded blocks: a relay's writer --------------------------------- */

void vmt_frame_writer_set_sink(struct vmt_frame_writer *w, vmt_trace_block_sink sink, void *ctx)
{
	w->sink = sink;
	w->sink_ctx = ctx;
}

uint64_t vmt_frame_writer_blocks(struct vmt_frame_writer *w)
{
	uint64_t frames;

	pthread_mutex_lock(&w->lock);
	frames = w->nr_frames;
	pthread_mutex_unlock(&w->lock);
	return w->nr_streams + frames;
}

/* A frame as it came, but its sequence and first entry: the file's. */
static int append_encoded_frame(struct vmt_frame_writer *w, const uint8_t *p, size_t len)
{
	struct vmt_frame_header h;
	struct writer_stream *s;
	struct vmt_frame_ref ref;
	char why[160];
	int err;

	if (vmt_frame_header_decode(p, &h, why, sizeof(why)))
		return vmt_frame_writer_fail(w, -EBADMSG, "frame %llu: %s",
					     (unsigned long long)w->nr_frames, why);
	if (h.stream_id >= w->nr_streams)
		return vmt_frame_writer_fail(w, -EBADMSG, "a frame of stream %u, before its block",
					     h.stream_id);
	s = &w->streams[h.stream_id];
	if (vmt_frame_header_check_sizes(&h, s->info.entry_size, why, sizeof(why)))
		return vmt_frame_writer_fail(w, -EBADMSG, "frame %llu: %s",
					     (unsigned long long)w->nr_frames, why);
	if (len != VMT_FRAME_HEADER_SIZE + (size_t)h.comp_size)
		return vmt_frame_writer_fail(w, -EBADMSG,
					     "a frame of %zu bytes whose header says %zu",
					     len, VMT_FRAME_HEADER_SIZE + (size_t)h.comp_size);
	if (vmt_crc32(p + VMT_FRAME_HEADER_SIZE, h.comp_size) != h.payload_crc)
		return vmt_frame_writer_fail(w, -EBADMSG, "frame %llu: bad payload checksum",
					     (unsigned long long)w->nr_frames);
	h.sequence = w->nr_frames;
	h.first_entry = s->written;
	err = vmt_buf_reserve(&w->block, len);
	if (err)
		return vmt_frame_writer_fail(w, err, "out of memory");
	vmt_frame_header_encode(w->block.data, &h);
	memcpy(w->block.data + VMT_FRAME_HEADER_SIZE, p + VMT_FRAME_HEADER_SIZE, h.comp_size);
	ref = (struct vmt_frame_ref){
		.offset = w->end, .first_entry = h.first_entry, .first_time = h.first_time,
		.last_time = h.last_time, .stream_id = h.stream_id,
		.entry_count = h.entry_count, .flags = h.flags,
	};
	err = add_frame_ref(w, &ref);
	if (err)
		return err;
	err = emit_block(w, w->block.data, len);
	pthread_mutex_lock(&w->lock);
	if (err) {
		w->nr_frames--;
	} else {
		w->raw_written += h.raw_size;
		s->written += h.entry_count;
	}
	pthread_mutex_unlock(&w->lock);
	return err;
}

int vmt_frame_writer_append_block(struct vmt_frame_writer *w, const void *block, size_t len)
{
	struct vmt_trace_stream_info info;
	const uint8_t *p = block;
	char why[160];
	int err = queued_error(w);

	if (err)
		return err;
	if (!w->encoded)
		return vmt_frame_writer_fail(w, -EINVAL, "a writer of entries takes no encoded blocks");
	if (len >= 4 && !memcmp(p, VMT_MAGIC_STREAM, 4)) {
		if (len != VMT_STREAM_BLOCK_SIZE)
			return vmt_frame_writer_fail(w, -EBADMSG, "a stream block of %zu bytes", len);
		if (vmt_stream_block_decode(p, &info, why, sizeof(why)))
			return vmt_frame_writer_fail(w, -EBADMSG, "stream block: %s", why);
		if (info.id != w->nr_streams)
			return vmt_frame_writer_fail(w, -EBADMSG,
						     "the block of stream %u where stream %u comes next",
						     info.id, w->nr_streams);
		err = vmt_frame_writer_add_stream(w, &info);
		return err < 0 ? err : 0;
	}
	if (len >= VMT_FRAME_HEADER_SIZE && !memcmp(p, VMT_MAGIC_FRAME, 4))
		return append_encoded_frame(w, p, len);
	return vmt_frame_writer_fail(w, -EBADMSG, "a block of %zu bytes that is neither a stream block nor a frame",
				     len);
}

int vmt_frame_writer_create_encoded(struct vmt_frame_writer **writer, const char *path,
				    struct vmt_trace_error *err)
{
	struct vmt_trace_writer_options options = { .codec = VMT_CODEC_NONE };
	int ret = vmt_frame_writer_create(writer, path, &options, err);

	if (!ret)
		(*writer)->encoded = true;
	return ret;
}

int vmt_frame_writer_resume(struct vmt_frame_writer **writer, const char *path,
			    struct vmt_trace_error *err)
{
	struct vmt_trace_repair_report report;
	struct vmt_trace_stream_info *streams = NULL;
	struct vmt_frame_ref *frames = NULL;
	struct vmt_frame_writer *w;
	uint32_t nr_streams = 0;
	uint64_t nr_frames = 0;
	int ret;

	*writer = NULL;
	ret = vmt_trace_scan_for_repair(path, &streams, &nr_streams, &frames, &nr_frames, &report,
					err);
	if (ret)
		return ret;
	w = calloc(1, sizeof(*w));
	if (w)
		w->streams = calloc(nr_streams ? nr_streams : 1, sizeof(*w->streams));
	if (!w || !w->streams) {
		if (w)
			free(w);
		free(streams);
		free(frames);
		snprintf(err->message, sizeof(err->message), "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&w->lock, NULL);
	w->encoded = true;
	w->options.frame_bytes = DEFAULT_FRAME_BYTES;
	w->nr_streams = nr_streams;
	for (uint32_t i = 0; i < nr_streams; i++) {
		w->streams[i].info = streams[i];
		w->streams[i].frame_entries = 1;
	}
	for (uint64_t k = 0; k < nr_frames; k++) {
		w->streams[frames[k].stream_id].written += frames[k].entry_count;
		w->raw_written += (uint64_t)frames[k].entry_count *
				  streams[frames[k].stream_id].entry_size;
	}
	free(streams);
	w->frames = frames;
	w->nr_frames = w->frames_capacity = nr_frames;
	w->end = report.data_end;
	w->fd = open(path, O_WRONLY | O_CLOEXEC);
	if (w->fd < 0 || ftruncate(w->fd, (off_t)report.data_end) ||
	    lseek(w->fd, (off_t)report.data_end, SEEK_SET) < 0) {
		ret = -errno;
		snprintf(err->message, sizeof(err->message), "cannot resume %s: %s", path,
			 strerror(errno));
		writer_free(w);
		return ret;
	}
	*writer = w;
	return 0;
}
