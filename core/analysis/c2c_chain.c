// SPDX-License-Identifier: MIT
/*
 * c2c call paths (opts.callchain): which code paths loaded and stored each contended line, as
 * perf c2c report -g shows under each row of a line.
 *
 * Invariants:
 *  - per sample with a call chain: the chain's frame addresses are interned once per
 *    distinct (pid, addresses) path (frames pool + open-addressing table), and the sample
 *    counted in a record keyed by (entry key, path): one hash, no symbol lookup, no
 *    allocation except table growth (doubling); samples without a call chain never come here;
 *  - __finish names the paths of the symbolized reported lines only (function names, caller
 *    first, ';'-joined, as perf's folded call graph with its default "function" key), interns
 *    the names (paths with the same names merge, as perf's function-keyed chains do), and
 *    sums records into per-row and per-line lists sorted by period; the line's period is
 *    that of all its samples with a call chain (perf's percentages are of the line total);
 *  - after __finish everything is read-only; strings are owned here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/c2c.h>
#include <hwsample/strbuf.h>
#include <hwsample/symbols.h>

#include "analysis/c2c_int.h"
#include "util/internal.h"

struct ccpath {
	uint64_t h;
	uint32_t pid, first, nr;
	uint32_t name; /* names[] index + 1, 0: not named (__finish) */
};

struct ccrec {
	uint64_t addr, ip, period;
	uint32_t pid, tid, path, n;
	uint32_t ent; /* entry index, NONE if none (hws__c2c_chain_bind) */
};

/* a summed path of a row or line (__finish) */
struct ccout {
	uint32_t key, name; /* key: entry or line index */
	uint64_t n, period;
};

struct c2c_chains {
	uint64_t *frames;
	uint32_t nr_frames, cap_frames;
	struct ccpath *paths;
	uint32_t nr_paths, cap_paths;
	uint32_t *phash, phash_size;
	struct ccrec *recs;
	uint32_t nr_recs, cap_recs;
	uint32_t *rhash, rhash_size;
	/* __finish */
	char **names;
	uint32_t *name_frames;
	uint32_t nr_names, cap_names, cap_name_frames;
	uint32_t *nhash, nhash_size;
	struct ccout *ent_out, *line_out;
	uint32_t nr_ent_out, nr_line_out;
	uint32_t *ent_first, *ent_nr;	/* per entry index */
	uint32_t *line_first, *line_nr; /* per line index */
	uint64_t *line_period;
};

void hws__c2c_chain_free(struct c2c_chains *cc)
{
	uint32_t i;

	if (!cc)
		return;
	for (i = 0; i < cc->nr_names; i++)
		free(cc->names[i]);
	free(cc->names);
	free(cc->name_frames);
	free(cc->nhash);
	free(cc->frames);
	free(cc->paths);
	free(cc->phash);
	free(cc->recs);
	free(cc->rhash);
	free(cc->ent_out);
	free(cc->line_out);
	free(cc->ent_first);
	free(cc->ent_nr);
	free(cc->line_first);
	free(cc->line_nr);
	free(cc->line_period);
	free(cc);
}

/* grow an index table @t of *@size slots to hold @nr + 1 keys at half load, rehashed by
 * @hash(i) of the item of index i. 0 or -ENOMEM. */
static int table_room(uint32_t **t, uint32_t *size, uint32_t nr,
		      uint64_t (*hash)(const struct c2c_chains *, uint32_t),
		      const struct c2c_chains *cc)
{
	uint32_t nsize, i, h, *n;

	if ((uint64_t)(nr + 1) * 2 <= *size)
		return 0;
	nsize = *size ? *size * 2 : 1024;
	if (nsize < *size)
		return -ENOMEM;
	n = calloc(nsize, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		for (h = (uint32_t)hash(cc, i) & (nsize - 1); n[h]; h = (h + 1) & (nsize - 1))
			;
		n[h] = i + 1;
	}
	free(*t);
	*t = n;
	*size = nsize;
	return 0;
}

static uint64_t path_hash(const struct c2c_chains *cc, uint32_t i)
{
	return cc->paths[i].h;
}

static uint64_t rec_key(uint64_t addr, uint32_t pid, uint32_t tid, uint64_t ip, uint32_t path)
{
	return mix64(addr * 0x9e3779b97f4a7c15ULL ^ ip * 0xc2b2ae3d27d4eb4fULL ^
		     ((uint64_t)pid << 32 | tid) * 0x165667b19e3779f9ULL ^ path);
}

static uint64_t rec_hash(const struct c2c_chains *cc, uint32_t i)
{
	const struct ccrec *r = &cc->recs[i];

	return rec_key(r->addr, r->pid, r->tid, r->ip, r->path);
}

static uint64_t name_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	return mix64(h);
}

static uint64_t name_hash(const struct c2c_chains *cc, uint32_t i)
{
	return name_hash_str(cc->names[i]);
}

/* the path of @s's frames in process @pid: its index, or NONE when out of memory */
static uint32_t path_of(struct c2c_chains *cc, const struct hws_sample *s, uint32_t pid)
{
	uint32_t nr = s->nr_callchain, h, idx, i;
	uint64_t k = mix64(pid + 0x51ULL * nr);
	struct ccpath *p;

	for (i = 0; i < nr; i++)
		k = mix64(k ^ s->callchain[i].ip);
	for (h = (uint32_t)k & (cc->phash_size - 1); cc->phash_size && (idx = cc->phash[h]);
	     h = (h + 1) & (cc->phash_size - 1)) {
		p = &cc->paths[idx - 1];
		if (p->h != k || p->pid != pid || p->nr != nr)
			continue;
		for (i = 0; i < nr && cc->frames[p->first + i] == s->callchain[i].ip; i++)
			;
		if (i == nr)
			return idx - 1;
	}
	if (table_room(&cc->phash, &cc->phash_size, cc->nr_paths, path_hash, cc) ||
	    hws__c2c_grow((void **)&cc->paths, &cc->cap_paths, cc->nr_paths + 1,
			  sizeof(*cc->paths)) ||
	    (uint64_t)cc->nr_frames + nr > UINT32_MAX / 2 ||
	    hws__c2c_grow((void **)&cc->frames, &cc->cap_frames, cc->nr_frames + nr,
			  sizeof(*cc->frames)))
		return NONE;
	p = &cc->paths[cc->nr_paths];
	*p = (struct ccpath){.h = k, .pid = pid, .first = cc->nr_frames, .nr = nr};
	for (i = 0; i < nr; i++)
		cc->frames[cc->nr_frames++] = s->callchain[i].ip;
	for (h = (uint32_t)k & (cc->phash_size - 1); cc->phash[h];
	     h = (h + 1) & (cc->phash_size - 1))
		;
	cc->phash[h] = ++cc->nr_paths;
	return cc->nr_paths - 1;
}

int hws__c2c_chain_add(struct hws_c2c *c, const struct hws_sample *s, uint64_t ip, uint32_t pid,
		       uint32_t tid)
{
	struct c2c_chains *cc = c->cc;
	uint64_t period = (s->fields & HWS_SF_PERIOD) ? s->period : 1, k;
	uint32_t path, h, idx;
	struct ccrec *r;

	if (!cc) {
		cc = c->cc = calloc(1, sizeof(*cc));
		if (!cc)
			return -ENOMEM;
	}
	path = path_of(cc, s, pid);
	if (path == NONE)
		return -ENOMEM;
	k = rec_key(s->addr, pid, tid, ip, path);
	for (h = (uint32_t)k & (cc->rhash_size - 1); cc->rhash_size && (idx = cc->rhash[h]);
	     h = (h + 1) & (cc->rhash_size - 1)) {
		r = &cc->recs[idx - 1];
		if (r->path == path && r->addr == s->addr && r->ip == ip && r->pid == pid &&
		    r->tid == tid) {
			r->n++;
			r->period += period;
			return 0;
		}
	}
	if (table_room(&cc->rhash, &cc->rhash_size, cc->nr_recs, rec_hash, cc) ||
	    hws__c2c_grow((void **)&cc->recs, &cc->cap_recs, cc->nr_recs + 1, sizeof(*cc->recs)))
		return -ENOMEM;
	cc->recs[cc->nr_recs] = (struct ccrec){.addr = s->addr,
					       .ip = ip,
					       .period = period,
					       .pid = pid,
					       .tid = tid,
					       .path = path,
					       .n = 1};
	for (h = (uint32_t)k & (cc->rhash_size - 1); cc->rhash[h];
	     h = (h + 1) & (cc->rhash_size - 1))
		;
	cc->rhash[h] = ++cc->nr_recs;
	return 0;
}

/* ---------------------------------------------------------------- __finish */

/* the name index of path @pi (named on first use), or NONE when out of memory */
static uint32_t path_name(struct c2c_chains *cc, struct hws_symbols *syms, uint32_t pi)
{
	struct ccpath *p = &cc->paths[pi];
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	struct hws_symbol sym;
	uint32_t i, h, idx;
	uint64_t k;

	if (p->name)
		return p->name - 1;
	/* caller first: the outermost frame is the last */
	for (i = p->nr; i-- > 0;) {
		uint64_t ip = cc->frames[p->first + i];

		if (i + 1 < p->nr)
			hws_strbuf__add(&sb, ";", 1);
		if (syms && hws_symbols__resolve(syms, p->pid, ip, false, &sym) > 0 && sym.name)
			hws_strbuf__addstr(&sb, sym.name);
		else
			hws_strbuf__addf(&sb, "%#" PRIx64, ip);
	}
	if (!sb.buf)
		hws_strbuf__addstr(&sb, "");
	if (sb.toobig || !sb.buf) {
		hws_strbuf__release(&sb);
		return NONE;
	}
	k = name_hash_str(sb.buf);
	for (h = (uint32_t)k & (cc->nhash_size - 1); cc->nhash_size && (idx = cc->nhash[h]);
	     h = (h + 1) & (cc->nhash_size - 1)) {
		if (!strcmp(cc->names[idx - 1], sb.buf)) {
			hws_strbuf__release(&sb);
			p->name = idx;
			return idx - 1;
		}
	}
	if (table_room(&cc->nhash, &cc->nhash_size, cc->nr_names, name_hash, cc) ||
	    hws__c2c_grow((void **)&cc->names, &cc->cap_names, cc->nr_names + 1,
			  sizeof(*cc->names))) {
		hws_strbuf__release(&sb);
		return NONE;
	}
	if (hws__c2c_grow((void **)&cc->name_frames, &cc->cap_name_frames, cc->nr_names + 1,
			  sizeof(*cc->name_frames))) {
		hws_strbuf__release(&sb);
		return NONE;
	}
	cc->names[cc->nr_names] = sb.buf;
	cc->name_frames[cc->nr_names] = p->nr;
	for (h = (uint32_t)k & (cc->nhash_size - 1); cc->nhash[h];
	     h = (h + 1) & (cc->nhash_size - 1))
		;
	cc->nhash[h] = ++cc->nr_names;
	p->name = cc->nr_names;
	return cc->nr_names - 1;
}

static int cmp_out_key(const void *a, const void *b)
{
	const struct ccout *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static const struct c2c_chains *sort_cc;

static int cmp_out_rank(const void *a, const void *b)
{
	const struct ccout *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(sort_cc->names[x->name], sort_cc->names[y->name]);
}

/* sum @out[0..*nr) by (key, name), rank each key's paths, and index them per key in
 * @first/@cnt */
static void out_merge(const struct c2c_chains *cc, struct ccout *out, uint32_t *nr, uint32_t *first,
		      uint32_t *cnt)
{
	uint32_t i, m = 0;

	hws__qsort(out, *nr, sizeof(*out), cmp_out_key);
	for (i = 0; i < *nr; i++) {
		if (m && out[m - 1].key == out[i].key && out[m - 1].name == out[i].name) {
			out[m - 1].n += out[i].n;
			out[m - 1].period += out[i].period;
		} else {
			out[m++] = out[i];
		}
	}
	*nr = m;
	sort_cc = cc;
	hws__qsort(out, m, sizeof(*out), cmp_out_rank);
	sort_cc = NULL;
	for (i = 0; i < m; i++) {
		if (!cnt[out[i].key])
			first[out[i].key] = i;
		cnt[out[i].key]++;
	}
}

void hws__c2c_chain_bind(struct hws_c2c *c)
{
	struct c2c_chains *cc = c->cc;
	uint32_t i;

	for (i = 0; cc && i < cc->nr_recs; i++) {
		struct ccrec *r = &cc->recs[i];

		r->ent = hws__c2c_entry_of(c, r->addr, r->pid, r->tid, r->ip);
	}
}

int hws__c2c_chain_finish(struct hws_c2c *c, struct hws_symbols *syms, uint32_t nr_symbolized)
{
	struct c2c_chains *cc = c->cc;
	uint8_t *named;
	uint32_t i, k;

	if (!cc)
		return 0;
	cc->ent_first = calloc(c->nr_ents + 1, sizeof(uint32_t));
	cc->ent_nr = calloc(c->nr_ents + 1, sizeof(uint32_t));
	cc->line_first = calloc(c->nr_lines + 1, sizeof(uint32_t));
	cc->line_nr = calloc(c->nr_lines + 1, sizeof(uint32_t));
	cc->line_period = calloc(c->nr_lines + 1, sizeof(uint64_t));
	cc->ent_out = malloc(sizeof(*cc->ent_out) * (cc->nr_recs + 1));
	cc->line_out = malloc(sizeof(*cc->line_out) * (cc->nr_recs + 1));
	named = calloc(c->nr_lines + 1, 1);
	if (!cc->ent_first || !cc->ent_nr || !cc->line_first || !cc->line_nr || !cc->line_period ||
	    !cc->ent_out || !cc->line_out || !named) {
		free(named);
		return -ENOMEM;
	}
	for (k = 0; k < c->nr_report && k < nr_symbolized; k++)
		named[c->report[k]] = 1;
	for (i = 0; i < cc->nr_recs; i++) {
		const struct ccrec *r = &cc->recs[i];
		uint32_t ei = r->ent, name, li;

		if (ei == NONE)
			continue;
		li = c->ents[ei].line;
		cc->line_period[li] += r->period;
		if (!named[li])
			continue;
		name = path_name(cc, syms, r->path);
		if (name == NONE) {
			free(named);
			return -ENOMEM;
		}
		cc->ent_out[cc->nr_ent_out++] = (struct ccout){ei, name, r->n, r->period};
		cc->line_out[cc->nr_line_out++] = (struct ccout){li, name, r->n, r->period};
	}
	free(named);
	out_merge(cc, cc->ent_out, &cc->nr_ent_out, cc->ent_first, cc->ent_nr);
	out_merge(cc, cc->line_out, &cc->nr_line_out, cc->line_first, cc->line_nr);
	/* the per-sample tables are done with */
	free(cc->rhash);
	free(cc->phash);
	cc->rhash = cc->phash = NULL;
	cc->rhash_size = cc->phash_size = 0;
	return 0;
}

/* ---------------------------------------------------------------- accessors */

static bool chains_of(const struct hws_c2c *c, uint32_t i, uint32_t j, const struct ccout **out,
		      uint32_t *nr, uint32_t *li)
{
	const struct c2c_chains *cc = c->cc;
	const struct line *l;

	if (!cc || !cc->ent_nr || i >= c->nr_report)
		return false;
	*li = c->report[i];
	l = &c->lines[*li];
	if (j == HWS_C2C_LINE) {
		*out = cc->line_out + cc->line_first[*li];
		*nr = cc->line_nr[*li];
		return true;
	}
	if (j >= l->nr_entries || !l->order)
		return false;
	*out = cc->ent_out + cc->ent_first[l->order[j]];
	*nr = cc->ent_nr[l->order[j]];
	return true;
}

uint32_t hws_c2c__nr_chains(const struct hws_c2c *c, uint32_t i, uint32_t j)
{
	const struct ccout *o;
	uint32_t nr, li;

	return chains_of(c, i, j, &o, &nr, &li) ? nr : 0;
}

int hws_c2c__chain(const struct hws_c2c *c, uint32_t i, uint32_t j, uint32_t k,
		   struct hws_c2c_chain_info *out)
{
	const struct ccout *o;
	uint32_t nr, li;

	if (!chains_of(c, i, j, &o, &nr, &li) || k >= nr)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->sz = sizeof(*out);
	out->nr_frames = c->cc->name_frames[o[k].name];
	out->samples = o[k].n;
	out->period = o[k].period;
	out->line_period = c->cc->line_period[li];
	out->path = c->cc->names[o[k].name];
	return 0;
}
