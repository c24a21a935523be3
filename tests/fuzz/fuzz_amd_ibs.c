// SPDX-License-Identifier: MIT
/*
 * Fuzz target for the amd_ibs decoder: input byte 0 picks the PMU name (op, fetch or
 * none) and the CPU (Zen 2, Zen 3 errata model, Zen 4, Zen 5 page-size, unknown); the rest
 * is the PERF_SAMPLE_RAW blob. Runs decode() and raw_json(). The blob is copied into an
 * exactly sized heap buffer so ASan catches any read past the RAW size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/backend.h>
#include <hwsample/registry.h>

const struct hws_backend_ops *hws_backend_entry_amd_ibs(const struct hws_host *host);

struct fz_fi {
	struct hws_file_info fi;
	int zen4, zen5;
};

static const char *fz_cap(const struct hws_file_info *fi, const char *pmu, const char *cap)
{
	const struct fz_fi *f = (const struct fz_fi *)fi;

	(void)pmu;
	if (!strcmp(cap, "zen4_ibs_extensions"))
		return f->zen4 ? "1" : NULL;
	if (!strcmp(cap, "dtlb_pgsize"))
		return f->zen5 ? "1" : NULL;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const cpuids[] = {"AuthenticAMD,23,49,0", "AuthenticAMD,25,1,1",
					     "AuthenticAMD,25,17,1", "AuthenticAMD,26,17,0",
					     "AuthenticAMD,25",	     NULL,
					     "GenuineIntel,6,85,4",  "AuthenticAMD,x,y"};
	static const char *const pmus[] = {"ibs_op", "ibs_fetch", NULL, "ibs_op_1"};
	static const struct hws_backend_ops *ops;
	static void *priv;
	struct hws_record_sample rec;
	struct hws_sample s;
	struct hws_strbuf sb;
	struct fz_fi f;
	uint8_t *raw;
	int ret;

	if (!ops) {
		ops = hws_backend_entry_amd_ibs(hws_host__get());
		priv = calloc(1, ops->priv_size);
		if (!priv || ops->init(priv, hws_host__get()))
			abort();
	}
	if (size < 1)
		return 0;
	memset(&f, 0, sizeof(f));
	f.fi.sz = sizeof(f.fi);
	f.fi.cpuid = cpuids[data[0] & 7];
	f.fi.pmu_cap = fz_cap;
	f.zen4 = (data[0] >> 5) & 1;
	f.zen5 = (data[0] >> 6) & 1;

	raw = malloc(size - 1 ? size - 1 : 1);
	if (!raw)
		return 0;
	memcpy(raw, data + 1, size - 1);
	memset(&rec, 0, sizeof(rec));
	memset(&s, 0, sizeof(s));
	s.sz = sizeof(s);
	rec.pmu_name = pmus[(data[0] >> 3) & 3];
	rec.raw = raw;
	rec.raw_size = (uint32_t)(size - 1);
	ret = ops->decode(priv, (data[0] & 0x80) ? NULL : &f.fi, &rec, &s);
	if (ret == 0) {
		hws_strbuf__init(&sb, 1 << 16);
		if (ops->raw_json(priv, &f.fi, &s, &sb) == 0 && (!sb.buf || sb.buf[0] != '{'))
			abort();
		hws_strbuf__release(&sb);
		if ((s.fields & HWS_SF_ADDR) && s.op != HWS_OP_LOAD && s.op != HWS_OP_STORE)
			abort(); /* addresses only for loads and stores */
	}
	free(raw);
	return 0;
}
