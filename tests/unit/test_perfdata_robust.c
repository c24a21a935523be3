// SPDX-License-Identifier: MIT
/*
 * Damaged inputs never crash, hang or allocate without bound: every perf_data_converter
 * fixture, a file and a pipe stream from hwsample's writer, and their big-endian
 * conversions are cut at many offsets and bit-flipped in a deterministic pattern, and
 * each variant goes through the fuzz target (memfd file mode + real pipe for small ones),
 * which reads every record, parses every sample and calls every accessor. Run under
 * ASan/UBSan in the sanitizer build. A SIGALRM watchdog turns a hang into a failure.
 * Also: an intact file cut in its data section is read as an unfinished file up to the
 * record cut short (hws_perf_reader__unfinished() says where).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "../fuzz/fuzz_perfdata.c"
#include "perfdata_swap.h"
#include "tests.h"

static char fixdir[PATH_MAX];
static long variants;

static uint8_t *load(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	FILE *f = fopen(path, "rb");

	if (!f || fstat(fileno(f), &st)) {
		if (f)
			fclose(f);
		return NULL;
	}
	b = malloc((size_t)st.st_size + 1);
	if (b && fread(b, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)st.st_size;
	return b;
}

static void run(const uint8_t *b, size_t len)
{
	LLVMFuzzerTestOneInput(b, len);
	variants++;
}

static void damage(const char *what, const uint8_t *orig, size_t len)
{
	uint8_t *b = malloc(len + 1);
	/* ~150 spread variants; big files fewer (each variant reads the whole file) */
	size_t step = len / (len > 500000 ? 40 : 150) + 1;
	time_t t0 = time(NULL);

	/* truncations: every 97th offset of the first 4 KiB and the last 4 KiB (header,
	 * attrs, features), plus ~150 cuts spread over the whole file */
	for (size_t cut = 0; cut < len; cut += cut < 4096 || len - cut < 4096 ? 97 : step)
		run(orig, cut);
	/* single bit flips at every 97th byte of the first and last 8 KiB */
	for (size_t i = 0; i < len; i += (i < 8192 || len - i < 8192) ? 97 : step) {
		memcpy(b, orig, len);
		b[i] ^= (uint8_t)(1u << (i % 8));
		run(b, len);
	}
	/* every 97th byte flipped at once, from 8 starting points */
	for (size_t k = 0; k < 8; k++) {
		memcpy(b, orig, len);
		for (size_t i = k * 13; i < len; i += 97)
			b[i] ^= (uint8_t)(0x80u >> (i % 8));
		run(b, len);
	}
	printf("%s: %zu bytes, damaged variants done in %lds\n", what, len,
	       (long)(time(NULL) - t0));
	free(b);
}

static void check(const char *what, uint8_t *b, size_t len, bool swap_too)
{
	damage(what, b, len);
	if (swap_too && perfdata_swap_image(b, len) == 0) {
		char n[256];

		snprintf(n, sizeof(n), "%s (other endian)", what);
		damage(n, b, len);
	}
}

/* An intact file cut inside its data section is unfinished (data size past the end of
 * the file): every record that ends before the cut, then the end (0, not an error), and
 * hws_perf_reader__unfinished() says where the whole records end and what follows. */
static void truncated_unfinished(const uint8_t *b, size_t len)
{
	int fd = memfd_create("t", 0), fdw = memfd_create("w", 0), ret = 0;
	struct hws_perf_reader *r, *rw;
	struct hws_perf_record rec;
	struct hws_perf_unfinished u;
	size_t cut = len / 2;
	uint64_t last_end = 0;
	long n = 0, whole = 0;

	if (write(fd, b, cut) != (ssize_t)cut || write(fdw, b, len) != (ssize_t)len)
		return;
	lseek(fd, 0, SEEK_SET);
	lseek(fdw, 0, SEEK_SET);
	/* the intact file: how many records end at or before the cut, and where the last ends */
	rw = hws_perf_reader__open_fd(fdw, NULL);
	__T("intact file opens", rw != NULL);
	__T("intact file is finished", rw && hws_perf_reader__unfinished(rw, &u) == 0 && !u.why);
	while (rw && hws_perf_reader__next(rw, &rec) > 0) {
		uint64_t end = rec.file_offset + rec.hdr->size + rec.payload_size;

		if (end > cut)
			break;
		whole++;
		last_end = end;
	}
	hws_perf_reader__close(rw);
	r = hws_perf_reader__open_fd(fd, NULL);
	__T("cut file opens (features lost)", r != NULL);
	__T("unfinished before reading: data past the end",
	    r && hws_perf_reader__unfinished(r, &u) == HWS_UNFINISHED_PAST_EOF && !u.read_all &&
		u.why && strstr(u.why, "past the end"));
	while (r && (ret = hws_perf_reader__next(r, &rec)) > 0)
		n++;
	__T("records before the cut", n > 1000);
	T_EQ_U64("every record that ends before the cut", n, whole);
	T_EQ_U64("then the end, not an error", ret, 0);
	__T("read to the cut", r && hws_perf_reader__unfinished(r, &u) && u.read_all);
	T_EQ_U64("whole records end where the intact file's last one before the cut does", u.end,
		 last_end);
	T_EQ_U64("the bytes of the record cut short", u.cut_bytes, cut - last_end);
	__T("no error message", r && !strcmp(hws_perf_reader__errmsg(r), "no error"));
	hws_perf_reader__close(r);
	close(fd);
	close(fdw);
}

/* The pipe fixture cut in the middle of a record: records before it, then TRUNCATED. */
static void truncated_pipe(const uint8_t *b, size_t len)
{
	int fd = memfd_create("t", 0), ret = 0;
	struct hws_perf_reader *r;
	struct hws_perf_record rec;
	size_t cut = len - 20;
	long n = 0;

	if (write(fd, b, cut) != (ssize_t)cut)
		return;
	lseek(fd, 0, SEEK_SET);
	r = hws_perf_reader__open_fd(fd, NULL);
	while (r && (ret = hws_perf_reader__next(r, &rec)) > 0)
		n++;
	__T("records before the cut", n > 200);
	__T("truncated error", r && ret == HWS_E_TRUNCATED);
	__T("message has offset", r && strstr(hws_perf_reader__errmsg(r), "offset 0x"));
	hws_perf_reader__close(r);
	close(fd);
}

static void on_alarm(int sig)
{
	(void)sig;
	fprintf(stderr, "FAIL: watchdog: a damaged input hangs the reader\n");
	_exit(1);
}

int main(void)
{
	static const char *const fixtures[] = {
	    "perf.data.lost_samples-4.4",
	    "perf.data.piped.lost_samples-4.4",
	    "perf.data.piped.header_features_aligned-6.12",
	    "perf.data.piped.corrupted.zero_size_sample-3.2",
	    "perf.data.hybrid_topology",
	    "perf.data.intel_pt-4.14",
	    "perf.data.weight_struct",
	    "../../fuzz/corpus/perfdata/recorded_zstd", /* perf record -z */
	};
	const char *fx = getenv("HWS_FIXTURES");

	signal(SIGALRM, on_alarm);
	alarm(240);
	if (fx) {
		snprintf(fixdir, sizeof(fixdir), "%s/perf_data_converter", fx);
	} else {
		char *slash;

		snprintf(fixdir, sizeof(fixdir), "%s", __FILE__);
		slash = strrchr(fixdir, '/');
		if (slash)
			*slash = 0;
		strncat(fixdir, "/../fixtures/perf_data_converter",
			sizeof(fixdir) - strlen(fixdir) - 1);
	}
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		char path[PATH_MAX * 2];
		uint8_t *b;
		size_t len;

		snprintf(path, sizeof(path), "%s/%s", fixdir, fixtures[i]);
		b = load(path, &len);
		__T("fixture", b != NULL);
		if (!b)
			continue;
		if (strstr(fixtures[i], "weight_struct"))
			truncated_unfinished(b, len);
		if (!strcmp(fixtures[i], "perf.data.piped.lost_samples-4.4"))
			truncated_pipe(b, len);
		/* the 1.2 MB file once (time); the small ones in both byte orders */
		check(fixtures[i], b, len, len < 200000 && !strstr(fixtures[i], "corrupted"));
		free(b);
	}
	printf("%ld damaged variants read without a crash or hang\n", variants);
	__T("variants", variants > 2500);
	TEST_END();
}
