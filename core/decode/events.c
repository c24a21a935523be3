// SPDX-License-Identifier: MIT
/*
 * The decoder's per-event state: a slot per event the reader knows (slot 0: unknown), its
 * backend, where its samples keep each field (the fixed-layout plan) and records their time,
 * and the counters per (event, CPU).
 *
 * Invariants:
 *  - slots exist for every attr the reader knows; they grow as pipe-mode HEADER_ATTR
 *    records add events (dec_ensure_events()) and then point at the reader's attrs again;
 *  - counters are kept per (event slot, CPU slot): event slot 0 / CPU slot 0 are "unknown",
 *    event i is slot i + 1, CPU c is slot c + 1; CPUs at or above MAX_CPU count as unknown,
 *    so a corrupt cpu field never makes the table grow without bound;
 *  - the sample layouts come from the kernel's field order in core/perfdata/sample_fields.h
 *    and are worked out once per event;
 *  - calls nothing else of core/decode/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/registry.h>

#include "decode/decode_int.h"
#include "perfdata/sample_fields.h"

static void set_backend(struct ev_state *e, struct hws_backend *b)
{
	e->backend = b;
	e->backend_name = b ? b->ops->name : "none";
	e->decode = b && b->ops->decode; /* NULL: core's generic fill is the sample */
}

/* Pipe mode: PMU_MAPPINGS (a HEADER_FEATURE record) arrives after the HEADER_ATTRs, so
 * the PMU names and with them the backends are only known then: match again. */
void dec_rematch_events(struct hws_decoder *d)
{
	for (size_t i = 1; d->reg && i < d->nr_evs; i++) {
		const struct hws_perf_evattr *ea = hws_perf_reader__attr(d->r, (int)i - 1);
		if (ea)
			set_backend(&d->evs[i],
				    hws_registry__match(d->reg, &ea->attr, ea->pmu_name));
	}
}

/* Where @a's records carry their time, as order.c's record_time() reads it. */
static void time_layout(struct ev_state *e, const struct hws_perf_event_attr *a)
{
	uint64_t st = a->sample_type;

	/* only fixed-size fields come before TIME */
	e->t_smp = (uint16_t)pd_sample_fixed_off(st, PERF_SAMPLE_TIME);
	e->t_back = a->sample_id_all ? (uint16_t)pd_id_trailer_back(st, PERF_SAMPLE_TIME) : 0;
}

/* Field offsets of a fixed layout (the kernel's order: perfdata/sample_fields.h). */
static void fix_layout(struct fix_plan *fp, const struct hws_perf_event_attr *a)
{
	uint64_t st = a->sample_type;

	memset(fp, 0, sizeof(*fp));
	if ((st & ~HWS_FIXED_SAMPLE_FIELDS) ||
	    (st & PERF_SAMPLE_WEIGHT_TYPE) == PERF_SAMPLE_WEIGHT_TYPE)
		return;
#define AT(bit, f, flag)                                                                           \
	do {                                                                                       \
		if (st & (bit)) {                                                                  \
			fp->f = (uint8_t)pd_sample_fixed_off(st, bit);                             \
			fp->sf |= (flag);                                                          \
		}                                                                                  \
	} while (0)
	AT(PERF_SAMPLE_IDENTIFIER, id, HWS_SF_ID);
	AT(PERF_SAMPLE_IP, ip, HWS_SF_IP);
	AT(PERF_SAMPLE_TID, tid, HWS_SF_PID);
	AT(PERF_SAMPLE_TIME, time, HWS_SF_TIME);
	AT(PERF_SAMPLE_ADDR, addr, HWS_SF_ADDR);
	AT(PERF_SAMPLE_ID, id, HWS_SF_ID); /* the same id as IDENTIFIER's: this one is read */
	AT(PERF_SAMPLE_STREAM_ID, stream, 0);
	AT(PERF_SAMPLE_CPU, cpu, HWS_SF_CPU);
	AT(PERF_SAMPLE_PERIOD, period, HWS_SF_PERIOD);
	AT(PERF_SAMPLE_WEIGHT_TYPE, weight, HWS_SF_WEIGHT);
	AT(PERF_SAMPLE_DATA_SRC, dsrc, 0);
	AT(PERF_SAMPLE_TRANSACTION, trans, 0);
	AT(PERF_SAMPLE_PHYS_ADDR, phys, HWS_SF_PHYS_ADDR);
	AT(PERF_SAMPLE_CGROUP, cgroup, 0);
	AT(PERF_SAMPLE_DATA_PAGE_SIZE, dps, HWS_SF_DATA_PAGE_SIZE);
	AT(PERF_SAMPLE_CODE_PAGE_SIZE, cps, HWS_SF_CODE_PAGE_SIZE);
#undef AT
	fp->len = (uint16_t)(8 + 8 * __builtin_popcountll(st)); /* at most 8 + 16 * 8 */
	fp->have = (uint16_t)((fp->id ? FX_ID : 0) | (fp->ip ? FX_IP : 0) | (fp->tid ? FX_TID : 0) |
			      (fp->time ? FX_TIME : 0) | (fp->addr ? FX_ADDR : 0) |
			      (fp->cpu ? FX_CPU : 0) | (fp->dsrc ? FX_DSRC : 0) |
			      (fp->period ? FX_PERIOD : 0) | (fp->weight ? FX_WEIGHT : 0));
	if (fp->stream || fp->trans || fp->phys || fp->cgroup || fp->dps || fp->cps)
		fp->have |= FX_RARE;
	fp->s_period = fixed_period(a);
	if (fp->s_period)
		fp->sf |= HWS_SF_PERIOD;
}

/* The constant part of an event's kept record view (ev_state.rs); @ea may have moved. */
static void rs_layout(struct ev_state *e)
{
	e->rs.attr = &e->ea->attr;
	e->rs.sample_type = e->ea->attr.sample_type;
	/* as hws_sample__parse(): unless PERIOD is sampled */
	e->rs.period = e->ea->attr.sample_period;
}

/* Make sure there is a slot for every event the reader knows; pick their backends. */
int dec_ensure_events(struct hws_decoder *d)
{
	int n = hws_perf_reader__nr_attrs(d->r);
	size_t want = (size_t)(n < 0 ? 0 : n) + 1;

	if (want <= d->nr_evs)
		return 0;
	struct ev_state *e = realloc(d->evs, want * sizeof(*e));
	if (!e)
		return -ENOMEM;
	memset(e + d->nr_evs, 0, (want - d->nr_evs) * sizeof(*e));
	d->evs = e;
	/* adding attrs may have moved the reader's array */
	for (size_t i = 1; i < d->nr_evs; i++) {
		e[i].ea = hws_perf_reader__attr(d->r, (int)i - 1);
		if (e[i].ea)
			rs_layout(&e[i]);
	}
	for (size_t i = d->nr_evs ? d->nr_evs : 1; i < want; i++) {
		const struct hws_perf_evattr *ea = hws_perf_reader__attr(d->r, (int)i - 1);
		set_backend(&e[i], ea && d->reg
				       ? hws_registry__match(d->reg, &ea->attr, ea->pmu_name)
				       : NULL);
		e[i].matched = true;
		e[i].ea = ea;
		if (ea) {
			time_layout(&e[i], &ea->attr);
			fix_layout(&e[i].fp, &ea->attr);
			rs_layout(&e[i]);
			/* --call-graph dwarf: the unwinder needs the processes' maps, whatever the
			 * caller asked for symbols (callchain.c) */
			if ((ea->attr.sample_type & DEC_DWARF_BITS) == DEC_DWARF_BITS)
				d->opts.no_sideband = false;
		}
		if (ea)
			pr_debug("decode: event %zu '%s' (type %u, pmu %s) -> backend %s\n", i - 1,
				 ea->name ? ea->name : "?", ea->attr.type,
				 ea->pmu_name ? ea->pmu_name : "-",
				 e[i].backend ? e[i].backend->ops->name : "none");
	}
	d->nr_evs = want;
	return 0;
}

/* Counters of event @ev (-1 unknown) on @cpu ((u32)-1 or >= MAX_CPU: unknown). NULL on OOM. */
struct hws_decode_counts *dec_counts(struct hws_decoder *d, int ev, uint32_t cpu)
{
	size_t es = ev >= 0 && (size_t)ev + 1 < d->nr_evs ? (size_t)ev + 1 : 0;
	size_t cs = cpu < MAX_CPU ? (size_t)cpu + 1 : 0;
	struct ev_state *e;

	if (!d->nr_evs && dec_ensure_events(d))
		return NULL;
	if (!d->nr_evs)
		return NULL;
	e = &d->evs[es];
	if (cs >= e->nr_cpu_slots) {
		size_t n = e->nr_cpu_slots ? e->nr_cpu_slots : 8;
		struct hws_decode_counts *c;
		while (n <= cs)
			n *= 2;
		if (n > MAX_CPU + 1)
			n = MAX_CPU + 1;
		c = realloc(e->cpus, n * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + e->nr_cpu_slots, 0, (n - e->nr_cpu_slots) * sizeof(*c));
		e->cpus = c;
		e->nr_cpu_slots = n;
	}
	if ((int)cs > d->max_cpu_seen)
		d->max_cpu_seen = (int)cs;
	return &e->cpus[cs];
}

struct hws_decode_counts dec_dummy_counts; /* target when allocation fails */

/* Event and CPU (and, if @time, the time: UINT64_MAX when none) of a non-sample record from
 * its sample_id trailer. */
void dec_record_ev_cpu(struct hws_decoder *d, const struct hws_perf_record *rec, int *ev,
		       uint32_t *cpu, uint64_t *time)
{
	const struct hws_perf_event_attr *attr;
	struct hws_sample_id sid;

	*cpu = (uint32_t)-1;
	if (time)
		*time = UINT64_MAX;
	if (*ev < 0)
		*ev = rec->attr_idx;
	if (*ev < 0 && hws_perf_reader__nr_attrs(d->r) == 1)
		*ev = 0;
	attr = ev_attr(d, *ev >= 0 ? *ev : 0);
	if (!attr || !attr->sample_id_all)
		return;
	if (hws_sample_id__parse(attr, rec->hdr, rec->hdr->size, &sid))
		return;
	if (sid.fields & HWS_SF_CPU)
		*cpu = sid.cpu;
	if (time && (sid.fields & HWS_SF_TIME))
		*time = sid.time;
}
