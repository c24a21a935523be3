// SPDX-License-Identifier: MIT
/*
 * Tracepoint samples: the RAW payload decoded with libtraceevent, using the formats the
 * file carries in HEADER_TRACING_DATA (written by hwsample or by perf). The blob is parsed
 * here (layout in core/kernel/tracing.c), bounds-checked at every step: a short or corrupt blob
 * makes tracepoint decoding unavailable for that file, never a crash.
 *
 * One parsed handle is cached per blob (keyed by its address and size); it is rebuilt when
 * another file is decoded. libtraceevent allocates it (the one allocation this backend does,
 * once per file), freed at fini().
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "sw.h"

struct cur {
	const uint8_t *p, *end;
	int swap;
};

static int need(struct cur *c, size_t n)
{
	return (size_t)(c->end - c->p) >= n;
}

static int get32(struct cur *c, uint32_t *v)
{
	if (!need(c, 4))
		return -1;
	memcpy(v, c->p, 4);
	if (c->swap)
		*v = __builtin_bswap32(*v);
	c->p += 4;
	return 0;
}

static int get64(struct cur *c, uint64_t *v)
{
	if (!need(c, 8))
		return -1;
	memcpy(v, c->p, 8);
	if (c->swap)
		*v = __builtin_bswap64(*v);
	c->p += 8;
	return 0;
}

/* NUL-terminated string inside the blob */
static const char *get_str(struct cur *c)
{
	const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
	const char *s = (const char *)c->p;

	if (!z)
		return NULL;
	c->p = z + 1;
	return s;
}

static int get_blob(struct cur *c, uint64_t size, const char **data)
{
	if (size > (uint64_t)(c->end - c->p))
		return -1;
	*data = (const char *)c->p;
	c->p += size;
	return 0;
}

/*
 * Bounds on what reaches libtraceevent, which parses a format's print fmt recursively (a
 * file nesting parentheses 200,000 deep overflowed the stack) and every format it is given
 * (tens of thousands took seconds): kernel formats are a few KiB, nest a few levels, and a
 * recording carries at most a few thousand of them.
 */
#define TP_MAX_FORMAT  (64u << 10)
#define TP_MAX_DEPTH   64
#define TP_MAX_FORMATS 8192

static bool ident_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

struct tp_lex {
	const char *p, *end;
};

static bool tp_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* skips blanks; the next token's first byte, or 0 at the end (a NUL ends the text) */
static char tp_peek(struct tp_lex *l)
{
	while (l->p < l->end && tp_space(*l->p))
		l->p++;
	return l->p < l->end ? *l->p : 0;
}

/* true when the operator token at l->p has no priority in libtraceevent (get_op_prio() -1) */
static bool tp_op_noprio(const struct tp_lex *l)
{
	const char *q = l->p;
	char c = *q, c2 = q + 1 < l->end ? q[1] : 0, c3 = q + 2 < l->end ? q[2] : 0;

	if (!c || ident_char(c) || strchr("(),\"'", c))
		return false; /* not an operator */
	switch (c) {
	case '~':
	case '*':
	case '/':
	case '%':
	case '^':
	case '?':
	case ':':
	case '!': /* "!" or "!=" */
		return false;
	case '=':
		return c2 != '=';
	case '-':
		return c2 == '>' || c2 == '=';
	case '+':
	case '|':
	case '&':
		return c2 == '='; /* "+" and "++" have one, "+=" none; so '|', '&' */
	case '<':
	case '>':
		return c2 == c && c3 == '='; /* "<", "<<", "<=" but not "<<=" */
	default:
		return true;
	}
}

/*
 * Past a quoted literal at l->p (its quote byte) as libtraceevent's tokenizer reads it: to
 * the next quote byte not right after a backslash, or to a tab (it takes only printable bytes
 * and newlines in a literal; format_bad() lets no other unprintable byte through), which
 * ends the literal there. A double-quoted literal followed, blanks aside, by another '"' is
 * one token with what follows it (an operand "" "" then ';' crashed it as "" alone does, and
 * so did "a<TAB>" ";" read its way: "a", then " " joined to it, then ';': fuzz_sw finds).
 */
static void tp_skip_quoted(struct tp_lex *l)
{
	char q = *l->p;

	for (;;) {
		char last = *l->p++;
		const char *s;

		while (l->p < l->end && *l->p && !((*l->p == q || *l->p == '\t') && last != '\\'))
			last = *l->p++;
		if (l->p >= l->end || !*l->p)
			return; /* the end (a NUL ends the text) */
		l->p++;		/* the closing quote, or the tab that ends the literal */
		s = l->p;
		if (q != '"' || tp_peek(l) != '"') {
			l->p = s;
			return;
		}
	}
}

/*
 * Where libtraceevent starts parsing a print fmt's arguments: past its format string (one
 * double-quoted token, joined as the tokenizer joins them) and the ',' after it; NULL when
 * it parses none (no print fmt, no string first, or no ',' after it: event_read_print()
 * stops there, as with maple_tree's formats, whose string a tab ends), so nothing after it
 * can crash it.
 */
#define TP_PRINT_FMT "print fmt:"

/* @pf: where "print fmt:" is in the format ending at @end, or NULL */
static const char *tp_args(const char *pf, const char *end)
{
	struct tp_lex l = {.end = end};

	if (!pf)
		return NULL;
	l.p = pf + sizeof(TP_PRINT_FMT) - 1;
	if (tp_peek(&l) != '"')
		return NULL;
	tp_skip_quoted(&l);
	if (tp_peek(&l) != ',')
		return NULL;
	return l.p + 1;
}

/*
 * libtraceevent folds constant sub-expressions of a format's print arguments while parsing,
 * with C's '/' and '%' on long long: a zero divisor (or LLONG_MIN / -1) kills the process with
 * SIGFPE (found by fuzz_sw: "0x000000/08", where "08" reads as 0). So, outside string
 * literals after "print fmt:", a '/' or '%' whose divisor is a literal 0, or does not start
 * with a digit or a name (a value this check does not evaluate: '(', '-', '~', '!', and a
 * string literal, which it folds as 0: a fuzz_sw find, '/""'), or is a name other than
 * REC->FIELD and sizeof(TYPE) of a plain C type (libtraceevent folds an unknown name as 0:
 * "REC->x % s" was a fuzz_sw find), refuses the format. The print fmt is read to the end of
 * the text, as libtraceevent reads it, not to the end of its line ("1\n%0" was another). Kernels'
 * formats divide by field values, positive constants and sizeof(u64) / sizeof(unsigned int) (all
 * 2323 formats of a 6.18 kernel).
 */
static bool sizeof_known(const char *p, const char *end)
{
	static const char *const types[] = {
	    "u8",	 "u16",		 "u32",		  "u64",
	    "s8",	 "s16",		 "s32",		  "s64",
	    "char",	 "short",	 "int",		  "long",
	    "long long", "unsigned int", "unsigned long", "unsigned long long",
	    "unsigned"};
	const char *q = p, *e;

	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	if (q == end || *q != '(')
		return false;
	q++;
	e = memchr(q, ')', (size_t)(end - q));
	if (!e)
		return false;
	while (q < e && *q == ' ')
		q++;
	while (e > q && e[-1] == ' ')
		e--;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i]) == (size_t)(e - q) && !memcmp(types[i], q, (size_t)(e - q)))
			return true;
	return false;
}

/* @args: tp_args() of the format ending at @end */
static const char *div_trap(const char *args, const char *end)
{
	struct tp_lex l = {.end = end};
	const char *p;

	for (l.p = args; l.p && l.p < end && *l.p;) {
		const char *q;

		if (*l.p == '"' || *l.p == '\'') { /* literals as libtraceevent reads them */
			tp_skip_quoted(&l);
			continue;
		}
		p = l.p++;
		if (*p != '/' && *p != '%')
			continue;
		for (q = p + 1; q < end && (*q == ' ' || *q == '\t'); q++)
			;
		if (q == end || !ident_char(*q)) /* '(', '-', a string or character literal... */
			return "dividing by an expression (a division by zero would stop the "
			       "process)";
		if ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_') {
			if ((size_t)(end - q) > 5 && !memcmp(q, "REC->", 5))
				continue;
			if ((size_t)(end - q) > 6 && !memcmp(q, "sizeof", 6) &&
			    sizeof_known(q + 6, end))
				continue;
			return "dividing by a name that is not a field (a division by zero would "
			       "stop the process)";
		}
		if (*q >= '0' && *q <= '9') {
			char num[32];
			size_t n = 0;

			while (q < end && n < sizeof(num) - 1 &&
			       ((*q >= '0' && *q <= '9') || (*q | 0x20) == 'x' ||
				((*q | 0x20) >= 'a' && (*q | 0x20) <= 'f')))
				num[n++] = *q++;
			num[n] = 0;
			if (!strtoull(num, NULL, 0))
				return "dividing by zero";
		}
	}
	return NULL;
}

/*
 * libtraceevent dereferences NULL when a print fmt's __print_flags() (and others) names with
 * REC->NAME a field the format does not declare (found by fuzz_sw), so every REC->NAME outside
 * string literals must be one of the "field:" lines' names. Kernels' formats satisfy this (all
 * 2323 of a 6.18 kernel do). At most TP_MAX_FIELDS fields; names compared after sorting.
 */
#define TP_MAX_FIELDS 1024

struct span {
	const char *s;
	size_t n;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);

	return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* @pf: "print fmt:" in the format @data ending at @end; @args: tp_args() */
static const char *rec_trap(const char *data, const char *pf, const char *args, const char *end)
{
	static const char fkey[] = "field:", rkey[] = "REC->";
	const char *p = data;
	struct span *f;
	size_t nf = 0;
	const char *why = NULL;
	struct tp_lex l = {.end = end};

	if (!pf)
		return NULL;
	f = malloc(TP_MAX_FIELDS * sizeof(*f));
	if (!f)
		return "too large to check (out of memory)";
	/* field:TYPE NAME[N];  the name is the identifier before ';' (and an array's [N]) */
	while ((p = memmem(p, (size_t)(pf - p), fkey, sizeof(fkey) - 1))) {
		const char *e = memchr(p, ';', (size_t)(end - p)), *b;

		p += sizeof(fkey) - 1;
		if (!e || e > pf)
			break;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e > p && e[-1] == ']')
			while (e > p && *--e != '[')
				;
		for (b = e; b > p && ident_char(b[-1]); b--)
			;
		if (nf == TP_MAX_FIELDS) {
			why = "declaring more than 1024 fields";
			goto out;
		}
		f[nf++] = (struct span){b, (size_t)(e - b)};
	}
	qsort(f, nf, sizeof(*f), span_cmp);
	for (l.p = args; l.p && l.p < end && *l.p;) {
		struct span k;

		if (*l.p == '"' || *l.p == '\'') { /* literals as libtraceevent reads them */
			tp_skip_quoted(&l);
			continue;
		}
		p = l.p++;
		if ((size_t)(end - p) < sizeof(rkey) - 1 || memcmp(p, rkey, sizeof(rkey) - 1))
			continue;
		p += sizeof(rkey) - 1;
		for (k.s = p; p < end && ident_char(*p); p++)
			;
		k.n = (size_t)(p - k.s);
		if (!bsearch(&k, f, nf, sizeof(*f), span_cmp)) {
			why = "naming a field it does not declare (REC->NAME in its print fmt)";
			goto out;
		}
		l.p = p;
	}
out:
	free(f);
	return why;
}

/*
 * libtraceevent's process_op() parses "X[N]" and "C ? A : B", and then, when the next token
 * is an operator, goes on with process_op(NULL) unless that operator has a priority: a SEGV
 * (fuzz_sw finds: "REC->f[6];" and "1 ? 2 : C->"). So in a print fmt, outside string and
 * character literals, the token after an index's ']' and after a ternary's third operand must
 * not be an operator libtraceevent gives no priority (';', ']', '[', '.', '=', "->", compound
 * assignments, other punctuation); ':', '(' ')' ',', names, numbers, literals and the end
 * are taken. Tokens are read as its tokenizer reads them (tp_peek(), tp_operand()). Of the
 * 2323 formats of a 6.18 kernel none is refused (four have "[] =", kvmmmu's: an empty index
 * is a parse error there, not a crash).
 */
/* past the parenthesis group at l->p ('('), literals inside skipped */
static void tp_skip_group(struct tp_lex *l)
{
	int depth = 0;

	while (l->p < l->end && *l->p) {
		char c = *l->p;

		if (c == '"' || c == '\'') {
			tp_skip_quoted(l);
			continue;
		}
		l->p++;
		if (c == '(')
			depth++;
		else if (c == ')' && --depth <= 0)
			return;
	}
}

/*
 * Past one operand as process_arg() reads it (a literal, REC->NAME, a call NAME(...), an atom
 * of one or more names, a parenthesized group and what it casts). Return false for an
 * operand starting with an operator (process_op()'s unary case, which has its right operand:
 * no NULL there) or with nothing: the caller does not check what follows.
 */
static bool tp_operand(struct tp_lex *l)
{
	char c = tp_peek(l);

	if (c == '"' || c == '\'') {
		tp_skip_quoted(l);
		return true;
	}
	if (c == '(') {
		tp_skip_group(l);
		c = tp_peek(l);
		if (c == '(' || ident_char(c) || c == '"' || c == '\'')
			return tp_operand(l); /* a cast */
		return true;
	}
	if (!ident_char(c))
		return false;
	for (bool first = true; ident_char(tp_peek(l)); first = false) {
		const char *w = l->p;

		while (l->p < l->end && ident_char(*l->p))
			l->p++;
		/* REC->NAME only as the first word: "r REC" is an atom of two words */
		if (first && (size_t)(l->p - w) == 3 && !memcmp(w, "REC", 3)) {
			if (tp_peek(l) == '-' && l->p + 1 < l->end && l->p[1] == '>') {
				l->p += 2;
				tp_peek(l);
				while (l->p < l->end && ident_char(*l->p))
					l->p++;
			}
			return true;
		}
		if (tp_peek(l) == '(') {
			if (first) /* a call; after more words the '(' ends the atom */
				tp_skip_group(l);
			return true;
		}
	}
	return true;
}

/* @args: tp_args() of the format @data ending at @end */
static const char *noprio_trap(const char *data, const char *args, const char *end)
{
	struct tp_lex l = {.end = end};

	for (l.p = args; l.p && l.p < l.end && *l.p;) {
		char c = *l.p;

		if (c == '"' || c == '\'') {
			tp_skip_quoted(&l);
			continue;
		}
		l.p++;
		if (c == ']') {
			/* "X[]" is a parse error there, not a crash */
			const char *b = l.p - 1;

			while (b > data && tp_space(b[-1]))
				b--;
			if (b > data && b[-1] == '[')
				continue;
		} else if (c == ':') {
			struct tp_lex o = l;

			if (!tp_operand(&o))
				continue;
			l = o;
		} else {
			continue;
		}
		tp_peek(&l);
		if (l.p < l.end && tp_op_noprio(&l))
			return c == ']'
				   ? "using an array index followed by an operator libtraceevent "
				     "cannot parse (']' then ';', '.', \"->\", '=' or the like)"
				   : "using a ternary followed by an operator libtraceevent cannot "
				     "parse (\"? A : B\" then ';', '.', \"->\", '=' or the like)";
	}
	return NULL;
}

/*
 * libtraceevent reads a format as a C string (up to its first NUL) and calls strcmp() on a
 * NULL token when that text ends in a '[' (an array size with nothing after it, spaces and
 * tabs aside: a fuzz_sw find, "field:unsigned char com[" then a NUL). Kernels' formats end
 * in a newline after their print fmt.
 */
static bool open_bracket_at_end(const char *data, uint64_t size)
{
	const char *z = memchr(data, 0, (size_t)size);
	size_t n = z ? (size_t)(z - data) : (size_t)size;

	while (n && (data[n - 1] == ' ' || data[n - 1] == '\t'))
		n--;
	return n && data[n - 1] == '[';
}

/*
 * A quote before "print fmt:" (@pf, or the end). Kernels declare fields without one; libtraceevent
 * reads the declarations with its tokenizer, where a quote opens a string or character token that
 * runs on over the following lines, so the fields it sees are not the ones declared (and
 * rec_trap's check of the print fmt's REC->NAME against them misses): a field name quoted
 * that way (field:char prev_comm[16'];) left REC->prev_state undeclared to it, and its
 * __print_flags() on that field dereferenced NULL (found by fuzz_sw).
 */
static const char *quote_trap(const char *data, const char *pf, const char *end)
{
	size_t n = (size_t)((pf ? pf : end) - data);

	if (memchr(data, '"', n) || memchr(data, '\'', n))
		return "quoting in its field declarations (a quote before its print fmt)";
	return NULL;
}

/* NULL, or why the format @data can not be handed to libtraceevent */
static const char *format_bad(const char *data, uint64_t size)
{
	const char *why, *end = data + size, *pf, *args;
	int depth = 0;

	if (size > TP_MAX_FORMAT)
		return "larger than 64 KiB";
	if (open_bracket_at_end(data, size))
		return "cut short after a '[' (an array size with nothing after it)";
	for (uint64_t i = 0; i < size; i++) {
		unsigned char b = (unsigned char)data[i];

		/* kernels write formats in ASCII; libtraceevent dereferences NULL on a field name
		 * with bytes >= 0x80 (found by fuzz_sw) */
		if (b >= 0x7f || (b < 0x20 && b && b != '\t' && b != '\n'))
			return "not ASCII text (a byte that is neither printable ASCII, tab nor "
			       "newline)";
		if (data[i] == '(' || data[i] == '[' || data[i] == '{') {
			if (++depth > TP_MAX_DEPTH)
				return "nested more than 64 deep";
		} else if ((data[i] == ')' || data[i] == ']' || data[i] == '}') && depth) {
			depth--;
		}
	}
	pf = memmem(data, size, TP_PRINT_FMT, sizeof(TP_PRINT_FMT) - 1);
	args = tp_args(pf, end);
	if ((why = quote_trap(data, pf, end)) || (why = div_trap(args, end)) ||
	    (why = rec_trap(data, pf, args, end)))
		return why;
	return noprio_trap(data, args, end);
}

/* @data: the format, for its event's name (the "name: " line's identifier), or NULL */
static void format_refused(struct sw_priv *p, const char *sys, uint32_t i, const char *data,
			   uint64_t size, const char *why)
{
	static const char key[] = "name: ";
	char name[80] = "";
	size_t n = 0;

	if (data && size > sizeof(key) - 1 && !memcmp(data, key, sizeof(key) - 1)) {
		const char *q = data + sizeof(key) - 1, *end = data + size;

		name[n++] = ' ';
		name[n++] = '(';
		while (q < end && ident_char(*q) && n < 64 + 2)
			name[n++] = *q++;
		memcpy(name + n, ")", 2);
		if (n == 2)
			name[0] = 0;
	}
	p->host->log(HWS_LOG_WARN,
		     "the file's tracing data (HEADER_TRACING_DATA): event format %u%s of system "
		     "'%.64s' is %s: not parsed, tracepoint fields are not decoded\n",
		     i, name, sys, why);
}

/*
 * The printk section's lines "ADDR : FORMAT" that libtraceevent can take, copied to @out (n + 2
 * bytes): tep_parse_printk_formats() skips one byte past the ':' of each line and
 * tep_register_print_string() a leading '"', then looks 3 bytes back from the format's end, so
 * a line starting with ':', or whose format is shorter than 3 bytes after those skips, would
 * make them read outside the string (found by fuzz_sw). Other lines are dropped (a format that
 * short names nothing), as are NULs inside the section.
 */
static void printk_lines(char *out, const char *in, uint32_t n)
{
	char *o = out;

	for (uint32_t i = 0; i < n;) {
		uint32_t e = i, colon = UINT32_MAX;

		while (e < n && in[e] != '\n' && in[e]) {
			if (in[e] == ':' && colon == UINT32_MAX)
				colon = e;
			e++;
		}
		/* the format: past the ':' and one byte, past a leading '"' */
		uint32_t f = colon != UINT32_MAX ? colon + 2 : e;

		if (f < e && in[f] == '"')
			f++;
		if (e > i && in[i] != ':' && f < e && e - f >= 3) {
			memcpy(o, in + i, e - i);
			o += e - i;
			*o++ = '\n';
		}
		i = e + 1;
	}
	*o = 0;
}

/*
 * Walks a HEADER_TRACING_DATA blob. @out NULL: checks only (layout, limits, formats
 * libtraceevent must not see), saying why a format is refused; libtraceevent is not called.
 * Else parses it into a new handle *@out, silently. Return: 0, or -1 (nothing parsed).
 */
static int walk(struct sw_priv *p, const void *blob, size_t len, struct tep_handle **out)
{
	bool quiet = out != NULL;
	uint32_t nformats = 0;
	const char *why;
	static const char magic[10] = {23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
	struct cur c = {blob, (const uint8_t *)blob + len, 0};
	struct tep_handle *tep = NULL;
	const char *version, *data;
	uint32_t n, page_size;
	uint64_t size;
	uint8_t big, long_size;

	if (!need(&c, 10) || memcmp(c.p, magic, 10))
		return -1;
	c.p += 10;
	version = get_str(&c);
	if (!version || !need(&c, 2))
		return -1;
	big = c.p[0];
	long_size = c.p[1];
	c.p += 2;
	c.swap = big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	if (get32(&c, &page_size) || (long_size != 4 && long_size != 8))
		return -1;
	if (!out)
		goto walk;
	tep = tep_alloc();
	if (!tep)
		return -1;
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
									    : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, (int)page_size);
walk:

	/* header_page, header_event */
	for (int i = 0; i < 2; i++) {
		const char *name = get_str(&c);
		if (!name || get64(&c, &size) || get_blob(&c, size, &data))
			goto bad;
		if (i == 0 && size && tep)
			tep_parse_header_page(tep, (char *)data, size, long_size);
	}
	/* ftrace formats */
	if (get32(&c, &n))
		goto bad;
	for (uint32_t i = 0; i < n; i++) {
		if (get64(&c, &size) || get_blob(&c, size, &data))
			goto bad;
		if (++nformats > TP_MAX_FORMATS) {
			if (!quiet)
				format_refused(p, "ftrace", i, NULL, 0, "beyond 8192 formats");
			goto bad;
		}
		if ((why = format_bad(data, size))) {
			if (!quiet)
				format_refused(p, "ftrace", i, data, size, why);
			goto bad;
		}
		if (tep)
			tep_parse_event(tep, data, size, "ftrace");
	}
	/* event formats by system */
	uint32_t nsys;
	if (get32(&c, &nsys))
		goto bad;
	for (uint32_t s = 0; s < nsys; s++) {
		const char *sys = get_str(&c);
		if (!sys || get32(&c, &n))
			goto bad;
		for (uint32_t i = 0; i < n; i++) {
			if (get64(&c, &size) || get_blob(&c, size, &data))
				goto bad;
			if (++nformats > TP_MAX_FORMATS) {
				if (!quiet)
					format_refused(p, sys, i, NULL, 0, "beyond 8192 formats");
				goto bad;
			}
			if ((why = format_bad(data, size))) {
				if (!quiet)
					format_refused(p, sys, i, data, size, why);
				goto bad;
			}
			if (tep)
				tep_parse_event(tep, data, size, sys);
		}
	}
	/* kallsyms, printk formats: optional for field decoding */
	if (!get32(&c, &n) && !get_blob(&c, n, &data) && !get32(&c, &n) &&
	    !get_blob(&c, n, &data) && n && tep) {
		char *copy = malloc((size_t)n + 2);
		if (copy) {
			printk_lines(copy, data, n);
			tep_parse_printk_formats(tep, copy);
			free(copy);
		}
	}
	if (out)
		*out = tep;
	return 0;
bad:
	if (tep)
		tep_free(tep);
	return -1;
}

void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/*
 * libtraceevent's format parser crashes on some malformed formats (NULL dereferences, reads
 * past its strings, division by zero: found by fuzz_sw, in code we cannot change), and a
 * crash would lose the user's session. So, once walk() has checked a file's formats here
 * (and said what it refuses), they are parsed first in a child process, which ends quietly if
 * libtraceevent crashes (default signal actions, no core, no sanitizer callback) and is
 * killed after PROBE_SECONDS; only formats the child parsed to the end are parsed here (the
 * parse is deterministic). Once per file, about a millisecond. Return: NULL if the child
 * finished, else why not. A failed fork() is not a verdict: the formats are parsed without
 * the probe.
 */
#define PROBE_SECONDS 30

static const char *probe(struct sw_priv *p, const void *blob, size_t len)
{
#ifdef HWS_FUZZ
	/*
	 * Fuzz builds parse in-process (walk() has applied the same limits): a crash in
	 * libtraceevent is what the fuzzer is looking for, and the parse's coverage is its guide
	 * (a child's coverage never reaches it); libFuzzer's -timeout stands for PROBE_SECONDS.
	 * HWS_SW_PROBE=1 keeps the child (scripts/test's short runs gate our code, not
	 * libtraceevent's crashes that the probe turns into a warning).
	 */
	const char *keep = getenv("HWS_SW_PROBE");

	if (!keep || strcmp(keep, "1"))
		return NULL;
#endif
	struct tep_handle *tep;
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP};
	struct timespec t0, now, nap = {0, 1000000};
	struct rlimit no_core = {0, 0};
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return NULL;
	if (pid == 0) {
		if (__sanitizer_set_death_callback)
			__sanitizer_set_death_callback(NULL);
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		setrlimit(RLIMIT_CORE, &no_core);
		_exit(walk(p, blob, len, &tep) ? 1 : 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			break;
		if (r < 0)
			return errno == EINTR ? probe(p, blob, len) : NULL;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= PROBE_SECONDS) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return "take libtraceevent more than 30 s to parse";
		}
		nanosleep(&nap, NULL);
	}
	if (WIFSIGNALED(st))
		return "crash libtraceevent's parser";
	return NULL;
}

static struct tep_handle *parse_tracing_data(struct sw_priv *p, const void *blob, size_t len)
{
	struct tep_handle *tep = NULL;
	const char *why;

	if (walk(p, blob, len, NULL)) {
		why = "cannot be parsed";
	} else if ((why = probe(p, blob, len)) == NULL) {
		if (!walk(p, blob, len, &tep))
			return tep;
		why = "cannot be parsed";
	}
	p->host->log(HWS_LOG_WARN,
		     "the file's tracepoint formats (%zu bytes of tracing data) %s: tracepoint "
		     "fields are not decoded%s\n",
		     len, why,
		     strcmp(why, "cannot be parsed") ? " (the file is damaged or was written by a "
						       "broken tool)"
						     : "");
	return NULL;
}

static struct tep_handle *tep_for(struct sw_priv *p, const struct hws_file_info *fi)
{
	if (!fi || !fi->tracing_data || !fi->tracing_data_size)
		return NULL;
	if (p->tp_blob == fi->tracing_data && p->tp_len == fi->tracing_data_size)
		return p->tep;
	if (p->tep)
		tep_free(p->tep);
	p->tp_blob = fi->tracing_data;
	p->tp_len = fi->tracing_data_size;
	p->tep = parse_tracing_data(p, fi->tracing_data, (size_t)fi->tracing_data_size);
	return p->tep;
}

int sw_tp_json(struct sw_priv *p, const struct hws_file_info *fi, const struct hws_sample *s,
	       struct hws_strbuf *out)
{
	struct tep_handle *tep = tep_for(p, fi);
	const uint8_t *raw = s->raw;
	struct tep_format_field *f;
	struct tep_event *ev;
	char name[1024];
	uint16_t id;
	int first = 1;

	if (!tep || !raw || s->raw_size < 2)
		return p->host->strbuf_addf(out, "{}");
	memcpy(&id, raw, 2);
	ev = tep_find_event(tep, id);
	if (!ev)
		return p->host->strbuf_addf(out, "{\"tracepoint_id\":%u}", id);
	/* system and event names come from the file: data, escaped like every other string */
	snprintf(name, sizeof(name), "%s:%s", ev->system, ev->name);
	p->host->strbuf_addf(out, "{\"tracepoint\":");
	p->host->strbuf_add_json_str(out, name);
	for (f = ev->format.fields; f; f = f->next) {
		int off = f->offset, size = f->size;

		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			/* __data_loc: u32 = len << 16 | offset (relative to the field end if
			 * RELATIVE) */
			uint32_t loc;
			if (off < 0 || (uint32_t)off + 4 > s->raw_size)
				continue;
			memcpy(&loc, raw + off, 4);
			size = (int)(loc >> 16);
			off = (int)(loc & 0xffff) +
			      ((f->flags & TEP_FIELD_IS_RELATIVE) ? off + 4 : 0);
		}
		if (off < 0 || size < 0 || (uint64_t)off + (uint64_t)size > s->raw_size)
			continue;
		p->host->strbuf_addf(out, ",");
		p->host->strbuf_add_json_str(out, f->name);
		p->host->strbuf_addf(out, ":");
		if (f->flags & TEP_FIELD_IS_STRING) {
			char str[512];
			int n = size < (int)sizeof(str) - 1 ? size : (int)sizeof(str) - 1;
			memcpy(str, raw + off, (size_t)n);
			str[n] = 0;
			p->host->strbuf_add_json_str(out, str);
		} else if (!(f->flags & TEP_FIELD_IS_ARRAY) &&
			   (size == 1 || size == 2 || size == 4 || size == 8)) {
			unsigned long long v = tep_read_number(tep, raw + off, size);
			if (f->flags & TEP_FIELD_IS_SIGNED) {
				long long sv = size == 1   ? (int8_t)v
					       : size == 2 ? (int16_t)v
					       : size == 4 ? (int32_t)v
							   : (long long)v;
				p->host->strbuf_addf(out, "%lld", sv);
			} else {
				p->host->strbuf_addf(out, "%llu", v);
			}
		} else {
			p->host->strbuf_addf(out, "\"");
			for (int i = 0; i < size && i < 256; i++)
				p->host->strbuf_addf(out, "%02x", raw[off + i]);
			p->host->strbuf_addf(out, "\"");
		}
		first = 0;
	}
	(void)first;
	return p->host->strbuf_addf(out, "}");
}

void sw_tp_fini(struct sw_priv *p)
{
	if (p->tep)
		tep_free(p->tep);
	p->tep = NULL;
	p->tp_blob = NULL;
	p->tp_len = 0;
}
