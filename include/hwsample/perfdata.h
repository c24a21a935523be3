/* SPDX-License-Identifier: MIT */
/*
 * perf.data (PERFILE2) writing and reading, and PERF_RECORD_SAMPLE parsing.
 *
 * Writer: the file header, ids and attr section go to the file at the first data byte,
 * records stream into the data section after them, and the header's data size is kept
 * current each time the buffer reaches the file (__flush(): after each round); the header
 * features follow the data at __close(). A run stopped by SIGINT/SIGTERM ends in a complete
 * file once __close() runs; a writer killed before that leaves a readable file holding
 * every round flushed before (an unfinished one: no feature bits). Pipe mode (path "-" or
 * a non-seekable fd) writes the 16-byte pipe header, then HEADER_ATTR and HEADER_FEATURE
 * records before the data.
 *
 * Reader: file mode and pipe mode, either endianness (records are byte-swapped to host
 * order before they are handed out), old 72-byte headers and short attrs. Memory stays
 * bounded: records are read through a window, never the whole file.
 * A reader error names the byte offset and record type (hws_perf_reader__errmsg()).
 * Unfinished files (a recorder killed: hwsample's or perf's, or a file cut short) are read
 * up to their last whole record; hws_perf_reader__unfinished() says so and why.
 */
#ifndef HWSAMPLE_PERFDATA_H
#define HWSAMPLE_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <hwsample/abi.h>

#include <hwsample/common.h>
#include <hwsample/backend.h>

#ifdef __cplusplus
extern "C" {
#endif

/* perf's user record types (>= 64) */
enum hws_user_record_type {
	HWS_RECORD_HEADER_ATTR = 64,
	HWS_RECORD_HEADER_EVENT_TYPE = 65,
	HWS_RECORD_HEADER_TRACING_DATA = 66,
	HWS_RECORD_HEADER_BUILD_ID = 67,
	HWS_RECORD_FINISHED_ROUND = 68,
	HWS_RECORD_ID_INDEX = 69,
	HWS_RECORD_AUXTRACE_INFO = 70,
	HWS_RECORD_AUXTRACE = 71,
	HWS_RECORD_AUXTRACE_ERROR = 72,
	HWS_RECORD_THREAD_MAP = 73,
	HWS_RECORD_CPU_MAP = 74,
	HWS_RECORD_STAT_CONFIG = 75,
	HWS_RECORD_STAT = 76,
	HWS_RECORD_STAT_ROUND = 77,
	HWS_RECORD_EVENT_UPDATE = 78,
	HWS_RECORD_TIME_CONV = 79,
	HWS_RECORD_HEADER_FEATURE = 80,
	HWS_RECORD_COMPRESSED = 81,
	HWS_RECORD_FINISHED_INIT = 82,
	HWS_RECORD_COMPRESSED2 = 83, /* perf >= 6.15: {u64 data_size; data[]} */
	HWS_RECORD__MAX = 96,
};

/* Header feature bits (HEADER_*). */
enum hws_feature {
	HWS_FEAT_TRACING_DATA = 1,
	HWS_FEAT_BUILD_ID = 2,
	HWS_FEAT_HOSTNAME = 3,
	HWS_FEAT_OSRELEASE = 4,
	HWS_FEAT_VERSION = 5,
	HWS_FEAT_ARCH = 6,
	HWS_FEAT_NRCPUS = 7,
	HWS_FEAT_CPUDESC = 8,
	HWS_FEAT_CPUID = 9,
	HWS_FEAT_TOTAL_MEM = 10,
	HWS_FEAT_CMDLINE = 11,
	HWS_FEAT_EVENT_DESC = 12,
	HWS_FEAT_CPU_TOPOLOGY = 13,
	HWS_FEAT_NUMA_TOPOLOGY = 14,
	HWS_FEAT_BRANCH_STACK = 15,
	HWS_FEAT_PMU_MAPPINGS = 16,
	HWS_FEAT_GROUP_DESC = 17,
	HWS_FEAT_AUXTRACE = 18,
	HWS_FEAT_STAT = 19,
	HWS_FEAT_CACHE = 20,
	HWS_FEAT_SAMPLE_TIME = 21,
	HWS_FEAT_MEM_TOPOLOGY = 22,
	HWS_FEAT_CLOCKID = 23,
	HWS_FEAT_DIR_FORMAT = 24,
	HWS_FEAT_BPF_PROG_INFO = 25,
	HWS_FEAT_BPF_BTF = 26,
	HWS_FEAT_COMPRESSED = 27,
	HWS_FEAT_CPU_PMU_CAPS = 28,
	HWS_FEAT_CLOCK_DATA = 29,
	HWS_FEAT_HYBRID_TOPOLOGY = 30,
	HWS_FEAT_PMU_CAPS = 31,
	HWS_FEAT__MAX = 256,
};

/* ---------------------------------------------------------------- record parsing */

/*
 * hws_sample__parse() - split PERF_RECORD_SAMPLE @rec (header included, @size bytes, host
 * byte order) by @attr's sample_type and read_format, in the kernel's real field order.
 * As perf does, out->period is attr->sample_period unless PERIOD is in sample_type.
 * Return: 0 or HWS_E_BADREC if a field runs past @size. Never reads past @size.
 */
HWS_API int hws_sample__parse(const struct hws_perf_event_attr *attr, const void *rec, size_t size,
			      struct hws_record_sample *out);

/* The sample_id trailer of a non-sample record (sample_id_all). */
struct hws_sample_id {
	uint32_t pid, tid, cpu;
	uint64_t time, id, stream_id;
	uint64_t fields; /* HWS_SF_TIME | HWS_SF_CPU | HWS_SF_PID | HWS_SF_ID */
};

/* Parse the trailer of a non-sample record. 0, or HWS_E_BADREC. */
HWS_API int hws_sample_id__parse(const struct hws_perf_event_attr *attr, const void *rec,
				 size_t size, struct hws_sample_id *out);

/* Sample id (PERF_SAMPLE_IDENTIFIER / ID) of any record, or -1 if it has none. */
HWS_API int64_t hws_record__id(const struct hws_perf_event_attr *attr, const void *rec,
			       size_t size);

/* Name of a record type ("SAMPLE", "MMAP2", "AUXTRACE", ...). Never NULL. */
HWS_API const char *hws_record__type_name(uint32_t type);

/* ---------------------------------------------------------------- writer */

struct hws_perf_writer;

/*
 * hws_perf_writer__new() - create @path ("-" = stdout, pipe mode). Returns NULL with errno
 * (ELOOP: @path is a symbolic link, never written through).
 * @pipe_mode forces pipe mode for a regular file.
 */
HWS_API struct hws_perf_writer *hws_perf_writer__new(const char *path, bool pipe_mode);
HWS_API struct hws_perf_writer *hws_perf_writer__new_fd(int fd, bool pipe_mode);

/* Add an event. @ids are the sample ids of its fds. Must be called before the first
 * __write in pipe mode; in file mode an event (or ids) added later is not in the attr
 * section written before the data: the attrs are then written again at __close() (a
 * file whose writer never got there lacks them). Returns the attr index or -errno. */
HWS_API int hws_perf_writer__add_attr(struct hws_perf_writer *w,
				      const struct hws_perf_event_attr *attr, const char *name,
				      const uint64_t *ids, size_t nr_ids);
/* Add more ids to attr @idx (file mode only; e.g. ids of fds opened later). */
HWS_API int hws_perf_writer__add_ids(struct hws_perf_writer *w, int idx, const uint64_t *ids,
				     size_t nr_ids);

/* Append bytes that hold whole records (or an AUXTRACE record followed by its payload). */
HWS_API int hws_perf_writer__write(struct hws_perf_writer *w, const void *buf, size_t len);

/* Set the raw payload of header feature @feat (copied). */
HWS_API int hws_perf_writer__set_feature(struct hws_perf_writer *w, int feat, const void *data,
					 size_t len);
/* Set a string feature (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID) in perf's
 * {u32 len; char[len]} format, len padded to 64 as perf does. */
HWS_API int hws_perf_writer__set_string(struct hws_perf_writer *w, int feat, const char *s);

/*
 * hws_perf_writer__add_host_features() - fill HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS,
 * CPUDESC, CPUID, TOTAL_MEM, CMDLINE (@argc/@argv), NUMA_TOPOLOGY, PMU_MAPPINGS, PMU_CAPS,
 * CPU_PMU_CAPS (the "cpu" PMU's caps), CPU_TOPOLOGY, CLOCKID + CLOCK_DATA (@clockid, -1 =
 * not used) from this machine (uname, /proc, sysfs; PMUs from hws_sysfs_root(), so a fake
 * tree shows up). EVENT_DESC is built from the attrs at __close() (pipe: at the first
 * __write) unless set explicitly. A source that cannot be read leaves its feature out.
 */
HWS_API int hws_perf_writer__add_host_features(struct hws_perf_writer *w, int argc,
					       char *const *argv, int clockid);

/* Bytes given to __write() so far (data section, buffered ones included; after a write
 * error see __stats() for what reached the file). */
HWS_API uint64_t hws_perf_writer__data_size(const struct hws_perf_writer *w);

/* File mode: the file offset where the data section starts (the ids and attrs given so
 * far go to the file now if they are not there yet); pipe mode: 0. Or -errno. */
HWS_API int64_t hws_perf_writer__data_offset(struct hws_perf_writer *w);

/* Small __write()s are buffered (256 KiB); push them to the fd now. File mode: the
 * header's data size then names every whole record written (call it after each round's
 * FINISHED_ROUND: a writer killed later leaves those rounds readable). Pipe mode: a
 * reader downstream sees them. 0 or -errno (file mode: also an earlier write error). */
HWS_API int hws_perf_writer__flush(struct hws_perf_writer *w);

/* What reached the file (file mode) and, after a write error (ENOSPC, EDQUOT, EIO: the
 * first one sticks, later writes fail with it), what did not. Complete after __flush(). */
struct hws_perf_writer_stats {
	uint64_t data_size;	   /* data bytes in the file up to its last whole record; the
				    * header's data size says this */
	uint64_t records, samples; /* whole records, and PERF_RECORD_SAMPLEs among them */
	uint64_t lost_bytes;	   /* given to __write() but not in the file (write error) */
	uint64_t lost_records, lost_samples; /* records (one cut short counts), samples */
	int err;			     /* the write error (negative errno), 0 if none */
	bool pipe; /* pipe mode: only data_size (the bytes given) and err are set */
};
HWS_API void hws_perf_writer__stats(const struct hws_perf_writer *w,
				    struct hws_perf_writer_stats *st);

/* Finish the file (features; attrs and ids again if some came after the data started)
 * and close it. Frees @w, NULL-safe. After a write error the file ends with the last whole
 * record that reached it (features only if the file system still takes them).
 * Returns 0 or -errno (the first write error). */
HWS_API int hws_perf_writer__close(struct hws_perf_writer *w);

/* ---------------------------------------------------------------- reader */

struct hws_perf_reader;

struct hws_perf_evattr {
	struct hws_perf_event_attr attr; /* normalized: size == sizeof(attr), missing tail zero */
	const char *name;     /* EVENT_DESC name, or a generated one ("cycles", "raw 0x1cd") */
	const char *pmu_name; /* PMU_MAPPINGS name for attr.type, or NULL */
	const uint64_t *ids;
	size_t nr_ids;
};

/* A record as handed out by hws_perf_reader__next(). Valid until the next call. */
struct hws_perf_record {
	const struct perf_event_header *hdr; /* host byte order */
	uint64_t file_offset;		     /* where the record starts in the file/stream */
	const void *payload;		     /* AUXTRACE: the AUX bytes that follow; else NULL */
	uint64_t payload_size;
	int attr_idx;	/* event of a SAMPLE (or sample_id record), -1 if unknown */
	uint32_t flags; /* HWS_PERF_REC_* */
};

/* hdr (resp. payload) points into the reader's mapping of the file and stays valid until
 * hws_perf_reader__close(), not only until the next call: callers may keep the pointer
 * instead of a copy. Set for kernel records and AUXTRACE payloads of regular files in
 * host byte order. */
#define HWS_PERF_REC_HDR_STABLE	    (1U << 0)
#define HWS_PERF_REC_PAYLOAD_STABLE (1U << 1)

struct hws_perf_reader_opts {
	size_t sz;    /* HWS_OPTS() */
	bool no_mmap; /* read() regular files too, instead of mapping them */
};

/**
 * hws_perf_reader__open() - open the perf.data file @path ("-" = stdin) for reading.
 * @opts: NULL for the defaults.
 * Regular files are mapped (unless @opts->no_mmap); a mapped file that shrinks while being
 * read raises SIGBUS past its new last page, which a program reading files others may
 * truncate should catch (the hwsample CLI does).
 * Return: the reader, or NULL with errno set (EISDIR, ENOENT, ...; a hwsample condition as
 * its positive value: hws_strerror(-errno) names it, and the reason is also logged at warn
 * level with the byte offset).
 */
HWS_API struct hws_perf_reader *hws_perf_reader__open(const char *path,
						      const struct hws_perf_reader_opts *opts);
/* hws_perf_reader__open() of an open descriptor (a pipe or socket is read as a stream); the
 * caller keeps @fd and closes it after hws_perf_reader__close(). */
HWS_API struct hws_perf_reader *hws_perf_reader__open_fd(int fd,
							 const struct hws_perf_reader_opts *opts);
HWS_API void hws_perf_reader__close(struct hws_perf_reader *r); /* NULL-safe */
/* The caller no longer touches stable records before file offset @before: their pages may
 * leave the resident set (they stay readable; a later touch reads them back). */
HWS_API void hws_perf_reader__release(struct hws_perf_reader *r, uint64_t before);

HWS_API bool hws_perf_reader__is_pipe(const struct hws_perf_reader *r);
HWS_API bool hws_perf_reader__needs_swap(const struct hws_perf_reader *r);

/* Events. In pipe mode the list grows as HEADER_ATTR records are read. The returned
 * pointer is owned by the reader: valid until __close() (file mode) or until the next
 * __next() that reads a HEADER_ATTR record (pipe mode: the array may move). */
HWS_API int hws_perf_reader__nr_attrs(const struct hws_perf_reader *r);
HWS_API const struct hws_perf_evattr *hws_perf_reader__attr(const struct hws_perf_reader *r,
							    int idx);
/* Index of the event owning sample id @id, or -1. */
HWS_API int hws_perf_reader__attr_by_id(const struct hws_perf_reader *r, uint64_t id);

/*
 * hws_perf_reader__next() - next record of the data section.
 * Return: 1 with *rec filled, 0 at the end, negative on error (see __errmsg()).
 * User records the reader itself consumes (HEADER_ATTR, HEADER_FEATURE, ...) are still
 * handed out so callers can count them.
 */
HWS_API int hws_perf_reader__next(struct hws_perf_reader *r, struct hws_perf_record *rec);
/* Type of the record the next hws_perf_reader__next() returns, without consuming it; -1
 * when unknown (end of data, a short or bad header: next() then says what is wrong). May
 * read from a pipe. */
HWS_API int hws_perf_reader__peek_type(struct hws_perf_reader *r);

/* Last error as text: "offset 0x1234: record SAMPLE (type 9) size 0: ..." */
HWS_API const char *hws_perf_reader__errmsg(const struct hws_perf_reader *r);

/* Why a file-mode file is unfinished (its recorder did not finish it: killed, out of
 * memory, a power cut, or the file was cut short). A finished file is never one: it has
 * its header features after the data (perf and hwsample always write some), or no attrs
 * and nothing after the data but attr and ids sections, or an old 72-byte header. */
enum hws_unfinished_reason {
	HWS_UNFINISHED_NONE = 0,
	HWS_UNFINISHED_DATA_SIZE_0 = 1, /* data size 0 (perf record killed: it writes the
					 * size at exit; hwsample before its first round) */
	HWS_UNFINISHED_NO_FEATURES = 2, /* no features after the data (hwsample killed: the
					 * size is the one of its last round) */
	HWS_UNFINISHED_PAST_EOF = 3,	/* the data size runs past the end of the file */
};

struct hws_perf_unfinished {
	int reason;	      /* HWS_UNFINISHED_* */
	const char *why;      /* "data size 0: the recorder did not finish, killed?" (owned by
			       * the reader) */
	uint64_t data_offset; /* the data section as the header says */
	uint64_t data_size;
	bool read_all;	    /* __next() got to the end: the two below are known */
	uint64_t end;	    /* file offset after the last whole record */
	uint64_t cut_bytes; /* bytes after it that are no whole record (0: none) */
};

/*
 * hws_perf_reader__unfinished() - is the file unfinished, and why (@u may be NULL)?
 * The records of an unfinished file are read past the data size the header gives, up
 * to the end of the file; the first record cut short (or bytes that are no record) ends
 * the data: __next() returns 0 there, not an error. Its features are not read.
 * Return: HWS_UNFINISHED_* (0: a finished file, or a pipe).
 */
HWS_API int hws_perf_reader__unfinished(const struct hws_perf_reader *r,
					struct hws_perf_unfinished *u);

/* Header features (file mode: after open; pipe mode: as HEADER_FEATURE records pass). */
HWS_API bool hws_perf_reader__has_feature(const struct hws_perf_reader *r, int feat);
/* Raw feature payload in host order where perf defines it as numbers. NULL if absent. */
HWS_API const void *hws_perf_reader__feature(const struct hws_perf_reader *r, int feat,
					     size_t *len);
/* String features (HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID); NULL if absent. */
HWS_API const char *hws_perf_reader__string(const struct hws_perf_reader *r, int feat);
/**
 * hws_perf_reader__build_id() - build-id the file's HEADER_BUILD_ID gives for @filename
 * (e.g. "[kernel.kallsyms]" for the host kernel), as lower-case hex in @hex.
 * Return: the number of hex digits, 0 if the file has no entry for it (or no BUILD_ID
 * section), or -ENOSPC if @len cannot hold the digits and the NUL.
 */
HWS_API int hws_perf_reader__build_id(const struct hws_perf_reader *r, const char *filename,
				      char *hex, size_t len);
/*
 * hws_perf_reader__build_id_entry() - entry @idx (0, 1, ...) of HEADER_BUILD_ID: its file
 * name ("[kernel.kallsyms]", "[vdso]", a path) into @name, its build-id as hex into @hex
 * ("" when it has none), its misc (PERF_RECORD_MISC_KERNEL / _USER ...) into *@misc (may
 * be NULL). Return: the hex length, -ENOENT past the last entry, -ENOSPC when @name or
 * @hex is too small, -EINVAL.
 */
HWS_API int hws_perf_reader__build_id_entry(const struct hws_perf_reader *r, size_t idx, char *name,
					    size_t name_len, char *hex, size_t len, uint16_t *misc);
/*
 * hws_perf_build_id__parse() - one HEADER_BUILD_ID entry or PERF_RECORD_HEADER_BUILD_ID record
 * (host order) of @sz bytes at @entry: *@name its file name (not NUL-terminated when it fills
 * the entry: *@nlen bytes), @hex its build-id ("" when none), *@misc its misc (may be NULL).
 * Return: the hex length, -ENOSPC when @hex is too small, -EINVAL when @sz is under 36.
 */
HWS_API int hws_perf_build_id__parse(const void *entry, size_t sz, const char **name, size_t *nlen,
				     char *hex, size_t len, uint16_t *misc);

/* NRCPUS: available/online, 0 if absent. */
HWS_API int hws_perf_reader__nr_cpus(const struct hws_perf_reader *r, uint32_t *online);
/* PMU_MAPPINGS name of a PMU type, or NULL. */
HWS_API const char *hws_perf_reader__pmu_name(const struct hws_perf_reader *r, uint32_t type);
/* One event group of the file (HEADER_GROUP_DESC): its events are the attrs leader ..
 * leader + nr_members - 1; name is NULL for perf's "{anon_group}". */
struct hws_perf_group {
	const char *name;
	uint32_t leader;
	uint32_t nr_members;
};
/* The file's event groups (*@groups: valid while @r is open and no more records are read),
 * 0 when it has none. */
HWS_API size_t hws_perf_reader__groups(const struct hws_perf_reader *r,
				       const struct hws_perf_group **groups);
/* PMU_CAPS: value of @cap for PMU @pmu, or NULL. */
HWS_API const char *hws_perf_reader__pmu_cap(const struct hws_perf_reader *r, const char *pmu,
					     const char *cap);
/* NUMA node of @cpu from NUMA_TOPOLOGY, -1 if unknown. */
HWS_API int hws_perf_reader__cpu_node(const struct hws_perf_reader *r, int cpu);
/* What decoders need to know about the recording host (owned by the reader). */
HWS_API const struct hws_file_info *hws_perf_reader__file_info(struct hws_perf_reader *r);

#ifdef __cplusplus
}
#endif
#endif
