// SPDX-License-Identifier: MIT
/*
 * Run configuration files: libinih does the INI syntax, this file the meaning (see
 * include/hwsample/config.h).
 *
 * Invariants:
 *  - libinih's handler has no line number in Debian's build (INI_HANDLER_LINENO 0), so the
 *    file is fed through a reader that counts the lines it hands out: when the handler runs,
 *    the count is the line of the key being reported.
 *  - The first error wins and is the one reported; parsing stops calling into the config
 *    after it (the handler returns 0 for the rest).
 *  - Nothing here prints or opens perf events; errors go to the caller's buffer.
 *  - Only regular files, at most HWS_CONFIG_MAX_BYTES bytes, HWS_CONFIG_MAX_KEYS keys, and
 *    lines that fit inih's buffer reach libinih: a config can neither hang nor grow without
 *    bound, and every error names its line.
 */
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwsample/config.h>
#include <hwsample/session.h>

#include "util/internal.h"

/*
 * Bounds of a config file, checked before libinih sees it: its size, and the keys it sets
 * (every key is looked up among those already set, so the count bounds the time too).
 */
#define HWS_CONFIG_MAX_BYTES (1 << 20)
#define HWS_CONFIG_MAX_KEYS  4096

#define MAX_CPUS_CHECK 4096

const struct hws_config_key hws_config_run_keys[] = {
    {"backend", HWS_CFG_LIST, 0, 0, NULL, "-b", "auto, a backend, a PMU, or a list of them"},
    {"events", HWS_CFG_LIST, 0, 0, NULL, "-e", "events of a backend without a section"},
    {"period", HWS_CFG_UINT, 1, INT64_MAX, NULL, "-c/--count", "one sample every N events"},
    {"freq", HWS_CFG_UINT, 1, UINT32_MAX, NULL, "-F", "samples per second"},
    {"mode", HWS_CFG_ENUM, 0, 0, "default|per-thread|system-wide|cpus", "-a/-C/--per-thread",
     "default|per-thread|system-wide|cpus"},
    {"cpus", HWS_CFG_CPUS, 0, 0, NULL, "-C", "CPU list for mode = cpus (0-3,8)"},
    {"mmap_pages", HWS_CFG_UINT, 1, 1u << 20, NULL, "-m", "ring pages per CPU (power of two)"},
    {"aux_pages", HWS_CFG_UINT, 1, 1u << 22, NULL, "-m ,N", "AUX area pages (power of two)"},
    {"overwrite", HWS_CFG_BOOL, 0, 0, NULL, "--overwrite", "flight recorder (backward rings)"},
    {"snapshot", HWS_CFG_BOOL, 0, 0, NULL, "-S", "AUX snapshot mode (SIGUSR2 takes one)"},
    {"output", HWS_CFG_STRING, 0, 0, NULL, "-o", "output file ('-' = stdout)"},
    {"duration", HWS_CFG_SECONDS, 0, 0, NULL, "--duration", "stop after this many seconds"},
    {"data_addr", HWS_CFG_BOOL, 0, 0, NULL, "-d", "sample data addresses"},
    {"phys_data", HWS_CFG_BOOL, 0, 0, NULL, "--phys-data", "sample physical addresses"},
    {"inherit", HWS_CFG_BOOL, 0, 0, NULL, "--no-inherit", "follow children of the workload"},
    {"call_graph", HWS_CFG_STRING, 0, 0, NULL, "-g/--call-graph",
     "call chains: fp or dwarf[,SIZE] (as perf record)"},
    {.name = NULL},
};

const struct hws_config_key hws_config_backend_keys[] = {
    {"events", HWS_CFG_LIST, 0, 0, NULL, "-e", "the events (default: the backend's)"},
    {"period", HWS_CFG_UINT, 1, INT64_MAX, NULL, "-c", "sampling period for these events"},
    {"freq", HWS_CFG_UINT, 1, UINT32_MAX, NULL, "-F", "sampling frequency for these events"},
    {"pmu", HWS_CFG_STRING, 0, 0, NULL, "-b", "PMU, in a section named after a backend"},
    {.name = NULL},
};

static void seterr(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

struct hws_config *hws_config__new(void)
{
	return calloc(1, sizeof(struct hws_config));
}

static void free_section(struct hws_config_section *s)
{
	for (int i = 0; i < s->nr_items; i++) {
		free(s->items[i].key);
		free(s->items[i].value);
		free(s->items[i].origin);
	}
	free(s->items);
	free(s->name);
}

void hws_config__delete(struct hws_config *cfg)
{
	if (!cfg)
		return;
	for (int i = 0; i < cfg->nr_sections; i++)
		free_section(&cfg->sections[i]);
	free(cfg->sections);
	free(cfg->path);
	free(cfg);
}

static struct hws_config_section *find_section(const struct hws_config *cfg, const char *name)
{
	for (int i = 0; i < cfg->nr_sections; i++)
		if (!strcmp(cfg->sections[i].name, name))
			return &cfg->sections[i];
	return NULL;
}

static struct hws_config_section *add_section(struct hws_config *cfg, const char *name, int line)
{
	struct hws_config_section *s = find_section(cfg, name), *n;

	if (s)
		return s;
	n = realloc(cfg->sections, (cfg->nr_sections + 1) * sizeof(*n));
	if (!n)
		return NULL;
	cfg->sections = n;
	s = &cfg->sections[cfg->nr_sections];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	if (!s->name)
		return NULL;
	s->line = line;
	cfg->nr_sections++;
	return s;
}

static struct hws_config_item *find_item(const struct hws_config_section *s, const char *key)
{
	for (int i = 0; s && i < s->nr_items; i++)
		if (!strcmp(s->items[i].key, key))
			return &s->items[i];
	return NULL;
}

static int add_item(struct hws_config_section *s, const char *key, const char *value,
		    const char *origin, int line)
{
	struct hws_config_item *it = find_item(s, key), *n;
	char *v = strdup(value), *o = strdup(origin);

	if (!v || !o)
		goto err_out;
	if (!it) {
		n = realloc(s->items, (s->nr_items + 1) * sizeof(*n));
		if (!n)
			goto err_out;
		s->items = n;
		it = &s->items[s->nr_items];
		memset(it, 0, sizeof(*it));
		it->key = strdup(key);
		if (!it->key)
			goto err_out;
		s->nr_items++;
	}
	free(it->value);
	free(it->origin);
	it->value = v;
	it->origin = o;
	it->line = line;
	return 0;
err_out:
	free(v);
	free(o);
	return -ENOMEM;
}

int hws_config__set(struct hws_config *cfg, const char *section, const char *key, const char *value,
		    const char *origin)
{
	struct hws_config_section *s = add_section(cfg, section, 0);

	if (!s)
		return -ENOMEM;
	return add_item(s, key, value, origin, 0);
}

void hws_config__unset(struct hws_config *cfg, const char *section, const char *key)
{
	struct hws_config_section *s = find_section(cfg, section);
	struct hws_config_item *it = find_item(s, key);

	if (!it)
		return;
	free(it->key);
	free(it->value);
	free(it->origin);
	memmove(it, it + 1, (size_t)(&s->items[s->nr_items] - (it + 1)) * sizeof(*it));
	s->nr_items--;
}

const struct hws_config_section *hws_config__section(const struct hws_config *cfg, const char *name)
{
	return find_section(cfg, name);
}

const struct hws_config_item *hws_config__get(const struct hws_config *cfg, const char *section,
					      const char *key)
{
	return find_item(find_section(cfg, section), key);
}

/* ---- typed values ---- */

int hws_config__uint(const struct hws_config_item *it, uint64_t min, uint64_t max, uint64_t *out,
		     char *err, size_t errlen)
{
	const char *s = it->value;
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+') {
		seterr(err, errlen, "%s: %s = '%s': expected a whole number %llu..%llu", it->origin,
		       it->key, s, (unsigned long long)min, (unsigned long long)max);
		return HWS_E_BAD_CONFIG;
	}
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end) {
		seterr(err, errlen, "%s: %s = '%s': expected a whole number %llu..%llu", it->origin,
		       it->key, s, (unsigned long long)min, (unsigned long long)max);
		return HWS_E_BAD_CONFIG;
	}
	if (v < min || v > max) {
		seterr(err, errlen, "%s: %s = %s: out of range, valid %llu..%llu", it->origin,
		       it->key, s, (unsigned long long)min, (unsigned long long)max);
		return HWS_E_BAD_CONFIG;
	}
	*out = v;
	return 0;
}

int hws_config__bool(const struct hws_config_item *it, bool *out, char *err, size_t errlen)
{
	static const char *const yes[] = {"1", "true", "yes", "on"};
	static const char *const no[] = {"0", "false", "no", "off"};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(it->value, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(it->value, no[i])) {
			*out = false;
			return 0;
		}
	}
	seterr(err, errlen, "%s: %s = '%s': expected true or false (also yes/no, on/off, 1/0)",
	       it->origin, it->key, it->value);
	return HWS_E_BAD_CONFIG;
}

int hws_config__seconds(const struct hws_config_item *it, double *out, char *err, size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(it->value, &end);
	if (errno || end == it->value || *end || !isfinite(v) || v <= 0 || v > 31536000) {
		seterr(err, errlen,
		       "%s: %s = '%s': expected a number of seconds > 0 (e.g. 10 or "
		       "2.5), at most 31536000",
		       it->origin, it->key, it->value);
		return HWS_E_BAD_CONFIG;
	}
	*out = v;
	return 0;
}

static const struct hws_config_key *find_key(const struct hws_config_key *tab, const char *name)
{
	for (; tab->name; tab++)
		if (!strcmp(tab->name, name))
			return tab;
	return NULL;
}

static void key_names(const struct hws_config_key *tab, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (; tab->name && off < len; tab++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", tab->name);
}

/* Type check of one item against its key description. */
static int check_value(const struct hws_config_key *k, const struct hws_config_item *it, char *err,
		       size_t errlen)
{
	uint64_t u;
	bool b;
	double d;

	switch (k->type) {
	case HWS_CFG_STRING:
	case HWS_CFG_LIST:
		if (!*it->value) {
			seterr(err, errlen, "%s: %s has no value (%s)", it->origin, it->key,
			       k->help);
			return HWS_E_BAD_CONFIG;
		}
		return 0;
	case HWS_CFG_UINT:
		return hws_config__uint(it, k->min, k->max, &u, err, errlen);
	case HWS_CFG_BOOL:
		return hws_config__bool(it, &b, err, errlen);
	case HWS_CFG_SECONDS:
		return hws_config__seconds(it, &d, err, errlen);
	case HWS_CFG_ENUM: {
		const char *c = k->choices;
		size_t l = strlen(it->value);
		while (c && *c) {
			const char *bar = strchr(c, '|');
			size_t cl = bar ? (size_t)(bar - c) : strlen(c);
			if (cl == l && !strncmp(c, it->value, l))
				return 0;
			c = bar ? bar + 1 : NULL;
		}
		seterr(err, errlen, "%s: %s = '%s': valid values: %s", it->origin, it->key,
		       it->value, k->choices);
		return HWS_E_BAD_CONFIG;
	}
	case HWS_CFG_CPUS: {
		int *cpus = malloc(MAX_CPUS_CHECK * sizeof(int));
		int n;
		if (!cpus)
			return -ENOMEM;
		n = hws_cpu_list__parse(it->value, cpus, MAX_CPUS_CHECK);
		free(cpus);
		if (n <= 0) {
			seterr(err, errlen, "%s: %s = '%s': not a CPU list (e.g. 0-3,8)",
			       it->origin, it->key, it->value);
			return HWS_E_BAD_CONFIG;
		}
		return 0;
	}
	}
	return 0;
}

/* ---- loading ---- */

struct load_ctx {
	struct hws_config *cfg;
	FILE *f;
	int line;     /* lines handed to inih so far */
	size_t bytes; /* bytes read so far */
	int nr_items; /* keys set by the file so far */
	int err;
	int err_line; /* line of the first error seen by the handler */
	char *errbuf;
	size_t errlen;
};

/* Section headers are noted here, where the line number is exact and empty sections are
 * seen too (Debian's inih does not call the handler for a bare [header]). */
static void note_header(struct load_ctx *c, const char *line)
{
	const char *p = line, *end;
	char name[64];
	struct hws_config_section *s;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '[' || c->err)
		return;
	end = strchr(p, ']');
	if (!end)
		return; /* inih reports the syntax error */
	p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	snprintf(name, sizeof(name), "%.*s", (int)(end - p), p);
	s = find_section(c->cfg, name);
	if (s) {
		seterr(c->errbuf, c->errlen,
		       "%s:%d: section [%s] appears twice (first at line %d): "
		       "merge them",
		       c->cfg->path, c->line, name, s->line);
		c->err = HWS_E_BAD_CONFIG;
		c->err_line = c->line;
		return;
	}
	if (!add_section(c->cfg, name, c->line))
		c->err = -ENOMEM;
}

/*
 * Lines to inih, whole: a line longer than inih's buffer (@num) would reach it in pieces, each
 * parsed as a line of its own with the wrong line number; it is an error here, naming the
 * line. A UTF-8 byte-order mark at the start of the file is dropped (before note_header()
 * and inih see the line, so both name the same section). The file's size was checked when it
 * was opened; the bytes read are counted too (a file that grows while it is read).
 */
static char *reader(char *str, int num, void *stream)
{
	struct load_ctx *c = stream;
	char *r;
	size_t l;

	if (c->err)
		return NULL; /* the first error wins: stop reading */
	r = fgets(str, num, c->f);
	if (!r)
		return NULL;
	l = strlen(r);
	c->bytes += l;
	c->line++;
	if (l && r[l - 1] != '\n' && !feof(c->f) && l + 1 >= (size_t)num) {
		seterr(c->errbuf, c->errlen,
		       "%s:%d: line longer than %d bytes: split the value or shorten it",
		       c->cfg->path, c->line, num - 2);
		c->err = HWS_E_BAD_CONFIG;
		c->err_line = c->line;
		return NULL;
	}
	if (c->bytes > HWS_CONFIG_MAX_BYTES) {
		seterr(c->errbuf, c->errlen, "%s:%d: config file larger than %d bytes",
		       c->cfg->path, c->line, HWS_CONFIG_MAX_BYTES);
		c->err = HWS_E_BAD_CONFIG;
		c->err_line = c->line;
		return NULL;
	}
	if (c->line == 1 && l >= 3 && !memcmp(r, "\xef\xbb\xbf", 3))
		memmove(r, r + 3, l - 2); /* with its NUL */
	note_header(c, r);
	return r;
}

static int handle(struct load_ctx *c, const char *section, const char *name, const char *value);

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct load_ctx *c = user;
	int had = c->err, ret = handle(c, section, name, value);

	if (!had && c->err)
		c->err_line = c->line;
	return ret;
}

static int handle(struct load_ctx *c, const char *section, const char *name, const char *value)
{
	struct hws_config_section *s;
	char origin[4200];
	int line = c->line;

	if (c->err)
		return 0;
	snprintf(origin, sizeof(origin), "%s:%d", c->cfg->path, line);
	if (!*section) {
		seterr(c->errbuf, c->errlen,
		       "%s: '%s' is outside any section: put it under [run] "
		       "or a backend section such as [ibs_op]",
		       origin, name ? name : "");
		c->err = HWS_E_BAD_CONFIG;
		return 0;
	}
	s = find_section(c->cfg, section);
	if (!s)
		s = add_section(c->cfg, section, line); /* a header note_header() did not see */
	if (!s) {
		c->err = -ENOMEM;
		return 0;
	}
	if (!name)
		return 1;
	if (++c->nr_items > HWS_CONFIG_MAX_KEYS) {
		seterr(c->errbuf, c->errlen,
		       "%s: more than %d keys in one config file: this is not a run "
		       "configuration (see cfg/*.conf)",
		       origin, HWS_CONFIG_MAX_KEYS);
		c->err = HWS_E_BAD_CONFIG;
		return 0;
	}
	if (find_item(s, name)) {
		const struct hws_config_item *it = find_item(s, name);
		seterr(c->errbuf, c->errlen,
		       "%s: %s is set twice in [%s] (first at %s); a value "
		       "continued on an indented line counts as twice too",
		       origin, name, section, it->origin);
		c->err = HWS_E_BAD_CONFIG;
		return 0;
	}
	if (!strcmp(section, "run")) {
		const struct hws_config_key *k = find_key(hws_config_run_keys, name);
		struct hws_config_item tmp = {
		    .key = (char *)name, .value = (char *)value, .origin = origin, .line = line};
		if (!k) {
			char names[512];
			key_names(hws_config_run_keys, names, sizeof(names));
			seterr(c->errbuf, c->errlen,
			       "%s: unknown key '%s' in [run]; valid keys: %s", origin, name,
			       names);
			c->err = HWS_E_BAD_CONFIG;
			return 0;
		}
		c->err = check_value(k, &tmp, c->errbuf, c->errlen);
		if (c->err)
			return 0;
	} else {
		const struct hws_config_key *k = find_key(hws_config_backend_keys, name);
		struct hws_config_item tmp = {
		    .key = (char *)name, .value = (char *)value, .origin = origin, .line = line};
		if (k) {
			c->err = check_value(k, &tmp, c->errbuf, c->errlen);
			if (c->err)
				return 0;
		}
	}
	if (add_item(s, name, value, origin, line)) {
		c->err = -ENOMEM;
		return 0;
	}
	return 1;
}

static const char *file_kind(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a regular file";
}

/* @path opened for reading if it is a regular file that is not empty; NULL with @err set.
 * O_NONBLOCK: opening a FIFO with no writer must not hang before the check. */
static FILE *open_config(const char *path, char *err, size_t errlen, int *ret)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	FILE *f;

	if (fd < 0 || fstat(fd, &st)) {
		*ret = -errno;
		seterr(err, errlen, "cannot read config file %s: %s", path, strerror(-*ret));
		goto err_out;
	}
	*ret = HWS_E_BAD_CONFIG;
	if (!S_ISREG(st.st_mode)) {
		seterr(err, errlen,
		       "%s: %s, not a config file (an INI file such as "
		       "cfg/cpu-profile.conf)",
		       path, file_kind(st.st_mode));
		goto err_out;
	}
	if (st.st_size > HWS_CONFIG_MAX_BYTES) {
		seterr(err, errlen,
		       "%s: %lld bytes, larger than a config file can be (%d bytes): "
		       "not a config file",
		       path, (long long)st.st_size, HWS_CONFIG_MAX_BYTES);
		goto err_out;
	}
	if (st.st_size == 0) {
		seterr(err, errlen,
		       "%s: the config file is empty: it needs a [run] or backend "
		       "section (see cfg/*.conf)",
		       path);
		goto err_out;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	f = fdopen(fd, "re");
	if (!f) {
		*ret = -errno;
		seterr(err, errlen, "cannot read config file %s: %s", path, strerror(-*ret));
		goto err_out;
	}
	return f;
err_out:
	if (fd >= 0)
		close(fd);
	return NULL;
}

int hws_config__load(struct hws_config *cfg, const char *path, char *err, size_t errlen)
{
	struct load_ctx c = {.cfg = cfg, .errbuf = err, .errlen = errlen};
	int ret, nsec = cfg->nr_sections;

	free(cfg->path);
	cfg->path = strdup(path);
	if (!cfg->path)
		return -ENOMEM;
	c.f = open_config(path, err, errlen, &ret);
	if (!c.f)
		return ret;
	ret = ini_parse_stream(reader, &c, handler, &c);
	fclose(c.f);
	if (c.err && (ret <= 0 || c.err_line <= ret))
		return c.err;
	if (ret > 0) {
		seterr(err, errlen,
		       "%s:%d: not INI syntax: expected [section], key = value, or a "
		       "comment starting with # or ;",
		       path, ret);
		return HWS_E_BAD_CONFIG;
	}
	if (ret < 0) {
		seterr(err, errlen, "%s: cannot parse (%s)", path,
		       ret == -2 ? "out of memory" : "read error");
		return ret == -2 ? -ENOMEM : -EIO;
	}
	if (cfg->nr_sections == nsec) {
		seterr(err, errlen,
		       "%s: the config file has no section (only comments or blank "
		       "lines): it needs a [run] or backend section (see cfg/*.conf)",
		       path);
		return HWS_E_BAD_CONFIG;
	}
	return 0;
}

/* ---- validation against the backends ---- */

bool hws_config__is_backend_key(const char *key)
{
	return find_key(hws_config_backend_keys, key) != NULL;
}

static void control_names(const struct hws_control_info *ci, int n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", ci[i].name);
	if (!n)
		snprintf(buf, len, "none");
}

static int validate_section(const struct hws_config_section *s, const struct hws_registry *reg,
			    const char *path, char *err, size_t errlen)
{
	struct hws_backend *b = hws_registry__find(reg, s->name);
	const struct hws_config_item *pmu_it = find_item(s, "pmu");
	const char *pmu = NULL;
	struct hws_control_info ci[64];
	char names[1024];
	int n = -1;

	if (!b) {
		char all[1024];
		size_t off = 0;
		all[0] = 0;
		for (int i = 0; i < hws_registry__count(reg) && off < sizeof(all); i++) {
			const struct hws_backend_ops *o = hws_registry__at(reg, i)->ops;
			off += (size_t)snprintf(all + off, sizeof(all) - off, ", %s", o->name);
			for (const char *const *p = o->pmus; p && *p && off < sizeof(all); p++)
				if (strcmp(*p, o->name))
					off += (size_t)snprintf(
					    all + off, sizeof(all) - off, ", %s%s", *p,
					    (*p)[strlen(*p) - 1] == '_' ? "N" : "");
		}
		seterr(err, errlen, "%s:%d: unknown section [%s]; valid sections: run%s", path,
		       s->line, s->name, all);
		return HWS_E_BAD_CONFIG;
	}
	if (strcmp(s->name, b->ops->name))
		pmu = s->name;
	if (pmu_it) {
		if (pmu && strcmp(pmu_it->value, pmu)) {
			seterr(err, errlen, "%s: pmu = %s contradicts the section name [%s]",
			       pmu_it->origin, pmu_it->value, s->name);
			return HWS_E_BAD_CONFIG;
		}
		if (!hws_backend__serves(b, pmu_it->value) ||
		    !strcmp(pmu_it->value, b->ops->name)) {
			char pm[256] = "";
			size_t off = 0;
			for (const char *const *p = b->ops->pmus; p && *p && off < sizeof(pm); p++)
				off += (size_t)snprintf(pm + off, sizeof(pm) - off, "%s%s",
							off ? ", " : "", *p);
			seterr(err, errlen, "%s: pmu = %s is not a PMU of %s; valid: %s",
			       pmu_it->origin, pmu_it->value, b->ops->name, pm);
			return HWS_E_BAD_CONFIG;
		}
		pmu = pmu_it->value;
	}
	if (b->ops->controls) {
		char why[256];
		n = b->ops->controls(b->priv, pmu, ci, 64);
		/* a PMU this machine lacks may list nothing: its controls are unknown here, not
		 * absent (the section is for another machine) */
		if (n <= 0 && b->ops->detect(b->priv, why, sizeof(why)) <= 0)
			n = -1;
	}
	if (n > 64)
		n = 64;
	for (int i = 0; i < s->nr_items; i++) {
		const struct hws_config_item *it = &s->items[i];
		const struct hws_control_info *c = NULL;
		uint64_t v;
		int ret;

		if (hws_config__is_backend_key(it->key))
			continue;
		if (n < 0)
			continue; /* the backend cannot list them: its encode() judges */
		size_t kl = strlen(it->key);
		bool optional = kl > 1 && it->key[kl - 1] == '?';
		for (int k = 0; k < n; k++)
			if (!strncmp(ci[k].name, it->key, optional ? kl - 1 : kl) &&
			    strlen(ci[k].name) == (optional ? kl - 1 : kl))
				c = &ci[k];
		if (!c && optional)
			continue; /* "key? = v": only where the PMU has the control */
		if (!c) {
			char bk[256];
			key_names(hws_config_backend_keys, bk, sizeof(bk));
			control_names(ci, n, names, sizeof(names));
			seterr(err, errlen,
			       "%s: %s (PMU %s) has no control '%s'; valid: %s (and %s)",
			       it->origin, b->ops->name, pmu ? pmu : "default", it->key, names, bk);
			return HWS_E_UNKNOWN_CONTROL;
		}
		ret = hws_config__uint(it, c->min, c->max, &v, err, errlen);
		if (ret) {
			size_t l = strlen(err);
			if (l < errlen)
				snprintf(err + l, errlen - l, " (%s)", c->help);
			return HWS_E_CONTROL_RANGE;
		}
	}
	return 0;
}

int hws_config__validate(const struct hws_config *cfg, const struct hws_registry *reg, char *err,
			 size_t errlen)
{
	const char *path = cfg->path ? cfg->path : "(command line)";

	for (int i = 0; i < cfg->nr_sections; i++) {
		const struct hws_config_section *s = &cfg->sections[i];
		int ret;

		if (!strcmp(s->name, "run"))
			continue;
		ret = validate_section(s, reg, path, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}
