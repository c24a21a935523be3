// SPDX-License-Identifier: MIT
/*
 * The data-address x time heat map of the HTML report (see analysis/report_view.h).
 *
 * Invariants: every cell's (time bin, unit) is distinct; nr cells used, nr * 4 <= 3 *
 * HWS_HEAT_CELLS; t0 is a multiple of tw and every counted time is in [t0, t0 + 64 tw);
 * samples == the sum of the cells' counts (a cell saturates at UINT32_MAX, so only past 4G
 * samples in one cell would the sum fall short).
 */
#include <string.h>

#include "analysis/report_view.h"

static inline size_t cell_home(uint32_t tbin, uint64_t unit)
{
	uint64_t h = unit * 0x9E3779B97F4A7C15ULL ^ (uint64_t)tbin * 0xC2B2AE3D27D4EB4FULL;

	h ^= h >> 29;
	return (size_t)h & (HWS_HEAT_CELLS - 1);
}

/* the slot of (tbin, unit): its cell or the empty slot where it goes */
static inline size_t cell_find(const struct hws_heat *h, uint32_t tbin, uint64_t unit)
{
	size_t i = cell_home(tbin, unit);

	while (h->cell[i].tbin && (h->cell[i].tbin != tbin || h->cell[i].unit != unit))
		i = (i + 1) & (HWS_HEAT_CELLS - 1);
	return i;
}

static void cell_put(struct hws_heat *h, uint32_t tbin, uint64_t unit, uint32_t n)
{
	size_t i = cell_find(h, tbin, unit);

	if (!h->cell[i].tbin) {
		h->cell[i].tbin = tbin;
		h->cell[i].unit = unit;
		h->nr++;
	}
	h->cell[i].n = h->cell[i].n > UINT32_MAX - n ? UINT32_MAX : h->cell[i].n + n;
}

static inline uint64_t unit_of(uint64_t addr, unsigned int ash)
{
	return ash >= 64 ? 0 : addr >> ash;
}

/* re-bin every cell for a new grid (coarser or equal on both axes) */
static void regrid(struct hws_heat *h, uint64_t t0, uint64_t tw, unsigned int ash)
{
	memcpy(h->old, h->cell, sizeof(h->old));
	memset(h->cell, 0, sizeof(h->cell));
	h->nr = 0;
	for (size_t i = 0; i < HWS_HEAT_CELLS; i++) {
		const struct hws_heat_cell *o = &h->old[i];
		uint64_t start;

		if (!o->tbin)
			continue;
		start = h->t0 + (o->tbin - 1) * h->tw;
		cell_put(h, (uint32_t)((start - t0) / tw) + 1,
			 ash - h->ash >= 64 ? 0 : o->unit >> (ash - h->ash), o->n);
	}
	h->t0 = t0;
	h->tw = tw;
	h->ash = ash;
}

void hws_heat__add(struct hws_heat *h, uint64_t time, uint64_t addr)
{
	uint32_t tbin;
	uint64_t unit;
	size_t i;

	if (!h->tw) {
		h->tw = HWS_HEAT_TW0;
		h->t0 = time / h->tw * h->tw;
		h->tmax = time;
		h->ash = HWS_HEAT_ASH0;
	}
	if (time < h->t0 || (time - h->t0) / h->tw >= HWS_HEAT_T) {
		uint64_t lo = time < h->t0 ? time : h->t0, hi = time > h->tmax ? time : h->tmax;
		uint64_t tw = h->tw, t0;

		do {
			tw = tw >= 1ULL << 62 ? tw : tw * 2;
			t0 = lo / tw * tw;
		} while ((hi - t0) / tw >= HWS_HEAT_T && tw < 1ULL << 62);
		regrid(h, t0, tw, h->ash);
	}
	if (time > h->tmax)
		h->tmax = time;
	tbin = (uint32_t)((time - h->t0) / h->tw) + 1;
	unit = unit_of(addr, h->ash);
	i = cell_find(h, tbin, unit);
	while (!h->cell[i].tbin && (h->nr + 1) * 4 > HWS_HEAT_CELLS * 3 && h->ash < 64) {
		regrid(h, h->t0, h->tw, h->ash + 1);
		unit = unit_of(addr, h->ash);
		i = cell_find(h, tbin, unit);
	}
	if (!h->cell[i].tbin) {
		h->cell[i].tbin = tbin;
		h->cell[i].unit = unit;
		h->nr++;
	}
	if (h->cell[i].n < UINT32_MAX)
		h->cell[i].n++;
	h->samples++;
}
