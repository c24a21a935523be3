// SPDX-License-Identifier: MIT
/*
 * Header features describing the recording machine, in perf's on-disk encodings
 * (Linux tools/perf/util/header.c write_*()): HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS,
 * CPUDESC, CPUID, TOTAL_MEM, CMDLINE, NUMA_TOPOLOGY, CPU_TOPOLOGY, CACHE, PMU_MAPPINGS,
 * PMU_CAPS, CPU_PMU_CAPS, CLOCKID, CLOCK_DATA.
 *
 * Sources: uname(2), the machine's cpuinfo (hws_cpuinfo__get(): /proc/cpuinfo, or a fake
 * machine's), /proc/meminfo, /sys/devices/system/{cpu,node}, the
 * caches under hws_sysfs_root()/devices/system/cpu/cpuN/cache and the PMUs under
 * hws_sysfs_root()/bus/event_source/devices (so a fake sysfs tree shows up in CACHE,
 * PMU_MAPPINGS and PMU_CAPS). A source that cannot be read just leaves its feature out.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <hwsample/host.h>
#include <hwsample/perfdata.h>
#include <hwsample/pmu.h>

#include "util/internal.h"
#include "perfdata/perfdata_int.h"

#define MAX_LIST 1024

static int set_sb(struct hws_perf_writer *w, int feat, struct hws_strbuf *sb, int err)
{
	if (!err && !sb->toobig)
		err = hws_perf_writer__set_feature(w, feat, sb->buf, sb->len);
	hws_strbuf__release(sb);
	return err;
}

/* Value of "key : value" in the machine's cpuinfo (first match): 0, or -ENOENT / -errno */
static int cpuinfo_field(const char *key, char *out, size_t len)
{
	int n = hws_cpuinfo__get(key, out, len);

	return n < 0 ? n : 0;
}

/* perf's CPUID string: x86 "Vendor,family,model,stepping", arm64 MIDR "0x%016lx". */
static int host_cpuid(const char *machine, char *out, size_t len)
{
	char v[128], fam[32], mod[32], step[32], path[PATH_MAX];

	if (!strncmp(machine, "aarch64", 7) || !strncmp(machine, "arm64", 5)) {
		snprintf(path, sizeof(path),
			 "%s/devices/system/cpu/cpu0/regs/identification/midr_el1",
			 hws_sysfs_root());
		if (hws_read_file(path, v, sizeof(v)) < 0)
			return -ENOENT;
		snprintf(out, len, "0x%016llx", strtoull(v, NULL, 0));
		return 0;
	}
	if (cpuinfo_field("vendor_id", v, sizeof(v)) ||
	    cpuinfo_field("cpu family", fam, sizeof(fam)) ||
	    cpuinfo_field("model", mod, sizeof(mod)))
		return -ENOENT;
	if (cpuinfo_field("stepping", step, sizeof(step)))
		snprintf(step, sizeof(step), "0");
	snprintf(out, len, "%s,%s,%s,%s", v, fam, mod, step);
	return 0;
}

static int total_mem_kb(const char *path, const char *key, uint64_t *kb)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, key);

		if (!p)
			continue;
		p += strlen(key);
		while (*p == ' ' || *p == ':' || *p == '\t')
			p++;
		*kb = strtoull(p, NULL, 10);
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

/* Parse a cpulist ("0-3,8") and call back for each CPU below MAX_LIST*8. */
static int cpulist_max(const char *s)
{
	int max = -1;

	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s)
			break;
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (b > max && b < 65536)
			max = (int)b;
		s = *end == ',' ? end + 1 : end;
		if (*s == '\n')
			break;
	}
	return max;
}

static int add_numa(struct hws_perf_writer *w)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	char path[PATH_MAX], cpus[4096];
	uint32_t nr = 0;
	int err = 0;

	/* nodes are node0..nodeN with possible holes: the highest comes from "possible" */
	int max_node = MAX_LIST - 1;

	if (hws_read_file("/sys/devices/system/node/possible", cpus, sizeof(cpus)) > 0)
		max_node = cpulist_max(cpus);
	if (max_node >= MAX_LIST)
		max_node = MAX_LIST - 1;
	err = hws__put_u32(&sb, 0);
	for (int n = 0; !err && n <= max_node; n++) {
		uint64_t total = 0, free_kb = 0;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", n);
		if (hws_read_file(path, cpus, sizeof(cpus)) < 0)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", n);
		total_mem_kb(path, "MemTotal", &total);
		total_mem_kb(path, "MemFree", &free_kb);
		err = hws__put_u32(&sb, (uint32_t)n);
		if (!err)
			err = hws__put_u64(&sb, total);
		if (!err)
			err = hws__put_u64(&sb, free_kb);
		if (!err)
			err = hws__put_string(&sb, cpus);
		nr++;
	}
	if (!nr) {
		hws_strbuf__release(&sb);
		return 0;
	}
	if (!err)
		memcpy(sb.buf, &nr, 4);
	return set_sb(w, HWS_FEAT_NUMA_TOPOLOGY, &sb, err);
}

/* Unique strings list helper for CPU_TOPOLOGY. */
struct slist {
	char *s[MAX_LIST];
	uint32_t nr;
};

static void slist_add(struct slist *l, const char *s)
{
	for (uint32_t i = 0; i < l->nr; i++)
		if (!strcmp(l->s[i], s))
			return;
	if (l->nr < MAX_LIST)
		l->s[l->nr] = strdup(s), l->nr += l->s[l->nr] != NULL;
}

static int slist_put(struct hws_strbuf *sb, const struct slist *l)
{
	int err = hws__put_u32(sb, l->nr);

	for (uint32_t i = 0; !err && i < l->nr; i++)
		err = hws__put_string(sb, l->s[i]);
	return err;
}

static void slist_free(struct slist *l)
{
	for (uint32_t i = 0; i < l->nr; i++)
		free(l->s[i]);
}

static int topo_read(int cpu, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, name);
	return hws_read_file(path, buf, len);
}

static int add_cpu_topology(struct hws_perf_writer *w, int nr_cpus)
{
	struct slist *pkg = calloc(3, sizeof(*pkg)), *core, *die;
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	char buf[4096];
	int err = 0;

	if (!pkg)
		return -ENOMEM;
	core = pkg + 1;
	die = pkg + 2;
	for (int c = 0; c < nr_cpus; c++) {
		if (topo_read(c, "package_cpus_list", buf, sizeof(buf)) >= 0 ||
		    topo_read(c, "core_siblings_list", buf, sizeof(buf)) >= 0)
			slist_add(pkg, buf);
		if (topo_read(c, "core_cpus_list", buf, sizeof(buf)) >= 0 ||
		    topo_read(c, "thread_siblings_list", buf, sizeof(buf)) >= 0)
			slist_add(core, buf);
		if (topo_read(c, "die_cpus_list", buf, sizeof(buf)) >= 0)
			slist_add(die, buf);
	}
	if (!pkg->nr || !core->nr)
		goto out;
	err = slist_put(&sb, pkg);
	if (!err)
		err = slist_put(&sb, core);
	for (int c = 0; !err && c < nr_cpus; c++) {
		int core_id = -1, sock = -1;

		if (topo_read(c, "core_id", buf, sizeof(buf)) >= 0)
			core_id = atoi(buf);
		if (topo_read(c, "physical_package_id", buf, sizeof(buf)) >= 0)
			sock = atoi(buf);
		err = hws__put_u32(&sb, (uint32_t)core_id);
		if (!err)
			err = hws__put_u32(&sb, (uint32_t)sock);
	}
	if (!err && die->nr) {
		err = slist_put(&sb, die);
		for (int c = 0; !err && c < nr_cpus; c++) {
			int id = -1;

			if (topo_read(c, "die_id", buf, sizeof(buf)) >= 0)
				id = atoi(buf);
			err = hws__put_u32(&sb, (uint32_t)id);
		}
	}
	err = set_sb(w, HWS_FEAT_CPU_TOPOLOGY, &sb, err);
out:
	hws_strbuf__release(&sb);
	slist_free(pkg);
	slist_free(core);
	slist_free(die);
	free(pkg);
	return err;
}

/*
 * CACHE (perf write_cache): u32 version = 1, u32 nr, then per cache u32 level, line_size,
 * sets, ways and the strings type, size, map (shared_cpu_list), from
 * <sysfs root>/devices/system/cpu/cpuN/cache/index0..3 of every CPU; a cache shared by
 * several CPUs is listed once (all fields equal), the list sorted by level (stable).
 */
#define CACHE_LEVELS 4 /* perf reads index0..index3 */

struct cache_desc {
	uint32_t level, line_size, sets, ways;
	char type[32], size[32], map[256];
};

/* 0, 1 if the index directory does not exist, or negative errno. */
static int cache_read(int cpu, int idx, struct cache_desc *c)
{
	static const char *const num[4] = {"level", "coherency_line_size", "number_of_sets",
					   "ways_of_associativity"};
	uint32_t *val[4] = {&c->level, &c->line_size, &c->sets, &c->ways};
	char path[PATH_MAX], buf[64];
	int n, i;

	n = snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d",
		     hws_sysfs_root(), cpu, idx);
	if (n < 0 || (size_t)n >= sizeof(path) - 32)
		return -ENAMETOOLONG;
	if (access(path, F_OK))
		return 1;
	for (i = 0; i < 4; i++) {
		snprintf(path + n, sizeof(path) - (size_t)n, "/%s", num[i]);
		if (hws_read_file(path, buf, sizeof(buf)) <= 0)
			return -ENOENT;
		*val[i] = (uint32_t)strtoul(buf, NULL, 10);
	}
	snprintf(path + n, sizeof(path) - (size_t)n, "/type");
	if (hws_read_file(path, c->type, sizeof(c->type)) <= 0)
		return -ENOENT;
	snprintf(path + n, sizeof(path) - (size_t)n, "/size");
	if (hws_read_file(path, c->size, sizeof(c->size)) <= 0)
		return -ENOENT;
	snprintf(path + n, sizeof(path) - (size_t)n, "/shared_cpu_list");
	if (hws_read_file(path, c->map, sizeof(c->map)) <= 0)
		return -ENOENT;
	return 0;
}

static int add_cache(struct hws_perf_writer *w, int nr_cpus)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	struct cache_desc *caches = NULL, c;
	uint32_t nr = 0, cap = 0, i, j;
	int err = 0, cpu, idx, r;

	for (cpu = 0; cpu < nr_cpus && cpu < MAX_LIST * 8; cpu++) {
		for (idx = 0; idx < CACHE_LEVELS; idx++) {
			memset(&c, 0, sizeof(c));
			r = cache_read(cpu, idx, &c);
			if (r == 1)
				break;
			if (r < 0)
				goto out; /* unreadable: leave the feature out, as perf does */
			for (i = 0; i < nr; i++)
				if (!memcmp(&caches[i], &c, sizeof(c)))
					break;
			if (i < nr)
				continue;
			if (nr == cap) {
				struct cache_desc *n;

				cap = cap ? cap * 2 : 16;
				n = realloc(caches, cap * sizeof(*caches));
				if (!n) {
					err = -ENOMEM;
					goto out;
				}
				caches = n;
			}
			/* stable insertion by level */
			for (j = nr; j > 0 && caches[j - 1].level > c.level; j--)
				caches[j] = caches[j - 1];
			caches[j] = c;
			nr++;
		}
	}
	if (!nr)
		goto out;
	err = hws__put_u32(&sb, 1);
	if (!err)
		err = hws__put_u32(&sb, nr);
	for (i = 0; !err && i < nr; i++) {
		err = hws__put_u32(&sb, caches[i].level);
		if (!err)
			err = hws__put_u32(&sb, caches[i].line_size);
		if (!err)
			err = hws__put_u32(&sb, caches[i].sets);
		if (!err)
			err = hws__put_u32(&sb, caches[i].ways);
		if (!err)
			err = hws__put_string(&sb, caches[i].type);
		if (!err)
			err = hws__put_string(&sb, caches[i].size);
		if (!err)
			err = hws__put_string(&sb, caches[i].map);
	}
	err = set_sb(w, HWS_FEAT_CACHE, &sb, err);
out:
	hws_strbuf__release(&sb);
	free(caches);
	return err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* PMU_MAPPINGS, PMU_CAPS and CPU_PMU_CAPS from the (possibly fake) sysfs PMU directory. */
static int add_pmus(struct hws_perf_writer *w)
{
	struct hws_strbuf map = HWS_STRBUF_INIT, caps = HWS_STRBUF_INIT, cpucaps = HWS_STRBUF_INIT;
	char dir[PATH_MAX], path[PATH_MAX + 512], buf[4096];
	char *names[MAX_LIST];
	uint32_t nr_map = 0, nr_caps_pmu = 0, n = 0;
	struct dirent *de;
	int err = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices", hws_sysfs_root());
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < MAX_LIST) {
		if (de->d_name[0] == '.')
			continue;
		names[n] = strdup(de->d_name);
		n += names[n] != NULL;
	}
	closedir(d);
	hws__qsort(names, n, sizeof(names[0]), cmp_str);

	err = hws__put_u32(&map, 0);
	if (!err)
		err = hws__put_u32(&caps, 0);
	for (uint32_t i = 0; !err && i < n; i++) {
		struct hws_strbuf one = HWS_STRBUF_INIT;
		uint32_t nrc = 0;
		DIR *cd;

		snprintf(path, sizeof(path), "%s/%s/type", dir, names[i]);
		if (hws_read_file(path, buf, sizeof(buf)) < 0)
			continue;
		err = hws__put_u32(&map, (uint32_t)strtoul(buf, NULL, 0));
		if (!err)
			err = hws__put_string(&map, names[i]);
		nr_map++;

		snprintf(path, sizeof(path), "%s/%s/caps", dir, names[i]);
		cd = opendir(path);
		if (!cd)
			continue;
		err = hws__put_u32(&one, 0);
		while (!err && (de = readdir(cd))) {
			char cpath[PATH_MAX * 2];

			if (de->d_name[0] == '.')
				continue;
			snprintf(cpath, sizeof(cpath), "%s/%s", path, de->d_name);
			if (hws_read_file(cpath, buf, sizeof(buf)) < 0)
				continue;
			err = hws__put_string(&one, de->d_name);
			if (!err)
				err = hws__put_string(&one, buf);
			nrc++;
		}
		closedir(cd);
		if (!err && nrc) {
			memcpy(one.buf, &nrc, 4);
			if (!strcmp(names[i], "cpu")) {
				err = hws_strbuf__add(&cpucaps, one.buf, one.len);
			} else {
				err = hws_strbuf__add(&caps, one.buf, one.len);
				if (!err)
					err = hws__put_string(&caps, names[i]);
				nr_caps_pmu++;
			}
		}
		hws_strbuf__release(&one);
	}
	if (!err && nr_map) {
		memcpy(map.buf, &nr_map, 4);
		err = hws_perf_writer__set_feature(w, HWS_FEAT_PMU_MAPPINGS, map.buf, map.len);
	}
	if (!err && nr_caps_pmu) {
		memcpy(caps.buf, &nr_caps_pmu, 4);
		err = hws_perf_writer__set_feature(w, HWS_FEAT_PMU_CAPS, caps.buf, caps.len);
	}
	if (!err && cpucaps.len)
		err = hws_perf_writer__set_feature(w, HWS_FEAT_CPU_PMU_CAPS, cpucaps.buf,
						   cpucaps.len);
	for (uint32_t i = 0; i < n; i++)
		free(names[i]);
	hws_strbuf__release(&map);
	hws_strbuf__release(&caps);
	hws_strbuf__release(&cpucaps);
	return err;
}

static int add_clock(struct hws_perf_writer *w, int clockid)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	struct timespec res, tod, ck;
	uint64_t res_ns;
	int err;

	if (clock_getres((clockid_t)clockid, &res))
		return -errno;
	res_ns = (uint64_t)res.tv_sec * 1000000000ULL + (uint64_t)res.tv_nsec;
	err = hws_perf_writer__set_feature(w, HWS_FEAT_CLOCKID, &res_ns, sizeof(res_ns));
	if (err)
		return err;
	if (clock_gettime(CLOCK_REALTIME, &tod) || clock_gettime((clockid_t)clockid, &ck))
		return 0;
	err = hws__put_u32(&sb, 1);
	if (!err)
		err = hws__put_u32(&sb, (uint32_t)clockid);
	if (!err)
		err =
		    hws__put_u64(&sb, (uint64_t)tod.tv_sec * 1000000000ULL + (uint64_t)tod.tv_nsec);
	if (!err)
		err = hws__put_u64(&sb, (uint64_t)ck.tv_sec * 1000000000ULL + (uint64_t)ck.tv_nsec);
	return set_sb(w, HWS_FEAT_CLOCK_DATA, &sb, err);
}

/* BUILD_ID: the running kernel's entry, as perf writes it (pid -1, misc KERNEL with the
 * id-size flag, the name padded to 64 bytes), so both tools find the kernel's kallsyms in
 * the build-id cache later. Nothing when the kernel shows no build-id. */
static int add_kernel_build_id(struct hws_perf_writer *w)
{
	uint8_t e[36 + 64] = {0};
	char hex[48];
	int n = hws__kernel_build_id(hex, sizeof(hex));
	uint16_t misc = PERF_RECORD_MISC_KERNEL | (1U << 15), size = sizeof(e);
	int32_t pid = -1;

	if (n <= 0 || n > 40)
		return 0;
	memcpy(e + 4, &misc, 2);
	memcpy(e + 6, &size, 2);
	memcpy(e + 8, &pid, 4);
	for (int i = 0; i < n / 2; i++)
		e[12 + i] = (uint8_t)strtoul((char[]){hex[2 * i], hex[2 * i + 1], 0}, NULL, 16);
	e[32] = (uint8_t)(n / 2);
	memcpy(e + 36, "[kernel.kallsyms]", sizeof("[kernel.kallsyms]"));
	return hws_perf_writer__set_feature(w, HWS_FEAT_BUILD_ID, e, sizeof(e));
}

int hws_perf_writer__add_host_features(struct hws_perf_writer *w, int argc, char *const *argv,
				       int clockid)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	char buf[4096], desc[256];
	struct utsname u;
	uint32_t nr[2];
	uint64_t mem;
	long onl;
	int err, max_cpu;

	if (!w)
		return -EINVAL;
	if (uname(&u))
		return -errno;
	err = hws_perf_writer__set_string(w, HWS_FEAT_HOSTNAME, u.nodename);
	if (!err)
		err = hws_perf_writer__set_string(w, HWS_FEAT_OSRELEASE, u.release);
	if (!err)
		err = hws_perf_writer__set_string(w, HWS_FEAT_VERSION, HWS_VERSION);
	if (!err)
		err = hws_perf_writer__set_string(w, HWS_FEAT_ARCH, u.machine);
	if (err)
		return err;

	/* NRCPUS: {nr_cpus_avail (max present + 1), nr_cpus_online} as perf writes it. */
	max_cpu = -1;
	if (hws_read_file("/sys/devices/system/cpu/present", buf, sizeof(buf)) > 0)
		max_cpu = cpulist_max(buf);
	onl = sysconf(_SC_NPROCESSORS_ONLN);
	nr[0] = max_cpu >= 0 ? (uint32_t)max_cpu + 1 : (uint32_t)(onl > 0 ? onl : 1);
	nr[1] = onl > 0 ? (uint32_t)onl : nr[0];
	err = hws_perf_writer__set_feature(w, HWS_FEAT_NRCPUS, nr, sizeof(nr));
	if (err)
		return err;

	if (!cpuinfo_field("model name", desc, sizeof(desc)) ||
	    !cpuinfo_field("Processor", desc, sizeof(desc)) ||
	    !cpuinfo_field("cpu model", desc, sizeof(desc)))
		err = hws_perf_writer__set_string(w, HWS_FEAT_CPUDESC, desc);
	if (!err && !host_cpuid(u.machine, buf, sizeof(buf)))
		err = hws_perf_writer__set_string(w, HWS_FEAT_CPUID, buf);
	if (!err && !total_mem_kb("/proc/meminfo", "MemTotal", &mem))
		err = hws_perf_writer__set_feature(w, HWS_FEAT_TOTAL_MEM, &mem, sizeof(mem));
	if (err)
		return err;

	if (argc > 0 && argv) {
		err = hws__put_u32(&sb, (uint32_t)argc);
		for (int i = 0; !err && i < argc; i++)
			err = hws__put_string(&sb, argv[i] ? argv[i] : "");
		err = set_sb(w, HWS_FEAT_CMDLINE, &sb, err);
		if (err)
			return err;
	}
	err = add_numa(w);
	if (!err)
		err = add_cpu_topology(w, (int)nr[0]);
	if (!err)
		err = add_cache(w, (int)nr[0]);
	if (!err)
		err = add_pmus(w);
	if (!err && clockid >= 0)
		err = add_clock(w, clockid);
	if (!err)
		err = add_kernel_build_id(w);
	return err;
}
