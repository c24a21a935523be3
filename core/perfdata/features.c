// SPDX-License-Identifier: MIT
/*
 * The perf.data reader's header features: their payloads (from the feature sections of a
 * file, or HEADER_FEATURE records in a pipe), what the reader takes from them itself (PMU
 * names and caps, CPU -> NUMA node, event names from EVENT_DESC, tracing data), event names,
 * and the accessors over all that (hws_perf_reader__feature(), __string(), __build_id(),
 * __pmu_name(), __pmu_cap(), __cpu_node(), __file_info()...).
 *
 * Invariants:
 *  - A feature payload is kept whole, in host order, with one 0 byte after it (so strings
 *    in it end); a feature seen again replaces the old one; at most MAX_FEATURES_TOTAL bytes
 *    are kept (read_int.h), and perfdata_read.c reads none larger than MAX_FEATURE.
 *  - Payloads are parsed with bounds checks against their length: a malformed feature is
 *    ignored (pr_debug), never an error of the reader.
 *  - PMU names and caps are parsed once per payload (a new PMU_MAPPINGS or PMU_CAPS feature
 *    drops the old tables); CPU numbers are kept below MAX_CPUS.
 *  - Called by perfdata_read.c only; calls swap.c (hws__swap_feature()) and sample_parse.c
 *    (hws__attr_default_name()), nothing of perfdata_read.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/perfdata.h>

#include "util/internal.h"
#include "perfdata/perfdata_int.h"
#include "perfdata/read_int.h"

/* ---------------------------------------------------------------- payload cursor */

/* Cursor over a host-order feature payload (read only). */
struct rcur {
	const uint8_t *p;
	size_t left;
};

static int r_u32(struct rcur *c, uint32_t *v)
{
	if (c->left < 4)
		return HWS_E_BADREC;
	*v = pd_get32(c->p);
	c->p += 4;
	c->left -= 4;
	return 0;
}

static int r_u64(struct rcur *c, uint64_t *v)
{
	if (c->left < 8)
		return HWS_E_BADREC;
	*v = pd_get64(c->p);
	c->p += 8;
	c->left -= 8;
	return 0;
}

/* A feature string: *s points into the payload, *slen is its length up to the first NUL
 * inside its len bytes (it may have none there). */
static int r_str(struct rcur *c, const char **s, size_t *slen)
{
	uint32_t len;

	if (r_u32(c, &len) || len > c->left)
		return HWS_E_BADREC;
	*s = (const char *)c->p;
	*slen = strnlen(*s, len);
	c->p += len;
	c->left -= len;
	return 0;
}

static char *r_strdup(struct rcur *c)
{
	const char *s;
	size_t n;

	if (r_str(c, &s, &n))
		return NULL;
	return strndup(s, n);
}

/* ---------------------------------------------------------------- event names */

/* Names: EVENT_DESC by index (as perf does), else generated from the attr. */
int pd_name_attrs(struct hws_perf_reader *r)
{
	for (int i = 0; i < r->nr_attrs; i++) {
		struct rattr *a = &r->attrs[i];
		const struct hws_perf_event_attr *at = &a->ev.attr;
		char buf[128];

		a->ev.pmu_name = hws_perf_reader__pmu_name(r, at->type);
		/* hybrid: generic HARDWARE/HW_CACHE events carry the PMU type in config[63:32] */
		if (!a->ev.pmu_name &&
		    (at->type == PERF_TYPE_HARDWARE || at->type == PERF_TYPE_HW_CACHE) &&
		    (at->config >> 32))
			a->ev.pmu_name = hws_perf_reader__pmu_name(r, (uint32_t)(at->config >> 32));
		if (a->name)
			continue;
		hws__attr_default_name(at, a->ev.pmu_name, buf, sizeof(buf));
		a->name = strdup(buf);
		if (!a->name)
			return -ENOMEM;
		a->gen_name = true;
	}
	for (int i = 0; i < r->nr_attrs; i++)
		r->attrs[i].ev.name = r->attrs[i].name;
	return 0;
}

void pd_set_attr_name(struct hws_perf_reader *r, int idx, const char *name, size_t max)
{
	char *n;

	if (idx < 0 || idx >= r->nr_attrs || !max)
		return;
	n = strndup(name, max);
	if (!n)
		return;
	free(r->attrs[idx].name);
	r->attrs[idx].name = n;
	r->attrs[idx].ev.name = n;
	r->attrs[idx].gen_name = false;
}

/* ---------------------------------------------------------------- parsing */

static int parse_pmu_mappings(struct hws_perf_reader *r, const struct rfeat *f)
{
	struct rcur c = {f->data, f->len};
	uint32_t nr;

	if (r_u32(&c, &nr) || nr > c.left / 8)
		return HWS_E_BADREC;
	r->pmus = calloc(nr + 1, sizeof(*r->pmus));
	if (!r->pmus)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t type;
		char *n;

		if (r_u32(&c, &type))
			return HWS_E_BADREC;
		n = r_strdup(&c);
		if (!n)
			return HWS_E_BADREC;
		r->pmus[r->nr_pmus].type = type;
		r->pmus[r->nr_pmus++].name = n;
	}
	return 0;
}

static int add_cap(struct hws_perf_reader *r, const char *pmu, struct rcur *c, size_t max)
{
	char *n = r_strdup(c), *v = n ? r_strdup(c) : NULL;

	if (!n || !v || r->nr_caps >= max) {
		free(n);
		free(v);
		return HWS_E_BADREC;
	}
	r->caps[r->nr_caps].pmu = pmu;
	r->caps[r->nr_caps].name = n;
	r->caps[r->nr_caps++].value = v;
	return 0;
}

static const char cpu_pmu[] = "cpu"; /* CPU_PMU_CAPS entries point here (not freed) */

static void free_caps(struct hws_perf_reader *r)
{
	for (size_t i = 0; i < r->nr_caps; i++) {
		free((char *)r->caps[i].name);
		free((char *)r->caps[i].value);
		if (r->caps[i].pmu && r->caps[i].pmu != cpu_pmu &&
		    (i + 1 == r->nr_caps || r->caps[i + 1].pmu != r->caps[i].pmu))
			free((char *)r->caps[i].pmu);
	}
	free(r->caps);
	r->caps = NULL;
	r->nr_caps = 0;
}

static int parse_caps(struct hws_perf_reader *r)
{
	const struct rfeat *pc = &r->feats[HWS_FEAT_PMU_CAPS];
	const struct rfeat *cc = &r->feats[HWS_FEAT_CPU_PMU_CAPS];
	size_t max = (pc->len + cc->len) / 8 + 1;
	uint32_t nr, nc;
	struct rcur c;

	if (!pc->data && !cc->data)
		return 0;
	r->caps = calloc(max, sizeof(*r->caps));
	if (!r->caps)
		return -ENOMEM;
	if (cc->data) {
		c.p = cc->data;
		c.left = cc->len;
		if (!r_u32(&c, &nc))
			for (uint32_t i = 0; i < nc; i++)
				if (add_cap(r, cpu_pmu, &c, max))
					break;
	}
	if (pc->data) {
		c.p = pc->data;
		c.left = pc->len;
		if (r_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++) {
			size_t first = r->nr_caps;
			char *pmu;

			if (r_u32(&c, &nc) || nc > c.left / 8)
				return HWS_E_BADREC;
			for (uint32_t j = 0; j < nc; j++)
				if (add_cap(r, NULL, &c, max))
					return HWS_E_BADREC;
			pmu = r_strdup(&c);
			if (!pmu)
				return HWS_E_BADREC;
			if (first == r->nr_caps) {
				free(pmu);
				continue;
			}
			/* the first cap of a PMU owns the name string (freed via it) */
			for (size_t k = first; k < r->nr_caps; k++)
				r->caps[k].pmu = pmu;
		}
	}
	return 0;
}

static void cpulist_apply(struct hws_perf_reader *r, const char *s, size_t len, int node)
{
	const char *end = s + len;

	while (s < end && *s) {
		char *e;
		long a = strtol(s, &e, 10), b;

		if (e == s || e > end)
			break;
		b = a;
		if (e < end && *e == '-') {
			const char *t = e + 1;

			b = strtol(t, &e, 10);
			if (e == t || e > end)
				break;
		}
		for (long cpu = a < 0 ? 0 : a; cpu <= b && cpu < MAX_CPUS; cpu++) {
			if (cpu >= r->nr_cpu_node) {
				int n = (int)cpu + 64;
				int16_t *m = realloc(r->cpu_node, sizeof(*m) * (size_t)n);

				if (!m)
					return;
				for (int i = r->nr_cpu_node; i < n; i++)
					m[i] = -1;
				r->cpu_node = m;
				r->nr_cpu_node = n;
			}
			r->cpu_node[cpu] = (int16_t)node;
		}
		if (e >= end || *e != ',')
			break;
		s = e + 1;
	}
}

static int parse_numa(struct hws_perf_reader *r, const struct rfeat *f)
{
	struct rcur c = {f->data, f->len};
	uint32_t nr;

	if (r_u32(&c, &nr))
		return HWS_E_BADREC;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t node;
		uint64_t t, fr;
		const char *s;
		size_t n;

		if (r_u32(&c, &node) || r_u64(&c, &t) || r_u64(&c, &fr) || r_str(&c, &s, &n))
			return HWS_E_BADREC;
		if (node < 32768)
			cpulist_apply(r, s, n, (int)node);
	}
	return 0;
}

static int parse_event_desc(struct hws_perf_reader *r, const struct rfeat *f)
{
	struct rcur c = {f->data, f->len};
	uint32_t nr, asz;

	if (r_u32(&c, &nr) || r_u32(&c, &asz) || asz > c.left)
		return HWS_E_BADREC;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nids;
		const char *s;
		size_t n;

		if (asz > c.left)
			return HWS_E_BADREC;
		c.p += asz;
		c.left -= asz;
		if (r_u32(&c, &nids) || r_str(&c, &s, &n) || nids > c.left / 8)
			return HWS_E_BADREC;
		c.p += (size_t)nids * 8;
		c.left -= (size_t)nids * 8;
		if ((int)i < r->nr_attrs && n && (!r->attrs[i].name || r->attrs[i].gen_name))
			pd_set_attr_name(r, (int)i, s, n);
	}
	return 0;
}

static void free_groups(struct hws_perf_reader *r)
{
	for (size_t i = 0; i < r->nr_groups; i++)
		free((char *)r->groups[i].name);
	free(r->groups);
	r->groups = NULL;
	r->nr_groups = 0;
}

/* GROUP_DESC: u32 nr; per group a perf string (its name, "{anon_group}" for none), u32 leader
 * index, u32 nr_members (the leader's and its members' attrs follow each other) */
static int parse_group_desc(struct hws_perf_reader *r, const struct rfeat *f)
{
	struct rcur c = {f->data, f->len};
	uint32_t nr;

	if (r_u32(&c, &nr) || nr > c.left / 12)
		return HWS_E_BADREC;
	free_groups(r);
	r->groups = calloc(nr ? nr : 1, sizeof(*r->groups));
	if (!r->groups)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		struct hws_perf_group *g = &r->groups[r->nr_groups];
		const char *s;
		size_t n;

		if (r_str(&c, &s, &n) || r_u32(&c, &g->leader) || r_u32(&c, &g->nr_members))
			return HWS_E_BADREC;
		/* a group the attrs cannot hold is left out (perf refuses the file) */
		if (g->nr_members < 2 || g->leader >= (uint32_t)r->nr_attrs ||
		    g->nr_members > (uint32_t)r->nr_attrs - g->leader)
			continue;
		if (n && strncmp(s, "{anon_group}", n)) {
			g->name = strndup(s, n);
			if (!g->name)
				return -ENOMEM;
		}
		r->nr_groups++;
	}
	return 0;
}

size_t hws_perf_reader__groups(const struct hws_perf_reader *r,
			       const struct hws_perf_group **groups)
{
	if (groups)
		*groups = r ? r->groups : NULL;
	return r ? r->nr_groups : 0;
}

static void free_pmus(struct hws_perf_reader *r)
{
	for (size_t i = 0; i < r->nr_pmus; i++)
		free((char *)r->pmus[i].name);
	free(r->pmus);
	r->pmus = NULL;
	r->nr_pmus = 0;
}

/* ---------------------------------------------------------------- keeping features */

/* Keep feature @feat's payload @data (in file order when @swap: swapped here). */
static void store(struct hws_perf_reader *r, int feat, uint8_t *data, size_t len, bool swap)
{
	if (r->feat_bytes + len > MAX_FEATURES_TOTAL) {
		pr_warn("header feature %d of the input dropped: its features pass %llu MiB\n",
			feat, MAX_FEATURES_TOTAL >> 20);
		free(data);
		return;
	}
	r->feat_bytes += len;
	if (swap && hws__swap_feature(feat, data, len, 1))
		pr_debug("perfdata: feature %d: malformed, partly swapped\n", feat);
	if (r->feats[feat].data)
		r->feat_bytes -= r->feats[feat].len;
	free(r->feats[feat].data);
	r->feats[feat].data = data;
	r->feats[feat].len = len;
	r->feats[feat].cap = len + 1;
	data[len] = 0;
	r->features[feat / 64] |= 1ULL << (feat % 64);
}

void pd_store_feature(struct hws_perf_reader *r, int feat, uint8_t *data, size_t len)
{
	store(r, feat, data, len, r->swap);
}

void pd_digest_features(struct hws_perf_reader *r)
{
	if (r->feats[HWS_FEAT_PMU_MAPPINGS].data && !r->pmus &&
	    parse_pmu_mappings(r, &r->feats[HWS_FEAT_PMU_MAPPINGS]))
		pr_debug("perfdata: malformed PMU_MAPPINGS\n");
	if (!r->caps && parse_caps(r))
		pr_debug("perfdata: malformed PMU_CAPS\n");
	if (r->feats[HWS_FEAT_NUMA_TOPOLOGY].data && !r->cpu_node &&
	    parse_numa(r, &r->feats[HWS_FEAT_NUMA_TOPOLOGY]))
		pr_debug("perfdata: malformed NUMA_TOPOLOGY\n");
	if (r->feats[HWS_FEAT_EVENT_DESC].data &&
	    parse_event_desc(r, &r->feats[HWS_FEAT_EVENT_DESC]))
		pr_debug("perfdata: malformed EVENT_DESC\n");
	if (r->feats[HWS_FEAT_GROUP_DESC].data && !r->groups &&
	    parse_group_desc(r, &r->feats[HWS_FEAT_GROUP_DESC]))
		pr_debug("perfdata: malformed GROUP_DESC\n");
	if (r->feats[HWS_FEAT_TRACING_DATA].data && !r->tracing) { /* re-pointed each time */
		r->fi.tracing_data = r->feats[HWS_FEAT_TRACING_DATA].data;
		r->fi.tracing_data_size = r->feats[HWS_FEAT_TRACING_DATA].len;
	}
	pd_name_attrs(r);
}

int pd_header_feature(struct hws_perf_reader *r, const uint8_t *rec, size_t sz)
{
	uint64_t feat;
	uint8_t *d;

	if (sz < 16)
		return HWS_E_BADREC;
	feat = pd_get64(rec + 8);
	if (feat == 0 || feat >= HWS_FEAT__MAX)
		return HWS_E_BADREC;
	d = malloc(sz - 16 + 1);
	if (!d)
		return -ENOMEM;
	memcpy(d, rec + 16, sz - 16);
	store(r, (int)feat, d, sz - 16, false); /* already swapped with the record */
	if (feat == HWS_FEAT_PMU_CAPS || feat == HWS_FEAT_CPU_PMU_CAPS)
		free_caps(r);
	if (feat == HWS_FEAT_PMU_MAPPINGS)
		free_pmus(r);
	if (feat == HWS_FEAT_GROUP_DESC)
		free_groups(r);
	pd_digest_features(r);
	return 0;
}

int pd_header_build_id(struct hws_perf_reader *r, const uint8_t *rec, size_t sz)
{
	struct rfeat *f = &r->feats[HWS_FEAT_BUILD_ID];
	uint8_t *d;

	/* the record is one entry of the section, type aside (swapped with the record) */
	if (sz < 36 || sz > UINT16_MAX)
		return HWS_E_BADREC;
	if (r->feat_bytes + sz > MAX_FEATURES_TOTAL)
		return 0;		/* dropped, as store() drops a feature past the bound */
	if (f->len + sz + 1 > f->cap) { /* grown geometrically: many records stay linear */
		size_t cap = f->cap * 2 > f->len + sz + 1 ? f->cap * 2 : f->len + sz + 1024;

		d = realloc(f->data, cap);
		if (!d)
			return -ENOMEM;
		f->data = d;
		f->cap = cap;
	}
	d = f->data;
	memcpy(d + f->len, rec, sz);
	memset(d + f->len, 0, 4);
	f->len += sz;
	d[f->len] = 0;
	r->feat_bytes += sz;
	r->features[HWS_FEAT_BUILD_ID / 64] |= 1ULL << (HWS_FEAT_BUILD_ID % 64);
	return 0;
}

static const char *fi_pmu_cap(const struct hws_file_info *fi, const char *pmu, const char *cap)
{
	return hws_perf_reader__pmu_cap(fi->pmu_cap_ctx, pmu, cap);
}

static uint64_t fi_cpu_midr(const struct hws_file_info *fi, int cpu)
{
	(void)cpu;
	if (fi->cpuid && !strncmp(fi->cpuid, "0x", 2))
		return strtoull(fi->cpuid, NULL, 16);
	return 0;
}

void pd_file_info_init(struct hws_perf_reader *r)
{
	r->fi.sz = sizeof(r->fi);
	r->fi.pmu_cap = fi_pmu_cap;
	r->fi.pmu_cap_ctx = r;
	r->fi.cpu_midr = fi_cpu_midr;
}

void pd_free_features(struct hws_perf_reader *r)
{
	for (int f = 0; f < HWS_FEAT__MAX; f++)
		free(r->feats[f].data);
	free_pmus(r);
	free_caps(r);
	free_groups(r);
	free(r->cpu_node);
}

/* ---------------------------------------------------------------- accessors */

bool hws_perf_reader__has_feature(const struct hws_perf_reader *r, int feat)
{
	if (!r || feat < 0 || feat >= HWS_FEAT__MAX)
		return false;
	return (r->features[feat / 64] >> (feat % 64)) & 1;
}

const void *hws_perf_reader__feature(const struct hws_perf_reader *r, int feat, size_t *len)
{
	if (!hws_perf_reader__has_feature(r, feat))
		return NULL;
	if (len)
		*len = r->feats[feat].len;
	return r->feats[feat].data;
}

int hws_perf_build_id__parse(const void *entry, size_t sz, const char **name, size_t *nlen,
			     char *hex, size_t len, uint16_t *miscp)
{
	const uint8_t *e = entry;
	uint16_t misc;
	size_t idlen;

	/* u32 type, u16 misc, u16 size, s32 pid, u8 build_id[20], u8 id size (when misc has
	 * BUILD_ID_SIZE), 3 reserved bytes, then the NUL-terminated file name padded to the
	 * entry's size */
	if (sz < 36)
		return -EINVAL;
	misc = pd_get16(e + 4);
	*name = (const char *)e + 36;
	*nlen = strnlen(*name, sz - 36u);
	if (miscp)
		*miscp = misc;
	idlen = (misc & HWS_MISC_BUILD_ID_SIZE) ? e[32] : 20;
	if (idlen > 20)
		idlen = 20;
	if (!(misc & HWS_MISC_BUILD_ID_SIZE)) /* old files: zero-padded to 20 bytes */
		while (idlen && !e[12 + idlen - 1])
			idlen--;
	if (!idlen)
		return 0;
	if (len < idlen * 2 + 1)
		return -ENOSPC;
	for (size_t i = 0; i < idlen; i++) {
		hex[2 * i] = "0123456789abcdef"[e[12 + i] >> 4];
		hex[2 * i + 1] = "0123456789abcdef"[e[12 + i] & 15];
	}
	hex[idlen * 2] = 0;
	return (int)idlen * 2;
}

/* HEADER_BUILD_ID entry @idx: its name (NUL-terminated within the entry) and id */
static int build_id_at(const struct hws_perf_reader *r, size_t idx, const char **name, size_t *nlen,
		       char *hex, size_t len, uint16_t *miscp)
{
	size_t flen, off = 0;
	const uint8_t *p = hws_perf_reader__feature(r, HWS_FEAT_BUILD_ID, &flen);

	/* entries in host order, checked when the section was read */
	while (p && off + 36 <= flen) {
		uint16_t sz = pd_get16(p + off + 6);
		const uint8_t *e = p + off;

		if (sz < 36 || off + sz > flen)
			break;
		off += sz;
		if (!idx--)
			return hws_perf_build_id__parse(e, sz, name, nlen, hex, len, miscp);
	}
	return -ENOENT;
}

int hws_perf_reader__build_id(const struct hws_perf_reader *r, const char *filename, char *hex,
			      size_t len)
{
	size_t want = strlen(filename), nlen;
	const char *name;
	int n;

	for (size_t i = 0; (n = build_id_at(r, i, &name, &nlen, hex, len, NULL)) != -ENOENT; i++)
		if (nlen == want && !memcmp(name, filename, want))
			return n;
	return 0;
}

int hws_perf_reader__build_id_entry(const struct hws_perf_reader *r, size_t idx, char *name,
				    size_t name_len, char *hex, size_t len, uint16_t *misc)
{
	const char *nm;
	size_t nlen;
	int n;

	if (!r || !name || !name_len || !hex || !len)
		return -EINVAL;
	n = build_id_at(r, idx, &nm, &nlen, hex, len, misc);
	if (n < 0)
		return n;
	if (nlen >= name_len)
		return -ENOSPC;
	memcpy(name, nm, nlen);
	name[nlen] = 0;
	if (!n)
		hex[0] = 0;
	return n;
}

const char *hws_perf_reader__string(const struct hws_perf_reader *r, int feat)
{
	const struct rfeat *f;
	uint32_t len;

	if (!pd_string_feature(feat) || !hws_perf_reader__has_feature(r, feat))
		return NULL;
	f = &r->feats[feat];
	if (f->len < 4)
		return NULL;
	len = pd_get32(f->data);
	if (len > f->len - 4)
		return NULL;
	/* NUL-terminated: data[len] is 0 (store_feature); a string without NUL in its
	 * @len bytes runs into the next bytes of this feature at most */
	if (!memchr(f->data + 4, 0, len))
		return NULL;
	return (const char *)f->data + 4;
}

int hws_perf_reader__nr_cpus(const struct hws_perf_reader *r, uint32_t *online)
{
	size_t len;
	const uint8_t *p = hws_perf_reader__feature(r, HWS_FEAT_NRCPUS, &len);

	if (online)
		*online = 0;
	if (!p || len < 8)
		return 0;
	if (online)
		*online = pd_get32(p + 4);
	return (int)(pd_get32(p) & 0x7fffffff);
}

const char *hws_perf_reader__pmu_name(const struct hws_perf_reader *r, uint32_t type)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < r->nr_pmus; i++)
		if (r->pmus[i].type == type)
			return r->pmus[i].name;
	return NULL;
}

const char *hws_perf_reader__pmu_cap(const struct hws_perf_reader *r, const char *pmu,
				     const char *cap)
{
	if (!r || !pmu || !cap)
		return NULL;
	for (size_t i = 0; i < r->nr_caps; i++)
		if (r->caps[i].pmu && !strcmp(r->caps[i].pmu, pmu) && !strcmp(r->caps[i].name, cap))
			return r->caps[i].value;
	return NULL;
}

int hws_perf_reader__cpu_node(const struct hws_perf_reader *r, int cpu)
{
	if (!r || cpu < 0 || cpu >= r->nr_cpu_node)
		return -1;
	return r->cpu_node[cpu];
}

const struct hws_file_info *hws_perf_reader__file_info(struct hws_perf_reader *r)
{
	uint32_t onl;

	if (!r)
		return NULL;
	r->fi.nr_cpus = (uint32_t)hws_perf_reader__nr_cpus(r, &onl);
	r->fi.arch = hws_perf_reader__string(r, HWS_FEAT_ARCH);
	r->fi.cpuid = hws_perf_reader__string(r, HWS_FEAT_CPUID);
	r->fi.cpudesc = hws_perf_reader__string(r, HWS_FEAT_CPUDESC);
	return &r->fi;
}
