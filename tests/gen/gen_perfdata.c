// SPDX-License-Identifier: MIT
/*
 * perf.data files for the tests, written with hwsample's writer, and what hwsample's reader
 * sees in any perf.data, in the forms perf prints (tests/e2e/perfdata_vs_perf.sh compares
 * them with perf; tests/fuzz/make_unfinished_corpus.sh writes corpus files with it).
 *
 *   gen_perfdata records FILE     one line per record: "0xOFFSET 0xSIZE TYPE" (as the
 *                                 "event: N" lines of `perf report -D`)
 *   gen_perfdata samples FILE     one line per SAMPLE: "0xOFFSET pid tid time ip period addr
 *                                 cpu" (the fields of perf report -D's PERF_RECORD_SAMPLE line)
 *   gen_perfdata script FILE      one line per SAMPLE: "tid cpu sec.nsec" (perf script -F
 *                                 tid,cpu,time --ns, normalized)
 *   gen_perfdata stats FILE       per-type counts, named as `perf report --stats` names them
 *   gen_perfdata synth FILE|-     write a small file with 3 events (different sample_types,
 *                                 IDENTIFIER, sample_id_all, ids), COMM/MMAP2 side-band and
 *                                 samples, via the writer ("-" or synth-pipe: pipe mode)
 *   gen_perfdata synth-killed FILE  synth as a recorder killed after its second round
 *                                 leaves it (flushed each round, never closed)
 *   gen_perfdata swap IN OUT      write IN converted to the other byte order
 *                                 (tests/perfdata_swap.h)
 * Offsets are printed as perf prints them: in pipe mode without the 16-byte pipe header.
 * FILE "-" reads stdin (pipe mode). Exit 1 with "error: <errmsg>" on a reader error, after
 * printing what was decoded before it. The reader's and writer's speed:
 * tests/gen/gen_perfdata.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/perfdata.h>

#include "perfdata_swap.h"

static int do_swap(const char *in, const char *out)
{
	FILE *f = fopen(in, "rb");
	uint8_t *b = NULL;
	long n;
	int ret = 1;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		goto out;
	b = malloc((size_t)n);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n || perfdata_swap_image(b, (size_t)n))
		goto out;
	fclose(f);
	f = fopen(out, "wb");
	if (f && fwrite(b, 1, (size_t)n, f) == (size_t)n)
		ret = 0;
out:
	if (f)
		fclose(f);
	free(b);
	if (ret)
		fprintf(stderr, "swap %s failed\n", in);
	return ret;
}

static void put(struct hws_perf_writer *w, uint64_t *rec, size_t n, uint32_t type)
{
	struct perf_event_header h = {type, PERF_RECORD_MISC_USER, (uint16_t)(n * 8)};

	memcpy(rec, &h, 8);
	hws_perf_writer__write(w, rec, n * 8);
}

/* synth; @killed: flush after each round (as hwsample record does) and stop before
 * __close() with two more samples given but not flushed, as a recorder killed there */
static int do_synth(const char *path, bool pipe, bool killed)
{
	static const uint64_t base = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				     PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	struct hws_perf_event_attr a[3];
	const char *names[3] = {"cpu-clock", "page-faults", "dummy:u"};
	uint64_t ids[3][2] = {{101, 102}, {201, 202}, {301, 302}}, rec[32];
	struct hws_perf_writer *w = hws_perf_writer__new(path, pipe);
	char *args[] = {"gen_perfdata", "synth"};

	if (!w)
		return 1;
	memset(a, 0, sizeof(a));
	for (int i = 0; i < 3; i++) {
		a[i].type = PERF_TYPE_SOFTWARE;
		a[i].size = sizeof(a[i]);
		a[i].sample_id_all = 1;
		a[i].sample_period = 1000 * (i + 1);
		a[i].disabled = 1;
		a[i].exclude_kernel = i == 2;
	}
	a[0].config = PERF_COUNT_SW_CPU_CLOCK;
	a[0].sample_type = base | PERF_SAMPLE_ADDR;
	a[1].config = PERF_COUNT_SW_PAGE_FAULTS;
	a[1].sample_type = base | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	a[2].config = PERF_COUNT_SW_DUMMY;
	a[2].sample_type = base;
	a[2].mmap = a[2].comm = a[2].mmap2 = 1;
	for (int i = 0; i < 3; i++)
		if (hws_perf_writer__add_attr(w, &a[i], names[i], ids[i], 2) < 0)
			return 1;
	hws_perf_writer__add_host_features(w, 2, args, -1);

	/* COMM 4242/4242 "synth" + trailer TID TIME CPU IDENTIFIER (attr 2 side-band) */
	memset(rec, 0, sizeof(rec));
	rec[1] = (4242ULL << 32) | 4242;
	memcpy(&rec[2], "synth\0\0", 8);
	rec[3] = (4242ULL << 32) | 4242;
	rec[4] = 1000;
	rec[5] = 0;
	rec[6] = 301;
	put(w, rec, 7, PERF_RECORD_COMM);
	/* MMAP2 of /bin/synth */
	memset(rec, 0, sizeof(rec));
	rec[1] = (4242ULL << 32) | 4242;
	rec[2] = 0x400000;
	rec[3] = 0x10000;
	rec[4] = 0;
	rec[8] = (5ULL << 32) | 2; /* prot r-x? flags */
	memcpy(&rec[9], "/bin/synth\0\0\0\0\0", 16);
	rec[11] = (4242ULL << 32) | 4242;
	rec[12] = 2000;
	rec[13] = 1;
	rec[14] = 302;
	put(w, rec, 15, PERF_RECORD_MMAP2);
	for (int i = 0; i < 30; i++) {
		int e = i % 3;
		size_t n = 0;

		memset(rec, 0, sizeof(rec));
		rec[++n] = ids[e][i & 1];
		rec[++n] = 0x400100 + (uint64_t)i * 4;
		rec[++n] = (4242ULL << 32) | (4242 + (uint64_t)(i & 1));
		rec[++n] = 3000 + (uint64_t)i * 10;
		if (e < 2)
			rec[++n] = 0x7ffd0000 + (uint64_t)i * 8;
		rec[++n] = (uint64_t)(i & 1);
		rec[++n] = a[e].sample_period;
		if (e == 1) {
			rec[++n] = 0x42 + (uint64_t)i; /* weight */
			rec[++n] = 0x29080142ULL;      /* data_src */
		}
		put(w, rec, n + 1, PERF_RECORD_SAMPLE);
		if (i % 10 == 9) {
			put(w, rec, 1, HWS_RECORD_FINISHED_ROUND);
			if (killed && hws_perf_writer__flush(w))
				return 1;
		}
		if (killed && i == 21)
			_exit(0); /* no __close(), no flush: the last round's samples are lost */
	}
	return hws_perf_writer__close(w) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct hws_perf_reader *r;
	struct hws_perf_record rec;
	uint64_t counts[HWS_RECORD__MAX] = {0}, total = 0;
	const char *mode;
	int err, ret;

	if (argc < 3) {
		fprintf(stderr,
			"usage: %s records|samples|script|stats FILE | synth|synth-pipe|"
			"synth-killed FILE | swap IN OUT\n",
			argv[0]);
		return 2;
	}
	mode = argv[1];
	if (!strcmp(mode, "swap") && argc > 3)
		return do_swap(argv[2], argv[3]);
	if (!strcmp(mode, "synth") || !strcmp(mode, "synth-pipe"))
		return do_synth(argv[2], mode[5] == '-', false);
	if (!strcmp(mode, "synth-killed"))
		return do_synth(argv[2], false, true);
	r = hws_perf_reader__open(argv[2], NULL);
	err = r ? 0 : -errno;
	if (!r) {
		fprintf(stderr, "error: cannot open %s: %d\n", argv[2], err);
		return 1;
	}
	while ((ret = hws_perf_reader__next(r, &rec)) > 0) {
		const struct perf_event_header *h = rec.hdr;

		if (hws_perf_reader__is_pipe(r))
			rec.file_offset -= 16;

		counts[h->type]++;
		total++;
		if (!strcmp(mode, "records")) {
			printf("%#" PRIx64 " %#x %u\n", rec.file_offset, h->size, h->type);
		} else if (h->type == PERF_RECORD_SAMPLE &&
			   (!strcmp(mode, "samples") || !strcmp(mode, "script"))) {
			const struct hws_perf_evattr *ev = hws_perf_reader__attr(r, rec.attr_idx);
			struct hws_record_sample s;

			if (!ev || hws_sample__parse(&ev->attr, h, h->size, &s)) {
				if (mode[0] == 's')
					printf("%#" PRIx64 " unparsed\n", rec.file_offset);
				continue;
			}
			if (!strcmp(mode, "script")) {
				printf("%d %d %" PRIu64 ".%09" PRIu64 "\n", (int)s.tid,
				       (s.sample_type & PERF_SAMPLE_CPU) ? (int)s.cpu : -1,
				       s.time / 1000000000, s.time % 1000000000);
				continue;
			}
			if (mode[0] == 's') {
				/* perf -D prints "[cpu] [time] offset": the token before the
				 * offset is the time, else the cpu, else nothing */
				char pre[32] = "-";

				if (s.sample_type & PERF_SAMPLE_TIME)
					snprintf(pre, sizeof(pre), "%" PRIu64, s.time);
				else if (s.sample_type & PERF_SAMPLE_CPU)
					snprintf(pre, sizeof(pre), "%u", s.cpu);
				printf("%#" PRIx64 " %s %d %d %#" PRIx64 " %" PRIu64 " %#" PRIx64
				       "\n",
				       rec.file_offset, pre, (int)s.pid, (int)s.tid, s.ip, s.period,
				       s.addr);
			}
		}
	}
	if (!strcmp(mode, "stats")) {
		printf("TOTAL %" PRIu64 "\n", total);
		for (int t = 0; t < HWS_RECORD__MAX; t++)
			if (counts[t])
				printf("%s %" PRIu64 "\n", hws_record__type_name((uint32_t)t),
				       counts[t]);
	}
	if (ret < 0) {
		fflush(stdout);
		fprintf(stderr, "error: %s\n", hws_perf_reader__errmsg(r));
	}
	hws_perf_reader__close(r);
	return ret < 0 ? 1 : 0;
}
