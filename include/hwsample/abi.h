/* SPDX-License-Identifier: MIT */
/*
 * The kernel definitions hwsample's ABIs carry themselves, so that no struct of the library
 * or of the backend plugin ABI changes with the build host's kernel headers.
 *
 * struct hws_perf_event_attr is the kernel's struct perf_event_attr at PERF_ATTR_SIZE_VER9
 * (144 bytes: config3 from Linux 6.3, config4 after it), under our own name with the
 * kernel's member names and types, so code written against the kernel struct only changes
 * the type name. perf_event_open(2) takes it as it is (attr.size says how much the kernel
 * reads); core/record/session.c pins the prefix the build host's header shares with it.
 *
 * Invariants:
 *  - the layout never changes: new kernel words are carried by a new, larger struct under
 *    a new plugin ABI version; include/hwsample/backend_abi.h pins size and offsets;
 *  - <linux/perf_event.h> is included for its constants only (PERF_TYPE_*, PERF_SAMPLE_*,
 *    PERF_RECORD_*, ...: kernel ABI values, only ever appended); no type of it appears in
 *    a struct of hwsample's ABIs, except the fixed 8-byte struct perf_event_header and the
 *    mmap control page that the kernel itself extends only within its reserved bytes.
 */
#ifndef HWSAMPLE_ABI_H
#define HWSAMPLE_ABI_H

#include <stdint.h>
#include <linux/perf_event.h>

#ifdef __cplusplus
extern "C" {
#endif

/* attr.size of each published layout (the header of an older build host may lack some) */
#define HWS_PERF_ATTR_SIZE_VER0 64  /* first published struct */
#define HWS_PERF_ATTR_SIZE_VER1 72  /* config2 */
#define HWS_PERF_ATTR_SIZE_VER2 80  /* branch_sample_type */
#define HWS_PERF_ATTR_SIZE_VER3 96  /* sample_regs_user, sample_stack_user */
#define HWS_PERF_ATTR_SIZE_VER4 104 /* sample_regs_intr */
#define HWS_PERF_ATTR_SIZE_VER5 112 /* aux_watermark */
#define HWS_PERF_ATTR_SIZE_VER6 120 /* aux_sample_size */
#define HWS_PERF_ATTR_SIZE_VER7 128 /* sig_data */
#define HWS_PERF_ATTR_SIZE_VER8 136 /* config3 */
#define HWS_PERF_ATTR_SIZE_VER9 144 /* config4 */

struct hws_perf_event_attr {
	unsigned int type;
	unsigned int size;
	unsigned long long config;
	union {
		unsigned long long sample_period;
		unsigned long long sample_freq;
	};
	unsigned long long sample_type;
	unsigned long long read_format;
	unsigned long long disabled : 1, inherit : 1, pinned : 1, exclusive : 1, exclude_user : 1,
	    exclude_kernel : 1, exclude_hv : 1, exclude_idle : 1, mmap : 1, comm : 1, freq : 1,
	    inherit_stat : 1, enable_on_exec : 1, task : 1, watermark : 1, precise_ip : 2,
	    mmap_data : 1, sample_id_all : 1, exclude_host : 1, exclude_guest : 1,
	    exclude_callchain_kernel : 1, exclude_callchain_user : 1, mmap2 : 1, comm_exec : 1,
	    use_clockid : 1, context_switch : 1, write_backward : 1, namespaces : 1, ksymbol : 1,
	    bpf_event : 1, aux_output : 1, cgroup : 1, text_poke : 1, build_id : 1,
	    inherit_thread : 1, remove_on_exec : 1, sigtrap : 1, __reserved_1 : 26;
	union {
		unsigned int wakeup_events;
		unsigned int wakeup_watermark;
	};
	unsigned int bp_type;
	union {
		unsigned long long bp_addr;
		unsigned long long kprobe_func;
		unsigned long long uprobe_path;
		unsigned long long config1;
	};
	union {
		unsigned long long bp_len;
		unsigned long long kprobe_addr;
		unsigned long long probe_offset;
		unsigned long long config2;
	};
	unsigned long long branch_sample_type;
	unsigned long long sample_regs_user;
	unsigned int sample_stack_user;
	int clockid;
	unsigned long long sample_regs_intr;
	unsigned int aux_watermark;
	unsigned short sample_max_stack;
	unsigned short __reserved_2;
	unsigned int aux_sample_size;
	union {
		unsigned int aux_action;
		struct {
			unsigned int aux_start_paused : 1, aux_pause : 1, aux_resume : 1,
			    __reserved_3 : 29;
		};
	};
	unsigned long long sig_data;
	unsigned long long config3; /* HWS_PERF_ATTR_SIZE_VER8 */
	unsigned long long config4; /* HWS_PERF_ATTR_SIZE_VER9 */
};

#ifdef __cplusplus
}
#endif
#endif
