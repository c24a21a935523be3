// SPDX-License-Identifier: MIT
/*
 * Fuzz target for the Arm SPE packet/record decoder. Input: byte 0 picks the chunk size
 * (1..256) used to feed the rest as consecutive AUX chunks of one stream (every 7th chunk
 * flagged as a gap when byte 1 is odd); byte 2 picks the MIDR (common, AmpereOne, generic).
 * Every emitted sample is also rendered with raw_json. The decoder must never read out of
 * bounds, loop, or hand out a raw pointer outside the chunk or its stream buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/backend.h>
#include <hwsample/registry.h>

const struct hws_backend_ops *hws_backend_entry_arm_spe(const struct hws_host *host);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct hws_backend_ops *ops;
static void *priv;
static const struct hws_file_info *cur_fi;

static int on_sample(void *ctx, const struct hws_sample *s)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	volatile uint8_t sum = 0;

	(void)ctx;
	for (uint32_t i = 0; i < s->raw_size; i++)
		sum ^= ((const uint8_t *)s->raw)[i];
	(void)sum;
	ops->raw_json(priv, cur_fi, s, &sb);
	hws_strbuf__release(&sb);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const midrs[] = {"0x410fd0c0", "0xc00fac30", "0x410fd034"};
	static struct hws_time_conv tc = {.time_shift = 10, .time_mult = 1000, .time_zero = 7};
	struct hws_file_info fi = {.sz = sizeof(fi), .time_conv = &tc};
	void *stream;
	size_t chunk, off = 3, k = 0;

	if (size < 3)
		return 0;
	if (!ops) {
		ops = hws_backend_entry_arm_spe(hws_host__get());
		priv = calloc(1, ops->priv_size);
		ops->init(priv, hws_host__get());
	}
	fi.cpuid = midrs[data[2] % 3];
	cur_fi = &fi;
	chunk = (size_t)data[0] + 1;
	stream = calloc(1, ops->aux_stream_size);
	if (!stream)
		return 0;
	while (off < size) {
		size_t n = size - off < chunk ? size - off : chunk;
		/* copy so ASan sees the exact chunk bounds */
		uint8_t *c = malloc(n);
		struct hws_aux_chunk ch = {.data = c,
					   .size = n,
					   .offset = off - 3,
					   .cpu = 0,
					   .tid = UINT32_MAX,
					   .gap = (data[1] & 1) && k % 7 == 6};

		if (!c)
			break;
		memcpy(c, data + off, n);
		ops->aux_decode(priv, stream, &fi, &ch, on_sample, NULL);
		free(c);
		off += n;
		k++;
	}
	ops->aux_flush(priv, stream, &fi, on_sample, NULL);
	free(stream);
	return 0;
}
