// SPDX-License-Identifier: MIT
/*
 * Arm SPE: detect, controls and attr encoding from sysfs (arm_spe_<n>/{type,format,caps}).
 *
 * Invariants:
 *  - Bit positions come only from format/ files (host->pmu_set); nothing is hard-coded.
 *    Controls the running kernel does not list are refused with the list it does have,
 *    plus a hint for the ones newer kernels add (discard, inv_event_filter, EFT filters).
 *  - sample_period is the user's -c, raised to caps/min_interval, default min_interval
 *    (4096 when the kernel does not say); -F is refused: the SPE driver rejects freq.
 *  - perf's defaults: ts_enable=1 unless --per-thread, pa_enable=1 when physical addresses
 *    are asked for; the user's own value always wins.
 *  - config3 (inv_event_filter, PMSNEVFR) and config4 (data_src_filter, PMSDSFR) lie past
 *    the 128 bytes of older kernels' perf_event_attr (offsets 128 and 136, attr.size
 *    HWS_PERF_ATTR_SIZE_VER8 = 136 / VER9 = 144; struct hws_perf_event_attr has them). The
 *    backend encodes such controls itself (range-checked, bits from format/) into the
 *    desc's words (hws_event_desc__config); core passes attr.size 136/144 only when they
 *    are non-zero, and a kernel without them answers E2BIG, which core explains.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "spe.h"

static const struct {
	const char *name;
	const char *help;
	const char *since;
} known_controls[] = {
    {"ts_enable", "timestamp packet in each record (PMSCR.TS)", NULL},
    {"pa_enable", "physical data address packet (PMSCR.PA; needs CAP_PERFMON)", NULL},
    {"pct_enable", "physical timestamp instead of virtual (PMSCR.PCT; needs CAP_PERFMON)", NULL},
    {"jitter", "randomise the sampling interval (PMSIRR.RND)", NULL},
    {"branch_filter", "keep only branch records (PMSFCR.B)", NULL},
    {"load_filter", "keep only load records (PMSFCR.LD)", NULL},
    {"store_filter", "keep only store records (PMSFCR.ST)", NULL},
    {"event_filter", "keep records whose events match this mask (PMSEVFR)", NULL},
    {"inv_event_filter", "drop records whose events match this mask (PMSNEVFR)",
     "Linux 6.12+ and FEAT_SPEv1p2"},
    {"min_latency", "keep records whose total latency is at least this (PMSLATFR)", NULL},
    {"discard", "discard mode: count but do not write records (PMBLIMITR.FM)",
     "Linux 6.14+ and FEAT_SPEv1p2"},
    {"branch_filter_mask", "FEAT_SPE_EFT branch filter mask", "a 2025+ kernel and FEAT_SPE_EFT"},
    {"load_filter_mask", "FEAT_SPE_EFT load filter mask", "a 2025+ kernel and FEAT_SPE_EFT"},
    {"store_filter_mask", "FEAT_SPE_EFT store filter mask", "a 2025+ kernel and FEAT_SPE_EFT"},
    {"simd_filter", "keep SIMD records (FEAT_SPE_EFT)", "a 2025+ kernel and FEAT_SPE_EFT"},
    {"simd_filter_mask", "SIMD filter mask (FEAT_SPE_EFT)", "a 2025+ kernel and FEAT_SPE_EFT"},
    {"float_filter", "keep floating-point records (FEAT_SPE_EFT)",
     "a 2025+ kernel and FEAT_SPE_EFT"},
    {"float_filter_mask", "floating-point filter mask (FEAT_SPE_EFT)",
     "a 2025+ kernel and FEAT_SPE_EFT"},
    {"data_src_filter", "keep records whose data source matches this mask (PMSDSFR)",
     "a 2025+ kernel and FEAT_SPE_FDS"},
};

static int known_index(const char *name)
{
	for (size_t i = 0; i < sizeof(known_controls) / sizeof(known_controls[0]); i++)
		if (!strcmp(known_controls[i].name, name))
			return (int)i;
	return -1;
}

/* write @v into the bits of @f in the word @w (low range first, like core's pmu_set) */
static void fmt_put(const struct hws_pmu_format *f, uint64_t v, uint64_t *w)
{
	for (unsigned int i = 0; i < f->nr_ranges; i++) {
		unsigned int n = f->ranges[i].hi - f->ranges[i].lo + 1;
		uint64_t m = n >= 64 ? UINT64_MAX : (1ULL << n) - 1;

		*w &= ~(m << f->ranges[i].lo);
		*w |= (v & m) << f->ranges[i].lo;
		v = n >= 64 ? 0 : v >> n;
	}
}

/* Named presets for -e (perf mem's spe-load / spe-store / spe-ldst, plus branches). */
static const struct {
	const char *name;
	const char *controls[3];
} presets[] = {
    {"load", {"load_filter", NULL}},
    {"store", {"store_filter", NULL}},
    {"ldst", {"load_filter", "store_filter", NULL}},
    {"branch", {"branch_filter", NULL}},
    {"all", {NULL}},
};

/* value of format @f in @attr (the module cannot call core's helpers); @d: the desc @attr
 * lives in, for config3/config4 */
static uint64_t fmt_get(const struct hws_pmu_format *f, const struct hws_perf_event_attr *attr,
			struct hws_event_desc *d)
{
	uint64_t w, v = 0;
	unsigned int shift = 0;

	switch (f->config) {
	case 0:
		w = attr->config;
		break;
	case 1:
		w = attr->config1;
		break;
	case 2:
		w = attr->config2;
		break;
	case 3:
	case 4:
		if (!d)
			return 0;
		w = *hws_event_desc__config(d, f->config);
		break;
	default:
		return 0;
	}
	for (unsigned int i = 0; i < f->nr_ranges; i++) {
		unsigned int n = f->ranges[i].hi - f->ranges[i].lo + 1;
		uint64_t m = n >= 64 ? UINT64_MAX : (1ULL << n) - 1;

		v |= ((w >> f->ranges[i].lo) & m) << shift;
		shift += n;
	}
	return v;
}

static uint64_t fmt_max(const struct hws_pmu_format *f)
{
	return f->width >= 64 ? UINT64_MAX : (1ULL << f->width) - 1;
}

static void explain_absent(const struct spe_priv *sp, char *why, size_t len)
{
	struct utsname u;
	const char *arch = uname(&u) == 0 ? u.machine : "unknown";

	if (strcmp(arch, "aarch64") && strcmp(arch, "arm64")) {
		snprintf(why, len,
			 "no arm_spe_<n> PMU under %s/bus/event_source/devices: this is not an Arm "
			 "machine (%s); SPE needs an Armv8.2+ core with FEAT_SPE",
			 sp->host->sysfs_root(), arch);
		return;
	}
	snprintf(why, len,
		 "no arm_spe_<n> PMU under %s/bus/event_source/devices: the CPU may lack FEAT_SPE, "
		 "or this is a cloud VM (hypervisors do not expose SPE: use a bare-metal "
		 "instance); else load the driver (modprobe arm_spe_pmu, CONFIG_ARM_SPE_PMU); "
		 "if dmesg says 'profiling buffer inaccessible. Try passing \"kpti=off\"', boot "
		 "with kpti=off; build with CONFIG_PID_IN_CONTEXTIDR so records carry the pid",
		 sp->host->sysfs_root());
}

int spe_detect(void *priv, char *why, size_t len)
{
	struct spe_priv *sp = priv;
	char names[8][HWS_PMU_NAME_MAX];
	int n = sp->host->pmu_list("arm_spe", names, 8);

	if (n <= 0) {
		explain_absent(sp, why, len);
		return 0;
	}
	snprintf(why, len, "%s%s present (%d SPE PMU%s)", names[0], n > 1 ? ", ..." : "", n,
		 n > 1 ? "s" : "");
	return 90;
}

/* Resolve the PMU the request names ("arm_spe", "arm_spe_1", NULL) and load it. */
static int load_pmu(struct spe_priv *sp, const char *want, struct hws_pmu *pmu, char *err,
		    size_t errlen)
{
	char names[16][HWS_PMU_NAME_MAX];
	int n, ret;

	if (want && strcmp(want, "arm_spe") && strcmp(want, "arm_spe_") && strcmp(want, "auto")) {
		ret = sp->host->pmu_load(want, pmu);
		if (ret == -ENOENT) {
			n = sp->host->pmu_list("arm_spe", names, 16);
			if (n > 0)
				snprintf(err, errlen, "%s: no such PMU; this machine has %s%s",
					 want, names[0], n > 1 ? " (and more arm_spe_<n>)" : "");
			else
				explain_absent(sp, err, errlen);
			return HWS_E_NO_PMU;
		}
		if (ret)
			snprintf(err, errlen, "%s: cannot read its sysfs entry (%d)", want, ret);
		return ret;
	}
	n = sp->host->pmu_list("arm_spe", names, 16);
	if (n <= 0) {
		explain_absent(sp, err, errlen);
		return HWS_E_NO_PMU;
	}
	/* lowest-numbered one, for stable output */
	for (int i = 1; i < n && i < 16; i++)
		if (strcmp(names[i], names[0]) < 0)
			memcpy(names[0], names[i], HWS_PMU_NAME_MAX);
	ret = sp->host->pmu_load(names[0], pmu);
	if (ret)
		snprintf(err, errlen, "%s: cannot read its sysfs entry (%d)", names[0], ret);
	return ret;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return (errno || *end) ? -1 : 0;
}

static int user_set(const struct hws_event_request *req, const char *name)
{
	for (uint32_t i = 0; i < req->nr_controls; i++)
		if (!strcmp(req->controls[i].key, name))
			return 1;
	return 0;
}

static int set_ctl(struct spe_priv *sp, const struct hws_pmu *pmu, const char *name, uint64_t v,
		   struct hws_perf_event_attr *attr, char *err, size_t errlen)
{
	int ret = sp->host->pmu_set(pmu, name, v, attr, err, errlen);
	int k;

	if (ret == HWS_E_UNKNOWN_CONTROL && (k = known_index(name)) >= 0 &&
	    known_controls[k].since) {
		size_t l = strlen(err);

		snprintf(err + l, errlen - l, " ('%s' needs %s)", name, known_controls[k].since);
	}
	return ret;
}

int spe_encode(void *priv, const struct hws_event_request *req, struct hws_event_desc *out, int max,
	       char *err, size_t errlen)
{
	struct spe_priv *sp = priv;
	struct hws_pmu *pmu;
	struct hws_perf_event_attr *attr;
	uint64_t ext[2] = {0, 0}; /* config3, config4 */
	const char *cap;
	uint64_t min_ival = 0, v;
	size_t nlen;
	int ret, per_thread = req->flags & HWS_REQ_PER_THREAD;

	err[0] = 0;
	if (max < 1) {
		snprintf(err, errlen, "arm_spe: no room for the event");
		return -ENOSPC;
	}
	if (req->freq) {
		snprintf(err, errlen,
			 "arm_spe: a frequency (hws_event_request.freq) is not supported: the SPE "
			 "driver needs a fixed sampling interval; give a period "
			 "(hws_event_request.period) instead");
		return HWS_E_BAD_ARG;
	}
	pmu = calloc(1, sizeof(*pmu));
	if (!pmu)
		return -ENOMEM;
	ret = load_pmu(sp, req->pmu, pmu, err, errlen);
	if (ret)
		goto out;

	memset(&out[0], 0, sizeof(out[0]));
	attr = &out[0].attr;
	attr->size = sizeof(*attr);
	attr->type = pmu->type;
	cap = sp->host->pmu_cap(pmu, "min_interval");
	if (cap && parse_u64(cap, &min_ival) == 0 && min_ival) {
		attr->sample_period = min_ival;
	} else {
		min_ival = 0;
		attr->sample_period = 4096;
	}
	if (req->period) {
		attr->sample_period = req->period;
		if (min_ival && req->period < min_ival) {
			sp->host->log(HWS_LOG_WARN,
				      "arm_spe: period %" PRIu64
				      " is below %s's minimum interval %" PRIu64 "; using %" PRIu64
				      "\n",
				      req->period, pmu->name, min_ival, min_ival);
			attr->sample_period = min_ival;
		}
	}
	attr->sample_type =
	    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_DATA_SRC;
	if (!per_thread)
		attr->sample_type |= PERF_SAMPLE_CPU;

	/* presets given with -e */
	if (req->event && *req->event) {
		size_t p;

		for (p = 0; p < sizeof(presets) / sizeof(presets[0]); p++)
			if (!strcmp(presets[p].name, req->event))
				break;
		if (p == sizeof(presets) / sizeof(presets[0])) {
			snprintf(err, errlen,
				 "arm_spe: unknown event '%s'; SPE samples operations, valid event "
				 "presets: load store ldst branch all (or use controls such as "
				 "load_filter=1)",
				 req->event);
			ret = HWS_E_UNKNOWN_EVENT;
			goto out;
		}
		for (int c = 0; presets[p].controls[c]; c++) {
			ret = set_ctl(sp, pmu, presets[p].controls[c], 1, attr, err, errlen);
			if (ret)
				goto out;
		}
	}
	/* perf's defaults */
	if (!per_thread && !user_set(req, "ts_enable")) {
		ret = set_ctl(sp, pmu, "ts_enable", 1, attr, err, errlen);
		if (ret)
			goto out;
	}
	if ((req->flags & (HWS_REQ_PHYS_ADDR | HWS_REQ_C2C)) && !user_set(req, "pa_enable")) {
		ret = set_ctl(sp, pmu, "pa_enable", 1, attr, err, errlen);
		if (ret)
			goto out;
	}
	/* c2c: loads and stores (each unless the user set that filter), without a preset */
	if ((req->flags & HWS_REQ_C2C) && !(req->event && *req->event)) {
		ret = 0;
		if (!user_set(req, "load_filter"))
			ret = set_ctl(sp, pmu, "load_filter", 1, attr, err, errlen);
		if (!ret && !user_set(req, "store_filter"))
			ret = set_ctl(sp, pmu, "store_filter", 1, attr, err, errlen);
		if (ret)
			goto out;
	}
	/* c2c's load latency threshold (c2c record --ldlat) unless min_latency was given */
	if ((req->flags & HWS_REQ_C2C) && (req->flags & HWS_REQ_LDLAT) &&
	    !user_set(req, "min_latency")) {
		ret = set_ctl(sp, pmu, "min_latency", hws_event_request__ldlat(req, 0), attr, err,
			      errlen);
		if (ret)
			goto out;
	}
	/* the user's controls, in order */
	for (uint32_t i = 0; i < req->nr_controls; i++) {
		const struct hws_control *c = &req->controls[i];
		const struct hws_pmu_format *f;

		if (!strcmp(c->key, "period")) {
			if (parse_u64(c->value, &v) || !v) {
				snprintf(err, errlen, "arm_spe: period=%s is not a positive number",
					 c->value);
				ret = HWS_E_BAD_ARG;
				goto out;
			}
			attr->sample_period = (min_ival && v < min_ival) ? min_ival : v;
			continue;
		}
		if (parse_u64(c->value, &v)) {
			snprintf(err, errlen, "%s: %s=%s is not a number (decimal or 0x hex)",
				 pmu->name, c->key, c->value);
			ret = HWS_E_BAD_ARG;
			goto out;
		}
		f = sp->host->pmu_format(pmu, c->key);
		if (f && f->config >= 3 && f->config <= 4) {
			if (v > fmt_max(f)) {
				snprintf(err, errlen,
					 "%s: %s=%" PRIu64 " is too wide for its %u-bit field; "
					 "valid range 0..%" PRIu64,
					 pmu->name, c->key, v, f->width, fmt_max(f));
				ret = HWS_E_CONTROL_RANGE;
				goto out;
			}
			fmt_put(f, v, &ext[f->config - 3]);
			continue;
		}
		ret = set_ctl(sp, pmu, c->key, v, attr, err, errlen);
		if (ret)
			goto out;
	}
	*hws_event_desc__config(&out[0], 3) = ext[0];
	*hws_event_desc__config(&out[0], 4) = ext[1];
	{
		const struct hws_pmu_format *pa = sp->host->pmu_format(pmu, "pa_enable");

		if (pa && fmt_get(pa, attr, &out[0]))
			attr->sample_type |= PERF_SAMPLE_PHYS_ADDR;
	}
	attr->freq = 0;
	attr->exclude_idle = 0; /* the driver refuses exclude_idle */
	snprintf(out[0].pmu, sizeof(out[0].pmu), "%s", pmu->name);
	nlen = (size_t)snprintf(out[0].name, sizeof(out[0].name), "%s/", pmu->name);
	for (uint32_t f = 0; f < pmu->nr_formats && nlen < sizeof(out[0].name); f++) {
		uint64_t fv = fmt_get(&pmu->formats[f], attr, &out[0]);

		if (!fv)
			continue;
		nlen += (size_t)snprintf(out[0].name + nlen, sizeof(out[0].name) - nlen,
					 fv == 1 ? "%s%s" : "%s%s=0x%" PRIx64,
					 out[0].name[nlen - 1] == '/' ? "" : ",",
					 pmu->formats[f].name, fv);
	}
	if (nlen < sizeof(out[0].name) - 1)
		snprintf(out[0].name + nlen, sizeof(out[0].name) - nlen, "/");
	out[0].group_leader = -1;
	out[0].flags = HWS_EVF_AUX;
	ret = 1;
out:
	free(pmu);
	return ret;
}

int spe_controls(void *priv, const char *pmu_name, struct hws_control_info *out, int max)
{
	struct spe_priv *sp = priv;
	struct hws_pmu *pmu = calloc(1, sizeof(*pmu));
	char err[256];
	int n = 0;

	if (!pmu)
		return -ENOMEM;
	if (load_pmu(sp, pmu_name, pmu, err, sizeof(err))) {
		free(pmu);
		return 0;
	}
	for (uint32_t i = 0; i < pmu->nr_formats; i++, n++) {
		int k = known_index(pmu->formats[i].name);

		if (n >= max)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		snprintf(out[n].name, sizeof(out[n].name), "%s", pmu->formats[i].name);
		snprintf(out[n].help, sizeof(out[n].help), "%s",
			 k >= 0 ? known_controls[k].help : "(listed by the kernel)");
		out[n].max = fmt_max(&pmu->formats[i]);
		out[n].def = !strcmp(pmu->formats[i].name, "ts_enable") ? 1 : 0;
	}
	if (n < max) {
		const char *cap = sp->host->pmu_cap(pmu, "min_interval");
		uint64_t mi = 0;

		memset(&out[n], 0, sizeof(out[n]));
		snprintf(out[n].name, sizeof(out[n].name), "period");
		snprintf(out[n].help, sizeof(out[n].help),
			 "sampling interval in operations (default caps/min_interval)");
		out[n].min = (cap && !parse_u64(cap, &mi)) ? mi : 1;
		out[n].max = UINT32_MAX;
		out[n].def = out[n].min > 1 ? out[n].min : 4096;
	}
	n++;
	free(pmu);
	return n;
}
