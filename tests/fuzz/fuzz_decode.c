// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the whole dump/report pipeline on arbitrary bytes. The input is opened as a
 * perf.data (memfd, file mode) and decoded with every statically linked backend; each
 * sample (in time order, or, for odd-sized inputs, unordered as report and c2c take them) is
 * formatted as text, JSON (with symbols and raw vendor fields) and CSV, and fed
 * to a report which is rendered at the end (also after a reader error), and to a c2c analysis
 * keeping call chains, rendered as JSON (with its call paths) at the end. Any crash,
 * sanitizer report, hang or unbounded allocation is a bug.
 * Seed corpus: tests/fuzz/corpus/decode/ (small perf and hwsample recordings).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hwsample/c2c.h>
#include <hwsample/decode.h>
#include <hwsample/errors.h>
#include <hwsample/output.h>
#include <hwsample/perfdata.h>
#include <hwsample/registry.h>
#include <hwsample/report.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct ctx {
	struct hws_decoder *d;
	struct hws_report *rep;
	struct hws_strbuf sb;
	struct hws_output *out[3];
	struct hws_c2c *c2c;
	size_t n;
};

static int raw_cb(void *c, const struct hws_sample *s, struct hws_strbuf *sb)
{
	return hws_decoder__raw_json(c, s, sb);
}

static int on_sample(void *p, const struct hws_sample *s)
{
	struct ctx *c = p;

	for (int i = 0; i < 3; i++)
		hws_output__sample(c->out[i], s, &c->sb);
	if (c->sb.len > (1u << 20))
		hws_strbuf__reset(&c->sb);
	hws_report__add(c->rep, s);
	if (c->c2c)
		hws_c2c__add(c->c2c, s);
	return ++c->n > 100000; /* bounded work per input */
}

static void quiet(enum hws_log_level level, const char *msg)
{
	(void)level;
	(void)msg;
}

static struct hws_registry *registry(void)
{
	static struct hws_registry *reg;
	char err[256];

	if (!reg) {
		reg = hws_registry__new();
		if (reg)
			hws_registry__add_static(reg, err, sizeof(err));
	}
	return reg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* inputs of odd size take the unordered delivery (report's and c2c's), even ones the
	 * time order (dump's) */
	struct hws_decoder_opts dopts = {
	    .sz = sizeof(dopts), .no_kallsyms = true, .max_files = 4, .unordered = size & 1};
	struct hws_report_opts ropts = {.sz = sizeof(ropts), .max_keys = 4096, .top = 5};
	struct hws_c2c_opts copts = {.sz = sizeof(copts), .callchain = true, .top = 5};
	struct hws_perf_reader *r;
	struct ctx c = {0};
	int fd;

	hws_set_print(quiet);
	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return 0;
	}
	r = hws_perf_reader__open_fd(fd, NULL);
	if (!r) {
		close(fd);
		return 0;
	}
	c.d = hws_decoder__new(r, registry(), &dopts);
	c.rep = hws_report__new(&ropts);
	c.c2c = hws_c2c__new(&copts);
	hws_strbuf__init(&c.sb, 4u << 20);
	for (int i = 0; i < 3; i++) {
		HWS_OPTS(hws_output_opts, oo, .format = i, .raw = true, .symbols = true,
			 .syms = c.d ? hws_decoder__symbols(c.d) : NULL, .raw_json = raw_cb,
			 .raw_ctx = c.d);

		c.out[i] = hws_output__new(&oo);
	}
	if (c.d && c.rep && c.out[0] && c.out[1] && c.out[2]) {
		hws_output__header(c.out[2], &c.sb);
		hws_decoder__run(c.d, on_sample, &c);
		hws_decoder__errmsg(c.d);
		hws_report__add_decoder_counts(c.rep, c.d);
		hws_strbuf__reset(&c.sb);
		hws_report__render(c.rep, hws_decoder__symbols(c.d), &c.sb);
		if (c.c2c && !hws_c2c__finish(c.c2c, hws_decoder__symbols(c.d))) {
			hws_strbuf__reset(&c.sb);
			hws_c2c__render_json(c.c2c, &c.sb);
			hws_strbuf__reset(&c.sb);
			hws_c2c__render_stdio(c.c2c, &c.sb);
		}
	}
	hws_c2c__delete(c.c2c);
	hws_strbuf__release(&c.sb);
	for (int i = 0; i < 3; i++)
		hws_output__delete(c.out[i]);
	hws_report__delete(c.rep);
	hws_decoder__delete(c.d);
	hws_perf_reader__close(r);
	close(fd);
	return 0;
}
