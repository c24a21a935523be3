// SPDX-License-Identifier: MIT
/*
 * The reader on real perf recordings (tests/fixtures/perf_data_converter, see SOURCES.md),
 * checked against perf 6.1's own output kept next to them:
 *  - weight_struct: every SAMPLE field against perf report -D (*.samples-D.txt: cpu, time,
 *    misc, pid/tid, ip, period, addr, weight var1/var2/var3, data_src) and perf script
 *    (*.script.txt: tid, cpu, time, addr, data_src, weight, ins_lat, ip), plus the header
 *    features against *.header.txt (hostname, cpuid, nrcpus, NUMA nodes, event name);
 *  - lost_samples-4.4 (file and pipe): per-type counts and LOST_SAMPLES ids (*.stats.txt);
 *  - hybrid_topology, header_features_aligned-6.12 (pipe, 136-byte attrs), intel_pt-4.14
 *    (AUXTRACE payloads): values shown by `perf report --header-only`;
 *  - the corrupted pipe file: an error naming offset and record after 570 good records.
 */
#include <errno.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>

#include <hwsample/perfdata.h>

#include "tests.h"

static char fixdir[PATH_MAX];

static struct hws_perf_reader *open_fix(const char *name)
{
	char path[PATH_MAX * 2];
	struct hws_perf_reader *r;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", fixdir, name);
	r = hws_perf_reader__open(path, NULL);
	err = r ? 0 : -errno;
	if (!r)
		fprintf(stderr, "cannot open %s: %d\n", path, err);
	return r;
}

static FILE *open_golden(const char *name)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", fixdir, name);
	return fopen(path, "r");
}

/* Find the record at @off and parse it as a sample. */
static int sample_at(const char *fix, uint64_t off, struct hws_record_sample *s, uint8_t *copy)
{
	struct hws_perf_reader *r = open_fix(fix);
	struct hws_perf_record rec;
	int found = 0;

	while (r && hws_perf_reader__next(r, &rec) > 0) {
		const struct hws_perf_evattr *ev;

		if (rec.file_offset != off)
			continue;
		ev = hws_perf_reader__attr(r, rec.attr_idx);
		memcpy(copy, rec.hdr, rec.hdr->size);
		found = rec.hdr->type == PERF_RECORD_SAMPLE && ev &&
			hws_sample__parse(&ev->attr, copy, rec.hdr->size, s) == 0;
		s->attr = NULL; /* the reader's attr dies with it */
		break;
	}
	hws_perf_reader__close(r);
	return found;
}

static void test_weight_struct_samples(void)
{
	const char *fix = "perf.data.weight_struct";
	struct hws_record_sample s;
	uint8_t copy[65536];
	char line[512], tail[512];
	int n = 0, ok;
	FILE *f = open_golden("perf.data.weight_struct.perf-6.1.samples-D.txt");

	__T("golden -D file", f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		unsigned int cpu, misc, pid, tid;
		unsigned long long time, off, ip, period, addr, w1, w2, w3, ds;

		if (sscanf(line,
			   "%u %llu %llx [%*x]: PERF_RECORD_SAMPLE(IP, %x): %u/%u: %llx period: "
			   "%llu addr: %llx",
			   &cpu, &time, &off, &misc, &pid, &tid, &ip, &period, &addr) != 9)
			continue;
		if (!fgets(tail, sizeof(tail), f) ||
		    sscanf(tail, "... weight: %llu,%llx,%llx", &w1, &w2, &w3) != 3 ||
		    !fgets(tail, sizeof(tail), f) || sscanf(tail, " . data_src: %llx", &ds) != 1) {
			__T("golden format", 0);
			break;
		}
		ok = sample_at(fix, off, &s, copy);
		__T("sample at golden offset", ok);
		if (!ok)
			continue;
		n++;
		T_EQ_U64("cpu", s.cpu, cpu);
		T_EQ_U64("time", s.time, time);
		T_EQ_U64("misc", s.misc, misc);
		T_EQ_U64("pid", s.pid, pid);
		T_EQ_U64("tid", s.tid, tid);
		T_EQ_U64("ip", s.ip, ip);
		T_EQ_U64("period (attr)", s.period, period);
		T_EQ_U64("addr", s.addr, addr);
		T_EQ_U64("weight var1", s.weight & 0xffffffff, w1);
		T_EQ_U64("weight var2", (s.weight >> 32) & 0xffff, w2);
		T_EQ_U64("weight var3", s.weight >> 48, w3);
		T_EQ_U64("data_src", s.data_src, ds);
	}
	if (f)
		fclose(f);
	T_EQ_U64("14 golden samples", n, 14);
}

/* perf script -F tid,cpu,time,ip,addr,data_src,weight,ins_lat: match by time. */
static void test_weight_struct_script(void)
{
	struct hws_perf_reader *r = open_fix("perf.data.weight_struct");
	FILE *f = open_golden("perf.data.weight_struct.perf-6.1.script.txt");
	struct hws_record_sample smp[32];
	struct hws_perf_record rec;
	char line[512];
	int ns = 0, matched = 0;

	while (r && hws_perf_reader__next(r, &rec) > 0 && ns < 32) {
		const struct hws_perf_evattr *ev = hws_perf_reader__attr(r, rec.attr_idx);

		if (rec.hdr->type != PERF_RECORD_SAMPLE || !ev)
			continue;
		if (!hws_sample__parse(&ev->attr, rec.hdr, rec.hdr->size, &smp[ns]))
			ns++;
	}
	hws_perf_reader__close(r);
	T_EQ_U64("samples", ns, 14);
	while (f && fgets(line, sizeof(line), f)) {
		unsigned int tid, cpu;
		unsigned long sec, usec;
		unsigned long long addr, ds, weight, inslat, ip;
		char *bar = strrchr(line, '|'), *end;

		if (sscanf(line, "%u [%u] %lu.%lu: %llx %llx", &tid, &cpu, &sec, &usec, &addr,
			   &ds) != 6 ||
		    !bar) {
			__T("script line format", 0);
			continue;
		}
		/* after the decoded data_src text: "BLK  N/A   weight ins_lat ip" */
		bar = strstr(bar, "N/A");
		if (!bar || sscanf(bar + 3, "%llu %llu %llx", &weight, &inslat, &ip) != 3) {
			__T("script tail format", 0);
			continue;
		}
		for (int i = 0; i < ns; i++) {
			struct hws_record_sample *s = &smp[i];

			if (s->time / 1000000000 != sec || (s->time / 1000) % 1000000 != usec ||
			    s->tid != tid)
				continue;
			matched++;
			T_EQ_U64("script cpu", s->cpu, cpu);
			T_EQ_U64("script addr", s->addr, addr);
			T_EQ_U64("script data_src", s->data_src, ds);
			T_EQ_U64("script weight (var1)", s->weight & 0xffffffff, weight);
			T_EQ_U64("script ins_lat (var2)", (s->weight >> 32) & 0xffff, inslat);
			T_EQ_U64("script ip", s->ip, ip);
			break;
		}
		(void)end;
	}
	if (f)
		fclose(f);
	T_EQ_U64("every perf script line matched a sample", matched, 14);
}

static void test_weight_struct_header(void)
{
	struct hws_perf_reader *r = open_fix("perf.data.weight_struct");
	const struct hws_file_info *fi;
	uint32_t onl = 0;

	__T("open", r != NULL);
	if (!r)
		return;
	T_EQ_STR("hostname", hws_perf_reader__string(r, HWS_FEAT_HOSTNAME),
		 "oxco15.prod.google.com");
	T_EQ_STR("osrelease", hws_perf_reader__string(r, HWS_FEAT_OSRELEASE),
		 "4.15.0-smp-923.44.0.0");
	T_EQ_STR("cpudesc", hws_perf_reader__string(r, HWS_FEAT_CPUDESC),
		 "Intel(R) Xeon(R) Platinum 8173M CPU @ 2.00GHz");
	T_EQ_U64("nrcpus", hws_perf_reader__nr_cpus(r, &onl), 112);
	T_EQ_U64("online", onl, 112);
	T_EQ_U64("cpu 27 node", hws_perf_reader__cpu_node(r, 27), 0);
	T_EQ_U64("cpu 28 node", hws_perf_reader__cpu_node(r, 28), 1);
	T_EQ_U64("cpu 83 node", hws_perf_reader__cpu_node(r, 83), 0);
	T_EQ_U64("cpu 111 node", hws_perf_reader__cpu_node(r, 111), 1);
	T_EQ_STR("pmu 4", hws_perf_reader__pmu_name(r, 4), "cpu");
	T_EQ_STR("pmu 8", hws_perf_reader__pmu_name(r, 8), "intel_pt");
	T_EQ_U64("attrs", hws_perf_reader__nr_attrs(r), 2);
	T_EQ_STR("event name (EVENT_DESC)", hws_perf_reader__attr(r, 0)->name,
		 "MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2:mh:mg:pinned");
	T_EQ_STR("event pmu", hws_perf_reader__attr(r, 0)->pmu_name, "cpu");
	T_EQ_U64("config", hws_perf_reader__attr(r, 0)->attr.config, 0x1cd);
	T_EQ_U64("config1 (ldlat)", hws_perf_reader__attr(r, 0)->attr.config1, 0x40);
	T_EQ_U64("precise_ip", hws_perf_reader__attr(r, 0)->attr.precise_ip, 2);
	T_EQ_U64("normalized size", hws_perf_reader__attr(r, 0)->attr.size,
		 sizeof(struct hws_perf_event_attr));
	fi = hws_perf_reader__file_info(r);
	T_EQ_STR("fi arch", fi->arch, "x86_64");
	T_EQ_STR("fi cpuid", fi->cpuid, "GenuineIntel,6,85,4");
	T_EQ_U64("fi nr_cpus", fi->nr_cpus, 112);
	__T("no time conv record needed", fi->tracing_data == NULL);
	T_EQ_U64("no midr on x86", fi->cpu_midr(fi, 0), 0);
	hws_perf_reader__close(r);
}

/* Counts against *.stats.txt; LOST_SAMPLES ids map to the right events. */
static void test_lost_samples(const char *fix, bool pipe)
{
	struct hws_perf_reader *r = open_fix(fix);
	FILE *f = open_golden("perf.data.lost_samples-4.4.perf-6.1.stats.txt");
	uint64_t counts[HWS_RECORD__MAX] = {0};
	struct hws_perf_record rec;
	char line[256];
	int lost = 0, ret = -1, checked = 0;

	while (r && (ret = hws_perf_reader__next(r, &rec)) > 0) {
		counts[rec.hdr->type]++;
		if (rec.hdr->type == PERF_RECORD_LOST_SAMPLES) {
			const struct hws_perf_evattr *ev = hws_perf_reader__attr(r, rec.attr_idx);

			__T("lost samples event", ev != NULL);
			/* file: trailer ids 289/293 are cycles:pp / branch-instructions:pp
			 * by the header's id lists (EVENT_DESC names); pipe (another run,
			 * no EVENT_DESC): ids 134/136 are instructions / branches, as perf
			 * report --stats attributes them */
			if (ev && lost == 0)
				T_EQ_STR("first lost", ev->name,
					 pipe ? "instructions:ppH" : "cycles:pp");
			if (ev && lost == 1)
				T_EQ_STR("second lost", ev->name,
					 pipe ? "branches:ppH" : "branch-instructions:pp");
			lost++;
		}
	}
	__T("read to the end", r && ret == 0);
	while (f && fgets(line, sizeof(line), f)) {
		char name[64];
		unsigned long long n;

		if (sscanf(line, " %63s events: %llu", name, &n) != 2 || !strcmp(name, "TOTAL") ||
		    !strcmp(name, "SAMPLE"))
			continue;
		for (uint32_t t = 0; t < HWS_RECORD__MAX; t++)
			if (!strcmp(hws_record__type_name(t), name)) {
				T_EQ_U64(name, counts[t], n);
				checked++;
			}
	}
	T_EQ_U64("SAMPLE", counts[PERF_RECORD_SAMPLE], 191);
	T_EQ_U64("types checked", checked, 6);
	T_EQ_U64("lost records", lost, 2);
	if (f)
		fclose(f);
	hws_perf_reader__close(r);
}

static void test_hybrid(void)
{
	struct hws_perf_reader *r = open_fix("perf.data.hybrid_topology");

	__T("open", r != NULL);
	if (!r)
		return;
	T_EQ_STR("cpuid", hws_perf_reader__string(r, HWS_FEAT_CPUID), "GenuineIntel,6,186,3");
	T_EQ_STR("cap", hws_perf_reader__pmu_cap(r, "cpu_core", "pmu_name"), "alderlake_hybrid");
	T_EQ_STR("cap atom", hws_perf_reader__pmu_cap(r, "cpu_atom", "max_precise"), "3");
	T_EQ_STR("name", hws_perf_reader__attr(r, 0)->name, "cpu_core/cycles:ppp/");
	T_EQ_STR("pmu 7", hws_perf_reader__pmu_name(r, 7), "cpu_atom");
	T_EQ_STR("hybrid extended type -> cpu_core", hws_perf_reader__attr(r, 0)->pmu_name,
		 "cpu_core");
	T_EQ_STR("hybrid extended type -> cpu_atom", hws_perf_reader__attr(r, 1)->pmu_name,
		 "cpu_atom");
	__T("hybrid topology", hws_perf_reader__has_feature(r, HWS_FEAT_HYBRID_TOPOLOGY));
	T_EQ_U64("attr by id 40", hws_perf_reader__attr_by_id(r, 40), 1);
	hws_perf_reader__close(r);
}

static void test_pipe_612(void)
{
	struct hws_perf_reader *r = open_fix("perf.data.piped.header_features_aligned-6.12");
	struct hws_perf_record rec;
	int samples = 0, ret;

	__T("open", r != NULL);
	if (!r)
		return;
	__T("pipe", hws_perf_reader__is_pipe(r));
	while ((ret = hws_perf_reader__next(r, &rec)) > 0) {
		const struct hws_perf_evattr *ev = hws_perf_reader__attr(r, rec.attr_idx);
		struct hws_record_sample s;

		if (rec.hdr->type == PERF_RECORD_SAMPLE && ev &&
		    !hws_sample__parse(&ev->attr, rec.hdr, rec.hdr->size, &s) && s.pid == 3572830)
			samples++;
	}
	T_EQ_U64("end", ret, 0);
	T_EQ_U64("samples", samples, 9);
	T_EQ_U64("attrs", hws_perf_reader__nr_attrs(r), 1);
	T_EQ_STR("name", hws_perf_reader__attr(r, 0)->name, "cycles:u");
	T_EQ_U64("read_format ID|LOST", hws_perf_reader__attr(r, 0)->attr.read_format, 0x14);
	T_EQ_U64("ids", hws_perf_reader__attr(r, 0)->nr_ids, 12);
	T_EQ_STR("cpudesc", hws_perf_reader__string(r, HWS_FEAT_CPUDESC),
		 "Intel(R) Xeon(R) W-2135 CPU @ 3.70GHz");
	T_EQ_STR("cpu cap", hws_perf_reader__pmu_cap(r, "cpu", "pmu_name"), "skylake");
	T_EQ_STR("pt cap", hws_perf_reader__pmu_cap(r, "intel_pt", "mtc_periods"), "249");
	T_EQ_STR("pmu 10", hws_perf_reader__pmu_name(r, 10), "intel_pt");
	T_EQ_STR("pmu u32 type", hws_perf_reader__pmu_name(r, 4294967294u), "tool");
	__T("time conv", hws_perf_reader__file_info(r)->time_conv != NULL);
	hws_perf_reader__close(r);
}

static void test_intel_pt(void)
{
	struct hws_perf_reader *r = open_fix("perf.data.intel_pt-4.14");
	struct hws_perf_record rec;
	const struct hws_file_info *fi;
	int aux = 0, ret;

	while (r && (ret = hws_perf_reader__next(r, &rec)) > 0) {
		if (rec.hdr->type != HWS_RECORD_AUXTRACE)
			continue;
		aux++;
		__T("payload", rec.payload != NULL && rec.payload_size > 0);
		T_EQ_U64("payload size = record size field", rec.payload_size,
			 ((const uint64_t *)rec.hdr)[1]);
	}
	T_EQ_U64("auxtrace records", aux, 2);
	fi = r ? hws_perf_reader__file_info(r) : NULL;
	__T("auxtrace info",
	    fi && fi->auxtrace_type == 1 /* PERF_AUXTRACE_INTEL_PT */ && fi->nr_auxtrace_priv > 0);
	T_EQ_STR("first event", r ? hws_perf_reader__attr(r, 0)->name : NULL, "intel_pt//");
	hws_perf_reader__close(r);
}

/* perf record -z (recorded here, kept in the fuzz corpus): zstd COMPRESSED records. */
static void test_compressed(void)
{
	struct hws_perf_reader *r = open_fix("../../fuzz/corpus/perfdata/recorded_zstd");
	struct hws_perf_record rec;
	uint64_t comp_off = 0, counts[HWS_RECORD__MAX] = {0};
	int ret = -1, inner_ok = 1, parsed = 0;
	void *h = dlopen("libzstd.so.1", RTLD_NOW);

	if (!h) {
		printf("libzstd.so.1 not installed: compressed contents not checked\n");
		hws_perf_reader__close(r);
		return;
	}
	dlclose(h);
	while (r && (ret = hws_perf_reader__next(r, &rec)) > 0) {
		const struct hws_perf_evattr *ev = hws_perf_reader__attr(r, rec.attr_idx);
		struct hws_record_sample s;

		counts[rec.hdr->type]++;
		if (rec.hdr->type == HWS_RECORD_COMPRESSED)
			comp_off = rec.file_offset;
		else if (rec.hdr->type == PERF_RECORD_SAMPLE || rec.hdr->type == 10)
			inner_ok &= rec.file_offset == comp_off; /* perf -D shows them there */
		if (rec.hdr->type == PERF_RECORD_SAMPLE && ev &&
		    !hws_sample__parse(&ev->attr, rec.hdr, rec.hdr->size, &s) && s.pid && s.addr)
			parsed++;
	}
	T_EQ_U64("end", ret, 0);
	T_EQ_U64("compressed records", counts[HWS_RECORD_COMPRESSED], 1);
	T_EQ_U64("samples inside (perf report --stats: 7)", counts[PERF_RECORD_SAMPLE], 7);
	T_EQ_U64("mmap2 inside (perf report --stats: 23)", counts[10], 23);
	T_EQ_U64("samples parse (page-faults -d: pid and addr)", parsed, 7);
	__T("inner records carry the COMPRESSED offset", inner_ok && comp_off);
	hws_perf_reader__close(r);
}

static void test_corrupted(void)
{
	struct hws_perf_reader *r = open_fix("perf.data.piped.corrupted.zero_size_sample-3.2");
	struct hws_perf_record rec;
	int n = 0, ret = 0;

	while (r && (ret = hws_perf_reader__next(r, &rec)) > 0)
		n++;
	T_EQ_U64("records before the error", n, 570);
	__T("error", r && ret == HWS_E_BADREC);
	__T("message names offset and record",
	    r &&
		strstr(hws_perf_reader__errmsg(r), "offset 0xbfd0: record SAMPLE (type 9) size 0"));
	__T("error sticks", r && hws_perf_reader__next(r, &rec) == ret);
	hws_perf_reader__close(r);
}

int main(void)
{
	const char *fx = getenv("HWS_FIXTURES");

	if (fx) {
		snprintf(fixdir, sizeof(fixdir), "%s/perf_data_converter", fx);
	} else { /* run by hand: next to this source file */
		char *slash;

		snprintf(fixdir, sizeof(fixdir), "%s", __FILE__);
		slash = strrchr(fixdir, '/');
		if (slash)
			*slash = 0;
		strncat(fixdir, "/../fixtures/perf_data_converter",
			sizeof(fixdir) - strlen(fixdir) - 1);
	}
	test_weight_struct_samples();
	test_weight_struct_script();
	test_weight_struct_header();
	test_lost_samples("perf.data.lost_samples-4.4", false);
	test_lost_samples("perf.data.piped.lost_samples-4.4", true);
	test_hybrid();
	test_pipe_612();
	test_intel_pt();
	test_corrupted();
	test_compressed();
	TEST_END();
}
