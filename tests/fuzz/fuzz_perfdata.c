// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the perf.data reader and sample parser on arbitrary bytes. The input is
 * opened from a memfd (file mode: mapped, then with HWS_NO_MMAP=1 through the read()
 * window) and, when it fits the pipe buffer, also through a real pipe (stream mode); every record
 * is read, SAMPLEs are parsed with their event, other records' sample_id trailers too, and every
 * header-feature accessor is called. Any crash, sanitizer report, hang or unbounded allocation is a
 * bug. Unfinished files (hws_perf_reader__unfinished()) must name where their whole records end
 * inside the input.
 * Seed corpus: tests/fuzz/corpus/perfdata/ (small real and synthetic files; the unfinished
 * ones are made by tests/fuzz/make_unfinished_corpus.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hwsample/errors.h>
#include <hwsample/perfdata.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Walk everything the reader offers; returns the number of records read. */
static long perfdata_walk(struct hws_perf_reader *r, size_t input_size)
{
	struct hws_perf_record rec;
	const struct hws_file_info *fi;
	long n = 0;
	int ret;

	while ((ret = hws_perf_reader__next(r, &rec)) > 0) {
		const struct hws_perf_evattr *ev = hws_perf_reader__attr(r, rec.attr_idx);
		struct hws_record_sample s;
		struct hws_sample_id sid;

		n++;
		if (rec.hdr->size < 8 || (size_t)n > input_size)
			abort(); /* a record of size < 8, or more records than bytes: a loop */
		if (ev && rec.hdr->type == PERF_RECORD_SAMPLE) {
			if (!hws_sample__parse(&ev->attr, rec.hdr, rec.hdr->size, &s) && s.raw_size)
				n += ((const volatile uint8_t *)s.raw)[s.raw_size - 1] == 0x5a;
		} else if (ev) {
			hws_sample_id__parse(&ev->attr, rec.hdr, rec.hdr->size, &sid);
		}
		if (rec.payload && rec.payload_size)
			n += ((const volatile uint8_t *)rec.payload)[rec.payload_size - 1] == 0x5a;
		hws_record__type_name(rec.hdr->type);
	}
	hws_perf_reader__errmsg(r);
	{
		struct hws_perf_unfinished u;

		/* an unfinished file read to its end: its whole records end inside the input */
		if (hws_perf_reader__unfinished(r, &u) &&
		    (!u.why ||
		     (u.read_all && (u.end > input_size || u.cut_bytes > input_size - u.end))))
			abort();
	}
	for (int f = 0; f < HWS_FEAT__MAX; f++) {
		size_t len;
		const uint8_t *p = hws_perf_reader__feature(r, f, &len);

		if (p && len)
			n += p[len - 1] == 0x5a;
		hws_perf_reader__string(r, f);
	}
	for (int i = 0; i < hws_perf_reader__nr_attrs(r); i++) {
		const struct hws_perf_evattr *ev = hws_perf_reader__attr(r, i);

		if (ev->name)
			n += (long)strlen(ev->name) == 1;
		if (ev->nr_ids)
			hws_perf_reader__attr_by_id(r, ev->ids[ev->nr_ids - 1]);
	}
	fi = hws_perf_reader__file_info(r);
	if (fi) {
		if (fi->pmu_cap)
			fi->pmu_cap(fi, "cpu", "max_precise");
		if (fi->cpu_midr)
			fi->cpu_midr(fi, 0);
		if (fi->nr_auxtrace_priv)
			n += fi->auxtrace_priv[fi->nr_auxtrace_priv - 1] == 0x5a;
	}
	hws_perf_reader__pmu_name(r, 4);
	hws_perf_reader__pmu_cap(r, "ibs_op", "zen4_ibs_extensions");
	hws_perf_reader__cpu_node(r, 0);
	hws_perf_reader__nr_cpus(r, NULL);
	{
		char bid[48];

		n += hws_perf_reader__build_id(r, "[kernel.kallsyms]", bid, sizeof(bid)) == 40;
		n += hws_perf_reader__build_id(r, "[kernel.kallsyms]", bid, 8) == -ENOSPC;
		/* every HEADER_BUILD_ID entry, with room and with too little */
		for (size_t i = 0; i < 4096; i++) {
			char name[4096];
			uint16_t misc;
			int k = hws_perf_reader__build_id_entry(r, i, name, sizeof(name), bid,
								sizeof(bid), &misc);

			if (k == -ENOENT || k == -EINVAL)
				break;
			n += k > 0 && strlen(bid) == (size_t)k && misc != 0xffff;
			n +=
			    hws_perf_reader__build_id_entry(r, i, name, 2, bid, 4, NULL) == -ENOSPC;
		}
	}
	return n;
}

static void quiet(enum hws_log_level level, const char *msg)
{
	(void)level;
	(void)msg;
}

static void run_fd(int fd, size_t size)
{
	struct hws_perf_reader *r = hws_perf_reader__open_fd(fd, NULL);

	if (r) {
		perfdata_walk(r, size);
		hws_perf_reader__close(r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd, p[2];

	hws_set_print(quiet);
	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size && lseek(fd, 0, SEEK_SET) == 0) {
		/* mapped (records in place), then through the read() window, whose heap
		 * buffer lets ASan see an over-read the mapping's last page would hide */
		run_fd(fd, size);
		setenv("HWS_NO_MMAP", "1", 1);
		if (lseek(fd, 0, SEEK_SET) == 0)
			run_fd(fd, size);
		unsetenv("HWS_NO_MMAP");
	}
	close(fd);
	/* stream mode: the whole input sits in the pipe buffer, then EOF */
	if (size <= 60000 && pipe(p) == 0) {
		if (write(p[1], data, size) == (ssize_t)size) {
			close(p[1]);
			p[1] = -1;
			run_fd(p[0], size);
		}
		close(p[0]);
		if (p[1] >= 0)
			close(p[1]);
	}
	return 0;
}
