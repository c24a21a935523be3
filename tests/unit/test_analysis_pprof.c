// SPDX-License-Identifier: MIT
/*
 * hws_pprof (core/analysis/pprof.c) through its public API: samples in, the written file
 * gunzipped by zlib and unpacked by protobuf-c (the C protoc-c generates from profile.proto) into a
 * profile, whose contents are checked against what went in: sample types, summed values,
 * stacks leaf first with ids that resolve, labels (numbers with a unit, so pid 0 and cpu 0
 * survive readers that drop a zero without one), the data frame, aggregation of equal
 * samples, the filter, string 0 = "". Without symbols (no names): go tool pprof's reading of
 * named profiles is tests/e2e/analysis_convert_pprof.sh.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include <hwsample/convert.h>

#include "profile.pb-c.h"
#include "tests.h"

static Perftools__Profiles__Profile *write_read(struct hws_pprof *p)
{
	FILE *f = tmpfile();
	unsigned char *buf = NULL;
	size_t cap = 1 << 20, n = 0;
	Perftools__Profiles__Profile *pr = NULL;
	gzFile gz;
	int r;

	__T("tmpfile", f);
	if (!f)
		return NULL;
	__T("write", hws_pprof__write(p, fileno(f)) == 0);
	rewind(f);
	gz = gzdopen(dup(fileno(f)), "rb");
	buf = malloc(cap);
	while (gz && buf && (r = gzread(gz, buf + n, (unsigned int)(cap - n))) > 0)
		n += (size_t)r;
	__T("gunzip", gz && n > 0 && n < cap);
	if (gz)
		gzclose(gz);
	fclose(f);
	if (buf && n)
		pr = perftools__profiles__profile__unpack(NULL, n, buf);
	free(buf);
	__T("unpack", pr != NULL);
	return pr;
}

static const char *str(const Perftools__Profiles__Profile *pr, int64_t i)
{
	return i >= 0 && (size_t)i < pr->n_string_table ? pr->string_table[i] : "<bad>";
}

static const Perftools__Profiles__Label *label(const Perftools__Profiles__Profile *pr,
					       const Perftools__Profiles__Sample *s, const char *k)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (!strcmp(str(pr, s->label[i]->key), k))
			return s->label[i];
	return NULL;
}

static uint64_t loc_addr(const Perftools__Profiles__Profile *pr, uint64_t id)
{
	for (size_t i = 0; i < pr->n_location; i++)
		if (pr->location[i]->id == id)
			return pr->location[i]->address;
	return ~0ULL;
}

int main(void)
{
	struct hws_frame cc[3] = {
	    {.ip = 0x401000, .ctx = HWS_CTX_USER},
	    {.ip = 0x402000, .ctx = HWS_CTX_USER},
	    {.ip = 0x403000, .ctx = HWS_CTX_USER},
	};
	struct hws_sample s = {.sz = sizeof(s)};
	HWS_OPTS(hws_pprof_opts, o, .data_frames = true, .comment = "unit");
	struct hws_pprof *p = hws_pprof__new(&o);
	Perftools__Profiles__Profile *pr;
	struct hws_pprof_stats st;
	const Perftools__Profiles__Sample *a = NULL, *b = NULL;

	__T("new", p);
	if (!p)
		TEST_END();
	/* two equal samples with a call chain and a data address, on pid 0 / cpu 0 */
	s.fields = HWS_SF_PID | HWS_SF_CPU | HWS_SF_PERIOD | HWS_SF_IP | HWS_SF_CALLCHAIN |
		   HWS_SF_ADDR | HWS_SF_DATA_SRC | HWS_SF_OP | HWS_SF_LAT_TOTAL | HWS_SF_TIME;
	s.event = "mem-loads";
	s.ip = cc[0].ip;
	s.callchain = cc;
	s.nr_callchain = 3;
	s.addr = 0x7000;
	s.op = HWS_OP_LOAD;
	s.mem_level = HWS_MEM_L3;
	s.snoop = HWS_SNOOP_HITM;
	s.tlb = HWS_TLB_MISS;
	s.period = 100;
	s.lat_total = 40;
	s.time = 1000;
	__T("add 1", hws_pprof__add(p, &s) == 0);
	s.lat_total = 2;
	s.time = 3000;
	__T("add 2", hws_pprof__add(p, &s) == 0);
	/* another thread, ip only, no period, no latency, no data source */
	s.fields = HWS_SF_PID | HWS_SF_CPU | HWS_SF_IP;
	s.pid = 7;
	s.tid = 8;
	s.cpu = 3;
	s.ip = 0xffffffff81000000ULL;
	__T("add 3", hws_pprof__add(p, &s) == 0);
	hws_pprof__stats(p, &st);
	T_EQ_U64("samples", st.samples, 3);
	T_EQ_U64("pprof samples", st.pprof_samples, 2);
	T_EQ_U64("locations (3 code, 1 data, 1 kernel)", st.locations, 5);

	pr = write_read(p);
	if (!pr) {
		hws_pprof__delete(p);
		TEST_END();
	}
	T_EQ_STR("string 0", str(pr, 0), "");
	T_EQ_U64("sample types", pr->n_sample_type, 3);
	if (pr->n_sample_type == 3) {
		T_EQ_STR("type 0", str(pr, pr->sample_type[0]->type), "samples");
		T_EQ_STR("type 1", str(pr, pr->sample_type[1]->type), "event");
		T_EQ_STR("type 2", str(pr, pr->sample_type[2]->type), "latency");
		T_EQ_STR("unit 2", str(pr, pr->sample_type[2]->unit), "cycles");
	}
	T_EQ_STR("default type", str(pr, pr->default_sample_type), "event");
	T_EQ_U64("duration", pr->duration_nanos, 2000);
	T_EQ_U64("comment", pr->n_comment, 1);
	if (pr->n_comment)
		T_EQ_STR("comment text", str(pr, pr->comment[0]), "unit");
	T_EQ_U64("samples written", pr->n_sample, 2);
	for (size_t i = 0; i < pr->n_sample; i++) {
		if (pr->sample[i]->n_location_id == 4)
			a = pr->sample[i];
		else
			b = pr->sample[i];
	}
	__T("the call-chain sample", a && b);
	if (a && b && a->n_value == 3 && b->n_value == 3) {
		T_EQ_U64("a: count", a->value[0], 2);
		T_EQ_U64("a: period", a->value[1], 200);
		T_EQ_U64("a: latency", a->value[2], 42);
		T_EQ_U64("a: leaf is the data address", loc_addr(pr, a->location_id[0]), 0x7000);
		T_EQ_U64("a: then frame 0", loc_addr(pr, a->location_id[1]), 0x401000);
		T_EQ_U64("a: outermost last", loc_addr(pr, a->location_id[3]), 0x403000);
		__T("a: pid 0 kept (a unit)", label(pr, a, "pid") &&
						  label(pr, a, "pid")->num == 0 &&
						  label(pr, a, "pid")->num_unit != 0);
		__T("a: cpu 0 kept", label(pr, a, "cpu") && label(pr, a, "cpu")->num == 0);
		__T("a: event", label(pr, a, "event") &&
				    !strcmp(str(pr, label(pr, a, "event")->str), "mem-loads"));
		__T("a: mem_level", label(pr, a, "mem_level") &&
					!strcmp(str(pr, label(pr, a, "mem_level")->str), "l3"));
		__T("a: snoop",
		    label(pr, a, "snoop") && !strcmp(str(pr, label(pr, a, "snoop")->str), "hitm"));
		__T("a: tlb",
		    label(pr, a, "tlb") && !strcmp(str(pr, label(pr, a, "tlb")->str), "miss"));
		__T("a: op",
		    label(pr, a, "op") && !strcmp(str(pr, label(pr, a, "op")->str), "load"));
		__T("a: no comm without symbols", !label(pr, a, "comm"));
		T_EQ_U64("b: count", b->value[0], 1);
		T_EQ_U64("b: period 1 without one", b->value[1], 1);
		T_EQ_U64("b: no latency", b->value[2], 0);
		T_EQ_U64("b: one frame", b->n_location_id, 1);
		T_EQ_U64("b: its ip", loc_addr(pr, b->location_id[0]), 0xffffffff81000000ULL);
		__T("b: tid 8", label(pr, b, "tid") && label(pr, b, "tid")->num == 8);
		__T("b: no data-source labels", !label(pr, b, "mem_level") && !label(pr, b, "op"));
	}
	for (size_t i = 0; i < pr->n_location; i++)
		__T("location ids non-zero", pr->location[i]->id != 0);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	hws_pprof__delete(p);

	/* a filter: only cpu 3 */
	{
		HWS_OPTS(hws_filter_opts, fo, .cpu = "3");
		struct hws_filter *f = NULL;

		__T("filter", hws_filter__new(&fo, &f) == 0);
		HWS_OPTS(hws_pprof_opts, o2, .filter = f);
		p = hws_pprof__new(&o2);
		__T("new 2", p);
		s.cpu = 3;
		__T("add kept", p && hws_pprof__add(p, &s) == 0);
		s.cpu = 4;
		__T("add dropped", p && hws_pprof__add(p, &s) == 0);
		if (p) {
			hws_pprof__stats(p, &st);
			T_EQ_U64("filter: kept", st.samples, 1);
			T_EQ_U64("filter: dropped", st.filtered, 1);
			pr = write_read(p);
			if (pr) {
				T_EQ_U64("no latency type", pr->n_sample_type, 2);
				T_EQ_U64("one sample", pr->n_sample, 1);
				perftools__profiles__profile__free_unpacked(pr, NULL);
			}
		}
		hws_pprof__delete(p);
		hws_filter__delete(f);
	}
	/* an empty profile is a valid one; bad arguments */
	p = hws_pprof__new(NULL);
	pr = p ? write_read(p) : NULL;
	__T("empty: no samples", pr && pr->n_sample == 0 && pr->n_string_table > 0);
	if (pr)
		perftools__profiles__profile__free_unpacked(pr, NULL);
	__T("write to fd -1", hws_pprof__write(p, -1) == -EINVAL);
	hws_pprof__delete(p);
	hws_pprof__delete(NULL);
	TEST_END();
}
