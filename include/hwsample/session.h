/* SPDX-License-Identifier: MIT */
/*
 * A recording session: the events a backend encoded, opened in one of perf's four modes,
 * their ring buffers (and AUX areas) mapped, and the records drained out of them.
 *
 * Modes (struct hws_session_opts):
 *   default      per-CPU rings, events on the target threads (inherit), one fd per
 *                (event, cpu, thread)
 *   per_thread   one ring per thread, cpu = -1, no inherit (the kernel refuses to mmap
 *                inherited per-task events)
 *   cpu_list     -C LIST: the listed CPUs, all tasks (pid = -1)
 *   system_wide  -a: every online CPU, all tasks
 * Every CPU (or thread) has one ring, shared by all events on it through
 * PERF_EVENT_IOC_SET_OUTPUT; an event that needs an AUX area owns its ring.
 *
 * Loss is never silent: PERF_RECORD_LOST, LOST_SAMPLES, THROTTLE and UNTHROTTLE are counted
 * per event and per CPU as they pass through hws_session__read(), together with ring
 * header errors and AUX flags.
 */
#ifndef HWSAMPLE_SESSION_H
#define HWSAMPLE_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <hwsample/abi.h>

#include <hwsample/common.h>
#include <hwsample/aux.h>
#include <hwsample/backend.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hws_session;

struct hws_session_opts {
	size_t sz;	      /* sizeof(struct hws_session_opts) */
	bool per_thread;      /* --per-thread */
	bool system_wide;     /* -a */
	const char *cpu_list; /* -C LIST, NULL if not given */
	const pid_t *pids;    /* target processes (-p, or the workload), NULL/0 with -a/-C */
	int nr_pids;
	bool no_inherit;	 /* --no-inherit */
	bool enable_on_exec;	 /* the target is a workload that has not exec'ed yet */
	unsigned int mmap_pages; /* data pages per ring (power of two); 0 = default */
	unsigned int aux_pages;	 /* AUX pages (power of two); 0 = default */
	bool overwrite;		 /* --overwrite: backward rings, read on demand */
	bool aux_snapshot;	 /* -S */
	bool want_data_mmaps;	 /* sample data addresses: ask for data MMAP2 records too */
	/* call chains of every event's samples (perf record -g / --call-graph): enum
	 * hws_call_graph; events decoded from AUX trace data (HWS_EVF_AUX) carry none and are
	 * refused with HWS_E_UNSUPPORTED by hws_session__prepare() */
	int call_graph;
	/* HWS_CALL_GRAPH_DWARF: user stack bytes copied per sample (0: 8192, as perf); a
	 * multiple of 8 up to HWS_CALL_GRAPH_MAX_STACK (hws_call_graph__parse() rounds up) */
	uint32_t stack_size;
};

/* hws_session_opts.call_graph */
enum hws_call_graph {
	HWS_CALL_GRAPH_NONE = 0,
	HWS_CALL_GRAPH_FP,    /* frame pointers: the kernel walks them (PERF_SAMPLE_CALLCHAIN) */
	HWS_CALL_GRAPH_DWARF, /* + user registers and a copy of the user stack, unwound when read */
};

#define HWS_CALL_GRAPH_DEFAULT_STACK 8192
#define HWS_CALL_GRAPH_MAX_STACK     65528 /* perf's: USHRT_MAX rounded down to 8 */

/*
 * hws_call_graph__parse() - perf record's --call-graph argument: "fp", "dwarf" or
 * "dwarf,SIZE" (SIZE in bytes, rounded up to a multiple of 8, at most
 * HWS_CALL_GRAPH_MAX_STACK). Sets *mode (enum hws_call_graph) and *stack_size (0 for fp).
 * Return: 0, or HWS_E_BAD_ARG with what is wrong and the valid forms in @err. ("lbr" is
 * refused as unsupported: HWS_E_UNSUPPORTED.)
 */
HWS_API int hws_call_graph__parse(const char *arg, int *mode, uint32_t *stack_size, char *err,
				  size_t errlen);

#define HWS_SESSION_DEFAULT_PAGES     128 /* 512 KiB, as perf */
#define HWS_SESSION_DEFAULT_AUX_PAGES 1024

/* Per event and CPU counters. cpu index -1 (per-thread mode, unknown) is folded into
 * the last slot; see hws_session__nr_cpu_slots(). */
struct hws_loss_stats {
	uint64_t samples;
	uint64_t lost;	       /* records lost in the ring (PERF_RECORD_LOST) */
	uint64_t lost_events;  /* PERF_RECORD_LOST records seen */
	uint64_t lost_samples; /* PERF_RECORD_LOST_SAMPLES total */
	uint64_t throttle;
	uint64_t unthrottle;
	uint64_t aux_records;
	uint64_t aux_truncated;
	uint64_t aux_partial;
	uint64_t aux_collision;
	uint64_t aux_overwrite;
};

HWS_API struct hws_session *hws_session__new(const struct hws_session_opts *opts);
HWS_API void hws_session__delete(struct hws_session *s); /* closes fds, unmaps; NULL-safe */

/* Add an event encoded by backend @backend (a name kept for summaries). The descs of one
 * encode() call keep their group_leader indexes relative to @group_base. Returns the
 * event index or negative. */
HWS_API int hws_session__add_event(struct hws_session *s, const struct hws_event_desc *desc,
				   const char *backend, int group_base);

/* Apply mode bits to every attr (sample_id_all, IDENTIFIER, inherit, tracking on the
 * first event, watermark, write_backward, ...) without opening anything. Idempotent. */
HWS_API int hws_session__prepare(struct hws_session *s, char *err, size_t errlen);

/* Open, mmap and wire up every fd. On failure @err names the event, CPU/thread and the
 * fix (paranoid level, mlock limit, ...). */
HWS_API int hws_session__open(struct hws_session *s, char *err, size_t errlen);

HWS_API int hws_session__enable(struct hws_session *s);
HWS_API int hws_session__disable(struct hws_session *s);

/* Wait for data (-1 = forever). Returns > 0 if some ring is readable, 0 on timeout,
 * -EINTR when a signal arrived, -EHOSTDOWN if every polled fd hung up. */
HWS_API int hws_session__poll(struct hws_session *s, int timeout_ms);

/* Called for each record drained. @cpu is the ring's CPU (-1 in per-thread mode).
 * Return 0 to go on; a negative value stops the drain and is returned. */
typedef int (*hws_record_fn)(void *ctx, int cpu, const struct perf_event_header *hdr);
/* Where AUX data goes: every chunk drained by hws_session__read() (or taken by
 * hws_session__aux_snapshot()) is handed to @fn as a ready PERF_RECORD_AUXTRACE record. */
HWS_API void hws_session__set_aux_writer(struct hws_session *s, hws_aux_fn fn, void *ctx);
/* Pause every AUX event, take what its area holds (-S: the free-running snapshot; else
 * drain), resume. Returns records handed out or negative. */
HWS_API int hws_session__aux_snapshot(struct hws_session *s);
HWS_API bool hws_session__has_aux(const struct hws_session *s);
/* Sum of every AUX engine's counters (TRUNCATED, PARTIAL, COLLISION, gaps, bytes...). */
HWS_API void hws_session__aux_stats(const struct hws_session *s, struct hws_aux_stats *sum);
/* Control page of the first ring (time_* fields for PERF_RECORD_TIME_CONV), or NULL. */
HWS_API const struct perf_event_mmap_page *hws_session__control_page(const struct hws_session *s);

/* Drain every forward ring once. Returns bytes drained or negative. */
HWS_API int64_t hws_session__read(struct hws_session *s, hws_record_fn fn, void *ctx);
/* Overwrite mode: pause, read every backward ring from newest to the previous read,
 * hand the records out oldest first, resume. Returns bytes or negative. */
HWS_API int64_t hws_session__read_overwrite(struct hws_session *s, hws_record_fn fn, void *ctx);

HWS_API int hws_session__nr_events(const struct hws_session *s);
HWS_API const struct hws_perf_event_attr *hws_session__attr(const struct hws_session *s, int idx);
/* the whole event of @idx (attr plus the config3/config4 words after it), NULL if none */
HWS_API const struct hws_event_desc *hws_session__desc(const struct hws_session *s, int idx);
HWS_API const char *hws_session__event_name(const struct hws_session *s, int idx);
HWS_API const char *hws_session__event_pmu(const struct hws_session *s, int idx);
HWS_API const char *hws_session__event_backend(const struct hws_session *s, int idx);
HWS_API uint32_t hws_session__event_flags(const struct hws_session *s, int idx);
/* Sample ids of event @idx (valid after open). */
HWS_API const uint64_t *hws_session__ids(const struct hws_session *s, int idx, size_t *nr);
/* Event index owning sample id @id, or -1. */
HWS_API int hws_session__event_by_id(const struct hws_session *s, uint64_t id);

HWS_API int hws_session__nr_cpu_slots(const struct hws_session *s);
/* CPU number of slot @slot (-1 for the per-thread slot). */
HWS_API int hws_session__slot_cpu(const struct hws_session *s, int slot);
HWS_API const struct hws_loss_stats *hws_session__stats(const struct hws_session *s, int event,
							int slot);
/* SAMPLE records that carried an id this session did not open; dropped, never written. */
HWS_API uint64_t hws_session__foreign_samples(const struct hws_session *s);
/* Sum over rings of ring header errors / skipped bytes. */
HWS_API uint64_t hws_session__ring_errors(const struct hws_session *s);
/* Highest ring fill seen, in percent of the ring size. */
HWS_API unsigned int hws_session__max_fill_pct(const struct hws_session *s);
HWS_API unsigned int hws_session__mmap_pages(const struct hws_session *s);
HWS_API int hws_session__nr_rings(const struct hws_session *s);

/* Parse "0-3,5,7-8" into @cpus (sorted, unique). Returns count or -EINVAL. */
HWS_API int hws_cpu_list__parse(const char *list, int *cpus, int max);
/* Online CPUs from sysfs. Returns count or negative. */
HWS_API int hws_cpus__online(int *cpus, int max);

/* Print @attr field by field (one "name value" per line, as perf -vv) into @sb. */
HWS_API int hws_attr__print(const struct hws_perf_event_attr *attr, struct hws_strbuf *sb,
			    const char *indent);

#ifdef __cplusplus
}
#endif
#endif
