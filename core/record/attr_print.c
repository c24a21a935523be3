// SPDX-License-Identifier: MIT
/*
 * perf_event_attr printed field by field (one "name value" line each, like perf -vv), for
 * --dry-run and tests. Every member of the 6.1 uapi struct is printed; flags one per line
 * so a test can grep for the exact bit it expects. Zero fields are printed too: a dry run
 * must show exactly what would be passed to perf_event_open.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <hwsample/session.h>
#include <hwsample/strbuf.h>

static const char *const sample_bits[] = {
    "IP",
    "TID",
    "TIME",
    "ADDR",
    "READ",
    "CALLCHAIN",
    "ID",
    "CPU",
    "PERIOD",
    "STREAM_ID",
    "RAW",
    "BRANCH_STACK",
    "REGS_USER",
    "STACK_USER",
    "WEIGHT",
    "DATA_SRC",
    "IDENTIFIER",
    "TRANSACTION",
    "REGS_INTR",
    "PHYS_ADDR",
    "AUX",
    "CGROUP",
    "DATA_PAGE_SIZE",
    "CODE_PAGE_SIZE",
    "WEIGHT_STRUCT",
};

static const char *const read_bits[] = {"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP",
					"LOST"};

static void bits(struct hws_strbuf *sb, uint64_t v, const char *const *names, size_t n)
{
	int first = 1;

	for (size_t i = 0; i < 64; i++) {
		if (!(v & (1ULL << i)))
			continue;
		if (i < n)
			hws_strbuf__addf(sb, "%s%s", first ? "" : "|", names[i]);
		else
			hws_strbuf__addf(sb, "%sbit%zu", first ? "" : "|", i);
		first = 0;
	}
	if (first)
		hws_strbuf__addstr(sb, "0");
}

int hws_attr__print(const struct hws_perf_event_attr *a, struct hws_strbuf *sb, const char *ind)
{
	const char *in = ind ? ind : "";

#define U(name, val) hws_strbuf__addf(sb, "%s%-26s %" PRIu64 "\n", in, name, (uint64_t)(val))
#define X(name, val) hws_strbuf__addf(sb, "%s%-26s 0x%" PRIx64 "\n", in, name, (uint64_t)(val))
	U("type", a->type);
	U("size", a->size);
	X("config", a->config);
	if (a->freq)
		U("sample_freq", a->sample_freq);
	else
		U("sample_period", a->sample_period);
	hws_strbuf__addf(sb, "%s%-26s ", in, "sample_type");
	bits(sb, a->sample_type, sample_bits, sizeof(sample_bits) / sizeof(sample_bits[0]));
	hws_strbuf__addstr(sb, "\n");
	hws_strbuf__addf(sb, "%s%-26s ", in, "read_format");
	bits(sb, a->read_format, read_bits, sizeof(read_bits) / sizeof(read_bits[0]));
	hws_strbuf__addstr(sb, "\n");
	U("disabled", a->disabled);
	U("inherit", a->inherit);
	U("pinned", a->pinned);
	U("exclusive", a->exclusive);
	U("exclude_user", a->exclude_user);
	U("exclude_kernel", a->exclude_kernel);
	U("exclude_hv", a->exclude_hv);
	U("exclude_idle", a->exclude_idle);
	U("mmap", a->mmap);
	U("comm", a->comm);
	U("freq", a->freq);
	U("inherit_stat", a->inherit_stat);
	U("enable_on_exec", a->enable_on_exec);
	U("task", a->task);
	U("watermark", a->watermark);
	U("precise_ip", a->precise_ip);
	U("mmap_data", a->mmap_data);
	U("sample_id_all", a->sample_id_all);
	U("exclude_host", a->exclude_host);
	U("exclude_guest", a->exclude_guest);
	U("exclude_callchain_kernel", a->exclude_callchain_kernel);
	U("exclude_callchain_user", a->exclude_callchain_user);
	U("mmap2", a->mmap2);
	U("comm_exec", a->comm_exec);
	U("use_clockid", a->use_clockid);
	U("context_switch", a->context_switch);
	U("write_backward", a->write_backward);
	U("namespaces", a->namespaces);
	U("ksymbol", a->ksymbol);
	U("bpf_event", a->bpf_event);
	U("aux_output", a->aux_output);
	U("cgroup", a->cgroup);
	U("text_poke", a->text_poke);
	U("build_id", a->build_id);
	U("inherit_thread", a->inherit_thread);
	U("remove_on_exec", a->remove_on_exec);
	U("sigtrap", a->sigtrap);
	if (a->watermark)
		U("wakeup_watermark", a->wakeup_watermark);
	else
		U("wakeup_events", a->wakeup_events);
	U("bp_type", a->bp_type);
	X("config1", a->config1);
	X("config2", a->config2);
	X("branch_sample_type", a->branch_sample_type);
	X("sample_regs_user", a->sample_regs_user);
	U("sample_stack_user", a->sample_stack_user);
	U("clockid", a->clockid);
	X("sample_regs_intr", a->sample_regs_intr);
	U("aux_watermark", a->aux_watermark);
	U("sample_max_stack", a->sample_max_stack);
	U("aux_sample_size", a->aux_sample_size);
	X("sig_data", a->sig_data);
	/* the words after VER7 only when set: the kernel gets them only then (session.c) */
	if (a->config3)
		X("config3", a->config3);
	if (a->config4)
		X("config4", a->config4);
#undef U
#undef X
	return sb->toobig ? -1 : 0;
}
