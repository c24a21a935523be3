// SPDX-License-Identifier: MIT
/*
 * hwsample record: what it tells the user while and after it records (core/cli/record.h):
 * the status line, the summary, the loss counters in words, and what a failed write to the
 * output file left in it.
 *
 * Invariants:
 *  - The status line is drawn only when stderr is a terminal, at most once a second from
 *    the poll loop, and erased before anything else is printed to stderr (library messages
 *    erase it through hws_cli__set_before_message()).
 *  - The status line and the summary count loss with the same counters and words
 *    (loss_totals(), loss_words()).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <hwsample/aux.h>

#include "record.h"

static void human_bytes(uint64_t b, char *buf, size_t len)
{
	if (b >= 10ull << 20)
		snprintf(buf, len, "%.1f MB", b / 1048576.0);
	else
		snprintf(buf, len, "%.1f KB", b / 1024.0);
}

/* The session's totals, which the status line and the summary both show. */
struct loss_totals {
	uint64_t samples, lost, lost_samples, throttle, aux_truncated, aux_collision;
};

static void loss_totals(struct record *r, struct loss_totals *t)
{
	int ne = hws_session__nr_events(r->sess), ns = hws_session__nr_cpu_slots(r->sess);

	memset(t, 0, sizeof(*t));
	for (int e = 0; e < ne; e++) {
		for (int sl = 0; sl < ns; sl++) {
			const struct hws_loss_stats *st = hws_session__stats(r->sess, e, sl);
			if (!st)
				continue;
			t->samples += st->samples;
			t->lost += st->lost;
			t->lost_samples += st->lost_samples;
			t->throttle += st->throttle;
			t->aux_truncated += st->aux_truncated;
			t->aux_collision += st->aux_collision;
		}
	}
}

/*
 * The loss counters in the words of both the status line and the summary: "lost N records"
 * (PERF_RECORD_LOST), "lost samples N" (PERF_RECORD_LOST_SAMPLES), "throttled N times",
 * "AUX truncated N collisions N". @all: every counter (the summary); else only those that
 * are not 0, or "nothing lost" (the status line, which must fit a terminal line).
 */
static void loss_words(const struct loss_totals *t, bool all, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
#define ADD(cond, ...)                                                                             \
	do {                                                                                       \
		if ((all || (cond)) && n < len)                                                    \
			n += (size_t)snprintf(buf + n, len - n, "%s", n ? ", " : "");              \
		if ((all || (cond)) && n < len)                                                    \
			n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);                      \
	} while (0)
	ADD(t->lost, "lost %" PRIu64 " records", t->lost);
	ADD(t->lost_samples, "lost samples %" PRIu64, t->lost_samples);
	ADD(t->throttle, "throttled %" PRIu64 " times", t->throttle);
	all = false; /* AUX counters only when there are some, in both */
	ADD(t->aux_truncated || t->aux_collision, "AUX truncated %" PRIu64 " collisions %" PRIu64,
	    t->aux_truncated, t->aux_collision);
#undef ADD
	if (!n)
		snprintf(buf, len, "nothing lost");
}

void record__print_summary(struct record *r, uint64_t file_size)
{
	int ne = hws_session__nr_events(r->sess), ns = hws_session__nr_cpu_slots(r->sess);
	struct loss_totals t;
	char sz[32], loss[256];

	loss_totals(r, &t);
	fprintf(stderr, "[ hwsample: recorded %s ]\n", hws_cli__text(r->output));
	for (int e = 0; e < ne; e++) {
		uint64_t es = 0;
		fprintf(stderr, "  %-28s", hws_session__event_name(r->sess, e));
		for (int sl = 0; sl < ns; sl++) {
			const struct hws_loss_stats *st = hws_session__stats(r->sess, e, sl);
			if (st)
				es += st->samples;
		}
		fprintf(stderr, " %10" PRIu64 " samples  (", es);
		int first = 1;
		for (int sl = 0; sl < ns; sl++) {
			const struct hws_loss_stats *st = hws_session__stats(r->sess, e, sl);
			if (!st ||
			    (!st->samples && !st->lost && !st->lost_samples && !st->throttle))
				continue;
			int cpu = hws_session__slot_cpu(r->sess, sl);
			if (cpu >= 0)
				fprintf(stderr, "%scpu%d %" PRIu64, first ? "" : ", ", cpu,
					st->samples);
			else
				fprintf(stderr, "%scpu? %" PRIu64, first ? "" : ", ", st->samples);
			/* the words of the total line (loss_words()) */
			if (st->lost)
				fprintf(stderr, " lost %" PRIu64 " records", st->lost);
			if (st->lost_samples)
				fprintf(stderr, " lost samples %" PRIu64, st->lost_samples);
			if (st->throttle)
				fprintf(stderr, " throttled %" PRIu64 " times", st->throttle);
			first = 0;
		}
		fprintf(stderr, "%s)\n", first ? "none" : "");
	}
	human_bytes(file_size, sz, sizeof(sz));
	loss_words(&t, true, loss, sizeof(loss));
	fprintf(stderr, "  total %" PRIu64 " samples, %s; ring max fill %u%%; %s written\n",
		t.samples, loss, hws_session__max_fill_pct(r->sess), sz);
	if (hws_session__has_aux(r->sess)) {
		struct hws_aux_stats as;
		hws_session__aux_stats(r->sess, &as);
		fprintf(stderr,
			"  AUX: %" PRIu64 " bytes in %" PRIu64 " chunks, %" PRIu64
			" PERF_RECORD_AUX: "
			"truncated %" PRIu64 ", partial %" PRIu64 ", collision %" PRIu64
			", gaps %" PRIu64 ", overruns %" PRIu64 "%s\n",
			as.bytes, as.chunks, as.aux_records, as.truncated, as.partial, as.collision,
			as.gaps, as.overruns, r->snapshot ? " (snapshot mode)" : "");
		if (as.truncated || as.overruns)
			fprintf(stderr,
				"  WARNING: AUX data was lost: use more AUX pages (-m ,N) or a "
				"longer sampling interval\n");
	}
	if (hws_session__ring_errors(r->sess))
		fprintf(stderr, "  WARNING: %" PRIu64 " malformed ring records skipped\n",
			hws_session__ring_errors(r->sess));
	if (t.lost)
		fprintf(stderr,
			"  WARNING: %" PRIu64 " records were lost because the ring was full: "
			"use a larger -m (now %u pages) or a lower -F/-c rate\n",
			t.lost, hws_session__mmap_pages(r->sess));
	if (t.throttle)
		fprintf(stderr,
			"  WARNING: the kernel throttled sampling %" PRIu64 " times "
			"(kernel.perf_event_max_sample_rate): lower -F or raise the limit\n",
			t.throttle);
	if (strcmp(r->output, "-"))
		fprintf(stderr, "  next: hwsample report -i %s   (or: perf report -i %s)\n",
			hws_cli__text(r->output), hws_cli__text(r->output));
}

/*
 * A write to the output file failed (ENOSPC, EDQUOT, EIO ...): the problem and its fix,
 * what the file holds (every whole record that reached it: its header says so, readers
 * read it) and what could not be written (@st: taken before the writer was closed).
 */
void record__write_failed(const struct record *r, int err, const struct hws_perf_writer_stats *st,
			  char *buf, size_t len)
{
	const char *fix = NULL;
	char what[128], held[32], lost[32];

	switch (-err) {
	case ENOSPC:
		fix = "free space on its file system or record to another one (-o FILE), or record "
		      "less (--duration, a lower -F, fewer events)";
		break;
	case EDQUOT:
		fix =
		    "raise the disk quota, free space, or record to another file system (-o FILE)";
		break;
	case EFBIG:
		fix = "the file system or the file size limit (ulimit -f) caps the file: record "
		      "less, or to another file system (-o FILE)";
		break;
	case EIO:
		fix = "the device failed (see dmesg): record to another file system (-o FILE)";
		break;
	}
	snprintf(what, sizeof(what), "%s", strerror(-err));
	what[0] = (char)tolower((unsigned char)what[0]);
	human_bytes(st->data_size, held, sizeof(held));
	human_bytes(st->lost_bytes, lost, sizeof(lost));
	snprintf(buf, len,
		 "%s: %s%s%s\nhwsample: %s holds %" PRIu64 " samples (%" PRIu64
		 " records, %s of data) up to the last whole record that reached it; not written: "
		 "%" PRIu64 " records (%" PRIu64 " samples, %" PRIu64 " bytes, %s); recording "
		 "stopped there%s",
		 what, r->output, fix ? ": " : "", fix ? fix : "", r->output, st->samples,
		 st->records, held, st->lost_records, st->lost_samples, st->lost_bytes, lost,
		 st->err ? ""
			 : "; the header features did not fit: readers call the file unfinished");
}

/*
 * One line on the terminal, rewritten in place about once a second: elapsed time, samples
 * and their rate, loss, bytes written, ring (and AUX) fill. Cut to the terminal width so
 * it never wraps (a wrapped line could not be rewritten with \r).
 */
void record__status_line(struct record *r, bool force)
{
	uint64_t samples;
	double t = now_s(), dt = t - r->st_last;
	char line[512], sz[32], loss[256];
	struct loss_totals lt;
	struct winsize ws;
	int n, cols = 80;

	if (!r->status_on || (!force && dt < 1.0))
		return;
	loss_totals(r, &lt);
	samples = lt.samples;
	/* loss first: a narrow terminal cuts the end of the line */
	loss_words(&lt, false, loss, sizeof(loss));
	human_bytes(r->bytes, sz, sizeof(sz));
	n = snprintf(line, sizeof(line),
		     "[ %.0fs ] %" PRIu64 " samples (%.0f/s), %s, %s written, ring max %u%%",
		     t - r->t0, samples, dt > 0 ? (double)(samples - r->st_last_samples) / dt : 0.0,
		     loss, sz, hws_session__max_fill_pct(r->sess));
	if (hws_session__has_aux(r->sess) && n > 0 && (size_t)n < sizeof(line)) {
		struct hws_aux_stats as;
		uint64_t area =
		    (uint64_t)(r->aux_pages ? r->aux_pages : HWS_SESSION_DEFAULT_AUX_PAGES) *
		    (uint64_t)sysconf(_SC_PAGESIZE);
		hws_session__aux_stats(r->sess, &as);
		human_bytes(as.bytes, sz, sizeof(sz));
		snprintf(line + n, sizeof(line) - (size_t)n, ", AUX %s, max %" PRIu64 "%%", sz,
			 area ? as.max_fill * 100 / area : 0);
	}
	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 10)
		cols = ws.ws_col;
	if ((int)strlen(line) > cols - 1)
		line[cols - 1] = 0;
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	r->status_shown = true;
	r->st_last = t;
	r->st_last_samples = samples;
}

static void status_clear(struct record *r)
{
	if (r->status_shown)
		fputs("\r\033[K", stderr);
	r->status_shown = false;
}

/* the run whose status line a library message erases first (hws_cli__set_before_message) */
static struct record *status_rec;

static void status_erase(void)
{
	if (status_rec)
		status_clear(status_rec);
}

void record__status_start(struct record *r)
{
	r->status_on = !r->quiet && !r->no_status && isatty(STDERR_FILENO);
	if (r->status_on) {
		status_rec = r;
		hws_cli__set_before_message(status_erase);
	}
}

void record__status_stop(struct record *r)
{
	status_clear(r);
	hws_cli__set_before_message(NULL);
	status_rec = NULL;
}
