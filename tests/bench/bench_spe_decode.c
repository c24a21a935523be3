// SPDX-License-Identifier: MIT
/*
 * bench_spe_decode: decode-only throughput of the Arm SPE backend on a perf.data file
 * (AUXTRACE chunks -> aux_decode -> struct hws_sample), without output formatting, so the
 * backend's own cost can be told apart from dump's JSON writer (scripts/bench-spe).
 *
 *   bench_spe_decode FILE [--raw]     --raw also renders every sample's raw_json
 *
 * Prints records, bytes, CPU seconds and records/s. Streams are keyed by AUXTRACE idx.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hwsample/perfdata.h>
#include <hwsample/registry.h>

const struct hws_backend_ops *hws_backend_entry_arm_spe(const struct hws_host *host);

static const struct hws_backend_ops *ops;
static void *priv;
static const struct hws_file_info *fi;
static struct hws_strbuf sb = HWS_STRBUF_INIT;
static int with_raw;
static unsigned long long nsamples, checksum;

static int on_sample(void *ctx, const struct hws_sample *s)
{
	(void)ctx;
	nsamples++;
	checksum += s->ip ^ s->addr ^ s->data_src ^ s->lat_total;
	if (with_raw) {
		hws_strbuf__reset(&sb);
		ops->raw_json(priv, fi, s, &sb);
		checksum += sb.len;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct hws_perf_reader *r;
	struct hws_perf_record rec;
	void *streams[256] = {0};
	unsigned long long bytes = 0;
	struct timespec t0, t1;
	int err = 0, ret;
	double sec;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_spe_decode FILE [--raw]\n");
		return 2;
	}
	with_raw = argc > 2 && !strcmp(argv[2], "--raw");
	ops = hws_backend_entry_arm_spe(hws_host__get());
	priv = calloc(1, ops->priv_size);
	ops->init(priv, hws_host__get());
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	r = hws_perf_reader__open(argv[1], NULL);
	err = r ? 0 : -errno;
	if (!r) {
		fprintf(stderr, "bench_spe_decode: %s: error %d\n", argv[1], err);
		return 1;
	}
	fi = hws_perf_reader__file_info(r);
	while ((ret = hws_perf_reader__next(r, &rec)) > 0) {
		const uint8_t *h = (const void *)rec.hdr;
		struct hws_aux_chunk ch;
		uint32_t idx;

		if (rec.hdr->type != HWS_RECORD_AUXTRACE || rec.hdr->size < 48)
			continue;
		memset(&ch, 0, sizeof(ch));
		memcpy(&ch.offset, h + 16, 8);
		memcpy(&ch.reference, h + 24, 8);
		memcpy(&idx, h + 32, 4);
		memcpy(&ch.tid, h + 36, 4);
		memcpy(&ch.cpu, h + 40, 4);
		ch.idx = idx;
		ch.data = rec.payload;
		ch.size = rec.payload_size;
		idx &= 255;
		if (!streams[idx])
			streams[idx] = calloc(1, ops->aux_stream_size);
		ops->aux_decode(priv, streams[idx], fi, &ch, on_sample, NULL);
		bytes += rec.payload_size;
	}
	for (int i = 0; i < 256; i++)
		if (streams[i]) {
			ops->aux_flush(priv, streams[i], fi, on_sample, NULL);
			free(streams[i]);
		}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	if (ret < 0)
		fprintf(stderr, "bench_spe_decode: %s\n", hws_perf_reader__errmsg(r));
	hws_perf_reader__close(r);
	sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("records %llu bytes %llu cpu_sec %.3f records_per_sec %.0f (checksum %llx)\n",
	       nsamples, bytes, sec, sec > 0 ? (double)nsamples / sec : 0.0, checksum);
	hws_strbuf__release(&sb);
	free(priv);
	return ret < 0;
}
