/* SPDX-License-Identifier: MIT */
/*
 * Arm SPE backend: private declarations shared by spe.c, spe_encode.c, spe_pkt.c and
 * spe_decode.c. Nothing here is visible outside the backend.
 *
 * Invariants:
 *  - spe_pkt__get() is pure: it reads at most @len bytes, never allocates, and returns the
 *    packet length (> 0), HWS_E_NEED_MORE (the packet may continue in the next chunk) or
 *    HWS_E_BADREC (no packet starts with this header byte).
 *  - A record is the run of packets ending with END or TIMESTAMP; PAD and alignment
 *    packets before a record's first real packet do not belong to it.
 *  - struct spe_stream is the per-AUX-stream state the core allocates zeroed
 *    (aux_stream_size); it holds the bytes of a record split across chunks, bounded by
 *    SPE_REC_MAX.
 * Packet facts: the Arm ARM's SPE packet format (chapter D10), as spe_pkt.c's header rules
 * sum it up.
 */
#ifndef HWS_ARM_SPE_H
#define HWS_ARM_SPE_H

#include <stdint.h>
#include <stddef.h>

#include <hwsample/backend.h>

enum spe_pkt_type {
	SPE_PKT_BAD = 0,
	SPE_PKT_PAD,
	SPE_PKT_END,
	SPE_PKT_TIMESTAMP,
	SPE_PKT_ADDRESS,
	SPE_PKT_COUNTER,
	SPE_PKT_CONTEXT,
	SPE_PKT_OP_TYPE,
	SPE_PKT_EVENTS,
	SPE_PKT_DATA_SOURCE,
	SPE_PKT_ALIGN, /* extended header with h1 == 0: pad to a 2^(n+1) boundary */
};

/* ADDRESS packet index */
enum { SPE_ADDR_PC = 0, SPE_ADDR_TGT = 1, SPE_ADDR_VA = 2, SPE_ADDR_PA = 3, SPE_ADDR_PBT = 4 };
/* COUNTER packet index */
enum { SPE_CNT_TOTAL = 0, SPE_CNT_ISSUE = 1, SPE_CNT_XLAT = 2 };
/* OP_TYPE class (header bits 1:0) */
enum { SPE_OP_OTHER = 0, SPE_OP_LDST = 1, SPE_OP_BRANCH = 2 };

/* EVENTS payload bits */
enum spe_event_bit {
	SPE_EV_EXCEPTION = 0,
	SPE_EV_RETIRED = 1,
	SPE_EV_L1D_ACCESS = 2,
	SPE_EV_L1D_REFILL = 3,
	SPE_EV_TLB_ACCESS = 4,
	SPE_EV_TLB_WALK = 5,
	SPE_EV_NOT_TAKEN = 6,
	SPE_EV_MISPRED = 7,
	SPE_EV_LLC_ACCESS = 8,
	SPE_EV_LLC_REFILL = 9,
	SPE_EV_REMOTE = 10,
	SPE_EV_ALIGNMENT = 11,
	SPE_EV_TRANSACTIONAL = 16,
	SPE_EV_SVE_PARTIAL = 17,
	SPE_EV_SVE_EMPTY = 18,
	SPE_EV_L2D_ACCESS = 19,
	SPE_EV_L2D_MISS = 20,
	SPE_EV_HITM = 21, /* cache data modified */
	SPE_EV_RECENT_FETCH = 22,
	SPE_EV_SNOOPED = 23,
	SPE_EV_STREAMING_SVE = 24,
	SPE_EV_SMCU = 25,
};

struct spe_pkt {
	uint8_t type;	     /* enum spe_pkt_type */
	uint8_t index;	     /* address/counter/context index, op class, events size */
	uint8_t hdr_len;     /* 1 or 2 */
	uint8_t payload_len; /* 0, 1, 2, 4, 8 */
	uint16_t len;	     /* total bytes consumed */
	uint8_t hdr0, hdr1;
	uint64_t payload;
};

/*
 * spe_pkt__get() - decode one packet at @buf (@len bytes available). @pos is the position of
 * @buf[0] in the AUX stream, used only by alignment packets (pad to the next 2^n boundary).
 */
int spe_pkt__get(const uint8_t *buf, size_t len, uint64_t pos, struct spe_pkt *p);
/* perf 6.1 `perf report -D` text of a packet ("PC 0x... el2 ns=1"), for dumps and diffs. */
void spe_pkt__desc(const struct spe_pkt *p, char *buf, size_t len);
/* Short name of a packet type ("ADDR", "LAT", ...). Never NULL. */
const char *spe_pkt__name(unsigned int type);

/* Where the fast decoder stores each packet's payload (struct spe_record::v) */
enum spe_slot {
	SPE_SLOT_ADDR = 0, /* 0..7: ADDRESS by index */
	SPE_SLOT_LAT = 8,  /* 8..15: COUNTER by index */
	SPE_SLOT_TS = 16,
	SPE_SLOT_CONTEXT,
	SPE_SLOT_EVENTS,
	SPE_SLOT_SOURCE,
	SPE_SLOT_OP,
	SPE_SLOT_SINK, /* PAD / END: payload-less */
	SPE_SLOT_NR = 24,
};

/*
 * Fields of one decoded record (everything the packets said). Only the members whose
 * SPE_HAVE_* bit is set in @present are meaningful (the decoder does not clear the others
 * between records), except @events, which is zero when no EVENTS packet came.
 * @op_class, @op_payload and @ctx_index are set when the record ends.
 */
struct spe_record {
	uint32_t present;  /* SPE_HAVE_* */
	uint8_t ctx_index; /* CONTEXT header bits 1:0 (0: CONTEXTIDR_EL1, 1: EL2) */
	uint8_t op_class;  /* SPE_OP_* */
	uint8_t op_payload;
	uint8_t pad0;
	union {
		uint64_t v[SPE_SLOT_NR]; /* payloads by enum spe_slot */
		struct {
			uint64_t addr[8]; /* raw ADDRESS payloads by SPE_ADDR_* (5..7 unused) */
			uint64_t lat[8];  /* COUNTER payloads by SPE_CNT_* (3..7 unused) */
			uint64_t ts;
			uint64_t context;
			uint64_t events; /* EVENTS payloads ORed */
			uint64_t source;
			uint64_t op;
			uint64_t sink[3];
		};
	};
	uint8_t hdr[SPE_SLOT_NR]; /* header byte of the packet that filled each slot */
};

enum spe_have {
	SPE_HAVE_PC = 1U << 0,
	SPE_HAVE_TGT = 1U << 1,
	SPE_HAVE_VA = 1U << 2,
	SPE_HAVE_PA = 1U << 3,
	SPE_HAVE_PBT = 1U << 4,
	SPE_HAVE_TS = 1U << 5,
	SPE_HAVE_CONTEXT = 1U << 6,
	SPE_HAVE_EVENTS = 1U << 7,
	SPE_HAVE_SOURCE = 1U << 8,
	SPE_HAVE_OP = 1U << 9,
	SPE_HAVE_LAT_TOTAL = 1U << 10,
	SPE_HAVE_LAT_ISSUE = 1U << 11,
	SPE_HAVE_LAT_XLAT = 1U << 12,
	/* SPE_HAVE_PC << ADDRESS index and SPE_HAVE_LAT_TOTAL << COUNTER index, masked by: */
	SPE_HAVE_ADDR_MASK = 0x1fU,
	SPE_HAVE_LAT_MASK = 7U << 10,
};

/* Add one packet to @r. Returns 1 if the packet ends the record (END / TIMESTAMP). */
int spe_record__add(struct spe_record *r, const struct spe_pkt *p);

#define SPE_REC_MAX 4096 /* longest record kept across chunks (PMSIDR.MaxSize <= 2 KiB) */

/* The data source of one key (ds_key() in spe_decode.c) in normalized form */
struct spe_ds_memo {
	uint64_t data_src;
	uint32_t fields; /* HWS_SF_DATA_SRC | HWS_SF_OP, or 0 */
	uint32_t op_flags;
	uint8_t valid, mem_level, snoop, tlb;
};

#define SPE_DS_KEYS 512

/*
 * Header bytes as spe_decode.c's fast loop takes them (see fast_tab_build()), in three
 * arrays of 8-byte entries so that each lookup is one load addressed by header * 8 (a
 * 24-byte entry cost two address computations a packet)
 */
struct spe_fast_ent {
	uint32_t have; /* SPE_HAVE_* */
	uint8_t slot;  /* enum spe_slot */
	uint8_t ctl;   /* FAST_GO, FAST_END (ends the record) or FAST_SLOW (not taken) */
	uint8_t len;   /* packet length with a 1-byte header */
	uint8_t pad;
};

struct spe_fast_tab {
	uint64_t pmask[256];  /* the payload's bytes of the 8 loaded after the header */
	uint64_t evmask[256]; /* all ones for EVENTS (ORed into the record's events), else 0 */
	struct spe_fast_ent ent[256];
};

enum { FAST_SLOW = 0, FAST_GO = 1, FAST_END = 2 };

struct spe_stream {
	uint64_t pos;	     /* AUX stream position of the next byte of the next chunk */
	uint32_t buf_len;    /* bytes in @buf (partial record split across chunks) */
	uint32_t buf_parsed; /* bytes of @buf already decoded into @rec */
	uint8_t in_record;   /* a record has started (first non-PAD packet seen) */
	uint8_t resync;	     /* a bad packet was seen: drop the record in progress */
	uint8_t midr_cpu_valid;
	uint8_t ds_table; /* data-source table of @midr, resolved with it */
	uint32_t midr_cpu;
	uint64_t midr;
	uint64_t nr_records, nr_bad, nr_dropped, nr_gaps, nr_context;
	struct spe_record rec;
	struct spe_ds_memo memo[SPE_DS_KEYS]; /* for @ds_table, cleared when it changes */
	uint8_t buf[SPE_REC_MAX + 64];
};

/*
 * raw_json's text of one packet header (a 1-byte one, or an extended ADDRESS/COUNTER pair):
 * the packet renders as pre, the payload in hex (if @hexon), mid, the part @kind formats
 * from the payload, tail. The three texts sit at fixed offsets of @text, so each is copied
 * with one fixed-size move and the cursor advanced by its length.
 */
#define SPE_RAW_PRE  0	/* {"type":"ADDR","index":0,"len":9,"payload":"0x (64-byte copy) */
#define SPE_RAW_MID  56 /* ","desc":"PC 0x (32-byte copy) */
#define SPE_RAW_TAIL 80 /* "} or  el2"} (8-byte copy) */

enum spe_raw_kind {
	SPE_RK_NONE, /* PAD, END: nothing between mid and tail */
	SPE_RK_DEC,  /* signed decimal (TS, DATA-SOURCE, LAT) */
	SPE_RK_HEX,  /* hex of the payload (top byte dropped if @dshift is 8), then a suffix */
	SPE_RK_EV,   /* EVENTS names of the desc */
	SPE_RK_OP,   /* OP_TYPE text by class and payload */
};

struct spe_raw_ent {
	char text[88];
	uint64_t pmask; /* payload bytes of the 8 after the header */
	uint32_t have;	/* SPE_HAVE_* */
	uint16_t sbase; /* SPE_RK_HEX: suffix sbase + ((payload >> sshift) & smask) */
	uint8_t sshift, smask;
	uint8_t kind, slot, hlen, need; /* need: packet length */
	uint8_t pre_n, mid_n, tail_n;
	uint8_t hexon;	   /* 0xff: payload shown, 0: none */
	uint8_t dshift;	   /* SPE_RK_HEX: 8 drops the top byte (addresses), else 0 */
	uint8_t evm;	   /* 1: EVENTS (ORed into the record's events) */
	uint8_t spare[14]; /* 128 bytes: an index is a shift */
};

#define SPE_RAW_ENTS 100 /* 0 (not a packet that fits), 35 short headers, 64 extended */
#define SPE_RAW_SFX  265 /* 0: none, 1..8 PC/TGT " el2 ns=1", 9..264 PA " ns=1 ch=0 pat=3" */
_Static_assert(sizeof(struct spe_raw_ent) == 128, "spe_raw_ent: 128 bytes");

/* raw_json's tables, made on its first call (spe_raw.c: raw_tabs_build()) */
struct spe_raw_tabs {
	uint8_t map[256]; /* header byte -> ent, 0: extended or bad (slow path) */
	uint8_t xmap[64]; /* extended COUNTER/ADDRESS: [is ADDR][h0 & 3][h1 & 7] -> ent */
	struct spe_raw_ent ent[SPE_RAW_ENTS];
	char sfx[SPE_RAW_SFX][16];
	uint8_t sfx_n[SPE_RAW_SFX];
	char op[3][256][32]; /* OP_TYPE desc by class 0..2 and payload; length in byte 31 */
	char evlo[256][96];  /* EVENTS desc words of bits 0..7; length in byte 95 */
	char evhi[64][96];   /* of bits 8..11, 17, 18 */
	char evname[64][32]; /* ,"NAME" (or ,"EVn") of each events bit; length in byte 31 */
};

/* Per-instance state (priv). */
struct spe_priv {
	const struct hws_host *host;
	/* raw_json needs the stream position of the record it re-parses */
	const void *last_raw;
	uint64_t last_raw_pos;
	uint64_t nr_records, nr_bad, nr_dropped;
	int warned_context;
	int optab_ready; /* optab and ftab made */
	int lens_avx2;	 /* the fast loop's packet lengths with AVX2 (x86-64 CPUs that have it) */
	/* raw_json: MIDR of the last CPU rendered, for the file @raw_midr_fi */
	int raw_midr_valid;
	uint32_t raw_midr_cpu;
	const struct hws_file_info *raw_midr_fi;
	const char *raw_midr_cpuid;
	const uint64_t *raw_midr_priv;
	uint64_t raw_midr;
	/* op and op_flags per OP_TYPE class (4: no OP_TYPE packet) and payload: op << 24 | flags */
	uint32_t optab[5][256];
	struct spe_fast_tab ftab; /* made with optab */
	char json[16384];	  /* raw_json renders here, then appends (more than once if full) */
	int raw_ready;		  /* rawtab made */
	uint32_t raw_midr_n;
	char raw_midr_txt[96]; /* ,"midr":...,"cpu_model":"..."} of raw_midr (<= 82 bytes) */
	struct spe_raw_tabs rawtab;
};

/* spe_decode.c */
int spe_aux_decode(void *priv, void *stream, const struct hws_file_info *fi,
		   const struct hws_aux_chunk *chunk, hws_sample_fn emit, void *ctx);
int spe_aux_flush(void *priv, void *stream, const struct hws_file_info *fi, hws_sample_fn emit,
		  void *ctx);
/* The core name of @midr (NULL if unknown) and, in *@table, its data-source table's name. */
const char *spe_midr_info(uint64_t midr, const char **table);
/* perf_mem_data_src value perf would give this record on a CPU with @midr (0 = none). */
uint64_t spe_data_src(const struct spe_record *r, uint64_t midr);
/* MIDR of @cpu from AUXTRACE_INFO v2 metadata, the file's cpu_midr or HEADER_CPUID. 0 if none. */
uint64_t spe_file_midr(const struct hws_file_info *fi, uint32_t cpu);
/* Fill @s from @r (not time/cpu/pid: those need the chunk and the file). */
void spe_record__to_sample(const struct spe_record *r, uint64_t midr, struct hws_sample *s,
			   const struct hws_host *host);
/* perf's TSC -> perf time conversion */
uint64_t spe_tsc_to_perf_time(uint64_t cyc, const struct hws_time_conv *tc);

/* spe_raw.c */
int spe_raw_json(void *priv, const struct hws_file_info *fi, const struct hws_sample *s,
		 struct hws_strbuf *out);

/* spe_encode.c */
int spe_detect(void *priv, char *why, size_t len);
int spe_encode(void *priv, const struct hws_event_request *req, struct hws_event_desc *out, int max,
	       char *err, size_t errlen);
int spe_controls(void *priv, const char *pmu, struct hws_control_info *out, int max);

#endif
