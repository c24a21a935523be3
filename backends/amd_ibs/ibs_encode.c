// SPDX-License-Identifier: MIT
/*
 * AMD IBS: request -> perf_event_attr, the control list, and detection.
 *
 * Invariants:
 *  - the PMU type, every control's bit position and the caps come from sysfs
 *    (<root>/bus/event_source/devices/ibs_op|ibs_fetch, root = host->sysfs_root())
 *    through host->pmu_load/pmu_set; nothing here knows a config bit number;
 *  - what this file does know is *which* hardware and kernel provide a control (the table
 *    below; tests/sysfs/amd-zen4/README.md shows each generation's format and caps), so an
 *    error can say what is missing and why;
 *  - the kernel's IBS period rules (Linux arch/x86/events/amd/ibs.c, perf_ibs_init()): a
 *    period is a multiple of 16
 *    (MaxCnt = period >> 4), at least 16, at most 0xFFFF0 for fetch and 0x7FFFFF0 for op
 *    (OpMaxCnt plus the 7 extension bits every Zen CPU has);
 *  - per-task IBS events exist only from Linux 6.2 (before, the PMU is CPU-context only).
 * CPU facts for messages and detection come from the host's cpuinfo (host->cpuinfo and
 * host->cpu_flag: /proc/cpuinfo, or a fake machine's).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibs.h"

#define KV(a, b, c)	     HWS_KERNEL_VERSION(a, b, c)
#define IBS_FETCH_MAX_PERIOD 0xFFFF0ULL
#define IBS_OP_MAX_PERIOD    0x7FFFFF0ULL
#define IBS_DEFAULT_FREQ     4000

/* Controls IBS kernels have defined, and what provides them. */
struct ibs_known_control {
	const char *name;
	const char *pmu; /* "ibs_op", "ibs_fetch" or NULL for both */
	const char *help;
	const char *needs; /* hardware and kernel that add it */
	uint64_t min, max; /* 0,0: from the format width */
};

static const struct ibs_known_control known[] = {
    {"cnt_ctl", "ibs_op", "count the period in dispatched ops (1) instead of cycles (0)",
     "IBS op counter control (CPUID caps OPCNT, every Zen CPU) and a kernel exporting "
     "format/cnt_ctl",
     0, 0},
    {"l3missonly", NULL, "sample only ops/fetches that missed the L3 cache",
     "IBS Zen 4 extensions (AMD Zen 4 or later: family 19h models 10h-1Fh/60h-7Fh/A0h-AFh, "
     "family 1Ah) and Linux 5.19 or later",
     0, 0},
    {"rand_en", "ibs_fetch", "randomise the low 4 bits of the fetch counter", "any IBS fetch PMU",
     0, 0},
    {"swfilt", NULL, "filter user/kernel samples in software (allows exclude_user/kernel)",
     "Linux 6.14 or later", 0, 0},
    {"ldlat", "ibs_op", "sample only loads with a DC miss latency above N cycles (128..2048)",
     "IBS load latency filtering (CPUID caps OPLDLAT: AMD Zen 5, family 1Ah) and Linux 6.15 "
     "or later",
     128, 2048},
    {"fetchlat", "ibs_fetch", "sample only fetches with a latency above N cycles (128..1920)",
     "IBS fetch latency filtering (CPUID caps FETCHLAT, after Zen 5) and a kernel newer than "
     "6.19",
     128, 1920},
    {"strmst", "ibs_op", "sample only streaming stores",
     "IBS streaming-store filtering (CPUID caps STRMST_RMTSOCKET, after Zen 5) and a kernel "
     "newer than 6.19",
     0, 0},
};

static const struct ibs_known_control *known_control(const char *name)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i].name, name))
			return &known[i];
	return NULL;
}

static bool known_on(const struct ibs_known_control *k, const char *pmu)
{
	return !k->pmu || !strcmp(k->pmu, pmu);
}

/* ---- host CPU ---- */

static const char *zen_name(unsigned int family, unsigned int model)
{
	if (family == 0x17)
		return model >= 0x30 ? "Zen 2" : "Zen/Zen+";
	if (family == 0x19) {
		if (model <= 0x0f || (model >= 0x20 && model <= 0x5f))
			return "Zen 3";
		return "Zen 4";
	}
	if (family == 0x1a)
		return "Zen 5";
	if (family > 0x1a)
		return "post-Zen 5";
	return "pre-Zen";
}

static unsigned int cpuinfo_uint(const struct hws_host *host, const char *key)
{
	char v[32];

	return host->cpuinfo(key, v, sizeof(v)) > 0 ? (unsigned int)strtoul(v, NULL, 10) : 0;
}

void ibs_host_cpu__read(struct ibs_host_cpu *hc, const struct hws_host *host)
{
	memset(hc, 0, sizeof(*hc));
	if (host->cpuinfo("vendor_id", hc->vendor, sizeof(hc->vendor)) < 0)
		return;
	hc->found = true;
	hc->amd = !strcmp(hc->vendor, "AuthenticAMD");
	hc->family = cpuinfo_uint(host, "cpu family");
	hc->model = cpuinfo_uint(host, "model");
	hc->ibs_flag = host->cpu_flag("ibs") == 1;
	hc->hypervisor = host->cpu_flag("hypervisor") == 1;
}

static int why_absent(const struct hws_host *host, const char *pmu, char *why, size_t len)
{
	struct ibs_host_cpu hc;
	const char *root = host->sysfs_root();
	bool fake = strcmp(root, "/sys") != 0;

	ibs_host_cpu__read(&hc, host);
	if (!hc.found) {
		snprintf(why, len,
			 "no %s PMU under %s/bus/event_source/devices (IBS needs an AMD "
			 "CPU, bare metal, and IBS enabled in firmware)",
			 pmu, host->sysfs_root());
	} else if (!hc.amd) {
		snprintf(why, len, "no %s PMU: IBS is an AMD feature and this CPU is %s", pmu,
			 hc.vendor);
	} else if (!hc.ibs_flag && hc.hypervisor) {
		snprintf(why, len,
			 "no %s PMU: running virtualised (cpuinfo has 'hypervisor', no "
			 "'ibs'); hypervisors do not pass IBS through: run on bare metal",
			 pmu);
	} else if (!hc.ibs_flag) {
		snprintf(
		    why, len,
		    "no %s PMU: this AMD CPU (family %xh model %xh) reports no 'ibs' "
		    "flag: IBS is disabled in firmware (enable IBS in the BIOS setup) or absent",
		    pmu, hc.family, hc.model);
	} else {
		snprintf(why, len,
			 "no %s PMU%s%s although the CPU has IBS: the kernel lacks the IBS "
			 "driver (CONFIG_CPU_SUP_AMD, CONFIG_PERF_EVENTS) or IBS setup failed "
			 "(firmware did not assign the IBS LVT offset: see dmesg | grep -i ibs)",
			 pmu, fake ? " under " : "", fake ? root : "");
	}
	return 0;
}

int ibs_detect(struct ibs_priv *p, char *why, size_t len)
{
	struct hws_pmu *pmu = &p->pmu;
	bool op = p->host->pmu_load("ibs_op", pmu) == 0;
	uint32_t op_type = pmu->type;
	bool fetch = p->host->pmu_load("ibs_fetch", pmu) == 0;

	if (!op && !fetch) {
		why_absent(p->host, "ibs_op", why, len);
		return 0;
	}
	if (op && fetch)
		snprintf(why, len, "ibs_op (type %u) and ibs_fetch (type %u)", op_type, pmu->type);
	else
		snprintf(why, len, "%s (type %u)", op ? "ibs_op" : "ibs_fetch",
			 op ? op_type : pmu->type);
	return 50;
}

/* ---- controls ---- */

static void format_kv(uint32_t kv, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u", kv >> 16, (kv >> 8) & 0xff, kv & 0xff);
}

static int list_valid(const struct hws_pmu *pmu, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < pmu->nr_formats && n < len; i++) {
		int r = snprintf(buf + n, len - n, "%s%s", n ? ", " : "", pmu->formats[i].name);

		if (r < 0)
			break;
		n += (size_t)r;
	}
	if (!pmu->nr_formats)
		snprintf(buf, len, "(none)");
	return 0;
}

/* "config1:0-11" from a parsed format, as sysfs spells it. */
static void format_spec(const struct hws_pmu_format *f, char *buf, size_t len)
{
	size_t n;

	if (f->config)
		n = (size_t)snprintf(buf, len, "config%u:", f->config);
	else
		n = (size_t)snprintf(buf, len, "config:");
	for (unsigned int i = 0; i < f->nr_ranges && i < HWS_PMU_MAX_RANGES && n < len; i++) {
		if (f->ranges[i].lo == f->ranges[i].hi)
			n += (size_t)snprintf(buf + n, len - n, "%s%u", i ? "," : "",
					      f->ranges[i].lo);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%u-%u", i ? "," : "",
					      f->ranges[i].lo, f->ranges[i].hi);
	}
}

int ibs_controls(struct ibs_priv *p, const char *pmu_name, struct hws_control_info *out, int max)
{
	struct hws_pmu *pmu = &p->pmu;
	const char *name = pmu_name ? pmu_name : "ibs_op";
	int n = 0;

	if (p->host->pmu_load(name, pmu))
		return 0;
	for (uint32_t i = 0; i < pmu->nr_formats; i++, n++) {
		const struct hws_pmu_format *f = &pmu->formats[i];
		const struct ibs_known_control *k = known_control(f->name);
		struct hws_control_info *c;
		char spec[64];

		if (n >= max)
			continue;
		c = &out[n];
		memset(c, 0, sizeof(*c));
		snprintf(c->name, sizeof(c->name), "%s", f->name);
		format_spec(f, spec, sizeof(spec));
		snprintf(c->help, sizeof(c->help), "%s (%s)", k ? k->help : "IBS control", spec);
		c->min = k && k->max ? k->min : 0;
		c->max = k && k->max ? k->max : (f->width >= 64 ? ~0ULL : (1ULL << f->width) - 1);
		c->def = 0;
	}
	return n;
}

static int fail(int ret, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(int ret, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static int control_missing(struct ibs_priv *p, const struct hws_pmu *pmu, const char *key,
			   uint32_t kv, char *err, size_t errlen)
{
	const struct ibs_known_control *k = known_control(key);
	struct ibs_host_cpu hc;
	char valid[512], kbuf[32], cpu[96];

	list_valid(pmu, valid, sizeof(valid));
	if (!k)
		return fail(HWS_E_UNKNOWN_CONTROL, err, errlen,
			    "%s: unknown control '%s'; valid controls for %s on this machine: %s",
			    pmu->name, key, pmu->name, valid);
	if (!known_on(k, pmu->name))
		return fail(HWS_E_UNKNOWN_CONTROL, err, errlen,
			    "%s: unknown control '%s' (it is a %s control); valid controls for %s "
			    "on this machine: %s",
			    pmu->name, key, k->pmu, pmu->name, valid);
	ibs_host_cpu__read(&hc, p->host);
	if (hc.found && hc.amd)
		snprintf(cpu, sizeof(cpu), "family %xh model %xh, %s", hc.family, hc.model,
			 zen_name(hc.family, hc.model));
	else
		snprintf(cpu, sizeof(cpu), "unknown CPU");
	if (kv)
		format_kv(kv, kbuf, sizeof(kbuf));
	else
		snprintf(kbuf, sizeof(kbuf), "unknown");
	return fail(HWS_E_UNSUPPORTED, err, errlen,
		    "%s: control '%s' is not available on this CPU/kernel (CPU: %s; kernel %s): "
		    "it needs %s; valid controls here: %s",
		    pmu->name, key, cpu, kbuf, k->needs, valid);
}

/* Value of format @name in @attr (0 if the PMU has no such format). */
static uint64_t format_get(struct ibs_priv *p, const struct hws_perf_event_attr *attr,
			   const char *name)
{
	const struct hws_pmu_format *f = p->host->pmu_format(&p->pmu, name);
	const uint64_t words[4] = {attr->config, attr->config1, attr->config2, 0};
	uint64_t v = 0, w;
	unsigned int shift = 0;

	if (!f || f->config > 2)
		return 0;
	w = words[f->config];
	for (unsigned int i = 0; i < f->nr_ranges && i < HWS_PMU_MAX_RANGES; i++) {
		unsigned int n = (unsigned int)(f->ranges[i].hi - f->ranges[i].lo + 1);

		v |= ibs_bits(w, f->ranges[i].lo, n) << shift;
		shift += n;
	}
	return v;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

int ibs_encode(struct ibs_priv *p, const struct hws_event_request *req, struct hws_event_desc *out,
	       int max, char *err, size_t errlen)
{
	const char *name = req->pmu;
	struct hws_pmu *pmu = &p->pmu;
	struct hws_perf_event_attr *attr;
	bool op, skew = false;
	uint32_t kv = req->kernel_version;
	uint64_t maxp;
	size_t nl;
	int ret;

	/* c2c needs op samples (data address and source; fetch samples have neither): ibs_op
	 * whichever IBS PMU was named. Every op is taken: no load latency threshold (ldlat), as
	 * perf c2c on AMD */
	if (req->flags & HWS_REQ_C2C)
		name = "ibs_op";
	if (req->event && *req->event) {
		if (strcmp(req->event, "ibs_op") && strcmp(req->event, "ibs_fetch"))
			return fail(HWS_E_UNKNOWN_EVENT, err, errlen,
				    "amd_ibs: no event '%s': IBS has two samplers, ibs_op "
				    "(executed ops: loads, stores, branches) and ibs_fetch "
				    "(instruction fetches); ask for the PMU ibs_op or ibs_fetch "
				    "(hws_event_request.pmu)",
				    req->event);
		if (name && strcmp(name, "amd_ibs") && strcmp(name, req->event))
			return fail(HWS_E_BAD_ARG, err, errlen,
				    "amd_ibs: PMU %s (hws_event_request.pmu) and "
				    "event %s (hws_event_request.event) disagree",
				    name, req->event);
		name = req->event;
	}
	if (!name || !strcmp(name, "amd_ibs"))
		name = "ibs_op";
	if (strcmp(name, "ibs_op") && strcmp(name, "ibs_fetch"))
		return fail(HWS_E_NO_PMU, err, errlen,
			    "amd_ibs: '%s' is not an IBS PMU (use ibs_op or ibs_fetch)", name);
	op = !strcmp(name, "ibs_op");
	if (max < 1)
		return fail(HWS_E_TOO_BIG, err, errlen, "amd_ibs: no room for the event");

	ret = p->host->pmu_load(name, pmu);
	if (ret) {
		char why[512];

		why_absent(p->host, name, why, sizeof(why));
		return fail(ret == -ENOENT ? HWS_E_NO_PMU : ret, err, errlen, "%s", why);
	}

	if (kv && kv < KV(6, 2, 0) && !(req->flags & HWS_REQ_SYSTEM_WIDE)) {
		char kbuf[32];

		format_kv(kv, kbuf, sizeof(kbuf));
		return fail(
		    HWS_E_UNSUPPORTED, err, errlen,
		    "%s: per-process IBS sampling needs Linux 6.2 or later (this kernel is "
		    "%s, where IBS events are CPU-wide only): record all CPUs or a CPU list "
		    "(hws_session_opts.system_wide/cpu_list)",
		    name, kbuf);
	}

	memset(out, 0, sizeof(*out));
	attr = &out->attr;
	attr->size = sizeof(*attr);
	attr->type = pmu->type;
	out->group_leader = -1;
	snprintf(out->pmu, sizeof(out->pmu), "%s", name);
	nl = (size_t)snprintf(out->name, sizeof(out->name), "%s/", name);

	for (uint32_t i = 0; i < req->nr_controls; i++) {
		const struct hws_control *c = &req->controls[i];
		const struct ibs_known_control *k;
		uint64_t v;

		if (!p->host->pmu_format(pmu, c->key))
			return control_missing(p, pmu, c->key, kv, err, errlen);
		if (parse_u64(c->value, &v))
			return fail(
			    HWS_E_BAD_ARG, err, errlen,
			    "%s: %s=%s: value must be a non-negative number (decimal or 0x hex)",
			    name, c->key, c->value);
		k = known_control(c->key);
		if (k && k->max && (v < k->min || v > k->max))
			return fail(HWS_E_CONTROL_RANGE, err, errlen,
				    "%s: %s=%" PRIu64 " is out of range; valid range %" PRIu64
				    "..%" PRIu64 " cycles",
				    name, c->key, v, k->min, k->max);
		ret = p->host->pmu_set(pmu, c->key, v, attr, err, errlen);
		if (ret)
			return ret;
		if ((!strcmp(c->key, "l3missonly") || !strcmp(c->key, "ldlat") ||
		     !strcmp(c->key, "fetchlat")) &&
		    v)
			skew = true;
		if (nl < sizeof(out->name))
			nl += (size_t)snprintf(out->name + nl, sizeof(out->name) - nl, "%s%s=%s",
					       i ? "," : "", c->key, c->value);
	}
	if (nl < sizeof(out->name))
		snprintf(out->name + nl, sizeof(out->name) - nl, "/");

	if (req->period && req->freq)
		return fail(HWS_E_BAD_ARG, err, errlen,
			    "%s: give either a period (hws_event_request.period) or a "
			    "frequency (hws_event_request.freq), not both",
			    name);
	maxp = op ? IBS_OP_MAX_PERIOD : IBS_FETCH_MAX_PERIOD;
	if (req->period) {
		const char *unit = !op				    ? "fetches"
				   : format_get(p, attr, "cnt_ctl") ? "dispatched ops"
								    : "cycles";
		uint64_t lo = req->period & ~0xfULL;

		if (req->period < 16 || req->period > maxp)
			return fail(HWS_E_BAD_ARG, err, errlen,
				    "%s: period %" PRIu64 " (%s) is out of range: IBS periods go "
				    "from 16 to %" PRIu64 " in steps of 16",
				    name, req->period, unit, maxp);
		if (req->period & 0xf)
			return fail(HWS_E_BAD_ARG, err, errlen,
				    "%s: period %" PRIu64
				    " (%s) is not a multiple of 16: IBS counts "
				    "in units of 16 (MaxCnt = period/16); use a period "
				    "(hws_event_request.period) of %" PRIu64 " or %" PRIu64,
				    name, req->period, unit, lo, lo + 16 > maxp ? lo : lo + 16);
		attr->sample_period = req->period;
	} else {
		attr->freq = 1;
		attr->sample_freq = req->freq ? req->freq : IBS_DEFAULT_FREQ;
	}

	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW | PERF_SAMPLE_IDENTIFIER;
	/* The kernel fills ADDR/DATA_SRC/WEIGHT/PHYS_ADDR for IBS op samples from 6.1 on. */
	if (op && (!kv || kv >= KV(6, 1, 0))) {
		attr->sample_type |=
		    PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT;
		if (req->flags & (HWS_REQ_PHYS_ADDR | HWS_REQ_C2C))
			attr->sample_type |= PERF_SAMPLE_PHYS_ADDR;
	}
	if (kv && kv < KV(6, 2, 0))
		out->flags |= HWS_EVF_CPU_ONLY;
	if (skew)
		out->flags |= HWS_EVF_PERIOD_SKEW;
	if (req->flags & HWS_REQ_C2C) {
		struct ibs_host_cpu hc;

		/* CacheHitSt is unreliable on family 19h models 00h-0Fh and 20h-5Fh, so the
		 * kernel reports no HITM there (Linux arch/x86/events/amd/ibs.c,
		 * perf_ibs_cache_hit_st_valid(); perf c2c: unsupported on Zen 3) */
		ibs_host_cpu__read(&hc, p->host);
		if (hc.amd && hc.family == 0x19 &&
		    (hc.model <= 0x0f || (hc.model >= 0x20 && hc.model <= 0x5f)))
			p->host->log(HWS_LOG_WARN,
				     "%s: this CPU (family 19h model %xh) has unreliable IBS cache "
				     "hit state: c2c will see no HITM; false sharing shows only as "
				     "peer-cache loads\n",
				     name, hc.model);
	}
	return 1;
}
