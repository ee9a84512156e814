// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-model-stats [--frame-bytes N] RAW: where the model codec's bits go.
 * The references and evictions of a raw file (what `export --format raw`
 * writes), in their order, as the writer's "mem" stream holds them, go
 * through the model codec in frames of N raw bytes (default 4 MiB, the
 * codec's default), built with -DVMT_MODEL_STATS so that the encoder adds
 * up the bits of each part of the records (user/lib/codec/codec_model.c). Prints
 * the bytes and, per part, bits per reference: the figures docs/BENCHMARKS.md
 * quotes to say where a trace's bytes go. Not a test, and not libvmtrace:
 * it is built from the codec's sources with the counters in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/trace.h"
#include "codec/codec_model.h"

#define FIELDS 14
extern double vmt_model_cost[FIELDS];
extern const char *const vmt_model_field_names[FIELDS];

static void usage(FILE *out)
{
	fprintf(out, "usage: vmt-model-stats [--frame-bytes N] RAW\n"
		     "  the model codec's bits per reference, by part of the records, on\n"
		     "  RAW's references and evictions in frames of N bytes (default 4 MiB)\n");
}

int main(int argc, char **argv)
{
	size_t frame_bytes = 4u << 20, n = 0, refs = 0, records = 0, bytes = 0;
	struct vmt_buf out = { 0 };
	struct vmt_record rec, *frame;
	const char *path = NULL;
	double total = 0;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--frame-bytes") && i + 1 < argc) {
			frame_bytes = strtoull(argv[++i], NULL, 0);
		} else if (!path && argv[i][0] != '-') {
			path = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!path || frame_bytes < sizeof(rec) || frame_bytes > (64u << 20)) {
		usage(stderr);
		return 2;
	}
	f = fopen(path, "rb");
	frame = malloc(frame_bytes);
	if (!f || !frame) {
		fprintf(stderr, "vmt-model-stats: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		size_t got = fread(&rec, sizeof(rec), 1, f);

		if (got && rec.hdr.type != VMT_REC_REFERENCE && rec.hdr.type != VMT_REC_EVICT)
			continue;
		if (got) {
			frame[n++] = rec;
			records++;
			refs += rec.hdr.type == VMT_REC_REFERENCE;
		}
		if (n && (!got || (n + 1) * sizeof(rec) > frame_bytes)) {
			int err = vmt_model_compress(frame, n * sizeof(rec), &out);

			if (err) {
				fprintf(stderr, "vmt-model-stats: %s\n", strerror(-err));
				return 1;
			}
			bytes += out.size;
			n = 0;
		}
		if (!got)
			break;
	}
	fclose(f);
	if (!refs) {
		fprintf(stderr, "vmt-model-stats: %s: no references\n", path);
		return 1;
	}
	printf("%s: %zu references and evictions, %zu references: %zu bytes in frames, %.2f bits a reference\n",
	       path, records, refs, bytes, bytes * 8.0 / (double)refs);
	for (int i = 0; i < FIELDS; i++) {
		total += vmt_model_cost[i];
		printf("  %-30s %6.2f\n", vmt_model_field_names[i], vmt_model_cost[i] / (double)refs);
	}
	printf("  %-30s %6.2f (the range coder's own, and stored frames, are the difference)\n",
	       "all", total / (double)refs);
	free(frame);
	vmt_buf_free(&out);
	return 0;
}
