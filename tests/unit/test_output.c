// SPDX-License-Identifier: MIT
/*
 * dump formatters (core/output/output.c) on hand-built samples: exact JSON/CSV/text for a full
 * memory sample and a bare software sample, only valid fields printed, escaping, raw
 * objects, symbols; every JSON line must also parse with jq (when installed) and every CSV
 * row must have as many cells as the header.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/errors.h>
#include <hwsample/output.h>

#include "tests.h"

static struct hws_sample full_sample(void)
{
	struct hws_sample s = {.sz = sizeof(s)};

	s.fields = HWS_SF_TIME | HWS_SF_CPU | HWS_SF_PID | HWS_SF_PERIOD | HWS_SF_IP | HWS_SF_ADDR |
		   HWS_SF_PHYS_ADDR | HWS_SF_OP | HWS_SF_LAT_TOTAL | HWS_SF_LAT_MISS |
		   HWS_SF_DATA_SRC | HWS_SF_BRANCH;
	s.time = 12345678901234ULL;
	s.cpu = 3;
	s.pid = 100;
	s.tid = 101;
	s.period = 4000;
	s.event = "ibs_op/l3missonly=1/";
	s.backend = "amd_ibs";
	s.ip = 0x7f00001e43bbULL;
	s.ip_precise = 1;
	s.addr = 0x55550000a000ULL;
	s.phys_addr = 0x12345000ULL;
	s.op = HWS_OP_LOAD;
	s.lat_total = 312;
	s.lat_miss = 250;
	s.mem_level = HWS_MEM_LOCAL_DRAM;
	s.snoop = HWS_SNOOP_NONE;
	s.tlb = HWS_TLB_L1_HIT;
	s.data_src = 0x1a100142ULL;
	s.branch_target = 0x401000;
	return s;
}

static struct hws_sample sw_sample(void)
{
	struct hws_sample s = {.sz = sizeof(s)};

	s.fields = HWS_SF_TIME | HWS_SF_PID | HWS_SF_PERIOD | HWS_SF_IP;
	s.time = 5;
	s.pid = 7;
	s.tid = 8;
	s.period = 1;
	s.event = "cpu-clock";
	s.backend = "sw";
	s.ip = 0xffffffff81000010ULL;
	return s;
}

static int fake_raw(void *ctx, const struct hws_sample *s, struct hws_strbuf *sb)
{
	(*(int *)ctx)++;
	return hws_strbuf__addf(sb, "{\"IbsOpData\":\"0x%x\",\"note\":\"a,b\"}", s->lat_total);
}

/* @s formatted by a new formatter with the options @o */
static const char *fmt(const struct hws_output_opts *o, const struct hws_sample *s,
		       struct hws_strbuf *sb)
{
	struct hws_output *out = hws_output__new(o);

	hws_strbuf__reset(sb);
	__T("formatter made", out != NULL);
	__T("format ok", out && hws_output__sample(out, s, sb) == 0);
	hws_output__delete(out);
	return sb->buf ? sb->buf : "";
}

/* the CSV header of a new formatter with the options @o */
static int header(const struct hws_output_opts *o, struct hws_strbuf *sb)
{
	struct hws_output *out = hws_output__new(o);
	int err = out ? hws_output__header(out, sb) : -errno;

	hws_output__delete(out);
	return err;
}

static int count_cells(const char *line)
{
	int n = 1, q = 0;

	for (; *line && *line != '\n'; line++) {
		if (*line == '"')
			q = !q;
		else if (*line == ',' && !q)
			n++;
	}
	return n;
}

static void jq_check(const char *json)
{
	char path[] = "/tmp/hws-test-output-XXXXXX", cmd[256];
	int fd;

	if (system("jq --version >/dev/null 2>&1"))
		return;
	fd = mkstemp(path);
	if (fd < 0)
		return;
	__T("write", write(fd, json, strlen(json)) == (ssize_t)strlen(json));
	close(fd);
	snprintf(cmd, sizeof(cmd), "jq -e -c . %s >/dev/null", path);
	__T("jq parses the JSON lines", system(cmd) == 0);
	unlink(path);
}

int main(void)
{
	struct hws_output_opts o = {.sz = sizeof(o)};
	struct hws_strbuf sb = HWS_STRBUF_INIT, all = HWS_STRBUF_INIT;
	struct hws_sample s = full_sample(), w = sw_sample();
	int raw_calls = 0;

	o.format = HWS_OUT_JSON;
	T_EQ_STR("json full", fmt(&o, &s, &sb),
		 "{\"time\":12345678901234,\"cpu\":3,\"pid\":100,\"tid\":101,"
		 "\"event\":\"ibs_op/l3missonly=1/\",\"backend\":\"amd_ibs\",\"period\":4000,"
		 "\"ip\":\"0x7f00001e43bb\",\"precise\":true,\"addr\":\"0x55550000a000\","
		 "\"phys_addr\":\"0x12345000\",\"op\":\"load\",\"lat_total\":312,"
		 "\"lat_miss\":250,\"mem_level\":\"local_dram\",\"snoop\":\"none\","
		 "\"tlb\":\"l1_hit\",\"data_src\":437256514,\"branch_target\":\"0x401000\"}\n");
	hws_strbuf__addstr(&all, sb.buf);
	T_EQ_STR("json sw: only valid fields", fmt(&o, &w, &sb),
		 "{\"time\":5,\"pid\":7,\"tid\":8,\"event\":\"cpu-clock\",\"backend\":\"sw\","
		 "\"period\":1,\"ip\":\"0xffffffff81000010\",\"precise\":false}\n");
	hws_strbuf__addstr(&all, sb.buf);

	/* escaping */
	w.event = "tp:\"quoted\"\\x\n";
	T_EQ_STR("json escape", strstr(fmt(&o, &w, &sb), "\"event\""),
		 "\"event\":\"tp:\\\"quoted\\\"\\\\x\\u000a\",\"backend\":\"sw\",\"period\":1,"
		 "\"ip\":\"0xffffffff81000010\",\"precise\":false}\n");
	hws_strbuf__addstr(&all, sb.buf);
	w.event = "cpu-clock";

	/* zero values are printed when valid, absent when not */
	w.fields |= HWS_SF_ADDR;
	w.addr = 0;
	__T("addr 0 printed when valid", strstr(fmt(&o, &w, &sb), "\"addr\":\"0x0\"") != NULL);
	w.fields &= ~(uint64_t)HWS_SF_ADDR;
	w.addr = 0x1234;
	__T("addr not printed when invalid", strstr(fmt(&o, &w, &sb), "addr") == NULL);

	/* raw */
	o.raw = true;
	o.raw_json = fake_raw;
	o.raw_ctx = &raw_calls;
	__T("json raw", strstr(fmt(&o, &s, &sb),
			       ",\"raw\":{\"IbsOpData\":\"0x138\",\"note\":\"a,b\"}}\n") != NULL);
	hws_strbuf__addstr(&all, sb.buf);
	T_EQ_U64("raw_json called once", raw_calls, 1);
	jq_check(all.buf);

	/* CSV */
	o.format = HWS_OUT_CSV;
	hws_strbuf__reset(&sb);
	__T("csv header", header(&o, &sb) == 0);
	T_EQ_STR("csv header text", sb.buf,
		 "time,cpu,pid,tid,event,backend,period,ip,precise,addr,phys_addr,op,lat_total,"
		 "lat_issue,lat_xlat,lat_miss,lat_ins,mem_level,snoop,tlb,data_src,branch_target,"
		 "raw\n");
	int hcells = count_cells(sb.buf);
	T_EQ_STR("csv full", fmt(&o, &s, &sb),
		 "12345678901234,3,100,101,ibs_op/l3missonly=1/,amd_ibs,4000,0x7f00001e43bb,1,"
		 "0x55550000a000,0x12345000,load,312,,,250,,local_dram,none,l1_hit,437256514,"
		 "0x401000,\"{\"\"IbsOpData\"\":\"\"0x138\"\",\"\"note\"\":\"\"a,b\"\"}\"\n");
	T_EQ_U64("csv cells = header cells", count_cells(sb.buf), hcells);
	o.raw = false;
	T_EQ_STR("csv sw", fmt(&o, &w, &sb),
		 "5,,7,8,cpu-clock,sw,1,0xffffffff81000010,0,,,,,,,,,,,,,\n");
	w.event = "a,b";
	__T("csv quoting", strstr(fmt(&o, &w, &sb), ",\"a,b\",sw,") != NULL);
	w.event = "cpu-clock";
	hws_strbuf__reset(&sb);
	header(&o, &sb);
	T_EQ_U64("csv no-raw header cells", count_cells(sb.buf), hcells - 1);

	/* text */
	o.format = HWS_OUT_TEXT;
	T_EQ_STR("text full", fmt(&o, &s, &sb),
		 "12345.678901234 [003] 100/101 ibs_op/l3missonly=1/: 4000 ip 0x7f00001e43bb [P] "
		 "addr 0x55550000a000 phys 0x12345000 op load lvl local_dram snoop none tlb l1_hit"
		 " lat 312 miss 250 target 0x401000\n");
	T_EQ_STR("text sw", fmt(&o, &w, &sb),
		 "0.000000005 7/8 cpu-clock: 1 ip 0xffffffff81000010\n");

	/* symbols: a process with a mapping of a missing file, and a kernel address */
	struct hws_symbols *syms = hws_symbols__new(NULL);
	hws_symbols__mmap(syms, 100, 0x7f0000000000ULL, 0x100000000ULL, 0x1000, "/no/such/lib.so");
	o.symbols = true;
	o.syms = syms;
	__T("text sym: map only", strstr(fmt(&o, &s, &sb), "[P] [lib.so]+0x1e53bb addr") != NULL);
	o.format = HWS_OUT_JSON;
	__T("json sym",
	    strstr(fmt(&o, &s, &sb), "\"sym\":\"[lib.so]+0x1e53bb\",\"dso\":\"/no/such/lib.so\"") !=
		NULL);
	__T("json no data_sym without map", strstr(sb.buf, "data_sym") == NULL);
	__T("json kernel sym",
	    strstr(fmt(&o, &w, &sb), "\"sym\":\"[kernel]\",\"dso\":\"[kernel]\"") != NULL);
	o.format = HWS_OUT_CSV;
	hws_strbuf__reset(&sb);
	header(&o, &sb);
	hcells = count_cells(sb.buf);
	T_EQ_U64("csv sym cells", count_cells(fmt(&o, &s, &sb)), hcells);
	__T("csv sym", strstr(sb.buf, ",[lib.so]+0x1e53bb,/no/such/lib.so,,\n") != NULL);
	hws_symbols__delete(syms);

	/* hard cap: a refused append is an error, never a crash */
	struct hws_strbuf small;
	hws_strbuf__init(&small, 16);
	o.format = HWS_OUT_JSON;
	o.symbols = false;
	struct hws_output *out = hws_output__new(&o);
	__T("cap refused", out && hws_output__sample(out, &s, &small) == HWS_E_TOO_BIG);
	__T("toobig set", small.toobig);
	T_EQ_U64("nothing of the refused line kept", small.len, 0);
	hws_output__delete(out);

	/* options: an unknown format, unknown members set past the struct */
	o.format = 7;
	errno = 0;
	__T("unknown format refused", !hws_output__new(&o) && errno == EINVAL);
	T_EQ_STR("NULL options: text", fmt(NULL, &w, &sb),
		 "0.000000005 7/8 cpu-clock: 1 ip 0xffffffff81000010\n");
	struct {
		struct hws_output_opts o;
		uint64_t future;
	} big = {.o = {.sz = sizeof(big), .format = HWS_OUT_JSON}, .future = 1};
	errno = 0;
	__T("a set member past the struct refused", !hws_output__new(&big.o) && errno == EINVAL);
	big.future = 0;
	out = hws_output__new(&big.o);
	__T("a larger struct with a zero tail accepted", out != NULL);
	hws_output__delete(out);
	hws_strbuf__release(&small);

	hws_strbuf__release(&sb);
	hws_strbuf__release(&all);
	TEST_END();
}
