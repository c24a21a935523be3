// SPDX-License-Identifier: MIT
/*
 * The call-chain memo of report -g (see report_cgmemo.h for the interface and its
 * invariants).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_cgmemo.h"

struct entry {
	uint64_t hash, value;
	size_t key, payload; /* offsets in the arenas */
	uint32_t nkey;
};

struct cg_memo {
	struct entry *e;
	size_t nr, alloc;
	uint32_t *slot; /* entry + 1 */
	size_t size;
	uint64_t *keys;
	size_t nkeys, akeys; /* words */
	uint64_t *data;
	size_t ndata, adata; /* words */
	/* the last failed find, for the add that follows */
	uint64_t last_hash;
	size_t last_slot;
};

struct cg_memo *cg_memo__new(void)
{
	return calloc(1, sizeof(struct cg_memo));
}

void cg_memo__delete(struct cg_memo *m)
{
	if (!m)
		return;
	free(m->e);
	free(m->slot);
	free(m->keys);
	free(m->data);
	free(m);
}

static uint64_t words_hash(const uint64_t *k, uint32_t n)
{
	uint64_t x = 0x9E3779B97F4A7C15ULL ^ n;

	for (uint32_t i = 0; i < n; i++) {
		x ^= k[i];
		x *= 0xbf58476d1ce4e5b9ULL;
		x ^= x >> 31;
	}
	return x ^ (x >> 29);
}

static int grow_index(struct cg_memo *m)
{
	size_t ns = m->size ? m->size * 2 : 1024;
	uint32_t *s = calloc(ns, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t j = 0; j < m->nr; j++) {
		size_t i = m->e[j].hash & (ns - 1);

		while (s[i])
			i = (i + 1) & (ns - 1);
		s[i] = (uint32_t)j + 1;
	}
	free(m->slot);
	m->slot = s;
	m->size = ns;
	return 0;
}

long cg_memo__find(struct cg_memo *m, const uint64_t *k, uint32_t n)
{
	uint64_t h = words_hash(k, n);
	size_t i;
	uint32_t s;

	m->last_hash = h;
	if (!m->size) {
		m->last_slot = (size_t)-1;
		return -1;
	}
	for (i = h & (m->size - 1); (s = m->slot[i]); i = (i + 1) & (m->size - 1)) {
		const struct entry *e = &m->e[s - 1];

		if (e->hash == h && e->nkey == n && !memcmp(m->keys + e->key, k, n * sizeof(*k)))
			return (long)s - 1;
	}
	m->last_slot = i;
	return -1;
}

/* room for @n more words in an arena */
static int reserve(uint64_t **a, size_t nr, size_t *alloc, size_t n)
{
	size_t na = *alloc ? *alloc : 4096;
	uint64_t *p;

	if (nr + n <= *alloc)
		return 0;
	while (na < nr + n)
		na *= 2;
	p = realloc(*a, na * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*a = p;
	*alloc = na;
	return 0;
}

long cg_memo__add(struct cg_memo *m, const uint64_t *k, uint32_t n, size_t size, void **payload)
{
	size_t words = (size + 7) / 8;
	struct entry *e;

	if ((m->nr + 1) * 2 > m->size || m->last_slot == (size_t)-1) {
		if ((m->nr + 1) * 2 > m->size && grow_index(m))
			return -ENOMEM;
		m->last_slot = m->last_hash & (m->size - 1);
		while (m->slot[m->last_slot])
			m->last_slot = (m->last_slot + 1) & (m->size - 1);
	}
	if (m->nr == m->alloc) {
		size_t na = m->alloc ? m->alloc * 2 : 1024;

		e = realloc(m->e, na * sizeof(*e));
		if (!e)
			return -ENOMEM;
		m->e = e;
		m->alloc = na;
	}
	if (reserve(&m->keys, m->nkeys, &m->akeys, n) ||
	    reserve(&m->data, m->ndata, &m->adata, words))
		return -ENOMEM;
	e = &m->e[m->nr];
	e->hash = m->last_hash;
	e->value = 0;
	e->key = m->nkeys;
	e->nkey = n;
	e->payload = m->ndata;
	memcpy(m->keys + m->nkeys, k, n * sizeof(*k));
	m->nkeys += n;
	m->ndata += words;
	m->slot[m->last_slot] = (uint32_t)++m->nr;
	m->last_slot = (size_t)-1;
	*payload = m->data + e->payload;
	return (long)m->nr - 1;
}

uint64_t *cg_memo__value(struct cg_memo *m, long id)
{
	return &m->e[id].value;
}

void *cg_memo__payload(struct cg_memo *m, long id)
{
	return m->data + m->e[id].payload;
}

size_t cg_memo__nr(const struct cg_memo *m)
{
	return m ? m->nr : 0;
}

size_t cg_memo__bytes(const struct cg_memo *m)
{
	return m ? (m->nkeys + m->ndata) * sizeof(uint64_t) + m->nr * sizeof(struct entry) : 0;
}

void cg_memo__clear(struct cg_memo *m)
{
	if (!m)
		return;
	m->nr = m->nkeys = m->ndata = 0;
	if (m->slot)
		memset(m->slot, 0, m->size * sizeof(*m->slot));
	m->last_slot = (size_t)-1;
}
