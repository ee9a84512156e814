/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libvmtrace's trace files: the writer, the reader, verification and repair.
 * The format is described byte by byte in docs/FORMAT.md.
 *
 * A trace holds streams of fixed-size entries, one record type (and CPU) a
 * stream. Each stream's entries are cut into frames compressed on their own;
 * a directory at the end of the file lists every frame, so that entry i or
 * time t of a stream is found without reading unrelated frames. Frames are
 * appended whole: the frames of a killed writer stay readable once
 * vmt_trace_repair() has rebuilt the directory.
 *
 * Functions return 0 (or a count, or an index) on success and a negative
 * errno on failure; they print nothing. Where an error deserves an
 * explanation (which frame, which byte offset), the message is kept in the
 * struct vmt_trace_error the caller passes, or in the handle
 * (vmt_trace_error_message()).
 */
#ifndef VMTRACE_TRACE_H
#define VMTRACE_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vmtrace.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version written; a reader reads this one and every earlier one. */
#define VMT_TRACE_FORMAT_VERSION	5

struct vmt_trace_error {
	char message[256];
};

enum vmt_codec {
	VMT_CODEC_NONE	= 0,
	VMT_CODEC_ZSTD	= 1,
	VMT_CODEC_XZ	= 2,
	/*
	 * Value prediction for streams of struct vmt_record, then a second
	 * stage (zstd or xz). Other streams get the second stage alone.
	 */
	VMT_CODEC_VPC	= 3,
	/*
	 * A model of the tracer's records coded with an adaptive binary range
	 * coder (format version 2), for streams of struct vmt_record. Other
	 * streams get the second stage (zstd or xz) alone.
	 */
	VMT_CODEC_MODEL	= 4,
};

/* "ref", "evict", "vma"...: a record type's short name; NULL for an unknown type. */
const char *vmt_record_type_name(unsigned int type);

/* The record fields whose codes print as words (vmtrace dump, babeltrace2). */
enum vmt_field_names {
	VMT_NAMES_ACCESS,	/* ref.access, exact.access: "R", "W", "RW", "X" */
	VMT_NAMES_CAUSE,	/* ref.cause: "protection", "demand", "cow", "other" */
	VMT_NAMES_MODE,		/* ref.kernel_mode, exact.kernel_mode: "user", "kernel" */
	VMT_NAMES_VMA_OP,	/* vma.op: "unmap", "map" */
	VMT_NAMES_VMA_CAUSE,	/* vma.cause: "dump", "exec", "mmap", ... */
	VMT_NAMES_VMA_KIND,	/* vma.kind: "anon", "file", "heap", "stack", "special" */
	VMT_NAMES_DMA_OP,	/* dma.op: "map_page", "unmap_page", ... */
	VMT_NAMES_DMA_DIR,	/* dma.dir: "bidirectional", "to_device", ... */
	VMT_NAMES_PAGEMAP_OP,	/* pagemap.op: "map", "unmap" */
	/*
	 * exact.flags' VMT_EXACT_BUS_* bits as one code, VMT_EXACT_BUS_CODE():
	 * "none", "fill", "writeback", "prefetch" (and their sums, "fill+writeback"...)
	 */
	VMT_NAMES_EXACT_BUS,
	VMT_NAMES_COUNT,
};

/* An exact record's bus bits (VMT_EXACT_BUS_FILL, _WRITEBACK, _PREFETCH) as 0..7. */
#define VMT_EXACT_BUS_SHIFT	3
#define VMT_EXACT_BUS_CODE(flags)	(((flags) >> VMT_EXACT_BUS_SHIFT) & 7)

/*
 * The words of field @field's codes, code i's at [i] ("?" for a code without
 * one), and their number in *@count; NULL (and 0) for an unknown @field.
 */
const char *const *vmt_field_names(enum vmt_field_names field, unsigned int *count);
/* The word of code @code of field @field: "?" for a code without one. */
const char *vmt_field_name(enum vmt_field_names field, unsigned int code);

/* "none", "zstd", "xz", "vpc", "model"; NULL for an unknown codec. */
const char *vmt_codec_name(unsigned int codec);
/* The codec named @name, or -EINVAL. */
int vmt_codec_from_name(const char *name);

enum vmt_stream_kind {
	VMT_STREAM_OPAQUE	= 0,	/* entries the library does not interpret */
	/* struct vmt_record, one record type (or VMT_TRACE_ANY_TYPE) and CPU */
	VMT_STREAM_RECORDS	= 1,
	/*
	 * struct vmt_trace_order_run entries: the order in which the writer
	 * received the records of the other streams.
	 */
	VMT_STREAM_ORDER	= 2,
	/*
	 * Bytes (entry size 1): the variable-size data of the records (paths,
	 * names, marker texts), each record's at its data_off (see
	 * VMT_REC_DATA in linux/vmtrace.h). One a trace.
	 */
	VMT_STREAM_DATA		= 3,
	/*
	 * Bytes (entry size 1, no time): one thread's exact accesses as loop
	 * descriptors (docs/FORMAT.md, "Loop descriptors"), written with
	 * loops_window set. Cursors replay them as VMT_REC_EXACT records;
	 * the "loops" stream says whose they are (vmt_trace_loops()).
	 */
	VMT_STREAM_LOOPS	= 4,
	/*
	 * Bytes (entry size 1, no time): a loop set, threads whose loop
	 * descriptors differ only in their bases, replayed from the first
	 * one's VMT_STREAM_LOOPS stream (docs/FORMAT.md, "Loop sets").
	 */
	VMT_STREAM_LOOPSET	= 5,
};

#define VMT_TRACE_NO_TIME	0xffffffffu
#define VMT_TRACE_ANY_CPU	0xffffffffu
/*
 * A record stream's record_type when its entries mix types: the references
 * and evictions of one CPU, which the model codec codes together (format
 * version 2).
 */
#define VMT_TRACE_ANY_TYPE	0xffffffffu

struct vmt_trace_stream_info {
	uint32_t id;		/* set by the library: 0, 1, ... in creation order */
	uint32_t entry_size;	/* 1..4096 bytes */
	uint32_t kind;		/* enum vmt_stream_kind */
	/* enum vmt_record_type or VMT_TRACE_ANY_TYPE, for VMT_STREAM_RECORDS */
	uint32_t record_type;
	uint32_t cpu;		/* for VMT_STREAM_RECORDS; or VMT_TRACE_ANY_CPU */
	/* Offset of a little-endian u64 timestamp in each entry, or VMT_TRACE_NO_TIME. */
	uint32_t time_offset;
	char name[24];		/* NUL-terminated */
};

/* A VMT_STREAM_ORDER entry: the next @count records came from stream @stream_id. */
struct vmt_trace_order_run {
	uint32_t stream_id;
	uint32_t count;
};

/* ---- Writing ------------------------------------------------------------ */

struct vmt_trace_writer;

struct vmt_trace_writer_options {
	/* raw bytes a frame holds at most; 0: 1 MiB, 4 MiB for VMT_CODEC_MODEL */
	uint32_t frame_bytes;
	unsigned int codec;	/* enum vmt_codec */
	unsigned int stage2;	/* VPC's second stage: VMT_CODEC_ZSTD (0 means it) or _XZ */
	int level;		/* zstd 1..19, xz 0..9; 0: the codec's default */
	/*
	 * Threads that compress frames, 0..256; 0: the calling thread does.
	 * With workers, vmt_trace_writer_append*() hand each full frame to
	 * them and return; frames reach the file in sequence order all the
	 * same, and the file is byte for byte the one 0 workers write.
	 */
	unsigned int workers;
	/*
	 * With workers: frames (and stream blocks) queued or being compressed
	 * at most, before an append waits for one to be written; 0: 4 a worker.
	 */
	unsigned int max_queued;
	/*
	 * With workers, nonzero: an append (or a flush, or the close) that
	 * would wait compresses queued frames itself meanwhile, for a caller
	 * that makes records faster than a worker compresses them (synth);
	 * 0: it waits, returning as soon as a frame is written (a collector,
	 * whose rings fill while it is away).
	 */
	unsigned int caller_compresses;
	/*
	 * Nonzero: exact accesses (VMT_REC_EXACT) go, one stream a thread, as
	 * loop descriptors (VMT_STREAM_LOOPS) found within a window of this
	 * many elements (1..65536), their times and values dropped but what
	 * loops_keep keeps. 0: as records, like every other type.
	 */
	uint32_t loops_window;
	unsigned int loops_keep;	/* VMT_LOOPS_KEEP_* */
};

/* What a loop-compressed trace keeps of its exact accesses beside the descriptors. */
#define VMT_LOOPS_KEEP_TIMES	0x1	/* hdr.time_ns */
#define VMT_LOOPS_KEEP_VALUES	0x2	/* value[16] and hdr.data_len (and the data) */

/* Create (truncate) @path and write the file header; NULL: no file (a sink's). */
int vmt_trace_writer_create(struct vmt_trace_writer **writer, const char *path,
			    const struct vmt_trace_writer_options *options,
			    struct vmt_trace_error *err);
/* Add a stream; @info->id is ignored. Returns the new stream's id or -errno. */
int vmt_trace_writer_add_stream(struct vmt_trace_writer *writer,
				const struct vmt_trace_stream_info *info);
/* Append @count entries to a stream; full frames are written as they fill. */
int vmt_trace_writer_append(struct vmt_trace_writer *writer, uint32_t stream_id,
			    const void *entries, size_t count);
/*
 * Append one record to the stream of its type and CPU (made on first use),
 * and remember the order records came in (a VMT_STREAM_ORDER stream), so
 * that reading back in VMT_ORDER_WRITTEN order gives them back as given.
 * A record with data (hdr.data_len) is held until the VMT_REC_DATA records
 * that follow it on its CPU are in; their bytes go to the data stream, the
 * record gets their offset in data_off, and the DATA records are not kept.
 */
int vmt_trace_writer_append_record(struct vmt_trace_writer *writer,
				   const struct vmt_record *record);
/*
 * Append @count records, as vmt_trace_writer_append_record() one after
 * another would (the same file), a run of records without data of one
 * type and CPU in one copy.
 */
int vmt_trace_writer_append_records(struct vmt_trace_writer *writer,
				    const struct vmt_record *records, size_t count);
/*
 * Append a record whose hdr.data_len bytes of data are at @data, as a
 * reader gives them (vmt_trace_record_data()), rather than in DATA records
 * after it: for copying records from one trace into another. @data may be
 * NULL when data_len is 0.
 */
int vmt_trace_writer_append_record_data(struct vmt_trace_writer *writer,
					const struct vmt_record *record, const void *data);
/*
 * Add an opaque stream named @name (at most 23 bytes) holding one entry,
 * the @size bytes at @entry: settings that describe the whole trace
 * (vmt_trace_writer_add_session()). Returns the stream's id or -errno.
 */
int vmt_trace_writer_add_opaque(struct vmt_trace_writer *writer, const char *name,
				const void *entry, uint32_t size);
/*
 * The session's settings (include/uapi/linux/vmtrace.h), as the opaque
 * stream "session"; @session->size is set by the library.
 */
int vmt_trace_writer_add_session(struct vmt_trace_writer *writer,
				 const struct vmt_trace_session *session);
/* Write every partly filled frame now. */
int vmt_trace_writer_flush(struct vmt_trace_writer *writer);
/*
 * Flush, write the directory and close. The writer is freed whatever the
 * result. Returns 0 or -errno (message in @err).
 */
int vmt_trace_writer_close(struct vmt_trace_writer *writer, struct vmt_trace_error *err);
/* Free without writing the directory, as a killed writer would leave it. */
void vmt_trace_writer_abandon(struct vmt_trace_writer *writer);
struct vmt_trace_writer_stats {
	uint64_t frames;	/* frames written to the file */
	uint64_t bytes;		/* bytes written to the file */
	uint64_t raw_bytes;	/* entry bytes in those frames */
	uint64_t stalls;	/* appends that found the queue full (and waited, or compressed: caller_compresses) */
	uint64_t data_bytes;	/* variable-size data moved to the data stream */
	/*
	 * VMT_REC_DATA records that belonged to no record (a flight-recorder
	 * ring overwrote it), and records whose data ended early: dropped
	 * and cut, respectively.
	 */
	uint64_t orphan_data;
	uint64_t cut_data;
};
/*
 * What has reached the file so far. Safe to call while workers run; the
 * counters may lag the appends by the frames still queued.
 */
void vmt_trace_writer_stats(struct vmt_trace_writer *writer, struct vmt_trace_writer_stats *stats);
/* The message of the last failed call on @writer. */
const char *vmt_trace_writer_error_message(const struct vmt_trace_writer *writer);

/*
 * Blocks: the stream blocks and frames of the file, whole and encoded
 * (docs/FORMAT.md), as a relay carries them (docs/RELAY.md).
 *
 * A sink gets every stream block and frame the writer writes, in file
 * order, right after it is written (and with no file, @path NULL in
 * vmt_trace_writer_create(), instead): with workers, on whichever thread
 * appends them. Set it before the first stream is added. A sink that
 * returns -errno fails the writer.
 */
typedef int (*vmt_trace_block_sink)(void *ctx, const void *block, size_t len);
void vmt_trace_writer_set_sink(struct vmt_trace_writer *writer, vmt_trace_block_sink sink,
			       void *ctx);
/*
 * A writer of blocks another writer encoded: create @path (NULL: no file,
 * the blocks checked and counted only), or with @resume reopen the one an
 * unfinished writer left (cut after its last complete block, as
 * vmt_trace_repair() would). 0 or -errno (message in @err).
 */
int vmt_trace_writer_open_blocks(struct vmt_trace_writer **writer, const char *path,
				 int resume, struct vmt_trace_error *err);
/*
 * Append one stream block (the next stream's) or one frame (header and
 * payload) as another writer encoded it: its checksums, sizes and stream
 * are checked, its payload is kept byte for byte, and its sequence and
 * first entry become this file's (they differ only where frames of the
 * other writer's were left out). -EBADMSG for a block that is not right.
 */
int vmt_trace_writer_append_block(struct vmt_trace_writer *writer, const void *block,
				  size_t len);
/* The stream blocks and frames in the file so far. */
uint64_t vmt_trace_writer_blocks(struct vmt_trace_writer *writer);

/* ---- Reading ------------------------------------------------------------ */

struct vmt_trace;

/* Ignore the directory and find the frames by scanning the file. */
#define VMT_TRACE_OPEN_SCAN	0x1
/*
 * A file still being written (record's, a relay's): its complete blocks so
 * far, scanned, stopping quietly at the first incomplete one; then
 * vmt_trace_follow() reads those written since. Not for sets or memory.
 */
#define VMT_TRACE_OPEN_GROWING	0x2

/*
 * Open a trace. Without VMT_TRACE_OPEN_SCAN this reads the file header and
 * the directory only: -ENODATA when the file has no directory (a writer that
 * did not finish; see vmt_trace_repair()), -EPROTO for an unknown format
 * version, -EBADMSG for a wrong magic, a bad checksum or nonsense sizes,
 * -EIO for a truncated file. With it, every block is read and checked and
 * any bad one is an error naming its offset.
 */
int vmt_trace_open(struct vmt_trace **trace, const char *path, unsigned int flags,
		   struct vmt_trace_error *err);
/*
 * A trace set: the traces at @paths (1 to VMT_TRACE_MAX_SET of them) read
 * as one trace, one after another in the order given. Their streams are the
 * set's (the data streams joined, and the order streams: written order is
 * the first file's, then the second's...); a file whose first time is not
 * after the last time of those before it has every time moved later by the
 * same amount, to start 1 ns after them. Processes keep their pids: the
 * same pid in two files is one process to the analyses. Files of loop
 * streams and sets cannot join; VMT_TRACE_OPEN_SCAN is refused.
 * vmt_trace_open() opens a set file (a text file whose first line is
 * "vmtrace trace set", then a trace's path a line, relative ones from the
 * set file's folder; docs/FORMAT.md) the same way.
 */
#define VMT_TRACE_MAX_SET	1000
int vmt_trace_open_set(struct vmt_trace **trace, const char *const *paths, unsigned int n,
		       unsigned int flags, struct vmt_trace_error *err);
/* A set's files (0 for a trace of one file), and file @k's path and time shift, or NULL. */
unsigned int vmt_trace_set_files(const struct vmt_trace *trace);
const char *vmt_trace_set_file(const struct vmt_trace *trace, unsigned int k,
			       uint64_t *time_shift);
/* The same over @size bytes at @data, which must outlive the trace. */
int vmt_trace_open_memory(struct vmt_trace **trace, const void *data, size_t size,
			  unsigned int flags, struct vmt_trace_error *err);
void vmt_trace_close(struct vmt_trace *trace);
const char *vmt_trace_error_message(const struct vmt_trace *trace);
/*
 * A trace opened with VMT_TRACE_OPEN_GROWING: take in the streams and
 * frames completed since it was opened or last followed (the counts, the
 * stream statistics and vmt_trace_read() reach them then). 1 when the
 * writer has finished the file (its directory is there: nothing more will
 * come), 0 when it may still grow, or -errno with the message.
 */
int vmt_trace_follow(struct vmt_trace *trace);

/* The file's format version: 1 up to VMT_TRACE_FORMAT_VERSION. */
uint32_t vmt_trace_format_version(const struct vmt_trace *trace);
uint32_t vmt_trace_nr_streams(const struct vmt_trace *trace);
const struct vmt_trace_stream_info *vmt_trace_stream(const struct vmt_trace *trace,
						     uint32_t stream_id);

struct vmt_trace_stream_stats {
	uint64_t entries;
	uint64_t frames;
	uint64_t first_time;	/* of the stream's first and last entries */
	uint64_t last_time;
	int time_sorted;	/* entry times never decrease along the stream */
};
int vmt_trace_stream_stats(const struct vmt_trace *trace, uint32_t stream_id,
			   struct vmt_trace_stream_stats *stats);
uint64_t vmt_trace_nr_frames(const struct vmt_trace *trace);
/*
 * Frames read and decompressed since the trace was opened, those decoded
 * ahead (vmt_trace_set_threads()) included.
 */
uint64_t vmt_trace_frames_decoded(const struct vmt_trace *trace);
/*
 * Decode frames on @threads threads (1 to VMT_TRACE_MAX_THREADS; 1, the
 * default, decodes each frame when it is first read): workers decode each
 * stream's next frames while the caller reads, and the caller decodes a
 * frame itself rather than wait for one no worker has begun. What is read
 * is the same whatever the count. 0 or -errno (the reason in the trace's
 * error message).
 */
#define VMT_TRACE_MAX_THREADS	256
int vmt_trace_set_threads(struct vmt_trace *trace, unsigned int threads);
/*
 * Exact records' values are not wanted: frames that keep them apart (the
 * model codec's, from its mode 4: docs/FORMAT.md) are decoded without
 * them, faster, and such records read with their value bytes zero (those
 * of a record with data excepted: its data's offset stays); other frames
 * keep them. For readers that look at addresses alone (profile, cachesim, stats);
 * a command that rewrites a trace must not call it. Frames already read
 * keep theirs. Call it before vmt_trace_set_threads(): -EBUSY after.
 * 0 or -errno.
 */
int vmt_trace_skip_values(struct vmt_trace *trace);
/*
 * Cut @trace by time into @parts parts of about as many records each, from
 * the directory alone: part k holds the records with bounds[k] <= time <
 * bounds[k + 1] (@bounds has @parts + 1 entries; bounds[0] is 0, and the
 * last part runs to UINT64_MAX inclusive). A part may be empty. Read
 * through a time range filter, a part decodes only the frames whose times
 * meet it. 0 or -errno.
 */
int vmt_trace_time_parts(struct vmt_trace *trace, unsigned int parts, uint64_t *bounds);

/* Copy entry @index of a stream to @entry (entry_size bytes). -ERANGE past the end. */
int vmt_trace_read(struct vmt_trace *trace, uint32_t stream_id, uint64_t index, void *entry);
/*
 * The index of the first entry of a stream whose time is at least @time (the
 * stream's entry count when there is none): a binary search over the frames
 * and then within one, when the stream is time-sorted; a scan otherwise.
 * -EINVAL for a stream without times.
 */
int64_t vmt_trace_seek_time(struct vmt_trace *trace, uint32_t stream_id, uint64_t time);

/*
 * The variable-size data of @record (hdr.data_len bytes at its data_off in
 * the data stream), copied to @buf, which has room for @size bytes. Returns
 * the length, or -ENOSPC (buffer too small), -ENOENT (the trace has no data
 * stream), -ERANGE (past its end), or another -errno of vmt_trace_read().
 */
int vmt_trace_record_data(struct vmt_trace *trace, const struct vmt_record *record, void *buf,
			  size_t size);

/* The id of the first stream named @name, or -ENOENT. */
int vmt_trace_find_stream(const struct vmt_trace *trace, const char *name);
/*
 * Entry 0 of the opaque stream @name into @out: its first @size bytes,
 * zero past the entry's end. 0, -ENOENT when the trace has no such
 * stream (or it is empty), or another -errno.
 */
int vmt_trace_read_opaque(struct vmt_trace *trace, const char *name, void *out, uint32_t size);
/*
 * The settings the collector traced with (struct vmt_trace_session), or
 * -ENOENT for a trace that did not record them (converted from raw
 * records, or older than the stream).
 */
int vmt_trace_session(struct vmt_trace *trace, struct vmt_trace_session *out);

/* Decode every frame and check it against the directory; 0 or -errno with the message. */
int vmt_trace_check(struct vmt_trace *trace);

/* One thread's loop stream, as the "loops" stream lists it. */
struct vmt_trace_loops_thread {
	uint32_t stream_id;	/* its VMT_STREAM_LOOPS stream */
	uint32_t side_stream_id;	/* its times and values, or VMT_TRACE_NO_TIME: none */
	uint32_t pid, tid;
	uint64_t records;	/* exact accesses it replays */
	uint32_t keep;		/* VMT_LOOPS_KEEP_* */
	uint32_t window;	/* the encoder's window S */
};
/*
 * The loop streams of a trace written with loops_window: *@threads (free()
 * it) and their number, 0 when there are none. 0 or -errno with the message.
 */
int vmt_trace_loops(struct vmt_trace *trace, struct vmt_trace_loops_thread **threads,
		    uint32_t *nr_threads);
/*
 * Replay every loop stream to its last record, as many as the list says:
 * 0, or -errno with the message (descriptors that end early, run on, or do
 * not decode).
 */
int vmt_trace_check_loops(struct vmt_trace *trace);

/* ---- Iterating over the records of every stream -------------------------- */

enum vmt_trace_order {
	/* The order the writer received them in (the VMT_STREAM_ORDER stream). */
	VMT_ORDER_WRITTEN	= 0,
	/* Merged by time; ties go to the lower stream id. */
	VMT_ORDER_TIME		= 1,
};

/* [start, end) of addresses. */
struct vmt_trace_range {
	uint64_t start, end;
};

/*
 * Which records cursors return. A zeroed filter passes every record; each
 * field that is set narrows it, and a record must pass them all.
 */
/* A process's phase: its records from @start to before @end (ns). */
struct vmt_trace_phase {
	uint32_t pid;
	uint32_t reserved;
	uint64_t start, end;
};

struct vmt_trace_filter {
	uint32_t types;		/* bit t set: records of type t (t < 32); 0: any type */
	uint32_t nr_pids;	/* 0: any pid */
	const uint32_t *pids;	/* records whose hdr.pid is one of these */
	uint32_t nr_cpus;	/* 0: any CPU */
	const uint32_t *cpus;	/* records whose hdr.cpu is one of these */
	int time_range;		/* nonzero: records with from_time <= time <= to_time only */
	uint64_t from_time, to_time;
	/*
	 * Records whose address is in one of @addrs: a reference's or an
	 * eviction's (vaddr), an exact access's (addr; an instruction fetch's
	 * is the instruction's). Records of other types have none, and do not
	 * pass. 0: any record.
	 */
	uint32_t nr_addrs;
	const struct vmt_trace_range *addrs;
	/*
	 * Records whose instruction pointer is in one of @ips: a reference's or
	 * an exact access's ip (0 for a kernel-mode access). Records of other
	 * types, evictions among them, do not pass. 0: any record.
	 */
	uint32_t nr_ips;
	const struct vmt_trace_range *ips;
	/*
	 * Records of a process within one of its phases (vmt_trace_marker_phases()
	 * finds them between markers): @phases sorted by pid, then start, a
	 * process's not overlapping. Records of processes without one do not
	 * pass. 0: any record.
	 */
	uint32_t nr_phases;
	const struct vmt_trace_phase *phases;
};

/*
 * Restrict what cursors over @trace return, vmt_trace_summarize()'s
 * included: cursors created after this call pass only the records @filter
 * passes (NULL: every record again). The filter is copied. Streams of a type
 * or CPU the filter leaves out are never decoded; a time range starts and
 * ends each time-sorted stream with vmt_trace_seek_time() instead of reading
 * the frames before it. vmt_trace_read() and vmt_trace_seek_time() still
 * reach every entry. -EINVAL when from_time > to_time, a range of @addrs
 * or @ips is empty (start >= end), or @phases are empty, out of order or
 * overlapping.
 */
int vmt_trace_set_filter(struct vmt_trace *trace, const struct vmt_trace_filter *filter);
/*
 * Every process's phases between its markers (HMTT's I-Code events): from
 * each of its markers @first to its next marker @last, or (@last
 * VMT_TRACE_ANY_MARKER) to its next marker of any id, or else to the
 * trace's end; the closing marker is the phase's end, outside it. A marker
 * @first within a phase is inside it. *@phases (malloc()ed; free()) as
 * vmt_trace_filter wants them, and their number. The markers are read
 * through a cursor over the whole trace (its filter set aside, then put
 * back). 0 or -errno; -ENOENT when no phase begins.
 */
#define VMT_TRACE_ANY_MARKER	0xffffffffu
int vmt_trace_marker_phases(struct vmt_trace *trace, uint32_t first, uint32_t last,
			    struct vmt_trace_phase **phases, uint32_t *nr_phases);

struct vmt_trace_cursor;

int vmt_trace_cursor_create(struct vmt_trace *trace, enum vmt_trace_order order,
			    struct vmt_trace_cursor **cursor);
/*
 * The next record: 1 with *@record and *@stream_id set (the record stays
 * valid until the next call), 0 at the end, or -errno.
 */
int vmt_trace_cursor_next(struct vmt_trace_cursor *cursor, const struct vmt_record **record,
			  uint32_t *stream_id);
/*
 * The next records, up to @max (INT_MAX at most), copied into @records and
 * their streams into @stream_ids (when not NULL), for callers that take
 * records in batches (the Python package): the count, 0 at the end, or
 * -errno with the message. A record's data reads from its copy as from the
 * cursor's (vmt_trace_record_data()).
 */
int vmt_trace_cursor_read(struct vmt_trace_cursor *cursor, struct vmt_record *records,
			  uint32_t *stream_ids, size_t max);
void vmt_trace_cursor_free(struct vmt_trace_cursor *cursor);

/* ---- Summaries (stats and report) ---------------------------------------- */

struct vmt_trace_summary_options {
	uint32_t time_buckets;	/* equal slices of the time span; 0: 10 */
	uint32_t top_pages;	/* the most referenced pages to keep; 0: 10 */
};

/* One process (thread group): what its records say. */
struct vmt_trace_process {
	uint32_t pid;
	uint64_t records;	/* of any type */
	uint64_t references;	/* VMT_REC_REFERENCE */
	uint64_t writes;	/* references with VMT_ACCESS_WRITE */
	uint64_t evictions;	/* VMT_REC_EVICT */
	uint64_t pages;		/* distinct 4 KiB pages referenced: the footprint */
	uint64_t first_time, last_time;
	char comm[VMT_COMM_LEN + 1];	/* its name, from TASK and COMM records; "" if none */
	char *exe;		/* its executable, from TASK and EXEC records; NULL if none */
};

struct vmt_trace_page {
	uint32_t pid;
	uint64_t address;	/* the 4 KiB page's */
	uint64_t references;
	uint64_t writes;
};

#define VMT_SUMMARY_TYPES	16	/* by_type[] covers record types 0..15 */

struct vmt_trace_summary {
	uint64_t records;
	uint64_t by_type[VMT_SUMMARY_TYPES];
	uint64_t other_types;		/* records of a type >= VMT_SUMMARY_TYPES */
	uint32_t nr_cpus;		/* highest CPU seen + 1 */
	uint64_t *by_cpu;		/* records, LOST records included */
	uint64_t *lost_by_cpu;		/* the counts of the LOST records */
	uint64_t lost;
	uint64_t first_time, last_time;	/* 0 and 0 without records */
	uint32_t nr_processes;
	struct vmt_trace_process *processes;	/* most references first; ties: lower pid */
	uint64_t pages;			/* distinct (pid, page) pairs referenced */
	uint32_t nr_buckets;
	uint64_t bucket_ns;		/* each bucket's length */
	uint64_t *bucket_references;	/* references in [first + i * len, first + (i+1) * len) */
	uint32_t nr_top_pages;
	struct vmt_trace_page *top_pages;	/* most references first; ties: pid, address */
	/* VMT_REC_EXACT records by access: [VMT_ACCESS_READ], _WRITE, _RMW, _EXEC */
	uint64_t exact_by_access[8];
	uint64_t exact_kernel;		/* of them, the kernel's (kernel_mode) */
};

/*
 * Read every record once (in written order) and count. Returns 0 with
 * *@summary set, or -errno (message in vmt_trace_error_message()).
 */
int vmt_trace_summarize(struct vmt_trace *trace, const struct vmt_trace_summary_options *options,
			struct vmt_trace_summary **summary);
void vmt_trace_summary_free(struct vmt_trace_summary *summary);

/*
 * A summary made in parts (the commands' parallel runs): each part's
 * summarizer reads its part of a trace (the trace's filter narrowed to a
 * time range of vmt_trace_time_parts()), the later parts merge into the
 * first in time order, and finishing gives what vmt_trace_summarize() gives
 * of the whole. A part packs into bytes for another process, which unpacks
 * and merges it. Each returns 0 or -errno (-EBADMSG: packed bytes that are
 * not a part; -EINVAL: parts of different traces or options).
 */
struct vmt_trace_summarizer;
int vmt_trace_summarizer_create(struct vmt_trace *trace,
				const struct vmt_trace_summary_options *options,
				struct vmt_trace_summarizer **summarizer);
/* Count @summarizer's trace's records, through its filter. */
int vmt_trace_summarizer_read(struct vmt_trace_summarizer *summarizer);
/* @later: the part after @summarizer's (or after those merged into it). */
int vmt_trace_summarizer_merge(struct vmt_trace_summarizer *summarizer,
			       const struct vmt_trace_summarizer *later);
/* *@data: malloc()ed, *@size bytes. */
int vmt_trace_summarizer_pack(const struct vmt_trace_summarizer *summarizer, void **data,
			      size_t *size);
int vmt_trace_summarizer_unpack_merge(struct vmt_trace_summarizer *summarizer,
				      const void *data, size_t size);
/* The summary; frees @summarizer, whatever the outcome. */
int vmt_trace_summarizer_finish(struct vmt_trace_summarizer *summarizer,
				struct vmt_trace_summary **summary);
void vmt_trace_summarizer_free(struct vmt_trace_summarizer *summarizer);

/* ---- Attribution: which mapping each reference fell in -------------------- */

struct vmt_trace_mapping_count {
	char *name;		/* a file's path, or [heap], [stack], [anon], [vdso]... */
	uint8_t kind;		/* enum vmt_vma_kind */
	uint64_t references;
};

struct vmt_trace_attribution {
	uint64_t references;	/* VMT_REC_REFERENCE records */
	uint64_t attributed;	/* of them, inside a mapping the trace describes */
	uint32_t nr_mappings;
	struct vmt_trace_mapping_count *mappings;	/* most references first */
};

/*
 * Replay the VMA, FORK and EXEC records in time order into a map per
 * process and look each reference up in it. Without VMA records nothing is
 * attributed. 0 with *@result set, or -errno.
 */
int vmt_trace_attribute(struct vmt_trace *trace, struct vmt_trace_attribution **result);
void vmt_trace_attribution_free(struct vmt_trace_attribution *attribution);

/* ---- Importing other tools' traces ---------------------------------------- */

/*
 * Text traces of other tools, read a line at a time into exact records
 * (VMT_REC_EXACT), one an access, in the order of their lines: hdr.time_ns
 * is the record's index (0, 1, ...), pid, tid and CPU are the options',
 * exact.value is zero (the text has no values) and kernel_mode and flags
 * are 0.
 *
 * VMT_IMPORT_LACKEY: what `valgrind --tool=lackey --trace-mem=yes` writes,
 *   "I  ADDR,SIZE" an instruction fetch (access VMT_ACCESS_EXEC, ip ADDR),
 *   " L ADDR,SIZE" a load (_READ), " S ..." a store (_WRITE), " M ..." a
 *   modify (_RMW); a load, store or modify has the ip of the "I" line before
 *   it (0 before the first). ADDR is hex, SIZE decimal. Valgrind's own lines
 *   ("==PID== ...", and "--PID-- ..." with -v) and blank lines are skipped.
 * VMT_IMPORT_DIN: Dinero IV's traditional "din", "LABEL ADDRESS [SIZE]":
 *   LABEL 0 a read, 1 a write, 2 an instruction fetch (ip ADDRESS), 3 an
 *   escape and 4 a cache flush (both skipped; flushes counted); ADDRESS hex,
 *   with or without 0x; SIZE decimal, 4 when left out (Dinero IV takes every
 *   din access as 4 bytes). Dinero IV also rounds the address down to 4
 *   bytes and ignores whatever follows it; here the address is kept as it
 *   is, and a third field must be the size, the last. Blank lines are
 *   skipped. A read or write has ip 0: din does not tie accesses to
 *   instructions.
 *
 * Either: a size from 1 to VMT_IMPORT_MAX_SIZE; lines of at most
 * VMT_IMPORT_MAX_LINE bytes (a longer line of valgrind's is skipped all the
 * same); a '\r' before the newline is allowed. Any other line is an error
 * that names it and says what is wrong.
 */
enum vmt_import_format {
	VMT_IMPORT_LACKEY	= 1,
	VMT_IMPORT_DIN		= 2,
};

#define VMT_IMPORT_MAX_LINE	4096
#define VMT_IMPORT_MAX_SIZE	4096

/* "lackey", "din"; NULL for an unknown format. */
const char *vmt_import_format_name(unsigned int format);
/* The format named @name, or -EINVAL. */
int vmt_import_format_from_name(const char *name);

struct vmt_import_options {
	uint32_t pid;		/* every record's hdr.pid */
	uint32_t tid;		/* and hdr.tid */
	uint16_t cpu;		/* and hdr.cpu */
	/* The input's name in messages ("trace.log:12: ..."); NULL: "input". */
	const char *name;
};

struct vmt_import_stats {
	uint64_t lines;		/* lines read; after an error, the bad line's number */
	uint64_t records;	/* records made: the four below */
	uint64_t fetches;	/* VMT_ACCESS_EXEC */
	uint64_t reads;		/* VMT_ACCESS_READ */
	uint64_t writes;	/* VMT_ACCESS_WRITE */
	uint64_t modifies;	/* VMT_ACCESS_RMW */
	uint64_t skipped;	/* lines that made no record, flushes included */
	uint64_t flushes;	/* din's label 4 */
};

/* Called with each record made; a nonzero return stops the import and is returned. */
typedef int (*vmt_import_emit_fn)(void *arg, const struct vmt_record *record);

struct vmt_import;

/* 0, -EINVAL for an unknown @format, -ENOMEM. @options->name is copied. */
int vmt_import_create(struct vmt_import **import, unsigned int format,
		      const struct vmt_import_options *options);
/*
 * Read the next @size bytes of the text, in pieces of any size: each line
 * they complete is parsed and @emit is called with its record; a line cut
 * at the end of @data waits for the next call. 0; -EINVAL for a bad line
 * (@err: "NAME:LINE: what is wrong"), after which every call fails the same
 * way; or what @emit returned.
 */
int vmt_import_feed(struct vmt_import *import, const void *data, size_t size,
		    vmt_import_emit_fn emit, void *arg, struct vmt_trace_error *err);
/*
 * The end of the text: parse its last line if no newline ended it. 0;
 * -ENODATA when no line made a record (@err says so); or what
 * vmt_import_feed() returns.
 */
int vmt_import_finish(struct vmt_import *import, vmt_import_emit_fn emit, void *arg,
		      struct vmt_trace_error *err);
void vmt_import_stats(const struct vmt_import *import, struct vmt_import_stats *stats);
void vmt_import_free(struct vmt_import *import);

/* ---- Repair -------------------------------------------------------------- */

struct vmt_trace_repair_report {
	uint64_t frames;	/* complete frames kept */
	uint64_t streams;
	uint64_t data_end;	/* where the last complete block ends */
	uint64_t dropped_bytes;	/* cut after it: a partial block, an old directory */
	char reason[160];	/* why scanning stopped at data_end */
};

/*
 * Scan @path's blocks, cut the file after the last complete one and write a
 * new directory. Everything after the first incomplete or corrupt block is
 * dropped (the report says why).
 */
int vmt_trace_repair(const char *path, struct vmt_trace_repair_report *report,
		     struct vmt_trace_error *err);

#ifdef __cplusplus
}
#endif
#endif /* VMTRACE_TRACE_H */
