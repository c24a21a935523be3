// SPDX-License-Identifier: MIT
/*
 * intel_pebs encoding: event names -> struct hws_perf_event_attr.
 *
 * Names are resolved in two ways:
 *  - the kernel aliases mem-loads, mem-stores (and the internal mem-loads-aux) from
 *    sysfs <pmu>/events/<alias> ("event=0xcd,umask=0x1,ldlat=3"), written through the
 *    PMU's format/ files; pebs_models[] supplies the kernel's value when the file is absent;
 *  - every other name through libpfm4 pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT) for
 *    the running CPU (or LIBPFM_FORCE_PMU), qualified with the libpfm4 model of a hybrid
 *    PMU ("adl_glc::...") on cpu_core / cpu_atom.
 *
 * Invariants:
 *  - libpfm4 is (re)initialised lazily and again whenever LIBPFM_FORCE_PMU changed, so
 *    tests can walk several models in one process. It is process-global state.
 *  - Every error names what to do: the valid controls, the range, the precise events of
 *    this core, the closest event names libpfm4 knows, or why PEBS is absent here.
 *  - precise_ip defaults to the highest level the event gets on this core (perf's :P):
 *    caps/max_precise, capped at 2 unless the model grants 3 to this event.
 *  - A load-latency event (0x1cd) on a PMU that lists events/mem-loads-aux is preceded by
 *    its mem-loads-aux group leader, as the kernel demands (intel_pmu_hw_config).
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfmon/pfmlib.h>

#include "pebs_priv.h"

/*
 * libpfm4's pfmlib_perf_event.h brings its own copy of the perf_event uapi, which clashes
 * with <linux/perf_event.h>. Only this argument block is needed from it; its layout is
 * libpfm4's ABI (PFM_PERF_ENCODE_ABI0, 40 bytes) and libpfm4 writes the attr fields it
 * knows, which are a prefix of the uapi struct.
 */
struct pebs_pfm_arg {
	struct hws_perf_event_attr *attr;
	char **fstr;
	size_t size;
	int idx;
	int cpu;
	int flags;
	int pad0;
};

/* ------------------------------------------------------------------ libpfm4 state */

/*
 * libpfm4 is opened when an event name needs it (pfm_ensure()), not linked: its 41,000
 * relocations would otherwise be paid at every load of this backend, i.e. by every hwsample
 * command (1.5 ms on the development VM), while only encoding a libpfm4 event name (record,
 * --dry-run) uses it. Every libpfm4 4.x has the SONAME libpfm.so.4.
 */
#define PFM_LIB_NAME "libpfm.so.4"

static struct {
	pfm_err_t (*initialize)(void);
	void (*terminate)(void);
	int (*get_version)(void);
	const char *(*strerror)(int);
	pfm_err_t (*get_os_event_encoding)(const char *, int, pfm_os_t, void *);
	pfm_err_t (*get_pmu_info)(pfm_pmu_t, pfm_pmu_info_t *);
	pfm_err_t (*get_event_info)(int, pfm_os_t, pfm_event_info_t *);
	pfm_err_t (*get_event_attr_info)(int, int, pfm_os_t, pfm_event_attr_info_t *);
	int (*get_event_next)(int);
	bool tried, ok;
	char err[160];
} lp;

static bool pfm_load(void)
{
	void *h;

	if (lp.tried)
		return lp.ok;
	lp.tried = true;
	h = dlopen(PFM_LIB_NAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(lp.err, sizeof(lp.err), "%s", dlerror());
		return false;
	}
	*(void **)&lp.initialize = dlsym(h, "pfm_initialize");
	*(void **)&lp.terminate = dlsym(h, "pfm_terminate");
	*(void **)&lp.get_version = dlsym(h, "pfm_get_version");
	*(void **)&lp.strerror = dlsym(h, "pfm_strerror");
	*(void **)&lp.get_os_event_encoding = dlsym(h, "pfm_get_os_event_encoding");
	*(void **)&lp.get_pmu_info = dlsym(h, "pfm_get_pmu_info");
	*(void **)&lp.get_event_info = dlsym(h, "pfm_get_event_info");
	*(void **)&lp.get_event_attr_info = dlsym(h, "pfm_get_event_attr_info");
	*(void **)&lp.get_event_next = dlsym(h, "pfm_get_event_next");
	lp.ok = lp.initialize && lp.terminate && lp.get_version && lp.strerror &&
		lp.get_os_event_encoding && lp.get_pmu_info && lp.get_event_info &&
		lp.get_event_attr_info && lp.get_event_next;
	if (!lp.ok) {
		snprintf(lp.err, sizeof(lp.err), "%s lacks a function this backend uses",
			 PFM_LIB_NAME);
		dlclose(h);
	}
	return lp.ok;
}

static int pfm_ready;
static char pfm_force[64];

/*
 * LIBPFM_FORCE_PMU is libpfm4's own variable: libpfm4 reads it in lp.initialize(). This
 * backend reads it too, as the only way to learn what libpfm4 was told: libpfm4 has no call
 * that names the forced PMU, and after lp.terminate() it still reports earlier forced PMUs
 * present, so the name qualifies events (pfm_core_pmu()) and a change means initialising
 * again. It is not a hwsample setting (the library reads no environment); a plugin may read
 * the variables of the libraries it uses.
 */
static int pfm_ensure(void)
{
	const char *f = getenv("LIBPFM_FORCE_PMU");
	int ret;

	if (!pfm_load())
		return HWS_E_UNSUPPORTED;
	if (!f)
		f = "";
	if (pfm_ready && !strcmp(f, pfm_force))
		return 0;
	if (pfm_ready)
		lp.terminate();
	pfm_ready = 0;
	ret = lp.initialize();
	if (ret != PFM_SUCCESS)
		return HWS_E_UNSUPPORTED;
	snprintf(pfm_force, sizeof(pfm_force), "%s", f);
	pfm_ready = 1;
	return 0;
}

/*
 * libpfm4 PMU that names the events of this core: LIBPFM_FORCE_PMU, else the first present
 * core PMU. Names are always qualified with it ("skl::MEM_..."): libpfm4 4.13's
 * lp.terminate() leaves earlier forced PMUs active, so an unqualified name could resolve
 * on a model tested before. NULL when libpfm4 knows no core PMU here.
 */
static const char *pfm_core_pmu(char *buf, size_t len)
{
	pfm_pmu_info_t pi;
	int pm;

	if (pfm_force[0]) {
		snprintf(buf, len, "%s", pfm_force);
		return buf;
	}
	for (pm = PFM_PMU_NONE; pm < PFM_PMU_MAX; pm++) {
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (lp.get_pmu_info((pfm_pmu_t)pm, &pi) == PFM_SUCCESS && pi.name &&
		    pi.is_present && pi.type == PFM_PMU_TYPE_CORE) {
			snprintf(buf, len, "%s", pi.name);
			return buf;
		}
	}
	return NULL;
}

void pebs_pfm_release(void)
{
	if (pfm_ready)
		lp.terminate();
	pfm_ready = 0;
}

/* ------------------------------------------------------------------ helpers */

struct pebs_opts {
	long ldlat;	/* -1: not given */
	long ldlat_def; /* for load-latency events without ldlat: 30, or c2c's (HWS_REQ_LDLAT) */
	int precise;	/* -1: not given */
	int phys;
	int data_psz;
	int code_psz;
	int ldlat_used; /* some event of the request took ldlat */
};

static const struct hws_control_info pebs_ctl_info[] = {
    {"ldlat", "load-latency threshold in core cycles (load-latency events; default 30)",
     PEBS_LDLAT_MIN, PEBS_LDLAT_MAX, PEBS_LDLAT_DEFAULT},
    {"precise", "precise_ip level 0..3 (default: the highest the event gets here)", 0, 3, 3},
    {"phys_addr", "also record the data physical address (PERF_SAMPLE_PHYS_ADDR)", 0, 1, 0},
    {"data_page_size", "record the data page size (PERF_SAMPLE_DATA_PAGE_SIZE)", 0, 1, 0},
    {"code_page_size", "record the code page size (PERF_SAMPLE_CODE_PAGE_SIZE)", 0, 1, 0},
};
#define NR_CTL (sizeof(pebs_ctl_info) / sizeof(pebs_ctl_info[0]))

int pebs_controls(struct pebs_priv *p, const char *pmu, struct hws_control_info *out, int max)
{
	int i;

	for (i = 0; i < (int)NR_CTL && i < max; i++)
		out[i] = pebs_ctl_info[i];
	return (int)NR_CTL;
}

static int parse_opts(const struct hws_event_request *req, struct pebs_opts *o, char *err,
		      size_t errlen)
{
	uint32_t i;
	size_t k;

	o->ldlat = -1;
	o->precise = -1;
	o->phys = !!(req->flags & (HWS_REQ_PHYS_ADDR | HWS_REQ_C2C));
	o->data_psz = o->code_psz = 0;
	o->ldlat_used = 0;
	o->ldlat_def = PEBS_LDLAT_DEFAULT;
	if (req->flags & HWS_REQ_C2C) {
		/* c2c: the threshold of its mem-loads (perf c2c record --ldlat) */
		uint64_t v = hws_event_request__ldlat(req, PEBS_LDLAT_DEFAULT);

		if (v < PEBS_LDLAT_MIN || v > PEBS_LDLAT_MAX) {
			snprintf(err, errlen,
				 "intel_pebs: ldlat=%llu out of range: the load-latency threshold "
				 "is %d..%d cycles (config1:0-15)",
				 (unsigned long long)v, PEBS_LDLAT_MIN, PEBS_LDLAT_MAX);
			return HWS_E_CONTROL_RANGE;
		}
		o->ldlat_def = (long)v;
	}
	for (i = 0; i < req->nr_controls; i++) {
		const struct hws_control *c = &req->controls[i];
		unsigned long long v;
		char *end;

		for (k = 0; k < NR_CTL; k++)
			if (!strcmp(c->key, pebs_ctl_info[k].name))
				break;
		if (k == NR_CTL) {
			snprintf(err, errlen,
				 "intel_pebs: unknown control '%s'; valid: ldlat=N (%d..%d), "
				 "precise=0..3, phys_addr=0|1, data_page_size=0|1, "
				 "code_page_size=0|1",
				 c->key, PEBS_LDLAT_MIN, PEBS_LDLAT_MAX);
			return HWS_E_UNKNOWN_CONTROL;
		}
		errno = 0;
		v = strtoull(c->value, &end, 0);
		if (errno || end == c->value || *end || c->value[0] == '-') {
			snprintf(err, errlen, "intel_pebs: %s=%s is not a number", c->key,
				 c->value);
			return HWS_E_BAD_ARG;
		}
		if (v < pebs_ctl_info[k].min || v > pebs_ctl_info[k].max) {
			if (k == 0)
				snprintf(err, errlen,
					 "intel_pebs: ldlat=%s out of range: the load-latency "
					 "threshold is %d..%d cycles (config1:0-15)",
					 c->value, PEBS_LDLAT_MIN, PEBS_LDLAT_MAX);
			else
				snprintf(err, errlen, "intel_pebs: %s=%s out of range %llu..%llu",
					 c->key, c->value, (unsigned long long)pebs_ctl_info[k].min,
					 (unsigned long long)pebs_ctl_info[k].max);
			return HWS_E_CONTROL_RANGE;
		}
		switch (k) {
		case 0:
			o->ldlat = (long)v;
			break;
		case 1:
			o->precise = (int)v;
			break;
		case 2:
			o->phys = (int)v;
			break;
		case 3:
			o->data_psz = (int)v;
			break;
		default:
			o->code_psz = (int)v;
			break;
		}
	}
	return 0;
}

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return (int)n;
}

/* sysfs <pmu>/events/<alias>, 0 or -errno */
static int read_alias(struct pebs_priv *p, const char *pmu, const char *alias, char *buf,
		      size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/events/%s",
		 p->host->sysfs_root(), pmu, alias);
	return read_small(path, buf, len) < 0 ? -ENOENT : 0;
}

int pebs_core_pmus(struct pebs_priv *p, char (*names)[HWS_PMU_NAME_MAX], int max)
{
	struct hws_pmu pmu;
	int n = 0;

	if (!p->host->pmu_load("cpu", &pmu)) {
		if (max > 0)
			snprintf(names[0], HWS_PMU_NAME_MAX, "cpu");
		return 1;
	}
	if (!p->host->pmu_load("cpu_core", &pmu) && n < max)
		snprintf(names[n++], HWS_PMU_NAME_MAX, "cpu_core");
	if (!p->host->pmu_load("cpu_atom", &pmu) && n < max)
		snprintf(names[n++], HWS_PMU_NAME_MAX, "cpu_atom");
	return n;
}

/* Vendor from the host's cpuinfo. A fake machine without a cpuinfo file is taken at its
 * word. 1 Intel, 0 not (vendor in @vendor), -1 unknown. */
static int cpu_is_intel(struct pebs_priv *p, char *vendor, size_t len)
{
	if (p->host->cpuinfo("vendor_id", vendor, len) < 0)
		return -1;
	return !strcmp(vendor, "GenuineIntel");
}

/* PEBS usable on PMU @name? 0, or negative with the reason in @why. */
static int pmu_check(struct pebs_priv *p, const char *name, struct hws_pmu *pmu, char *why,
		     size_t len)
{
	const char *pn, *mp;

	if (p->host->pmu_load(name, pmu)) {
		snprintf(why, len,
			 "intel_pebs: no '%s' PMU under %s/bus/event_source/devices: the kernel "
			 "has no Intel core PMU driver here (a virtual machine without a "
			 "virtual PMU?)",
			 name, p->host->sysfs_root());
		return HWS_E_NO_PMU;
	}
	pn = p->host->pmu_cap(pmu, "pmu_name");
	mp = p->host->pmu_cap(pmu, "max_precise");
	if (pn && !strncmp(pn, "generic_arch", 12)) {
		snprintf(why, len,
			 "intel_pebs: PEBS unavailable: %s/caps/pmu_name is '%s' (architectural "
			 "perfmon only: unknown model or a hypervisor that hides PEBS)",
			 name, pn);
		return HWS_E_UNSUPPORTED;
	}
	if (mp && atoi(mp) == 0) {
		snprintf(why, len,
			 "intel_pebs: PEBS unavailable: %s/caps/max_precise is 0 (PEBS disabled "
			 "or not virtualised%s; on a VM enable the guest PEBS / vPMU option)",
			 name,
			 p->host->cpu_flag("hypervisor") == 1 ? ": this is a virtual machine" : "");
		return HWS_E_UNSUPPORTED;
	}
	return 0;
}

int pebs_check_available(struct pebs_priv *p, int check_vendor, char *why, size_t len)
{
	char names[2][HWS_PMU_NAME_MAX];
	char vendor[64] = "";
	struct hws_pmu pmu;
	int n, i, ret;

	why[0] = '\0';
	if (check_vendor && cpu_is_intel(p, vendor, sizeof(vendor)) == 0) {
		snprintf(why, len,
			 "intel_pebs: not an Intel CPU (vendor_id %s): PEBS is Intel-only; "
			 "use amd_ibs on AMD, arm_spe on Arm",
			 vendor);
		return HWS_E_NO_PMU;
	}
	n = pebs_core_pmus(p, names, 2);
	if (n == 0)
		return pmu_check(p, "cpu", &pmu, why, len);
	for (i = 0; i < n; i++) {
		ret = pmu_check(p, names[i], &pmu, why, len);
		if (ret)
			return ret;
	}
	return 0;
}

/* Edit distance, bounded (names are short). */
static unsigned int distance(const char *a, const char *b)
{
	unsigned int row[96], i, j, la = (unsigned int)strlen(a), lb = (unsigned int)strlen(b);

	if (la > 95)
		la = 95;
	if (lb > 95)
		lb = 95;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		unsigned int prev = row[0], tmp;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			unsigned int cost =
			    toupper((unsigned char)a[i - 1]) != toupper((unsigned char)b[j - 1]);
			unsigned int best = prev + cost;

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

/* "EVENT.UMASK" names of the present libpfm4 core PMUs, calling @fn for each. */
static void for_each_pfm_name(const char *pfm_pmu,
			      void (*fn)(void *ctx, const char *name, int precise), void *ctx)
{
	pfm_pmu_info_t pinfo;
	int pmu;

	for (pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; pmu++) {
		int e;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (lp.get_pmu_info((pfm_pmu_t)pmu, &pinfo) != PFM_SUCCESS || !pinfo.name)
			continue;
		if (pfm_pmu ? strcmp(pinfo.name, pfm_pmu) : !pinfo.is_present)
			continue;
		if (pinfo.type != PFM_PMU_TYPE_CORE)
			continue;
		for (e = pinfo.first_event; e != -1; e = lp.get_event_next(e)) {
			pfm_event_info_t ei;
			int a, nu = 0;

			memset(&ei, 0, sizeof(ei));
			ei.size = sizeof(ei);
			if (lp.get_event_info(e, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
				continue;
			for (a = 0; a < ei.nattrs; a++) {
				pfm_event_attr_info_t ai;
				char full[160];

				memset(&ai, 0, sizeof(ai));
				ai.size = sizeof(ai);
				if (lp.get_event_attr_info(e, a, PFM_OS_PERF_EVENT_EXT, &ai) !=
					PFM_SUCCESS ||
				    ai.type != PFM_ATTR_UMASK)
					continue;
				nu++;
				snprintf(full, sizeof(full), "%s.%s", ei.name, ai.name);
				fn(ctx, full, ei.is_precise || ai.is_precise);
			}
			if (!nu)
				fn(ctx, ei.name, ei.is_precise);
		}
	}
}

struct suggest_ctx {
	const char *want;
	char best[3][96];
	unsigned int dist[3];
};

static void suggest_fn(void *vctx, const char *name, int precise)
{
	struct suggest_ctx *c = vctx;
	unsigned int d = distance(c->want, name);
	const char *dot = strchr(name, '.');
	int i, j;

	/* same event, other unit mask: rank it ahead of look-alike events */
	if (!dot || strncmp(c->want, name, (size_t)(dot - name) + 1))
		d *= 4;

	for (i = 0; i < 3; i++) {
		if (d < c->dist[i]) {
			for (j = 2; j > i; j--) {
				c->dist[j] = c->dist[j - 1];
				memcpy(c->best[j], c->best[j - 1], sizeof(c->best[j]));
			}
			c->dist[i] = d;
			snprintf(c->best[i], sizeof(c->best[i]), "%s", name);
			return;
		}
	}
}

struct precise_ctx {
	char list[400];
	size_t len;
	int nr, more, pass;
};

static int key_mem_event(const char *name)
{
	return strstr(name, "LATENCY") || strstr(name, "STORES") || strstr(name, "STORE_") ||
	       strstr(name, "L3_MISS");
}

/* pass 0: load-latency / store / L3-miss events; pass 1: the other MEM_* precise events */
static void precise_fn(void *vctx, const char *name, int precise)
{
	struct precise_ctx *c = vctx;
	int n;

	if (!precise || strncmp(name, "MEM_", 4) || key_mem_event(name) != !c->pass)
		return;
	if (c->len + strlen(name) + 3 >= sizeof(c->list) - 16) {
		c->more++;
		return;
	}
	n = snprintf(c->list + c->len, sizeof(c->list) - c->len, "%s%s", c->nr ? ", " : "", name);
	c->len += (size_t)n;
	c->nr++;
}

/* Canonical "EVENT.UMASK" spelling of a user name (':' -> '.', upper case). */
static void canon(const char *in, char *out, size_t len)
{
	const char *q = strstr(in, "::");
	size_t i;

	if (q)
		in = q + 2; /* "skl::EVENT": the libpfm4 PMU is not part of the name */

	for (i = 0; in[i] && i + 1 < len; i++)
		out[i] = in[i] == ':' ? '.' : (char)toupper((unsigned char)in[i]);
	out[i] = '\0';
}

static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *s;

	for (s = list; s && *s;) {
		const char *e = strchr(s, ',');
		size_t l = e ? (size_t)(e - s) : strlen(s);

		if (l == n && !strncmp(s, name, n))
			return 1;
		s = e ? e + 1 : NULL;
	}
	return 0;
}

/* ------------------------------------------------------------------ one event */

struct pmu_ctx {
	const char *name; /* "cpu", "cpu_core", "cpu_atom" */
	int slot;	  /* 0 cpu / cpu_core, 1 cpu_atom */
	struct hws_pmu pmu;
	const struct pebs_model *model;
	const char *pmu_name; /* caps/pmu_name or "" */
	int max_precise;
	int hybrid;
};

static int pfm_encode(const char *name, struct hws_perf_event_attr *attr, char **fstr)
{
	struct pebs_pfm_arg arg;
	int ret;

	memset(attr, 0, sizeof(*attr));
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = attr;
	arg.fstr = fstr;
	ret = lp.get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	attr->size = sizeof(*attr);
	return ret;
}

/* Write alias terms "event=0xcd,umask=0x1,ldlat=3" into @attr through the PMU formats. */
static int apply_terms(struct pebs_priv *p, const struct pmu_ctx *pc, const char *terms,
		       struct hws_perf_event_attr *attr, char *err, size_t errlen)
{
	char buf[256], *save = NULL, *t;
	int ret;

	snprintf(buf, sizeof(buf), "%s", terms);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		unsigned long long v = 1;

		if (eq) {
			*eq = '\0';
			v = strtoull(eq + 1, NULL, 0);
		}
		ret = p->host->pmu_set(&pc->pmu, t, v, attr, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

static int alias_attr(struct pebs_priv *p, const struct pmu_ctx *pc, const char *alias,
		      struct hws_perf_event_attr *attr, char *err, size_t errlen)
{
	char terms[256];
	const char *t = NULL;

	if (!read_alias(p, pc->name, alias, terms, sizeof(terms))) {
		t = terms;
	} else if (pc->model) {
		if (!strcmp(alias, "mem-loads"))
			t = pc->model->mem_loads[pc->slot];
		else if (!strcmp(alias, "mem-stores"))
			t = pc->model->mem_stores[pc->slot];
		else if (!strcmp(alias, "mem-loads-aux"))
			t = pc->model->mem_loads_aux[pc->slot];
	}
	if (!t) {
		snprintf(err, errlen,
			 "intel_pebs: %s: the kernel has no '%s' event for %s (%s); name a "
			 "precise MEM_* event of this core instead (libpfm4 lists them)",
			 pc->name, alias, pc->model ? pc->model->desc : "this core", pc->pmu_name);
		return HWS_E_UNKNOWN_EVENT;
	}
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = pc->pmu.type;
	return apply_terms(p, pc, t, attr, err, errlen);
}

static int needs_aux_leader(struct pebs_priv *p, const struct pmu_ctx *pc,
			    const struct hws_perf_event_attr *attr)
{
	char terms[256];

	if ((attr->config & 0xffff) != 0x01cd)
		return 0;
	if (!read_alias(p, pc->name, "mem-loads-aux", terms, sizeof(terms)))
		return 1;
	return pc->model && pc->model->mem_loads_aux[pc->slot] != NULL;
}

static void set_sample(const struct hws_event_request *req, const struct pebs_opts *o,
		       struct hws_perf_event_attr *attr)
{
	uint32_t kv = req->kernel_version;

	attr->size = sizeof(*attr);
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			    PERF_SAMPLE_CPU | PERF_SAMPLE_DATA_SRC;
	if (!kv || kv >= (uint32_t)HWS_KERNEL_VERSION(5, 12, 0))
		attr->sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
	else
		attr->sample_type |= PERF_SAMPLE_WEIGHT;
	if (o->phys)
		attr->sample_type |= PERF_SAMPLE_PHYS_ADDR;
	if (o->data_psz)
		attr->sample_type |= PERF_SAMPLE_DATA_PAGE_SIZE;
	if (o->code_psz)
		attr->sample_type |= PERF_SAMPLE_CODE_PAGE_SIZE;
	if (req->period) {
		attr->sample_period = req->period;
	} else {
		attr->freq = 1;
		attr->sample_freq = req->freq ? req->freq : PEBS_DEFAULT_FREQ;
		attr->sample_type |= PERF_SAMPLE_PERIOD;
	}
}

static int emit(struct hws_event_desc *out, int *n, int max, const struct hws_perf_event_attr *attr,
		const char *pmu, const char *name, int leader, char *err, size_t errlen)
{
	struct hws_event_desc *d;
	size_t nl = strlen(name);

	if (*n >= max) {
		snprintf(err, errlen, "intel_pebs: too many events (max %d)", max);
		return HWS_E_TOO_BIG;
	}
	if (nl >= sizeof(d->name)) { /* the name perf.data's event description carries */
		snprintf(
		    err, errlen,
		    "intel_pebs: event name %.40s... is %zu bytes, at most %zu: name the event "
		    "by a shorter alias or raw code",
		    name, nl, sizeof(d->name) - 1);
		return HWS_E_TOO_BIG;
	}
	d = &out[(*n)++];
	memset(d, 0, sizeof(*d));
	d->attr = *attr;
	memcpy(d->name, name, nl + 1);
	snprintf(d->pmu, sizeof(d->pmu), "%s", pmu);
	d->group_leader = leader;
	return 0;
}

static void display_name(char *buf, size_t len, const struct pmu_ctx *pc, const char *ev,
			 long ldlat, int precise)
{
	char lat[32] = "";

	if (ldlat >= 0)
		snprintf(lat, sizeof(lat), ",ldlat=%ld", ldlat);
	snprintf(buf, len, "%s/%s%s/%.*s", pc->name, ev, lat, precise, "ppp");
}

/*
 * Encode event @ev on PMU @pc. Returns 0 (events appended), 1 (event unknown on this PMU
 * of a hybrid pair: try the other one), or a negative error.
 */
static int encode_one(struct pebs_priv *p, const struct hws_event_request *req, struct pebs_opts *o,
		      const struct pmu_ctx *pc, const char *ev, struct hws_event_desc *out, int *n,
		      int max, char *err, size_t errlen)
{
	struct hws_perf_event_attr attr, tmp;
	char name[320], full[256], cname[128], qbuf[64];
	const char *qual = NULL;
	char *fstr = NULL;
	int is_alias, is_ldlat = 0, can_p3 = 0, precise, ret, leader = -1;
	long ldlat = -1;

	is_alias = !strcmp(ev, "mem-loads") || !strcmp(ev, "mem-stores");
	if (!strcmp(ev, "mem-loads-aux")) {
		snprintf(err, errlen,
			 "intel_pebs: mem-loads-aux is added automatically as the group leader "
			 "of load-latency events where the core needs it; ask for mem-loads");
		return HWS_E_BAD_ARG;
	}
	if (is_alias) {
		ret = alias_attr(p, pc, ev, &attr, err, errlen);
		if (ret)
			return ret;
		is_ldlat = !strcmp(ev, "mem-loads");
		snprintf(cname, sizeof(cname), "%s", ev);
	} else {
		ret = pfm_ensure();
		if (ret) {
			if (!lp.ok)
				snprintf(err, errlen,
					 "intel_pebs: libpfm4 cannot be loaded (%s): install it "
					 "(apt-get install libpfm4)",
					 lp.err);
			else
				snprintf(err, errlen, "intel_pebs: libpfm4 failed to initialise");
			return ret;
		}
		if (pc->hybrid) {
			pfm_pmu_info_t pi;
			int pm, found = 0;

			qual = pc->model ? pc->model->pfm_pmu[pc->slot] : NULL;
			for (pm = PFM_PMU_NONE; qual && pm < PFM_PMU_MAX; pm++) {
				memset(&pi, 0, sizeof(pi));
				pi.size = sizeof(pi);
				if (lp.get_pmu_info((pfm_pmu_t)pm, &pi) == PFM_SUCCESS && pi.name &&
				    !strcmp(pi.name, qual))
					found = 1;
			}
			if (!found) {
				snprintf(err, errlen,
					 "intel_pebs: %s: libpfm4 %d.%d has no model for this "
					 "core type (%s); use mem-loads / mem-stores, or a "
					 "libpfm4 that knows it",
					 pc->name, PFM_MAJ_VERSION(lp.get_version()),
					 PFM_MIN_VERSION(lp.get_version()),
					 qual ? qual : pc->pmu_name);
				return HWS_E_UNSUPPORTED;
			}
		}
		if (!pc->hybrid) {
			qual = pfm_core_pmu(qbuf, sizeof(qbuf));
			if (!qual) {
				snprintf(err, errlen,
					 "intel_pebs: libpfm4 %d.%d knows no core PMU for this CPU "
					 "(%s); use mem-loads / mem-stores, or a libpfm4 that "
					 "knows it",
					 PFM_MAJ_VERSION(lp.get_version()),
					 PFM_MIN_VERSION(lp.get_version()), pc->pmu_name);
				return HWS_E_UNSUPPORTED;
			}
		}
		canon(ev, cname, sizeof(cname));
		if (strstr(ev, "::"))
			qual = NULL; /* the user named the libpfm4 PMU */
		snprintf(full, sizeof(full), "%s%s%s", qual ? qual : "", qual ? "::" : "", ev);
		ret = pfm_encode(full, &tmp, &fstr);
		if (ret == PFM_ERR_ATTR) {
			/* events that insist on ldlat (SNB load latency) */
			char f2[300];

			snprintf(f2, sizeof(f2), "%s:ldlat=%d", full, PEBS_LDLAT_DEFAULT);
			if (pfm_encode(f2, &tmp, &fstr) == PFM_SUCCESS)
				ret = PFM_SUCCESS;
		}
		if (ret != PFM_SUCCESS) {
			struct suggest_ctx sc = {.want = cname, .dist = {~0U, ~0U, ~0U}};

			free(fstr);
			if (pc->hybrid)
				return 1;
			for_each_pfm_name(qual, suggest_fn, &sc);
			snprintf(err, errlen,
				 "intel_pebs: event '%s' unknown on this core (%s; libpfm4%s%s: %s)"
				 "%s%s%s%s%s%s",
				 ev, pc->pmu_name, qual ? " " : "", qual ? qual : "",
				 lp.strerror(ret), sc.best[0][0] ? "; closest: " : "", sc.best[0],
				 sc.best[1][0] ? ", " : "", sc.best[1], sc.best[2][0] ? ", " : "",
				 sc.best[2]);
			return HWS_E_UNKNOWN_EVENT;
		}
		/* libpfm4 prints ":ldlat=N" for load-latency capable encodings; N is 0 for
		 * the store-sampling umasks of the same event */
		if (fstr && strstr(fstr, ":ldlat="))
			is_ldlat = strtol(strstr(fstr, ":ldlat=") + 7, NULL, 0) != 0;
		free(fstr);
		fstr = NULL;
		/* precise capable? */
		snprintf(name, sizeof(name), "%s:precise=1", full);
		if (is_ldlat)
			snprintf(name, sizeof(name), "%s:ldlat=%d:precise=1", full,
				 PEBS_LDLAT_DEFAULT);
		if (pfm_encode(name, &tmp, NULL) != PFM_SUCCESS) {
			struct precise_ctx pcx = {.len = 0};

			for_each_pfm_name(qual, precise_fn, &pcx);
			pcx.pass = 1;
			for_each_pfm_name(qual, precise_fn, &pcx);
			snprintf(err, errlen,
				 "intel_pebs: %s is not a precise (PEBS) event on this core; "
				 "precise memory events here: %s%s",
				 ev, pcx.list, pcx.more ? ", ..." : "");
			return HWS_E_UNSUPPORTED;
		}
		can_p3 = pc->model && pc->model->p3 == PEBS_P3_PDIST
			     ? in_list(pc->model->pdist_events, cname)
			     : 1;
	}
	if (!is_alias && !pc->model)
		can_p3 = 1;
	if (is_alias)
		can_p3 = !pc->model || pc->model->p3 == PEBS_P3_ANY;

	if (is_ldlat) {
		ldlat = o->ldlat >= 0 ? o->ldlat : o->ldlat_def;
		o->ldlat_used = 1;
	}

	/* precise level */
	if (o->precise >= 0) {
		precise = o->precise;
		if (precise > pc->max_precise) {
			snprintf(err, errlen,
				 "intel_pebs: precise=%d is above what %s grants "
				 "(caps/max_precise=%d); use precise=%d or omit it",
				 precise, pc->name, pc->max_precise, pc->max_precise);
			return HWS_E_UNSUPPORTED;
		}
		if (precise == 3 && !can_p3) {
			snprintf(err, errlen,
				 "intel_pebs: precise=3 (precise distribution) on %s is only for "
				 "%s; use precise=2 for %s",
				 pc->model ? pc->model->desc : pc->name,
				 pc->model && pc->model->pdist_events ? pc->model->pdist_events
								      : "PDIST events",
				 ev);
			return HWS_E_UNSUPPORTED;
		}
	} else {
		precise = pc->max_precise;
		if (precise > 2 && !can_p3)
			precise = 2;
	}

	if (!is_alias) {
		char enc[320] = "";
		int off = snprintf(enc, sizeof(enc), "%s", full);

		if (ldlat >= 0)
			off += snprintf(enc + off, sizeof(enc) - (size_t)off, ":ldlat=%ld", ldlat);
		if (precise)
			snprintf(enc + off, sizeof(enc) - (size_t)off, ":precise=%d", precise);
		ret = pfm_encode(enc, &attr, NULL);
		if (ret != PFM_SUCCESS) {
			snprintf(err, errlen, "intel_pebs: libpfm4 cannot encode %s: %s", enc,
				 lp.strerror(ret));
			return HWS_E_UNKNOWN_EVENT;
		}
		if (pc->hybrid || attr.type == PERF_TYPE_RAW)
			attr.type = pc->pmu.type;
	} else {
		if (ldlat >= 0) {
			ret = p->host->pmu_set(&pc->pmu, "ldlat", (uint64_t)ldlat, &attr, err,
					       errlen);
			if (ret)
				return ret;
		}
		attr.precise_ip = (uint64_t)precise & 3;
		/* as perf ("use of precise requires exclude_guest") and libpfm4 (:mh) do */
		attr.exclude_guest = precise > 0;
	}
	set_sample(req, o, &attr);

	if (needs_aux_leader(p, pc, &attr)) {
		struct hws_perf_event_attr aux;

		ret = alias_attr(p, pc, "mem-loads-aux", &aux, err, errlen);
		if (ret)
			return ret;
		aux.precise_ip = attr.precise_ip;
		aux.exclude_guest = attr.exclude_guest;
		set_sample(req, o, &aux);
		display_name(name, sizeof(name), pc, "mem-loads-aux", -1, precise);
		leader = *n;
		ret = emit(out, n, max, &aux, pc->name, name, -1, err, errlen);
		if (ret)
			return ret;
	}
	display_name(name, sizeof(name), pc, is_alias ? ev : cname, ldlat, precise);
	return emit(out, n, max, &attr, pc->name, name, leader, err, errlen);
}

/* Next event of a comma list; commas inside perf's "pmu/event,term=v/" belong to it. */
static char *next_event(char **cur)
{
	char *s = *cur, *c;
	int in = 0;

	if (!s || !*s)
		return NULL;
	for (c = s; *c; c++) {
		if (*c == '/')
			in = !in;
		else if (*c == ',' && !in)
			break;
	}
	if (*c)
		*c++ = '\0';
	*cur = c;
	return s;
}

/* One event as the user wrote it, perf syntax included. */
struct ev_spec {
	char name[128];
	char pmu[HWS_PMU_NAME_MAX]; /* "" = every core PMU */
	long ldlat;		    /* -1: not in the event */
	int precise;		    /* -1: not in the event */
};

/* perf modifiers: "p", "pp", "ppp" (that level) or "P" (the highest). -1 if not one. */
static int precise_mod(const char *m, int *precise)
{
	size_t n = strspn(m, "p");

	if (!*m)
		return -1;
	if (!strcmp(m, "P")) {
		*precise = -1; /* the default is already the highest level */
		return 0;
	}
	if (m[n] || n > 3)
		return -1;
	*precise = (int)n;
	return 0;
}

/*
 * Accept what perf users write: "cpu/mem-loads,ldlat=30/P", "cpu_atom/mem-stores/pp",
 * "mem-loads:P", next to plain names ("mem-loads", "MEM_LOAD_RETIRED.L3_MISS",
 * "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=50" is left to libpfm4).
 */
static int parse_spec(const char *ev, struct ev_spec *sp, char *err, size_t errlen)
{
	char buf[128], *slash, *body, *mods, *t, *save = NULL;

	memset(sp, 0, sizeof(*sp));
	sp->ldlat = -1;
	sp->precise = -1;
	if (strlen(ev) >= sizeof(sp->name)) {
		snprintf(err, errlen, "intel_pebs: event name longer than %zu characters",
			 sizeof(sp->name) - 1);
		return HWS_E_TOO_BIG;
	}
	memcpy(buf, ev, strlen(ev) + 1);
	slash = strchr(buf, '/');
	if (!slash) {
		char *colon = strrchr(buf, ':');
		char *start = strstr(buf, "::"), *in, *outp;

		if (colon && colon > buf && colon[-1] != ':' &&
		    precise_mod(colon + 1, &sp->precise) == 0)
			*colon = '\0';
		/* libpfm4 terms ":ldlat=N" / ":precise=N" become this event's controls; the
		 * other tokens are compacted in place (the output never passes the input) */
		start = start ? start + 2 : buf;
		outp = in = start;
		while (*in) {
			char *next = strchr(in, ':');
			size_t len = next ? (size_t)(next - in) : strlen(in);
			unsigned long long v;
			char *end;

			if (in != start &&
			    (!strncmp(in, "ldlat=", 6) || !strncmp(in, "precise=", 8))) {
				int is_lat = in[0] == 'l';
				const char *num = in + (is_lat ? 6 : 8);

				errno = 0;
				v = strtoull(num, &end, 0);
				if (errno || end == num || (*end && *end != ':') ||
				    (is_lat ? v < PEBS_LDLAT_MIN || v > PEBS_LDLAT_MAX : v > 3)) {
					snprintf(
					    err, errlen,
					    is_lat ? "intel_pebs: '%s': ldlat out of range: the "
						     "load-latency threshold is 3..65535 cycles "
						     "(config1:0-15)"
						   : "intel_pebs: '%s': precise out of range 0..3",
					    ev);
					return HWS_E_CONTROL_RANGE;
				}
				if (is_lat)
					sp->ldlat = (long)v;
				else
					sp->precise = (int)v;
			} else {
				if (outp != start)
					*outp++ = ':';
				memmove(outp, in, len);
				outp += len;
			}
			in = next ? next + 1 : in + len;
		}
		*outp = '\0';
		memcpy(sp->name, buf, strlen(buf) + 1);
		return 0;
	}
	*slash = '\0';
	body = slash + 1;
	mods = strchr(body, '/');
	if (!mods) {
		snprintf(err, errlen,
			 "intel_pebs: '%s': missing the closing '/' (perf syntax "
			 "is pmu/event,term=value/modifiers)",
			 ev);
		return HWS_E_BAD_ARG;
	}
	*mods++ = '\0';
	if (strcmp(buf, "cpu") && strcmp(buf, "cpu_core") && strcmp(buf, "cpu_atom")) {
		snprintf(err, errlen,
			 "intel_pebs: '%s': PMU '%s' is not an Intel core PMU (cpu, cpu_core, "
			 "cpu_atom); ask its backend for it (hws_event_request.pmu)",
			 ev, buf);
		return HWS_E_NO_PMU;
	}
	memcpy(sp->pmu, buf, strlen(buf) + 1); /* one of the three names above */
	if (*mods && precise_mod(mods, &sp->precise)) {
		snprintf(err, errlen, "intel_pebs: '%s': unknown modifier '%s' (p, pp, ppp or P)",
			 ev, mods);
		return HWS_E_BAD_ARG;
	}
	for (t = strtok_r(body, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '='), *end;
		unsigned long long v;

		if (!sp->name[0] && !eq) {
			memcpy(sp->name, t, strlen(t) + 1); /* t is shorter than @ev */
			continue;
		}
		if (!eq || strncmp(t, "ldlat=", 6)) {
			snprintf(err, errlen, "intel_pebs: '%s': unknown term '%s' (ldlat=N)", ev,
				 t);
			return HWS_E_UNKNOWN_CONTROL;
		}
		errno = 0;
		v = strtoull(eq + 1, &end, 0);
		if (errno || *end || end == eq + 1 || v < PEBS_LDLAT_MIN || v > PEBS_LDLAT_MAX) {
			snprintf(err, errlen,
				 "intel_pebs: '%s': ldlat=%s out of range: the load-latency "
				 "threshold is %d..%d cycles (config1:0-15)",
				 ev, eq + 1, PEBS_LDLAT_MIN, PEBS_LDLAT_MAX);
			return HWS_E_CONTROL_RANGE;
		}
		sp->ldlat = (long)v;
	}
	if (!sp->name[0]) {
		snprintf(err, errlen, "intel_pebs: '%s': no event name", ev);
		return HWS_E_BAD_ARG;
	}
	return 0;
}

static int pmu_ctx_init(struct pebs_priv *p, const char *name, int hybrid, struct pmu_ctx *pc,
			char *err, size_t errlen)
{
	const char *mp;
	int ret;

	memset(pc, 0, sizeof(*pc));
	pc->name = name;
	pc->hybrid = hybrid;
	pc->slot = !strcmp(name, "cpu_atom");
	ret = pmu_check(p, name, &pc->pmu, err, errlen);
	if (ret)
		return ret;
	pc->pmu_name = p->host->pmu_cap(&pc->pmu, "pmu_name");
	if (!pc->pmu_name)
		pc->pmu_name = "";
	pc->model = pebs_model__find(pc->pmu_name);
	mp = p->host->pmu_cap(&pc->pmu, "max_precise");
	pc->max_precise = mp ? atoi(mp) : 2;
	if (pc->max_precise > 3)
		pc->max_precise = 3;
	return 0;
}

int pebs_encode(struct pebs_priv *p, const struct hws_event_request *req,
		struct hws_event_desc *out, int max, char *err, size_t errlen)
{
	char names[2][HWS_PMU_NAME_MAX];
	struct pebs_opts o;
	char evbuf[512], *save, *ev;
	int nr_pmus, i, n = 0, ret;
	int hybrid;

	err[0] = '\0';
	ret = parse_opts(req, &o, err, errlen);
	if (ret)
		return ret;
	if (o.data_psz || o.code_psz) {
		if (req->kernel_version &&
		    req->kernel_version < (uint32_t)HWS_KERNEL_VERSION(5, 11, 0)) {
			snprintf(err, errlen,
				 "intel_pebs: page-size sampling needs Linux 5.11 or later");
			return HWS_E_UNSUPPORTED;
		}
	}
	if (o.phys && req->kernel_version &&
	    req->kernel_version < (uint32_t)HWS_KERNEL_VERSION(4, 14, 0)) {
		snprintf(err, errlen, "intel_pebs: phys_addr sampling needs Linux 4.14 or later");
		return HWS_E_UNSUPPORTED;
	}
	{
		char vendor[64] = "";

		/* a fake machine without a cpuinfo is not checked (dry runs) */
		if (cpu_is_intel(p, vendor, sizeof(vendor)) == 0) {
			snprintf(err, errlen,
				 "intel_pebs: not an Intel CPU (vendor_id %s): PEBS is "
				 "Intel-only; use amd_ibs on AMD, arm_spe on Arm",
				 vendor);
			return HWS_E_NO_PMU;
		}
	}

	nr_pmus = pebs_core_pmus(p, names, 2);
	if (nr_pmus == 0) {
		struct hws_pmu tmp;

		return pmu_check(p, "cpu", &tmp, err, errlen);
	}
	hybrid = strcmp(names[0], "cpu") != 0;
	if (req->pmu && strcmp(req->pmu, "intel_pebs")) {
		for (i = 0; i < nr_pmus; i++)
			if (!strcmp(req->pmu, names[i]))
				break;
		if (i == nr_pmus) {
			snprintf(err, errlen,
				 "intel_pebs: no PMU '%s' here; this machine has %s%s%s", req->pmu,
				 names[0], nr_pmus > 1 ? " and " : "", nr_pmus > 1 ? names[1] : "");
			return HWS_E_NO_PMU;
		}
		snprintf(names[0], HWS_PMU_NAME_MAX, "%s", req->pmu);
		nr_pmus = 1;
	}

	snprintf(evbuf, sizeof(evbuf), "%s",
		 req->event && *req->event ? req->event : "mem-loads,mem-stores");
	save = evbuf;
	while ((ev = next_event(&save))) {
		struct ev_spec sp;
		struct pebs_opts eo = o;
		int done = 0;

		ret = parse_spec(ev, &sp, err, errlen);
		if (ret)
			return ret;
		if (sp.ldlat >= 0)
			eo.ldlat = sp.ldlat;
		if (sp.precise >= 0)
			eo.precise = sp.precise;
		for (i = 0; i < nr_pmus; i++) {
			struct pmu_ctx pc;

			if (sp.pmu[0] && strcmp(sp.pmu, names[i]))
				continue;
			ret = pmu_ctx_init(p, names[i], hybrid, &pc, err, errlen);
			if (ret)
				return ret;
			eo.ldlat_used = 0;
			ret = encode_one(p, req, &eo, &pc, sp.name, out, &n, max, err, errlen);
			if (ret < 0)
				return ret;
			if (ret == 0)
				done++;
			if (sp.ldlat >= 0 && !eo.ldlat_used) {
				snprintf(err, errlen,
					 "intel_pebs: ldlat applies only to load-latency events "
					 "(mem-loads, MEM_TRANS_RETIRED.LOAD_LATENCY), not to %s",
					 sp.name);
				return HWS_E_UNKNOWN_CONTROL;
			}
			if (sp.ldlat < 0 && eo.ldlat_used)
				o.ldlat_used = 1;
		}
		if (sp.pmu[0] && !done) {
			for (i = 0; i < nr_pmus; i++)
				if (!strcmp(sp.pmu, names[i]))
					break;
			if (i == nr_pmus) {
				snprintf(err, errlen,
					 "intel_pebs: no PMU '%s' here (in '%s'); this machine has "
					 "%s%s%s",
					 sp.pmu, ev, names[0], nr_pmus > 1 ? " and " : "",
					 nr_pmus > 1 ? names[1] : "");
				return HWS_E_NO_PMU;
			}
		}
		if (!done) {
			snprintf(err, errlen, "intel_pebs: event '%s' unknown on %s%s%s", sp.name,
				 names[0], nr_pmus > 1 ? " and " : "", nr_pmus > 1 ? names[1] : "");
			return HWS_E_UNKNOWN_EVENT;
		}
	}
	if (o.ldlat >= 0 && !o.ldlat_used) {
		snprintf(err, errlen,
			 "intel_pebs: ldlat applies only to load-latency events (mem-loads, "
			 "MEM_TRANS_RETIRED.LOAD_LATENCY), not to %s",
			 req->event ? req->event : "these events");
		return HWS_E_UNKNOWN_CONTROL;
	}
	return n;
}
