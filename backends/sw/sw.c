// SPDX-License-Identifier: MIT
/*
 * sw backend: every PERF_TYPE_SOFTWARE event and tracepoints. Runs on any Linux machine.
 *
 * Encoding: event names as perf spells them (cpu-clock, page-faults, cs, ...), with perf's
 * :u / :k / :h modifiers, or "sys:name" for a tracepoint (id from tracefs; tracefs is
 * mounted at /sys/kernel/tracing when missing, and the user is told). Clock-like events
 * default to -F 4000 as perf does; tracepoints to a period of 1.
 * Decoding: core already filled the generic fields; page faults carry the faulting data
 * address in addr (valid when PERF_SAMPLE_ADDR was requested) and, with --phys-data
 * (HWS_REQ_PHYS_ADDR), its physical address where the page was resident (else 0).
 * The backend has no controls: any key=value is an error that says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/backend.h>

#include "sw.h"

struct sw_event {
	const char *name;
	const char *alias;
	uint64_t config;
	int data_addr; /* samples carry a data address */
	int clock;     /* time based: default frequency mode */
};

static const struct sw_event sw_events[] = {
    {"cpu-clock", NULL, PERF_COUNT_SW_CPU_CLOCK, 0, 1},
    {"task-clock", NULL, PERF_COUNT_SW_TASK_CLOCK, 0, 1},
    {"page-faults", "faults", PERF_COUNT_SW_PAGE_FAULTS, 1, 0},
    {"context-switches", "cs", PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 0},
    {"cpu-migrations", "migrations", PERF_COUNT_SW_CPU_MIGRATIONS, 0, 0},
    {"minor-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MIN, 1, 0},
    {"major-faults", NULL, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1, 0},
    {"alignment-faults", NULL, PERF_COUNT_SW_ALIGNMENT_FAULTS, 1, 0},
    {"emulation-faults", NULL, PERF_COUNT_SW_EMULATION_FAULTS, 0, 0},
    {"dummy", NULL, PERF_COUNT_SW_DUMMY, 0, 0},
#ifdef PERF_COUNT_SW_CGROUP_SWITCHES
    {"cgroup-switches", NULL, PERF_COUNT_SW_CGROUP_SWITCHES, 0, 0},
#endif
};

#define DEFAULT_FREQ 4000

static int sw_init(void *priv, const struct hws_host *host)
{
	((struct sw_priv *)priv)->host = host;
	return 0;
}

static int sw_detect(void *priv, char *why, size_t len)
{
	struct sw_priv *p = priv;
	struct hws_pmu pmu;
	int err = p->host->pmu_load("software", &pmu);

	if (err) {
		snprintf(why, len,
			 "no 'software' PMU under %s/bus/event_source/devices: "
			 "is this a Linux kernel with perf events (CONFIG_PERF_EVENTS)?",
			 p->host->sysfs_root());
		return 0;
	}
	snprintf(why, len, "software events and tracepoints work on any Linux kernel");
	return 1; /* lowest priority for -b auto */
}

static const struct sw_event *find_sw(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(sw_events) / sizeof(sw_events[0]); i++) {
		const struct sw_event *e = &sw_events[i];
		if ((strlen(e->name) == len && !strncmp(e->name, name, len)) ||
		    (e->alias && strlen(e->alias) == len && !strncmp(e->alias, name, len)))
			return e;
	}
	return NULL;
}

/* How a user who may not read tracefs gets tracepoints (tracefs is mounted 0700, its files
 * 0640 root:root by default; tracepoint samples carry raw data, which the kernel gives
 * users only at perf_event_paranoid -1 or with CAP_PERFMON). */
#define TRACEFS_PERM_FIX                                                                           \
	"run as root, or (as root) let a group of this user read tracefs: mount -o "               \
	"remount,gid=GROUP,mode=750 /sys/kernel/tracing; recording tracepoints as a user "         \
	"also needs CAP_PERFMON or kernel.perf_event_paranoid=-1"

/* "sys:name" -> tracepoint id. */
static int tracepoint_id(struct sw_priv *p, const char *sys, size_t syslen, const char *name,
			 uint64_t *id, char *err, size_t errlen)
{
	const char *dir = p->host->tracefs_dir();
	char path[512], buf[32];
	ssize_t n;
	int fd;

	if (!dir) {
		int e = errno;

		if (e == EACCES)
			snprintf(err, errlen,
				 "tracepoint %.*s:%s: no permission to read tracefs "
				 "(/sys/kernel/tracing): " TRACEFS_PERM_FIX,
				 (int)syslen, sys, name);
		else if (e == EPERM)
			snprintf(
			    err, errlen,
			    "tracepoint %.*s:%s: tracefs is not mounted, and mounting it needs "
			    "root: run as root, or (as root) mount -t tracefs nodev "
			    "/sys/kernel/tracing",
			    (int)syslen, sys, name);
		else
			snprintf(
			    err, errlen,
			    "tracepoint %.*s:%s: tracefs is not mounted and mounting it failed "
			    "(%s): does this kernel have tracefs (CONFIG_TRACING)?",
			    (int)syslen, sys, name, strerror(e));
		return e == EACCES ? -EACCES : e == EPERM ? -EPERM : -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/id", dir, (int)syslen, sys, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == EACCES || e == EPERM)
			snprintf(err, errlen,
				 "tracepoint %.*s:%s: no permission to read %s: " TRACEFS_PERM_FIX,
				 (int)syslen, sys, name, path);
		else
			snprintf(err, errlen,
				 "unknown tracepoint %.*s:%s (no %s); list them with "
				 "'ls %s/events/%.*s'",
				 (int)syslen, sys, name, path, dir, (int)syslen, sys);
		return e == EACCES || e == EPERM ? -EACCES : HWS_E_UNKNOWN_EVENT;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	*id = strtoull(buf, NULL, 10);
	return 0;
}

static void list_events(char *out, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(sw_events) / sizeof(sw_events[0]) && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s%s", i ? ", " : "", sw_events[i].name);
}

static int sw_encode(void *priv, const struct hws_event_request *req, struct hws_event_desc *out,
		     int max, char *err, size_t errlen)
{
	struct sw_priv *p = priv;
	const char *ev = req->event ? req->event : "cpu-clock";
	const char *colon, *mods = NULL;
	struct hws_perf_event_attr *a;
	size_t namelen;
	int tracepoint = 0, ret;

	if (max < 1)
		return HWS_E_TOO_BIG;
	if (req->nr_controls) {
		snprintf(err, errlen,
			 "sw: backend 'sw' has no controls, but '%s=%s' was given; "
			 "software events take only an event name, a period and a frequency",
			 req->controls[0].key, req->controls[0].value);
		return HWS_E_UNKNOWN_CONTROL;
	}
	memset(&out[0], 0, sizeof(out[0]));
	out[0].group_leader = -1;
	a = &out[0].attr;
	a->size = sizeof(*a);

	colon = strchr(ev, ':');
	namelen = colon ? (size_t)(colon - ev) : strlen(ev);
	const struct sw_event *se = find_sw(ev, namelen);
	if (se) {
		mods = colon ? colon + 1 : NULL;
		a->type = PERF_TYPE_SOFTWARE;
		a->config = se->config;
		/* no PERF_SAMPLE_PERIOD (the session adds it with -F): with it and a fixed
		 * period the kernel samples every software event (perf_swevent_event():
		 * period = the event's count), so -c 1000 gave a sample per page fault */
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		if (se->data_addr)
			a->sample_type |= PERF_SAMPLE_ADDR;
		/* as perf --phys-data: the kernel translates the faulting address when its page
		 * is resident (0 otherwise); events without a data address have none */
		if (se->data_addr && (req->flags & HWS_REQ_PHYS_ADDR))
			a->sample_type |= PERF_SAMPLE_PHYS_ADDR;
		snprintf(out[0].pmu, sizeof(out[0].pmu), "software");
	} else if (colon && colon[1] && !strchr(colon + 1, ':') && namelen) {
		uint64_t id;
		ret = tracepoint_id(p, ev, namelen, colon + 1, &id, err, errlen);
		if (ret)
			return ret;
		tracepoint = 1;
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = id;
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
		snprintf(out[0].pmu, sizeof(out[0].pmu), "tracepoint");
	} else {
		char names[512];
		list_events(names, sizeof(names));
		snprintf(err, errlen,
			 "sw: unknown event '%s'; software events: %s; tracepoints "
			 "as sys:name (e.g. sched:sched_switch)",
			 ev, names);
		return HWS_E_UNKNOWN_EVENT;
	}
	for (const char *m = mods; m && *m; m++) {
		switch (*m) {
		case 'u':
			a->exclude_kernel = 1;
			a->exclude_hv = 1;
			break;
		case 'k':
			a->exclude_user = 1;
			a->exclude_hv = 1;
			break;
		case 'h':
			a->exclude_user = 1;
			a->exclude_kernel = 1;
			break;
		default:
			snprintf(err, errlen,
				 "sw: event '%s': unknown modifier '%c' (valid: u, k, h)", ev, *m);
			return HWS_E_BAD_ARG;
		}
	}

	if (req->period && req->freq) {
		snprintf(err, errlen,
			 "give either a period (hws_event_request.period) or a "
			 "frequency (hws_event_request.freq), not both");
		return HWS_E_BAD_ARG;
	}
	if (req->period) {
		a->sample_period = req->period;
	} else if (req->freq) {
		a->freq = 1;
		a->sample_freq = req->freq;
	} else if (tracepoint || (se && !se->clock)) {
		a->sample_period = 1;
	} else {
		a->freq = 1;
		a->sample_freq = DEFAULT_FREQ;
	}
	if (se && se->config == PERF_COUNT_SW_DUMMY) {
		a->sample_period = 0;
		a->freq = 0;
	}
	snprintf(out[0].name, sizeof(out[0].name), "%s", ev);
	return 1;
}

static int sw_match(void *priv, const struct hws_perf_event_attr *attr, const char *pmu_name)
{
	return attr->type == PERF_TYPE_SOFTWARE || attr->type == PERF_TYPE_TRACEPOINT;
}

static int sw_raw_json(void *priv, const struct hws_file_info *fi, const struct hws_sample *s,
		       struct hws_strbuf *out)
{
	if (!s->raw)
		return ((struct sw_priv *)priv)->host->strbuf_addf(out, "{}");
	return sw_tp_json(priv, fi, s, out);
}

static void sw_fini(void *priv)
{
	sw_tp_fini(priv);
}

static int sw_controls(void *priv, const char *pmu, struct hws_control_info *out, int max)
{
	return 0;
}

static const char *const sw_pmus[] = {"software", "tracepoint", NULL};

static const struct hws_backend_ops sw_ops = {
    .abi_version = HWS_BACKEND_ABI_VERSION,
    .size = sizeof(struct hws_backend_ops),
    .name = "sw",
    .description = "software events (cpu-clock, page-faults, ...) and tracepoints",
    .pmus = sw_pmus,
    .caps = HWS_CAP_SOFTWARE | HWS_CAP_DATA_ADDR,
    .priv_size = sizeof(struct sw_priv),
    .init = sw_init,
    .fini = sw_fini,
    .detect = sw_detect,
    .encode = sw_encode,
    .match = sw_match,
    /* no decode: core's generic fields (addr of page and alignment faults included) are
     * the whole sample */
    .controls = sw_controls,
    .raw_json = sw_raw_json,
};

HWS_BACKEND_DEFINE(sw_ops)
