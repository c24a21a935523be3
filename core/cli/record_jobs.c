// SPDX-License-Identifier: MIT
/*
 * hwsample record: from what was asked to the events to open (core/cli/record.h). The
 * config file (-c FILE / --config FILE, core/record/config.c) is loaded, the command line
 * is merged over it (each value keeps its origin for --dry-run), it is validated against
 * the backends, and then it only fills struct record and the list of jobs: one job per
 * backend/PMU/section to encode, so several backends record in one session.
 *
 * Invariants:
 *  - Command line > backend section > [run] > defaults, for every value.
 *  - Options a chosen backend cannot honour (c2c without data sources, -S without an AUX
 *    area, --phys-data without any physical address) are refused before anything opens.
 *  - Nothing here opens an event or writes a file (--dry-run prints to stdout).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/config.h>
#include <hwsample/session.h>
#include <hwsample/strbuf.h>

#include "record.h"

/* @name in @reg, or NULL after a message that lists the backends */
static struct hws_backend *find_backend(struct hws_registry *reg, const char *name)
{
	struct hws_backend *b = hws_registry__find(reg, name);

	if (!b) {
		fprintf(stderr, "hwsample: no backend or PMU named '%s'; available backends:",
			hws_cli__text(name));
		for (int i = 0; i < hws_registry__count(reg); i++)
			fprintf(stderr, " %s", hws_registry__at(reg, i)->ops->name);
		fprintf(stderr, " (and the PMUs they serve: see hwsample list)\n");
	}
	return b;
}

/* -b: a backend name, a PMU a backend serves, or auto. */
static struct hws_backend *pick_backend(struct record *r, struct hws_registry *reg,
					const char **pmu)
{
	const char *name = r->backend;
	struct hws_backend *b, *best = NULL;
	char why[512];
	int best_score = 0;

	*pmu = NULL;
	if (!name && r->nr_events)
		name = "sw"; /* events without -b: tried below against every backend */
	if (!name || !strcmp(name, "auto")) {
		for (int i = 0; i < hws_registry__count(reg); i++) {
			b = hws_registry__at(reg, i);
			int score = b->ops->detect(b->priv, why, sizeof(why));
			if (score > best_score) {
				best_score = score;
				best = b;
			}
		}
		if (!best)
			fprintf(
			    stderr,
			    "hwsample: no usable backend on this machine (see hwsample list)\n");
		else if (!r->quiet && !r->dry_run)
			fprintf(stderr, "hwsample: using backend %s\n", best->ops->name);
		return best;
	}
	b = find_backend(reg, name);
	if (!b)
		return NULL;
	if (strcmp(name, b->ops->name))
		*pmu = name;
	return b;
}

/* ---- config files ---- */

static int check_freq(const char *origin, const char *opt, uint64_t freq)
{
	uint64_t max = (uint64_t)hws_cli__sysctl_int("perf_event_max_sample_rate", 100000);

	if (freq <= max)
		return 0;
	fprintf(stderr,
		"hwsample: %s: %s %" PRIu64 " exceeds the kernel's limit of %" PRIu64
		" samples/s (kernel.perf_event_max_sample_rate); lower it or raise the limit: "
		"sysctl kernel.perf_event_max_sample_rate=%" PRIu64 "\n",
		hws_cli__text(origin), opt, freq, max, freq);
	return -1;
}

/* Take the [run] values the command line did not give (items with a line number). */
static int apply_run(struct record *r)
{
	const struct hws_config_section *run = hws_config__section(r->cfg, "run");
	const struct hws_config_item *per = hws_config__get(r->cfg, "run", "period");
	const struct hws_config_item *fr = hws_config__get(r->cfg, "run", "freq");
	const struct hws_config_item *mode = hws_config__get(r->cfg, "run", "mode");
	const struct hws_config_item *cpus = hws_config__get(r->cfg, "run", "cpus");
	char err[1024];
	uint64_t v;
	bool bv;

	if (per && fr) {
		fprintf(stderr, "hwsample: %s: give period or freq, not both (freq at %s)\n",
			hws_cli__text(per->origin), hws_cli__text(fr->origin));
		return HWS_E_BAD_CONFIG;
	}
	if (mode && !strcmp(mode->value, "cpus") && !cpus) {
		fprintf(stderr, "hwsample: %s: mode = cpus needs cpus = LIST (e.g. cpus = 0-3)\n",
			hws_cli__text(mode->origin));
		return HWS_E_BAD_CONFIG;
	}
	if (cpus && mode && strcmp(mode->value, "cpus")) {
		fprintf(stderr, "hwsample: %s: cpus = %s needs mode = cpus (mode is %s at %s)\n",
			hws_cli__text(cpus->origin), hws_cli__text(cpus->value),
			hws_cli__text(mode->value), hws_cli__text(mode->origin));
		return HWS_E_BAD_CONFIG;
	}
	for (int i = 0; run && i < run->nr_items; i++) {
		const struct hws_config_item *it = &run->items[i];
		int ret = 0;

		if (!it->line)
			continue; /* from the command line: already in place */
		if (!strcmp(it->key, "backend")) {
			r->backend = it->value;
		} else if (!strcmp(it->key, "period")) {
			ret = hws_config__uint(it, 1, INT64_MAX, &r->period, err, sizeof(err));
		} else if (!strcmp(it->key, "freq")) {
			ret = hws_config__uint(it, 1, UINT32_MAX, &r->freq, err, sizeof(err));
			if (!ret && check_freq(it->origin, "freq", r->freq))
				return HWS_E_BAD_CONFIG;
		} else if (!strcmp(it->key, "mode")) {
			r->system_wide = !strcmp(it->value, "system-wide");
			r->per_thread = !strcmp(it->value, "per-thread");
		} else if (!strcmp(it->key, "cpus")) {
			r->cpu_list = it->value;
		} else if (!strcmp(it->key, "mmap_pages") || !strcmp(it->key, "aux_pages")) {
			bool aux = it->key[0] == 'a';
			ret = hws_config__uint(it, 1, aux ? 1u << 22 : 1u << 20, &v, err,
					       sizeof(err));
			if (!ret) {
				unsigned int p = round_pow2(v);
				if (p != v)
					fprintf(stderr,
						"hwsample: %s: rounding %s %" PRIu64 " up to %u "
						"(a power of two, as the kernel requires)\n",
						hws_cli__text(it->origin), hws_cli__text(it->key),
						v, p);
				*(aux ? &r->aux_pages : &r->pages) = p;
			}
		} else if (!strcmp(it->key, "overwrite")) {
			ret = hws_config__bool(it, &r->overwrite, err, sizeof(err));
		} else if (!strcmp(it->key, "snapshot")) {
			ret = hws_config__bool(it, &r->snapshot, err, sizeof(err));
		} else if (!strcmp(it->key, "data_addr")) {
			ret = hws_config__bool(it, &r->data_addr, err, sizeof(err));
		} else if (!strcmp(it->key, "phys_data")) {
			ret = hws_config__bool(it, &r->phys_data, err, sizeof(err));
		} else if (!strcmp(it->key, "inherit")) {
			ret = hws_config__bool(it, &bv, err, sizeof(err));
			r->no_inherit = !bv;
		} else if (!strcmp(it->key, "call_graph")) {
			ret = hws_call_graph__parse(it->value, &r->call_graph, &r->cg_stack_size,
						    err, sizeof(err));
			if (ret) {
				fprintf(stderr, "hwsample: %s: call_graph = %s: %s\n",
					hws_cli__text(it->origin), hws_cli__text(it->value),
					hws_cli__text(err));
				return ret == HWS_E_BAD_ARG ? HWS_E_BAD_CONFIG : ret;
			}
		} else if (!strcmp(it->key, "output")) {
			r->output = it->value;
		} else if (!strcmp(it->key, "duration")) {
			ret = hws_config__seconds(it, &r->duration, err, sizeof(err));
		}
		if (ret) {
			fprintf(stderr, "hwsample: %s\n",
				hws_cli__text_lines(hws_cli__lib_text(err)));
			return ret;
		}
	}
	if (r->per_thread && r->nr_pids == 0 && !r->argc && !r->dry_run) {
		fprintf(stderr, "hwsample: %s: mode = per-thread needs a program or -p PID\n",
			hws_cli__text(mode ? mode->origin : "config"));
		return HWS_E_BAD_CONFIG;
	}
	if (!r->argc && !r->nr_pids && !r->system_wide && !r->cpu_list && !r->dry_run) {
		fprintf(stderr,
			"hwsample: nothing to record: give a program (-- PROG ARGS), "
			"-p PID, -a or -C CPUS (or mode = system-wide / cpus in %s)\n",
			hws_cli__text(r->config_path));
		return HWS_E_BAD_ARG;
	}
	return 0;
}

/* Load the file, let the command line override it, validate it against the backends. */
int record__load_config(struct record *r, struct hws_registry *reg)
{
	const struct hws_config_section *o = hws_config__section(r->over, "run");
	char err[2048] = "";
	int ret;

	r->cfg = hws_config__new();
	if (!r->cfg)
		return -ENOMEM;
	ret = hws_config__load(r->cfg, r->config_path, err, sizeof(err));
	if (ret) {
		/* a missing or unreadable file is a usage error too (exit 2) */
		fprintf(stderr, "hwsample: %s\n",
			hws_cli__text_lines(*err ? hws_cli__lib_text(err) : strerror(-ret)));
		return HWS_E_BAD_CONFIG;
	}
	if (!ret) {
		bool mode_cli = r->system_wide || r->cpu_list || r->per_thread || r->nr_pids;
		bool rate_cli = r->freq || r->period;

		if (mode_cli) {
			hws_config__unset(r->cfg, "run", "mode");
			hws_config__unset(r->cfg, "run", "cpus");
		}
		for (int i = 0; i < r->cfg->nr_sections; i++) {
			const char *sn = r->cfg->sections[i].name;
			if (rate_cli) {
				hws_config__unset(r->cfg, sn, "period");
				hws_config__unset(r->cfg, sn, "freq");
			}
			if (r->nr_events && strcmp(sn, "run"))
				hws_config__unset(r->cfg, sn, "events");
		}
		for (int i = 0; o && i < o->nr_items && !ret; i++)
			ret = hws_config__set(r->cfg, "run", o->items[i].key, o->items[i].value,
					      o->items[i].origin);
		for (int i = 0; i < r->nr_controls && !ret; i++)
			; /* controls are merged per section when the events are encoded */
	}
	if (!ret)
		ret = hws_config__validate(r->cfg, reg, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "hwsample: %s\n",
			hws_cli__text_lines(*err ? hws_cli__lib_text(err) : strerror(-ret)));
		return ret;
	}
	for (int i = 0; i < r->cfg->nr_sections; i++) {
		const struct hws_config_item *f =
		    hws_config__get(r->cfg, r->cfg->sections[i].name, "freq");
		uint64_t v;
		if (f && strcmp(r->cfg->sections[i].name, "run") &&
		    (hws_config__uint(f, 1, UINT32_MAX, &v, err, sizeof(err)) ||
		     check_freq(f->origin, "freq", v)))
			return HWS_E_BAD_CONFIG;
		if (f && strcmp(r->cfg->sections[i].name, "run") &&
		    hws_config__get(r->cfg, r->cfg->sections[i].name, "period")) {
			fprintf(stderr, "hwsample: %s: give period or freq, not both\n",
				hws_cli__text(f->origin));
			return HWS_E_BAD_CONFIG;
		}
	}
	return apply_run(r);
}

static bool is_run(const struct hws_config_section *s)
{
	return !strcmp(s->name, "run");
}

static const char *section_pmu(const struct hws_config_section *sec, const struct hws_backend *b)
{
	const struct hws_config_item *p;

	if (strcmp(sec->name, b->ops->name))
		return sec->name;
	for (int i = 0; i < sec->nr_items; i++) {
		p = &sec->items[i];
		if (!strcmp(p->key, "pmu"))
			return p->value;
	}
	return NULL;
}

static int add_job(struct record *r, struct hws_backend *b, const char *pmu,
		   const struct hws_config_section *sec)
{
	for (int i = 0; i < r->nr_jobs; i++)
		if (r->jobs[i].sec == sec && sec)
			return 0;
	if (r->nr_jobs == MAX_JOBS) {
		fprintf(stderr, "hwsample: too many backends in one run (max %d)\n", MAX_JOBS);
		return -1;
	}
	r->jobs[r->nr_jobs] = (struct job){.b = b, .sec = sec};
	if (pmu) {
		snprintf(r->jobs[r->nr_jobs].pmu_buf, sizeof(r->jobs[0].pmu_buf), "%s", pmu);
		r->jobs[r->nr_jobs].pmu = r->jobs[r->nr_jobs].pmu_buf;
	}
	r->nr_jobs++;
	return 0;
}

/* "auto" with a config file: the best usable backend among the file's sections, with
 * every section it serves (ibs_op and ibs_fetch together). */
static int select_auto(struct record *r, struct hws_registry *reg)
{
	struct hws_backend *best = NULL;
	int best_score = 0, nsec = 0;

	for (int i = 0; i < r->cfg->nr_sections; i++) {
		const struct hws_config_section *sec = &r->cfg->sections[i];
		struct hws_backend *b;
		char why[512];
		int score;

		if (is_run(sec))
			continue;
		nsec++;
		b = hws_registry__find(reg, sec->name);
		score = b->ops->detect(b->priv, why, sizeof(why));
		if (score > best_score) {
			best_score = score;
			best = b;
		}
	}
	if (!nsec)
		return 1; /* no backend sections: plain auto */
	if (!best) {
		fprintf(stderr, "hwsample: none of the backends %s configures is usable here:\n",
			hws_cli__text(r->config_path));
		for (int i = 0; i < r->cfg->nr_sections; i++) {
			const struct hws_config_section *sec = &r->cfg->sections[i];
			struct hws_backend *b;
			char why[512] = "";
			if (is_run(sec))
				continue;
			b = hws_registry__find(reg, sec->name);
			b->ops->detect(b->priv, why, sizeof(why));
			fprintf(stderr, "  [%s] (%s:%d): %s\n", hws_cli__text(sec->name),
				hws_cli__text(r->config_path), sec->line, hws_cli__text(why));
		}
		fprintf(stderr,
			"  (see hwsample list; add a section for a backend this machine has, "
			"or give -b)\n");
		return HWS_E_NO_BACKEND;
	}
	for (int i = 0; i < r->cfg->nr_sections; i++) {
		const struct hws_config_section *sec = &r->cfg->sections[i];
		if (!is_run(sec) && hws_registry__find(reg, sec->name) == best &&
		    add_job(r, best, section_pmu(sec, best), sec))
			return HWS_E_BAD_ARG;
	}
	if (!r->quiet && !r->dry_run)
		fprintf(stderr, "hwsample: using backend %s (from %s)\n", best->ops->name,
			hws_cli__text(r->config_path));
	return 0;
}

/* -b / backend = a list: each name selects the sections it names or serves, or, without
 * a section, the backend (on that PMU) with its defaults. */
static int select_list(struct record *r, struct hws_registry *reg, const char *spec)
{
	char *copy = strdup(spec), *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ", \t", &save); t && !ret;
	     t = strtok_r(NULL, ", \t", &save)) {
		struct hws_backend *b = find_backend(reg, t);
		bool matched = false;

		if (!b) {
			ret = HWS_E_NO_BACKEND;
			break;
		}
		for (int i = 0; r->cfg && i < r->cfg->nr_sections; i++) {
			const struct hws_config_section *sec = &r->cfg->sections[i];
			const char *pmu;
			if (is_run(sec) || hws_registry__find(reg, sec->name) != b)
				continue;
			pmu = section_pmu(sec, b);
			if (strcmp(t, b->ops->name) && strcmp(sec->name, t) &&
			    (!pmu || strcmp(pmu, t)))
				continue;
			matched = true;
			if (add_job(r, b, pmu, sec))
				ret = HWS_E_BAD_ARG;
		}
		if (!matched && add_job(r, b, strcmp(t, b->ops->name) ? t : NULL, NULL))
			ret = HWS_E_BAD_ARG;
	}
	free(copy);
	return ret;
}

/* Where a [run] option came from, for messages: @opt on the command line, else "key =
 * value at FILE:LINE". */
static const char *option_origin(struct record *r, const char *key, const char *opt, char *buf,
				 size_t len)
{
	const struct hws_config_item *it = hws_config__get(r->cfg ? r->cfg : r->over, "run", key);

	if (!it || !it->line)
		return opt;
	snprintf(buf, len, "%s = %s at %s", key, hws_cli__text(it->value),
		 hws_cli__text(it->origin));
	return buf;
}

/*
 * Options the chosen backends cannot honour are refused before anything is opened, from
 * the backends' caps: c2c needs data sources, -S an AUX area. (--phys-data is checked on
 * the encoded events: software page faults can carry one.)
 */
static int check_backend_options(struct record *r)
{
	bool aux = false;
	char at[512];

	for (int j = 0; j < r->nr_jobs; j++) {
		const struct hws_backend_ops *o = r->jobs[j].b->ops;
		const char *name = r->jobs[j].pmu ? r->jobs[j].pmu : o->name;

		aux |= !!(o->caps & HWS_CAP_AUX);
		if (r->c2c && !(o->caps & HWS_CAP_DATA_SRC)) {
			fprintf(
			    stderr,
			    "hwsample c2c record: %s cannot record for c2c: c2c needs memory "
			    "samples with data addresses and data sources, which only a "
			    "sampling PMU gives (AMD IBS op, Intel PEBS load latency, Arm SPE); "
			    "%s events have none. Leave -b out to use this machine's sampling "
			    "PMU (hwsample list says which are usable), or record on a machine "
			    "that has one\n",
			    hws_cli__text(name), hws_cli__text(name));
			return -1;
		}
	}
	if (r->snapshot && !aux) {
		fprintf(stderr,
			"hwsample: %s (AUX snapshot mode) needs an event with an AUX area, from a "
			"PMU such as arm_spe (Arm SPE); %s writes its samples to the ring buffer "
			"only: for a flight recorder of the ring buffer use --overwrite\n",
			option_origin(r, "snapshot", "-S", at, sizeof(at)),
			r->jobs[0].pmu ? r->jobs[0].pmu : r->jobs[0].b->ops->name);
		return -1;
	}
	if (r->aux_pages && !aux && hws_config__get(r->over, "run", "aux_pages"))
		fprintf(stderr,
			"hwsample: -m ,%u: no event of this run has an AUX area (only AUX "
			"PMUs such as arm_spe do): the AUX page count is not used\n",
			r->aux_pages);
	return 0;
}

/* --phys-data with no event that can give a physical address would do nothing: refuse. */
static int check_phys(struct record *r, struct hws_registry *reg, const struct hws_event_desc *all,
		      const char *const *owner, int nall)
{
	char at[512];

	if (!r->phys_data || r->c2c)
		return 0;
	for (int k = 0; k < nall; k++) {
		struct hws_backend *b = hws_registry__find(reg, owner[k]);

		if ((b && (b->ops->caps & HWS_CAP_PHYS_ADDR)) ||
		    (all[k].attr.sample_type & PERF_SAMPLE_PHYS_ADDR))
			return 0;
	}
	fprintf(stderr,
		"hwsample: %s: no event of this run can give physical addresses (%s%s): they "
		"come from a memory-sampling PMU (AMD IBS, Intel PEBS, Arm SPE) or, among "
		"software events, from page faults (-e page-faults, with the faulting address)\n",
		option_origin(r, "phys_data", "--phys-data", at, sizeof(at)),
		hws_cli__text(all[0].name), nall > 1 ? ", ..." : "");
	return -1;
}

static bool is_optional(const char *key)
{
	size_t l = strlen(key);

	return l > 1 && l < 48 && key[l - 1] == '?';
}

static bool pmu_has_control(const struct job *jb, const char *key)
{
	struct hws_control_info ci[64];
	int n;

	if (!jb->b->ops->controls)
		return false;
	n = jb->b->ops->controls(jb->b->priv, jb->pmu, ci, 64);
	for (int i = 0; i < n && i < 64; i++)
		if (!strcmp(ci[i].name, key))
			return true;
	return false;
}

static void print_item(struct hws_strbuf *sb, const char *sec, const struct hws_config_item *it)
{
	char kv[512];

	snprintf(kv, sizeof(kv), "%s.%s = %s", sec, it->key, it->value);
	hws_strbuf__addf(sb, "    %-44s %s\n", kv, it->origin);
}

/* Where every value came from, which sections were chosen and why the others were not. */
static void print_provenance(struct record *r, struct hws_strbuf *sb, struct hws_registry *reg)
{
	hws_strbuf__addf(sb, "config: %s (value, then where it came from)\n", r->cfg->path);
	for (int i = 0; i < r->cfg->nr_sections; i++) {
		const struct hws_config_section *sec = &r->cfg->sections[i];
		bool chosen = is_run(sec);
		char why[512] = "";

		for (int j = 0; j < r->nr_jobs; j++)
			chosen |= r->jobs[j].sec == sec;
		if (!is_run(sec)) {
			struct hws_backend *b = hws_registry__find(reg, sec->name);
			if (!chosen && b && b->ops->detect(b->priv, why, sizeof(why)) > 0)
				snprintf(why, sizeof(why), "another backend was chosen");
			char at[300] = " (command line)";
			if (sec->line)
				snprintf(at, sizeof(at), " at %s:%d", r->cfg->path, sec->line);
			hws_strbuf__addf(sb, "  [%s]%s: %s%s\n", sec->name, at,
					 chosen ? "selected" : "not selected: ", chosen ? "" : why);
		}
		for (int k = 0; k < sec->nr_items; k++) {
			const struct hws_config_item *it = &sec->items[k];
			print_item(sb, sec->name, it);
			for (int j = 0; j < r->nr_jobs; j++) {
				char key[48];
				if (r->jobs[j].sec != sec || !is_optional(it->key))
					continue;
				snprintf(key, sizeof(key), "%.*s", (int)strlen(it->key) - 1,
					 it->key);
				if (!pmu_has_control(&r->jobs[j], key))
					hws_strbuf__addf(sb, "      (skipped: %s has no %s here)\n",
							 r->jobs[j].pmu ? r->jobs[j].pmu
									: r->jobs[j].b->ops->name,
							 key);
			}
		}
	}
	for (int k = 0; k < r->nr_controls; k++) {
		char kv[512];
		snprintf(kv, sizeof(kv), "%s=%s", r->controls[k].key, r->controls[k].value);
		hws_strbuf__addf(sb, "    %-44s command line (selected sections that have it)\n",
				 kv);
	}
}

void record__print_dry_run(struct record *r, struct hws_registry *reg)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	int n = hws_session__nr_events(r->sess);

	if (r->cfg)
		print_provenance(r, &sb, reg);
	for (int e = 0; e < n; e++) {
		hws_strbuf__addf(&sb, "event %d: %s (pmu %s, backend %s)\n", e,
				 hws_session__event_name(r->sess, e),
				 hws_session__event_pmu(r->sess, e),
				 hws_session__event_backend(r->sess, e));
		for (int j = 0; r->cfg && j < r->nr_jobs; j++) {
			const struct job *jb = &r->jobs[j];
			if (e < jb->first_event || e >= jb->first_event + jb->nr_events)
				continue;
			if (jb->sec && jb->sec->line)
				hws_strbuf__addf(&sb, "  from [%s] at %s:%d\n", jb->sec->name,
						 r->cfg->path, jb->sec->line);
			else
				hws_strbuf__addf(&sb, "  from backend %s%s%s (defaults)\n",
						 jb->b->ops->name, jb->pmu ? " pmu " : "",
						 jb->pmu ? jb->pmu : "");
		}
		hws_attr__print(hws_session__attr(r->sess, e), &sb, "  ");
	}
	hws_strbuf__addf(&sb, "mode: %s\n",
			 r->system_wide	 ? "system-wide (-a)"
			 : r->cpu_list	 ? "cpu list (-C)"
			 : r->per_thread ? "per-thread"
					 : "default (per-CPU rings, target threads, inherit)");
	hws_strbuf__addf(&sb, "mmap pages: %u per ring\n", hws_session__mmap_pages(r->sess));
	if (r->cfg || r->duration > 0) {
		hws_strbuf__addf(&sb, "output: %s\n", r->output);
		if (r->duration > 0)
			hws_strbuf__addf(&sb, "duration: %g s\n", r->duration);
	}
	if (r->cfg) {
		static const char *const keys[] = {"mode", "mmap_pages", "aux_pages", "output",
						   "duration"};
		hws_strbuf__addf(&sb, "where from:");
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			const struct hws_config_item *it = hws_config__get(r->cfg, "run", keys[k]);
			hws_strbuf__addf(&sb, "%s %s %s", k ? "," : "", keys[k],
					 it ? it->origin : "default");
		}
		hws_strbuf__addf(&sb, "\n");
	}
	hws_cli__write_text(stdout, sb.buf); /* config text and names as data */
	hws_strbuf__release(&sb);
}

/* Encode the events of one job: its events (command line > section > [run]), controls
 * (section, overridden by the command line) and rate (command line > section > [run]). */
static int encode_job(struct record *r, struct hws_registry *reg, struct job *jb,
		      struct hws_event_desc *all, const char **owner, int *base_of, int *nall)
{
	const struct hws_config_section *sec = jb->sec;
	struct hws_control ctl[MAX_CONTROLS];
	char *evs[MAX_EVENTS], *evcopy = NULL, err[2048] = "";
	char optkeys[MAX_CONTROLS][48];
	int nev = 0, nctl = 0, ret = 0, nopt = 0;
	uint64_t period = r->period, freq = r->freq;

	if (r->nr_events) {
		for (int i = 0; i < r->nr_events; i++)
			evs[nev++] = r->events[i];
	} else if (r->cfg) {
		const struct hws_config_item *it =
		    sec ? hws_config__get(r->cfg, sec->name, "events")
			: hws_config__get(r->cfg, "run", "events");
		char *save = NULL;
		if (it) {
			evcopy = strdup(it->value);
			for (char *t = strtok_r(evcopy, ", \t", &save); t && nev < MAX_EVENTS;
			     t = strtok_r(NULL, ", \t", &save))
				evs[nev++] = t;
		}
	}
	for (int i = 0; sec && i < sec->nr_items && nctl < MAX_CONTROLS; i++) {
		const struct hws_config_item *it = &sec->items[i];
		const char *key = it->key;
		bool over = false;
		if (hws_config__is_backend_key(it->key))
			continue;
		if (is_optional(key)) {
			snprintf(optkeys[nopt], sizeof(optkeys[0]), "%.*s", (int)strlen(key) - 1,
				 key);
			key = optkeys[nopt];
			if (!pmu_has_control(jb, key))
				continue; /* "key?": not on this PMU */
			nopt++;
		}
		for (int k = 0; k < r->nr_controls; k++)
			over |= !strcmp(r->controls[k].key, key);
		if (!over)
			ctl[nctl++] = (struct hws_control){.key = key, .value = it->value};
	}
	for (int k = 0; k < r->nr_controls && nctl < MAX_CONTROLS; k++) {
		bool anyone = false;
		/* with several backends, a command-line control goes to those that know it */
		if (r->nr_jobs > 1) {
			for (int j = 0; j < r->nr_jobs; j++)
				anyone |= pmu_has_control(&r->jobs[j], r->controls[k].key);
			if (anyone && !pmu_has_control(jb, r->controls[k].key))
				continue;
		}
		ctl[nctl++] = r->controls[k];
	}
	if (sec) {
		const struct hws_config_item *p = hws_config__get(r->cfg, sec->name, "period");
		const struct hws_config_item *f = hws_config__get(r->cfg, sec->name, "freq");
		if (p && !hws_config__uint(p, 1, INT64_MAX, &period, err, sizeof(err)))
			freq = 0;
		if (f && !hws_config__uint(f, 1, UINT32_MAX, &freq, err, sizeof(err)))
			period = 0;
	}

	jb->first_event = *nall;
	for (int i = 0; i < (nev ? nev : 1); i++) {
		struct hws_event_desc descs[8] = {0}; /* config3/config4 words stay 0 unless set */
		struct hws_event_request req = {
		    .sz = sizeof(req),
		    .pmu = jb->pmu,
		    .event = nev ? evs[i] : NULL,
		    .controls = ctl,
		    .nr_controls = (uint32_t)nctl,
		    .kernel_version = hws_cli__kernel_version(NULL, 0),
		    .period = period,
		    .freq = freq,
		    .ldlat = r->ldlat,
		    .flags = (r->per_thread ? HWS_REQ_PER_THREAD : 0) |
			     (r->system_wide || r->cpu_list ? HWS_REQ_SYSTEM_WIDE : 0) |
			     (r->phys_data ? HWS_REQ_PHYS_ADDR : 0) | (r->c2c ? HWS_REQ_C2C : 0) |
			     (r->ldlat_set ? HWS_REQ_LDLAT : 0) |
			     (r->dry_run ? HWS_REQ_DRY_RUN : 0),
		};
		struct hws_backend *b = jb->b, *eb = b;
		char alt[256], *bar;
		int n;

		/* "A|B": the first alternative this machine knows (event names differ between
		 * CPU generations); the error of the first one is the one reported */
		if (nev && r->cfg && strchr(evs[i], '|')) {
			char e1[2048] = "";
			const char *rest = evs[i];
			n = -1;
			while (rest && n < 0) {
				bar = strchr(rest, '|');
				snprintf(alt, sizeof(alt), "%.*s",
					 bar ? (int)(bar - rest) : (int)strlen(rest), rest);
				rest = bar ? bar + 1 : NULL;
				req.event = alt;
				memset(descs, 0, sizeof(descs));
				n = b->ops->encode(b->priv, &req, descs, 8, err, sizeof(err));
				if (n < 0 && !*e1)
					snprintf(e1, sizeof(e1), "%s", err);
			}
			if (n < 0)
				snprintf(err, sizeof(err), "none of '%s' is known here; %.1800s",
					 evs[i], e1);
		} else {
			n = b->ops->encode(b->priv, &req, descs, 8, err, sizeof(err));
		}
		if (n < 0 && !r->backend && !r->cfg && r->nr_jobs == 1) {
			/* no -b: try the event on every other backend */
			for (int k = 0; k < hws_registry__count(reg) && n < 0; k++) {
				struct hws_backend *o = hws_registry__at(reg, k);
				char e2[512];
				if (o == b)
					continue;
				memset(descs, 0, sizeof(descs));
				int m = o->ops->encode(o->priv, &req, descs, 8, e2, sizeof(e2));
				if (m > 0) {
					n = m;
					eb = o;
				}
			}
		}
		if (n <= 0) {
			if (sec && sec->line)
				fprintf(stderr, "hwsample: %s:%d: [%s]: %s\n",
					hws_cli__text(r->cfg->path), sec->line,
					hws_cli__text(sec->name),
					hws_cli__text_lines(*err ? hws_cli__lib_text(err)
								 : "backend produced no event"));
			else
				fprintf(stderr, "hwsample: %s\n",
					hws_cli__text_lines(*err ? hws_cli__lib_text(err)
								 : "backend produced no event"));
			ret = n < 0 ? hws_cli__exit_code(n) : HWS_EXIT_ERROR;
			goto out;
		}
		int base = *nall;
		for (int k = 0; k < n; k++) {
			if (*nall == MAX_ALL_EVENTS) {
				fprintf(stderr, "hwsample: too many events (max %d)\n",
					MAX_ALL_EVENTS);
				ret = HWS_EXIT_USAGE;
				goto out;
			}
			if (r->data_addr)
				descs[k].attr.sample_type |= PERF_SAMPLE_ADDR;
			all[*nall] = descs[k];
			owner[*nall] = eb->ops->name;
			base_of[*nall] = base;
			(*nall)++;
		}
	}
	jb->nr_events = *nall - jb->first_event;
out:
	free(evcopy);
	return ret;
}

int record__select_jobs(struct record *r, struct hws_registry *reg)
{
	struct hws_backend *b;
	const char *pmu = NULL;
	int ret;

	if (r->cfg && (!r->backend || !strcmp(r->backend, "auto"))) {
		ret = select_auto(r, reg);
		if (ret < 0)
			return ret == HWS_E_NO_BACKEND ? HWS_EXIT_UNSUPPORTED : HWS_EXIT_USAGE;
	}
	if (!r->nr_jobs && r->backend && strcmp(r->backend, "auto") &&
	    (r->cfg || strchr(r->backend, ','))) {
		if (select_list(r, reg, r->backend))
			return HWS_EXIT_USAGE;
	}
	if (!r->nr_jobs) {
		b = pick_backend(r, reg, &pmu);
		if (!b || add_job(r, b, pmu, NULL))
			return HWS_EXIT_USAGE;
	}
	if (check_backend_options(r))
		return HWS_EXIT_USAGE;
	for (int j = 0; !r->dry_run && j < r->nr_jobs; j++) {
		char why[512] = "";

		b = r->jobs[j].b;
		if (b->ops->detect(b->priv, why, sizeof(why)) <= 0) {
			fprintf(stderr, "hwsample: backend %s is not usable here: %s\n",
				b->ops->name, hws_cli__text(why));
			return HWS_EXIT_UNSUPPORTED;
		}
	}
	return 0;
}

int record__encode(struct record *r, struct hws_registry *reg, struct hws_event_desc *all,
		   const char **owner, int *base_of, int *nall)
{
	int ret;

	*nall = 0;
	for (int j = 0; j < r->nr_jobs; j++) {
		ret = encode_job(r, reg, &r->jobs[j], all, owner, base_of, nall);
		if (ret)
			return ret;
	}
	return check_phys(r, reg, all, owner, *nall) ? HWS_EXIT_USAGE : 0;
}
