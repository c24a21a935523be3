// SPDX-License-Identifier: MIT
/*
 * Recording session: open events in perf's four modes, map one ring per CPU (or per
 * thread), wire every other fd of that CPU/thread into it with PERF_EVENT_IOC_SET_OUTPUT,
 * poll, drain, count loss.
 *
 * Invariants:
 *  - fds[e][c][t] is the fd of event e on cpu index c and thread index t (-1 until open).
 *  - rings[k] owns exactly one mmap; its owner fd is the AUX event's fd on that CPU/thread
 *    when there is one (the AUX area belongs to that fd), else the first event's fd.
 *  - Only core/kernel/ring.c touches data_head/data_tail; this file only maps and unmaps.
 *  - Every id returned by PERF_EVENT_IOC_ID is in ids[] (sorted) with its event index.
 */
#include <ctype.h>
#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <hwsample/aux.h>
#include <hwsample/host.h>
#include <hwsample/ring.h>
#include <hwsample/session.h>
#include <hwsample/strbuf.h>

#include "util/internal.h"
#include "perfdata/sample_fields.h"

#define MAX_CPUS   4096
#define MAX_EVENTS 64

struct sess_event {
	struct hws_event_desc desc;
	char backend[32];
	int leader; /* absolute event index or -1 */
	uint64_t *ids;
	size_t nr_ids;
};

struct sess_ring {
	int fd;	    /* owner fd */
	int cpu;    /* -1 in per-thread mode */
	void *base; /* control page + data */
	size_t len;
	struct hws_ring *ring;
	int owner_event;
	void *aux_base; /* AUX area of the owner fd, when it is an AUX event */
	size_t aux_len;
	struct hws_aux *aux;
};

struct id_entry {
	uint64_t id;
	int event;
};

struct hws_session {
	struct hws_session_opts opts;
	int nr_events;
	struct sess_event ev[MAX_EVENTS];
	bool prepared;
	bool opened;

	int nr_cpus; /* entries of cpus[]; {-1} in per-thread mode */
	int *cpus;
	int nr_threads; /* entries of threads[]; {-1} with -a/-C */
	pid_t *threads;
	int *fds; /* [event][cpu][thread] */

	int nr_rings;
	struct sess_ring *rings;
	struct pollfd *pfds;

	struct id_entry *ids;
	size_t nr_ids;

	/* stats[event][slot], slot = cpu index, or nr_cpus for "unknown / per-thread" */
	int nr_slots;
	int *slot_of_cpu; /* cpu number -> slot, size max_cpu+1 */
	int max_cpu;
	struct hws_loss_stats *stats;

	unsigned int pages;
	long page_size;
	void *copybuf; /* overwrite mode: records of one ring, reversed */
	size_t copybuf_len;
	unsigned int aux_pages;
	uint64_t foreign_samples; /* SAMPLEs with an id we did not open: dropped */
	hws_aux_fn aux_fn;	  /* receives AUXTRACE records */
	void *aux_ctx;
};

/*
 * The kernel gets struct hws_perf_event_attr as it is (attr.size says how much it reads): it
 * is the kernel's layout. The prefix this build host's uapi header shares with it is pinned
 * here; a newer header's words past config4 are not used.
 */
#define HWS_ATTR_SAME(m)                                                                           \
	_Static_assert(offsetof(struct perf_event_attr, m) ==                                      \
			       offsetof(struct hws_perf_event_attr, m) &&                          \
			   sizeof(((struct perf_event_attr *)0)->m) ==                             \
			       sizeof(((struct hws_perf_event_attr *)0)->m),                       \
		       "struct hws_perf_event_attr differs from the uapi's at " #m)
HWS_ATTR_SAME(type);
HWS_ATTR_SAME(size);
HWS_ATTR_SAME(config);
HWS_ATTR_SAME(sample_period);
HWS_ATTR_SAME(sample_type);
HWS_ATTR_SAME(read_format);
HWS_ATTR_SAME(wakeup_events);
HWS_ATTR_SAME(bp_type);
HWS_ATTR_SAME(config1);
HWS_ATTR_SAME(config2);
HWS_ATTR_SAME(branch_sample_type);
HWS_ATTR_SAME(sample_regs_user);
HWS_ATTR_SAME(sample_stack_user);
HWS_ATTR_SAME(clockid);
HWS_ATTR_SAME(sample_regs_intr);
HWS_ATTR_SAME(aux_watermark);
HWS_ATTR_SAME(sample_max_stack);
HWS_ATTR_SAME(aux_sample_size);
HWS_ATTR_SAME(sig_data);
#undef HWS_ATTR_SAME
_Static_assert(sizeof(struct perf_event_attr) >= HWS_PERF_ATTR_SIZE_VER7,
	       "uapi headers older than Linux 5.13 (PERF_ATTR_SIZE_VER7)");

static int sys_perf_event_open(struct hws_perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			       unsigned long flags)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int hws_cpu_list__parse(const char *list, int *cpus, int max)
{
	const char *p = list;
	int n = 0;

	if (!list || !*list)
		return -EINVAL;
	while (*p) {
		char *end;
		long a, b;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		a = strtol(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			b = strtol(p, &end, 10);
			p = end;
		}
		if (a < 0 || b < a || b >= MAX_CPUS)
			return -EINVAL;
		for (long c = a; c <= b; c++) {
			bool dup = false;
			for (int i = 0; i < n && i < max; i++)
				dup |= cpus[i] == c;
			if (dup)
				continue;
			if (n < max)
				cpus[n] = (int)c;
			n++;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
		else
			break;
	}
	/* sort */
	for (int i = 1; i < n && i < max; i++)
		for (int j = i; j > 0 && cpus[j - 1] > cpus[j]; j--) {
			int t = cpus[j];
			cpus[j] = cpus[j - 1];
			cpus[j - 1] = t;
		}
	return n;
}

int hws_cpus__online(int *cpus, int max)
{
	char buf[4096];
	int n = hws_read_file("/sys/devices/system/cpu/online", buf, sizeof(buf));

	if (n < 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		for (long i = 0; i < c && i < max; i++)
			cpus[i] = (int)i;
		return c > 0 ? (int)c : -ENODEV;
	}
	return hws_cpu_list__parse(buf, cpus, max);
}

struct hws_session *hws_session__new(const struct hws_session_opts *opts)
{
	struct hws_session *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	err = HWS_OPTS_GET(s->opts, opts, hws_session_opts);
	if (err) {
		free(s);
		return errno = -err, NULL;
	}
	s->page_size = sysconf(_SC_PAGESIZE);
	return s;
}

void hws_session__delete(struct hws_session *s)
{
	if (!s)
		return;
	for (int k = 0; k < s->nr_rings; k++) {
		hws_aux__delete(s->rings[k].aux);
		if (s->rings[k].aux_base)
			munmap(s->rings[k].aux_base, s->rings[k].aux_len);
		hws_ring__delete(s->rings[k].ring);
		if (s->rings[k].base)
			munmap(s->rings[k].base, s->rings[k].len);
	}
	if (s->fds) {
		size_t n = (size_t)s->nr_events * s->nr_cpus * s->nr_threads;
		for (size_t i = 0; i < n; i++)
			if (s->fds[i] >= 0)
				close(s->fds[i]);
	}
	for (int e = 0; e < s->nr_events; e++)
		free(s->ev[e].ids);
	free(s->fds);
	free(s->rings);
	free(s->pfds);
	free(s->ids);
	free(s->cpus);
	free(s->threads);
	free(s->stats);
	free(s->slot_of_cpu);
	free(s->copybuf);
	free(s);
}

int hws_session__add_event(struct hws_session *s, const struct hws_event_desc *desc,
			   const char *backend, int group_base)
{
	struct sess_event *e;

	if (s->prepared)
		return -EBUSY;
	if (s->nr_events == MAX_EVENTS)
		return HWS_E_TOO_BIG;
	e = &s->ev[s->nr_events];
	memset(e, 0, sizeof(*e));
	e->desc = *desc;
	e->leader = desc->group_leader >= 0 ? group_base + desc->group_leader : -1;
	if (e->leader >= s->nr_events)
		e->leader = -1;
	snprintf(e->backend, sizeof(e->backend), "%s", backend ? backend : "?");
	return s->nr_events++;
}

static bool any_aux(const struct hws_session *s)
{
	for (int e = 0; e < s->nr_events; e++)
		if (s->ev[e].desc.flags & HWS_EVF_AUX)
			return true;
	return false;
}

/* perf's user registers for dwarf unwinding (its PERF_REGS_MASK) */
#if defined(__x86_64__)
/* AX..R15 without DS, ES, FS, GS */
#define CG_REGS_MASK (((1ULL << 24) - 1) & ~(0xfULL << 12))
#elif defined(__aarch64__)
#define CG_REGS_MASK ((1ULL << 33) - 1) /* x0..x30, sp, pc */
#else
#define CG_REGS_MASK 0ULL
#endif

/*
 * The call-graph bits as perf record's evsel__config_callchain() sets them: CALLCHAIN; with
 * dwarf, user registers and a copy of the user stack, the kernel's chain without its user
 * part (unwound from the copy instead), and data addresses (perf record samples them for
 * dwarf unwinding). On a precise (PEBS) event CALLCHAIN keeps the kernel from using large
 * PEBS, as with perf: the kernel takes the chain at the interrupt.
 */
static void call_graph_bits(struct hws_perf_event_attr *a, const struct hws_session_opts *o)
{
	a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->call_graph != HWS_CALL_GRAPH_DWARF || !CG_REGS_MASK)
		return;
	a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_ADDR |
			  PERF_SAMPLE_DATA_SRC;
	a->sample_regs_user |= CG_REGS_MASK;
	a->sample_stack_user = o->stack_size ? o->stack_size : HWS_CALL_GRAPH_DEFAULT_STACK;
	a->exclude_callchain_user = 1;
}

int hws_call_graph__parse(const char *arg, int *mode, uint32_t *stack_size, char *err,
			  size_t errlen)
{
	static const char valid[] = "valid: fp, dwarf, dwarf,SIZE (bytes of user stack per "
				    "sample, default 8192, at most 65528)";
	unsigned long long v;
	char *end;

	*mode = HWS_CALL_GRAPH_NONE;
	*stack_size = 0;
	if (!arg || !*arg) {
		snprintf(err, errlen, "call graph mode missing; %s", valid);
		return HWS_E_BAD_ARG;
	}
	if (!strcmp(arg, "fp")) {
		*mode = HWS_CALL_GRAPH_FP;
		return 0;
	}
	if (!strcmp(arg, "lbr")) {
		snprintf(err, errlen,
			 "call graph mode 'lbr' (last branch records) is not supported; %s", valid);
		return HWS_E_UNSUPPORTED;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ',')) {
		snprintf(err, errlen, "unknown call graph mode '%s'; %s", arg, valid);
		return HWS_E_BAD_ARG;
	}
	*mode = HWS_CALL_GRAPH_DWARF;
	*stack_size = HWS_CALL_GRAPH_DEFAULT_STACK;
	if (!arg[5])
		return 0;
	errno = 0;
	v = strtoull(arg + 6, &end, 0);
	if (errno || end == arg + 6 || *end || arg[6] == '-' || !v ||
	    (v + 7) / 8 * 8 > HWS_CALL_GRAPH_MAX_STACK) {
		snprintf(err, errlen, "stack dump size '%s' in '%s': expected 1..%u bytes; %s",
			 arg + 6, arg, HWS_CALL_GRAPH_MAX_STACK, valid);
		*mode = HWS_CALL_GRAPH_NONE;
		*stack_size = 0;
		return HWS_E_BAD_ARG;
	}
	*stack_size = (uint32_t)((v + 7) / 8 * 8); /* as perf: rounded up to u64s */
	return 0;
}

int hws_session__prepare(struct hws_session *s, char *err, size_t errlen)
{
	const struct hws_session_opts *o = &s->opts;
	bool cpu_mode = o->system_wide || o->cpu_list;
	bool want_addr = o->want_data_mmaps;
	unsigned int pages = o->mmap_pages ? o->mmap_pages : HWS_SESSION_DEFAULT_PAGES;

	if (s->prepared)
		return 0;
	if (!s->nr_events) {
		snprintf(err, errlen, "no events to open");
		return HWS_E_BAD_ARG;
	}
	if (pages & (pages - 1)) {
		snprintf(err, errlen, "internal: mmap pages %u not a power of two", pages);
		return -EINVAL;
	}
	if (o->per_thread && cpu_mode) {
		snprintf(err, errlen,
			 "per-thread rings (hws_session_opts.per_thread) cannot be "
			 "combined with per-CPU recording (hws_session_opts.system_wide/cpu_list)");
		return HWS_E_BAD_ARG;
	}
	if (!cpu_mode && o->nr_pids <= 0) {
		snprintf(err, errlen,
			 "nothing to record: give target processes "
			 "(hws_session_opts.pids) or CPUs (hws_session_opts.system_wide/cpu_list)");
		return HWS_E_BAD_ARG;
	}
	s->pages = pages;
	s->aux_pages = o->aux_pages ? o->aux_pages : HWS_SESSION_DEFAULT_AUX_PAGES;
	if (s->aux_pages & (s->aux_pages - 1)) {
		snprintf(err, errlen, "internal: AUX pages %u not a power of two", s->aux_pages);
		return -EINVAL;
	}
	if (any_aux(s) && o->overwrite) {
		snprintf(err, errlen,
			 "overwrite mode (hws_session_opts.overwrite) works on the "
			 "data rings only; for AUX events (%s) use AUX snapshot mode "
			 "(hws_session_opts.aux_snapshot): the AUX area free-runs and "
			 "hws_session__aux_snapshot() takes a snapshot",
			 s->ev[0].desc.name);
		return HWS_E_BAD_ARG;
	}
	if (o->call_graph < HWS_CALL_GRAPH_NONE || o->call_graph > HWS_CALL_GRAPH_DWARF ||
	    (o->call_graph == HWS_CALL_GRAPH_DWARF &&
	     (o->stack_size % 8 || o->stack_size > HWS_CALL_GRAPH_MAX_STACK))) {
		snprintf(err, errlen,
			 "call graph mode %d with stack size %u: use enum hws_call_graph and a "
			 "stack size that is a multiple of 8 up to %u "
			 "(hws_session_opts.call_graph/stack_size)",
			 o->call_graph, o->stack_size, HWS_CALL_GRAPH_MAX_STACK);
		return HWS_E_BAD_ARG;
	}
	for (int e = 0; e < s->nr_events; e++) {
		if (o->call_graph && (s->ev[e].desc.flags & HWS_EVF_AUX)) {
			snprintf(err, errlen,
				 "event %s: its samples are decoded from hardware trace data (AUX "
				 "area), whose records carry no call chain; record it without call "
				 "chains (hws_session_opts.call_graph)",
				 s->ev[e].desc.name);
			return HWS_E_UNSUPPORTED;
		}
		/* perf record: data addresses with dwarf unwinding (the maps of the stack) */
		if (o->call_graph == HWS_CALL_GRAPH_DWARF)
			want_addr = true;
		if (s->ev[e].desc.attr.sample_type & PERF_SAMPLE_ADDR)
			want_addr = true;
		if ((s->ev[e].desc.flags & HWS_EVF_CPU_ONLY) && !cpu_mode) {
			snprintf(err, errlen,
				 "event %s can only be recorded per CPU on this kernel: record all "
				 "CPUs or a CPU list (hws_session_opts.system_wide/cpu_list)",
				 s->ev[e].desc.name);
			return HWS_E_UNSUPPORTED;
		}
	}
	for (int e = 0; e < s->nr_events; e++) {
		struct hws_perf_event_attr *a = &s->ev[e].desc.attr;

		/* 136/144 only when config3/config4 are used: older kernels take the short one */
		a->size = hws_event_desc__attr_size(&s->ev[e].desc);
		a->sample_type |=
		    PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
		if (a->freq)
			a->sample_type |= PERF_SAMPLE_PERIOD;
		a->sample_id_all = 1;
		a->disabled = 1;
		a->enable_on_exec = o->enable_on_exec && !cpu_mode;
		a->inherit =
		    !o->no_inherit && !o->per_thread && !(s->ev[e].desc.flags & HWS_EVF_NO_INHERIT);
		if (cpu_mode)
			a->inherit = 1; /* as perf: harmless with pid == -1 */
		a->watermark = 1;
		a->wakeup_watermark = (uint32_t)(pages * (uint64_t)s->page_size / 4);
		if (o->overwrite) {
			a->write_backward = 1;
			a->watermark = 0;
			a->wakeup_watermark = 0;
		}
		if (o->call_graph)
			call_graph_bits(a, o);
		if (s->ev[e].desc.flags & HWS_EVF_AUX)
			a->aux_watermark = hws_aux__default_watermark(
			    (size_t)s->aux_pages * (size_t)s->page_size, o->aux_snapshot);
		if (e == 0) {
			/* side-band on the first event, as perf */
			a->mmap = 1;
			a->mmap2 = 1;
			a->comm = 1;
			a->comm_exec = 1;
			a->task = 1;
			a->mmap_data = want_addr;
			/* as perf's SPE recording: which task runs on each CPU, for AUX samples
			 * that carry no pid (SWITCH_CPU_WIDE records; per-thread has no CPUs) */
			if (any_aux(s) && !o->per_thread)
				a->context_switch = 1;
		}
	}
	s->prepared = true;
	return 0;
}

static int *fd_at(struct hws_session *s, int e, int c, int t)
{
	return &s->fds[((size_t)e * s->nr_cpus + c) * s->nr_threads + t];
}

static int list_threads(pid_t pid, pid_t **out, int *nr)
{
	char path[64];
	struct dirent **list;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	n = scandir(path, &list, NULL, alphasort);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		if (isdigit((unsigned char)list[i]->d_name[0])) {
			pid_t *p = realloc(*out, sizeof(pid_t) * (size_t)(*nr + 1));
			if (p) {
				*out = p;
				(*out)[(*nr)++] = atoi(list[i]->d_name);
			}
		}
		free(list[i]);
	}
	free(list);
	return 0;
}

static int paranoid_level(void)
{
	char buf[32];

	if (hws_read_file("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) < 0)
		return 2;
	return atoi(buf);
}

static void open_error(struct hws_session *s, int e, int cpu, pid_t tid, int err, char *msg,
		       size_t len)
{
	const char *name = s->ev[e].desc.name;
	char where[64];

	if (cpu >= 0 && tid > 0)
		snprintf(where, sizeof(where), "cpu %d, tid %d", cpu, tid);
	else if (cpu >= 0)
		snprintf(where, sizeof(where), "cpu %d", cpu);
	else
		snprintf(where, sizeof(where), "tid %d", tid);
	switch (err) {
	case EACCES:
	case EPERM:
		if (s->ev[e].desc.attr.type == PERF_TYPE_TRACEPOINT &&
		    (s->ev[e].desc.attr.sample_type & PERF_SAMPLE_RAW)) {
			/* the kernel gives tracepoints' raw data only to CAP_PERFMON or at -1 */
			snprintf(msg, len,
				 "opening %s (%s): permission denied. Tracepoint samples carry "
				 "raw data, which needs CAP_PERFMON or "
				 "kernel.perf_event_paranoid=-1 (it is %d): run as root, give "
				 "hwsample CAP_PERFMON, or sysctl kernel.perf_event_paranoid=-1",
				 name, where, paranoid_level());
			break;
		}
		if (geteuid() == 0 ||
		    (tid > 0 && s->ev[e].desc.attr.exclude_kernel && paranoid_level() <= 2)) {
			/* root, or a user's own user-space event, which levels <= 2 allow */
			snprintf(msg, len,
				 "opening %s (%s): permission denied although %s: a seccomp filter "
				 "(a container's profile) or a security "
				 "module (SELinux, AppArmor, lockdown) refuses perf_event_open; "
				 "allow it there (docker: --cap-add PERFMON, a seccomp profile "
				 "with perf_event_open)",
				 name, where,
				 geteuid() == 0 ? "hwsample runs as root"
						: "kernel.perf_event_paranoid allows it");
			break;
		}
		snprintf(msg, len,
			 "opening %s (%s): permission denied. kernel.perf_event_paranoid is %d; "
			 "run as root, give hwsample CAP_PERFMON, or lower it: "
			 "sysctl kernel.perf_event_paranoid=1 (per-CPU recording needs <= 0)",
			 name, where, paranoid_level());
		break;
	case EMFILE:
		snprintf(msg, len,
			 "opening %s (%s): too many open files; raise the limit with 'ulimit -n' "
			 "or record fewer CPUs (hws_session_opts.cpu_list) or threads",
			 name, where);
		break;
	case ENOENT:
	case ENODEV:
		snprintf(msg, len,
			 "opening %s (%s): the kernel has no such event or PMU (type %u config "
			 "0x%llx): check the PMUs under %s/bus/event_source/devices",
			 name, where, s->ev[e].desc.attr.type,
			 (unsigned long long)s->ev[e].desc.attr.config, hws_sysfs_root());
		break;
	case EOPNOTSUPP:
		snprintf(msg, len,
			 "opening %s (%s): the PMU does not support this configuration "
			 "(sampling, exclusion bits or precise level)",
			 name, where);
		break;
	case ESRCH:
		snprintf(msg, len, "opening %s (%s): no such process", name, where);
		break;
	case E2BIG:
		/* the kernel writes the attr size it knows back into attr.size */
		snprintf(msg, len,
			 "opening %s (%s): this kernel's perf_event_attr is %u bytes, the event "
			 "needs %u (config3 needs Linux 6.3+, config4 a newer kernel): leave out "
			 "the controls that use them (hws_attr__print() shows config3/config4)",
			 name, where, s->ev[e].desc.attr.size,
			 *hws_event_desc__config(&s->ev[e].desc, 4) ? 144u : 136u);
		break;
	case EINVAL:
		snprintf(msg, len,
			 "opening %s (%s): the kernel rejected the event attributes (EINVAL): "
			 "a period/frequency above kernel.perf_event_max_sample_rate, a bad "
			 "control value, or a field this kernel lacks; hws_attr__print() shows "
			 "the attr",
			 name, where);
		break;
	default:
		snprintf(msg, len, "opening %s (%s): %s", name, where, strerror(err));
	}
}

static int add_ids(struct hws_session *s, int e, int fd)
{
	uint64_t id;
	void *p;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
		return -errno;
	p = realloc(s->ev[e].ids, sizeof(uint64_t) * (s->ev[e].nr_ids + 1));
	if (!p)
		return -ENOMEM;
	s->ev[e].ids = p;
	s->ev[e].ids[s->ev[e].nr_ids++] = id;
	p = realloc(s->ids, sizeof(*s->ids) * (s->nr_ids + 1));
	if (!p)
		return -ENOMEM;
	s->ids = p;
	s->ids[s->nr_ids].id = id;
	s->ids[s->nr_ids].event = e;
	s->nr_ids++;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int map_ring(struct hws_session *s, struct sess_ring *r, char *err, size_t errlen)
{
	int prot = PROT_READ | (s->opts.overwrite ? 0 : PROT_WRITE);
	size_t data = (size_t)s->pages * (size_t)s->page_size;

	r->len = data + (size_t)s->page_size;
	r->base = mmap(NULL, r->len, prot, MAP_SHARED, r->fd, 0);
	if (r->base == MAP_FAILED) {
		int e = errno;
		r->base = NULL;
		if (e == EPERM || e == ENOMEM) {
			char buf[32] = "?";
			hws_read_file("/proc/sys/kernel/perf_event_mlock_kb", buf, sizeof(buf));
			snprintf(err, errlen,
				 "cannot map a %u-page ring buffer (%zu KiB) per CPU: the locked-"
				 "memory limit refuses it (kernel.perf_event_mlock_kb = %s KiB per "
				 "user, plus 'ulimit -l'). Use a smaller ring "
				 "(hws_session_opts.mmap_pages), "
				 "record fewer CPUs, or "
				 "raise it: sysctl kernel.perf_event_mlock_kb=%zu",
				 s->pages, data / 1024, buf,
				 (data / 1024 + 4) * (size_t)(s->nr_rings ? s->nr_rings : 1));
			return -EPERM;
		}
		snprintf(err, errlen, "mmap of the ring buffer failed: %s", strerror(e));
		return -e;
	}
	r->ring = hws_ring__new_mmap(r->base, r->len, s->opts.overwrite);
	if (!r->ring) {
		snprintf(err, errlen, "ring reader setup failed: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* AUX area of an AUX event's ring: aux_offset/aux_size go into the control page, then the
 * same fd is mapped at aux_offset. Read-only (free-running) in snapshot mode. */
static int map_aux(struct hws_session *s, struct sess_ring *r, int idx, pid_t tid, char *err,
		   size_t errlen)
{
	struct perf_event_mmap_page *pc = r->base;
	struct hws_mmap_sizes sz;
	int prot = PROT_READ | (s->opts.aux_snapshot ? 0 : PROT_WRITE);
	int ret = hws_aux__mmap_sizes((size_t)s->page_size, s->pages, s->aux_pages, &sz);

	if (ret) {
		snprintf(err, errlen, "AUX area of %u pages is too large", s->aux_pages);
		return ret;
	}
	pc->aux_offset = sz.aux_offset;
	pc->aux_size = sz.aux_len;
	r->aux_len = sz.aux_len;
	r->aux_base = mmap(NULL, sz.aux_len, prot, MAP_SHARED, r->fd, (off_t)sz.aux_offset);
	if (r->aux_base == MAP_FAILED) {
		int e = errno;
		r->aux_base = NULL;
		if (e == EPERM || e == ENOMEM)
			snprintf(
			    err, errlen,
			    "cannot map a %u-page AUX area: the locked-memory limit refuses it "
			    "(kernel.perf_event_mlock_kb, 'ulimit -l'); use fewer AUX pages "
			    "(hws_session_opts.aux_pages) or raise the limit",
			    s->aux_pages);
		else
			snprintf(err, errlen, "mmap of the AUX area failed: %s", strerror(e));
		return -e;
	}
	r->aux = hws_aux__new(pc, r->aux_base, r->aux_len, s->opts.aux_snapshot);
	if (!r->aux)
		return -errno;
	hws_aux__set_stream(r->aux, (uint32_t)idx, (uint32_t)r->cpu, (uint32_t)tid);
	return 0;
}

static int setup_slots(struct hws_session *s)
{
	s->max_cpu = 0;
	for (int c = 0; c < s->nr_cpus; c++)
		if (s->cpus[c] > s->max_cpu)
			s->max_cpu = s->cpus[c];
	if (s->nr_cpus == 1 && s->cpus[0] == -1) {
		/* per-thread: slots per online CPU (from the sample's CPU field) */
		int online[MAX_CPUS];
		int n = hws_cpus__online(online, MAX_CPUS);
		s->max_cpu = n > 0 ? online[n - 1] : 0;
	}
	s->slot_of_cpu = calloc((size_t)s->max_cpu + 1, sizeof(int));
	if (!s->slot_of_cpu)
		return -ENOMEM;
	s->nr_slots = s->max_cpu + 2; /* one per cpu number, plus "unknown" */
	for (int c = 0; c <= s->max_cpu; c++)
		s->slot_of_cpu[c] = c;
	s->stats = calloc((size_t)s->nr_events * s->nr_slots, sizeof(*s->stats));
	return s->stats ? 0 : -ENOMEM;
}

int hws_session__open(struct hws_session *s, char *err, size_t errlen)
{
	const struct hws_session_opts *o = &s->opts;
	bool cpu_mode = o->system_wide || o->cpu_list;
	int ret;

	ret = hws_session__prepare(s, err, errlen);
	if (ret)
		return ret;
	if (s->opened)
		return 0;

	/* CPUs */
	s->cpus = calloc(MAX_CPUS, sizeof(int));
	if (!s->cpus)
		return -ENOMEM;
	if (o->per_thread) {
		s->nr_cpus = 1;
		s->cpus[0] = -1;
	} else if (o->cpu_list) {
		int online[MAX_CPUS], nonline = hws_cpus__online(online, MAX_CPUS);
		s->nr_cpus = hws_cpu_list__parse(o->cpu_list, s->cpus, MAX_CPUS);
		if (s->nr_cpus <= 0 || s->nr_cpus > MAX_CPUS) {
			snprintf(err, errlen,
				 "hws_session_opts.cpu_list %s: not a CPU list (e.g. 0-3,8)",
				 o->cpu_list);
			return HWS_E_BAD_ARG;
		}
		for (int i = 0; i < s->nr_cpus; i++) {
			bool ok = false;
			for (int j = 0; j < nonline; j++)
				ok |= online[j] == s->cpus[i];
			if (!ok) {
				snprintf(err, errlen,
					 "hws_session_opts.cpu_list %s: CPU %d is not online "
					 "(online: %d CPUs)",
					 o->cpu_list, s->cpus[i], nonline);
				return HWS_E_BAD_ARG;
			}
		}
	} else {
		s->nr_cpus = hws_cpus__online(s->cpus, MAX_CPUS);
		if (s->nr_cpus <= 0) {
			snprintf(err, errlen, "cannot read the online CPUs");
			return -ENODEV;
		}
	}

	/* threads */
	if (cpu_mode) {
		s->nr_threads = 1;
		s->threads = malloc(sizeof(pid_t));
		if (!s->threads)
			return -ENOMEM;
		s->threads[0] = -1;
	} else {
		for (int i = 0; i < o->nr_pids; i++) {
			int before = s->nr_threads;
			if (o->enable_on_exec ||
			    list_threads(o->pids[i], &s->threads, &s->nr_threads) ||
			    s->nr_threads == before) {
				pid_t *p = realloc(s->threads,
						   sizeof(pid_t) * (size_t)(s->nr_threads + 1));
				if (!p)
					return -ENOMEM;
				s->threads = p;
				s->threads[s->nr_threads++] = o->pids[i];
			}
			if (kill(o->pids[i], 0) && errno == ESRCH) {
				snprintf(err, errlen, "process %d: no such process", o->pids[i]);
				return -ESRCH;
			}
		}
	}

	ret = setup_slots(s);
	if (ret)
		return ret;
	s->fds = malloc(sizeof(int) * (size_t)s->nr_events * s->nr_cpus * s->nr_threads);
	if (!s->fds)
		return -ENOMEM;
	for (size_t i = 0; i < (size_t)s->nr_events * s->nr_cpus * s->nr_threads; i++)
		s->fds[i] = -1;

	for (int c = 0; c < s->nr_cpus; c++) {
		for (int t = 0; t < s->nr_threads; t++) {
			for (int e = 0; e < s->nr_events; e++) {
				struct hws_perf_event_attr *a = &s->ev[e].desc.attr;
				int leader =
				    s->ev[e].leader >= 0 ? *fd_at(s, s->ev[e].leader, c, t) : -1;
				int fd = sys_perf_event_open(a, s->threads[t], s->cpus[c], leader,
							     PERF_FLAG_FD_CLOEXEC);
				if (fd < 0 && (errno == EACCES || errno == EPERM) &&
				    !a->exclude_kernel && a->type != PERF_TYPE_TRACEPOINT &&
				    geteuid() != 0) {
					/* as perf: fall back to user-space only */
					a->exclude_kernel = 1;
					a->exclude_hv = 1;
					pr_warn("%s: no permission for kernel samples "
						"(kernel.perf_event_paranoid is %d): recording "
						"user space only, as perf does; root or "
						"CAP_PERFMON records the kernel too\n",
						s->ev[e].desc.name, paranoid_level());
					fd = sys_perf_event_open(a, s->threads[t], s->cpus[c],
								 leader, PERF_FLAG_FD_CLOEXEC);
				}
				if (fd < 0) {
					int er = errno;
					if (er == ESRCH && !cpu_mode && s->nr_threads > 1)
						continue; /* thread exited meanwhile */
					open_error(s, e, s->cpus[c], s->threads[t], er, err,
						   errlen);
					return -er;
				}
				*fd_at(s, e, c, t) = fd;
				ret = add_ids(s, e, fd);
				if (ret) {
					snprintf(err, errlen, "PERF_EVENT_IOC_ID failed: %s",
						 strerror(-ret));
					return ret;
				}
			}
		}
	}
	hws__qsort(s->ids, s->nr_ids, sizeof(*s->ids), cmp_id);

	/* rings: one per CPU (or per thread) */
	int nkeys = o->per_thread ? s->nr_threads : s->nr_cpus;
	s->rings = calloc((size_t)nkeys, sizeof(*s->rings));
	s->pfds = calloc((size_t)nkeys, sizeof(*s->pfds));
	if (!s->rings || !s->pfds)
		return -ENOMEM;
	int aux_event = -1;
	for (int e = 0; e < s->nr_events && any_aux(s); e++)
		if (s->ev[e].desc.flags & HWS_EVF_AUX) {
			aux_event = e;
			break;
		}
	for (int k = 0; k < nkeys; k++) {
		struct sess_ring *r = &s->rings[s->nr_rings];
		int owner = -1, owner_e = -1;

		r->cpu = o->per_thread ? -1 : s->cpus[k];
		/* owner: the AUX event's fd, else the first open fd */
		for (int e = 0; e < s->nr_events && owner < 0; e++) {
			if (aux_event >= 0 && e != aux_event)
				continue;
			for (int t = 0; t < s->nr_threads && owner < 0; t++) {
				int fd = o->per_thread ? *fd_at(s, e, 0, k) : *fd_at(s, e, k, t);
				if (fd >= 0) {
					owner = fd;
					owner_e = e;
				}
				if (o->per_thread)
					break;
			}
		}
		if (owner < 0)
			continue;
		r->fd = owner;
		r->owner_event = owner_e;
		s->nr_rings++;
		ret = map_ring(s, r, err, errlen);
		if (ret)
			return ret;
		if (s->ev[owner_e].desc.flags & HWS_EVF_AUX) {
			ret = map_aux(s, r, s->nr_rings - 1, o->per_thread ? s->threads[k] : -1,
				      err, errlen);
			if (ret)
				return ret;
		}
		/* everything else on this CPU / thread writes into the owner's ring */
		for (int e = 0; e < s->nr_events; e++) {
			for (int t = 0; t < s->nr_threads; t++) {
				int fd = o->per_thread ? (t == 0 ? *fd_at(s, e, 0, k) : -1)
						       : *fd_at(s, e, k, t);
				if (fd < 0 || fd == owner)
					continue;
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, owner) < 0) {
					int er = errno;
					snprintf(err, errlen,
						 "PERF_EVENT_IOC_SET_OUTPUT (%s into %s's ring) "
						 "failed: %s",
						 s->ev[e].desc.name, s->ev[owner_e].desc.name,
						 strerror(er));
					return -er;
				}
			}
		}
		s->pfds[s->nr_rings - 1].fd = owner;
		s->pfds[s->nr_rings - 1].events = POLLIN;
	}
	s->opened = true;
	return 0;
}

static int ioctl_all(struct hws_session *s, unsigned long req)
{
	int ret = 0;

	if (!s->fds)
		return 0;
	for (size_t i = 0; i < (size_t)s->nr_events * s->nr_cpus * s->nr_threads; i++)
		if (s->fds[i] >= 0 && ioctl(s->fds[i], req, 0) < 0 && !ret)
			ret = -errno;
	return ret;
}

int hws_session__enable(struct hws_session *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_ENABLE);
}

int hws_session__disable(struct hws_session *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE);
}

int hws_session__poll(struct hws_session *s, int timeout_ms)
{
	int n, hup = 0;

	if (!s->nr_rings)
		return 0;
	n = poll(s->pfds, (nfds_t)s->nr_rings, timeout_ms);
	if (n < 0)
		return -errno;
	for (int k = 0; k < s->nr_rings; k++)
		if (s->pfds[k].revents & (POLLHUP | POLLERR))
			hup++;
	if (hup == s->nr_rings)
		return -EHOSTDOWN;
	return n;
}

int hws_session__event_by_id(const struct hws_session *s, uint64_t id)
{
	size_t lo = 0, hi = s->nr_ids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->ids[mid].id == id)
			return s->ids[mid].event;
		if (s->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static struct hws_loss_stats *stats_at(struct hws_session *s, int e, int cpu)
{
	int slot = cpu >= 0 && cpu <= s->max_cpu ? s->slot_of_cpu[cpu] : s->nr_slots - 1;

	return &s->stats[(size_t)e * s->nr_slots + slot];
}

/*
 * Account one record. All our events have IDENTIFIER and CPU in sample_type and
 * sample_id_all, so: SAMPLE -> id is the first u64 of the body; other records -> id is the
 * last u64, CPU the u32 at end-16. PERF_RECORD_LOST carries its id in the body.
 */
/* Returns false for a record that must not reach the file: a SAMPLE whose id this session
 * did not open (seen once under heavy concurrent perf use; perf cannot parse such a file). */
static bool account(struct hws_session *s, struct sess_ring *r, const struct perf_event_header *h)
{
	int ring_cpu = r->cpu;
	const uint64_t *body = (const uint64_t *)(h + 1);
	size_t words = (h->size - sizeof(*h)) / 8;
	uint64_t id;
	int e, cpu = ring_cpu;

	if (!words)
		return true;
	if (h->type == PERF_RECORD_SAMPLE) {
		id = body[0];
		e = hws_session__event_by_id(s, id);
		if (e < 0) {
			if (!s->foreign_samples++)
				pr_warn("dropping samples of an event this run did not open "
					"(id %llu)\n",
					(unsigned long long)id);
			return false;
		}
		if (ring_cpu < 0) {
			/* per-thread ring: the CPU field (only fixed-size fields before it) */
			uint64_t st = s->ev[e].desc.attr.sample_type;
			size_t i = pd_sample_fixed_off(st, PERF_SAMPLE_CPU) / 8; /* header: 1 */

			if (i && i - 1 < words)
				cpu = (int)(uint32_t)body[i - 1];
		}
		stats_at(s, e, cpu)->samples++;
		return true;
	}
	if (words >= 2) {
		cpu = ring_cpu >= 0 ? ring_cpu : (int)*(const uint32_t *)&body[words - 2];
	}
	switch (h->type) {
	case PERF_RECORD_LOST:
		e = hws_session__event_by_id(s, body[0]);
		if (e < 0 || words < 2)
			e = 0;
		stats_at(s, e, cpu)->lost += body[1];
		stats_at(s, e, cpu)->lost_events++;
		return true;
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_AUX:
		break;
	default:
		return true;
	}
	id = body[words - 1];
	e = hws_session__event_by_id(s, id);
	if (e < 0)
		e = 0;
	struct hws_loss_stats *st = stats_at(s, e, cpu);
	switch (h->type) {
	case PERF_RECORD_LOST_SAMPLES:
		st->lost_samples += body[0];
		break;
	case PERF_RECORD_THROTTLE:
		st->throttle++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		st->unthrottle++;
		break;
	case PERF_RECORD_AUX:
		if (words >= 3) {
			uint64_t f = body[2];
			if (r->aux)
				hws_aux__note_aux_record(r->aux, body[0], body[1], f);
			st->aux_records++;
			st->aux_truncated += !!(f & PERF_AUX_FLAG_TRUNCATED);
			st->aux_overwrite += !!(f & PERF_AUX_FLAG_OVERWRITE);
			st->aux_partial += !!(f & PERF_AUX_FLAG_PARTIAL);
			st->aux_collision += !!(f & PERF_AUX_FLAG_COLLISION);
		}
		break;
	}
	return true;
}

uint64_t hws_session__foreign_samples(const struct hws_session *s)
{
	return s->foreign_samples;
}

int64_t hws_session__read(struct hws_session *s, hws_record_fn fn, void *ctx)
{
	int64_t total = 0;

	if (s->opts.overwrite)
		return 0;
	for (int k = 0; k < s->nr_rings; k++) {
		struct sess_ring *r = &s->rings[k];
		const struct perf_event_header *h;
		int ret = 0;

		/* an empty data ring still drains its AUX area below */
		hws_ring__read_init(r->ring);
		while ((h = hws_ring__read_event(r->ring))) {
			bool keep = account(s, r, h);
			total += h->size;
			ret = fn && keep ? fn(ctx, r->cpu, h) : 0;
			hws_ring__consume(r->ring);
			if (ret < 0)
				break;
		}
		hws_ring__read_done(r->ring);
		if (ret < 0)
			return ret;
		if (r->aux && !s->opts.aux_snapshot && s->aux_fn) {
			ret = hws_aux__drain(r->aux, 0, s->aux_fn, s->aux_ctx);
			if (ret < 0)
				return ret;
		}
	}
	return total;
}

void hws_session__set_aux_writer(struct hws_session *s, hws_aux_fn fn, void *ctx)
{
	s->aux_fn = fn;
	s->aux_ctx = ctx;
}

int hws_session__aux_snapshot(struct hws_session *s)
{
	int n = 0;

	for (int k = 0; k < s->nr_rings; k++) {
		struct sess_ring *r = &s->rings[k];
		int ret;

		if (!r->aux || !s->aux_fn)
			continue;
		ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1);
		ret = s->opts.aux_snapshot ? hws_aux__snapshot(r->aux, 0, 0, s->aux_fn, s->aux_ctx)
					   : hws_aux__drain(r->aux, 0, s->aux_fn, s->aux_ctx);
		ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
		if (ret < 0)
			return ret;
		n += ret;
	}
	return n;
}

bool hws_session__has_aux(const struct hws_session *s)
{
	return any_aux(s);
}

void hws_session__aux_stats(const struct hws_session *s, struct hws_aux_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int k = 0; k < s->nr_rings; k++) {
		const struct hws_aux_stats *a;
		if (!s->rings[k].aux)
			continue;
		a = hws_aux__stats(s->rings[k].aux);
		sum->bytes += a->bytes;
		sum->chunks += a->chunks;
		sum->aux_records += a->aux_records;
		sum->truncated += a->truncated;
		sum->partial += a->partial;
		sum->collision += a->collision;
		sum->overwrite += a->overwrite;
		sum->gaps += a->gaps;
		sum->overruns += a->overruns;
		sum->lost_bytes += a->lost_bytes;
		sum->snapshots += a->snapshots;
		if (a->max_fill > sum->max_fill)
			sum->max_fill = a->max_fill;
	}
}

const struct perf_event_mmap_page *hws_session__control_page(const struct hws_session *s)
{
	return s->nr_rings ? s->rings[0].base : NULL;
}

int64_t hws_session__read_overwrite(struct hws_session *s, hws_record_fn fn, void *ctx)
{
	int64_t total = 0;

	if (!s->opts.overwrite)
		return hws_session__read(s, fn, ctx);
	for (int k = 0; k < s->nr_rings; k++) {
		struct sess_ring *r = &s->rings[k];
		const struct perf_event_header *h;
		size_t used = 0, nrec = 0, cap = hws_ring__size(r->ring) + 65536;
		int ret = 0;

		if (s->copybuf_len < cap) {
			void *p = realloc(s->copybuf, cap);
			if (!p)
				return -ENOMEM;
			s->copybuf = p;
			s->copybuf_len = cap;
		}
		ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1);
		if (hws_ring__read_init(r->ring)) {
			/* newest first: stack them, then hand out oldest first */
			while ((h = hws_ring__read_event(r->ring))) {
				if (used + h->size > s->copybuf_len)
					break;
				memcpy((char *)s->copybuf + used, h, h->size);
				used += h->size;
				nrec++;
				hws_ring__consume(r->ring);
			}
		}
		hws_ring__read_done(r->ring);
		ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
		/* offsets of each record, walk backwards */
		size_t *offs = malloc(sizeof(size_t) * (nrec ? nrec : 1));
		if (!offs)
			return -ENOMEM;
		for (size_t i = 0, off = 0; i < nrec; i++) {
			offs[i] = off;
			off += ((const struct perf_event_header *)((char *)s->copybuf + off))->size;
		}
		for (size_t i = nrec; i-- > 0 && ret >= 0;) {
			h = (const struct perf_event_header *)((char *)s->copybuf + offs[i]);
			bool keep = account(s, r, h);
			total += h->size;
			ret = fn && keep ? fn(ctx, r->cpu, h) : 0;
		}
		free(offs);
		if (ret < 0)
			return ret;
	}
	return total;
}

int hws_session__nr_events(const struct hws_session *s)
{
	return s->nr_events;
}

const struct hws_perf_event_attr *hws_session__attr(const struct hws_session *s, int idx)
{
	return idx >= 0 && idx < s->nr_events ? &s->ev[idx].desc.attr : NULL;
}

const struct hws_event_desc *hws_session__desc(const struct hws_session *s, int idx)
{
	return idx >= 0 && idx < s->nr_events ? &s->ev[idx].desc : NULL;
}

const char *hws_session__event_name(const struct hws_session *s, int idx)
{
	return idx >= 0 && idx < s->nr_events ? s->ev[idx].desc.name : NULL;
}

const char *hws_session__event_pmu(const struct hws_session *s, int idx)
{
	return idx >= 0 && idx < s->nr_events ? s->ev[idx].desc.pmu : NULL;
}

const char *hws_session__event_backend(const struct hws_session *s, int idx)
{
	return idx >= 0 && idx < s->nr_events ? s->ev[idx].backend : NULL;
}

uint32_t hws_session__event_flags(const struct hws_session *s, int idx)
{
	return idx >= 0 && idx < s->nr_events ? s->ev[idx].desc.flags : 0;
}

const uint64_t *hws_session__ids(const struct hws_session *s, int idx, size_t *nr)
{
	if (idx < 0 || idx >= s->nr_events) {
		*nr = 0;
		return NULL;
	}
	*nr = s->ev[idx].nr_ids;
	return s->ev[idx].ids;
}

int hws_session__nr_cpu_slots(const struct hws_session *s)
{
	return s->nr_slots;
}

int hws_session__slot_cpu(const struct hws_session *s, int slot)
{
	return slot == s->nr_slots - 1 ? -1 : slot;
}

const struct hws_loss_stats *hws_session__stats(const struct hws_session *s, int event, int slot)
{
	if (!s->stats || event < 0 || event >= s->nr_events || slot < 0 || slot >= s->nr_slots)
		return NULL;
	return &s->stats[(size_t)event * s->nr_slots + slot];
}

uint64_t hws_session__ring_errors(const struct hws_session *s)
{
	uint64_t n = 0;

	for (int k = 0; k < s->nr_rings; k++)
		n += hws_ring__stats(s->rings[k].ring)->bad_headers;
	return n;
}

unsigned int hws_session__max_fill_pct(const struct hws_session *s)
{
	uint64_t best = 0;

	for (int k = 0; k < s->nr_rings; k++) {
		uint64_t f = hws_ring__stats(s->rings[k].ring)->max_fill * 100 /
			     hws_ring__size(s->rings[k].ring);
		if (f > best)
			best = f;
	}
	return (unsigned int)best;
}

unsigned int hws_session__mmap_pages(const struct hws_session *s)
{
	return s->pages;
}

int hws_session__nr_rings(const struct hws_session *s)
{
	return s->nr_rings;
}
