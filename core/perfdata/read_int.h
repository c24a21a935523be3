/* SPDX-License-Identifier: MIT */
/*
 * The perf.data reader's state and limits, shared by its parts: core/perfdata/perfdata_read.c
 * (open, input window, attrs and ids, record delivery), core/perfdata/features.c (header
 * features, event and PMU names, the accessors over them) and core/perfdata/compress.c
 * (PERF_RECORD_COMPRESSED). Not installed.
 *
 * Invariants: perfdata_read.c owns struct hws_perf_reader and calls the other two; they call
 * nothing of perfdata_read.c (features.c: swap.c and sample_parse.c; compress.c: nothing of
 * core/perfdata/). compress.c sees only its struct pd_decomp. The limits below are those the
 * head comment of perfdata_read.c promises.
 */
#ifndef HWS_CORE_PERFDATA_READ_INT_H
#define HWS_CORE_PERFDATA_READ_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/perfdata.h>

#define WINDOW_SIZE	   (1u << 20)
#define MAX_RECORD	   (1u << 16)
#define MAX_PAYLOAD	   (64ull << 20)
#define MAX_FEATURE	   (64ull << 20)
#define MAX_ATTRS	   4096
#define MAX_IDS		   (1u << 20)
#define MAX_FEATURES_TOTAL (128ull << 20)
#define MAX_CPUS	   65536
#define ID_CACHE	   16	       /* a power of two */
#define MAX_DECOMP	   (32u << 20) /* bytes of records one COMPRESSED record may expand to */

/* Records decompressed from PERF_RECORD_COMPRESSED, handed out from buf[pos, len). */
struct pd_decomp {
	uint8_t *buf;
	size_t cap, len, pos;
	uint64_t off; /* file offset of the COMPRESSED record they came from */
	void *zds;    /* ZSTD_DStream */
	bool warned;  /* "libzstd.so.1 is not installed" said */
};

struct rattr {
	struct hws_perf_evattr ev;
	char *name;
	bool gen_name; /* generated from the attr, EVENT_DESC / EVENT_UPDATE may replace it */
	uint64_t *ids;
};

struct idmap {
	uint64_t id;
	int idx1;
};

struct rfeat {
	uint8_t *data; /* len + 1 bytes, the extra byte is 0 */
	size_t len;
	size_t cap; /* bytes allocated at data (pipe HEADER_BUILD_ID records append) */
};

struct pmu_map {
	uint32_t type;
	const char *name;
};

struct pmu_cap {
	const char *pmu, *name, *value;
};

struct hws_perf_reader {
	struct hws_perf_reader_opts opts;
	int fd;
	bool own_fd;
	bool pipe;   /* pipe-mode format (16-byte header, attrs as records) */
	bool stream; /* the fd cannot seek: read() sequentially */
	bool swap;
	int err;
	char errmsg[320];

	uint8_t *win;
	size_t win_cap;
	uint64_t win_off;
	size_t win_len;

	/* regular files: the whole file mapped read-only (map_len = file_size), NULL when
	 * mmap failed or the input is a stream; released: bytes before it were dropped from
	 * the mapping with MADV_DONTNEED (see hws_perf_reader__release()) */
	const uint8_t *map;
	size_t map_len;
	uint64_t released;

	uint64_t file_size;
	uint64_t pos;
	uint64_t data_end;
	/* what hws_perf_reader__next()'s short path may assume (fast_state()): records in place
	 * in the mapping up to fast_end (0: take the long way); the attr of every SAMPLE
	 * record, or ATTR_BY_ID: look it up by id (record_attr()) */
	uint64_t fast_end;
	int smp_attr;

	uint64_t *rec; /* one record, 8-aligned */
	uint8_t *payload;
	size_t payload_cap;

	struct rattr *attrs;
	int nr_attrs, attrs_cap;
	struct idmap *ids; /* hash table, see id_put() */
	size_t id_cap, nr_ids;
	int id_pos_attr; /* attr whose sample_type locates ids (perf: the first) */
	/* record_attr()'s cache of recent ids, direct-mapped by the id's low bits (files
	 * interleave a few events: loads and stores, one id per CPU): an entry is valid while
	 * its idx1 != 0 */
	struct {
		uint64_t id;
		int idx1;
	} idc[ID_CACHE];
	/* where the first attr's layout puts a record's id (set with attrs[0], see
	 * id_layout()): SAMPLE: bytes from the start; others: bytes back from the end; 0: none */
	uint16_t id_smp_off, id_end_off;

	struct rfeat feats[HWS_FEAT__MAX];
	uint64_t features[4];
	uint64_t feat_bytes; /* total kept, for MAX_FEATURES_TOTAL */

	struct pmu_map *pmus;
	size_t nr_pmus;
	struct pmu_cap *caps;
	size_t nr_caps;
	struct hws_perf_group *groups; /* GROUP_DESC (names owned) */
	size_t nr_groups;
	int16_t *cpu_node;
	int nr_cpu_node;

	struct pd_decomp dc; /* records of PERF_RECORD_COMPRESSED (core/perfdata/compress.c) */

	/* file mode: why the file is unfinished (HWS_UNFINISHED_*, 0: finished) and what its
	 * header said; where its whole records end, once __next() got there (cut_known) */
	int unf;
	char unf_why[160];
	uint64_t hdr_data_off, hdr_data_size;
	uint64_t cut, cut_bytes;
	bool cut_known;

	struct hws_file_info fi;
	struct hws_time_conv tc;
	bool have_tc;
	uint64_t *aux_priv;
	uint8_t *tracing;
	uint64_t tracing_size;
};

/* ---- core/perfdata/features.c ---- */

/* Keep feature @feat's payload @data (@len bytes, file byte order, swapped here; @data has
 * len + 1 bytes); takes ownership. */
void pd_store_feature(struct hws_perf_reader *r, int feat, uint8_t *data, size_t len);
/* Interpret the features the reader uses itself (PMU names and caps, NUMA nodes, event names,
 * tracing data) and name the events. Malformed ones are ignored. */
void pd_digest_features(struct hws_perf_reader *r);
/* A HEADER_FEATURE record (pipe mode, host order): replace the feature, digest again.
 * 0, HWS_E_BADREC or -ENOMEM. */
int pd_header_feature(struct hws_perf_reader *r, const uint8_t *rec, size_t size);
/* a HEADER_BUILD_ID record (pipe mode): its entry added to the HEADER_BUILD_ID feature */
int pd_header_build_id(struct hws_perf_reader *r, const uint8_t *rec, size_t sz);
/* Name the events that have no name yet (from their attr), after EVENT_DESC. -ENOMEM or 0. */
int pd_name_attrs(struct hws_perf_reader *r);
/* Event @idx (if it exists) is called @name (at most @max bytes): EVENT_UPDATE. */
void pd_set_attr_name(struct hws_perf_reader *r, int idx, const char *name, size_t max);
/* Set up r->fi's callbacks. */
void pd_file_info_init(struct hws_perf_reader *r);
/* Free what features.c keeps (feature payloads, PMU names and caps, NUMA map). */
void pd_free_features(struct hws_perf_reader *r);

/* ---- core/perfdata/compress.c ---- */

/* Append the decompressed payload of COMPRESSED record @rec (@size bytes, host order) to
 * @dc. 0 (also when libzstd is missing: warned once, contents skipped), HWS_E_TOO_BIG
 * (past MAX_DECOMP), HWS_E_BADREC or -ENOMEM. */
int pd_decompress(struct pd_decomp *dc, const uint8_t *rec, size_t size);
/* Free @dc's buffer and stream. */
void pd_decomp_free(struct pd_decomp *dc);

#endif
