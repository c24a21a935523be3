// SPDX-License-Identifier: MIT
/*
 * The options-struct convention (include/hwsample/common.h, core/util/opts.c), through the
 * public constructors that take one (here hws_c2c__new(), whose line_size it checks, and
 * hws_perf_reader__open() and hws_session__new()):
 *  - NULL is the defaults;
 *  - sz == 0 (a struct not declared with HWS_OPTS()) is -EINVAL, everywhere the same;
 *  - an older, smaller struct: the members past its sz are not read (default);
 *  - a newer, larger struct: accepted when the bytes the library does not know are zero,
 *    -EINVAL when one is set;
 *  - HWS_OPTS() zeroes the struct and sets sz.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/c2c.h>
#include <hwsample/perfdata.h>
#include <hwsample/session.h>

#include "tests.h"

/* a "newer" hws_c2c_opts: the library's, then members it does not know */
struct newer_c2c_opts {
	struct hws_c2c_opts base;
	uint64_t future1, future2;
};

static void quiet(enum hws_log_level level, const char *msg)
{
	(void)level;
	(void)msg;
}

static bool c2c_ok(const void *opts)
{
	struct hws_c2c *c;

	errno = 0;
	c = hws_c2c__new(opts);
	hws_c2c__delete(c);
	return c != NULL;
}

int main(void)
{
	struct newer_c2c_opts n;
	struct hws_c2c_opts o;

	hws_set_print(quiet);
	__T("NULL: the defaults", c2c_ok(NULL));

	HWS_OPTS(hws_c2c_opts, def, .top = 5);
	T_EQ_U64("HWS_OPTS sets sz", def.sz, sizeof(struct hws_c2c_opts));
	T_EQ_U64("... and zeroes the rest", def.line_size, 0);
	__T("HWS_OPTS struct accepted", c2c_ok(&def));

	memset(&o, 0, sizeof(o));
	o.line_size = 128;
	__T("sz == 0: refused", !c2c_ok(&o) && errno == EINVAL);
	o.sz = 4;
	__T("sz smaller than sz itself: refused", !c2c_ok(&o) && errno == EINVAL);

	/* an older caller whose struct ends before line_size: an invalid line_size past its
	 * sz is not read */
	o.sz = offsetof(struct hws_c2c_opts, line_size);
	o.line_size = 3;
	__T("older, smaller struct: members past sz not read", c2c_ok(&o));
	o.sz = sizeof(o);
	__T("the same member inside sz is read (line size 3 refused)",
	    !c2c_ok(&o) && errno == EINVAL);

	memset(&n, 0, sizeof(n));
	n.base.sz = sizeof(n);
	__T("newer, larger struct with zero tail: accepted", c2c_ok(&n));
	n.future2 = 1;
	__T("newer struct with a member set the library does not know: refused",
	    !c2c_ok(&n) && errno == EINVAL);

	/* the same rules in the other constructors */
	struct hws_perf_reader_opts ro = {0};
	__T("reader: sz == 0 refused", !hws_perf_reader__open("/dev/null", &ro) && errno == EINVAL);
	struct hws_session_opts so = {0};
	struct hws_session *s = hws_session__new(&so);
	__T("session: sz == 0 refused (it used to mean the whole struct)", !s && errno == EINVAL);
	hws_session__delete(s);
	HWS_OPTS(hws_session_opts, so2, .per_thread = true);
	s = hws_session__new(&so2);
	__T("session: HWS_OPTS struct accepted", s != NULL);
	hws_session__delete(s);

	TEST_END();
}
