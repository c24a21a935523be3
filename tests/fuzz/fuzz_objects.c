// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the reader of allocation records (core/objects/objects.c, the payload of
 * the perf.data feature HWS_FEAT_HWS_OBJECTS and of the FILE.objects/ files) on arbitrary
 * bytes: the index is built, then addresses of every object found and around them are
 * looked up at several times, and each result is formatted as JSON. Any crash, sanitizer
 * report, hang or unbounded allocation is a bug.
 * Seed corpus: tests/fuzz/corpus/objects/ (made by tests/fuzz/make_objects_corpus.sh from
 * real recordings of tests/workloads/objects_truth and damaged copies).
 */
#include <stdint.h>
#include <string.h>

#include <hwsample/objects.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hws_objects *o = hws_objects__new(data, size);
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	const size_t rs = sizeof(struct hws_objrec), hs = sizeof(struct hws_objfile);

	if (!o)
		return 0;
	/* look up the addresses and times the records name, and their neighbours */
	for (size_t off = hs; off + rs <= size && off < hs + 64 * rs; off += rs) {
		struct hws_objrec r;
		struct hws_object ob;
		uint32_t pid = 0;

		memcpy(&r, data + off, rs);
		if (size >= hs)
			memcpy(&pid, data + 16, sizeof(pid));
		for (int d = -1; d <= 1; d++) {
			if (hws_objects__lookup(o, pid, r.addr + (uint64_t)d, r.time + (uint64_t)d,
						&ob)) {
				hws_strbuf__reset(&sb);
				hws_object__json(&ob, NULL, pid, &sb);
				hws_object__site(&ob, NULL, pid, &sb);
			}
		}
	}
	hws_objects__nr_objects(o);
	hws_objects__nr_bad(o);
	hws_strbuf__release(&sb);
	hws_objects__delete(o);
	return 0;
}
