// SPDX-License-Identifier: MIT
/*
 * perf.data writer -> reader round trips (file mode, pipe mode through a real pipe),
 * header features from a fake sysfs tree, AUXTRACE payloads, TIME_CONV, a writer that never
 * reached __close(), and add_ids after data (its attrs then follow the features).
 * What perf itself makes of the writer's files is checked in tests/e2e/perfdata_vs_perf.sh.
 */
#include <errno.h>
#include <time.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwsample/perfdata.h>
#include <hwsample/pmu.h>

#include "perfdata/perfdata_int.h"
#include "tests.h"

static char tmpdir[PATH_MAX];

struct recbuf {
	uint8_t b[64 * 1024];
	size_t n;
	int nr;
	size_t off[64];
};

static void add_rec(struct recbuf *rb, uint32_t type, const uint64_t *body, size_t nbody)
{
	struct perf_event_header h = {type, PERF_RECORD_MISC_USER, (uint16_t)(8 + nbody * 8)};

	rb->off[rb->nr++] = rb->n;
	memcpy(rb->b + rb->n, &h, 8);
	memcpy(rb->b + rb->n + 8, body, nbody * 8);
	rb->n += 8 + nbody * 8;
}

static void add_bytes(struct recbuf *rb, const void *p, size_t n)
{
	memcpy(rb->b + rb->n, p, n);
	rb->n += n;
}

static struct hws_perf_event_attr attrs[3];
static uint64_t ids[3][2] = {{11, 12}, {21, 22}, {31, 32}};
static const char *names[3] = {"cpu-clock", "page-faults:u", "ibs_op//"};
static uint8_t aux_payload[104];

/* The records every round trip writes. */
static void build_records(struct recbuf *rb)
{
	uint64_t v[16];

	memset(rb, 0, sizeof(*rb));
	/* COMM 7/8 "prog" + trailer (TID TIME CPU IDENTIFIER) */
	v[0] = (8ULL << 32) | 7;
	memcpy(&v[1], "prog\0\0\0", 8);
	v[2] = (8ULL << 32) | 7, v[3] = 100, v[4] = 1, v[5] = 31;
	add_rec(rb, PERF_RECORD_COMM, v, 6);
	/* samples of each event (IDENTIFIER first) */
	v[0] = 11, v[1] = 0x401000, v[2] = (8ULL << 32) | 7, v[3] = 200, v[4] = 0, v[5] = 1000;
	add_rec(rb, PERF_RECORD_SAMPLE, v, 6);
	v[0] = 22, v[1] = 0x401004, v[2] = (8ULL << 32) | 7, v[3] = 210, v[4] = 0x7ffd0000,
	v[5] = 1, v[6] = 0x29080142;
	add_rec(rb, PERF_RECORD_SAMPLE, v, 7);
	{ /* RAW sample: IDENTIFIER, TIME, CPU, RAW(u32 size 20 + 20 bytes) */
		uint8_t raw[32] = {0};
		uint32_t sz = 20;

		v[0] = 32, v[1] = 220, v[2] = 1;
		memcpy(raw, &sz, 4);
		for (int i = 0; i < 20; i++)
			raw[4 + i] = (uint8_t)(0xa0 + i);
		memcpy(&v[3], raw, 24);
		add_rec(rb, PERF_RECORD_SAMPLE, v, 6);
	}
	add_rec(rb, HWS_RECORD_FINISHED_ROUND, v, 0);
	/* AUXTRACE_INFO type 7 + 3 priv words, TIME_CONV, AUXTRACE with 104 payload bytes */
	v[0] = 7, v[1] = 0x1111, v[2] = 0x2222, v[3] = 0x3333;
	add_rec(rb, HWS_RECORD_AUXTRACE_INFO, v, 4);
	v[0] = 10, v[1] = 123456, v[2] = 999, v[3] = 5, v[4] = ~0ULL, v[5] = 0x0101;
	add_rec(rb, HWS_RECORD_TIME_CONV, v, 6);
	v[0] = sizeof(aux_payload), v[1] = 0, v[2] = 77, v[3] = (7ULL << 32) | 0, v[4] = 1;
	add_rec(rb, HWS_RECORD_AUXTRACE, v, 5);
	for (size_t i = 0; i < sizeof(aux_payload); i++)
		aux_payload[i] = (uint8_t)(i * 7);
	add_bytes(rb, aux_payload, sizeof(aux_payload));
	/* LOST with trailer */
	v[0] = 12, v[1] = 3, v[2] = (8ULL << 32) | 7, v[3] = 300, v[4] = 0, v[5] = 12;
	add_rec(rb, PERF_RECORD_LOST, v, 6);
}

static void setup_attrs(void)
{
	memset(attrs, 0, sizeof(attrs));
	for (int i = 0; i < 3; i++) {
		attrs[i].size = sizeof(attrs[i]);
		attrs[i].sample_id_all = 1;
		attrs[i].sample_period = 1000 + (uint64_t)i;
		attrs[i].disabled = 1;
	}
	attrs[0].type = PERF_TYPE_SOFTWARE;
	attrs[0].config = PERF_COUNT_SW_CPU_CLOCK;
	attrs[0].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	attrs[1].type = PERF_TYPE_SOFTWARE;
	attrs[1].config = PERF_COUNT_SW_PAGE_FAULTS;
	attrs[1].exclude_kernel = 1;
	attrs[1].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
			       PERF_SAMPLE_DATA_SRC;
	attrs[2].type = 11; /* ibs_op in the fake sysfs */
	attrs[2].config = 1ULL << 19;
	attrs[2].precise_ip = 2;
	attrs[2].mmap = attrs[2].comm = 1;
	attrs[2].sample_type =
	    PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;
}

static void write_file(const char *path, const char *content)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, content, strlen(content)) < 0)
			perror(path);
		close(fd);
	}
}

/* A fake sysfs with ibs_op (type 11, caps) and cpu (type 4, caps): PMU_MAPPINGS/PMU_CAPS. */
static void make_fake_sysfs(void)
{
	char p[PATH_MAX + 128];
	const char *dirs[] = {"",
			      "bus",
			      "bus/event_source",
			      "bus/event_source/devices",
			      "bus/event_source/devices/ibs_op",
			      "bus/event_source/devices/ibs_op/caps",
			      "bus/event_source/devices/cpu",
			      "bus/event_source/devices/cpu/caps"};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/sys/%s", tmpdir, dirs[i]);
		mkdir(p, 0755);
	}
	snprintf(p, sizeof(p), "%s/sys/bus/event_source/devices/ibs_op/type", tmpdir);
	write_file(p, "11\n");
	snprintf(p, sizeof(p), "%s/sys/bus/event_source/devices/ibs_op/caps/zen4_ibs_extensions",
		 tmpdir);
	write_file(p, "1\n");
	snprintf(p, sizeof(p), "%s/sys/bus/event_source/devices/cpu/type", tmpdir);
	write_file(p, "4\n");
	snprintf(p, sizeof(p), "%s/sys/bus/event_source/devices/cpu/caps/max_precise", tmpdir);
	write_file(p, "0\n");
	snprintf(p, sizeof(p), "%s/sys", tmpdir);
	tests_machine(p, "/proc/cpuinfo"); /* fake PMUs, this CPU (a CPUID header) */
}

static int write_with_writer(struct hws_perf_writer *w, const struct recbuf *rb, bool split)
{
	char *argv[] = {"hwsample", "record", "--", "./prog"};
	int err = 0;

	for (int i = 0; i < 3 && !err; i++)
		err = hws_perf_writer__add_attr(w, &attrs[i], names[i], ids[i], split ? 1 : 2) < 0;
	if (!err)
		err = hws_perf_writer__add_host_features(w, 4, argv, 1 /* CLOCK_MONOTONIC */);
	if (!err && split) /* second id of each event after the first write (file mode) */
		err = hws_perf_writer__write(w, rb->b, rb->off[1]);
	for (int i = 0; i < 3 && !err && split; i++)
		err = hws_perf_writer__add_ids(w, i, &ids[i][1], 1);
	if (!err)
		err = hws_perf_writer__write(w, rb->b + (split ? rb->off[1] : 0),
					     rb->n - (split ? rb->off[1] : 0));
	if (err)
		fprintf(stderr, "writer: %d\n", err);
	return err;
}

/* Read everything back and compare with what was written. */
static void check_read(struct hws_perf_reader *r, const struct recbuf *rb, bool pipe)
{
	struct hws_perf_record rec;
	const struct hws_file_info *fi;
	int i = 0, ret, user = 0;
	char host[256];

	while ((ret = hws_perf_reader__next(r, &rec)) > 0) {
		const struct perf_event_header *h = rec.hdr;

		if (pipe && h->type == HWS_RECORD_HEADER_TRACING_DATA) {
			/* perf's record: the size is the padded one */
			T_EQ_U64("tracing data size", rec.payload_size, 16);
			__T("tracing data bytes",
			    rec.payload && !memcmp(rec.payload, "tracing-data!\0\0\0", 16));
			__T("tracing data before the first kernel record", i == 0);
			user++;
			continue;
		}
		if (pipe &&
		    (h->type == HWS_RECORD_HEADER_ATTR || h->type == HWS_RECORD_HEADER_FEATURE ||
		     h->type == HWS_RECORD_FINISHED_INIT)) {
			user++;
			continue;
		}
		if (i >= rb->nr) {
			__T("more records than written", 0);
			break;
		}
		__T("record bytes", !memcmp(h, rb->b + rb->off[i], h->size));
		if (h->type == PERF_RECORD_SAMPLE) {
			const struct hws_perf_evattr *ev = hws_perf_reader__attr(r, rec.attr_idx);
			struct hws_record_sample s;

			__T("sample has an event", ev != NULL);
			if (ev && !hws_sample__parse(&ev->attr, h, h->size, &s)) {
				if (rec.attr_idx == 2) {
					T_EQ_U64("raw size", s.raw_size, 20);
					__T("raw bytes", ((const uint8_t *)s.raw)[19] == 0xa0 + 19);
				} else {
					T_EQ_U64("tid", s.tid, 8);
					T_EQ_U64("pid", s.pid, 7);
				}
			}
		}
		if (h->type == PERF_RECORD_COMM)
			T_EQ_U64("COMM belongs to event 2 (trailer id)", rec.attr_idx, 2);
		if (h->type == PERF_RECORD_LOST)
			T_EQ_U64("LOST belongs to event 0 (trailer id)", rec.attr_idx, 0);
		if (h->type == HWS_RECORD_AUXTRACE) {
			T_EQ_U64("aux payload size", rec.payload_size, sizeof(aux_payload));
			__T("aux payload",
			    rec.payload && !memcmp(rec.payload, aux_payload, sizeof(aux_payload)));
		}
		i++;
	}
	__T("no read error", ret == 0);
	if (ret)
		fprintf(stderr, "  %s\n", hws_perf_reader__errmsg(r));
	T_EQ_U64("all records back", i, rb->nr);
	if (pipe)
		__T("pipe: ATTR + FEATURE records handed out", user > 3);

	T_EQ_U64("attrs", hws_perf_reader__nr_attrs(r), 3);
	for (int a = 0; a < 3 && a < hws_perf_reader__nr_attrs(r); a++) {
		const struct hws_perf_evattr *ev = hws_perf_reader__attr(r, a);

		__T("attr identical", !memcmp(&ev->attr, &attrs[a], sizeof(attrs[a])));
		T_EQ_STR("name", ev->name, names[a]);
		T_EQ_U64("nr ids", ev->nr_ids, 2);
		T_EQ_U64("id -> attr", hws_perf_reader__attr_by_id(r, ids[a][1]), a);
	}
	T_EQ_STR("pmu name of attr 2", hws_perf_reader__attr(r, 2)->pmu_name, "ibs_op");
	T_EQ_U64("unknown id", hws_perf_reader__attr_by_id(r, 999), -1);
	gethostname(host, sizeof(host));
	T_EQ_STR("hostname", hws_perf_reader__string(r, HWS_FEAT_HOSTNAME), host);
	T_EQ_STR("version", hws_perf_reader__string(r, HWS_FEAT_VERSION), HWS_VERSION);
	__T("event desc", hws_perf_reader__has_feature(r, HWS_FEAT_EVENT_DESC));
	__T("cmdline", hws_perf_reader__has_feature(r, HWS_FEAT_CMDLINE));
	__T("clockid", hws_perf_reader__has_feature(r, HWS_FEAT_CLOCKID));
	T_EQ_U64("nr cpus online", ({
			 uint32_t o;
			 hws_perf_reader__nr_cpus(r, &o);
			 o;
		 }),
		 sysconf(_SC_NPROCESSORS_ONLN));
	T_EQ_STR("pmu mapping", hws_perf_reader__pmu_name(r, 4), "cpu");
	T_EQ_STR("pmu cap", hws_perf_reader__pmu_cap(r, "ibs_op", "zen4_ibs_extensions"), "1");
	T_EQ_STR("cpu pmu cap", hws_perf_reader__pmu_cap(r, "cpu", "max_precise"), "0");
	__T("absent cap", hws_perf_reader__pmu_cap(r, "ibs_op", "nope") == NULL);
	if (access("/sys/devices/system/node/node0/cpulist", R_OK) == 0)
		T_EQ_U64("cpu 0 on node 0", hws_perf_reader__cpu_node(r, 0), 0);
	T_EQ_U64("cpu far away", hws_perf_reader__cpu_node(r, 100000), -1);

	fi = hws_perf_reader__file_info(r);
	__T("file info", fi != NULL);
	if (!fi)
		return;
	__T("arch", fi->arch && *fi->arch);
	__T("cpuid", fi->cpuid && strchr(fi->cpuid, ','));
	T_EQ_U64("fi nr cpus", fi->nr_cpus, hws_perf_reader__nr_cpus(r, NULL));
	T_EQ_STR("fi pmu cap", fi->pmu_cap(fi, "ibs_op", "zen4_ibs_extensions"), "1");
	T_EQ_U64("auxtrace type", fi->auxtrace_type, 7);
	T_EQ_U64("auxtrace priv", fi->nr_auxtrace_priv, 3);
	if (fi->nr_auxtrace_priv == 3)
		T_EQ_U64("auxtrace priv[2]", fi->auxtrace_priv[2], 0x3333);
	__T("time conv", fi->time_conv != NULL);
	if (fi->time_conv) {
		T_EQ_U64("time_shift", fi->time_conv->time_shift, 10);
		T_EQ_U64("time_mult", fi->time_conv->time_mult, 123456);
		T_EQ_U64("time_zero", fi->time_conv->time_zero, 999);
		T_EQ_U64("cap_user_time_zero", fi->time_conv->cap_user_time_zero, 1);
	}
}

static void test_file_roundtrip(bool split)
{
	struct recbuf *rb = malloc(sizeof(*rb));
	struct hws_perf_writer *w;
	struct hws_perf_reader *r;
	char path[PATH_MAX + 16];

	build_records(rb);
	snprintf(path, sizeof(path), "%s/rt.data", tmpdir);
	w = hws_perf_writer__new(path, false);
	__T("writer", w != NULL);
	__T("write", w && write_with_writer(w, rb, split) == 0);
	T_EQ_U64("data size", hws_perf_writer__data_size(w), rb->n);
	__T("close", hws_perf_writer__close(w) == 0);
	r = hws_perf_reader__open(path, NULL);
	__T("open", r != NULL);
	if (r) {
		__T("not pipe", !hws_perf_reader__is_pipe(r));
		__T("no swap", !hws_perf_reader__needs_swap(r));
		check_read(r, rb, false);
		hws_perf_reader__close(r);
	}
	free(rb);
}

/* Pipe mode: write with pipe_mode to a file, read it back through a real pipe. */
static void test_pipe_roundtrip(void)
{
	struct recbuf *rb = malloc(sizeof(*rb));
	struct hws_perf_writer *w;
	struct hws_perf_reader *r;
	char path[PATH_MAX + 16];
	int fds[2];
	pid_t pid;

	build_records(rb);
	snprintf(path, sizeof(path), "%s/rt.pipe", tmpdir);
	w = hws_perf_writer__new(path, true);
	__T("tracing data (pipe: own record type)",
	    hws_perf_writer__set_feature(w, HWS_FEAT_TRACING_DATA, "tracing-data!", 13) == 0);
	__T("pipe writer", w && write_with_writer(w, rb, false) == 0);
	{
		uint64_t st[2] = {100, 300};

		__T("feature after the stream started goes inline",
		    hws_perf_writer__set_feature(w, HWS_FEAT_SAMPLE_TIME, st, sizeof(st)) == 0);
	}
	__T("add_attr after data refused in pipe mode",
	    hws_perf_writer__add_attr(w, &attrs[0], "x", NULL, 0) == -EBUSY);
	{
		struct stat st;

		__T("flush", hws_perf_writer__flush(w) == 0);
		__T("flushed bytes are in the file before close",
		    stat(path, &st) == 0 && (size_t)st.st_size > rb->n);
	}
	__T("pipe close", hws_perf_writer__close(w) == 0);
	if (pipe(fds)) {
		__T("pipe()", 0);
		return;
	}
	pid = fork();
	if (pid == 0) {
		char buf[4096];
		int fd = open(path, O_RDONLY);
		ssize_t n;

		close(fds[0]);
		while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
			if (write(fds[1], buf, (size_t)n) != n)
				break;
		_exit(0);
	}
	close(fds[1]);
	r = hws_perf_reader__open_fd(fds[0], NULL);
	__T("open pipe", r != NULL);
	if (r) {
		size_t len = 0;
		const uint64_t *st;

		__T("is pipe", hws_perf_reader__is_pipe(r));
		check_read(r, rb, true);
		st = hws_perf_reader__feature(r, HWS_FEAT_SAMPLE_TIME, &len);
		__T("late feature arrived", st && len == 16 && st[1] == 300);
		__T("file info tracing data",
		    hws_perf_reader__file_info(r)->tracing_data_size == 16 &&
			!memcmp(hws_perf_reader__file_info(r)->tracing_data, "tracing-data!", 13));
		hws_perf_reader__close(r);
	}
	close(fds[0]);
	waitpid(pid, NULL, 0);
	free(rb);
}

/*
 * Pipe mode TRACING_DATA bytes as perf writes them (perf_event__synthesize_tracing_data):
 * {header type 66, size 16; u32 size = data rounded up to 8; u32 pad = 0}, the data, zero
 * padding; after the HEADER_FEATURE records, before FINISHED_INIT and the first record.
 */
static void test_pipe_tracing_layout(void)
{
	static uint8_t buf[64 * 1024];
	struct perf_event_header h, rec = {PERF_RECORD_SAMPLE, 0, 8};
	struct hws_perf_writer *w;
	char path[PATH_MAX + 16];
	size_t n = 0, off;
	int fd, seen = 0, last_feature = -1, td_at = -1, init_at = -1, first_rec = -1, k = 0;

	snprintf(path, sizeof(path), "%s/td.pipe", tmpdir);
	w = hws_perf_writer__new(path, true);
	__T("pipe writer", w != NULL);
	if (!w)
		return;
	hws_perf_writer__add_attr(w, &attrs[0], names[0], ids[0], 2);
	hws_perf_writer__set_string(w, HWS_FEAT_HOSTNAME, "host");
	hws_perf_writer__set_feature(w, HWS_FEAT_TRACING_DATA, "tracing-data!", 13);
	__T("record", hws_perf_writer__write(w, &rec, sizeof(rec)) == 0);
	__T("close", hws_perf_writer__close(w) == 0);
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		ssize_t got = read(fd, buf, sizeof(buf));

		n = got > 0 ? (size_t)got : 0;
		close(fd);
	}
	__T("pipe header", n > 16 && ((const uint64_t *)buf)[1] == 16);
	for (off = 16; off + sizeof(h) <= n; k++) {
		memcpy(&h, buf + off, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type == HWS_RECORD_HEADER_FEATURE)
			last_feature = k;
		if (h.type == HWS_RECORD_FINISHED_INIT)
			init_at = k;
		if (h.type == PERF_RECORD_SAMPLE && first_rec < 0)
			first_rec = k;
		if (h.type == HWS_RECORD_HEADER_TRACING_DATA) {
			uint32_t sz, pad;

			td_at = k;
			seen++;
			memcpy(&sz, buf + off + 8, 4);
			memcpy(&pad, buf + off + 12, 4);
			T_EQ_U64("TRACING_DATA header size", h.size, 16);
			T_EQ_U64("TRACING_DATA size: data rounded up to 8", sz, 16);
			T_EQ_U64("TRACING_DATA pad", pad, 0);
			__T("data then zero padding",
			    off + 32 <= n && !memcmp(buf + off + 16, "tracing-data!\0\0\0", 16));
			off += sz;
		}
		off += h.size;
	}
	T_EQ_U64("one TRACING_DATA record", seen, 1);
	T_EQ_U64("stream ends on a record boundary", off, n);
	__T("TRACING_DATA after the features", td_at > last_feature && last_feature >= 0);
	__T("TRACING_DATA before FINISHED_INIT and the first record",
	    td_at >= 0 && td_at < init_at && init_at < first_rec);
}

/* The 12-byte TRACING_DATA record older hwsample versions wrote (unpadded size, the data
 * padded to 8 after it) is still read, and the records after it too. */
static void test_old_tracing_record(void)
{
	static uint8_t buf[4096];
	uint64_t ph[2] = {PERF_MAGIC2, 16};
	struct perf_event_header h;
	struct hws_perf_reader *r;
	struct hws_perf_record rec;
	char path[PATH_MAX + 16];
	size_t n = 0;
	uint32_t len = 13;
	int fd, ret, got_td = 0, got_round = 0;

	memcpy(buf, ph, 16);
	n = 16;
	h = (struct perf_event_header){HWS_RECORD_HEADER_ATTR, 0,
				       (uint16_t)(8 + sizeof(struct hws_perf_event_attr) + 8)};
	memcpy(buf + n, &h, 8);
	memcpy(buf + n + 8, &attrs[0], sizeof(struct hws_perf_event_attr));
	memcpy(buf + n + 8 + sizeof(struct hws_perf_event_attr), &ids[0][0], 8);
	n += h.size;
	h = (struct perf_event_header){HWS_RECORD_HEADER_TRACING_DATA, 0, 12};
	memcpy(buf + n, &h, 8);
	memcpy(buf + n + 8, &len, 4);
	memcpy(buf + n + 12, "tracing-data!\0\0\0", 16);
	n += 12 + 16;
	h = (struct perf_event_header){HWS_RECORD_FINISHED_ROUND, 0, 8};
	memcpy(buf + n, &h, 8);
	n += 8;
	snprintf(path, sizeof(path), "%s/oldtd.pipe", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	__T("write old stream", fd >= 0 && write(fd, buf, n) == (ssize_t)n);
	if (fd >= 0)
		close(fd);
	r = hws_perf_reader__open(path, NULL);
	__T("open old stream", r != NULL);
	if (!r)
		return;
	while ((ret = hws_perf_reader__next(r, &rec)) > 0) {
		if (rec.hdr->type == HWS_RECORD_HEADER_TRACING_DATA) {
			got_td++;
			T_EQ_U64("old tracing data size", rec.payload_size, 13);
			__T("old tracing data bytes",
			    rec.payload && !memcmp(rec.payload, "tracing-data!", 13));
		}
		got_round += rec.hdr->type == HWS_RECORD_FINISHED_ROUND;
	}
	__T("old stream read to its end", ret == 0);
	T_EQ_U64("old TRACING_DATA record", got_td, 1);
	T_EQ_U64("the record after it", got_round, 1);
	__T("file info has the tracing data",
	    hws_perf_reader__file_info(r)->tracing_data_size == 13);
	hws_perf_reader__close(r);
}

/* A writer that never reached __close(): its header and attrs are in the file; the records
 * of its last flush are readable and the file is unfinished (tests/unit/
 * test_perfdata_unfinished.c has the details). */
static void test_unclosed(void)
{
	char path[PATH_MAX + 16];
	struct hws_perf_record rec;
	struct hws_perf_reader *r;
	int st, n = 0;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/killed.data", tmpdir);
	pid = fork();
	if (pid == 0) {
		struct hws_perf_writer *w = hws_perf_writer__new(path, false);
		struct recbuf *rb = malloc(sizeof(*rb));

		build_records(rb);
		write_with_writer(w, rb, false);
		hws_perf_writer__flush(w);
		_exit(0); /* no close */
	}
	waitpid(pid, &st, 0);
	r = hws_perf_reader__open(path, NULL);
	__T("unclosed file opens", r != NULL);
	if (r) {
		T_EQ_U64("its attrs", hws_perf_reader__nr_attrs(r), 3);
		while (hws_perf_reader__next(r, &rec) > 0)
			n++;
		T_EQ_U64("its records", n, 9);
		T_EQ_U64("unfinished", hws_perf_reader__unfinished(r, NULL),
			 HWS_UNFINISHED_NO_FEATURES);
		__T("no features", !hws_perf_reader__has_feature(r, HWS_FEAT_HOSTNAME));
		hws_perf_reader__close(r);
	}
	/* garbage and empty inputs: clean errors */
	write_file(path, "");
	__T("empty file", hws_perf_reader__open(path, NULL) == NULL && errno == -HWS_E_BAD_FILE);
	write_file(path, "not a perf.data file at all, just text");
	__T("text file", hws_perf_reader__open(path, NULL) == NULL && errno == -HWS_E_BAD_FILE);
	__T("missing file",
	    hws_perf_reader__open("/nonexistent/x", NULL) == NULL && errno == ENOENT);
	__T("close NULL", hws_perf_writer__close(NULL) == 0);
	hws_perf_reader__close(NULL);
}

static void test_writer_errors(void)
{
	struct hws_perf_writer *w;
	char path[PATH_MAX + 16];

	__T("new in missing dir", hws_perf_writer__new("/nonexistent/dir/x", false) == NULL);
	snprintf(path, sizeof(path), "%s/e.data", tmpdir);
	w = hws_perf_writer__new(path, false);
	__T("bad feature", hws_perf_writer__set_feature(w, 0, "x", 1) == -EINVAL);
	__T("bad feature 256", hws_perf_writer__set_feature(w, 256, "x", 1) == -EINVAL);
	__T("bad attr idx", hws_perf_writer__add_ids(w, 3, ids[0], 1) == -EINVAL);
	__T("string", hws_perf_writer__set_string(w, HWS_FEAT_ARCH, "aarch64") == 0);
	__T("close empty", hws_perf_writer__close(w) == 0);
	{
		struct hws_perf_reader *r = hws_perf_reader__open(path, NULL);

		__T("open empty", r != NULL);
		T_EQ_STR("arch string", hws_perf_reader__string(r, HWS_FEAT_ARCH), "aarch64");
		{
			size_t len = 0;
			const uint8_t *p = hws_perf_reader__feature(r, HWS_FEAT_ARCH, &len);

			/* perf pads strings to 64: {u32 len = 64; "aarch64\0" + 56 zero bytes} */
			T_EQ_U64("padded len", len, 68);
			T_EQ_U64("u32 len", p ? pd_get32(p) : 0, 64);
		}
		hws_perf_reader__close(r);
	}
}

/* perf 3.x files: 72-byte header (no feature bits), attr with size 0 (= 64 bytes, VER0),
 * and the PERFFILE (v1) magic whose byte order comes from attr_size. */
static void test_old_layout(bool v1)
{
	uint64_t f[64] = {0};
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	struct hws_perf_reader *r;
	struct hws_perf_record rec;
	char path[PATH_MAX + 16];
	int n = 0, fd, ret;
	size_t w = 0;

	f[w++] = v1 ? PERF_MAGIC1 : PERF_MAGIC2;
	f[w++] = 72;		  /* header size */
	f[w++] = 64 + 16;	  /* attr_size */
	f[w++] = 72, f[w++] = 80; /* attrs */
	f[w++] = 160, f[w++] = 0; /* data (size below) */
	f[w++] = 0, f[w++] = 0;	  /* event_types */
	/* attr @72: type 1, size 0, config 0, period 1000, sample_type, read_format, flags */
	f[w++] = 1, f[w++] = 0, f[w++] = 1000, f[w++] = st, f[w++] = 0, f[w++] = 1 /*disabled*/;
	f[w++] = 0, f[w++] = 0;
	f[w++] = 152, f[w++] = 8; /* ids section */
	f[w++] = 5;		  /* @152: id */
	/* data @160: two samples {hdr, ip, pid/tid, time} */
	for (int i = 0; i < 2; i++) {
		struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 32};

		memcpy(&f[w++], &h, 8);
		f[w++] = 0x400000 + (uint64_t)i, f[w++] = (9ULL << 32) | 9,
		f[w++] = 100 + (uint64_t)i;
	}
	f[6] = (w - 20) * 8;
	snprintf(path, sizeof(path), "%s/old.data", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, f, w * 8) != (ssize_t)(w * 8))
		__T("write old file", 0);
	close(fd);
	r = hws_perf_reader__open(path, NULL);
	__T("old layout opens", r != NULL);
	if (!r)
		return;
	T_EQ_U64("one attr", hws_perf_reader__nr_attrs(r), 1);
	T_EQ_U64("attr size normalized", hws_perf_reader__attr(r, 0)->attr.size,
		 sizeof(struct hws_perf_event_attr));
	T_EQ_U64("sample_type", hws_perf_reader__attr(r, 0)->attr.sample_type, st);
	T_EQ_U64("disabled bit", hws_perf_reader__attr(r, 0)->attr.disabled, 1);
	/* perf's modifiers: exclude_guest 0 is not its default (perf evlist: cpu-clock:HG) */
	T_EQ_STR("generated name (software config 1)", hws_perf_reader__attr(r, 0)->name,
		 "cpu-clock:HG");
	T_EQ_U64("id", hws_perf_reader__attr_by_id(r, 5), 0);
	__T("no features in a 72-byte header", !hws_perf_reader__has_feature(r, HWS_FEAT_HOSTNAME));
	while ((ret = hws_perf_reader__next(r, &rec)) > 0) {
		struct hws_record_sample s;

		__T("sample parses", !hws_sample__parse(&hws_perf_reader__attr(r, 0)->attr, rec.hdr,
							rec.hdr->size, &s) &&
					 s.ip == 0x400000 + (uint64_t)n && s.tid == 9);
		n++;
	}
	T_EQ_U64("end", ret, 0);
	T_EQ_U64("two samples", n, 2);
	hws_perf_reader__close(r);
}

/* Many events and ids (4096 x 64): open stays fast and every id maps back. */
static void test_many_ids(void)
{
	struct hws_perf_event_attr a = {.type = PERF_TYPE_SOFTWARE, .size = sizeof(a)};
	struct hws_perf_writer *w;
	struct hws_perf_reader *r;
	char path[PATH_MAX + 16];
	uint64_t eids[64];
	int bad = 0;
	struct timespec t0, t1;

	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
	snprintf(path, sizeof(path), "%s/many.data", tmpdir);
	w = hws_perf_writer__new(path, false);
	for (int e = 0; e < 4096; e++) {
		for (int i = 0; i < 64; i++)
			eids[i] = ((uint64_t)e << 20) | (uint64_t)i * 7919;
		if (hws_perf_writer__add_attr(w, &a, NULL, eids, 64) != e)
			bad++;
	}
	__T("4096 attrs", bad == 0);
	__T("close", hws_perf_writer__close(w) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = hws_perf_reader__open(path, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	__T("open", r != NULL);
	__T("open under 10 s (quadratic id handling takes minutes)",
	    (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 10000000000L);
	for (int e = 0; r && e < 4096; e += 3)
		for (int i = 0; i < 64; i += 5)
			bad += hws_perf_reader__attr_by_id(r, ((uint64_t)e << 20) |
								  (uint64_t)i * 7919) != e;
	T_EQ_U64("every id maps to its event", bad, 0);
	T_EQ_STR("name of an unnamed software event", r ? hws_perf_reader__attr(r, 7)->name : NULL,
		 "cpu-clock:HG");
	hws_perf_reader__close(r);
}

int main(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/hws-perfdata-XXXXXX", t ? t : "/tmp");
	if (!mkdtemp(tmpdir))
		TEST_SKIP("no temp dir");
	setup_attrs();
	make_fake_sysfs();
	test_file_roundtrip(false);
	test_file_roundtrip(true);
	test_pipe_roundtrip();
	test_pipe_tracing_layout();
	test_old_tracing_record();
	test_unclosed();
	test_writer_errors();
	test_old_layout(false);
	test_old_layout(true);
	test_many_ids();
	{
		char cmd[PATH_MAX + 32];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			fprintf(stderr, "cleanup failed\n");
	}
	TEST_END();
}
