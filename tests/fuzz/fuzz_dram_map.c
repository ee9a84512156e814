// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for DRAM address maps' text form (vmt_dram_map_parse(),
 * user/lib/analysis/analysis_dram.c; hmtt --dram-map): any bytes are
 * refused with a message, or give a map that the text form round-trips:
 * vmt_dram_map_format() of it parses again to the same map, and decoding
 * an address reads no field bit past 63. abort() otherwise.
 *
 * Seeds (tests/fuzz/corpus/fuzz_dram_map/): the doc's example, the DDR4 and
 * DDR5 presets' maps, and a map with overlapping fields.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vmt_dram_map map, again;
	char err[160] = "", text[4096];
	char *spec;
	size_t len;

	if (size > 4096)
		return 0;
	/* An exact-size string, so ASan sees any read past its end. */
	spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (vmt_dram_map_parse(spec, &map, err, sizeof(err))) {
		free(spec);
		if (!err[0])
			abort();
		return 0;
	}
	free(spec);
	len = vmt_dram_map_format(&map, text, sizeof(text));
	if (len >= sizeof(text))
		abort();
	if (vmt_dram_map_parse(text, &again, err, sizeof(err)) || memcmp(&map, &again, sizeof(map)))
		abort();
	for (int f = 0; f < VMT_DRAM_NR_FIELDS; f++)
		if (map.nr_bits[f] > VMT_DRAM_MAX_FIELD_BITS ||
		    vmt_dram_decode(&map, (enum vmt_dram_field)f, UINT64_MAX) >> 1 >>
		    (map.nr_bits[f] ? map.nr_bits[f] - 1 : 0))
			abort();
	(void)vmt_dram_bank(&map, UINT64_MAX);
	return 0;
}
