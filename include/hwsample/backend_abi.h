/* SPDX-License-Identifier: MIT */
/*
 * The layout of every struct that crosses the backend plugin boundary, pinned: the size
 * and each member's offset, as an LP64 Linux build (x86_64, aarch64) lays them out. Both
 * core and every plugin compile these (<hwsample/backend.h> includes this file last), so a
 * plugin built with a compiler or flags that lay a struct out differently (packing,
 * alignment options, another header version) fails to build instead of mis-loading.
 *
 * Invariants:
 *  - a number here changes only with the ABI: a member appended to a struct that has a
 *    size or version field (host table, ops table, hws_event_request, hws_file_info,
 *    hws_sample) gets its line and the new size under the same version when core reads it
 *    only after a size check (HWS_OPS_HAS, HWS_HOST_HAS, HWS_REQ_HAS, sz); any other
 *    change bumps HWS_BACKEND_ABI_VERSION and HWS_BACKEND_ABI_MIN;
 *  - the members of struct hws_perf_event_attr are the kernel's at its offsets
 *    (core/record/session.c checks them against the build host's uapi header, and
 *    tests/unit/test_abi.c its bit fields).
 */
#ifndef HWSAMPLE_BACKEND_ABI_H
#define HWSAMPLE_BACKEND_ABI_H

#include <stddef.h>

#include <hwsample/backend.h>

#if defined(__LP64__) && __SIZEOF_POINTER__ == 8

#ifdef __cplusplus
#define HWS__ABI_ASSERT static_assert
#else
#define HWS__ABI_ASSERT _Static_assert
#endif
#define HWS_ABI_SIZE(s, n)                                                                         \
	HWS__ABI_ASSERT(sizeof(struct s) == (n), "hwsample plugin ABI: sizeof(struct " #s          \
						 ") is not " #n ": this compiler or its "          \
						 "flags lay it out differently")
#define HWS_ABI_OFF(s, m, n)                                                                       \
	HWS__ABI_ASSERT(offsetof(struct s, m) == (n),                                              \
			"hwsample plugin ABI: struct " #s " member " #m " is not at byte " #n)

/* struct hws_perf_event_attr (<hwsample/abi.h>) */
HWS_ABI_SIZE(hws_perf_event_attr, 144);
HWS_ABI_OFF(hws_perf_event_attr, type, 0);
HWS_ABI_OFF(hws_perf_event_attr, size, 4);
HWS_ABI_OFF(hws_perf_event_attr, config, 8);
HWS_ABI_OFF(hws_perf_event_attr, sample_period, 16);
HWS_ABI_OFF(hws_perf_event_attr, sample_freq, 16);
HWS_ABI_OFF(hws_perf_event_attr, sample_type, 24);
HWS_ABI_OFF(hws_perf_event_attr, read_format, 32);
HWS_ABI_OFF(hws_perf_event_attr, wakeup_events, 48);
HWS_ABI_OFF(hws_perf_event_attr, wakeup_watermark, 48);
HWS_ABI_OFF(hws_perf_event_attr, bp_type, 52);
HWS_ABI_OFF(hws_perf_event_attr, bp_addr, 56);
HWS_ABI_OFF(hws_perf_event_attr, config1, 56);
HWS_ABI_OFF(hws_perf_event_attr, bp_len, 64);
HWS_ABI_OFF(hws_perf_event_attr, config2, 64);
HWS_ABI_OFF(hws_perf_event_attr, branch_sample_type, 72);
HWS_ABI_OFF(hws_perf_event_attr, sample_regs_user, 80);
HWS_ABI_OFF(hws_perf_event_attr, sample_stack_user, 88);
HWS_ABI_OFF(hws_perf_event_attr, clockid, 92);
HWS_ABI_OFF(hws_perf_event_attr, sample_regs_intr, 96);
HWS_ABI_OFF(hws_perf_event_attr, aux_watermark, 104);
HWS_ABI_OFF(hws_perf_event_attr, sample_max_stack, 108);
HWS_ABI_OFF(hws_perf_event_attr, aux_sample_size, 112);
HWS_ABI_OFF(hws_perf_event_attr, aux_action, 116);
HWS_ABI_OFF(hws_perf_event_attr, sig_data, 120);
HWS_ABI_OFF(hws_perf_event_attr, config3, 128);
HWS_ABI_OFF(hws_perf_event_attr, config4, 136);

/* struct hws_host */
HWS_ABI_SIZE(hws_host, 136);
HWS_ABI_OFF(hws_host, abi_version, 0);
HWS_ABI_OFF(hws_host, size, 4);
HWS_ABI_OFF(hws_host, version, 8);
HWS_ABI_OFF(hws_host, log, 16);
HWS_ABI_OFF(hws_host, sysfs_root, 24);
HWS_ABI_OFF(hws_host, pmu_load, 32);
HWS_ABI_OFF(hws_host, pmu_set, 40);
HWS_ABI_OFF(hws_host, pmu_format, 48);
HWS_ABI_OFF(hws_host, pmu_cap, 56);
HWS_ABI_OFF(hws_host, pmu_list, 64);
HWS_ABI_OFF(hws_host, data_src_normalize, 72);
HWS_ABI_OFF(hws_host, strbuf_addf, 80);
HWS_ABI_OFF(hws_host, strbuf_add_json_str, 88);
HWS_ABI_OFF(hws_host, strbuf_add, 96);
HWS_ABI_OFF(hws_host, tracefs_dir, 104);
HWS_ABI_OFF(hws_host, cpuinfo, 112);
HWS_ABI_OFF(hws_host, cpu_flag, 120);
HWS_ABI_OFF(hws_host, flags, 128);

/* struct hws_backend_ops */
HWS_ABI_SIZE(hws_backend_ops, 152);
HWS_ABI_OFF(hws_backend_ops, abi_version, 0);
HWS_ABI_OFF(hws_backend_ops, size, 4);
HWS_ABI_OFF(hws_backend_ops, name, 8);
HWS_ABI_OFF(hws_backend_ops, description, 16);
HWS_ABI_OFF(hws_backend_ops, pmus, 24);
HWS_ABI_OFF(hws_backend_ops, caps, 32);
HWS_ABI_OFF(hws_backend_ops, priv_size, 40);
HWS_ABI_OFF(hws_backend_ops, aux_stream_size, 48);
HWS_ABI_OFF(hws_backend_ops, init, 56);
HWS_ABI_OFF(hws_backend_ops, fini, 64);
HWS_ABI_OFF(hws_backend_ops, detect, 72);
HWS_ABI_OFF(hws_backend_ops, encode, 80);
HWS_ABI_OFF(hws_backend_ops, match, 88);
HWS_ABI_OFF(hws_backend_ops, decode, 96);
HWS_ABI_OFF(hws_backend_ops, aux_decode, 104);
HWS_ABI_OFF(hws_backend_ops, aux_flush, 112);
HWS_ABI_OFF(hws_backend_ops, controls, 120);
HWS_ABI_OFF(hws_backend_ops, raw_json, 128);
HWS_ABI_OFF(hws_backend_ops, auxtrace_info, 136);
HWS_ABI_OFF(hws_backend_ops, coherence_source, 144);

/* struct hws_control */
HWS_ABI_SIZE(hws_control, 16);
HWS_ABI_OFF(hws_control, key, 0);
HWS_ABI_OFF(hws_control, value, 8);

/* struct hws_event_request */
HWS_ABI_SIZE(hws_event_request, 64);
HWS_ABI_OFF(hws_event_request, sz, 0);
HWS_ABI_OFF(hws_event_request, flags, 4);
HWS_ABI_OFF(hws_event_request, pmu, 8);
HWS_ABI_OFF(hws_event_request, event, 16);
HWS_ABI_OFF(hws_event_request, controls, 24);
HWS_ABI_OFF(hws_event_request, nr_controls, 32);
HWS_ABI_OFF(hws_event_request, kernel_version, 36);
HWS_ABI_OFF(hws_event_request, period, 40);
HWS_ABI_OFF(hws_event_request, freq, 48);
HWS_ABI_OFF(hws_event_request, ldlat, 56);

/* struct hws_event_desc */
HWS_ABI_SIZE(hws_event_desc, 344);
HWS_ABI_OFF(hws_event_desc, attr, 0);
HWS_ABI_OFF(hws_event_desc, name, 144);
HWS_ABI_OFF(hws_event_desc, pmu, 272);
HWS_ABI_OFF(hws_event_desc, group_leader, 336);
HWS_ABI_OFF(hws_event_desc, flags, 340);

/* struct hws_control_info */
HWS_ABI_SIZE(hws_control_info, 200);
HWS_ABI_OFF(hws_control_info, name, 0);
HWS_ABI_OFF(hws_control_info, help, 48);
HWS_ABI_OFF(hws_control_info, min, 176);
HWS_ABI_OFF(hws_control_info, max, 184);
HWS_ABI_OFF(hws_control_info, def, 192);

/* struct hws_time_conv */
HWS_ABI_SIZE(hws_time_conv, 48);
HWS_ABI_OFF(hws_time_conv, time_shift, 0);
HWS_ABI_OFF(hws_time_conv, time_mult, 8);
HWS_ABI_OFF(hws_time_conv, time_zero, 16);
HWS_ABI_OFF(hws_time_conv, time_cycles, 24);
HWS_ABI_OFF(hws_time_conv, time_mask, 32);
HWS_ABI_OFF(hws_time_conv, cap_user_time_zero, 40);
HWS_ABI_OFF(hws_time_conv, cap_user_time_short, 41);

/* struct hws_file_info */
HWS_ABI_SIZE(hws_file_info, 96);
HWS_ABI_OFF(hws_file_info, sz, 0);
HWS_ABI_OFF(hws_file_info, nr_cpus, 4);
HWS_ABI_OFF(hws_file_info, arch, 8);
HWS_ABI_OFF(hws_file_info, cpuid, 16);
HWS_ABI_OFF(hws_file_info, cpudesc, 24);
HWS_ABI_OFF(hws_file_info, pmu_cap, 32);
HWS_ABI_OFF(hws_file_info, pmu_cap_ctx, 40);
HWS_ABI_OFF(hws_file_info, auxtrace_type, 48);
HWS_ABI_OFF(hws_file_info, nr_auxtrace_priv, 52);
HWS_ABI_OFF(hws_file_info, auxtrace_priv, 56);
HWS_ABI_OFF(hws_file_info, time_conv, 64);
HWS_ABI_OFF(hws_file_info, tracing_data, 72);
HWS_ABI_OFF(hws_file_info, tracing_data_size, 80);
HWS_ABI_OFF(hws_file_info, cpu_midr, 88);

/* struct hws_record_sample */
HWS_ABI_SIZE(hws_record_sample, 224);
HWS_ABI_OFF(hws_record_sample, attr, 0);
HWS_ABI_OFF(hws_record_sample, pmu_name, 8);
HWS_ABI_OFF(hws_record_sample, sample_type, 16);
HWS_ABI_OFF(hws_record_sample, misc, 24);
HWS_ABI_OFF(hws_record_sample, pid, 28);
HWS_ABI_OFF(hws_record_sample, tid, 32);
HWS_ABI_OFF(hws_record_sample, cpu, 36);
HWS_ABI_OFF(hws_record_sample, ip, 40);
HWS_ABI_OFF(hws_record_sample, time, 48);
HWS_ABI_OFF(hws_record_sample, addr, 56);
HWS_ABI_OFF(hws_record_sample, id, 64);
HWS_ABI_OFF(hws_record_sample, stream_id, 72);
HWS_ABI_OFF(hws_record_sample, period, 80);
HWS_ABI_OFF(hws_record_sample, weight, 88);
HWS_ABI_OFF(hws_record_sample, data_src, 96);
HWS_ABI_OFF(hws_record_sample, transaction, 104);
HWS_ABI_OFF(hws_record_sample, phys_addr, 112);
HWS_ABI_OFF(hws_record_sample, cgroup, 120);
HWS_ABI_OFF(hws_record_sample, data_page_size, 128);
HWS_ABI_OFF(hws_record_sample, code_page_size, 136);
HWS_ABI_OFF(hws_record_sample, raw, 144);
HWS_ABI_OFF(hws_record_sample, raw_size, 152);
HWS_ABI_OFF(hws_record_sample, nr_callchain, 160);
HWS_ABI_OFF(hws_record_sample, callchain, 168);
HWS_ABI_OFF(hws_record_sample, nr_branches, 176);
HWS_ABI_OFF(hws_record_sample, branches, 184);
HWS_ABI_OFF(hws_record_sample, aux_size, 192);
HWS_ABI_OFF(hws_record_sample, aux, 200);
HWS_ABI_OFF(hws_record_sample, read, 208);
HWS_ABI_OFF(hws_record_sample, read_size, 216);

/* struct hws_aux_chunk */
HWS_ABI_SIZE(hws_aux_chunk, 56);
HWS_ABI_OFF(hws_aux_chunk, data, 0);
HWS_ABI_OFF(hws_aux_chunk, size, 8);
HWS_ABI_OFF(hws_aux_chunk, offset, 16);
HWS_ABI_OFF(hws_aux_chunk, reference, 24);
HWS_ABI_OFF(hws_aux_chunk, idx, 32);
HWS_ABI_OFF(hws_aux_chunk, cpu, 36);
HWS_ABI_OFF(hws_aux_chunk, tid, 40);
HWS_ABI_OFF(hws_aux_chunk, gap, 44);
HWS_ABI_OFF(hws_aux_chunk, attr, 48);

/* struct hws_sample (<hwsample/sample.h>) */
HWS_ABI_SIZE(hws_sample, 216);
HWS_ABI_OFF(hws_sample, sz, 0);
HWS_ABI_OFF(hws_sample, attr_idx, 4);
HWS_ABI_OFF(hws_sample, fields, 8);
HWS_ABI_OFF(hws_sample, time, 16);
HWS_ABI_OFF(hws_sample, cpu, 24);
HWS_ABI_OFF(hws_sample, pid, 28);
HWS_ABI_OFF(hws_sample, tid, 32);
HWS_ABI_OFF(hws_sample, node, 36);
HWS_ABI_OFF(hws_sample, period, 40);
HWS_ABI_OFF(hws_sample, id, 48);
HWS_ABI_OFF(hws_sample, event, 56);
HWS_ABI_OFF(hws_sample, backend, 64);
HWS_ABI_OFF(hws_sample, ip, 72);
HWS_ABI_OFF(hws_sample, ip_precise, 80);
HWS_ABI_OFF(hws_sample, op, 81);
HWS_ABI_OFF(hws_sample, op_width, 82);
HWS_ABI_OFF(hws_sample, mem_level, 83);
HWS_ABI_OFF(hws_sample, snoop, 84);
HWS_ABI_OFF(hws_sample, tlb, 85);
HWS_ABI_OFF(hws_sample, cpumode, 86);
HWS_ABI_OFF(hws_sample, reserved0, 87);
HWS_ABI_OFF(hws_sample, op_flags, 88);
HWS_ABI_OFF(hws_sample, addr, 96);
HWS_ABI_OFF(hws_sample, phys_addr, 104);
HWS_ABI_OFF(hws_sample, lat_total, 112);
HWS_ABI_OFF(hws_sample, lat_issue, 116);
HWS_ABI_OFF(hws_sample, lat_xlat, 120);
HWS_ABI_OFF(hws_sample, lat_miss, 124);
HWS_ABI_OFF(hws_sample, lat_ins, 128);
HWS_ABI_OFF(hws_sample, reserved1, 132);
HWS_ABI_OFF(hws_sample, data_src, 136);
HWS_ABI_OFF(hws_sample, weight, 144);
HWS_ABI_OFF(hws_sample, branch_target, 152);
HWS_ABI_OFF(hws_sample, data_page_size, 160);
HWS_ABI_OFF(hws_sample, code_page_size, 168);
HWS_ABI_OFF(hws_sample, raw, 176);
HWS_ABI_OFF(hws_sample, raw_size, 184);
HWS_ABI_OFF(hws_sample, reserved2, 188);
HWS_ABI_OFF(hws_sample, callchain, 192);
HWS_ABI_OFF(hws_sample, nr_callchain, 200);
HWS_ABI_OFF(hws_sample, callchain_flags, 204);
HWS_ABI_OFF(hws_sample, synth, 208); /* sz >= 216 */
HWS_ABI_OFF(hws_sample, reserved3, 212);

/* struct hws_frame (<hwsample/sample.h>) */
HWS_ABI_SIZE(hws_frame, 16);
HWS_ABI_OFF(hws_frame, ip, 0);
HWS_ABI_OFF(hws_frame, ctx, 8);
HWS_ABI_OFF(hws_frame, flags, 9);
HWS_ABI_OFF(hws_frame, inline_depth, 10);
HWS_ABI_OFF(hws_frame, reserved, 12);

/* struct hws_pmu_format (<hwsample/pmu.h>) */
HWS_ABI_SIZE(hws_pmu_format, 59);
HWS_ABI_OFF(hws_pmu_format, name, 0);
HWS_ABI_OFF(hws_pmu_format, config, 48);
HWS_ABI_OFF(hws_pmu_format, nr_ranges, 49);
HWS_ABI_OFF(hws_pmu_format, ranges, 50);
HWS_ABI_OFF(hws_pmu_format, width, 58);

/* struct hws_pmu_cap (<hwsample/pmu.h>) */
HWS_ABI_SIZE(hws_pmu_cap, 112);
HWS_ABI_OFF(hws_pmu_cap, name, 0);
HWS_ABI_OFF(hws_pmu_cap, value, 48);

/* struct hws_pmu (<hwsample/pmu.h>) */
HWS_ABI_SIZE(hws_pmu, 11020);
HWS_ABI_OFF(hws_pmu, name, 0);
HWS_ABI_OFF(hws_pmu, type, 64);
HWS_ABI_OFF(hws_pmu, nr_formats, 68);
HWS_ABI_OFF(hws_pmu, formats, 72);
HWS_ABI_OFF(hws_pmu, nr_caps, 3848);
HWS_ABI_OFF(hws_pmu, caps, 3852);

/* struct hws_strbuf (<hwsample/strbuf.h>) */
HWS_ABI_SIZE(hws_strbuf, 40);
HWS_ABI_OFF(hws_strbuf, buf, 0);
HWS_ABI_OFF(hws_strbuf, len, 8);
HWS_ABI_OFF(hws_strbuf, alloc, 16);
HWS_ABI_OFF(hws_strbuf, cap, 24);
HWS_ABI_OFF(hws_strbuf, toobig, 32);

#undef HWS_ABI_SIZE
#undef HWS_ABI_OFF
#undef HWS__ABI_ASSERT

#endif /* LP64 */
#endif
