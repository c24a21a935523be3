// SPDX-License-Identifier: MIT
/*
 * c2c analysis on hand-built samples: perf's per-sample classes (c2c_decode_stats rules
 * and quirks), the normalized fallback, false/true/mixed/unresolved/read-shared/private
 * lines with access widths, line size, ordering, confidence ordering, the renderers, and
 * the sources of the coherence evidence as the samples' backends name them.
 */
#include <errno.h>

#include <linux/perf_event.h>

#include <hwsample/c2c.h>
#include <hwsample/errors.h>
#include <hwsample/registry.h>
#include <hwsample/strbuf.h>

#include "tests.h"

#define DS_OP(x)     ((uint64_t)(x) << PERF_MEM_OP_SHIFT)
#define DS_LVL(x)    ((uint64_t)(x) << PERF_MEM_LVL_SHIFT)
#define DS_SNOOP(x)  ((uint64_t)(x) << PERF_MEM_SNOOP_SHIFT)
#define DS_SNOOPX(x) ((uint64_t)(x) << PERF_MEM_SNOOPX_SHIFT)
#define DS_LVLNUM(x) ((uint64_t)(x) << PERF_MEM_LVLNUM_SHIFT)
#define DS_REMOTE    ((uint64_t)1 << PERF_MEM_REMOTE_SHIFT)

#define LD_L1 (DS_OP(PERF_MEM_OP_LOAD) | DS_LVL(PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT))
#define LD_LHITM                                                                                   \
	(DS_OP(PERF_MEM_OP_LOAD) | DS_LVL(PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT) |                    \
	 DS_SNOOP(PERF_MEM_SNOOP_HITM))
#define LD_RHITM                                                                                   \
	(DS_OP(PERF_MEM_OP_LOAD) | DS_LVL(PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT) |              \
	 DS_SNOOP(PERF_MEM_SNOOP_HITM) | DS_REMOTE)
#define LD_PEER                                                                                    \
	(DS_OP(PERF_MEM_OP_LOAD) | DS_LVL(PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT) |                    \
	 DS_SNOOPX(PERF_MEM_SNOOPX_PEER))
#define ST_L1HIT  (DS_OP(PERF_MEM_OP_STORE) | DS_LVL(PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT))
#define ST_L1MISS (DS_OP(PERF_MEM_OP_STORE) | DS_LVL(PERF_MEM_LVL_L1 | PERF_MEM_LVL_MISS))

static void add_b(struct hws_c2c *c, const char *backend, uint32_t tid, uint64_t addr, uint64_t ds,
		  uint8_t width, uint32_t lat, int n)
{
	struct hws_sample s;

	for (int i = 0; i < n; i++) {
		memset(&s, 0, sizeof(s));
		s.sz = sizeof(s);
		s.fields = HWS_SF_PID | HWS_SF_CPU | HWS_SF_IP | HWS_SF_ADDR | HWS_SF_LAT_TOTAL;
		s.pid = 100;
		s.tid = tid;
		s.cpu = tid % 8;
		s.ip = 0x400000 + tid * 16;
		s.addr = addr;
		s.op_width = width;
		s.lat_total = lat;
		s.backend = backend;
		hws_data_src__normalize(ds, &s);
		__T("add", hws_c2c__add(c, &s) == 0);
	}
}

static void add(struct hws_c2c *c, uint32_t tid, uint64_t addr, uint64_t ds, uint8_t width,
		uint32_t lat, int n)
{
	add_b(c, "intel_pebs", tid, addr, ds, width, lat, n);
}

/* the backends built into this binary */
static struct hws_registry *static_backends(void)
{
	struct hws_registry *reg = hws_registry__new();
	char err[256];

	__T("registry", reg && hws_registry__add_static(reg, err, sizeof(err)) > 0);
	return reg;
}

static int find(const struct hws_c2c *c, uint64_t addr, struct hws_c2c_line_info *li)
{
	for (uint32_t i = 0; i < hws_c2c__nr_lines(c); i++) {
		hws_c2c__line(c, i, li);
		if (li->addr == addr)
			return (int)i;
	}
	return -1;
}

static int node_cb(void *ctx, int cpu)
{
	(void)ctx;
	return cpu >= 4;
}

static void test_classes(void)
{
	struct hws_c2c_opts o = {.sz = sizeof(o), .cpu_node = node_cb};
	struct hws_c2c *c = hws_c2c__new(&o);
	struct hws_c2c_line_info li;
	struct hws_c2c_entry_info e;
	int i;

	__T("new", c != NULL);
	/* 0x1000: false sharing, 4-byte fields side by side (widths known) */
	add(c, 1, 0x1000, ST_L1MISS, 4, 0, 10);
	add(c, 2, 0x1004, ST_L1MISS, 4, 0, 10);
	add(c, 2, 0x1004, LD_LHITM, 4, 100, 10);
	/* 0x2000: true sharing by width: 8-byte store at 0 overlaps a 4-byte load at 4 */
	add(c, 1, 0x2000, ST_L1HIT, 8, 0, 10);
	add(c, 5, 0x2004, LD_RHITM, 4, 300, 5);
	/* 0x3000: mixed: writer at 0, same-offset reader, other-offset reader */
	add(c, 1, 0x3000, ST_L1MISS, 8, 0, 10);
	add(c, 2, 0x3000, LD_LHITM, 8, 100, 10);
	add(c, 3, 0x3020, LD_LHITM, 8, 100, 10);
	/* 0x4000: HITM but no store sampled: unresolved */
	add(c, 2, 0x4008, LD_LHITM, 8, 100, 3);
	/* 0x5000: read by two threads, never written: read-shared, not reported */
	add(c, 1, 0x5000, LD_L1, 8, 4, 20);
	add(c, 2, 0x5008, LD_L1, 8, 4, 20);
	/* 0x6000: private (one thread, loads and stores) */
	add(c, 3, 0x6000, ST_L1HIT, 8, 0, 50);
	add(c, 3, 0x6008, LD_L1, 8, 4, 50);
	/* 0x7000: false sharing seen by address alone (no coherence event) */
	add(c, 1, 0x7000, ST_L1HIT, 8, 0, 10);
	add(c, 2, 0x7010, ST_L1HIT, 8, 0, 10);
	/* no address: counted, not in any line */
	{
		struct hws_sample s = {.sz = sizeof(s), .fields = HWS_SF_PID};

		hws_data_src__normalize(LD_L1, &s);
		hws_c2c__add(c, &s);
	}
	__T("finish", hws_c2c__finish(c, NULL) == 0);
	T_EQ_U64("reported lines", hws_c2c__nr_lines(c), 5);

	i = find(c, 0x1000, &li);
	__T("0x1000 reported", i >= 0);
	T_EQ_STR("0x1000 class", hws_c2c_class__name(li.cls), "false-sharing");
	__T("0x1000 evidence HITM + address", li.evidence == (HWS_C2C_EV_HITM | HWS_C2C_EV_ADDR));
	T_EQ_U64("0x1000 lcl hitm", li.st.lcl_hitm, 10);
	T_EQ_U64("0x1000 stores", li.st.stores, 20);
	T_EQ_U64("0x1000 st l1miss", li.st.st_l1miss, 20);
	T_EQ_U64("0x1000 threads", li.nr_threads, 2);
	T_EQ_U64("0x1000 offsets", li.nr_offsets, 2);
	__T("0x1000 high confidence", li.confidence >= 0.75f);

	i = find(c, 0x2000, &li);
	T_EQ_STR("0x2000 class (width overlap)", hws_c2c_class__name(li.cls), "true-sharing");
	T_EQ_U64("0x2000 rmt hitm", li.st.rmt_hitm, 5);
	/* perf quirk: remote (hops 0) HIT counts as remote DRAM too */
	T_EQ_U64("0x2000 rmt dram (perf mrem)", li.st.rmt_dram, 5);
	T_EQ_U64("0x2000 nodes", li.nr_nodes, 2);
	T_EQ_U64("0x2000 p50", li.lat_p50, 300);

	i = find(c, 0x3000, &li);
	T_EQ_STR("0x3000 class", hws_c2c_class__name(li.cls), "mixed");
	{
		bool t0 = false, f20 = false;

		for (uint32_t j = 0; j < hws_c2c__nr_entries(c, (uint32_t)i); j++) {
			hws_c2c__entry(c, (uint32_t)i, j, &e);
			if (e.offset == 0 && e.tid == 2)
				t0 = e.in_true && !e.in_false;
			if (e.offset == 0x20)
				f20 = e.in_false && !e.in_true;
		}
		__T("0x3000 offset 0 true, 0x20 false", t0 && f20);
	}

	i = find(c, 0x4000, &li);
	T_EQ_STR("0x4000 class", hws_c2c_class__name(li.cls), "unresolved");
	__T("unresolved has low confidence", li.confidence < 0.45f);

	i = find(c, 0x7000, &li);
	T_EQ_STR("0x7000 class", hws_c2c_class__name(li.cls), "false-sharing");
	T_EQ_U64("0x7000 evidence address only", li.evidence, HWS_C2C_EV_ADDR);
	{
		struct hws_c2c_line_info l1;

		find(c, 0x1000, &l1);
		__T("address-only confidence below HITM-backed", li.confidence < l1.confidence);
		__T("address-only text says so", strstr(li.evidence_text, "address overlap alone"));
	}
	__T("0x5000 (read-shared) not reported", find(c, 0x5000, &li) < 0);
	__T("0x6000 (private) not reported", find(c, 0x6000, &li) < 0);

	/* order: by HITM (0x3000: 20, 0x1000: 10, 0x2000: 5, 0x4000: 3), then the rest */
	hws_c2c__line(c, 0, &li);
	T_EQ_U64("top line", li.addr, 0x3000);
	hws_c2c__line(c, 4, &li);
	T_EQ_U64("last line", li.addr, 0x7000);
	T_EQ_U64("no address", hws_c2c__totals(c)->noaddr, 1);
	T_EQ_U64("total loads", hws_c2c__totals(c)->loads, 10 + 5 + 20 + 3 + 40 + 50 + 1);
	{
		struct hws_strbuf sb = HWS_STRBUF_INIT;

		__T("stdio", hws_c2c__render_stdio(c, &sb) == 0);
		__T("stdio table", sb.buf && strstr(sb.buf, "Shared Data Cache Line Table"));
		__T("stdio class", strstr(sb.buf, "false-sharing"));
		hws_strbuf__reset(&sb);
		__T("json", hws_c2c__render_json(c, &sb) == 0);
		__T("json class", strstr(sb.buf, "\"class\":\"mixed\""));
		__T("json offsets", strstr(sb.buf, "\"false_sharing_offsets\":[0,4]"));
		hws_strbuf__reset(&sb);
		__T("html", hws_c2c__render_html(c, "t</script><b>", &sb) == 0);
		__T("html table", strstr(sb.buf, "<table id=\"lines\">"));
		__T("html title escaped", strstr(sb.buf, "t&lt;/script&gt;&lt;b&gt;"));
		__T("html one script close per script", strstr(sb.buf, "</script>\n<script>"));
		hws_strbuf__release(&sb);
	}
	__T("add after finish refused", hws_c2c__add(c, &(struct hws_sample){0}) == -EBUSY);
	hws_c2c__delete(c);

	/* show_all lists the read-shared and private lines */
	o.show_all = true;
	c = hws_c2c__new(&o);
	add(c, 1, 0x5000, LD_L1, 8, 4, 2);
	add(c, 2, 0x5008, LD_L1, 8, 4, 2);
	add(c, 3, 0x6000, ST_L1HIT, 8, 0, 2);
	hws_c2c__finish(c, NULL);
	T_EQ_U64("show_all lines", hws_c2c__nr_lines(c), 2);
	find(c, 0x5000, &li);
	T_EQ_STR("read-shared", hws_c2c_class__name(li.cls), "read-shared");
	find(c, 0x6000, &li);
	T_EQ_STR("private", hws_c2c_class__name(li.cls), "private");
	hws_c2c__delete(c);
}

static void test_loads_only(void)
{
	struct hws_c2c *c = hws_c2c__new(NULL);
	struct hws_c2c_line_info li;

	/* no store sampled anywhere: HITM loads of two threads on different bytes ... */
	add(c, 1, 0x1000, LD_LHITM, 8, 100, 20);
	add(c, 2, 0x1008, LD_LHITM, 8, 100, 20);
	/* ... and on the same bytes */
	add(c, 1, 0x2000, LD_LHITM, 8, 100, 20);
	add(c, 2, 0x2000, LD_RHITM, 8, 300, 20);
	/* locked read-modify-writes (lock add) of two threads on one counter: true sharing,
	 * the RMW is the write */
	add(c, 1, 0x4000, LD_LHITM | ((uint64_t)PERF_MEM_LOCK_LOCKED << PERF_MEM_LOCK_SHIFT), 8,
	    100, 20);
	add(c, 2, 0x4000, LD_RHITM | ((uint64_t)PERF_MEM_LOCK_LOCKED << PERF_MEM_LOCK_SHIFT), 8,
	    300, 20);
	/* one thread only: still unresolved */
	add(c, 3, 0x3000, LD_LHITM, 8, 100, 20);
	hws_c2c__finish(c, NULL);
	find(c, 0x1000, &li);
	T_EQ_STR("loads only, different bytes", hws_c2c_class__name(li.cls), "false-sharing");
	__T("inferred: not high confidence", li.confidence < 0.75f && li.confidence > 0.2f);
	__T("inferred: said so", strstr(li.evidence_text, "inferred"));
	T_EQ_U64("inferred: evidence HITM only", li.evidence, HWS_C2C_EV_HITM);
	find(c, 0x2000, &li);
	T_EQ_STR("loads only, same bytes", hws_c2c_class__name(li.cls), "true-sharing");
	find(c, 0x3000, &li);
	T_EQ_STR("loads only, one thread", hws_c2c_class__name(li.cls), "unresolved");
	find(c, 0x4000, &li);
	T_EQ_STR("locked RMW", hws_c2c_class__name(li.cls), "true-sharing");
	T_EQ_U64("locked RMW count", li.st.rmw, 40);
	T_EQ_U64("locked RMW: evidence HITM + address", li.evidence,
		 HWS_C2C_EV_HITM | HWS_C2C_EV_ADDR);
	__T("locked RMW: high confidence", li.confidence >= 0.75f);
	hws_c2c__delete(c);
}

static void test_line_size(void)
{
	struct hws_c2c_opts o = {.sz = sizeof(o), .line_size = 32};
	struct hws_c2c_line_info li;
	struct hws_c2c *c;

	o.line_size = 48;
	__T("line size 48 refused", hws_c2c__new(&o) == NULL && errno == EINVAL);
	o.line_size = 32;
	c = hws_c2c__new(&o);
	add(c, 1, 0x1000, ST_L1MISS, 8, 0, 10);
	add(c, 2, 0x1020, LD_LHITM, 8, 100, 10);
	hws_c2c__finish(c, NULL);
	/* 32-byte lines: writer and reader are on different lines: no false sharing */
	__T("32: 0x1000 not false sharing",
	    find(c, 0x1000, &li) < 0 || li.cls != HWS_C2C_FALSE_SHARING);
	find(c, 0x1020, &li);
	T_EQ_STR("32: 0x1020 unresolved (HITM, writer elsewhere)", hws_c2c_class__name(li.cls),
		 "unresolved");
	hws_c2c__delete(c);
	o.line_size = 64;
	c = hws_c2c__new(&o);
	add(c, 1, 0x1000, ST_L1MISS, 8, 0, 10);
	add(c, 2, 0x1020, LD_LHITM, 8, 100, 10);
	hws_c2c__finish(c, NULL);
	find(c, 0x1000, &li);
	T_EQ_STR("64: false sharing", hws_c2c_class__name(li.cls), "false-sharing");
	hws_c2c__delete(c);
}

static void test_sources(void)
{
	struct hws_registry *reg = static_backends();
	struct hws_c2c_opts o = {.sz = sizeof(o), .backends = reg};
	struct hws_c2c *c = hws_c2c__new(&o);
	struct hws_c2c_line_info li;
	struct hws_sample s;

	/* SPE-style peer (L2 hit + SNOOPX_PEER) */
	add(c, 1, 0x1000, ST_L1HIT, 0, 0, 4);
	add(c, 2, 0x1000, LD_PEER, 0, 50, 6);
	/* lvl_num-only data_src (no legacy level): normalized level decides */
	memset(&s, 0, sizeof(s));
	s.sz = sizeof(s);
	s.fields = HWS_SF_PID | HWS_SF_ADDR;
	s.pid = 100;
	s.tid = 3;
	s.addr = 0x1008;
	s.backend = "amd_ibs";
	hws_data_src__normalize(DS_OP(PERF_MEM_OP_LOAD) | DS_LVL(PERF_MEM_LVL_NA) |
				    DS_LVLNUM(PERF_MEM_LVLNUM_ANY_CACHE) | DS_REMOTE |
				    ((uint64_t)1 << PERF_MEM_HOPS_SHIFT),
				&s);
	s.mem_level = HWS_MEM_REMOTE_CACHE;
	s.snoop = HWS_SNOOP_HITM;
	hws_c2c__add(c, &s);
	hws_c2c__finish(c, NULL);
	find(c, 0x1000, &li);
	T_EQ_U64("peer", li.st.lcl_peer, 6);
	T_EQ_U64("l2 hit", li.st.ld_l2hit, 6);
	T_EQ_U64("normalized remote HITM", li.st.rmt_hitm, 1);
	T_EQ_STR("class", hws_c2c_class__name(li.cls), "mixed");
	__T("evidence names SPE/PEBS and IBS",
	    strstr(li.evidence_text, "Intel PEBS data_src") && strstr(li.evidence_text, "AMD IBS"));
	hws_c2c__delete(c);
	hws_registry__delete(reg);
}

/* backends for test_source_names(): one names its evidence, one is an older plugin whose ops
 * table ends before coherence_source (so the member, set here, is not looked at) */
static int src_init(void *p, const struct hws_host *h)
{
	return 0;
}
static int src_detect(void *p, char *why, size_t len)
{
	return 0;
}
static int src_encode(void *p, const struct hws_event_request *r, struct hws_event_desc *d, int max,
		      char *e, size_t l)
{
	return 0;
}
static int src_match(void *p, const struct hws_perf_event_attr *a, const char *pmu)
{
	return 0;
}
static int src_decode(void *p, const struct hws_file_info *fi, const struct hws_record_sample *r,
		      struct hws_sample *s)
{
	return 0;
}
#define SRC_OPS(nm, sz, cs)                                                                        \
	{                                                                                          \
		.abi_version = HWS_BACKEND_ABI_VERSION, .size = (sz), .name = nm,                  \
		.init = src_init, .detect = src_detect, .encode = src_encode, .match = src_match,  \
		.decode = src_decode, .coherence_source = cs                                       \
	}
static const struct hws_backend_ops src_named =
    SRC_OPS("tsrc", sizeof(struct hws_backend_ops), "Test data source");
static const struct hws_backend_ops src_old =
    SRC_OPS("oldsrc", offsetof(struct hws_backend_ops, coherence_source), "not read");

/*
 * The source of a sample's coherence evidence is what its backend's ops call it, else "perf
 * data_src": per backend on lines of their own, in the evidence text and the sources listed
 * (in name order, one per distinct name), and without backends to ask.
 */
static void test_source_names(void)
{
	static const struct {
		const char *backend, *source;
	} cases[] = {
	    {"intel_pebs", "Intel PEBS data_src"},
	    {"amd_ibs", "AMD IBS DataSrc/CacheHitSt"},
	    {"arm_spe", "Arm SPE data source"},
	    {"sw", "perf data_src"},
	    {NULL, "perf data_src"},
	    {"nosuch", "perf data_src"},
	    {"tsrc", "Test data source"},
	    {"oldsrc", "perf data_src"},
	};
	struct hws_registry *reg = static_backends();
	struct hws_c2c_opts o = {.sz = sizeof(o), .backends = reg};
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	struct hws_c2c_line_info li;
	struct hws_c2c *c;
	char want[256], err[256];
	const char *pre;
	size_t i;
	int k;

	__T("add tsrc", hws_registry__add(reg, &src_named, "(test)", NULL, err, sizeof(err)) == 1);
	__T("add oldsrc", hws_registry__add(reg, &src_old, "(test)", NULL, err, sizeof(err)) == 1);
	for (k = 0; k < 2; k++) {
		c = hws_c2c__new(k ? NULL : &o);
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			add_b(c, cases[i].backend, 1, 0x10000 * (i + 1), ST_L1HIT, 8, 0, 2);
			add_b(c, cases[i].backend, 2, 0x10000 * (i + 1) + 8, LD_LHITM, 8, 90, 3);
		}
		/* a line with HITM from two backends: both named, in name order */
		add_b(c, "intel_pebs", 1, 0x900000, LD_LHITM, 8, 90, 1);
		add_b(c, "amd_ibs", 2, 0x900008, LD_LHITM, 8, 90, 1);
		__T("finish", hws_c2c__finish(c, NULL) == 0);
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			snprintf(want, sizeof(want),
				 "HITM 3 (lcl 3, rmt 0) from %s; writer and other threads sampled",
				 k ? "perf data_src" : cases[i].source);
			__T("line of the backend", find(c, 0x10000 * (i + 1), &li) >= 0);
			T_EQ_STR(cases[i].backend ? cases[i].backend : "(no backend)",
				 li.evidence_text, want);
		}
		find(c, 0x900000, &li);
		pre = k ? "HITM 2 (lcl 2, rmt 0) from perf data_src;"
			: "HITM 2 (lcl 2, rmt 0) from AMD IBS DataSrc/CacheHitSt + Intel PEBS "
			  "data_src;";
		__T("two sources on a line", !strncmp(li.evidence_text, pre, strlen(pre)));
		T_EQ_U64("stdio", hws_c2c__render_stdio(c, &sb), 0);
		__T("sources in name order, one per name",
		    strstr(sb.buf,
			   k ? "  Coherence evidence from           : perf data_src (26)\n"
			     : "  Coherence evidence from           : AMD IBS DataSrc/CacheHitSt "
			       "(4) Arm SPE data source (3) Intel PEBS data_src (4) Test data "
			       "source (3) perf data_src (12)\n"));
		hws_strbuf__reset(&sb);
		T_EQ_U64("json", hws_c2c__render_json(c, &sb), 0);
		__T("json sources",
		    strstr(
			sb.buf,
			k ? "\"evidence_sources\":[{\"source\":\"perf data_src\",\"samples\":26}]"
			  : "\"evidence_sources\":[{\"source\":\"AMD IBS DataSrc/CacheHitSt\","
			    "\"samples\":4},{\"source\":\"Arm SPE data source\",\"samples\":3},"
			    "{\"source\":\"Intel PEBS data_src\",\"samples\":4},{\"source\":"
			    "\"Test data source\",\"samples\":3},{\"source\":\"perf "
			    "data_src\",\"samples\":12}],"));
		hws_strbuf__release(&sb);
		hws_c2c__delete(c);
	}
	/* the built-in backends name their sources through their ops */
	T_EQ_STR("intel_pebs ops", hws_registry__find(reg, "intel_pebs")->ops->coherence_source,
		 "Intel PEBS data_src");
	__T("sw names none", !HWS_OPS_HAS(hws_registry__find(reg, "sw")->ops, coherence_source));
	hws_registry__delete(reg);
}

static int cmp32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void test_percentiles(void)
{
	struct hws_c2c *c = hws_c2c__new(NULL);
	struct hws_c2c_line_info li;

	/* latencies 1..100 in a scrambled order (and a writer so the line is reported) */
	add(c, 1, 0x1000, ST_L1HIT, 8, 0, 1);
	for (int v = 0; v < 100; v++)
		add(c, 2, 0x1008, LD_LHITM, 8, (uint32_t)((v * 37) % 100 + 1), 1);
	hws_c2c__finish(c, NULL);
	find(c, 0x1000, &li);
	T_EQ_U64("p50", li.lat_p50, 50);
	T_EQ_U64("p90", li.lat_p90, 90);
	T_EQ_U64("p99", li.lat_p99, 99);
	T_EQ_U64("lat n", li.st.lat_n, 100);
	T_EQ_U64("lat mean x100", li.st.lat_sum, 5050);
	hws_c2c__delete(c);

	/* random sizes and values (many duplicates) against sorting */
	for (int round = 0; round < 50; round++) {
		static uint32_t v[777];
		uint32_t n = 1 + (uint32_t)(rand() % 777), k;
		unsigned int ps[3] = {50, 90, 99};
		uint32_t got[3];

		c = hws_c2c__new(NULL);
		add(c, 1, 0x1000, ST_L1HIT, 8, 0, 1);
		for (k = 0; k < n; k++) {
			v[k] = (uint32_t)(rand() % (round % 2 ? 7 : 5000));
			add(c, 2, 0x1008, LD_LHITM, 8, v[k], 1);
		}
		hws_c2c__finish(c, NULL);
		find(c, 0x1000, &li);
		got[0] = li.lat_p50, got[1] = li.lat_p90, got[2] = li.lat_p99;
		qsort(v, n, sizeof(v[0]), cmp32);
		for (k = 0; k < 3; k++) {
			uint64_t r = ((uint64_t)n * ps[k] + 99) / 100;

			T_EQ_U64("random percentile", got[k], v[r ? r - 1 : 0]);
		}
		hws_c2c__delete(c);
	}
}

/*
 * Lines with many loads: direct counters for small values (after 256 loads), the table for
 * the rest, and past 4096 distinct large values log-linear buckets (relative error < 2^-10).
 */
static void test_percentiles_large(void)
{
	static uint32_t v[20000];
	static const struct {
		int line;
		uint32_t n, range;
		bool exact;
	} cases[] = {
	    {__LINE__, 300, 600, true},	      /* small counters from sample 256 on */
	    {__LINE__, 5000, 1000, true},     /* all small */
	    {__LINE__, 5000, 3000, true},     /* small + table */
	    {__LINE__, 20000, 5000, true},    /* table stays under 4096 distinct values */
	    {__LINE__, 20000, 200000, false}, /* dense buckets */
	    {__LINE__, 20000, 1500, true},    /* below LH_EXACT: dense is exact too */
	};
	unsigned int ps[3] = {50, 90, 99};

	for (size_t t = 0; t < sizeof(cases) / sizeof(cases[0]); t++) {
		struct hws_c2c *c = hws_c2c__new(NULL);
		struct hws_c2c_line_info li;
		uint32_t k, got[3];
		char what[64];

		add(c, 1, 0x1000, ST_L1HIT, 8, 0, 1);
		for (k = 0; k < cases[t].n; k++) {
			/* the first half small values, then large: the table is migrated */
			v[k] = (uint32_t)rand() % (k < cases[t].n / 2 ? 700 : cases[t].range);
			add(c, 2, 0x1008, LD_LHITM, 8, v[k], 1);
		}
		hws_c2c__finish(c, NULL);
		find(c, 0x1000, &li);
		got[0] = li.lat_p50, got[1] = li.lat_p90, got[2] = li.lat_p99;
		T_EQ_U64("large n", li.st.lat_n, cases[t].n);
		qsort(v, cases[t].n, sizeof(v[0]), cmp32);
		for (k = 0; k < 3; k++) {
			uint64_t r = ((uint64_t)cases[t].n * ps[k] + 99) / 100;
			uint32_t want = v[r ? r - 1 : 0];

			snprintf(what, sizeof(what), "line %d p%u", cases[t].line, ps[k]);
			if (cases[t].exact)
				T_EQ_U64(what, got[k], want);
			else
				__T(what,
				    got[k] >= want - want / 1024 && got[k] <= want + want / 1024);
		}
		hws_c2c__delete(c);
	}
}

/* the output function's pieces, joined; @fail: refuse the second piece */
struct pieces {
	struct hws_strbuf all;
	int calls, fail;
};

static int collect_piece(void *ctx, const char *buf, size_t len)
{
	struct pieces *p = ctx;

	if (p->fail && ++p->calls == 2)
		return -EPIPE;
	p->calls += !p->fail;
	return hws_strbuf__add(&p->all, buf, len) ? -ENOMEM : 0;
}

/*
 * A report bigger than the strbuf's cap: without an output function the render says
 * HWS_E_TOO_BIG; with one, the pieces make exactly the text of the uncapped render (@whole)
 * while the strbuf stays small; a failing output function ends the render with the error.
 */
static void check_pieces(struct hws_c2c *c, const struct hws_strbuf *whole, bool json)
{
	struct pieces p = {.all = HWS_STRBUF_INIT};
	struct hws_strbuf small;
	int rc;

	__T("pieces: the report is bigger than two chunks", whole->len > (3u << 20));
	hws_strbuf__init(&small, 1u << 21);
	rc = json ? hws_c2c__render_json(c, &small) : hws_c2c__render_stdio(c, &small);
	T_EQ_U64("capped, no output function: too big", rc, (uint64_t)HWS_E_TOO_BIG);
	hws_strbuf__release(&small);
	if (json) { /* the page embeds the JSON: it is made whole, within the cap */
		hws_strbuf__init(&small, 1u << 21);
		T_EQ_U64("capped html: too big", hws_c2c__render_html(c, NULL, &small),
			 (uint64_t)HWS_E_TOO_BIG);
		hws_strbuf__release(&small);
	}

	hws_strbuf__init(&small, 1u << 21);
	hws_c2c__set_output(c, collect_piece, &p);
	rc = json ? hws_c2c__render_json(c, &small) : hws_c2c__render_stdio(c, &small);
	T_EQ_U64("pieces: ok", rc, 0);
	__T("pieces: several", p.calls > 2);
	T_EQ_U64("pieces: nothing left behind", small.len, 0);
	T_EQ_U64("pieces: same length", p.all.len, whole->len);
	__T("pieces: same text",
	    p.all.len == whole->len && !memcmp(p.all.buf, whole->buf, whole->len));
	hws_strbuf__release(&small);

	hws_strbuf__init(&small, 1u << 21);
	p.fail = 1;
	p.calls = 0;
	rc = json ? hws_c2c__render_json(c, &small) : hws_c2c__render_stdio(c, &small);
	T_EQ_U64("failing output: error", rc, (uint64_t)HWS_E_TOO_BIG);
	hws_c2c__set_output(c, NULL, NULL);
	hws_strbuf__release(&small);
	hws_strbuf__release(&p.all);
}

/*
 * Batched counting: more distinct sample kinds than the vectorized kinds table holds (each
 * subset of the level bits is its own kind: 256 of them, the fallback path counts those past
 * 64), and more entries than the prefetch threshold; the totals must be exact either way.
 */
static void test_batches(void)
{
	static const uint64_t lv[8] = {PERF_MEM_LVL_UNC,     PERF_MEM_LVL_IO,	   PERF_MEM_LVL_LFB,
				       PERF_MEM_LVL_L1,	     PERF_MEM_LVL_L2,	   PERF_MEM_LVL_L3,
				       PERF_MEM_LVL_LOC_RAM, PERF_MEM_LVL_REM_RAM1};
	struct hws_c2c_opts o = {.sz = sizeof(o), .show_all = true};
	const struct hws_c2c_stats *t;
	struct hws_c2c_line_info li;
	struct hws_c2c *c = hws_c2c__new(NULL);
	bool ok = true;

	for (int sub = 0; sub < 256; sub++) {
		uint64_t lvl = PERF_MEM_LVL_HIT;

		for (int b = 0; b < 8; b++)
			if (sub & (1 << b))
				lvl |= lv[b];
		add(c, 1 + (uint32_t)(sub & 3), 0x10000 + (uint64_t)sub * 8,
		    DS_OP(PERF_MEM_OP_LOAD) | DS_LVL(lvl) | DS_SNOOP(PERF_MEM_SNOOP_NONE), 8, 7, 2);
	}
	hws_c2c__finish(c, NULL);
	t = hws_c2c__totals(c);
	T_EQ_U64("kinds: loads", t->loads, 512);
	T_EQ_U64("kinds: records", t->records, 512);
	T_EQ_U64("kinds: uncached", t->ld_uncache, 256);
	T_EQ_U64("kinds: io", t->ld_io, 256);
	T_EQ_U64("kinds: lfb", t->ld_fbhit, 256);
	T_EQ_U64("kinds: l1", t->ld_l1hit, 256);
	T_EQ_U64("kinds: l2", t->ld_l2hit, 256);
	T_EQ_U64("kinds: llc", t->ld_llchit, 256);
	T_EQ_U64("kinds: local dram", t->lcl_dram, 256);
	T_EQ_U64("kinds: remote dram", t->rmt_dram, 256);
	T_EQ_U64("kinds: latencies", t->lat_n, 512);
	T_EQ_U64("kinds: latency sum", t->lat_sum, 512 * 7);
	hws_c2c__delete(c);

	/* 2000 lines x 4 threads x 3 offsets (24000 entries), 2 samples each, interleaved */
	c = hws_c2c__new(&o);
	for (int rep = 0; rep < 2; rep++)
		for (uint32_t ln = 0; ln < 2000; ln++)
			for (uint32_t k = 0; k < 12; k++)
				add(c, 1 + k % 4, 0x100000 + (uint64_t)ln * 64 + (k / 4) * 8,
				    k % 4 ? LD_LHITM : ST_L1HIT, 8, 100 + ln % 50, 1);
	hws_c2c__finish(c, NULL);
	T_EQ_U64("entries: lines", hws_c2c__nr_lines(c), 2000);
	for (uint32_t i = 0; i < hws_c2c__nr_lines(c); i++) {
		hws_c2c__line(c, i, &li);
		ok &= hws_c2c__nr_entries(c, i) == 12 && li.st.records == 24 && li.st.stores == 6 &&
		      li.st.lcl_hitm == 18 && li.nr_threads == 4 &&
		      li.lat_p50 == 100 + ((li.addr - 0x100000) / 64) % 50;
	}
	__T("entries: every line has its 12 entries, 24 records, 6 stores, 18 HITM", ok);
	T_EQ_U64("entries: total records", hws_c2c__totals(c)->records, 48000);
	hws_c2c__delete(c);

	/* one line with 20000 entries (code addresses): classified in linear time */
	c = hws_c2c__new(NULL);
	for (uint32_t k = 0; k < 10000; k++) {
		struct hws_sample smp;

		for (int w = 0; w < 2; w++) {
			memset(&smp, 0, sizeof(smp));
			smp.sz = sizeof(smp);
			smp.fields = HWS_SF_PID | HWS_SF_CPU | HWS_SF_IP | HWS_SF_ADDR;
			smp.pid = 100;
			smp.tid = w ? 2 : 1;
			smp.cpu = (uint32_t)w;
			smp.ip = 0x400000 + k * 4;
			smp.addr = w ? 0x9008 : 0x9000;
			smp.op_width = 8;
			smp.backend = "intel_pebs";
			hws_data_src__normalize(w ? LD_LHITM : ST_L1HIT, &smp);
			__T("many entries: add", hws_c2c__add(c, &smp) == 0);
		}
	}
	hws_c2c__finish(c, NULL);
	T_EQ_U64("many entries: lines", hws_c2c__nr_lines(c), 1);
	hws_c2c__line(c, 0, &li);
	T_EQ_U64("many entries: class", li.cls, HWS_C2C_FALSE_SHARING);
	T_EQ_U64("many entries: threads", li.nr_threads, 2);
	T_EQ_U64("many entries: offsets", li.nr_offsets, 2);
	T_EQ_U64("many entries: entries", hws_c2c__nr_entries(c, 0), 20000);
	{
		struct hws_strbuf sb = HWS_STRBUF_INIT;

		T_EQ_U64("many entries: json", hws_c2c__render_json(c, &sb), 0);
		__T("many entries: writer totals",
		    sb.buf &&
			strstr(sb.buf, "\"writers\":[{\"pid\":100,\"tid\":1,\"samples\":10000}]"));
		__T("many entries: reader totals",
		    sb.buf &&
			strstr(sb.buf, "\"readers\":[{\"pid\":100,\"tid\":2,\"samples\":10000}]"));
		check_pieces(c, &sb, true);
		hws_strbuf__reset(&sb);
		T_EQ_U64("many entries: stdio", hws_c2c__render_stdio(c, &sb), 0);
		check_pieces(c, &sb, false);
		hws_strbuf__release(&sb);
	}
	hws_c2c__delete(c);
}

int main(void)
{
	test_batches();
	test_percentiles();
	test_percentiles_large();
	test_classes();
	test_line_size();
	test_loads_only();
	test_sources();
	test_source_names();
	TEST_END();
}
