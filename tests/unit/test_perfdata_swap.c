// SPDX-License-Identifier: MIT
/*
 * Byte order: every input (files from hwsample's writer in file and pipe mode, and the
 * perf_data_converter fixtures) is converted to the other byte order the way a big-endian
 * perf writes it (tests/perfdata_swap.h, using core's swappers "to foreign"), then
 * read back: the reader must say needs_swap and hand out exactly the same attrs, ids,
 * names, records (every byte, host order), AUXTRACE payloads and feature payloads as from
 * the original. `perf report -D` on the converted files is compared in the e2e test.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwsample/perfdata.h>

#include "perfdata_swap.h"
#include "tests.h"

static char fixdir[PATH_MAX];

static uint8_t *load(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	b = malloc((size_t)st.st_size + 1);
	if (b && read(fd, b, (size_t)st.st_size) != st.st_size) {
		free(b);
		b = NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static int memfd_of(const uint8_t *b, size_t len)
{
	int fd = memfd_create("perfdata", 0);

	if (fd < 0)
		return -1;
	if (write(fd, b, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* Compare both readers record by record; returns the number of records. */
static int compare(const char *what, struct hws_perf_reader *a, struct hws_perf_reader *b)
{
	struct hws_perf_record ra, rb;
	int n = 0, ea, eb, bad = 0;
	uint8_t *copy = malloc(65536);

	for (;;) {
		ea = hws_perf_reader__next(a, &ra);
		if (ea > 0) {
			memcpy(copy, ra.hdr, ra.hdr->size);
			ra.hdr = (const void *)copy;
		}
		eb = hws_perf_reader__next(b, &rb);
		if (ea <= 0 || eb <= 0)
			break;
		n++;
		if (ra.hdr->size != rb.hdr->size || memcmp(ra.hdr, rb.hdr, ra.hdr->size) ||
		    ra.file_offset != rb.file_offset || ra.attr_idx != rb.attr_idx ||
		    ra.payload_size != rb.payload_size) {
			if (bad++ < 3)
				fprintf(stderr, "%s: record %d at %#llx (%s) differs\n", what, n,
					(unsigned long long)ra.file_offset,
					hws_record__type_name(ra.hdr->type));
		}
	}
	free(copy);
	__T("same end", ea == eb);
	if (ea != eb)
		fprintf(stderr, "%s: %d vs %d: %s\n", what, ea, eb, hws_perf_reader__errmsg(b));
	__T("records identical", bad == 0);
	T_EQ_U64("attrs", hws_perf_reader__nr_attrs(b), hws_perf_reader__nr_attrs(a));
	for (int i = 0; i < hws_perf_reader__nr_attrs(a) && i < hws_perf_reader__nr_attrs(b); i++) {
		const struct hws_perf_evattr *x = hws_perf_reader__attr(a, i);
		const struct hws_perf_evattr *y = hws_perf_reader__attr(b, i);

		__T("attr identical (flags bitfield too)",
		    !memcmp(&x->attr, &y->attr, sizeof(x->attr)));
		T_EQ_STR("name", y->name, x->name);
		__T("ids", x->nr_ids == y->nr_ids && !memcmp(x->ids, y->ids, x->nr_ids * 8));
	}
	for (int f = 1; f < HWS_FEAT__MAX; f++) {
		size_t la = 0, lb = 0;
		const void *pa = hws_perf_reader__feature(a, f, &la);
		const void *pb = hws_perf_reader__feature(b, f, &lb);

		if (!pa && !pb)
			continue;
		if (!pa || !pb || la != lb || memcmp(pa, pb, la)) {
			fprintf(stderr, "%s: feature %d differs\n", what, f);
			__T("feature identical", 0);
		}
	}
	{
		const char *ha = hws_perf_reader__string(a, HWS_FEAT_HOSTNAME);
		const char *hb = hws_perf_reader__string(b, HWS_FEAT_HOSTNAME);

		__T("hostname", (!ha && !hb) || (ha && hb && !strcmp(ha, hb)));
	}
	T_EQ_U64("nr cpus", hws_perf_reader__nr_cpus(b, NULL), hws_perf_reader__nr_cpus(a, NULL));
	T_EQ_U64("cpu 1 node", hws_perf_reader__cpu_node(b, 1), hws_perf_reader__cpu_node(a, 1));
	return n;
}

static void check_image(const char *what, const uint8_t *orig, size_t len)
{
	uint8_t *sw = malloc(len + 1);
	struct hws_perf_reader *a, *b;
	int fa, fb, n;

	memcpy(sw, orig, len);
	__T("convert", perfdata_swap_image(sw, len) == 0);
	fa = memfd_of(orig, len);
	fb = memfd_of(sw, len);
	a = hws_perf_reader__open_fd(fa, NULL);
	b = hws_perf_reader__open_fd(fb, NULL);
	__T("open both", a && b);
	if (a && b) {
		__T("original host order", !hws_perf_reader__needs_swap(a));
		__T("converted needs swap", hws_perf_reader__needs_swap(b));
		n = compare(what, a, b);
		__T("some records", n > 10);
		printf("%s: %d records identical after byte swap\n", what, n);
	}
	hws_perf_reader__close(a);
	hws_perf_reader__close(b);
	close(fa);
	close(fb);
	free(sw);
}

static void check_file(const char *name)
{
	char path[PATH_MAX * 2];
	uint8_t *b;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", fixdir, name);
	b = load(path, &len);
	__T("fixture", b != NULL);
	if (b)
		check_image(name, b, len);
	free(b);
}

/* A file from our writer: 2 events, ids, sample_id_all, all kinds of u32 pairs. */
static void check_writer(bool pipe)
{
	struct hws_perf_event_attr at[2];
	uint64_t ids[2] = {5, 6}, v[12];
	char path[] = "/tmp/hws-swap-XXXXXX";
	int fd = mkstemp(path);
	struct hws_perf_writer *w;
	uint8_t *img;
	size_t len;

	if (fd < 0)
		return;
	w = hws_perf_writer__new_fd(fd, pipe);
	memset(at, 0, sizeof(at));
	for (int i = 0; i < 2; i++) {
		at[i].size = sizeof(at[i]);
		at[i].type = PERF_TYPE_SOFTWARE;
		at[i].sample_id_all = 1;
		at[i].exclude_kernel = 1;
		at[i].precise_ip = 3;
		at[i].mmap2 = (unsigned)i;
		at[i].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
				    PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
		at[i].read_format = PERF_FORMAT_ID;
		hws_perf_writer__add_attr(w, &at[i], i ? "b" : "a", &ids[i], 1);
	}
	hws_perf_writer__add_host_features(w, 0, NULL, -1);
	for (int k = 0; k < 40; k++) {
		struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, 8 + 12 * 8};
		uint32_t raw = 12;

		v[0] = ids[k & 1], v[1] = 0x400000 + (uint64_t)k, v[2] = (2ULL << 32) | 1;
		v[3] = 1000 + (uint64_t)k, v[4] = (uint64_t)(k & 1), v[5] = 100;
		v[6] = 7, v[7] = ids[k & 1];	     /* read: value, id */
		v[8] = 1, v[9] = 0xffffffff81000000; /* callchain */
		memcpy(&v[10], &raw, 4);	     /* raw: 12 bytes "abcdefghijkl" */
		memcpy((char *)&v[10] + 4, "abcdefghijkl", 12);
		hws_perf_writer__write(w, &h, 8);
		hws_perf_writer__write(w, v, sizeof(v));
	}
	hws_perf_writer__close(w);
	close(fd);
	img = load(path, &len);
	unlink(path);
	if (img)
		check_image(pipe ? "writer (pipe)" : "writer (file)", img, len);
	free(img);
}

int main(void)
{
	const char *fx = getenv("HWS_FIXTURES");

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
	check_writer(false);
	check_writer(true);
	check_file("perf.data.lost_samples-4.4");
	check_file("perf.data.piped.lost_samples-4.4");
	check_file("perf.data.weight_struct");
	check_file("perf.data.intel_pt-4.14");
	check_file("perf.data.hybrid_topology");
	check_file("perf.data.piped.header_features_aligned-6.12");
	TEST_END();
}
