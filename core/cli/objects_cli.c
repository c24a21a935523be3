// SPDX-License-Identifier: MIT
/*
 * The allocation records of an input file for dump and report (include/hwsample/objects.h):
 * from the file's HWS_FEAT_HWS_OBJECTS feature, else from the FILE.objects/ directory a
 * recorder left when it did not finish; and dump --json's "object" and "type" keys.
 *
 * Invariants: a file without records gets NULL and costs nothing; pipes have none.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <hwsample/datatype.h>
#include <hwsample/objects.h>

#include "cli.h"

struct hws_objects *hws_cli__objects(const char *cmd, const char *path,
				     const struct hws_perf_reader *r)
{
	struct hws_objects *o;
	char dir[PATH_MAX];
	struct stat st;

	if (!r || hws_perf_reader__is_pipe(r) || !path || !strcmp(path, "-"))
		return NULL;
	o = hws_objects__from_reader(r);
	if (!o && errno != ENOENT)
		fprintf(stderr, "%s: the allocation records of %s: %s\n", cmd, hws_cli__text(path),
			strerror(errno));
	if (o)
		goto have;
	if (snprintf(dir, sizeof(dir), "%s.objects", path) >= (int)sizeof(dir) || stat(dir, &st) ||
	    !S_ISDIR(st.st_mode))
		return NULL;
	o = hws_objects__from_dir(dir);
	if (!o)
		return NULL;
	fprintf(stderr,
		"%s: allocation records read from %s (the recorder did not copy them "
		"into %s: killed?)\n",
		cmd, hws_cli__text(dir), hws_cli__text(path));
have:
	if (hws_objects__nr_bad(o))
		fprintf(stderr, "%s: %s: %llu damaged allocation records skipped\n", cmd,
			hws_cli__text(path), (unsigned long long)hws_objects__nr_bad(o));
	if (hws_objects__nr_dropped(o))
		fprintf(stderr,
			"%s: %s: %llu allocations were not recorded (the recorder's file was "
			"full, or its file system had no room left): some addresses stay "
			"unattributed\n",
			cmd, hws_cli__text(path), (unsigned long long)hws_objects__nr_dropped(o));
	return o;
}

int hws_cli__object_json(void *ctx, const struct hws_sample *s, struct hws_strbuf *sb)
{
	struct hws_cli_objects *c = ctx;
	struct hws_datatype t;
	struct hws_object obj;
	int err = 0;

	obj.kind = HWS_OBJ_NONE;
	if (c->objects && hws_objects__attribute(c->objects, c->syms, s, &obj))
		err = hws_object__json(&obj, c->syms, s->pid, sb);
	if (err || !c->types || !(s->fields & HWS_SF_ADDR))
		return err;
	err = hws_objects__sample_type(c->objects, &obj, c->types, c->syms, s, &t);
	if (err > 0)
		err = hws_datatype__json(&t, sb);
	return err < 0 ? err : 0;
}
