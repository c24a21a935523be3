// SPDX-License-Identifier: MIT
/*
 * Side-band records: COMM, MMAP, MMAP2 and FORK into the symbol tables (struct hws_symbols),
 * the kernel symbols of the recording's kernel (dec_check_host()), and the records that
 * count losses (LOST, LOST_SAMPLES, THROTTLE, UNTHROTTLE, AUX).
 *
 * Invariants: records are read only inside their header.size (short ones are counted as
 * errors or ignored); nothing of a record is kept but what the symbol tables and counters
 * take; calls events.c and aux_stream.c (dec_aux_tracker()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include <hwsample/aux.h>
#include <hwsample/symbols.h>

#include "decode/decode_int.h"

#define AUX_FLAG_TRUNCATED 0x01
#define AUX_FLAG_OVERWRITE 0x02
#define AUX_FLAG_PARTIAL   0x04
#define AUX_FLAG_COLLISION 0x08

#define MISC_COMM_EXEC (1U << 13)
#define MISC_MMAP_DATA (1U << 13) /* the same bit, in MMAP records */

/*
 * Kernel symbols: from the kallsyms of the kernel the file was recorded on.
 *  - opts.kallsyms (perf report --kallsyms): that file, whatever the host;
 *  - the recording kernel is the running one (the file's HEADER_BUILD_ID entry for
 *    [kernel.kallsyms] equals /sys/kernel/notes; without a build-id on either side,
 *    hostname and osrelease): /proc/kallsyms, or perf's build-id cache copy of it when that
 *    provably lists the same addresses (much cheaper than the kernel generating it);
 *  - another kernel: the build-id cache copy, if there is one; else no kernel names.
 * Symbols move with KASLR when the file's kernel MMAP says so (see symbols.h).
 */
/*
 * The files of the recording's HEADER_BUILD_ID (user ones: the kernel's is above): each
 * read only when its build-id is the recorded one, else from perf's build-id cache (a
 * binary rebuilt since), and the vDSO from the cache (its image dumped at record time).
 */
static void dec_build_ids(struct hws_decoder *d, const char *cdir)
{
	char name[4096], bid[48], copy[4096];
	uint16_t misc;
	int n;

	for (size_t i = 0; (n = hws_perf_reader__build_id_entry(d->r, i, name, sizeof(name), bid,
								sizeof(bid), &misc)) != -ENOENT &&
			   n != -EINVAL;
	     i++) {
		bool have;

		if (n <= 0 || (misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)
			continue;
		have =
		    cdir && *cdir && !hws__buildid_cache_path(cdir, name, bid, copy, sizeof(copy));
		hws_symbols__build_id(d->syms, name, bid, have ? copy : NULL);
	}
}

/* the build-id cache directory decoding reads (NULL: none) */
static const char *dec_cache_dir(const struct hws_decoder *d, char *buf, size_t len)
{
	if (d->opts.buildid_dir)
		return d->opts.buildid_dir;
	return hws__buildid_dir(buf, len) ? NULL : buf;
}

void dec_build_id_record(struct hws_decoder *d, const struct hws_perf_record *rec)
{
	char name[4096], bid[48], copy[4096], dir[4096];
	const char *cdir, *nm;
	size_t nlen;
	uint16_t misc;
	bool have;

	/* before the host check, dec_build_ids() reads it from the reader's list */
	if (!d->host_checked || d->opts.no_sideband ||
	    hws_perf_build_id__parse(rec->hdr, rec->hdr->size, &nm, &nlen, bid, sizeof(bid),
				     &misc) <= 0 ||
	    (misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER || nlen >= sizeof(name))
		return;
	memcpy(name, nm, nlen);
	name[nlen] = 0;
	cdir = dec_cache_dir(d, dir, sizeof(dir));
	have = cdir && *cdir && !hws__buildid_cache_path(cdir, name, bid, copy, sizeof(copy));
	hws_symbols__build_id(d->syms, name, bid, have ? copy : NULL);
}

void dec_check_host(struct hws_decoder *d)
{
	char bid[48], run[48], copy[4096], dir[4096];
	const char *cdir = dec_cache_dir(d, dir, sizeof(dir));
	bool have_copy = false, same;
	struct utsname u;
	int nb, err;

	d->host_checked = true;
	if (d->opts.no_sideband)
		return;
	dec_build_ids(d, cdir);
	if (d->opts.no_kallsyms)
		return;
	if (d->opts.kallsyms) {
		err = hws_symbols__use_kallsyms(d->syms, d->opts.kallsyms);
		if (err)
			pr_warn("kallsyms file %s: %s: kernel addresses stay [kernel]\n",
				d->opts.kallsyms, strerror(-err));
		return;
	}
	nb = hws_perf_reader__build_id(d->r, "[kernel.kallsyms]", bid, sizeof(bid));
	if (nb > 0) {
		have_copy =
		    cdir && *cdir && !hws__buildid_kallsyms_path(cdir, bid, copy, sizeof(copy));
	}
	if (nb > 0 && hws__kernel_build_id(run, sizeof(run)) > 0) {
		same = !strcmp(bid, run);
	} else {
		const char *host = hws_perf_reader__string(d->r, HWS_FEAT_HOSTNAME);
		const char *rel = hws_perf_reader__string(d->r, HWS_FEAT_OSRELEASE);

		same = !uname(&u) && host && rel && !strcmp(host, u.nodename) &&
		       !strcmp(rel, u.release);
	}
	if (same)
		err = hws_symbols__use_kallsyms_copy(d->syms, "/proc/kallsyms",
						     have_copy ? copy : NULL, "/proc/modules");
	else if (have_copy)
		err = hws_symbols__use_kallsyms(d->syms, copy);
	else
		return (void)pr_info("decode: no kallsyms of the recording's kernel%s%s (not the "
				     "running one, none in the build-id cache): kernel addresses "
				     "stay [kernel]; hws_decoder_opts.kallsyms names them\n",
				     nb > 0 ? " " : "", nb > 0 ? bid : "");
	if (err)
		pr_debug("decode: kallsyms not usable (%s), kernel addresses stay [kernel]\n",
			 strerror(-err));
}

static const char *rec_str(const struct hws_perf_record *rec, size_t off, char *buf, size_t len)
{
	size_t sz = rec->hdr->size, n;
	const char *s = (const char *)rec->hdr + off;

	if (off >= sz)
		return "";
	n = strnlen(s, sz - off);
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return buf;
}

void dec_sideband(struct hws_decoder *d, const struct hws_perf_record *rec)
{
	const uint8_t *p = (const uint8_t *)rec->hdr;
	uint32_t type = rec->hdr->type, size = rec->hdr->size, pid, tid;
	uint64_t addr, len, pgoff;
	char name[4096];

	if (d->opts.no_sideband)
		return;
	switch (type) {
	case PERF_RECORD_COMM:
		if (size < 16)
			return;
		memcpy(&pid, p + 8, 4);
		memcpy(&tid, p + 12, 4);
		hws_symbols__comm(d->syms, pid, tid, rec_str(rec, 16, name, 64),
				  (rec->hdr->misc & MISC_COMM_EXEC) != 0);
		return;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		size_t fo = type == PERF_RECORD_MMAP ? 40 : 72;
		uint32_t prot;
		if (size < fo)
			return;
		memcpy(&pid, p + 8, 4);
		memcpy(&addr, p + 16, 8);
		memcpy(&len, p + 24, 8);
		memcpy(&pgoff, p + 32, 8);
		/* perf: an MMAP is executable unless marked data; an MMAP2 says its prot */
		if (type == PERF_RECORD_MMAP2)
			memcpy(&prot, p + 64, 4);
		else
			prot = (rec->hdr->misc & MISC_MMAP_DATA) ? 0 : HWS_PROT_EXEC;
		hws_symbols__mmap_prot(d->syms, pid, addr, len, pgoff, prot,
				       rec_str(rec, fo, name, sizeof(name)));
		return;
	}
	case PERF_RECORD_FORK: {
		uint32_t ppid, ptid;
		if (size < 24)
			return;
		memcpy(&pid, p + 8, 4);
		memcpy(&ppid, p + 12, 4);
		memcpy(&tid, p + 16, 4);
		memcpy(&ptid, p + 20, 4);
		hws_symbols__fork_thread(d->syms, pid, ppid, tid, ptid);
		return;
	}
	default:
		return;
	}
}

void dec_loss(struct hws_decoder *d, const struct hws_perf_record *rec)
{
	const uint8_t *p = (const uint8_t *)rec->hdr;
	uint32_t size = rec->hdr->size, cpu;
	struct hws_decode_counts *c;
	uint64_t a, b, fl;
	int ev = -1;

	switch (rec->hdr->type) {
	case PERF_RECORD_LOST:
		if (size < 24)
			break;
		memcpy(&a, p + 8, 8); /* id */
		memcpy(&b, p + 16, 8);
		ev = hws_perf_reader__attr_by_id(d->r, a);
		dec_record_ev_cpu(d, rec, &ev, &cpu, NULL);
		c = counts_or_dummy(d, ev, cpu);
		c->lost += b;
		c->lost_records++;
		return;
	case PERF_RECORD_LOST_SAMPLES:
		if (size < 16)
			break;
		memcpy(&a, p + 8, 8);
		dec_record_ev_cpu(d, rec, &ev, &cpu, NULL);
		counts_or_dummy(d, ev, cpu)->lost_samples += a;
		return;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (size < 32)
			break;
		memcpy(&a, p + 16, 8); /* id */
		ev = hws_perf_reader__attr_by_id(d->r, a);
		dec_record_ev_cpu(d, rec, &ev, &cpu, NULL);
		c = counts_or_dummy(d, ev, cpu);
		if (rec->hdr->type == PERF_RECORD_THROTTLE)
			c->throttle++;
		else
			c->unthrottle++;
		return;
	case PERF_RECORD_AUX:
		if (size < 32)
			break;
		memcpy(&b, p + 16, 8); /* aux_size */
		memcpy(&fl, p + 24, 8);
		dec_record_ev_cpu(d, rec, &ev, &cpu, NULL);
		c = counts_or_dummy(d, ev, cpu);
		c->aux_records++;
		c->aux_bytes += b;
		c->aux_truncated += !!(fl & AUX_FLAG_TRUNCATED);
		c->aux_partial += !!(fl & AUX_FLAG_PARTIAL);
		c->aux_collision += !!(fl & AUX_FLAG_COLLISION);
		c->aux_overwrite += !!(fl & AUX_FLAG_OVERWRITE);
		{
			struct hws_aux *t = dec_aux_tracker(d, cpu < MAX_CPU ? cpu + 1 : 0);
			uint64_t aoff;
			memcpy(&aoff, p + 8, 8);
			if (t)
				hws_aux__note_aux_record(t, aoff, b, fl);
		}
		return;
	default:
		return;
	}
	counts_or_dummy(d, -1, (uint32_t)-1)->errors++;
}
