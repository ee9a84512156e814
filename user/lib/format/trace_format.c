// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Encoding and checking the trace file's blocks (format/trace_format.h,
 * docs/FORMAT.md). Decoders check everything a reader relies on later, so
 * that the rest of the library works with sane values only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "format/trace_format.h"

/* The checksum a block of @size bytes keeps in its last four. */
static void seal_block(uint8_t *block, size_t size)
{
	vmt_put32(block + size - 4, vmt_crc32(block, size - 4));
}

static int check_seal(const uint8_t *block, size_t size, const char *what, char *msg,
		      size_t msg_size)
{
	uint32_t stored = vmt_get32(block + size - 4), computed = vmt_crc32(block, size - 4);

	if (vmt_checksum_matches(stored, computed))
		return 0;
	snprintf(msg, msg_size, "%s checksum mismatch (stored 0x%08x, computed 0x%08x)", what,
		 stored, computed);
	return -EBADMSG;
}

void vmt_file_header_encode(uint8_t out[VMT_FILE_HEADER_SIZE])
{
	memset(out, 0, VMT_FILE_HEADER_SIZE);
	memcpy(out, VMT_FILE_MAGIC, 8);
	vmt_put32(out + 8, VMT_TRACE_FORMAT_VERSION);
	vmt_put32(out + 12, VMT_FILE_HEADER_SIZE);
	seal_block(out, VMT_FILE_HEADER_SIZE);
}

int vmt_file_header_check(const uint8_t in[VMT_FILE_HEADER_SIZE], char *msg, size_t msg_size)
{
	uint32_t version = vmt_get32(in + 8), size = vmt_get32(in + 12);

	if (memcmp(in, VMT_FILE_MAGIC, 8)) {
		snprintf(msg, msg_size, "not a vmtrace trace file (wrong magic at byte 0)");
		return -EBADMSG;
	}
	if (version < 1 || version > VMT_TRACE_FORMAT_VERSION) {
		snprintf(msg, msg_size,
			 "format version %u at byte 8: this reader knows versions 1 to %u",
			 version, VMT_TRACE_FORMAT_VERSION);
		return -EPROTO;
	}
	if (check_seal(in, VMT_FILE_HEADER_SIZE, "file header", msg, msg_size))
		return -EBADMSG;
	if (size != VMT_FILE_HEADER_SIZE || vmt_get32(in + 16)) {
		snprintf(msg, msg_size, "file header: size %u or flags 0x%x at byte 12 unknown",
			 size, vmt_get32(in + 16));
		return -EBADMSG;
	}
	return 0;
}

void vmt_stream_block_encode(uint8_t out[VMT_STREAM_BLOCK_SIZE],
			     const struct vmt_trace_stream_info *info)
{
	memset(out, 0, VMT_STREAM_BLOCK_SIZE);
	memcpy(out, VMT_MAGIC_STREAM, 4);
	vmt_put32(out + 4, info->id);
	vmt_put32(out + 8, info->entry_size);
	vmt_put32(out + 12, info->kind);
	vmt_put32(out + 16, info->record_type);
	vmt_put32(out + 20, info->cpu);
	vmt_put32(out + 24, info->time_offset);
	memcpy(out + 32, info->name, strnlen(info->name, sizeof(info->name) - 1));
	seal_block(out, VMT_STREAM_BLOCK_SIZE);
}

/* Everything but the id: the writer checks a stream before it numbers it. */
int vmt_stream_info_check(const struct vmt_trace_stream_info *info, char *msg, size_t msg_size)
{
	if (!info->entry_size || info->entry_size > VMT_MAX_ENTRY_SIZE) {
		snprintf(msg, msg_size, "entry size %u out of range (1..%u)", info->entry_size,
			 VMT_MAX_ENTRY_SIZE);
		return -EBADMSG;
	}
	if (info->kind > VMT_STREAM_LOOPSET) {
		snprintf(msg, msg_size, "unknown stream kind %u", info->kind);
		return -EBADMSG;
	}
	if ((info->kind == VMT_STREAM_RECORDS && info->entry_size != sizeof(struct vmt_record)) ||
	    (info->kind == VMT_STREAM_ORDER &&
	     info->entry_size != sizeof(struct vmt_trace_order_run)) ||
	    ((info->kind == VMT_STREAM_DATA || info->kind == VMT_STREAM_LOOPS ||
	      info->kind == VMT_STREAM_LOOPSET) && info->entry_size != 1)) {
		snprintf(msg, msg_size, "entry size %u does not fit stream kind %u",
			 info->entry_size, info->kind);
		return -EBADMSG;
	}
	if (info->time_offset != VMT_TRACE_NO_TIME &&
	    (info->entry_size < 8 || info->time_offset > info->entry_size - 8)) {
		snprintf(msg, msg_size, "time offset %u outside a %u-byte entry",
			 info->time_offset, info->entry_size);
		return -EBADMSG;
	}
	return 0;
}

int vmt_stream_block_decode(const uint8_t in[VMT_STREAM_BLOCK_SIZE],
			    struct vmt_trace_stream_info *info, char *msg, size_t msg_size)
{
	char detail[128];
	int err;

	if (memcmp(in, VMT_MAGIC_STREAM, 4)) {
		snprintf(msg, msg_size, "stream block: wrong magic");
		return -EBADMSG;
	}
	err = check_seal(in, VMT_STREAM_BLOCK_SIZE, "stream block", msg, msg_size);
	if (err)
		return err;
	memset(info, 0, sizeof(*info));
	info->id = vmt_get32(in + 4);
	info->entry_size = vmt_get32(in + 8);
	info->kind = vmt_get32(in + 12);
	info->record_type = vmt_get32(in + 16);
	info->cpu = vmt_get32(in + 20);
	info->time_offset = vmt_get32(in + 24);
	memcpy(info->name, in + 32, sizeof(info->name) - 1);
	err = vmt_stream_info_check(info, detail, sizeof(detail));
	if (err)
		snprintf(msg, msg_size, "stream %u: %s", info->id, detail);
	return err;
}

void vmt_frame_header_encode(uint8_t out[VMT_FRAME_HEADER_SIZE], const struct vmt_frame_header *h)
{
	memcpy(out, VMT_MAGIC_FRAME, 4);
	vmt_put32(out + 4, h->stream_id);
	vmt_put64(out + 8, h->sequence);
	vmt_put64(out + 16, h->first_entry);
	vmt_put32(out + 24, h->entry_count);
	vmt_put16(out + 28, h->codec);
	vmt_put16(out + 30, h->flags);
	vmt_put64(out + 32, h->first_time);
	vmt_put64(out + 40, h->last_time);
	vmt_put32(out + 48, h->raw_size);
	vmt_put32(out + 52, h->comp_size);
	vmt_put32(out + 56, h->payload_crc);
	seal_block(out, VMT_FRAME_HEADER_SIZE);
}

int vmt_frame_header_decode(const uint8_t in[VMT_FRAME_HEADER_SIZE], struct vmt_frame_header *h,
			    char *msg, size_t msg_size)
{
	unsigned int codec, stage2;
	int err;

	if (memcmp(in, VMT_MAGIC_FRAME, 4)) {
		snprintf(msg, msg_size, "wrong frame magic");
		return -EBADMSG;
	}
	err = check_seal(in, VMT_FRAME_HEADER_SIZE, "frame header", msg, msg_size);
	if (err)
		return err;
	h->stream_id = vmt_get32(in + 4);
	h->sequence = vmt_get64(in + 8);
	h->first_entry = vmt_get64(in + 16);
	h->entry_count = vmt_get32(in + 24);
	h->codec = vmt_get16(in + 28);
	h->flags = vmt_get16(in + 30);
	h->first_time = vmt_get64(in + 32);
	h->last_time = vmt_get64(in + 40);
	h->raw_size = vmt_get32(in + 48);
	h->comp_size = vmt_get32(in + 52);
	h->payload_crc = vmt_get32(in + 56);
	codec = h->codec & 0xff;
	stage2 = h->codec >> 8;
	if (codec > VMT_CODEC_MODEL ||
	    (codec == VMT_CODEC_VPC ? stage2 > VMT_CODEC_XZ : stage2 != 0)) {
		snprintf(msg, msg_size, "unknown codec 0x%04x", h->codec);
		return -EBADMSG;
	}
	if ((h->flags & ~VMT_FRAME_FLAGS) || h->flags == VMT_FRAME_FLAGS) {
		snprintf(msg, msg_size, "unknown frame flags 0x%x", h->flags);
		return -EBADMSG;
	}
	if (!h->entry_count || h->raw_size > VMT_MAX_FRAME_RAW ||
	    h->comp_size > VMT_MAX_FRAME_RAW + (VMT_MAX_FRAME_RAW >> 4) ||
	    h->first_entry > UINT64_MAX - h->entry_count) {
		snprintf(msg, msg_size,
			 "nonsense sizes: %u entries from %llu, %u raw bytes, %u compressed",
			 h->entry_count, (unsigned long long)h->first_entry, h->raw_size,
			 h->comp_size);
		return -EBADMSG;
	}
	if ((h->flags & VMT_FRAME_FLAGS) && h->first_time > h->last_time) {
		snprintf(msg, msg_size, "frame with first time %llu after last %llu",
			 (unsigned long long)h->first_time, (unsigned long long)h->last_time);
		return -EBADMSG;
	}
	return 0;
}

int vmt_frame_header_check_sizes(const struct vmt_frame_header *h, uint32_t entry_size,
				 char *msg, size_t msg_size)
{
	if ((uint64_t)h->entry_count * entry_size != h->raw_size) {
		snprintf(msg, msg_size, "%u entries of %u bytes in a frame of %u raw bytes",
			 h->entry_count, entry_size, h->raw_size);
		return -EBADMSG;
	}
	return 0;
}

static void frame_ref_encode(uint8_t *p, const struct vmt_frame_ref *f)
{
	vmt_put64(p, f->offset);
	vmt_put64(p + 8, f->first_entry);
	vmt_put64(p + 16, f->first_time);
	vmt_put64(p + 24, f->last_time);
	vmt_put32(p + 32, f->stream_id);
	vmt_put32(p + 36, f->entry_count);
	vmt_put32(p + 40, f->flags);
	vmt_put32(p + 44, 0);
}

void vmt_frame_ref_decode(const uint8_t *p, struct vmt_frame_ref *f)
{
	f->offset = vmt_get64(p);
	f->first_entry = vmt_get64(p + 8);
	f->first_time = vmt_get64(p + 16);
	f->last_time = vmt_get64(p + 24);
	f->stream_id = vmt_get32(p + 32);
	f->entry_count = vmt_get32(p + 36);
	f->flags = vmt_get32(p + 40);
}

int vmt_directory_encode(const struct vmt_trace_stream_info *streams, uint32_t nr_streams,
			 const struct vmt_frame_ref *frames, uint64_t nr_frames,
			 uint64_t dir_offset, struct vmt_buf *out)
{
	uint64_t dir_size = VMT_DIR_HEADER_SIZE + (uint64_t)nr_streams * VMT_STREAM_BLOCK_SIZE +
			    nr_frames * VMT_DIR_FRAME_SIZE;
	uint8_t *p, *trailer;
	int err;

	if (dir_size + VMT_TRAILER_SIZE > SIZE_MAX)
		return -EFBIG;
	err = vmt_buf_reserve(out, (size_t)dir_size + VMT_TRAILER_SIZE);
	if (err)
		return err;
	p = out->data;
	memcpy(p, VMT_MAGIC_DIRECTORY, 4);
	vmt_put32(p + 4, nr_streams);
	vmt_put64(p + 8, nr_frames);
	vmt_put64(p + 16, 0);
	p += VMT_DIR_HEADER_SIZE;
	for (uint32_t i = 0; i < nr_streams; i++, p += VMT_STREAM_BLOCK_SIZE)
		vmt_stream_block_encode(p, &streams[i]);
	for (uint64_t i = 0; i < nr_frames; i++, p += VMT_DIR_FRAME_SIZE)
		frame_ref_encode(p, &frames[i]);
	trailer = p;
	memcpy(trailer, VMT_MAGIC_TRAILER, 4);
	vmt_put32(trailer + 4, vmt_crc32(out->data, (size_t)dir_size));
	vmt_put64(trailer + 8, dir_offset);
	vmt_put64(trailer + 16, dir_size);
	vmt_put32(trailer + 24, 0);
	seal_block(trailer, VMT_TRAILER_SIZE);
	out->size = (size_t)dir_size + VMT_TRAILER_SIZE;
	return 0;
}

int vmt_trailer_decode(const uint8_t in[VMT_TRAILER_SIZE], uint64_t *dir_offset,
		       uint64_t *dir_size, uint32_t *dir_crc, char *msg, size_t msg_size)
{
	int err;

	if (memcmp(in, VMT_MAGIC_TRAILER, 4)) {
		snprintf(msg, msg_size, "no directory trailer (the writer did not finish?)");
		return -ENODATA;
	}
	err = check_seal(in, VMT_TRAILER_SIZE, "trailer", msg, msg_size);
	if (err)
		return err;
	*dir_crc = vmt_get32(in + 4);
	*dir_offset = vmt_get64(in + 8);
	*dir_size = vmt_get64(in + 16);
	return 0;
}

void vmt_loops_entry_encode(uint8_t out[VMT_LOOPS_ENTRY_SIZE],
			    const struct vmt_trace_loops_thread *thread)
{
	vmt_put32(out, thread->stream_id);
	vmt_put32(out + 4, thread->side_stream_id);
	vmt_put32(out + 8, thread->pid);
	vmt_put32(out + 12, thread->tid);
	vmt_put64(out + 16, thread->records);
	vmt_put32(out + 24, thread->keep);
	vmt_put32(out + 28, thread->window);
}

void vmt_loops_entry_decode(const uint8_t in[VMT_LOOPS_ENTRY_SIZE],
			    struct vmt_trace_loops_thread *thread)
{
	thread->stream_id = vmt_get32(in);
	thread->side_stream_id = vmt_get32(in + 4);
	thread->pid = vmt_get32(in + 8);
	thread->tid = vmt_get32(in + 12);
	thread->records = vmt_get64(in + 16);
	thread->keep = vmt_get32(in + 24);
	thread->window = vmt_get32(in + 28);
}
