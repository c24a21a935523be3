// SPDX-License-Identifier: MIT
/*
 * A backend built out of the tree, from the installed headers alone (tests/install/
 * install.sh): "hello" records the software events task-clock and cpu-clock and decodes
 * their samples, adding a vendor field of its own to `dump --raw` ({"hello":N}, N the
 * sample's attr index), so the test sees that the installed hwsample used it. It reaches
 * core only through the host table: the software PMU through pmu_load, the CPU vendor
 * through the version-3 member cpuinfo (checked with HWS_HOST_HAS), text through
 * strbuf_addf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/backend.h>

struct hello {
	const struct hws_host *host;
};

static int hello_init(void *priv, const struct hws_host *host)
{
	((struct hello *)priv)->host = host;
	return 0;
}

static int hello_detect(void *priv, char *why, size_t len)
{
	const struct hws_host *h = ((struct hello *)priv)->host;
	struct hws_pmu pmu;
	char vendor[64] = "unknown";

	if (h->pmu_load("software", &pmu)) {
		snprintf(why, len, "hello: no software PMU under %s", h->sysfs_root());
		return 0;
	}
	if (HWS_HOST_HAS(h, cpuinfo))
		h->cpuinfo("vendor_id", vendor, sizeof(vendor));
	snprintf(why, len, "hello: software events (PMU type %u) on a %s CPU", pmu.type, vendor);
	return 1;
}

static int hello_encode(void *priv, const struct hws_event_request *req, struct hws_event_desc *out,
			int max, char *err, size_t errlen)
{
	const char *ev = req->event ? req->event : "task-clock";
	uint64_t period = req->period ? req->period : 1000000;

	if (max < 1)
		return HWS_E_TOO_BIG;
	if (req->freq) {
		snprintf(err, errlen, "hello: give a period (hws_event_request.period)");
		return HWS_E_BAD_ARG;
	}
	for (uint32_t i = 0; i < req->nr_controls; i++) {
		if (strcmp(req->controls[i].key, "period")) {
			snprintf(err, errlen, "hello: unknown control '%s'; valid: period",
				 req->controls[i].key);
			return HWS_E_UNKNOWN_CONTROL;
		}
		period = strtoull(req->controls[i].value, NULL, 0);
	}
	memset(out, 0, sizeof(*out));
	out->attr.type = PERF_TYPE_SOFTWARE;
	if (!strcmp(ev, "task-clock")) {
		out->attr.config = PERF_COUNT_SW_TASK_CLOCK;
	} else if (!strcmp(ev, "cpu-clock")) {
		out->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	} else {
		snprintf(err, errlen, "hello: unknown event '%s'; valid: task-clock cpu-clock", ev);
		return HWS_E_UNKNOWN_EVENT;
	}
	out->attr.sample_period = period;
	out->attr.sample_type = PERF_SAMPLE_IP;
	out->group_leader = -1;
	snprintf(out->name, sizeof(out->name), "hello/%s/", ev);
	snprintf(out->pmu, sizeof(out->pmu), "software");
	return 1;
}

static int hello_match(void *priv, const struct hws_perf_event_attr *attr, const char *pmu_name)
{
	return attr->type == PERF_TYPE_SOFTWARE && (attr->config == PERF_COUNT_SW_TASK_CLOCK ||
						    attr->config == PERF_COUNT_SW_CPU_CLOCK);
}

static int hello_decode(void *priv, const struct hws_file_info *fi,
			const struct hws_record_sample *rec, struct hws_sample *out)
{
	return 0; /* core's generic fields are the sample; raw_json adds ours */
}

static int hello_controls(void *priv, const char *pmu, struct hws_control_info *out, int max)
{
	if (max > 0) {
		memset(out, 0, sizeof(*out));
		snprintf(out->name, sizeof(out->name), "period");
		snprintf(out->help, sizeof(out->help), "one sample every N nanoseconds");
		out->min = 1;
		out->max = 1000000000;
		out->def = 1000000;
	}
	return 1;
}

static int hello_raw_json(void *priv, const struct hws_file_info *fi, const struct hws_sample *s,
			  struct hws_strbuf *sb)
{
	return ((struct hello *)priv)->host->strbuf_addf(sb, "{\"hello\":%u}", s->attr_idx);
}

static const char *const hello_pmus[] = {"hello", NULL};

static const struct hws_backend_ops hello_ops = {
    .abi_version = HWS_BACKEND_ABI_VERSION,
    .size = sizeof(struct hws_backend_ops),
    .name = "hello",
    .description = "out-of-tree test backend: task-clock and cpu-clock",
    .pmus = hello_pmus,
    .caps = 0,
    .priv_size = sizeof(struct hello),
    .init = hello_init,
    .detect = hello_detect,
    .encode = hello_encode,
    .match = hello_match,
    .decode = hello_decode,
    .controls = hello_controls,
    .raw_json = hello_raw_json,
};

HWS_BACKEND_DEFINE(hello_ops)
