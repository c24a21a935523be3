/* SPDX-License-Identifier: MIT */
/*
 * c2c analysis, private to core/analysis: the object (struct hws_c2c) and the records the
 * c2c files share. The files, one concern each:
 *   c2c.c           object lifetime, hash tables, per-sample aggregation (hws_c2c__add)
 *                   and settling the per-sample records into counters;
 *   c2c_hist.c      per-line latency histograms and their percentiles;
 *   c2c_classify.c  hws_c2c__finish(): line verdicts, report order, symbols; accessors;
 *   c2c_text.c, c2c_json.c, c2c_html.c  the renderers (through the accessors).
 *
 * Invariants:
 *  - a line is keyed by its virtual address & ~(line_size - 1) alone, as perf c2c does for
 *    file-backed and shared maps (so processes sharing memory at one address meet; private
 *    memory of forked processes at the same address is merged too - the pid column shows
 *    it); its pid is the first sample's, used for symbols. An entry is keyed by (data
 *    address, pid, tid, code address). Both live in flat arrays indexed by open-addressing
 *    hash tables (slot = index + 1, 0 = empty), grown at half load; entries of one line are
 *    chained through ->next; lines and entries are created in sample order;
 *  - memory: one entry (256 bytes) per distinct key, one line per line, a latency
 *    histogram per line (bounded, see struct lhist), a side record per entry that saw
 *    more than NSLOT kinds or a CPU >= 256, fixed-size queues; symbols are resolved in
 *    __finish() for the reported lines only, once per distinct (pid, address), and shared
 *    by the entries (by index in c->syms);
 *  - members marked "(__finish)" are valid only once c->finished; after __finish() the
 *    object is read-only: report order, classification and the symbol strings (copied,
 *    owned here in c->syms) never change;
 *  - functions called per sample across files are static inline here; the others shared
 *    by the c2c files are named hws__c2c_*.
 */
#ifndef HWS_ANALYSIS_C2C_INT_H
#define HWS_ANALYSIS_C2C_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/c2c.h>
#include <hwsample/errors.h>
#include <hwsample/strbuf.h>

enum cnt {
	C_RECORDS,
	C_LOADS,
	C_STORES,
	C_LOCKS,
	C_LCL_HITM,
	C_RMT_HITM,
	C_LCL_PEER,
	C_RMT_PEER,
	C_RMT_HIT,
	C_LD_FB,
	C_LD_L1,
	C_LD_L2,
	C_LD_LLC,
	C_LD_UNC,
	C_LD_IO,
	C_LCL_DRAM,
	C_RMT_DRAM,
	C_ST_L1HIT,
	C_ST_L1MISS,
	C_ST_NA,
	C_RMW, /* locked / atomic load: a read-modify-write, so a write too */
	NC,
	NCP = (NC + 3) & ~3, /* counter vectors (kinds, side records) padded to 4 x u32 */
};

#define BIT(x)	   (1U << (x))
#define NONE	   UINT32_MAX
#define MAX_UNITS  4096 /* per line, for the pair analysis */
#define NODE_CACHE 1024
#define LBUF_MAX   65536 /* latencies buffered before they are counted per line */

/*
 * Sources of coherence evidence: the names the samples' backends give them
 * (ops->coherence_source, found through opts.backends), SRC_FALLBACK for samples of other
 * backends. Numbered as first seen (a source's bit: 1 << its number, in u8 masks); at most
 * MAX_SRC told apart, further names count as the last one. Reports list them in name order.
 */
#define MAX_SRC	     8
#define SRC_FALLBACK "perf data_src"

struct lat {
	uint64_t sum, lcl_hitm, rmt_hitm, peer;
	uint64_t n;
};

/*
 * Load latencies of one line, for its percentiles: exact counts per distinct value in a
 * small open-addressing table (n == 0: empty slot) while a line has at most LH_SPARSE_MAX
 * distinct values (hardware latencies are u16 cycle counts: far fewer in practice); past
 * that, log-linear buckets (exact below 2^(LH_MBITS+1), relative error < 2^-LH_MBITS above).
 * Samples append (line, value) to one buffer of LBUF_MAX pairs, counted into the lines a
 * batch at a time (a sequential write per sample instead of a probe of the line's table).
 * A line with LH_SMALL_AFTER loads gets direct counters for the values below LH_SMALL (most
 * load latencies), one increment without a probe, through the pointer its entries keep
 * (entry->small). @total counts the values added through lh_add() (all of them until
 * there are direct counters); lh_nr() counts them all.
 * Memory per line: LH_SMALL counters, plus at most 2 * LH_SPARSE_MAX slots or LH_DENSE
 * counters.
 */
#define LH_SMALL       1024
#define LH_SMALL_AFTER 256
#define LH_SPARSE_MAX  4096
#define LH_MBITS       10
#define LH_EXACT       (2U << LH_MBITS)
#define LH_DENSE       (LH_EXACT + (32 - LH_MBITS - 1) * (1U << LH_MBITS))

struct lh_slot {
	uint32_t v, n;
};

struct lhist {
	uint32_t *small;   /* counts of values < LH_SMALL (lines with >= LH_SMALL_AFTER loads) */
	struct lh_slot *t; /* values the other arrays do not take */
	uint32_t size, used;
	uint32_t *dense;
	uint64_t total;
};

/*
 * An entry: its first two cache lines are all a sample reads or writes (the key, compared
 * when probing, then the slots); the rest is set up once or in __finish().
 */
#define NSLOT	  4	      /* kinds counted in an entry's slots */
#define KFREE	  0xfe	      /* kid byte of a free slot (kinds are < MAX_KINDS) */
#define KFREE_ALL 0xfefefefeU /* four free slots */
struct entry {
	uint64_t addr, ip; /* data and code address */
	uint32_t pid, tid;
	uint32_t kid;	    /* byte k: the kind (c->kinds index) of slot k, KFREE if free */
	uint32_t kn[NSLOT]; /* samples of slot k */
	uint32_t lat_n;	    /* samples with a latency */
	uint16_t width;
	uint8_t src_mask; /* source bits of coherence samples without a slot (all: __finish) */
	uint32_t line;
	uint32_t *small; /* the line's lh.small (direct counters), NULL until made; not after
			  * __finish */
	union {
		uint64_t klat[NSLOT]; /* latency sum of slot k (until __finish) */
		struct {
			uint64_t sum, lcl_hitm, rmt_hitm, peer;
		} lat; /* latency sums (__finish) */
	};
	uint64_t cpus[4]; /* bit cpu of CPUs < 256; from __finish bit cpu % 256 of any CPU */
	/* cold */
	uint32_t c[NC]; /* counters (__finish) */
	uint32_t xc;	/* c->xcnt index + 1 of the side record, 0: none */
	uint64_t nodes; /* bit per NUMA node < 64 (__finish) */
	uint32_t next, offset;
	uint32_t sym, dsym; /* c->syms index + 1 of the code and data symbols, 0: none */
	uint8_t in_false, in_true;
	uint32_t name; /* c->names row + 1 of its data's names (opts.names, __finish), 0: none */
	uint64_t time; /* of its first sample (0 without HWS_SF_TIME): its object's lookup */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct entry) == 256, "four cache lines");
_Static_assert(offsetof(struct entry, cpus) + sizeof(uint64_t) * 4 == 128,
	       "a sample touches the first two cache lines");

/* Side record of an entry: its samples whose kind has no slot, and its CPUs >= 256. */
struct xcnt {
	uint32_t c[NCP]; /* counters */
	uint64_t sum, lcl_hitm, rmt_hitm, peer;
	uint64_t cpus_hi[4]; /* bit cpu % 64 of word (cpu / 64) % 4 */
	uint64_t nodes_hi;   /* their nodes */
};

struct line {
	uint64_t addr;
	uint32_t pid;
	uint32_t first, nr_entries;
	uint8_t cls;
	uint8_t src_mask; /* source bits of coherence samples */
	uint8_t symbolized;
	uint8_t inferred; /* classified from coherence misses alone (no store sampled) */
	uint32_t evidence;
	float conf;
	uint64_t c[NC]; /* sums of the entries' counters (__finish) */
	struct lat lat; /* sum of the entries' latencies (__finish) */
	uint64_t cpus[4];
	uint64_t nodes;
	struct lhist lh;
	uint32_t nr_threads, nr_cpus, nr_nodes, nr_offsets;
	uint32_t p50, p90, p99;
	uint64_t false_off, true_off;
	uint32_t *order; /* entries in offset order (reported lines) */
	char *evidence_text;
	const char *data_symbol; /* owned by c->syms */
	char *sharing_text;	 /* opts.names (c2c_names.c) */
	uint32_t first_field, nr_fields;
};

/*
 * classify() reads only data_src, whether data_src and op are valid, op, op_flags, mem_level
 * and snoop: a file has few distinct combinations, so the mask is memoized per combination
 * (direct-mapped) instead of re-running its data-dependent branches for every sample.
 */
#define CLS_MEMO 256
struct cls_memo {
	uint64_t ds;
	uint64_t rest; /* memo_rest(); bit 2: valid */
	const char *backend;
	uint32_t m;
	uint8_t kind;	 /* index in c->kinds, NO_KIND if they are full */
	uint8_t src_bit; /* source bit if m has a coherence event, else 0 */
	uint8_t load;	 /* m counts a load (its latency is kept) */
};

/*
 * A kind of sample (a distinct counter mask and coherence source): its counters as a vector
 * of 0/1, and all-ones masks for the latency sums it feeds, to turn an entry's slot counts
 * and latency sums into counters and source bits (__finish), or to add a sample to an
 * entry's side record.
 */
#define MAX_KINDS 64
#define NO_KIND	  0xff
_Static_assert(MAX_KINDS <= KFREE && NSLOT == 4, "kind indexes fit a kid byte, beside KFREE");
struct kind {
	uint32_t dv[NCP];
	uint64_t lcl_hitm, rmt_hitm, peer; /* ~0 if the latency counts in that sum */
	uint32_t m;
	uint8_t src_bit; /* source bit if m has a coherence event, else 0 */
};

/* A sample queued for pend_flush(). */
#define NR_PEND		  1024
#define PEND_PREFETCH	  8
#define PREFETCH_MIN_ENTS 4096 /* ~1 MiB of entries */
struct pend {
	uint64_t addr, ip, key;	     /* key: ent_key() */
	uint64_t time;		     /* a new entry's first sample time */
	uint32_t pid, tid, cpu, lat; /* lat: 0 without a latency */
	uint32_t m;		     /* counter bits */
	uint16_t width;
	uint8_t src_bit; /* source bit of a coherence sample, else 0 */
	uint8_t has_lat;
	uint8_t kind; /* c->kinds index, or NO_KIND */
};

/* Entry hash slot: upper half of the key's hash (cheap reject) and entry index + 1 (0 = empty). */
struct eslot {
	uint32_t tag, idx;
};

/* Memoized symbol of one (pid, address): strings owned here, shared by the entries. */
struct symrec {
	uint64_t addr;
	uint32_t pid;
	uint8_t data;
	char *symbol, *dso, *srcline;
};

struct hws_c2c {
	struct hws_c2c_opts o;
	uint32_t shift;
	struct line *lines;
	uint32_t nr_lines, cap_lines;
	uint32_t *lhash;
	uint32_t lhash_size;
	struct entry *ents; /* 64-byte aligned, in ents_mem */
	char *ents_mem;
	uint32_t nr_ents, cap_ents;
	struct xcnt *xcnt; /* counters of the kinds without a slot in their entry */
	uint32_t nr_xcnt, cap_xcnt;
	struct eslot *ehash;
	uint32_t ehash_size;
	uint64_t *lbuf; /* (line << 32 | latency) of the latest loads, counted in batches */
	uint32_t nr_lbuf, cap_lbuf;
	uint64_t tot[NC]; /* samples without an address; entries are added in __finish */
	uint64_t noaddr, other;
	struct lat tlat;
	uint8_t src_seen;	       /* __finish */
	uint64_t src_count[MAX_SRC];   /* __finish */
	uint64_t src_cnt[MAX_SRC];     /* coherence samples per source (slots: __finish) */
	const char *src_name[MAX_SRC]; /* owned by the backends (or SRC_FALLBACK) */
	uint8_t nr_src;
	uint8_t src_order[MAX_SRC];	/* source numbers in name order (__finish) */
	const char *src_last;		/* backend name of the latest source_of() ... */
	uint8_t src_last_nr;		/* ... its source number + 1, 0 = none */
	struct cls_memo memo[CLS_MEMO]; /* classify() of recent sample kinds */
	struct kind kinds[MAX_KINDS];
	uint32_t nr_kinds;
	struct pend pend[NR_PEND]; /* samples not counted yet */
	uint32_t nr_pend;
	uint32_t *report;
	uint32_t nr_report;
	struct symrec *syms; /* symbol memo (__finish) */
	uint32_t nr_syms, cap_syms;
	uint32_t *shash;
	uint32_t shash_size;
	int16_t node_cache[NODE_CACHE]; /* node + 2 of a CPU, 0 = not asked yet */
	struct hws_c2c_stats totals;	/* filled by __finish */
	bool finished;
	char *line_size_source;
	hws_c2c_out_fn out_fn; /* rendered text goes here in pieces (hws_c2c__set_output) */
	void *out_ctx;
	struct c2c_names *names; /* opts.names, c2c_names.c; NULL until a line is named */
	struct c2c_chains *cc;	 /* call paths (opts.callchain), c2c_chain.c; NULL until a sample
				  * with a call chain */
};

/* ---------------------------------------------------------------- helpers */

/* ---------------------------------------------------------------- shared helpers */

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Latency sums of a settled entry. */
static inline struct lat ent_lat(const struct entry *e)
{
	struct lat l = {e->lat.sum, e->lat.lcl_hitm, e->lat.rmt_hitm, e->lat.peer, e->lat_n};

	return l;
}

/* A line of this class is reported without --show-all. */
static inline bool c2c_contended(unsigned int cls)
{
	return cls == HWS_C2C_FALSE_SHARING || cls == HWS_C2C_TRUE_SHARING ||
	       cls == HWS_C2C_MIXED || cls == HWS_C2C_UNRESOLVED;
}

static inline double c2c_mean(uint64_t sum, uint64_t n)
{
	return n ? (double)sum / (double)n : 0.0;
}

static inline const char *c2c_conf_label(float f)
{
	return f >= 0.75f ? "high" : f >= 0.45f ? "medium" : "low";
}

/* The distinct offsets of report line @i in false (@fls) or true sharing, comma-separated,
 * in @hex (0x..) or decimal; how many. */
static inline uint32_t c2c_sharing_offsets(struct hws_strbuf *sb, const struct hws_c2c *c,
					   uint32_t i, bool fls, bool hex)
{
	struct hws_c2c_entry_info e;
	uint32_t j, n = hws_c2c__nr_entries(c, i), last = UINT32_MAX, nr = 0;

	for (j = 0; j < n; j++) {
		hws_c2c__entry(c, i, j, &e);
		if (!(fls ? e.in_false : e.in_true) || e.offset == last)
			continue;
		last = e.offset;
		hws_strbuf__addf(sb, hex ? "%s0x%x" : "%s%u", nr++ ? "," : "", e.offset);
	}
	return nr;
}

#define OUT_CHUNK (1u << 20)

/* with an output function, hand it what @sb holds once that passes OUT_CHUNK: the report's
 * size is then not bounded by the strbuf's cap, and memory stays at about a chunk */
static inline void c2c_out_drain(const struct hws_c2c *c, struct hws_strbuf *sb)
{
	if (!c->out_fn || sb->len < OUT_CHUNK)
		return;
	if (c->out_fn(c->out_ctx, sb->buf, sb->len))
		sb->toobig = 1; /* the output failed: the report ends with an error */
	sb->len = 0;
	sb->buf[0] = 0;
}

/* the render's result: 0, or HWS_E_TOO_BIG when the text passed @sb's cap (or the output
 * function failed) */
static inline int c2c_out_result(const struct hws_c2c *c, struct hws_strbuf *sb)
{
	if (!sb->toobig && c->out_fn && sb->len) {
		if (c->out_fn(c->out_ctx, sb->buf, sb->len))
			sb->toobig = 1;
		sb->len = 0;
		sb->buf[0] = 0;
	}
	return sb->toobig ? HWS_E_TOO_BIG : 0;
}

/* ---------------------------------------------------------------- across the c2c files */

/* c2c.c: grow array *@p of *@cap elements of @elem bytes (doubling) to hold @need. 0 or
 * -ENOMEM. */
int hws__c2c_grow(void **p, uint32_t *cap, uint32_t need, size_t elem);
/* c2c.c: count every queued sample and turn the entries' per-sample records (slots, side
 * records) into counters, line sums, totals and coherence sources; count the buffered
 * latencies; sets c->finished (hws_c2c__add() refuses samples from then on). 0 or -ENOMEM. */
int hws__c2c_settle(struct hws_c2c *c);

/* c2c.c: index of the entry (addr, pid, tid, ip), or NONE. */
uint32_t hws__c2c_entry_of(const struct hws_c2c *c, uint64_t addr, uint32_t pid, uint32_t tid,
			   uint64_t ip);
/* c2c_chain.c: keep the call chain of sample @s (with an address; ip, pid, tid as in its
 * entry). 0 or -ENOMEM. */
int hws__c2c_chain_add(struct hws_c2c *c, const struct hws_sample *s, uint64_t ip, uint32_t pid,
		       uint32_t tid);
/* c2c_chain.c: find the entry of each kept call chain (settle, while the entry table is
 * there). */
void hws__c2c_chain_bind(struct hws_c2c *c);
/* c2c_chain.c: name the paths of the reported, symbolized lines and count them per row and
 * line (__finish, after the symbols). 0 or -ENOMEM. */
int hws__c2c_chain_finish(struct hws_c2c *c, struct hws_symbols *syms, uint32_t nr_symbolized);
void hws__c2c_chain_free(struct c2c_chains *cc);

/* c2c_names.c: name the rows of reported line @l (classified, symbolized) and gather its
 * fields and named verdict (opts.names). 0 or -ENOMEM. */
int hws__c2c_names_line(struct hws_c2c *c, struct line *l, struct hws_symbols *syms);
/* c2c_names.c: the names of entry @e into @out (nothing without). */
void hws__c2c_names_entry(const struct hws_c2c *c, const struct entry *e,
			  struct hws_c2c_entry_info *out);
void hws__c2c_names_free(struct c2c_names *n);

/* c2c_hist.c: count the buffered latencies (c->lbuf) into their lines' histograms. */
int hws__c2c_lbuf_flush(struct hws_c2c *c);
/* c2c_hist.c: nearest-rank percentiles @ps[0..n) (n <= 3) of @h into @out; the table is
 * consumed (sorted in place). 0 or -ENOMEM. */
int hws__c2c_lh_percentiles(struct lhist *h, const unsigned int *ps, uint32_t *out, int n);
void hws__c2c_lh_free(struct lhist *h);

/* c2c_json.c: hws_c2c__render_json_top(); @stream: pieces go to the c2c's output function
 * (the HTML page renders its embedded JSON without) */
int hws__c2c_render_json(const struct hws_c2c *c, struct hws_strbuf *sb, uint32_t detail,
			 bool stream);

#endif
