// SPDX-License-Identifier: MIT
/*
 * sysfs PMU reading and format-field encoding. A format spec is
 * "config[N]:lo[-hi][,lo[-hi]...]"; bits of a multi-range field are filled low range first
 * (the kernel's and perf's rule). Nothing here knows a vendor. The root is hws_sysfs_root()
 * (core/kernel/hostinfo.c).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/pmu.h>

#include "util/internal.h"

int hws_pmu_format__parse(const char *spec, struct hws_pmu_format *f)
{
	const char *p = spec;
	unsigned int width = 0;

	while (isspace((unsigned char)*p))
		p++;
	if (strncmp(p, "config", 6))
		return HWS_E_BADREC;
	p += 6;
	f->config = 0;
	if (isdigit((unsigned char)*p)) {
		f->config = (uint8_t)(*p - '0');
		p++;
	}
	if (f->config > 4 || *p != ':')
		return HWS_E_BADREC;
	p++;
	f->nr_ranges = 0;
	for (;;) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi;

		if (end == p || lo > 63)
			return HWS_E_BADREC;
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			hi = strtoul(p, &end, 10);
			if (end == p || hi > 63 || hi < lo)
				return HWS_E_BADREC;
			p = end;
		}
		if (f->nr_ranges == HWS_PMU_MAX_RANGES)
			return HWS_E_BADREC;
		f->ranges[f->nr_ranges].lo = (uint8_t)lo;
		f->ranges[f->nr_ranges].hi = (uint8_t)hi;
		f->nr_ranges++;
		width += (unsigned int)(hi - lo + 1);
		if (*p != ',')
			break;
		p++;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p || width > 64)
		return HWS_E_BADREC;
	f->width = (uint8_t)width;
	return 0;
}

static uint64_t *config_word(struct hws_perf_event_attr *attr, unsigned int n)
{
	switch (n) {
	case 0:
		return (uint64_t *)&attr->config;
	case 1:
		return (uint64_t *)&attr->config1;
	case 2:
		return (uint64_t *)&attr->config2;
	case 3:
		return (uint64_t *)&attr->config3;
	case 4:
		return (uint64_t *)&attr->config4;
	default:
		return NULL;
	}
}

uint64_t hws_pmu_format__max(const struct hws_pmu_format *f)
{
	return f->width >= 64 ? UINT64_MAX : (1ULL << f->width) - 1;
}

uint64_t hws_pmu_format__get(const struct hws_pmu_format *f, const struct hws_perf_event_attr *attr)
{
	uint64_t *w = config_word((struct hws_perf_event_attr *)attr, f->config);
	uint64_t v = 0;
	unsigned int shift = 0;

	if (!w)
		return 0;
	for (unsigned int i = 0; i < f->nr_ranges; i++) {
		unsigned int n = f->ranges[i].hi - f->ranges[i].lo + 1;
		uint64_t m = n >= 64 ? UINT64_MAX : (1ULL << n) - 1;
		v |= ((*w >> f->ranges[i].lo) & m) << shift;
		shift += n;
	}
	return v;
}

static void format_set(const struct hws_pmu_format *f, uint64_t value, uint64_t *w)
{
	for (unsigned int i = 0; i < f->nr_ranges; i++) {
		unsigned int n = f->ranges[i].hi - f->ranges[i].lo + 1;
		uint64_t m = n >= 64 ? UINT64_MAX : (1ULL << n) - 1;
		*w &= ~(m << f->ranges[i].lo);
		*w |= (value & m) << f->ranges[i].lo;
		value = n >= 64 ? 0 : value >> n;
	}
}

const struct hws_pmu_format *hws_pmu__format(const struct hws_pmu *pmu, const char *name)
{
	for (uint32_t i = 0; i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	return NULL;
}

const char *hws_pmu__cap(const struct hws_pmu *pmu, const char *name)
{
	for (uint32_t i = 0; i < pmu->nr_caps; i++)
		if (!strcmp(pmu->caps[i].name, name))
			return pmu->caps[i].value;
	return NULL;
}

int hws_pmu__set(const struct hws_pmu *pmu, const char *name, uint64_t value,
		 struct hws_perf_event_attr *attr, char *err, size_t errlen)
{
	const struct hws_pmu_format *f = hws_pmu__format(pmu, name);
	uint64_t *w;
	int n;

	if (!f) {
		if (err && errlen) {
			n = snprintf(err, errlen,
				     "%s: unknown control '%s'; valid controls:", pmu->name, name);
			for (uint32_t i = 0; i < pmu->nr_formats && n > 0 && (size_t)n < errlen;
			     i++)
				n += snprintf(err + n, errlen - (size_t)n, " %s",
					      pmu->formats[i].name);
		}
		return HWS_E_UNKNOWN_CONTROL;
	}
	if (value > hws_pmu_format__max(f)) {
		if (err && errlen)
			snprintf(err, errlen,
				 "%s: %s=%" PRIu64 " is too wide for its %u-bit field; "
				 "valid range 0..%" PRIu64,
				 pmu->name, name, value, f->width, hws_pmu_format__max(f));
		return HWS_E_CONTROL_RANGE;
	}
	w = config_word(attr, f->config);
	if (!w) {
		if (err && errlen)
			snprintf(err, errlen,
				 "%s: control '%s' lives in config%u, which perf_event_attr "
				 "does not have",
				 pmu->name, name, f->config);
		return HWS_E_UNSUPPORTED;
	}
	format_set(f, value, w);
	return 0;
}

int hws_pmu__load(const char *name, struct hws_pmu *pmu)
{
	char path[PATH_MAX], buf[256];
	DIR *d;
	struct dirent *de;
	int n;

	memset(pmu, 0, sizeof(*pmu));
	if (strlen(name) >= sizeof(pmu->name) || strchr(name, '/'))
		return -EINVAL;
	snprintf(pmu->name, sizeof(pmu->name), "%s", name);
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/type", hws_sysfs_root(), name);
	n = hws_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	pmu->type = (uint32_t)strtoul(buf, NULL, 0);

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/format", hws_sysfs_root(),
		 name);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		struct hws_pmu_format *f;
		char fpath[PATH_MAX + 256];

		if (de->d_name[0] == '.' || pmu->nr_formats == HWS_PMU_MAX_FORMATS ||
		    strlen(de->d_name) >= sizeof(f->name))
			continue;
		f = &pmu->formats[pmu->nr_formats];
		snprintf(fpath, sizeof(fpath), "%s/%s", path, de->d_name);
		if (hws_read_file(fpath, buf, sizeof(buf)) < 0)
			continue;
		if (hws_pmu_format__parse(buf, f)) {
			pr_warn("PMU %s: format field %s ('%s') not understood: ignored\n", name,
				de->d_name, buf);
			continue;
		}
		memcpy(f->name, de->d_name, strlen(de->d_name) + 1); /* length checked above */
		pmu->nr_formats++;
	}
	if (d)
		closedir(d);
	/* stable order for messages and listings */
	for (uint32_t i = 1; i < pmu->nr_formats; i++)
		for (uint32_t j = i;
		     j > 0 && strcmp(pmu->formats[j - 1].name, pmu->formats[j].name) > 0; j--) {
			struct hws_pmu_format t = pmu->formats[j];
			pmu->formats[j] = pmu->formats[j - 1];
			pmu->formats[j - 1] = t;
		}

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/caps", hws_sysfs_root(), name);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		struct hws_pmu_cap *c;
		char fpath[PATH_MAX + 256];

		if (de->d_name[0] == '.' || pmu->nr_caps == HWS_PMU_MAX_CAPS ||
		    strlen(de->d_name) >= sizeof(c->name))
			continue;
		c = &pmu->caps[pmu->nr_caps];
		snprintf(fpath, sizeof(fpath), "%s/%s", path, de->d_name);
		if (hws_read_file(fpath, c->value, sizeof(c->value)) < 0)
			continue;
		memcpy(c->name, de->d_name, strlen(de->d_name) + 1); /* length checked above */
		pmu->nr_caps++;
	}
	if (d)
		closedir(d);
	return 0;
}

int hws_pmu__list(const char *prefix, char (*names)[HWS_PMU_NAME_MAX], int max)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices", hws_sysfs_root());
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		size_t l = strlen(de->d_name);
		if (l >= HWS_PMU_NAME_MAX)
			continue; /* cannot be a PMU name we know */
		if (n < max)
			memcpy(names[n], de->d_name, l + 1);
		n++;
	}
	closedir(d);
	return n;
}
