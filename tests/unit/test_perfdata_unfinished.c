// SPDX-License-Identifier: MIT
/*
 * Crash-safe perf.data files: the writer's layout (header, ids and attrs on disk before
 * the first data byte; data.size in the header rewritten at each flush, only ever to a
 * record boundary that is in the file, also when a flush or a big write ends inside a
 * record or an AUXTRACE payload), a writer killed at several points, an attr added after
 * the data started, write errors (RLIMIT_FSIZE: EFBIG, as ENOSPC would: partial write,
 * then the error), and the reader's rules for unfinished files (data size 0, data past
 * the end of the file, records after data.size, a record cut short; finished files, the
 * writer's and perf's fixtures, never flagged).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwsample/perfdata.h>

#include "perfdata/perfdata_int.h"
#include "tests.h"

#define ATTR_SZ (HWS_FILE_ATTR_SIZE + 16) /* attr and its ids section, on disk */
#define SMP	40 /* our SAMPLE records: header, IDENTIFIER, IP, TID, TIME */

static char tmpdir[PATH_MAX];
static struct hws_perf_event_attr attrs[2];

static void path_of(char *p, size_t len, const char *name)
{
	snprintf(p, len, "%s/%s", tmpdir, name);
}

static void setup_attrs(void)
{
	for (int i = 0; i < 2; i++) {
		attrs[i].size = HWS_FILE_ATTR_SIZE;
		attrs[i].type = PERF_TYPE_SOFTWARE;
		attrs[i].config = i ? PERF_COUNT_SW_PAGE_FAULTS : PERF_COUNT_SW_CPU_CLOCK;
		attrs[i].sample_period = 1000;
		attrs[i].sample_type =
		    PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		attrs[i].sample_id_all = 1;
	}
}

/* SAMPLE number @i of event id @id at @p (SMP bytes) */
static void sample(uint8_t *p, uint64_t id, uint64_t i)
{
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, SMP};
	uint64_t v[4] = {id, 0x401000 + i * 4, (77ULL << 32) | 77, 1000 + i};

	memcpy(p, &h, 8);
	memcpy(p + 8, v, sizeof(v));
}

static int put_sample(struct hws_perf_writer *w, uint64_t id, uint64_t i)
{
	uint8_t b[SMP];

	sample(b, id, i);
	return hws_perf_writer__write(w, b, sizeof(b));
}

static int put_round(struct hws_perf_writer *w)
{
	struct perf_event_header h = {HWS_RECORD_FINISHED_ROUND, 0, 8};

	return hws_perf_writer__write(w, &h, sizeof(h));
}

static bool read_header(const char *path, struct hws_file_header *h)
{
	int fd = open(path, O_RDONLY);
	bool ok = fd >= 0 && pread(fd, h, sizeof(*h), 0) == (ssize_t)sizeof(*h);

	if (fd >= 0)
		close(fd);
	return ok;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

static bool no_features(const struct hws_file_header *h)
{
	return !(h->adds_features[0] | h->adds_features[1] | h->adds_features[2] |
		 h->adds_features[3]);
}

static void patch_u64(const char *path, uint64_t off, uint64_t v)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || pwrite(fd, &v, 8, (off_t)off) != 8)
		__T("patch", 0);
	if (fd >= 0)
		close(fd);
}

static void append_bytes(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		__T("append", 0);
	if (fd >= 0)
		close(fd);
}

/* What a reader makes of @path: records and samples to the end, the result of the last
 * __next(), and hws_perf_reader__unfinished(). */
struct readout {
	bool opened;
	int ret, unf, nr_attrs;
	uint64_t records, samples, unknown_attr, last_end;
	struct hws_perf_unfinished u; /* u.why is NULL here: why has a copy */
	char name0[64], why[160];
};

static struct readout read_all(const char *path)
{
	struct readout o = {0};
	struct hws_perf_record rec;
	struct hws_perf_reader *r;

	r = hws_perf_reader__open(path, NULL);
	if (!r)
		return o;
	o.opened = true;
	o.nr_attrs = hws_perf_reader__nr_attrs(r);
	if (o.nr_attrs)
		snprintf(o.name0, sizeof(o.name0), "%s", hws_perf_reader__attr(r, 0)->name);
	while ((o.ret = hws_perf_reader__next(r, &rec)) > 0) {
		o.records++;
		o.samples += rec.hdr->type == PERF_RECORD_SAMPLE;
		o.unknown_attr += rec.hdr->type == PERF_RECORD_SAMPLE && rec.attr_idx < 0;
		o.last_end = rec.file_offset + rec.hdr->size + rec.payload_size;
	}
	if (o.ret < 0)
		fprintf(stderr, "  %s: %s\n", path, hws_perf_reader__errmsg(r));
	o.unf = hws_perf_reader__unfinished(r, &o.u);
	snprintf(o.why, sizeof(o.why), "%s", o.u.why ? o.u.why : "");
	o.u.why = NULL; /* owned by the reader */
	hws_perf_reader__close(r);
	return o;
}

/* ---------------------------------------------------------------- writer layout */

static void test_layout(void)
{
	uint64_t ids0[2] = {7, 70}, id1 = 8, rd[3];
	struct hws_file_header h;
	struct hws_perf_writer *w;
	struct readout o;
	char p[PATH_MAX + 32];
	uint64_t doff = 104 + 3 * 8 + 2 * ATTR_SZ;
	int fd;

	path_of(p, sizeof(p), "layout.data");
	w = hws_perf_writer__new(p, false);
	__T("writer", w != NULL);
	if (!w)
		return;
	hws_perf_writer__add_attr(w, &attrs[0], "cpu-clock", ids0, 2);
	hws_perf_writer__add_attr(w, &attrs[1], "page-faults", &id1, 1);
	__T("placeholder header at creation: no attrs",
	    read_header(p, &h) && h.attrs.size == 0 && h.data.size == 0 && file_size(p) == 104);

	__T("first sample", put_sample(w, 7, 0) == 0);
	__T("header written at the first data byte", read_header(p, &h));
	T_EQ_U64("ids right after the header, attrs after them", h.attrs.offset, 104 + 3 * 8);
	T_EQ_U64("attr section size", h.attrs.size, 2 * ATTR_SZ);
	T_EQ_U64("data after the attrs", h.data.offset, doff);
	T_EQ_U64("data size 0 while the sample is buffered", h.data.size, 0);
	__T("no feature bits before close", no_features(&h));
	T_EQ_U64("file ends at the data: the sample is still in the buffer", file_size(p), doff);
	T_EQ_U64("data_offset()", hws_perf_writer__data_offset(w), doff);
	fd = open(p, O_RDONLY);
	{
		struct hws_file_section s[2];
		struct hws_perf_event_attr a;

		__T("ids on disk",
		    pread(fd, rd, 24, 104) == 24 && rd[0] == 7 && rd[1] == 70 && rd[2] == 8);
		__T("attr 1 on disk",
		    pread(fd, &a, HWS_FILE_ATTR_SIZE, (off_t)(h.attrs.offset + ATTR_SZ)) ==
			    HWS_FILE_ATTR_SIZE &&
			!memcmp(&a, &attrs[1], HWS_FILE_ATTR_SIZE));
		__T("ids sections",
		    pread(fd, &s[0], 16, (off_t)(h.attrs.offset + HWS_FILE_ATTR_SIZE)) == 16 &&
			pread(fd, &s[1], 16,
			      (off_t)(h.attrs.offset + ATTR_SZ + HWS_FILE_ATTR_SIZE)) == 16 &&
			s[0].offset == 104 && s[0].size == 16 && s[1].offset == 120 &&
			s[1].size == 8);
	}
	close(fd);

	__T("flush", hws_perf_writer__flush(w) == 0);
	__T("data size after a flush", read_header(p, &h) && h.data.size == SMP);
	T_EQ_U64("file holds the sample", file_size(p), doff + SMP);
	__T("round", put_round(w) == 0 && put_sample(w, 8, 1) == 0 && put_round(w) == 0);
	__T("flush 2", hws_perf_writer__flush(w) == 0);
	__T("data size at the round",
	    read_header(p, &h) && h.data.size == 2 * SMP + 16 && no_features(&h));
	{
		struct hws_perf_writer_stats st;

		hws_perf_writer__stats(w, &st);
		__T("stats: in the file", st.data_size == 2 * SMP + 16 && st.records == 4 &&
					      st.samples == 2 && !st.err && !st.lost_bytes &&
					      !st.lost_records);
	}

	/* the open file as a reader sees it (a recorder killed now) */
	o = read_all(p);
	__T("open file reads", o.opened && o.ret == 0);
	T_EQ_U64("open file: unfinished, no features", o.unf, HWS_UNFINISHED_NO_FEATURES);
	T_EQ_U64("open file: both events", o.nr_attrs, 2);
	T_EQ_STR("open file: name made from the attr (no EVENT_DESC yet)", o.name0, "cpu-clock:HG");
	T_EQ_U64("open file: records", o.records, 4);
	T_EQ_U64("open file: samples, both events known", o.samples * 10 + o.unknown_attr, 20);
	__T("open file: read to the end of the file",
	    o.u.read_all && o.u.end == file_size(p) && !o.u.cut_bytes && o.u.data_size == 96);

	__T("close", hws_perf_writer__close(w) == 0);
	__T("closed: features", read_header(p, &h) && !no_features(&h) && h.data.offset == doff &&
				    h.data.size == 2 * SMP + 16 && h.attrs.offset == 128);
	o = read_all(p);
	__T("closed file: finished", o.opened && o.ret == 0 && o.unf == 0 && !o.why[0]);
	T_EQ_U64("closed file: samples", o.samples, 2);
}

/* data.size only ever ends on a record boundary in the file */
static void test_framing(void)
{
	uint8_t *big, aux[48 + 64], b[SMP];
	struct hws_file_header h;
	struct hws_perf_writer *w;
	struct hws_perf_writer_stats st;
	struct readout o;
	char p[PATH_MAX + 32];
	uint64_t doff, id = 7, n = 0, expect;
	const size_t nbig = 262144 / SMP; /* whole samples in a 256 KiB direct write */

	path_of(p, sizeof(p), "framing.data");
	w = hws_perf_writer__new(p, false);
	hws_perf_writer__add_attr(w, &attrs[0], "cpu-clock", &id, 1);
	put_sample(w, 7, n++);
	hws_perf_writer__flush(w);
	doff = (uint64_t)hws_perf_writer__data_offset(w);
	__T("one sample", read_header(p, &h) && h.data.size == SMP);

	/* AUXTRACE: 48-byte record + 64 payload bytes, given in three pieces */
	memset(aux, 0, sizeof(aux));
	{
		struct perf_event_header ah = {HWS_RECORD_AUXTRACE, 0, 48};
		uint64_t psz = 64;

		memcpy(aux, &ah, 8);
		memcpy(aux + 8, &psz, 8);
		for (int i = 0; i < 64; i++)
			aux[48 + i] = (uint8_t)(i + 1);
	}
	hws_perf_writer__write(w, aux, 48);
	hws_perf_writer__flush(w);
	__T("AUXTRACE header in the file, payload not: data size stays",
	    read_header(p, &h) && h.data.size == SMP && file_size(p) == doff + SMP + 48);
	hws_perf_writer__write(w, aux + 48, 30);
	hws_perf_writer__flush(w);
	__T("part of the payload: data size stays", read_header(p, &h) && h.data.size == SMP);
	hws_perf_writer__write(w, aux + 78, 34);
	hws_perf_writer__flush(w);
	__T("whole payload: the AUXTRACE counts",
	    read_header(p, &h) && h.data.size == SMP + sizeof(aux));

	/* a record header split between two writes */
	sample(b, 7, n++);
	hws_perf_writer__write(w, b, 4);
	hws_perf_writer__flush(w);
	__T("half a header: data size stays", read_header(p, &h) && h.data.size == SMP + 112);
	hws_perf_writer__write(w, b + 4, SMP - 4);
	hws_perf_writer__flush(w);
	__T("the rest: counted", read_header(p, &h) && h.data.size == 2 * SMP + 112);

	/* a 256 KiB write goes straight to the file and ends 24 bytes into a sample */
	big = malloc(262144 + SMP);
	for (size_t i = 0; i <= nbig; i++)
		sample(big + i * SMP, 7, n + i);
	hws_perf_writer__write(w, big, 262144);
	expect = 2 * SMP + 112 + nbig * SMP;
	__T("a big write ending inside a record: data size at its last whole record",
	    read_header(p, &h) && h.data.size == expect &&
		file_size(p) == doff + 2 * SMP + 112 + 262144);
	hws_perf_writer__write(w, big + 262144, (nbig + 1) * SMP - 262144);
	n += nbig + 1;
	/* small writes until the buffer fills and goes out by itself (no flush call) */
	for (int i = 0; i < 7000; i++)
		put_sample(w, 7, n++);
	__T("the full buffer went out: data size at a record boundary",
	    read_header(p, &h) && h.data.size > expect && (h.data.size - 112) % SMP == 0 &&
		file_size(p) == doff + h.data.size);
	hws_perf_writer__flush(w);
	expect = 112 + n * SMP;
	__T("flush: everything", read_header(p, &h) && h.data.size == expect);
	hws_perf_writer__stats(w, &st);
	__T("stats", st.data_size == expect && st.records == n + 1 && st.samples == n && !st.err);
	free(big);
	o = read_all(p);
	__T("the open file reads whole", o.ret == 0 && o.unf == HWS_UNFINISHED_NO_FEATURES &&
					     o.samples == n && o.records == n + 1 &&
					     o.u.end == doff + expect);
	__T("close", hws_perf_writer__close(w) == 0);
	o = read_all(p);
	__T("closed: the same records, finished", o.ret == 0 && !o.unf && o.samples == n);
}

/* ---------------------------------------------------------------- killed writers */

/* A child writes @rounds rounds of 10 samples, flushing after each, then @extra samples
 * it never flushes, and dies (SIGKILL: nothing of libc's exit runs). */
static void killed_writer(const char *p, int rounds, int extra)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct hws_perf_writer *w = hws_perf_writer__new(p, false);
		uint64_t id = 7, n = 0;

		hws_perf_writer__add_attr(w, &attrs[0], "cpu-clock", &id, 1);
		hws_perf_writer__set_string(w, HWS_FEAT_HOSTNAME, "never-written");
		for (int r = 0; r < rounds; r++) {
			for (int i = 0; i < 10; i++)
				put_sample(w, 7, n++);
			put_round(w);
			hws_perf_writer__flush(w);
		}
		for (int i = 0; i < extra; i++)
			put_sample(w, 7, n++);
		kill(getpid(), SIGKILL);
		_exit(1);
	}
	waitpid(pid, &st, 0);
	__T("writer killed", WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

static void test_killed(void)
{
	struct hws_file_header h;
	struct readout o;
	char p[PATH_MAX + 32];
	uint8_t part[SMP];
	uint64_t doff, size;

	path_of(p, sizeof(p), "killed.data");
	killed_writer(p, 3, 5);
	__T("header", read_header(p, &h));
	doff = h.data.offset;
	T_EQ_U64("data size: the three rounds", h.data.size, 3 * (10 * SMP + 8));
	T_EQ_U64("the unflushed samples are not in the file", file_size(p), doff + h.data.size);
	o = read_all(p);
	__T("reads without error", o.opened && o.ret == 0);
	T_EQ_U64("unfinished: no features", o.unf, HWS_UNFINISHED_NO_FEATURES);
	__T("why", strstr(o.why, "no header features") && strstr(o.why, "killed"));
	T_EQ_U64("every sample of the rounds", o.samples, 30);
	T_EQ_U64("event known", o.unknown_attr, 0);
	__T("to the end", o.u.read_all && o.u.end == doff + h.data.size && !o.u.cut_bytes);
	__T("no features read", o.nr_attrs == 1);

	/* killed between a write and the data size update: whole records after data.size and
	 * a record cut short (20 of its 40 bytes) */
	size = h.data.size;
	patch_u64(p, offsetof(struct hws_file_header, data.size), 10 * SMP + 8);
	sample(part, 7, 99);
	append_bytes(p, part, 20);
	o = read_all(p);
	__T("records after data.size: read", o.ret == 0 && o.unf == HWS_UNFINISHED_NO_FEATURES);
	T_EQ_U64("every whole sample, past data.size too", o.samples, 30);
	T_EQ_U64("whole records end where the rounds do", o.u.end, doff + size);
	T_EQ_U64("the record cut short", o.u.cut_bytes, 20);
	T_EQ_U64("data size as the header says", o.u.data_size, 10 * SMP + 8);

	/* bytes that are no record after the last whole one: the data ends there */
	{
		uint64_t junk[2] = {0x1234567890abcdefULL, 0};

		patch_u64(p, offsetof(struct hws_file_header, data.size), size);
		truncate(p, (off_t)(doff + size));
		append_bytes(p, junk, sizeof(junk));
		o = read_all(p);
		__T("junk after the data ends it, no error",
		    o.ret == 0 && o.samples == 30 && o.u.end == doff + size && o.u.cut_bytes == 16);
	}

	/* as perf record leaves a file: data size 0, feature bits set at the start (their
	 * index would be where the records are) */
	patch_u64(p, offsetof(struct hws_file_header, data.size), 0);
	patch_u64(p, offsetof(struct hws_file_header, adds_features), 0xd6717ffcULL);
	o = read_all(p);
	T_EQ_U64("data size 0 + feature bits: unfinished", o.unf, HWS_UNFINISHED_DATA_SIZE_0);
	__T("why", strstr(o.why, "data size 0"));
	T_EQ_U64("data size 0: every sample", o.samples, 30);
	patch_u64(p, offsetof(struct hws_file_header, adds_features), 0);
	o = read_all(p);
	__T("data size 0, no feature bits: the same",
	    o.unf == HWS_UNFINISHED_DATA_SIZE_0 && o.samples == 30 && o.ret == 0);

	/* killed before the first flush: header and attrs, nothing else */
	killed_writer(p, 0, 5);
	o = read_all(p);
	__T("killed before any round: unfinished, no records",
	    o.opened && o.ret == 0 && o.unf == HWS_UNFINISHED_DATA_SIZE_0 && o.records == 0 &&
		o.nr_attrs == 1 && o.u.read_all && o.u.end == file_size(p));
}

/* A file cut inside its data: records up to the cut, the rest is reported. */
static void test_past_eof(void)
{
	struct hws_perf_writer *w;
	struct hws_file_header h;
	struct readout o;
	char p[PATH_MAX + 32];
	uint64_t id = 7;

	path_of(p, sizeof(p), "cut.data");
	w = hws_perf_writer__new(p, false);
	hws_perf_writer__add_attr(w, &attrs[0], "cpu-clock", &id, 1);
	for (int i = 0; i < 100; i++)
		put_sample(w, 7, (uint64_t)i);
	hws_perf_writer__close(w);
	read_header(p, &h);
	truncate(p, (off_t)(h.data.offset + 50 * SMP + 13));
	o = read_all(p);
	__T("cut file reads", o.opened && o.ret == 0);
	T_EQ_U64("past the end of the file", o.unf, HWS_UNFINISHED_PAST_EOF);
	T_EQ_U64("samples before the cut", o.samples, 50);
	__T("whole records end at the cut record", o.u.end == h.data.offset + 50 * SMP &&
						       o.u.cut_bytes == 13 &&
						       o.u.data_size == 100 * SMP);
	truncate(p, (off_t)(h.data.offset + 50 * SMP));
	o = read_all(p);
	__T("cut at a record boundary",
	    o.unf == HWS_UNFINISHED_PAST_EOF && o.samples == 50 && !o.u.cut_bytes);
}

/* ---------------------------------------------------------------- finished files */

static void test_finished(void)
{
	struct hws_perf_writer *w;
	struct readout o;
	char p[PATH_MAX + 32];
	uint64_t id = 7;
	const char *fx = getenv("HWS_FIXTURES");
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int n = 0;

	path_of(p, sizeof(p), "empty.data");
	w = hws_perf_writer__new(p, false);
	hws_perf_writer__add_attr(w, &attrs[0], "cpu-clock", &id, 1);
	__T("close without data", hws_perf_writer__close(w) == 0);
	o = read_all(p);
	__T("attrs, no data, features (data size 0 as perf's empty files): finished",
	    o.opened && o.ret == 0 && !o.unf && o.records == 0);
	w = hws_perf_writer__new(p, false);
	__T("close with nothing at all", hws_perf_writer__close(w) == 0);
	o = read_all(p);
	__T("no attrs, no data, no features: finished", o.opened && o.ret == 0 && !o.unf);

	/* every perf-written fixture (file mode) is finished */
	snprintf(dir, sizeof(dir), "%s/perf_data_converter", fx ? fx : "tests/fixtures");
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char f[PATH_MAX * 2];
		struct hws_file_header h;

		if (strncmp(de->d_name, "perf.data.", 10) || strstr(de->d_name, ".txt") ||
		    strstr(de->d_name, "piped"))
			continue;
		snprintf(f, sizeof(f), "%s/%s", dir, de->d_name);
		if (!read_header(f, &h) || h.magic != PERF_MAGIC2)
			continue;
		o = read_all(f);
		if (!o.opened || o.unf)
			fprintf(stderr, "  %s: unfinished %d\n", de->d_name, o.unf);
		__T("perf's fixture is finished", o.opened && !o.unf);
		n++;
	}
	if (d)
		closedir(d);
	__T("fixtures checked", n >= 4);
}

/* An event added after the data started: the closed file has it (attrs again at the
 * end), the file of a writer killed before that has the early attrs. */
static void test_late_attr(void)
{
	struct hws_perf_writer *w;
	struct readout o;
	char p[PATH_MAX + 32];
	uint64_t id = 7, id2 = 9;

	path_of(p, sizeof(p), "late.data");
	w = hws_perf_writer__new(p, false);
	hws_perf_writer__add_attr(w, &attrs[0], "cpu-clock", &id, 1);
	put_sample(w, 7, 0);
	__T("late attr accepted in file mode",
	    hws_perf_writer__add_attr(w, &attrs[1], "page-faults", &id2, 1) == 1);
	put_sample(w, 9, 1);
	hws_perf_writer__flush(w);
	o = read_all(p);
	/* (with one event, every sample is taken for it, as perf does) */
	__T("before close: the early attrs only, both samples read",
	    o.ret == 0 && o.unf && o.nr_attrs == 1 && o.samples == 2);
	__T("close", hws_perf_writer__close(w) == 0);
	o = read_all(p);
	__T("closed: both events, finished",
	    o.ret == 0 && !o.unf && o.nr_attrs == 2 && o.samples == 2 && o.unknown_attr == 0);
}

/* ---------------------------------------------------------------- write errors */

/*
 * A child writes 100 records (samples; with @aux, record 60 is an AUXTRACE with 16 KiB of
 * payload), flushing after every 10th, into a file capped @room bytes past the data start
 * by RLIMIT_FSIZE: the write that crosses the cap is partial, then EFBIG, as a full disk
 * gives ENOSPC. The child checks the writer's stats (@whole records reached the file) and
 * __close()'s result, and exits with the number of failed checks.
 */
#define AUX_PAYLOAD 16384
static void capped_writer(const char *p, uint64_t room, bool aux, uint64_t whole)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct hws_perf_writer *w = hws_perf_writer__new(p, false);
		struct hws_perf_writer_stats s;
		struct rlimit rl;
		uint64_t id = 7, doff, total = 0, smp = 0, lost_smp = 0;
		uint8_t *rec = calloc(1, 48 + AUX_PAYLOAD);
		int err = 0;

		tests_failed = 0; /* the parent's count came along */
		signal(SIGXFSZ, SIG_IGN);
		hws_perf_writer__add_attr(w, &attrs[0], "cpu-clock", &id, 1);
		hws_perf_writer__set_string(w, HWS_FEAT_HOSTNAME, "capped");
		doff = (uint64_t)hws_perf_writer__data_offset(w);
		rl.rlim_cur = rl.rlim_max = doff + room;
		setrlimit(RLIMIT_FSIZE, &rl);
		for (uint64_t i = 0; i < 100; i++) {
			size_t len = SMP;
			int e;

			if (aux && i == 60) {
				struct perf_event_header ah = {HWS_RECORD_AUXTRACE, 0, 48};
				uint64_t psz = AUX_PAYLOAD;

				memcpy(rec, &ah, 8);
				memcpy(rec + 8, &psz, 8);
				len = 48 + AUX_PAYLOAD;
			} else {
				sample(rec, 7, i);
				smp++;
				lost_smp += i >= whole;
			}
			total += len;
			e = hws_perf_writer__write(w, rec, len);
			if (!e && i % 10 == 9)
				e = hws_perf_writer__flush(w);
			if (e && !err)
				err = e;
		}
		T_EQ_U64("the write error", err, -EFBIG);
		hws_perf_writer__stats(w, &s);
		T_EQ_U64("stats: error", s.err, -EFBIG);
		T_EQ_U64("stats: data up to the last whole record that reached the file",
			 s.data_size, whole * SMP);
		T_EQ_U64("stats: records in the file", s.records, whole);
		T_EQ_U64("stats: samples in the file", s.samples, whole);
		T_EQ_U64("stats: records not written", s.lost_records, 100 - whole);
		T_EQ_U64("stats: samples not written", s.lost_samples, lost_smp);
		T_EQ_U64("stats: bytes not written", s.lost_bytes, total - whole * SMP);
		T_EQ_U64("more writes fail with it", put_sample(w, 7, 100), -EFBIG);
		T_EQ_U64("flush says it too", hws_perf_writer__flush(w), -EFBIG);
		T_EQ_U64("close returns the first error", hws_perf_writer__close(w), -EFBIG);
		free(rec);
		_exit(tests_failed ? 1 : 0);
	}
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fprintf(stderr, "  capped writer: status %#x\n", st);
	__T("capped writer's checks", WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_write_error(void)
{
	struct hws_file_header h;
	struct readout o;
	char p[PATH_MAX + 32];

	/* the cap 20 bytes into sample 26: the third flush writes part of its round */
	path_of(p, sizeof(p), "capped.data");
	capped_writer(p, 25 * SMP + 20, false, 25);
	__T("header", read_header(p, &h));
	T_EQ_U64("header data size: the last whole record", h.data.size, 25 * SMP);
	__T("no room for the features: no feature bits", no_features(&h));
	T_EQ_U64("the file ends with the data (the torn record cut off)", file_size(p),
		 h.data.offset + 25 * SMP);
	o = read_all(p);
	__T("readable", o.opened && o.ret == 0);
	T_EQ_U64("every sample that reached the file", o.samples, 25);
	T_EQ_U64("unfinished (no features)", o.unf, HWS_UNFINISHED_NO_FEATURES);

	/* the cap inside an AUXTRACE payload: the features fit where its torn part was */
	capped_writer(p, 60 * SMP + 8000, true, 60);
	__T("header 2", read_header(p, &h) && h.data.size == 60 * SMP && !no_features(&h));
	o = read_all(p);
	__T("features fit: finished, every sample that reached the file",
	    o.opened && o.ret == 0 && !o.unf && o.samples == 60 && o.records == 60);
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	char cmd[PATH_MAX + 32];

	snprintf(tmpdir, sizeof(tmpdir), "%s/hws-unfinished-XXXXXX", t ? t : "/tmp");
	if (!mkdtemp(tmpdir))
		TEST_SKIP("no temp dir");
	setup_attrs();
	test_layout();
	test_framing();
	test_killed();
	test_past_eof();
	test_finished();
	test_late_attr();
	test_write_error();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "cleanup failed\n");
	TEST_END();
}
