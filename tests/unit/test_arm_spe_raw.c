// SPDX-License-Identifier: MIT
/*
 * Arm SPE raw JSON (backends/arm_spe/spe_raw.c, the text of dump --raw):
 * 1. the crafted records of arm_spe_raw_cases.h (every header byte, extended and alignment
 *    packets, bad bytes, every hex width, decimal edges, every EVENTS bit, every OP_TYPE,
 *    records longer than the formatter's buffer, random records, MIDR variants) give
 *    exactly the text of the formatter before the table-driven one (golden hashes);
 * 2. two published records give the full text written out below;
 * 3. the text is appended to what the strbuf holds; a strbuf too small gives an error.
 * Its numbers are <hwsample/fmt.h>'s writers, which tests/unit/test_fmt.c checks.
 */

#include <hwsample/backend.h>
#include <hwsample/registry.h>

#include "tests.h"
#include "arm_spe_raw_cases.h"
#include "../../backends/arm_spe/spe.h"
#include "../golden/arm_spe/spe_vectors.h"
#include "../golden/arm_spe/spe_raw_golden.h"

const struct hws_backend_ops *hws_backend_entry_arm_spe(const struct hws_host *host);

static const struct hws_backend_ops *ops;
static struct spe_priv *sp;

static int render(const struct hws_file_info *fi, const void *raw, size_t len, int cpu,
		  struct hws_strbuf *sb)
{
	struct hws_sample s;

	memset(&s, 0, sizeof(s));
	s.fields = HWS_SF_RAW | (cpu >= 0 ? HWS_SF_CPU : 0);
	s.cpu = cpu >= 0 ? (uint32_t)cpu : 0;
	s.raw = raw;
	s.raw_size = (uint32_t)len;
	return ops->raw_json(sp, fi, &s, sb);
}

static void test_golden(void)
{
	static uint8_t buf[SPE_RAW_CASE_MAX + 64];
	struct hws_file_info fis[6];
	struct spe_raw_case c;
	unsigned int k, bad = 0;

	for (int v = 0; v < 6; v++) {
		memset(&fis[v], 0, sizeof(fis[v]));
		fis[v].sz = sizeof(fis[v]);
		fis[v].cpuid = spe_raw_case_cpuid(v);
	}
	for (k = 0; spe_raw_case(k, buf, &c); k++) {
		struct hws_strbuf sb = HWS_STRBUF_INIT;
		int r;

		sp->last_raw = c.use_pos ? buf : NULL;
		sp->last_raw_pos = c.pos;
		r = render(c.fi ? &fis[c.fi] : NULL, c.null_raw ? NULL : buf, c.len, c.cpu, &sb);
		if (r || k >= sizeof(spe_raw_gold) / sizeof(spe_raw_gold[0]) || !sb.buf ||
		    spe_raw_fnv(sb.buf, sb.len) != spe_raw_gold[k]) {
			if (bad++ < 5)
				fprintf(stderr, "case %u (ret %d, %zu bytes): %.400s\n", k, r,
					sb.len, sb.buf ? sb.buf : "(none)");
		}
		hws_strbuf__release(&sb);
	}
	T_EQ_U64("golden: all cases", k, sizeof(spe_raw_gold) / sizeof(spe_raw_gold[0]));
	T_EQ_U64("golden: cases that differ", bad, 0);
}

/* the Altra load record (then the next record's PC) on an N1, and the windowsperf branch and
 * store records read as one, without a CPU */
static const char altra_json[] =
    "{\"packets\":[{\"type\":\"OP-TYPE\",\"index\":1,\"len\":2,\"payload\":\"0x0\",\"desc\":\"LD "
    "GP-REG\"},{\"type\":\"EVENTS\",\"index\":2,\"len\":3,\"payload\":\"0x31e\",\"desc\":\"EV "
    "RETIRED L1D-ACCESS L1D-REFILL TLB-ACCESS LLC-ACCESS LLC-REFILL\"},{\"type\":\"LAT\","
    "\"index\":1,\"len\":3,\"payload\":\"0x151\",\"desc\":\"LAT 337 ISSUE\"},{\"type\":\"LAT\","
    "\"index\":0,\"len\":3,\"payload\":\"0x1f5\",\"desc\":\"LAT 501 TOT\"},{\"type\":\"ADDR\","
    "\"index\":2,\"len\":9,\"payload\":\"0xff403ef1d79e50\",\"desc\":\"VA 0xff403ef1d79e50\"},"
    "{\"type\":\"LAT\",\"index\":2,\"len\":3,\"payload\":\"0x1\",\"desc\":\"LAT 1 XLAT\"},"
    "{\"type\":\"ADDR\",\"index\":3,\"len\":9,\"payload\":\"0x8000403f71d79e50\",\"desc\":\"PA "
    "0x403f71d79e50 ns=1 ch=0 pat=0\"},{\"type\":\"DATA-SOURCE\",\"index\":0,\"len\":2,"
    "\"payload\":\"0xc\",\"desc\":\"DATA-SOURCE 12\"},{\"type\":\"PAD\",\"index\":0,\"len\":1,"
    "\"desc\":\"PAD\"},{\"type\":\"PAD\",\"index\":0,\"len\":1,\"desc\":\"PAD\"},{\"type\":"
    "\"TS\",\"index\":0,\"len\":9,\"payload\":\"0x73ebde99ab3\",\"desc\":\"TS 7966055570099\"},"
    "{\"type\":\"ADDR\",\"index\":0,\"len\":9,\"payload\":\"0xc0ffd4228fcbb688\",\"desc\":\"PC "
    "0xffd4228fcbb688 el2 ns=1\"}],\"events\":[\"RETIRED\",\"L1D-ACCESS\",\"L1D-REFILL\","
    "\"TLB-ACCESS\",\"LLC-ACCESS\",\"LLC-REFILL\"],\"events_raw\":\"0x31e\",\"op_class\":1,"
    "\"op_raw\":\"0x0\",\"source\":12,\"ts\":7966055570099,\"pc_el\":2,\"pc_ns\":1,\"midr\":"
    "\"0x413fd0c1\",\"ds_table\":\"common\",\"cpu_model\":\"neoverse-n1\"}";

static const char wperf_json[] =
    "{\"packets\":[{\"type\":\"OP-TYPE\",\"index\":2,\"len\":2,\"payload\":\"0x1\",\"desc\":\"B "
    "COND\"},{\"type\":\"ADDR\",\"index\":1,\"len\":9,\"payload\":\"0x8000000000000000\","
    "\"desc\":\"TGT 0x0 el0 ns=1\"},{\"type\":\"EVENTS\",\"index\":1,\"len\":2,\"payload\":"
    "\"0x42\",\"desc\":\"EV RETIRED NOT-TAKEN\"},{\"type\":\"END\",\"index\":0,\"len\":1,"
    "\"desc\":\"END\"},{\"type\":\"OP-TYPE\",\"index\":1,\"len\":2,\"payload\":\"0x1\",\"desc\":"
    "\"ST GP-REG\"},{\"type\":\"ADDR\",\"index\":2,\"len\":9,\"payload\":\"0xffff800073babd50\","
    "\"desc\":\"VA 0xffff800073babd50\"},{\"type\":\"ADDR\",\"index\":3,\"len\":9,\"payload\":"
    "\"0x80000000f3babd50\",\"desc\":\"PA 0xf3babd50 ns=1 ch=0 pat=0\"},{\"type\":\"END\","
    "\"index\":0,\"len\":1,\"desc\":\"END\"}],\"events\":[\"RETIRED\",\"NOT-TAKEN\"],"
    "\"events_raw\":\"0x42\",\"op_class\":1,\"op_raw\":\"0x1\",\"midr\":\"0x413fd0c1\","
    "\"ds_table\":\"common\",\"cpu_model\":\"neoverse-n1\"}";

static void test_literal(void)
{
	struct hws_file_info fi = {.sz = sizeof(fi), .cpuid = "0x00000000413fd0c1"};
	struct hws_strbuf sb = HWS_STRBUF_INIT;

	sp->last_raw = NULL;
	__T("altra renders", render(&fi, spe_altra_ld, sizeof(spe_altra_ld), 3, &sb) == 0);
	T_EQ_STR("altra text", sb.buf, altra_json);
	hws_strbuf__reset(&sb);
	__T("wperf renders", render(&fi, spe_wperf_br_st, sizeof(spe_wperf_br_st), -1, &sb) == 0);
	T_EQ_STR("wperf text", sb.buf, wperf_json);

	/* appended after what the strbuf holds */
	hws_strbuf__reset(&sb);
	hws_strbuf__add(&sb, "x:", 2);
	__T("append renders", render(&fi, spe_altra_ld, sizeof(spe_altra_ld), 3, &sb) == 0);
	__T("appended", sb.buf && !strncmp(sb.buf, "x:", 2) && !strcmp(sb.buf + 2, altra_json));
	hws_strbuf__release(&sb);

	/* a strbuf that cannot take the text: an error, for a short record and for one whose
	 * text passes the formatter's buffer */
	{
		static uint8_t pads[SPE_REC_MAX];
		struct hws_strbuf small;

		hws_strbuf__init(&small, 100);
		__T("too small: error", render(&fi, spe_altra_ld, sizeof(spe_altra_ld), 3, &small));
		hws_strbuf__release(&small);
		hws_strbuf__init(&small, 20000);
		__T("too small, long record: error", render(&fi, pads, sizeof(pads), 3, &small));
		hws_strbuf__release(&small);
	}
}

int main(void)
{
	ops = hws_backend_entry_arm_spe(hws_host__get());
	__T("ops", ops && ops->raw_json && ops->priv_size >= sizeof(struct spe_priv));
	if (!ops)
		TEST_END();
	sp = calloc(1, ops->priv_size);
	__T("init", sp && ops->init(sp, hws_host__get()) == 0);
	if (!sp)
		TEST_END();
	test_golden();
	test_literal();
	free(sp);
	TEST_END();
}
