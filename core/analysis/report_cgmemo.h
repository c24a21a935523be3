/* SPDX-License-Identifier: MIT */
/*
 * A memo of call chains for report -g (report_chain.c): the samples' chains as they come
 * (key: their raw words), each met once, with the period of every sample that had it and
 * a payload the caller fills when it first meets the chain (its resolved frames). A chain
 * seen again costs a hash of its words instead of a symbol lookup, a row lookup and a tree
 * walk per frame; the caller adds each entry's total to its trees when it flushes, in the
 * order the entries were first met (which creates the trees' nodes in the order the
 * samples would have).
 *
 * Invariants:
 *  - entries are numbered 0.. in order of their first cg_memo__add(); keys and payloads
 *    live in two arenas (payloads 8-byte aligned), addressed by offset, so they move when
 *    an arena grows: pointers from cg_memo__payload() are valid until the next add;
 *  - the index is an open-addressing power-of-two table of entry numbers + 1, at most half
 *    full;
 *  - cg_memo__clear() empties everything but keeps the memory for reuse.
 */
#ifndef HWS_REPORT_CGMEMO_H
#define HWS_REPORT_CGMEMO_H

#include <stddef.h>
#include <stdint.h>

struct cg_memo;

struct cg_memo *cg_memo__new(void);
void cg_memo__delete(struct cg_memo *m); /* NULL-safe */

/* the entry of key @k (@n words): its number, or -1 (then cg_memo__add() may follow) */
long cg_memo__find(struct cg_memo *m, const uint64_t *k, uint32_t n);
/* a new entry for the key of the last cg_memo__find() that failed, with @size bytes of
 * payload (*payload, uninitialized) and value 0: its number, or -ENOMEM */
long cg_memo__add(struct cg_memo *m, const uint64_t *k, uint32_t n, size_t size, void **payload);
/* the entry's value (the caller's sum) and payload */
uint64_t *cg_memo__value(struct cg_memo *m, long id);
void *cg_memo__payload(struct cg_memo *m, long id);
size_t cg_memo__nr(const struct cg_memo *m);
/* the memory its keys and payloads take */
size_t cg_memo__bytes(const struct cg_memo *m);
void cg_memo__clear(struct cg_memo *m);

#endif
