// SPDX-License-Identifier: MIT
/*
 * struct hws_perf_event_attr (include/hwsample/abi.h) against the build host's uapi
 * struct perf_event_attr, over the bytes both have: every bit field and every member set
 * alone in both gives the same bytes (offsets are pinned at compile time by
 * core/record/session.c and include/hwsample/backend_abi.h; bit field positions only show
 * here). Also the attr sizes hws_event_desc__attr_size() hands the kernel.
 */
#include <string.h>
#include <linux/perf_event.h>

#include <hwsample/backend.h>

#include "tests.h"

#define PREFIX                                                                                     \
	(sizeof(struct perf_event_attr) < sizeof(struct hws_perf_event_attr)                       \
	     ? sizeof(struct perf_event_attr)                                                      \
	     : sizeof(struct hws_perf_event_attr))

/* set member @m to @v in both, compare the shared bytes */
#define SAME(m, v)                                                                                 \
	do {                                                                                       \
		struct perf_event_attr k;                                                          \
		struct hws_perf_event_attr h;                                                      \
		memset(&k, 0, sizeof(k));                                                          \
		memset(&h, 0, sizeof(h));                                                          \
		k.m = (v);                                                                         \
		h.m = (v);                                                                         \
		__T("same bytes with " #m " set", !memcmp(&k, &h, PREFIX));                        \
		__T(#m " is not zero", memcmp(&h, &(struct hws_perf_event_attr){0}, PREFIX));      \
	} while (0)

int main(void)
{
	struct hws_event_desc d;

	T_EQ_U64("144 bytes", sizeof(struct hws_perf_event_attr), HWS_PERF_ATTR_SIZE_VER9);
	__T("uapi at least VER7", sizeof(struct perf_event_attr) >= HWS_PERF_ATTR_SIZE_VER7);
	SAME(type, 0x11223344);
	SAME(size, 0x55667788);
	SAME(config, 0x0102030405060708ULL);
	SAME(sample_period, 0x1112131415161718ULL);
	SAME(sample_type, 0x2122232425262728ULL);
	SAME(read_format, 0x3132333435363738ULL);
	SAME(disabled, 1);
	SAME(inherit, 1);
	SAME(pinned, 1);
	SAME(exclusive, 1);
	SAME(exclude_user, 1);
	SAME(exclude_kernel, 1);
	SAME(exclude_hv, 1);
	SAME(exclude_idle, 1);
	SAME(mmap, 1);
	SAME(comm, 1);
	SAME(freq, 1);
	SAME(inherit_stat, 1);
	SAME(enable_on_exec, 1);
	SAME(task, 1);
	SAME(watermark, 1);
	SAME(precise_ip, 3);
	SAME(precise_ip, 2);
	SAME(mmap_data, 1);
	SAME(sample_id_all, 1);
	SAME(exclude_host, 1);
	SAME(exclude_guest, 1);
	SAME(exclude_callchain_kernel, 1);
	SAME(exclude_callchain_user, 1);
	SAME(mmap2, 1);
	SAME(comm_exec, 1);
	SAME(use_clockid, 1);
	SAME(context_switch, 1);
	SAME(write_backward, 1);
	SAME(namespaces, 1);
	SAME(ksymbol, 1);
	SAME(bpf_event, 1);
	SAME(aux_output, 1);
	SAME(cgroup, 1);
	SAME(text_poke, 1);
	SAME(build_id, 1);
	SAME(inherit_thread, 1);
	SAME(remove_on_exec, 1);
	SAME(sigtrap, 1);
	SAME(wakeup_events, 0x41424344);
	SAME(bp_type, 0x45464748);
	SAME(config1, 0x5152535455565758ULL);
	SAME(config2, 0x6162636465666768ULL);
	SAME(branch_sample_type, 0x7172737475767778ULL);
	SAME(sample_regs_user, 0x8182838485868788ULL);
	SAME(sample_stack_user, 0x91929394);
	SAME(clockid, 7);
	SAME(sample_regs_intr, 0xa1a2a3a4a5a6a7a8ULL);
	SAME(aux_watermark, 0xb1b2b3b4);
	SAME(sample_max_stack, 0xc1c2);
	SAME(aux_sample_size, 0xd1d2d3d4);
	SAME(sig_data, 0xe1e2e3e4e5e6e7e8ULL);

	memset(&d, 0, sizeof(d));
	T_EQ_U64("attr size without config3/4", hws_event_desc__attr_size(&d), 128);
	d.attr.config3 = 1;
	T_EQ_U64("attr size with config3", hws_event_desc__attr_size(&d), 136);
	d.attr.config4 = 1;
	T_EQ_U64("attr size with config4", hws_event_desc__attr_size(&d), 144);
	T_EQ_U64("config3 at byte 128", offsetof(struct hws_perf_event_attr, config3), 128);
	TEST_END();
}
