// SPDX-License-Identifier: MIT
/*
 * hws_buildid_hits__record() follows a recording's maps in time, not in the order its records
 * come: record writes them as it drains its per-CPU rings one after the other, so a task that
 * moved between CPUs can have a later record (its new image's MMAPs after an exec, its maps
 * after a fork) before an earlier one (the exec's COMM, the FORK). perf sorts them by time
 * before it marks the files hit (perf record's process_buildids() goes through ordered
 * events); the same files must be listed here whatever the drain order.
 * Checked, through the pipe-mode HEADER_BUILD_ID records (the files first hit since the last
 * call; MMAP2 records carry their build-ids, so no file is read): an exec's COMM after its new
 * image's MMAPs keeps them and still drops the old image's; the usual order too; a FORK after
 * the child's exec copies none of the parent's maps into it, a FORK in order does; a map
 * takes no samples from before its MMAP; of two maps of one address the later in time wins
 * when it came first; a sample drained before its map's MMAP, or before its process's FORK,
 * is taken when that comes (not when it is from before the map), and one of another process
 * is not; and without times (no sample_id_all) the drain order rules as before.
 */
#include <errno.h>
#include <string.h>

#include <hwsample/perfdata.h>
#include <hwsample/synth.h>

#include "rec_build.h"
#include "tests.h"

#define ST		   (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define ID		   5
#define MISC_COMM_EXEC	   (1U << 13)
#define MISC_MMAP_BUILD_ID (1U << 14)

static int sample_id_all = 1;

static void trailer(struct rb *r, uint32_t pid, uint64_t t)
{
	if (!sample_id_all)
		return;
	put32x2(r, pid, pid);
	put64(r, t);
	put64(r, ID);
}

static void done(struct rb *r)
{
	((struct perf_event_header *)r->b)->size = (uint16_t)r->n;
}

static void put_str(struct rb *r, const char *s)
{
	uint8_t z[8] = {0};
	size_t n = strlen(s) + 1;

	put(r, s, n);
	put(r, z, (8 - n % 8) % 8);
}

static void feed(struct hws_buildid_hits *h, struct rb *r)
{
	done(r);
	__T("record taken", hws_buildid_hits__record(h, r->b) == 0);
}

static void mmap2(struct hws_buildid_hits *h, uint32_t pid, uint64_t addr, const char *path,
		  uint64_t t)
{
	struct rb r;
	uint8_t bid[24] = {20};

	begin(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | MISC_MMAP_BUILD_ID);
	put32x2(&r, pid, pid);
	put64(&r, addr);
	put64(&r, 0x1000);
	put64(&r, 0);
	for (int i = 4; i < 24; i++)
		bid[i] = (uint8_t)(path[1] + i); /* some build-id */
	put(&r, bid, sizeof(bid));
	put32x2(&r, 5, 2); /* prot, flags */
	put_str(&r, path);
	trailer(&r, pid, t);
	feed(h, &r);
}

static void comm_exec(struct hws_buildid_hits *h, uint32_t pid, uint64_t t)
{
	struct rb r;

	begin(&r, PERF_RECORD_COMM, MISC_COMM_EXEC);
	put32x2(&r, pid, pid);
	put_str(&r, "prog");
	trailer(&r, pid, t);
	feed(h, &r);
}

static void fork_rec(struct hws_buildid_hits *h, uint32_t child, uint32_t parent, uint64_t t)
{
	struct rb r;

	begin(&r, PERF_RECORD_FORK, 0);
	put32x2(&r, child, parent);
	put32x2(&r, child, parent);
	put64(&r, t);
	trailer(&r, parent, t);
	feed(h, &r);
}

static void sample(struct hws_buildid_hits *h, uint32_t pid, uint64_t ip, uint64_t t)
{
	struct rb r;

	begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&r, ID);
	put64(&r, ip);
	put32x2(&r, pid, pid);
	put64(&r, t);
	feed(h, &r);
}

/* the files first hit since the last call, each name followed by a space */
static const char *hits(struct hws_buildid_hits *h)
{
	static char out[1024];
	uint8_t buf[8192];
	int n;

	out[0] = 0;
	while ((n = hws_buildid_hits__next_record(h, "", buf, sizeof(buf))) > 0) {
		strncat(out, (const char *)buf + 36, sizeof(out) - strlen(out) - 2);
		strcat(out, " ");
	}
	__T("next_record", n == 0);
	return out;
}

static struct hws_buildid_hits *start(void)
{
	struct hws_perf_event_attr a = {.type = PERF_TYPE_SOFTWARE,
					.size = sizeof(a),
					.sample_type = ST,
					.sample_period = 1,
					.sample_id_all = (unsigned)sample_id_all};
	struct hws_buildid_hits *h = hws_buildid_hits__new();

	if (!h || hws_buildid_hits__add_attr(h, &a, (uint64_t[]){ID}, 1)) {
		fprintf(stderr, "hws_buildid_hits__new/add_attr failed\n");
		exit(1);
	}
	return h;
}

static void exec_order(void)
{
	struct hws_buildid_hits *h = start();

	/* the exec's COMM drained after its new image's MMAPs */
	mmap2(h, 100, 0x1000, "/old/a", 10);
	mmap2(h, 100, 0x400000, "/new/b", 30);
	comm_exec(h, 100, 20);
	sample(h, 100, 0x400010, 40);
	sample(h, 100, 0x1010, 41); /* the old image's address: nothing there after the exec */
	T_EQ_STR("exec after its MMAPs: the new image's map stays", hits(h), "/new/b ");

	/* the usual order */
	mmap2(h, 200, 0x1000, "/old/c", 10);
	comm_exec(h, 200, 20);
	mmap2(h, 200, 0x500000, "/new/d", 30);
	sample(h, 200, 0x1010, 31);
	sample(h, 200, 0x500010, 32);
	T_EQ_STR("exec in order", hits(h), "/new/d ");
	hws_buildid_hits__delete(h);
}

static void fork_order(void)
{
	struct hws_buildid_hits *h = start();

	mmap2(h, 300, 0x1000, "/p/e", 5);
	/* child 301 exec()ed; its FORK (earlier) drained after */
	comm_exec(h, 301, 50);
	mmap2(h, 301, 0x5000, "/c/f", 60);
	fork_rec(h, 301, 300, 40);
	sample(h, 301, 0x1010, 70);
	sample(h, 301, 0x5010, 71);
	T_EQ_STR("FORK after the child's exec: no parent maps", hits(h), "/c/f ");
	/* child 302 in order, and a map the parent made after the fork is not the child's */
	fork_rec(h, 302, 300, 40);
	mmap2(h, 300, 0x8000, "/p/late", 45);
	sample(h, 302, 0x8010, 80);
	T_EQ_STR("parent's map after the fork", hits(h), "");
	sample(h, 302, 0x1010, 81);
	T_EQ_STR("FORK in order: the parent's maps", hits(h), "/p/e ");
	hws_buildid_hits__delete(h);
}

static void map_order(void)
{
	struct hws_buildid_hits *h = start();

	mmap2(h, 400, 0x9000, "/late/g", 10);
	sample(h, 400, 0x9010, 5);
	T_EQ_STR("a sample before its map's MMAP", hits(h), "");
	sample(h, 400, 0x9010, 15);
	T_EQ_STR("a sample after it", hits(h), "/late/g ");

	/* two maps of one address, the later one drained first */
	mmap2(h, 500, 0x7000, "/x/new", 30);
	mmap2(h, 500, 0x7000, "/x/old", 20);
	sample(h, 500, 0x7010, 40);
	T_EQ_STR("the later map covers the earlier", hits(h), "/x/new ");
	sample(h, 500, 0x7010, 25);
	T_EQ_STR("the earlier map before the later", hits(h), "/x/old ");
	hws_buildid_hits__delete(h);
}

static void late_maps(void)
{
	struct hws_buildid_hits *h = start();

	/* samples drained before the MMAP of their map */
	sample(h, 700, 0x3010, 50);
	sample(h, 701, 0x3010, 50); /* another process: not its map */
	sample(h, 700, 0x6010, 20); /* from before the map below */
	T_EQ_STR("samples without a map yet", hits(h), "");
	mmap2(h, 700, 0x3000, "/late/h", 40);
	T_EQ_STR("their map's late MMAP takes them", hits(h), "/late/h ");
	mmap2(h, 700, 0x6000, "/late/i", 30);
	T_EQ_STR("not a sample from before the map", hits(h), "");

	/* a child's sample drained before its FORK */
	mmap2(h, 710, 0x1000, "/par/j", 5);
	sample(h, 711, 0x1010, 60);
	T_EQ_STR("a child's sample before its FORK", hits(h), "");
	fork_rec(h, 711, 710, 55);
	T_EQ_STR("the FORK's copies take it", hits(h), "/par/j ");
	hws_buildid_hits__delete(h);
}

static void no_times(void)
{
	struct hws_buildid_hits *h;

	sample_id_all = 0;
	h = start();
	mmap2(h, 600, 0x1000, "/nt/a", 0);
	comm_exec(h, 600, 0);
	mmap2(h, 600, 0x2000, "/nt/b", 0);
	mmap2(h, 600, 0x2000, "/nt/c", 0);
	sample(h, 600, 0x1010, 1);
	sample(h, 600, 0x2010, 2);
	T_EQ_STR("no times: the order records came", hits(h), "/nt/c ");
	hws_buildid_hits__delete(h);
	sample_id_all = 1;
}

int main(void)
{
	exec_order();
	fork_order();
	map_order();
	late_maps();
	no_times();
	printf("%d checks, %d failed\n", tests_run, tests_failed);
	return tests_failed ? 1 : 0;
}
