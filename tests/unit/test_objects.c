// SPDX-License-Identifier: MIT
/*
 * core/objects: the index of allocation records (include/hwsample/objects.h) on payloads
 * built here: a block is found only while it lives (allocated at or before T, freed after
 * T); realloc ends the old block and starts the new one at the same time; an address reused
 * by a later allocation gives each time its own site; the smallest of nested objects wins;
 * a second image of a pid (exec) ends the first's objects; a forked child sees its parent's
 * blocks as they were when it started; records out of time order, unfinished records
 * (type 0), unknown types, truncated and damaged payloads; the JSON and kind names; times in
 * ticks converted linearly between the (tick, ns) pairs of a version 2 file (past the last
 * with the slope of all, with one pair the header's rate); a thread's TLS block, ended by the
 * next block at its address or by a free; FREES records (several frees in one).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/objects.h>

#include "tests.h"

struct pay {
	uint8_t *buf;
	size_t len, hdr; /* hdr: offset of the current file's header */
};

static void put(struct pay *p, const void *d, size_t n)
{
	p->buf = realloc(p->buf, p->len + n);
	memcpy(p->buf + p->len, d, n);
	p->len += n;
}

static void file(struct pay *p, uint32_t pid, uint32_t ppid, uint64_t start)
{
	struct hws_objfile fh;

	memset(&fh, 0, sizeof(fh));
	memcpy(fh.magic, HWS_OBJFILE_MAGIC, 8);
	fh.version = HWS_OBJFILE_VERSION;
	fh.rec_size = sizeof(struct hws_objrec);
	fh.pid = pid;
	fh.ppid = ppid;
	fh.start_time = start;
	fh.capacity = 1 << 20;
	p->hdr = p->len;
	put(p, &fh, sizeof(fh));
}

static void rec(struct pay *p, int type, uint64_t t, uint64_t addr, uint64_t size, uint64_t old,
		uint64_t site)
{
	struct hws_objrec r;
	struct hws_objfile *fh;

	memset(&r, 0, sizeof(r));
	r.type = (uint8_t)type;
	r.tid = 7;
	r.time = t;
	r.addr = addr;
	r.size = size;
	r.old = old;
	r.nframes = site ? 1 : 0;
	r.frames[0] = site;
	put(p, &r, sizeof(r));
	fh = (struct hws_objfile *)(p->buf + p->hdr);
	fh->used += sizeof(r);
}

/* the site of the object of (pid, addr) at t, 0 if none, ~0 if one without site */
static uint64_t site_at(const struct hws_objects *o, uint32_t pid, uint64_t addr, uint64_t t)
{
	struct hws_object ob;

	if (!hws_objects__lookup(o, pid, addr, t, &ob))
		return 0;
	return ob.nframes ? ob.frames[0] : ~0ULL;
}

static void test_lifetimes(void)
{
	struct pay p = {0};
	struct hws_objects *o;
	struct hws_object ob;

	file(&p, 100, 1, 10);
	rec(&p, HWS_OBJREC_ALLOC, 100, 0x1000, 0x100, 0, 0xa1);		/* A: [100, 200) */
	rec(&p, HWS_OBJREC_FREE, 200, 0x1000, 0, 0, 0);			/* free A */
	rec(&p, HWS_OBJREC_ALLOC, 300, 0x1000, 0x80, 0, 0xa2);		/* B reuses it */
	rec(&p, HWS_OBJREC_ALLOC, 150, 0x5000, 0x1000, 0, 0xc1);	/* C, out of order */
	rec(&p, HWS_OBJREC_REALLOC, 400, 0x9000, 0x2000, 0x5000, 0xc2); /* C -> D */
	rec(&p, HWS_OBJREC_FREE, 250, 0x7777, 0, 0, 0);			/* unknown: ignored */
	rec(&p, HWS_OBJREC_NONE, 260, 0x1000, 0x100, 0, 0xee);		/* unfinished */
	rec(&p, 99, 270, 0x1000, 0x100, 0, 0xef);			/* unknown type */
	rec(&p, HWS_OBJREC_ALLOC, 500, 0x20000, 0x10000, 0, 0xb1);	/* big block E */
	rec(&p, HWS_OBJREC_ALLOC, 500, 0x20000, 0, 0, 0xb9);		/* size 0: bad */
	rec(&p, HWS_OBJREC_MMAP, 600, 0x100000, 0x4000, (uint64_t)0x22 << 32 | 0xffffffffu,
	    0xd1); /* anon map */
	rec(&p, HWS_OBJREC_MUNMAP, 700, 0x100000, 0x4000, 0, 0);
	rec(&p, HWS_OBJREC_MMAP, 650, 0x200000, 0x2000, (uint64_t)0x2 << 32 | 3, 0xd2); /* file */
	rec(&p, HWS_OBJREC_STACK, 50, 0x7000000, 0x800000, 0, 0);
	o = hws_objects__new(p.buf, p.len);
	__T("index built", o != NULL);
	if (!o)
		return;
	T_EQ_U64("objects (A B C D E anon file stack)", hws_objects__nr_objects(o), 8);
	T_EQ_U64("bad: unknown type and size 0", hws_objects__nr_bad(o), 2);
	T_EQ_U64("before A", site_at(o, 100, 0x1010, 99), 0);
	T_EQ_U64("A at its allocation", site_at(o, 100, 0x1010, 100), 0xa1);
	T_EQ_U64("A live", site_at(o, 100, 0x10ff, 199), 0xa1);
	T_EQ_U64("A freed at 200", site_at(o, 100, 0x1010, 200), 0);
	T_EQ_U64("between A and B", site_at(o, 100, 0x1010, 299), 0);
	T_EQ_U64("B reuses the address", site_at(o, 100, 0x1010, 300), 0xa2);
	T_EQ_U64("B is smaller than A was", site_at(o, 100, 0x1090, 300), 0);
	T_EQ_U64("B never freed", site_at(o, 100, 0x1000, UINT64_MAX - 1), 0xa2);
	T_EQ_U64("other pid", site_at(o, 101, 0x1010, 150), 0);
	T_EQ_U64("C before realloc", site_at(o, 100, 0x5800, 399), 0xc1);
	T_EQ_U64("C gone after realloc", site_at(o, 100, 0x5800, 400), 0);
	T_EQ_U64("D from realloc", site_at(o, 100, 0x9000 + 0x1fff, 400), 0xc2);
	T_EQ_U64("D's end is outside", site_at(o, 100, 0x9000 + 0x2000, 400), 0);
	__T("E lookup", hws_objects__lookup(o, 100, 0x2fff0, 501, &ob));
	T_EQ_U64("E kind", ob.kind, HWS_OBJ_HEAP);
	T_EQ_U64("E offset", ob.offset, 0xfff0);
	T_EQ_U64("E size", ob.size, 0x10000);
	T_EQ_U64("E base", ob.base, 0x20000);
	T_EQ_U64("E tid", ob.tid, 7);
	T_EQ_U64("E time", ob.time, 500);
	__T("anon map", hws_objects__lookup(o, 100, 0x101000, 650, &ob) && ob.kind == HWS_OBJ_ANON);
	T_EQ_U64("anon map unmapped at 700", site_at(o, 100, 0x101000, 700), 0);
	__T("file map", hws_objects__lookup(o, 100, 0x201000, 800, &ob) && ob.kind == HWS_OBJ_MMAP);
	__T("stack", hws_objects__lookup(o, 100, 0x7100000, 5, &ob) && ob.kind == HWS_OBJ_STACK &&
			 ob.nframes == 0 && ob.tid == 7);
	hws_objects__delete(o);
	free(p.buf);
}

static void test_nested_exec_fork(void)
{
	struct pay p = {0};
	struct hws_objects *o;

	/* pid 200: an anon mapping with a block inside it (a custom allocator), then exec */
	file(&p, 200, 1, 10);
	rec(&p, HWS_OBJREC_MMAP, 20, 0x400000, 0x100000, (uint64_t)0x22 << 32 | 0xffffffffu, 0xe1);
	rec(&p, HWS_OBJREC_ALLOC, 30, 0x410000, 0x1000, 0, 0xe2);
	rec(&p, HWS_OBJREC_ALLOC, 40, 0x800000, 0x1000, 0, 0xe3);
	rec(&p, HWS_OBJREC_ALLOC, 80, 0xa00000, 0x1000, 0, 0xe5); /* after the fork */
	/* its child 300, forked at 50, allocates its own block later */
	file(&p, 300, 200, 50);
	rec(&p, HWS_OBJREC_ALLOC, 60, 0x900000, 0x1000, 0, 0xf1);
	/* pid 200 execs at 1000 */
	file(&p, 200, 1, 1000);
	rec(&p, HWS_OBJREC_ALLOC, 1100, 0x410000, 0x800, 0, 0xe4);
	o = hws_objects__new(p.buf, p.len);
	__T("index built", o != NULL);
	if (!o)
		return;
	T_EQ_U64("the smallest object wins", site_at(o, 200, 0x410010, 35), 0xe2);
	T_EQ_U64("the mapping around it", site_at(o, 200, 0x420000, 35), 0xe1);
	T_EQ_U64("before exec", site_at(o, 200, 0x800010, 999), 0xe3);
	T_EQ_U64("exec ended the old image's block", site_at(o, 200, 0x800010, 1000), 0);
	T_EQ_U64("exec ended the old mapping", site_at(o, 200, 0x420000, 1000), 0);
	T_EQ_U64("the new image's block", site_at(o, 200, 0x410010, 1100), 0xe4);
	T_EQ_U64("child: its own block", site_at(o, 300, 0x900010, 70), 0xf1);
	T_EQ_U64("child: the parent's block at the fork", site_at(o, 300, 0x800010, 70), 0xe3);
	T_EQ_U64("child: the parent's block as at the fork, after the parent's exec too",
		 site_at(o, 300, 0x410010, 1200), 0xe2);
	T_EQ_U64("child: not a parent block allocated after the fork",
		 site_at(o, 300, 0xa00010, 90), 0);
	T_EQ_U64("parent: that block", site_at(o, 200, 0xa00010, 90), 0xe5);
	hws_objects__delete(o);
	free(p.buf);
}

static void test_damaged(void)
{
	struct pay p = {0};
	struct hws_objects *o;
	size_t full;

	file(&p, 1, 0, 0);
	rec(&p, HWS_OBJREC_ALLOC, 1, 0x1000, 0x100, 0, 0x11);
	rec(&p, HWS_OBJREC_ALLOC, 2, 0x2000, 0x100, 0, 0x12);
	full = p.len;
	/* cut in the second record: the first is kept */
	o = hws_objects__new(p.buf, full - 10);
	__T("cut: index", o != NULL);
	T_EQ_U64("cut: first record kept", site_at(o, 1, 0x1000, 5), 0x11);
	T_EQ_U64("cut: second record gone", site_at(o, 1, 0x2000, 5), 0);
	__T("cut: counted", hws_objects__nr_bad(o) > 0);
	hws_objects__delete(o);
	/* bad magic: nothing */
	p.buf[0] ^= 0xff;
	o = hws_objects__new(p.buf, full);
	__T("bad magic: index",
	    o != NULL && hws_objects__nr_objects(o) == 0 && hws_objects__nr_bad(o) == 1);
	hws_objects__delete(o);
	p.buf[0] ^= 0xff;
	/* used beyond capacity: only the capacity's records */
	((struct hws_objfile *)p.buf)->capacity = sizeof(struct hws_objrec);
	((struct hws_objfile *)p.buf)->dropped = 3;
	o = hws_objects__new(p.buf, full);
	T_EQ_U64("capacity: one object", hws_objects__nr_objects(o), 1);
	T_EQ_U64("capacity: dropped counted", hws_objects__nr_dropped(o), 3);
	hws_objects__delete(o);
	/* empty and NULL */
	o = hws_objects__new(NULL, 0);
	__T("empty index", o && hws_objects__nr_objects(o) == 0 && !site_at(o, 1, 0x1000, 5));
	hws_objects__delete(o);
	hws_objects__delete(NULL);
	free(p.buf);
}

static void test_json(void)
{
	struct pay p = {0};
	struct hws_objects *o;
	struct hws_object ob;
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	struct hws_sample s;

	file(&p, 5, 0, 0);
	rec(&p, HWS_OBJREC_ALLOC, 10, 0x4000, 4096, 0, 0x401234);
	o = hws_objects__new(p.buf, p.len);
	memset(&s, 0, sizeof(s));
	s.fields = HWS_SF_ADDR | HWS_SF_TIME;
	s.pid = 5;
	s.addr = 0x4010;
	s.time = 20;
	__T("attribute without symbols", hws_objects__attribute(o, NULL, &s, &ob));
	__T("json", !hws_object__json(&ob, NULL, 5, &sb));
	T_EQ_STR("json text", sb.buf,
		 ",\"object\":{\"kind\":\"heap\",\"site\":\"0x401234\",\"size\":4096,"
		 "\"offset\":16,\"base\":\"0x4000\"}");
	s.fields = HWS_SF_TIME;
	__T("no address: nothing",
	    !hws_objects__attribute(o, NULL, &s, &ob) && ob.kind == HWS_OBJ_NONE);
	T_EQ_STR("kind names", hws_object__kind_name(HWS_OBJ_ANON), "anon");
	T_EQ_STR("kind name of none", hws_object__kind_name(HWS_OBJ_NONE), "");
	T_EQ_STR("kind name out of range", hws_object__kind_name(42), "");
	hws_strbuf__release(&sb);
	hws_objects__delete(o);
	free(p.buf);
}

static void test_ticks(void)
{
	struct pay p = {0};
	struct hws_objects *o;
	struct hws_objfile *fh;

	/* pairs (tick, ns): (1000, 5000) header, (3000, 6000), (5000, 8000) */
	file(&p, 9, 1, 5000);
	fh = (struct hws_objfile *)(p.buf + p.hdr);
	fh->tsc0 = 1000;
	fh->tsc_hz = 2000000000;
	rec(&p, HWS_OBJREC_ALLOC, 2000, 0x1000, 0x100, 0, 0xa1); /* 5500 ns */
	rec(&p, HWS_OBJREC_FREE, 4000, 0x1000, 0, 0, 0);	 /* 7000 ns */
	rec(&p, HWS_OBJREC_CLOCK, 6000, 3000, 0, 0, 0);
	rec(&p, HWS_OBJREC_ALLOC, 7000, 0x2000, 0x100, 0, 0xb1); /* 8000 + 2000 * 0.75 */
	rec(&p, HWS_OBJREC_CLOCK, 8000, 5000, 0, 0, 0);
	/* one pair: the header's rate, 1 ns per tick */
	file(&p, 10, 1, 50);
	fh = (struct hws_objfile *)(p.buf + p.hdr);
	fh->tsc0 = 100;
	fh->tsc_hz = 1000000000;
	rec(&p, HWS_OBJREC_ALLOC, 600, 0x1000, 0x100, 0, 0xc1); /* 550 ns */
	o = hws_objects__new(p.buf, p.len);
	__T("ticks: index", o != NULL);
	T_EQ_U64("ticks: before the alloc", site_at(o, 9, 0x1000, 5499), 0);
	T_EQ_U64("ticks: alloc between pairs 1, 2", site_at(o, 9, 0x1000, 5500), 0xa1);
	T_EQ_U64("ticks: before the free", site_at(o, 9, 0x1000, 6999), 0xa1);
	T_EQ_U64("ticks: free between pairs 2, 3", site_at(o, 9, 0x1000, 7000), 0);
	T_EQ_U64("ticks: past the last pair (slope of all)", site_at(o, 9, 0x2000, 9499), 0);
	T_EQ_U64("ticks: past the last pair, at", site_at(o, 9, 0x2000, 9500), 0xb1);
	T_EQ_U64("ticks: one pair, header rate, before", site_at(o, 10, 0x1000, 549), 0);
	T_EQ_U64("ticks: one pair, header rate, at", site_at(o, 10, 0x1000, 550), 0xc1);
	T_EQ_U64("ticks: clock records are no objects", hws_objects__nr_objects(o), 3);
	hws_objects__delete(o);
	free(p.buf);
}

/* four frees in one record, a second with one; a count past four is damage */
static void test_frees(void)
{
	struct pay p = {0};
	struct hws_objects *o;
	struct hws_objrec r;
	uint64_t w[8] = {20, 0x1000, 30, 0x2000, 40, 0x3000, 50, 0x4000};
	struct hws_objfile *fh;

	file(&p, 12, 1, 0);
	for (uint64_t i = 0; i < 5; i++)
		rec(&p, HWS_OBJREC_ALLOC, 10, 0x1000 * (i + 1), 0x100, 0, 0xa0 + i);
	memset(&r, 0, sizeof(r));
	r.type = HWS_OBJREC_FREES;
	r.nframes = 4;
	memcpy((uint8_t *)&r + offsetof(struct hws_objrec, time), w, sizeof(w));
	put(&p, &r, sizeof(r));
	r.nframes = 1;
	r.time = 60;
	r.addr = 0x5000;
	put(&p, &r, sizeof(r));
	r.nframes = 5; /* damaged */
	put(&p, &r, sizeof(r));
	fh = (struct hws_objfile *)(p.buf + p.hdr);
	fh->used += 3 * sizeof(r);
	o = hws_objects__new(p.buf, p.len);
	__T("frees: index", o != NULL);
	for (uint64_t i = 0; i < 5; i++) {
		T_EQ_U64("frees: alive before its free",
			 site_at(o, 12, 0x1000 * (i + 1) + 8, 19 + 10 * i), 0xa0 + i);
		T_EQ_U64("frees: gone at its free",
			 site_at(o, 12, 0x1000 * (i + 1) + 8, 20 + 10 * i), 0);
	}
	T_EQ_U64("frees: a count past four is counted bad", hws_objects__nr_bad(o), 1);
	hws_objects__delete(o);
	free(p.buf);
}

/* ALLOCS records (two blocks each) referring to SITE records by number, the sites written
 * after the records that use them (another thread's chunk), one site missing */
static void test_allocs(void)
{
	struct pay p = {0};
	struct hws_objects *o;
	struct hws_objrec r;
	struct hws_object ob;
	struct hws_objfile *fh;
	/* (time, addr, size, fn << 32 | site) x 2 */
	uint64_t w[8] = {10, 0x1000, 0x100, 7,
			 20, 0x2000, 0x200, (uint64_t)HWS_OBJFN_CALLOC << 32 | 9};

	file(&p, 13, 1, 0);
	memset(&r, 0, sizeof(r));
	r.type = HWS_OBJREC_ALLOCS;
	r.tid = 5;
	r.nframes = 2;
	memcpy((uint8_t *)&r + offsetof(struct hws_objrec, time), w, sizeof(w));
	put(&p, &r, sizeof(r));
	r.nframes = 1; /* one block: its second slot's words are not read */
	r.time = 30;
	r.addr = 0x3000;
	r.size = 0x300;
	r.old = 4; /* no such site */
	put(&p, &r, sizeof(r));
	r.nframes = 3; /* damaged */
	put(&p, &r, sizeof(r));
	for (uint64_t id = 9; id >= 7; id -= 2) {
		memset(&r, 0, sizeof(r));
		r.type = HWS_OBJREC_SITE;
		r.addr = id;
		r.nframes = 2;
		r.frames[0] = 0xa0 + id;
		r.frames[1] = 0xb0 + id;
		put(&p, &r, sizeof(r));
	}
	rec(&p, HWS_OBJREC_FREE, 25, 0x1000, 0, 0, 0);
	fh = (struct hws_objfile *)(p.buf + p.hdr);
	fh->used += 5 * sizeof(r);
	o = hws_objects__new(p.buf, p.len);
	__T("allocs: index", o != NULL);
	if (!o)
		return;
	T_EQ_U64("allocs: three blocks, no object for a SITE", hws_objects__nr_objects(o), 3);
	T_EQ_U64("allocs: a count past two is counted bad", hws_objects__nr_bad(o), 1);
	T_EQ_U64("allocs: first block's site", site_at(o, 13, 0x10ff, 24), 0xa7);
	T_EQ_U64("allocs: first block freed", site_at(o, 13, 0x1000, 25), 0);
	T_EQ_U64("allocs: before its time", site_at(o, 13, 0x2000, 19), 0);
	__T("allocs: second block", hws_objects__lookup(o, 13, 0x21ff, 20, &ob) &&
					ob.kind == HWS_OBJ_HEAP && ob.nframes == 2 &&
					ob.frames[0] == 0xa9 && ob.frames[1] == 0xb9 &&
					ob.size == 0x200 && ob.tid == 5);
	T_EQ_U64("allocs: second block's end", site_at(o, 13, 0x2200, 20), 0);
	T_EQ_U64("allocs: a block of a missing site has no frames", site_at(o, 13, 0x3000, 30),
		 ~0ULL);
	hws_objects__delete(o);
	free(p.buf);
}

static void test_tls(void)
{
	struct pay p = {0};
	struct hws_objects *o;
	struct hws_object ob;
	struct hws_sample s = {0};

	file(&p, 11, 1, 0);
	rec(&p, HWS_OBJREC_TLS, 10, 0x8000, 0x100, 0x1234, 0); /* a thread's block */
	rec(&p, HWS_OBJREC_TLS, 30, 0x8000, 0x100, 0x1234, 0); /* the next thread's, same place */
	rec(&p, HWS_OBJREC_FREE, 40, 0x8000, 0, 0, 0);	       /* it returned */
	o = hws_objects__new(p.buf, p.len);
	__T("tls: index", o != NULL);
	__T("tls: block", hws_objects__lookup(o, 11, 0x8010, 20, &ob) && ob.kind == HWS_OBJ_TLS &&
			      ob.base == 0x8000 && ob.size == 0x100 && ob.offset == 0x10 &&
			      !ob.nframes);
	__T("tls: the next thread's block",
	    hws_objects__lookup(o, 11, 0x80ff, 35, &ob) && ob.kind == HWS_OBJ_TLS && ob.time == 30);
	__T("tls: ended by the free", !hws_objects__lookup(o, 11, 0x8010, 40, &ob));
	__T("tls: before it", !hws_objects__lookup(o, 11, 0x8010, 9, &ob));
	s.fields = HWS_SF_ADDR | HWS_SF_TIME;
	s.pid = 11;
	s.addr = 0x8020;
	s.time = 15;
	__T("tls: attributed without symbols (the block)",
	    hws_objects__attribute(o, NULL, &s, &ob) && ob.kind == HWS_OBJ_TLS && !ob.name &&
		ob.size == 0x100 && ob.offset == 0x20);
	T_EQ_STR("tls: kind name", hws_object__kind_name(HWS_OBJ_TLS), "tls");
	hws_objects__delete(o);
	free(p.buf);
}

int main(void)
{
	test_lifetimes();
	test_nested_exec_fork();
	test_damaged();
	test_json();
	test_ticks();
	test_frees();
	test_allocs();
	test_tls();
	printf("%d checks, %d failed\n", tests_run, tests_failed);
	return tests_failed != 0;
}
