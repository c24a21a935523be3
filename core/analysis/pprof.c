// SPDX-License-Identifier: MIT
/*
 * pprof profiles of decoded samples (see include/hwsample/convert.h).
 *
 * Per sample: a hash lookup per frame ((process, address) -> location), one for the stack
 * (the list of location numbers) and one for the pprof sample (stack + labels), then three
 * additions; no symbol lookup, no allocation but table growth (with opts.object_labels and
 * opts.types: the data address's object, the access's type, cached per instruction by
 * struct hws_datatypes, and the strings of the last type kept). At hws_pprof__write() each
 * location is symbolized once, functions and mappings are made from the answers, the
 * protobuf-c messages (C that protoc-c generates from profile.proto at build time) are
 * filled and packed straight into zlib's gzip stream, written to the descriptor in 64 KiB
 * pieces. No protobuf encoding is done by hand.
 *
 * Invariants:
 *  - every table is a dense array in insertion order plus an open-addressing index whose
 *    slots hold (32-bit hash << 32 | index + 1), 0 empty, power-of-two size at most 3/4
 *    full; growing rehashes from the slots alone;
 *  - string 0 is "" (the format's rule); strings are copied, never freed before __delete;
 *  - location, function and mapping ids written are their index + 1 (ids are non-zero);
 *  - a stack holds location indexes, leaf first; kernel addresses are keyed with pid
 *    UINT32_MAX so they merge across processes;
 *  - the protobuf-c structs built by write() point into these tables and into arrays
 *    freed before write() returns: nothing of them outlives the call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include <hwsample/convert.h>
#include <hwsample/datatype.h>
#include <hwsample/objects.h>
#include <hwsample/symbols.h>

#include "profile.pb-c.h"
#include "util/internal.h"

#define KPID	 UINT32_MAX
#define TYC_SIZE 256  /* data types whose label strings are kept (direct-mapped) */
#define IPC_SIZE 4096 /* instructions whose data type is kept (direct-mapped) */

/* open-addressing index of a dense array */
struct htab {
	uint64_t *slot;
	uint32_t mask, n;
};

struct loc {
	uint64_t ip;
	uint32_t pid;  /* key: the process, KPID for kernel addresses */
	uint32_t rpid; /* the process to resolve in (first seen) */
	uint8_t data;  /* a data address (opts.data_frames) */
	uint8_t inl;   /* a frame showing its inline stack (opts.inline_mode) met it */
};

struct stk {
	uint32_t off, len; /* in stack_pool */
};

/* what makes two pprof samples one: no padding, compared with memcmp */
struct skey {
	uint32_t stack, pid, tid, cpu, comm, event, object, type, typeoff;
	uint8_t op, lvl, snoop, tlb;
	uint32_t have; /* L_* bits: the labels this sample has */
};

struct psample {
	struct skey k;
	int64_t count, period, lat;
};

enum {
	L_PID = 1U << 0, /* and tid */
	L_CPU = 1U << 1,
	L_COMM = 1U << 2,
	L_EVENT = 1U << 3,
	L_OP = 1U << 4,
	L_DSRC = 1U << 5, /* mem_level, snoop, tlb */
	L_OBJECT = 1U << 6,
	L_TYPE = 1U << 7, /* type and typeoff */
	NR_LABELS = 12,
};

/* strings every profile has, interned first in this order */
enum {
	S_EMPTY,
	S_SAMPLES,
	S_COUNT,
	S_EVENT,
	S_LATENCY,
	S_CYCLES,
	S_PID,
	S_TID,
	S_CPU,
	S_COMM,
	S_OP,
	S_MEM_LEVEL,
	S_SNOOP,
	S_TLB,
	S_ID,
	S_OBJECT,
	S_TYPE,
	S_TYPEOFF,
	S__FIXED,
};
static const char *const fixed_str[S__FIXED] = {
    "",	    "samples", "count",	    "event", "latency", "cycles", "pid",    "tid",  "cpu",
    "comm", "op",      "mem_level", "snoop", "tlb",	"id",	  "object", "type", "typeoff",
};

struct hws_pprof {
	struct hws_pprof_opts o;
	char **str;
	uint32_t nstr, capstr;
	struct htab stab;
	struct loc *loc;
	uint32_t nloc, caploc;
	struct htab ltab;
	uint32_t *pool; /* stacks' location indexes */
	size_t npool, cappool;
	struct stk *stk;
	uint32_t nstk, capstk;
	struct htab ktab;
	struct psample *smp;
	uint32_t nsmp, capsmp;
	struct htab ptab;
	uint32_t *frames; /* the sample being added */
	uint32_t capframes;
	uint32_t comment; /* string, 0: none */
	bool have_lat;
	uint64_t t_first, t_last;
	/* caches of the last comm and event strings */
	uint32_t comm_tid, comm_sid; /* the last sample's thread and its comm's string */
	const char *ev_ptr;
	uint32_t ev_sid;
	/* the labels of recent data types: the type's strings are opts.types' (stable) */
	struct tycache {
		const char *name, *field;
		int64_t offset;
		bool pseudo;
		uint32_t sid, off_sid; /* 0: empty */
	} tyc[TYC_SIZE];
	struct hws_strbuf ty_sb;
	/* the type labels of recent (pid, ip)s: IPC_INSN, the instruction's own answer (no
	 * data address needed: hws_datatypes__find() looks at it only when the instruction
	 * has none); IPC_ADDR, none without the data address (looked up per sample) */
	struct ipcache {
		uint64_t ip;
		uint32_t pid, sid, off_sid; /* sid 0: no type */
		uint8_t state;		    /* 0 (empty), IPC_INSN, IPC_ADDR */
	} ipc[IPC_SIZE];
	struct hws_pprof_stats st;
};

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint32_t hash_bytes(const void *buf, size_t len)
{
	const unsigned char *b = buf;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;

	for (; len >= 8; len -= 8, b += 8) {
		uint64_t w;
		memcpy(&w, b, 8);
		h = mix64(h ^ w);
	}
	if (len) {
		uint64_t w = 0;
		memcpy(&w, b, len);
		h = mix64(h ^ w ^ 0x5bd1e995);
	}
	return (uint32_t)h;
}

static int ht_grow(struct htab *t)
{
	uint32_t size = t->slot ? (t->mask + 1) * 2 : 1024;
	uint64_t *s;

	if (t->slot && (uint64_t)(t->n + 1) * 4 <= (uint64_t)(t->mask + 1) * 3)
		return 0;
	if (!size)
		return -ENOMEM;
	s = calloc(size, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; t->slot && i <= t->mask; i++) {
		uint64_t v = t->slot[i];
		uint32_t j = (uint32_t)(v >> 32) & (size - 1);

		if (!v)
			continue;
		while (s[j])
			j = (j + 1) & (size - 1);
		s[j] = v;
	}
	free(t->slot);
	t->slot = s;
	t->mask = size - 1;
	return 0;
}

/* grow array *@a of *@cap elements of @esz bytes to hold @need */
static int grow(void *a, size_t esz, size_t need, void *capp, bool cap32)
{
	size_t cap = cap32 ? *(uint32_t *)capp : *(size_t *)capp, n;
	void *na;

	if (need <= cap)
		return 0;
	n = cap ? cap * 2 : 256;
	while (n < need)
		n *= 2;
	if (cap32 && n > UINT32_MAX)
		return -ENOMEM;
	na = realloc(*(void **)a, n * esz);
	if (!na)
		return -ENOMEM;
	*(void **)a = na;
	if (cap32)
		*(uint32_t *)capp = (uint32_t)n;
	else
		*(size_t *)capp = n;
	return 0;
}

/* ------------------------------------------------------------------ strings */

static int64_t intern_n(struct hws_pprof *p, const char *s, size_t len)
{
	uint32_t h = hash_bytes(s, len), j;
	char *c;

	if (ht_grow(&p->stab))
		return -ENOMEM;
	for (j = h & p->stab.mask; p->stab.slot[j]; j = (j + 1) & p->stab.mask) {
		uint64_t v = p->stab.slot[j];
		const char *o = p->str[(uint32_t)v - 1];

		if ((uint32_t)(v >> 32) == h && !strncmp(o, s, len) && !o[len])
			return (uint32_t)v - 1;
	}
	if (grow(&p->str, sizeof(*p->str), (size_t)p->nstr + 1, &p->capstr, true))
		return -ENOMEM;
	c = malloc(len + 1);
	if (!c)
		return -ENOMEM;
	memcpy(c, s, len);
	c[len] = '\0';
	p->str[p->nstr++] = c;
	p->stab.slot[j] = (uint64_t)h << 32 | p->nstr;
	p->stab.n++;
	return p->nstr - 1;
}

static int64_t intern(struct hws_pprof *p, const char *s)
{
	return intern_n(p, s, strlen(s));
}

/* ------------------------------------------------------------------ adding samples */

struct hws_pprof *hws_pprof__new(const struct hws_pprof_opts *opts)
{
	struct hws_pprof *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return NULL;
	err = HWS_OPTS_GET(p->o, opts, hws_pprof_opts);
	if (err) {
		free(p);
		return errno = -err, NULL;
	}
	p->o.comment = NULL; /* the caller's string: copied below */
	for (int i = 0; i < S__FIXED; i++) {
		if (intern(p, fixed_str[i]) != i) {
			hws_pprof__delete(p);
			return errno = ENOMEM, NULL;
		}
	}
	if (opts && opts->comment && opts->comment[0]) {
		int64_t c = intern(p, opts->comment);
		if (c < 0) {
			hws_pprof__delete(p);
			return errno = ENOMEM, NULL;
		}
		p->comment = (uint32_t)c;
	}
	p->comm_tid = KPID;
	return p;
}

void hws_pprof__delete(struct hws_pprof *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->nstr; i++)
		free(p->str[i]);
	free(p->str);
	free(p->stab.slot);
	free(p->loc);
	free(p->ltab.slot);
	free(p->pool);
	free(p->stk);
	free(p->ktab.slot);
	free(p->smp);
	free(p->ptab.slot);
	free(p->frames);
	hws_strbuf__release(&p->ty_sb);
	free(p);
}

/* location index of (@pid, @ip, @data), added when new; -ENOMEM */
static int64_t loc_of(struct hws_pprof *p, uint32_t pid, uint64_t ip, bool data, bool kernel)
{
	uint32_t kpid = kernel && !data ? KPID : pid, h, j;
	struct loc *l;

	h = (uint32_t)mix64(ip ^ ((uint64_t)kpid << 32 | data) * 0x9e3779b97f4a7c15ULL);
	if (ht_grow(&p->ltab))
		return -ENOMEM;
	for (j = h & p->ltab.mask; p->ltab.slot[j]; j = (j + 1) & p->ltab.mask) {
		uint64_t v = p->ltab.slot[j];

		if ((uint32_t)(v >> 32) != h)
			continue;
		l = &p->loc[(uint32_t)v - 1];
		if (l->ip == ip && l->pid == kpid && l->data == data)
			return (uint32_t)v - 1;
	}
	if (grow(&p->loc, sizeof(*p->loc), (size_t)p->nloc + 1, &p->caploc, true))
		return -ENOMEM;
	l = &p->loc[p->nloc++];
	*l = (struct loc){.ip = ip, .pid = kpid, .rpid = pid, .data = data};
	p->ltab.slot[j] = (uint64_t)h << 32 | p->nloc;
	p->ltab.n++;
	return p->nloc - 1;
}

static int64_t stack_of(struct hws_pprof *p, const uint32_t *f, uint32_t n)
{
	uint32_t h = hash_bytes(f, (size_t)n * sizeof(*f)), j;
	struct stk *k;

	if (ht_grow(&p->ktab))
		return -ENOMEM;
	for (j = h & p->ktab.mask; p->ktab.slot[j]; j = (j + 1) & p->ktab.mask) {
		uint64_t v = p->ktab.slot[j];

		if ((uint32_t)(v >> 32) != h)
			continue;
		k = &p->stk[(uint32_t)v - 1];
		if (k->len == n && !memcmp(p->pool + k->off, f, (size_t)n * sizeof(*f)))
			return (uint32_t)v - 1;
	}
	if (p->npool + n > UINT32_MAX ||
	    grow(&p->pool, sizeof(*p->pool), p->npool + n, &p->cappool, false) ||
	    grow(&p->stk, sizeof(*p->stk), (size_t)p->nstk + 1, &p->capstk, true))
		return -ENOMEM;
	k = &p->stk[p->nstk++];
	k->off = (uint32_t)p->npool;
	k->len = n;
	if (n)
		memcpy(p->pool + p->npool, f, (size_t)n * sizeof(*f));
	p->npool += n;
	p->ktab.slot[j] = (uint64_t)h << 32 | p->nstk;
	p->ktab.n++;
	return p->nstk - 1;
}

static int64_t sample_of(struct hws_pprof *p, const struct skey *key)
{
	uint32_t h = hash_bytes(key, sizeof(*key)), j;
	struct psample *ps;

	if (ht_grow(&p->ptab))
		return -ENOMEM;
	for (j = h & p->ptab.mask; p->ptab.slot[j]; j = (j + 1) & p->ptab.mask) {
		uint64_t v = p->ptab.slot[j];

		if ((uint32_t)(v >> 32) == h &&
		    !memcmp(&p->smp[(uint32_t)v - 1].k, key, sizeof(*key)))
			return (uint32_t)v - 1;
	}
	if (grow(&p->smp, sizeof(*p->smp), (size_t)p->nsmp + 1, &p->capsmp, true))
		return -ENOMEM;
	ps = &p->smp[p->nsmp++];
	memset(ps, 0, sizeof(*ps));
	ps->k = *key;
	p->ptab.slot[j] = (uint64_t)h << 32 | p->nsmp;
	p->ptab.n++;
	return p->nsmp - 1;
}

static bool kernel_frame(const struct hws_frame *f)
{
	if (f->ctx == HWS_CTX_KERNEL || f->ctx == HWS_CTX_GUEST_KERNEL)
		return true;
	return f->ctx == HWS_CTX_UNKNOWN && (int64_t)f->ip < 0;
}

static int add_frame(struct hws_pprof *p, uint32_t *n, uint32_t pid, uint64_t ip, bool data,
		     bool kernel)
{
	int64_t l;

	if (grow(&p->frames, sizeof(*p->frames), (size_t)*n + 1, &p->capframes, true))
		return -ENOMEM;
	l = loc_of(p, pid, ip, data, kernel);
	if (l < 0)
		return (int)l;
	p->frames[(*n)++] = (uint32_t)l;
	return 0;
}

/* the location just added by add_frame() shows its inline stack */
static void mark_inline(struct hws_pprof *p, uint32_t n)
{
	p->loc[p->frames[n - 1]].inl = 1;
}

/* the "object" label of @s's data address: its string id, 0 if none, < 0 on error */
static int64_t object_label(struct hws_pprof *p, const struct hws_sample *s)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	struct hws_object o;
	int64_t id;
	int err;

	if (!hws_objects__attribute(p->o.objects, p->o.syms, s, &o))
		return 0;
	err = hws_object__label(&o, p->o.syms, s->pid, false, &sb);
	id = err ? -ENOMEM : intern(p, sb.buf ? sb.buf : "");
	hws_strbuf__release(&sb);
	return id;
}

enum { IPC_INSN = 1, IPC_ADDR = 2 };

/* the label strings of type @t: *@sid and *@off_sid, or -ENOMEM */
static int type_strings(struct hws_pprof *p, const struct hws_datatype *t, uint32_t *sid,
			uint32_t *off_sid)
{
	struct tycache *c = &p->tyc[mix64((uintptr_t)t->name ^ (uint64_t)(uintptr_t)t->field << 1 ^
					  (uint64_t)t->offset << 20 ^ t->pseudo) &
				    (TYC_SIZE - 1)];
	int64_t id, off;

	if (!c->sid || t->name != c->name || t->field != c->field || t->offset != c->offset ||
	    t->pseudo != c->pseudo) {
		hws_strbuf__reset(&p->ty_sb);
		id = hws_datatype__format(t, false, &p->ty_sb) ? -ENOMEM : intern(p, p->ty_sb.buf);
		if (id < 0)
			return -ENOMEM;
		hws_strbuf__reset(&p->ty_sb);
		off = hws_datatype__format(t, true, &p->ty_sb) ? -ENOMEM : intern(p, p->ty_sb.buf);
		if (off < 0)
			return -ENOMEM;
		c->name = t->name;
		c->field = t->field;
		c->offset = t->offset;
		c->pseudo = t->pseudo;
		c->sid = (uint32_t)id;
		c->off_sid = (uint32_t)off;
	}
	*sid = c->sid;
	*off_sid = c->off_sid;
	return 0;
}

/* the "type" and "typeoff" labels of @s's access into @k (perf's --sort type,typeoff
 * columns, hws_objects__sample_type() as report), when opts.types finds its type: 0, or
 * -ENOMEM. One location per (pid, ip)
 * (the profile's own rule) is one instruction: its answer is kept when it needs no data
 * address. */
static int type_labels(struct hws_pprof *p, const struct hws_sample *s, struct skey *k)
{
	uint32_t pid = s->fields & HWS_SF_PID ? s->pid : 0;
	struct ipcache *c = &p->ipc[mix64(s->ip ^ (uint64_t)pid << 48) & (IPC_SIZE - 1)];
	struct hws_datatype t;
	int err;

	if (c->state && c->ip == s->ip && c->pid == pid) {
		if (c->state == IPC_INSN) {
			if (c->sid) {
				k->have |= L_TYPE;
				k->type = c->sid;
				k->typeoff = c->off_sid;
			}
			return 0;
		}
		err = hws_objects__sample_type(p->o.objects, NULL, p->o.types, p->o.syms, s, &t);
	} else {
		struct hws_sample insn = *s;

		insn.fields &= ~HWS_SF_ADDR;
		err = hws_datatypes__resolve(p->o.types, p->o.syms, &insn, &t);
		if (err < 0)
			return err;
		c->ip = s->ip;
		c->pid = pid;
		c->sid = c->off_sid = 0;
		c->state = err ? IPC_INSN : IPC_ADDR;
		if (err && type_strings(p, &t, &c->sid, &c->off_sid)) {
			c->state = 0;
			return -ENOMEM;
		}
		if (!err) /* the data address may name a global, or a heap block its site's type */
			err = hws_objects__sample_type(p->o.objects, NULL, p->o.types, p->o.syms, s,
						       &t);
	}
	if (err <= 0)
		return err;
	k->have |= L_TYPE;
	return type_strings(p, &t, &k->type, &k->typeoff);
}

int hws_pprof__add(struct hws_pprof *p, const struct hws_sample *s)
{
	struct skey k;
	uint32_t n = 0, pid = s->fields & HWS_SF_PID ? s->pid : 0;
	int64_t st, idx;
	struct psample *ps;
	int err;

	if (p->o.filter && !hws_filter__match(p->o.filter, p->o.syms, s)) {
		p->st.filtered++;
		return 0;
	}
	if (p->o.data_frames && (s->fields & HWS_SF_ADDR)) {
		err = add_frame(p, &n, pid, s->addr, true, false);
		if (err)
			return err;
	}
	if ((s->fields & HWS_SF_CALLCHAIN) && s->nr_callchain) {
		for (uint32_t i = 0; i < s->nr_callchain; i++) {
			const struct hws_frame *f = &s->callchain[i];

			/* inlined calls repeat the ip of the frame they are inlined into: the
			 * frame's location has them as lines (opts.inline_mode) */
			if (f->flags & HWS_FRAME_INLINED)
				continue;
			err = add_frame(p, &n, pid, f->ip, false, kernel_frame(f));
			if (err)
				return err;
			if (p->o.syms && p->o.inline_mode != HWS_INLINE_NONE &&
			    hws_inline__wanted(p->o.inline_mode, f->flags, f->ctx))
				mark_inline(p, n);
		}
	} else if (s->fields & HWS_SF_IP) {
		bool kernel = (int64_t)s->ip < 0;

		err = add_frame(p, &n, pid, s->ip, false, kernel);
		if (err)
			return err;
	}
	st = stack_of(p, p->frames, n);
	if (st < 0)
		return (int)st;

	memset(&k, 0, sizeof(k));
	k.stack = (uint32_t)st;
	if (s->fields & HWS_SF_PID) {
		k.have |= L_PID;
		k.pid = s->pid;
		k.tid = s->tid;
		if (p->o.syms) {
			const char *c = hws_symbols__sample_comm(p->o.syms, s); /* as perf */

			if (c && !(p->comm_tid == s->tid && !strcmp(p->str[p->comm_sid], c))) {
				int64_t id = intern(p, c);
				if (id < 0)
					return (int)id;
				p->comm_tid = s->tid;
				p->comm_sid = (uint32_t)id;
			}
			if (c) {
				k.have |= L_COMM;
				k.comm = p->comm_sid;
			}
		}
	}
	if (s->fields & HWS_SF_CPU) {
		k.have |= L_CPU;
		k.cpu = s->cpu;
	}
	if (s->event) {
		if (s->event != p->ev_ptr || strcmp(p->str[p->ev_sid], s->event)) {
			int64_t id = intern(p, s->event);
			if (id < 0)
				return (int)id;
			p->ev_ptr = s->event;
			p->ev_sid = (uint32_t)id;
		}
		k.have |= L_EVENT;
		k.event = p->ev_sid;
	}
	if (s->fields & (HWS_SF_OP | HWS_SF_DATA_SRC)) {
		k.have |= L_OP;
		k.op = s->op;
	}
	if (s->fields & HWS_SF_DATA_SRC) {
		k.have |= L_DSRC;
		k.lvl = s->mem_level;
		k.snoop = s->snoop;
		k.tlb = s->tlb;
	}
	if (p->o.object_labels && (s->fields & HWS_SF_ADDR)) {
		int64_t id = object_label(p, s);

		if (id < 0)
			return (int)id;
		if (id > 0) {
			k.have |= L_OBJECT;
			k.object = (uint32_t)id;
		}
	}
	if (p->o.types && p->o.syms && (s->fields & HWS_SF_ADDR)) {
		err = type_labels(p, s, &k);
		if (err)
			return err;
	}
	idx = sample_of(p, &k);
	if (idx < 0)
		return (int)idx;
	ps = &p->smp[idx];
	ps->count++;
	ps->period += s->fields & HWS_SF_PERIOD ? (int64_t)s->period : 1;
	if (s->fields & HWS_SF_LAT_TOTAL) {
		ps->lat += s->lat_total;
		p->have_lat = true;
	}
	if (s->fields & HWS_SF_TIME) {
		if (!p->st.samples || s->time < p->t_first)
			p->t_first = s->time;
		if (s->time > p->t_last)
			p->t_last = s->time;
	}
	p->st.samples++;
	return 0;
}

int hws_pprof__sample_fn(void *ctx, const struct hws_sample *s)
{
	return hws_pprof__add(ctx, s) ? -ENOMEM : 0;
}

void hws_pprof__stats(const struct hws_pprof *p, struct hws_pprof_stats *st)
{
	*st = p->st;
	st->pprof_samples = p->nsmp;
	st->locations = p->nloc;
	st->strings = p->nstr;
}

/* ------------------------------------------------------------------ writing */

/* zlib's gzip stream behind protobuf-c's output buffer */
struct gzout {
	ProtobufCBuffer base;
	z_stream z;
	int fd, err;
	unsigned char out[65536];
};

static int write_all(int fd, const unsigned char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (!w)
			return -EIO;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static void gz_run(struct gzout *g, int flush)
{
	do {
		int rc;

		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		rc = deflate(&g->z, flush);
		if (rc == Z_STREAM_ERROR) {
			g->err = -EIO;
			return;
		}
		if (!g->err && g->z.avail_out < sizeof(g->out))
			g->err = write_all(g->fd, g->out, sizeof(g->out) - g->z.avail_out);
		if (g->err)
			return;
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && g->z.avail_in));
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct gzout *g = (struct gzout *)b;

	while (len && !g->err) {
		uInt n = len > (1U << 30) ? 1U << 30 : (uInt)len;

		g->z.next_in = (Bytef *)data;
		g->z.avail_in = n;
		gz_run(g, Z_NO_FLUSH);
		data += n;
		len -= n;
	}
}

/* the tables write() builds; freed by write_free() */
struct wbuf {
	Perftools__Profiles__ValueType vt[3], *pvt[3];
	Perftools__Profiles__Sample *smp, **psmp;
	int64_t *val;
	uint64_t *ids; /* location ids of every stack, in the stack pool's order */
	Perftools__Profiles__Label *lab, **plab;
	uint32_t nlab, caplab;
	struct htab labtab;
	Perftools__Profiles__Location *loc, **ploc;
	Perftools__Profiles__Line *line, **pline;
	void **xl; /* the lines of inline stacks: one block per location that has one */
	uint32_t nxl, capxl;
	Perftools__Profiles__Function *fn, **pfn;
	uint32_t nfn, capfn;
	struct htab fntab;
	Perftools__Profiles__Mapping *map, **pmap;
	uint32_t *map_of_dso; /* string index -> mapping index + 1 */
	uint32_t nmap, capmap;
	int64_t comment;
};

static void write_free(struct wbuf *w)
{
	free(w->smp);
	free(w->psmp);
	free(w->val);
	free(w->ids);
	free(w->lab);
	free(w->plab);
	free(w->labtab.slot);
	free(w->loc);
	free(w->ploc);
	free(w->line);
	free(w->pline);
	for (uint32_t i = 0; i < w->nxl; i++)
		free(w->xl[i]);
	free(w->xl);
	free(w->fn);
	free(w->pfn);
	free(w->fntab.slot);
	free(w->map);
	free(w->pmap);
	free(w->map_of_dso);
}

/* the label (@key, string @str or number @num): index into w->lab, or -ENOMEM */
static int64_t label_of(struct wbuf *w, int64_t key, int64_t str, int64_t num)
{
	uint64_t kv[3] = {(uint64_t)key, (uint64_t)str, (uint64_t)num};
	uint32_t h = hash_bytes(kv, sizeof(kv)), j;
	Perftools__Profiles__Label *l;

	if (ht_grow(&w->labtab))
		return -ENOMEM;
	for (j = h & w->labtab.mask; w->labtab.slot[j]; j = (j + 1) & w->labtab.mask) {
		uint64_t v = w->labtab.slot[j];

		if ((uint32_t)(v >> 32) != h)
			continue;
		l = &w->lab[(uint32_t)v - 1];
		if (l->key == key && l->str == str && l->num == num)
			return (uint32_t)v - 1;
	}
	if (grow(&w->lab, sizeof(*w->lab), (size_t)w->nlab + 1, &w->caplab, true))
		return -ENOMEM;
	l = &w->lab[w->nlab++];
	perftools__profiles__label__init(l);
	l->key = key;
	l->str = str;
	l->num = num;
	/* a number needs a unit: pprof readers drop a label with neither string nor a
	 * non-zero number (pid 0, cpu 0) */
	l->num_unit = str ? 0 : S_ID;
	w->labtab.slot[j] = (uint64_t)h << 32 | w->nlab;
	w->labtab.n++;
	return w->nlab - 1;
}

/* function (@name, @file): index into w->fn, or -ENOMEM */
static int64_t function_of(struct wbuf *w, int64_t name, int64_t file)
{
	uint64_t kv[2] = {(uint64_t)name, (uint64_t)file};
	uint32_t h = hash_bytes(kv, sizeof(kv)), j;
	Perftools__Profiles__Function *f;

	if (ht_grow(&w->fntab))
		return -ENOMEM;
	for (j = h & w->fntab.mask; w->fntab.slot[j]; j = (j + 1) & w->fntab.mask) {
		uint64_t v = w->fntab.slot[j];

		if ((uint32_t)(v >> 32) != h)
			continue;
		f = &w->fn[(uint32_t)v - 1];
		if (f->name == name && f->filename == file)
			return (uint32_t)v - 1;
	}
	if (grow(&w->fn, sizeof(*w->fn), (size_t)w->nfn + 1, &w->capfn, true))
		return -ENOMEM;
	f = &w->fn[w->nfn++];
	perftools__profiles__function__init(f);
	f->id = w->nfn;
	f->name = f->system_name = name;
	f->filename = file;
	w->fntab.slot[j] = (uint64_t)h << 32 | w->nfn;
	w->fntab.n++;
	return w->nfn - 1;
}

/*
 * The lines of location @i when it shows an inline stack (perf's, hws_symbols__inlines()):
 * one per entry, innermost first, as pprof represents inlining; an entry perf shows as the
 * frame itself is named @sym_name (the ELF symbol's). Return: 1 (set), 0 (no stack) or -ENOMEM.
 */
static int inline_lines(struct hws_pprof *p, struct wbuf *w, uint32_t i, int64_t *sym_name)
{
	const struct loc *l = &p->loc[i];
	Perftools__Profiles__Location *pl = &w->loc[i];
	const struct hws_inline_frame *in;
	Perftools__Profiles__Line *ln, **pln;
	int64_t ids[2 * 64];
	uint32_t lines[64];
	int n = hws_symbols__inlines(p->o.syms, l->rpid, l->ip, &in);

	if (n <= 0)
		return n < 0 ? n : 0;
	if (n > 64)
		n = 64;
	/* strings first: the entries are valid until the next lookup */
	for (int k = 0; k < n; k++) {
		lines[k] = in[k].line;
		ids[2 * k] = in[k].inlined ? intern(p, in[k].name) : *sym_name;
		ids[2 * k + 1] = in[k].srcfile ? intern(p, in[k].srcfile) : 0;
		if (ids[2 * k] < 0 || ids[2 * k + 1] < 0)
			return -ENOMEM;
	}
	if (grow(&w->xl, sizeof(*w->xl), (size_t)w->nxl + 1, &w->capxl, true))
		return -ENOMEM;
	ln = malloc((size_t)n * (sizeof(*ln) + sizeof(*pln)));
	if (!ln)
		return -ENOMEM;
	w->xl[w->nxl++] = ln;
	pln = (Perftools__Profiles__Line **)(ln + n);
	for (int k = 0; k < n; k++) {
		int64_t f = function_of(w, ids[2 * k], ids[2 * k + 1]);
		uint32_t line = lines[k];

		if (f < 0)
			return -ENOMEM;
		perftools__profiles__line__init(&ln[k]);
		ln[k].function_id = (uint64_t)f + 1;
		ln[k].line = line;
		pln[k] = &ln[k];
	}
	pl->n_line = (size_t)n;
	pl->line = pln;
	return 1;
}

/* symbolize location @i into w->loc[i] (its line, function, mapping) */
static int resolve_loc(struct hws_pprof *p, struct wbuf *w, uint32_t i)
{
	const struct loc *l = &p->loc[i];
	Perftools__Profiles__Location *pl = &w->loc[i];
	struct hws_symbol sym = {0};
	int64_t name = -1, file = 0, dso = -1;

	perftools__profiles__location__init(pl);
	pl->id = i + 1;
	pl->address = l->ip;
	if (p->o.syms)
		hws_symbols__resolve(p->o.syms, l->rpid, l->ip, l->data, &sym);
	if (sym.dso) {
		dso = intern(p, sym.dso[0] == '[' ? hws_dso__short_name(sym.dso) : sym.dso);
		if (dso < 0)
			return -ENOMEM;
	}
	if (sym.srcfile) {
		file = intern(p, sym.srcfile);
		if (file < 0)
			return -ENOMEM;
	}
	if (l->data) {
		const char *dname = sym.dso ? hws_dso__short_name(sym.dso) : "unknown";
		char buf[4096];

		if (sym.name)
			snprintf(buf, sizeof(buf), "[data] %s", sym.name);
		else
			snprintf(buf, sizeof(buf), dname[0] == '[' ? "[data] %s" : "[data] [%s]",
				 dname);
		name = intern(p, buf);
	} else if (sym.name) {
		name = intern(p, sym.name);
	}
	if (name < -1)
		return -ENOMEM;
	if (name >= 0 && l->inl) {
		int err = inline_lines(p, w, i, &name);

		if (err < 0)
			return err;
		if (err)
			name = -2; /* the lines are set */
	}
	if (name >= 0) {
		int64_t f = function_of(w, name, file);

		if (f < 0)
			return -ENOMEM;
		w->pline[i] = &w->line[i];
		perftools__profiles__line__init(&w->line[i]);
		w->line[i].function_id = (uint64_t)f + 1;
		w->line[i].line = sym.line;
		pl->n_line = 1;
		pl->line = &w->pline[i];
	}
	if (dso >= 0) {
		Perftools__Profiles__Mapping *m;
		uint32_t mi = w->map_of_dso[dso];

		if (!mi) {
			if (grow(&w->map, sizeof(*w->map), (size_t)w->nmap + 1, &w->capmap, true))
				return -ENOMEM;
			m = &w->map[w->nmap++];
			perftools__profiles__mapping__init(m);
			m->id = w->nmap;
			m->filename = dso;
			m->memory_start = l->ip;
			m->memory_limit = l->ip + 1;
			w->map_of_dso[dso] = mi = w->nmap;
		}
		m = &w->map[mi - 1];
		if (l->ip < m->memory_start)
			m->memory_start = l->ip;
		if (l->ip >= m->memory_limit)
			m->memory_limit = l->ip + 1;
		m->has_functions |= name >= 0 || name == -2;
		m->has_filenames |= file > 0;
		m->has_line_numbers |= sym.line > 0;
		pl->mapping_id = mi;
	}
	return 0;
}

/* a file (not "[vdso]", "[kernel.kallsyms]"...) that is no shared library */
static bool main_candidate(const char *f)
{
	const char *b = strrchr(f, '/');

	return f[0] != '[' && !strstr(b ? b : f, ".so");
}

/*
 * pprof takes mapping 1 for the main binary (its name heads every report): the program file
 * with the most locations, when there is one; ids are renumbered to keep 1..n
 */
static void main_mapping_first(struct hws_pprof *p, struct wbuf *w)
{
	uint32_t best = 0, best_n = 0, *n = calloc(w->nmap + 1, sizeof(*n));
	Perftools__Profiles__Mapping m;

	if (!n)
		return; /* only the order is lost */
	for (uint32_t i = 0; i < p->nloc; i++)
		n[w->loc[i].mapping_id]++;
	for (uint32_t i = 1; i <= w->nmap; i++) {
		if (n[i] > best_n && main_candidate(p->str[w->map[i - 1].filename])) {
			best = i;
			best_n = n[i];
		}
	}
	free(n);
	if (best <= 1)
		return;
	for (uint32_t i = 0; i < p->nloc; i++) {
		uint64_t *id = &w->loc[i].mapping_id;

		if (*id == best)
			*id = 1;
		else if (*id && *id < best)
			(*id)++;
	}
	m = w->map[best - 1];
	memmove(&w->map[1], &w->map[0], (best - 1) * sizeof(*w->map));
	w->map[0] = m;
	for (uint32_t i = 0; i < w->nmap; i++)
		w->map[i].id = i + 1;
}

static int build(struct hws_pprof *p, struct wbuf *w, Perftools__Profiles__Profile *pr)
{
	uint32_t nvt = p->have_lat ? 3 : 2;

	perftools__profiles__profile__init(pr);
	/* locations first: they add strings (names, files, DSOs) */
	w->loc = calloc(p->nloc ? p->nloc : 1, sizeof(*w->loc));
	w->ploc = calloc(p->nloc ? p->nloc : 1, sizeof(*w->ploc));
	w->line = calloc(p->nloc ? p->nloc : 1, sizeof(*w->line));
	w->pline = calloc(p->nloc ? p->nloc : 1, sizeof(*w->pline));
	if (!w->loc || !w->ploc || !w->line || !w->pline)
		return -ENOMEM;
	/* a mapping per DSO string: lookups add at most 3 strings per location */
	w->map_of_dso = calloc((size_t)p->nstr + 3 * (size_t)p->nloc + 1, sizeof(*w->map_of_dso));
	if (!w->map_of_dso)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nloc; i++) {
		int err = resolve_loc(p, w, i);

		if (err)
			return err;
		w->ploc[i] = &w->loc[i];
	}
	main_mapping_first(p, w);
	w->pfn = calloc(w->nfn ? w->nfn : 1, sizeof(*w->pfn));
	w->pmap = calloc(w->nmap ? w->nmap : 1, sizeof(*w->pmap));
	if (!w->pfn || !w->pmap)
		return -ENOMEM;
	for (uint32_t i = 0; i < w->nfn; i++)
		w->pfn[i] = &w->fn[i];
	for (uint32_t i = 0; i < w->nmap; i++)
		w->pmap[i] = &w->map[i];

	/* stacks: location ids */
	w->ids = calloc(p->npool ? p->npool : 1, sizeof(*w->ids));
	if (!w->ids)
		return -ENOMEM;
	for (size_t i = 0; i < p->npool; i++)
		w->ids[i] = (uint64_t)p->pool[i] + 1;

	/* samples */
	w->smp = calloc(p->nsmp ? p->nsmp : 1, sizeof(*w->smp));
	w->psmp = calloc(p->nsmp ? p->nsmp : 1, sizeof(*w->psmp));
	w->val = calloc((size_t)(p->nsmp ? p->nsmp : 1) * nvt, sizeof(*w->val));
	w->plab = calloc((size_t)(p->nsmp ? p->nsmp : 1) * NR_LABELS, sizeof(*w->plab));
	if (!w->smp || !w->psmp || !w->val || !w->plab)
		return -ENOMEM;
	/* labels point into w->lab, which grows: indexes first, pointers after */
	for (uint32_t i = 0; i < p->nsmp; i++) {
		const struct psample *ps = &p->smp[i];
		const struct skey *k = &ps->k;
		Perftools__Profiles__Sample *s = &w->smp[i];
		uintptr_t *li = (uintptr_t *)&w->plab[(size_t)i * NR_LABELS];
		int64_t v[NR_LABELS][3];
		size_t n = 0;

		perftools__profiles__sample__init(s);
		s->n_location_id = p->stk[k->stack].len;
		s->location_id = w->ids + p->stk[k->stack].off;
		s->n_value = nvt;
		s->value = &w->val[(size_t)i * nvt];
		s->value[0] = ps->count;
		s->value[1] = ps->period;
		if (nvt > 2)
			s->value[2] = ps->lat;
#define LAB(K, S, N) (v[n][0] = (K), v[n][1] = (S), v[n][2] = (N), n++)
		if (k->have & L_PID) {
			LAB(S_PID, 0, k->pid);
			LAB(S_TID, 0, k->tid);
		}
		if (k->have & L_CPU)
			LAB(S_CPU, 0, k->cpu);
		if (k->have & L_COMM)
			LAB(S_COMM, k->comm, 0);
		if (k->have & L_EVENT)
			LAB(S_EVENT, k->event, 0);
		if (k->have & L_OP)
			LAB(S_OP, intern(p, hws_op__name(k->op)), 0);
		if (k->have & L_DSRC) {
			LAB(S_MEM_LEVEL, intern(p, hws_mem_level__name(k->lvl)), 0);
			LAB(S_SNOOP, intern(p, hws_snoop__name(k->snoop)), 0);
			LAB(S_TLB, intern(p, hws_tlb__name(k->tlb)), 0);
		}
		if (k->have & L_OBJECT)
			LAB(S_OBJECT, k->object, 0);
		if (k->have & L_TYPE) {
			LAB(S_TYPE, k->type, 0);
			LAB(S_TYPEOFF, k->typeoff, 0);
		}
#undef LAB
		for (size_t j = 0; j < n; j++) {
			int64_t l = v[j][1] < 0 ? -ENOMEM : label_of(w, v[j][0], v[j][1], v[j][2]);

			if (l < 0)
				return -ENOMEM;
			li[j] = (uintptr_t)l;
		}
		s->n_label = n;
		w->psmp[i] = s;
	}
	for (uint32_t i = 0; i < p->nsmp; i++) {
		Perftools__Profiles__Sample *s = &w->smp[i];
		Perftools__Profiles__Label **pl = &w->plab[(size_t)i * NR_LABELS];

		for (size_t j = 0; j < s->n_label; j++)
			pl[j] = &w->lab[(uintptr_t)pl[j]];
		s->label = pl;
	}

	/* sample types: samples/count, event/count[, latency/cycles] */
	for (uint32_t i = 0; i < nvt; i++) {
		static const int64_t ty[3][2] = {
		    {S_SAMPLES, S_COUNT}, {S_EVENT, S_COUNT}, {S_LATENCY, S_CYCLES}};

		perftools__profiles__value_type__init(&w->vt[i]);
		w->vt[i].type = ty[i][0];
		w->vt[i].unit = ty[i][1];
		w->pvt[i] = &w->vt[i];
	}
	pr->n_sample_type = nvt;
	pr->sample_type = w->pvt;
	pr->default_sample_type = S_EVENT;
	pr->n_sample = p->nsmp;
	pr->sample = w->psmp;
	pr->n_location = p->nloc;
	pr->location = w->ploc;
	pr->n_function = w->nfn;
	pr->function = w->pfn;
	pr->n_mapping = w->nmap;
	pr->mapping = w->pmap;
	if (p->t_last > p->t_first)
		pr->duration_nanos = (int64_t)(p->t_last - p->t_first);
	if (p->comment) {
		w->comment = p->comment;
		pr->n_comment = 1;
		pr->comment = &w->comment;
	}
	/* last: every string is in now */
	pr->n_string_table = p->nstr;
	pr->string_table = p->str;
	p->st.functions = w->nfn;
	p->st.mappings = w->nmap;
	return 0;
}

int hws_pprof__write(struct hws_pprof *p, int fd)
{
	Perftools__Profiles__Profile pr;
	struct wbuf w;
	struct gzout *g = NULL;
	int err;

	if (!p || fd < 0)
		return -EINVAL;
	memset(&w, 0, sizeof(w));
	err = build(p, &w, &pr);
	if (err)
		goto out;
	g = calloc(1, sizeof(*g));
	if (!g) {
		err = -ENOMEM;
		goto out;
	}
	g->base.append = gz_append;
	g->fd = fd;
	/* 15 + 16: a gzip stream; level 1, as Go's runtime/pprof writes its profiles */
	if (deflateInit2(&g->z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		g = NULL;
		err = -ENOMEM;
		goto out;
	}
	perftools__profiles__profile__pack_to_buffer(&pr, &g->base);
	if (!g->err) {
		g->z.next_in = NULL;
		g->z.avail_in = 0;
		gz_run(g, Z_FINISH);
	}
	err = g->err;
	deflateEnd(&g->z);
	p->st.strings = p->nstr;
out:
	free(g);
	write_free(&w);
	return err;
}
