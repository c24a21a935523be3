// SPDX-License-Identifier: MIT
/*
 * core/symbols: kernel symbols from a kallsyms file (see symbols_int.h and
 * include/hwsample/symbols.h: hws_symbols__use_kallsyms_copy()). Its first bytes are read
 * when it is named, to tell whether its addresses show; the rest (~6 MB of text) at the
 * first kernel lookup, or instead perf's build-id cache copy of it when that copy still
 * matches the running kernel (same first bytes, same modules where they are now).
 *
 * Invariants:
 *  - at most KALLSYMS_MAX bytes are read; the parsed symbols point into that text;
 *  - a kallsyms whose addresses are all 0 (kptr_restrict) names nothing (-EPERM);
 *  - the kernel's symbols are moved once to where the recording saw the kernel (KASLR),
 *    when both the kallsyms and the recording's reference are known; module symbols are
 *    dropped then rather than named wrongly;
 *  - the kallsyms dso is DSO_SPECIAL: never unloaded by the LRU of ELF files.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/ksyms_line.h"
#include "symbols/symbols_int.h"
#include "util/internal.h"

#define KALLSYMS_MAX   (256u << 20) /* bytes read at most (/proc/kallsyms is ~6 MB) */
#define KALLSYMS_PROBE (64u << 10)  /* read at once to check the addresses */

/* Read @fd into *buf (NUL-terminated, grown as needed) until EOF or @limit bytes, in large
 * chunks: /proc/kallsyms reports a 1 KiB block size, and stdio would read it 1 KiB per
 * system call. *eof tells whether the end was reached. */
static int read_more(int fd, char **buf, size_t *len, size_t *alloc, size_t limit, bool *eof)
{
	char *nb;
	ssize_t n;

	*eof = false;
	while (*len < limit) {
		if (*alloc - *len < (64u << 10) + 1) {
			size_t na = *alloc ? *alloc * 2 : KALLSYMS_PROBE * 2;

			if (*alloc >= KALLSYMS_MAX) {
				*eof = true; /* bounded: the rest is not read */
				break;
			}
			nb = realloc(*buf, na);
			if (!nb)
				return -ENOMEM;
			*buf = nb;
			*alloc = na;
		}
		n = read(fd, *buf + *len, *alloc - *len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n) {
			*eof = true;
			break;
		}
		*len += (size_t)n;
	}
	(*buf)[*len] = 0;
	return 0;
}

/* any kept symbol with a non-zero address in the complete lines of @buf */
static bool kallsyms_nonzero(char *buf, size_t len)
{
	char *end = memrchr(buf, '\n', len), *name, *ne, type;
	uint64_t a;

	for (char *p = buf; end && p < end; p++) {
		if (ksyms_line(p, end, &a, &type, &name, &ne) && a)
			return true;
		p = memchr(p, '\n', (size_t)(end - p) + 1);
		if (!p)
			break;
	}
	return false;
}

/*
 * Move the kernel's symbols to where the recording saw the kernel: a kallsyms taken in
 * another boot (KASLR) or perf's cached copy lists the kernel at another base. The
 * difference is that of the reference symbol named by the file's kernel MMAP (perf and
 * hwsample write "[kernel.kallsyms]_text" with _text's address as pgoff). Modules load at
 * addresses of their own in each boot: with a difference, their symbols are dropped (their
 * addresses stay "[kernel]") rather than named wrongly. Done once per kallsyms, when both
 * the kallsyms and the reference are known, whichever comes last.
 */
static void ks_relocate(struct hws_symbols *s)
{
	struct dso *d = s->kallsyms;
	uint64_t ref = 0, delta;
	size_t n = 0;

	if (!d || s->ks_relocated || !s->kref_addr)
		return;
	s->ks_relocated = true;
	if (!strcmp(s->kref_name, "_text"))
		ref = s->ks_text;
	else if (!strcmp(s->kref_name, "_stext"))
		ref = s->ks_stext;
	if (!ref) {
		pr_debug("symbols: kallsyms has no %s: kernel symbols not checked for KASLR\n",
			 s->kref_name);
		return;
	}
	delta = s->kref_addr - ref;
	if (!delta)
		return;
	pr_info("symbols: the recording's kernel lies %s0x%" PRIx64 " bytes from this kallsyms "
		"(another boot, KASLR): kernel symbols moved by that, module symbols dropped\n",
		(int64_t)delta < 0 ? "-" : "+", (int64_t)delta < 0 ? -delta : delta);
	for (size_t i = 0; i < d->nr_syms; i++) {
		struct sym y = d->syms[i];

		if (y.module)
			continue;
		y.start += delta;
		y.size = 0; /* sizes are the distances to the next symbol: worked out again */
		d->syms[n++] = y;
	}
	d->nr_syms = n;
	d->last[0] = d->last[1] = NULL;
	dso__finish_syms(d, 4096, true); /* sorts again if the move wrapped around */
	new_gen(s);
}

void kallsyms__kernel_ref(struct hws_symbols *s, const char *name, uint64_t addr)
{
	size_t n = strlen(name);

	if (!n || !addr || s->kref_addr || n >= sizeof(s->kref_name))
		return;
	memcpy(s->kref_name, name, n + 1);
	s->kref_addr = addr;
	ks_relocate(s);
}

/* The symbol table of the text in @buf (taken over: names point into it, cut with NULs). */
static int kallsyms_parse(struct hws_symbols *s, char *buf, size_t len)
{
	bool nonzero = false;
	size_t cap = 0;
	struct dso *d;
	int err;

	d = calloc(1, sizeof(*d));
	if (!d) {
		free(buf);
		return -ENOMEM;
	}
	d->fd = d->dbg_fd = -1;
	d->path = strdup("[kernel.kallsyms]");
	d->names = buf;
	d->names_len = len;
	err = d->path ? 0 : -ENOMEM;
	/* about one symbol per 36 bytes of text (44 on a 6.18 kernel): one allocation */
	cap = len / 36 + 1024;
	d->syms = hws__huge_alloc(cap * sizeof(*d->syms));
	if (!d->syms)
		cap = 0;
	for (char *p = buf, *end = buf + len; !err && p < end; p++) {
		char *name, *ne, type;
		struct sym *y;
		uint64_t a;
		bool nl, module;

		if (!ksyms_line(p, end, &a, &type, &name, &ne)) {
			p = memchr(p, '\n', (size_t)(end - p));
			if (!p)
				break;
			continue;
		}
		nl = ne < end && *ne == '\n';
		module = ne + 1 < end && *ne == '\t' && ne[1] == '[';
		*ne = 0; /* buf[len] is already 0 */
		if (a)
			nonzero = true;
		if (!module && (type == 'T' || type == 't') && ne - name <= 6 && name[0] == '_') {
			if (ne - name == 5 && !memcmp(name, "_text", 5))
				s->ks_text = a;
			else if (ne - name == 6 && !memcmp(name, "_stext", 6))
				s->ks_stext = a;
		}
		if (d->nr_syms >= MAX_SYMS)
			break;
		if (d->nr_syms == cap) {
			size_t nc = cap ? cap * 2 : 4096;
			y = realloc(d->syms, nc * sizeof(*y));
			if (!y) {
				err = -ENOMEM;
				break;
			}
			d->syms = y;
			cap = nc;
		}
		y = &d->syms[d->nr_syms++];
		y->start = a;
		y->size = 0;
		y->kind =
		    (type | 0x20) == 't' || (type | 0x20) == 'w' ? HWS_SYM_FUNC : HWS_SYM_OBJECT;
		y->bind_rank = (type | 0x20) == 'w'	      ? SYM_BIND_WEAK
			       : isupper((unsigned char)type) ? SYM_BIND_GLOBAL
							      : SYM_BIND_LOCAL;
		y->module = module;
		y->name = (uint32_t)(name - buf);
		p = nl ? ne : memchr(ne, '\n', (size_t)(end - ne));
		if (!p)
			break;
	}
	if (!err && !nonzero)
		err = -EPERM; /* kptr_restrict: all addresses are 0 */
	if (err) {
		dso__free(d);
		return err;
	}
	dso__finish_syms(d, 4096, true);
	d->state = DSO_SPECIAL; /* never unloaded by the LRU */
	s->kallsyms = d;
	ks_relocate(s);
	return 0;
}

void kallsyms__drop(struct hws_symbols *s)
{
	if (s->kallsyms)
		dso__free(s->kallsyms);
	s->kallsyms = NULL;
	if (s->ks_fd >= 0)
		close(s->ks_fd);
	s->ks_fd = -1;
	free(s->ks_buf);
	s->ks_buf = NULL;
	s->ks_len = s->ks_alloc = 0;
	free(s->ks_copy);
	free(s->ks_modules);
	s->ks_copy = s->ks_modules = NULL;
	s->ks_probe = 0;
	s->ks_text = s->ks_stext = 0;
	s->ks_relocated = false;
}

#define MAX_MODULES 8192

int hws__read_modules(const char *path, struct hws_kmod **out)
{
	struct hws_kmod *m = NULL;
	char line[1024];
	int n = 0, cap = 0;
	FILE *f;

	*out = NULL;
	if (!path)
		return 0;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -1;
	while (fgets(line, sizeof(line), f)) {
		char name[64], state[32];
		unsigned long long size, base;

		if (sscanf(line, "%63s %llu %*s %*s %31s %llx", name, &size, state, &base) != 4 ||
		    !base || n >= MAX_MODULES) {
			n = -1; /* kptr_restrict shows 0x0000000000000000 */
			break;
		}
		if (n == cap) {
			struct hws_kmod *nm = realloc(m, (size_t)(cap ? cap * 2 : 64) * sizeof(*m));

			if (!nm) {
				n = -1;
				break;
			}
			m = nm;
			cap = cap ? cap * 2 : 64;
		}
		snprintf(m[n].name, sizeof(m[n].name), "%s", name);
		m[n].base = base;
		m[n].size = size;
		m[n].seen = false;
		n++;
	}
	fclose(f);
	if (n < 0)
		free(m);
	else
		*out = m;
	return n;
}

/*
 * Whether the module symbols of the kallsyms text @buf are exactly those of the modules
 * @modules lists, each inside its module: a kernel's own symbols never move while it runs,
 * module symbols come and go with the modules. BPF programs ("[bpf]") are not listed
 * anywhere cheaper than kallsyms itself, so a copy that has any cannot be proven current.
 * The kernel's generated trampolines ("[__builtin__ftrace]", "[__builtin__kprobes]": one
 * name for every page, kernels without /proc/modules have them too) are accepted when they
 * lie outside every listed module: they cannot shadow a module's symbols, and the copy,
 * made when the file was recorded, lists the trampolines its samples ran in.
 */
#define BUILTIN_TAG	"__builtin__"
#define BUILTIN_TAG_LEN (sizeof(BUILTIN_TAG) - 1)

static bool in_module(const struct hws_kmod *m, int n, uint64_t a)
{
	for (int k = 0; k < n; k++)
		if (a >= m[k].base && a - m[k].base < m[k].size)
			return true;
	return false;
}

static bool modules_match(const char *buf, size_t len, const char *modules)
{
	const char *end = buf + len, *p = buf;
	struct hws_kmod *m;
	int n = hws__read_modules(modules, &m), last = 0;
	bool ok = n >= 0;

	while (ok && (p = memchr(p, '\t', (size_t)(end - p)))) {
		const char *ls = p, *tag = p + 1, *te;
		char *name, *ne, type;
		uint64_t a;
		int k;

		while (ls > buf && ls[-1] != '\n')
			ls--;
		te = tag < end && *tag == '[' ? memchr(tag, ']', (size_t)(end - tag)) : NULL;
		if (!te || !ksyms_line((char *)ls, (char *)end, &a, &type, &name, &ne)) {
			p++; /* not a symbol of a kept type: its address does not matter */
			continue;
		}
		tag++;
		if ((size_t)(te - tag) > BUILTIN_TAG_LEN &&
		    !memcmp(tag, BUILTIN_TAG, BUILTIN_TAG_LEN)) {
			ok = !in_module(m, n, a);
			p = te;
			continue;
		}
		for (k = 0; k < n; k++) { /* a module's lines come together: start at the last */
			const struct hws_kmod *x = &m[(last + k) % n];

			if (strlen(x->name) == (size_t)(te - tag) &&
			    !memcmp(x->name, tag, (size_t)(te - tag)))
				break;
		}
		if (k == n) {
			ok = false; /* a tag /proc/modules does not list */
			break;
		}
		last = (last + k) % n;
		if (a < m[last].base || a - m[last].base >= m[last].size)
			ok = false;
		m[last].seen = true;
		p = te;
	}
	for (int k = 0; ok && k < n; k++)
		ok = m[k].seen;
	free(m);
	return ok;
}

/* Read the copy whole; keep it (and close the live file) if it still starts with the
 * bytes the live file showed and its modules match. */
static bool kallsyms_take_copy(struct hws_symbols *s)
{
	char *buf = NULL;
	size_t len = 0, alloc = 0;
	bool eof, ok = false;
	int fd = open(s->ks_copy, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;

	/* a regular file: its size at once (read_more() wants 64 KiB spare to read on),
	 * in huge pages where it can (util/mem.c) */
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < KALLSYMS_MAX) {
		alloc = (size_t)st.st_size + (64u << 10) + 1;
		buf = hws__huge_alloc(alloc);
		if (!buf)
			alloc = 0;
	}
	if (fd >= 0 && !read_more(fd, &buf, &len, &alloc, KALLSYMS_MAX, &eof) && eof &&
	    len >= s->ks_probe && !memcmp(buf, s->ks_buf, s->ks_probe))
		ok = modules_match(buf, len, s->ks_modules);
	if (fd >= 0)
		close(fd);
	pr_debug("symbols: kernel names from %s: %s\n", ok ? s->ks_copy : "the running kernel",
		 ok ? "the same addresses as the running kernel"
		    : "the copy does not match the running kernel's modules or text");
	if (!ok) {
		free(buf);
		return false;
	}
	free(s->ks_buf);
	s->ks_buf = buf;
	s->ks_len = len;
	s->ks_alloc = alloc;
	close(s->ks_fd);
	s->ks_fd = -1;
	return true;
}

/* the rest of a deferred kallsyms file, at the first kernel lookup; names stay off if it
 * cannot be read */
void kallsyms__finish(struct hws_symbols *s)
{
	bool eof;
	int err = 0;

	if (!s->ks_copy || !kallsyms_take_copy(s)) {
		err = read_more(s->ks_fd, &s->ks_buf, &s->ks_len, &s->ks_alloc, SIZE_MAX, &eof);
		close(s->ks_fd);
		s->ks_fd = -1;
	}
	if (!err) {
		err = kallsyms_parse(s, s->ks_buf, s->ks_len); /* takes the buffer */
		s->ks_buf = NULL;
	}
	if (err) {
		pr_debug("symbols: kallsyms: %s, kernel names off\n", strerror(-err));
		kallsyms__drop(s);
	}
	s->ks_len = s->ks_alloc = 0;
}

int hws_symbols__use_kallsyms(struct hws_symbols *s, const char *path)
{
	return hws_symbols__use_kallsyms_copy(s, path, NULL, NULL);
}

/* whether the file at @path starts with the @len bytes at @want */
static bool same_start(const char *path, const char *want, size_t len)
{
	char *buf = malloc(len ? len : 1);
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	bool same = false;

	while (buf && fd >= 0 && got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	same = buf && got == len && !memcmp(buf, want, len);
	if (fd >= 0)
		close(fd);
	free(buf);
	return same;
}

int hws_symbols__use_kallsyms_copy(struct hws_symbols *s, const char *path, const char *copy,
				   const char *modules)
{
	bool eof;
	int err;

	new_gen(s);
	kallsyms__drop(s);
	if (!path)
		return 0;
	s->ks_fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (s->ks_fd < 0)
		return -errno;
	/* the first lines tell whether addresses show (kptr_restrict zeroes them all); the
	 * rest (~6 MB of kernel formatting) is read at the first kernel lookup, if any */
	err = read_more(s->ks_fd, &s->ks_buf, &s->ks_len, &s->ks_alloc, KALLSYMS_PROBE, &eof);
	if (!err && (eof || !kallsyms_nonzero(s->ks_buf, s->ks_len))) {
		if (!eof) /* not proven yet: read it all now, for an exact answer */
			err = read_more(s->ks_fd, &s->ks_buf, &s->ks_len, &s->ks_alloc, SIZE_MAX,
					&eof);
		if (!err) {
			err = kallsyms_parse(s, s->ks_buf, s->ks_len);
			s->ks_buf = NULL;
		}
		close(s->ks_fd);
		s->ks_fd = -1;
	}
	/* a copy that starts as the live file does is read instead of the rest, if its modules
	 * still match at the first kernel lookup (the probe covers the kernel's own text) */
	if (!err && s->ks_fd >= 0 && copy && s->ks_len && same_start(copy, s->ks_buf, s->ks_len)) {
		s->ks_copy = strdup(copy);
		s->ks_modules = modules ? strdup(modules) : NULL;
		s->ks_probe = s->ks_len;
		if (!s->ks_copy || (modules && !s->ks_modules))
			err = -ENOMEM;
	} else if (!err && copy && s->ks_fd >= 0) {
		pr_debug("symbols: %s does not start as %s does: not used\n", copy, path);
	}
	if (err)
		kallsyms__drop(s);
	return err;
}
