// SPDX-License-Identifier: MIT
/*
 * c2c names (opts.names): what the data of a reported line is. Each row gets its object
 * (include/hwsample/objects.h: a heap block with its allocation site from the allocation
 * records, a static or thread-local variable, a mapping) and the data type and field it
 * accesses (include/hwsample/datatype.h: from the instruction at its precise IP, else from
 * the data address of a global, else from its heap block's allocation site); the rows of a
 * line are gathered into fields (one field of one instance of a type, or one offset when the
 * type is unknown) with the threads that wrote and read each, and the verdict is told by
 * name: "false sharing: struct counters.a (+0, written by tids 101, 102) and .b (+8,
 * written by tid 103)".
 *
 * Invariants:
 *  - run by __finish() for the symbolized lines only (the first 1000 reported), after their
 *    classification and symbols; everything here is read-only afterwards;
 *  - strings are owned by the names (labels, texts) or by its struct hws_datatypes (types,
 *    fields), freed with the c2c;
 *  - a line's fields are in the order of their first row (offset order); their thread lists
 *    are sorted and distinct.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/c2c.h>
#include <hwsample/datatype.h>
#include <hwsample/objects.h>

#include "analysis/c2c_int.h"
#include "util/internal.h"

#define MAX_TIDS_SHOWN 8

struct nrow {
	char *object; /* label, NULL if unknown */
	uint64_t obj_off;
	struct hws_datatype t;
};

struct nfield {
	uint32_t offset; /* first byte seen in the line */
	int64_t base;	 /* line offset of the type instance (offset - type offset) */
	struct hws_datatype t;
	const char *object;
	char *label;
	uint8_t in_false, in_true;
	uint32_t nw, nr, cw, cr;
	uint32_t *w, *r; /* tids */
};

struct c2c_names {
	struct hws_datatypes *dt;
	struct nrow *rows;
	uint32_t nr_rows, cap_rows;
	struct nfield *fields;
	uint32_t nr_fields, cap_fields;
};

void hws__c2c_names_free(struct c2c_names *n)
{
	uint32_t i;

	if (!n)
		return;
	for (i = 0; i < n->nr_rows; i++)
		free(n->rows[i].object);
	for (i = 0; i < n->nr_fields; i++) {
		free(n->fields[i].label);
		free(n->fields[i].w);
		free(n->fields[i].r);
	}
	free(n->rows);
	free(n->fields);
	hws_datatypes__delete(n->dt);
	free(n);
}

static int tid_add(uint32_t **v, uint32_t *nr, uint32_t *cap, uint32_t tid)
{
	uint32_t i;

	for (i = 0; i < *nr; i++)
		if ((*v)[i] == tid)
			return 0;
	if (hws__c2c_grow((void **)v, cap, *nr + 1, sizeof(**v)))
		return -ENOMEM;
	(*v)[(*nr)++] = tid;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* the object and the type of row @e (an entry of a reported line) */
static int name_row(struct hws_c2c *c, struct hws_symbols *syms, const struct entry *e,
		    struct nrow *r)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	struct hws_sample s;
	struct hws_object obj;
	int err = 0;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	s.fields = HWS_SF_ADDR | HWS_SF_PID | (e->ip ? HWS_SF_IP : 0) | (e->time ? HWS_SF_TIME : 0);
	s.pid = e->pid;
	s.tid = e->tid;
	s.ip = e->ip;
	s.addr = e->addr;
	s.time = e->time;
	obj.kind = HWS_OBJ_NONE;
	if (hws_objects__attribute(c->o.objects, syms, &s, &obj)) {
		if (hws_object__label(&obj, syms, e->pid, true, &sb) || sb.toobig) {
			hws_strbuf__release(&sb);
			return -ENOMEM;
		}
		r->object = sb.buf; /* taken */
		r->obj_off = obj.offset;
	}
	/* the instruction's answer (or a global's), else a heap block's allocation site */
	err = hws_objects__sample_type(c->o.objects, &obj, c->names->dt, syms, &s, &r->t);
	if (r->t.pseudo)
		memset(&r->t, 0, sizeof(r->t));
	return err < 0 ? err : 0;
}

static bool same_field(const struct nfield *f, const struct hws_datatype *t, int64_t base,
		       uint32_t off)
{
	if (!f->t.name || !t->name)
		return !f->t.name && !t->name && f->offset == off;
	return f->base == base && !strcmp(f->t.name, t->name) &&
	       (f->t.field && t->field ? !strcmp(f->t.field, t->field) : f->t.field == t->field);
}

/* "struct counters.a", "long", the data symbol or "offset 0x20" */
static char *field_label(const struct nfield *f, const char *dsym)
{
	char *p = NULL;
	int n;

	if (f->t.name && f->t.field)
		n = asprintf(&p, "%s.%s", f->t.name, f->t.field);
	else if (f->t.name)
		n = asprintf(&p, "%s", f->t.name);
	else if (dsym)
		n = asprintf(&p, "%s", dsym);
	else
		n = asprintf(&p, "offset %#x", f->offset);
	return n < 0 ? NULL : p;
}

static void tids_text(struct hws_strbuf *sb, const uint32_t *v, uint32_t n, const char *verb)
{
	uint32_t i;

	hws_strbuf__addf(sb, "%s by tid%s ", verb, n > 1 ? "s" : "");
	for (i = 0; i < n && i < MAX_TIDS_SHOWN; i++)
		hws_strbuf__addf(sb, "%s%d", i ? ", " : "", (int)v[i]);
	if (n > MAX_TIDS_SHOWN)
		hws_strbuf__addf(sb, " and %u more", n - MAX_TIDS_SHOWN);
}

/* "struct counters.a (+0, written by tids 1, 2) and .b (+8, written by tid 3)" of the
 * fields of [f0, f0 + nf) in false (@fls) or true sharing */
static void sharing_part(struct hws_strbuf *sb, const struct c2c_names *nm, uint32_t f0,
			 uint32_t nf, bool fls)
{
	const struct nfield *prev = NULL;
	uint32_t k, nsel = 0, done = 0;

	for (k = 0; k < nf; k++)
		nsel += fls ? nm->fields[f0 + k].in_false : nm->fields[f0 + k].in_true;
	if (!nsel) /* rows past MAX_UNITS of a huge line carry no flags */
		return;
	if (sb->len)
		hws_strbuf__addstr(sb, "; ");
	hws_strbuf__addstr(sb, fls ? "false sharing: " : "true sharing: ");
	for (k = 0; k < nf; k++) {
		const struct nfield *f = &nm->fields[f0 + k];
		uint32_t i, nro = 0;

		if (!(fls ? f->in_false : f->in_true))
			continue;
		if (done)
			hws_strbuf__addstr(sb, done + 1 == nsel ? " and " : ", ");
		done++;
		/* the same type as the one before: ".b" */
		if (prev && prev->t.name && f->t.name && f->t.field && prev->base == f->base &&
		    !strcmp(prev->t.name, f->t.name))
			hws_strbuf__addf(sb, ".%s", f->t.field);
		else
			hws_strbuf__addstr(sb, f->label);
		prev = f;
		if (f->t.name)
			hws_strbuf__addf(sb, " (%+lld", (long long)f->t.offset);
		else
			hws_strbuf__addf(sb, " (line offset %u", f->offset);
		if (f->nw) {
			hws_strbuf__addstr(sb, ", ");
			tids_text(sb, f->w, f->nw, "written");
		}
		/* readers that did not write it too */
		{
			uint32_t ro[MAX_TIDS_SHOWN + 1];
			uint32_t more = 0;

			for (i = 0; i < f->nr; i++) {
				uint32_t j;

				for (j = 0; j < f->nw && f->w[j] != f->r[i]; j++)
					;
				if (j < f->nw)
					continue;
				if (nro < MAX_TIDS_SHOWN)
					ro[nro++] = f->r[i];
				else
					more++;
			}
			if (nro) {
				hws_strbuf__addstr(sb, ", ");
				tids_text(sb, ro, nro, "read");
				if (more)
					hws_strbuf__addf(sb, " and %u more", more);
			}
		}
		hws_strbuf__addstr(sb, ")");
	}
}

/* Name the rows of reported line @l (symbolized, classified) and gather its fields. */
int hws__c2c_names_line(struct hws_c2c *c, struct line *l, struct hws_symbols *syms)
{
	struct c2c_names *nm = c->names;
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	uint32_t j, k;
	int err;

	if (!nm) {
		nm = c->names = calloc(1, sizeof(*nm));
		if (!nm)
			return -ENOMEM;
		nm->dt = hws_datatypes__new();
		if (!nm->dt)
			return -ENOMEM;
	}
	l->first_field = nm->nr_fields;
	l->nr_fields = 0;
	for (j = 0; j < l->nr_entries; j++) {
		struct entry *e = &c->ents[l->order[j]];
		struct nrow *r;
		struct nfield *f = NULL;
		int64_t base;

		if (e->pid == UINT32_MAX)
			continue;
		if (hws__c2c_grow((void **)&nm->rows, &nm->cap_rows, nm->nr_rows + 1,
				  sizeof(*nm->rows)))
			return -ENOMEM;
		r = &nm->rows[nm->nr_rows];
		err = name_row(c, syms, e, r);
		if (err)
			return err;
		e->name = ++nm->nr_rows;
		base = (int64_t)e->offset - r->t.offset;
		for (k = 0; k < l->nr_fields; k++) {
			if (same_field(&nm->fields[l->first_field + k], &r->t, base, e->offset)) {
				f = &nm->fields[l->first_field + k];
				break;
			}
		}
		if (!f) {
			const char *dsym = e->dsym ? c->syms[e->dsym - 1].symbol : NULL;

			if (hws__c2c_grow((void **)&nm->fields, &nm->cap_fields, nm->nr_fields + 1,
					  sizeof(*nm->fields)))
				return -ENOMEM;
			f = &nm->fields[nm->nr_fields++];
			memset(f, 0, sizeof(*f));
			l->nr_fields++;
			f->offset = e->offset;
			f->base = base;
			f->t = r->t;
			f->object = r->object;
			f->label = field_label(f, dsym);
			if (!f->label)
				return -ENOMEM;
		}
		f->in_false |= e->in_false;
		f->in_true |= e->in_true;
		if (e->c[C_STORES] + e->c[C_RMW] && tid_add(&f->w, &f->nw, &f->cw, e->tid))
			return -ENOMEM;
		if (e->c[C_LOADS] > e->c[C_RMW] && tid_add(&f->r, &f->nr, &f->cr, e->tid))
			return -ENOMEM;
	}
	for (k = 0; k < l->nr_fields; k++) {
		struct nfield *f = &nm->fields[l->first_field + k];

		hws__qsort(f->w, f->nw, sizeof(*f->w), cmp_u32);
		hws__qsort(f->r, f->nr, sizeof(*f->r), cmp_u32);
	}
	if (l->cls == HWS_C2C_FALSE_SHARING || l->cls == HWS_C2C_MIXED)
		sharing_part(&sb, nm, l->first_field, l->nr_fields, true);
	if (l->cls == HWS_C2C_TRUE_SHARING || l->cls == HWS_C2C_MIXED)
		sharing_part(&sb, nm, l->first_field, l->nr_fields, false);
	if (sb.toobig) {
		hws_strbuf__release(&sb);
		return -ENOMEM;
	}
	l->sharing_text = sb.buf; /* NULL when empty */
	return 0;
}

/* ---------------------------------------------------------------- accessors */

void hws__c2c_names_entry(const struct hws_c2c *c, const struct entry *e,
			  struct hws_c2c_entry_info *out)
{
	const struct nrow *r;

	if (!c->names || !e->name)
		return;
	r = &c->names->rows[e->name - 1];
	out->object = r->object;
	out->object_offset = r->obj_off;
	out->type = r->t.name;
	out->field = r->t.field;
	out->type_offset = r->t.offset;
}

int hws_c2c__field(const struct hws_c2c *c, uint32_t i, uint32_t k, struct hws_c2c_field_info *out)
{
	const struct line *l;
	const struct nfield *f;

	if (i >= c->nr_report)
		return -EINVAL;
	l = &c->lines[c->report[i]];
	if (!c->names || k >= l->nr_fields)
		return -EINVAL;
	f = &c->names->fields[l->first_field + k];
	memset(out, 0, sizeof(*out));
	out->sz = sizeof(*out);
	out->offset = f->offset;
	out->label = f->label;
	out->type = f->t.name;
	out->field = f->t.field;
	out->type_offset = f->t.offset;
	out->object = f->object;
	out->in_false = f->in_false;
	out->in_true = f->in_true;
	out->nr_writers = f->nw;
	out->writers = f->w;
	out->nr_readers = f->nr;
	out->readers = f->r;
	return 0;
}
