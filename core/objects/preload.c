// SPDX-License-Identifier: MIT
/*
 * hws-objects.so: the allocation recorder hwsample record --objects preloads (LD_PRELOAD)
 * into the programs it launches. Not part of libhwsample; it uses nothing of it but the
 * file format in include/hwsample/objects.h.
 *
 * Environment (set by hwsample record): HWS_OBJECTS_DIR (where each process creates its
 * file, PID.N.objs; unset: record nothing), HWS_OBJECTS_MIN (smallest block recorded,
 * default 1024), HWS_OBJECTS_DEPTH (frames per allocation, 1..HWS_OBJ_FRAMES, default all),
 * HWS_OBJECTS_KEEP_FREE (bytes of that file system records leave free, default 64 MiB).
 *
 * Invariants:
 *  - Never allocates: the real allocators are glibc's __libc_* entry points (no dlsym), the
 *    file is created with raw calls, the records go to a MAP_SHARED mapping of it. A hook
 *    re-entered on the same thread (pthread_getattr_np allocates) passes straight through.
 *  - Each thread reserves chunks of CHUNK_RECS records with an atomic add on the file
 *    header's @used and fills them alone; a record is published by storing its type last
 *    (release): a reader sees whole records or type 0 (also the unused rest of a chunk).
 *    Records live in the page cache as soon as they are written: a kill of the program or
 *    of hwsample loses at most the record being written.
 *  - A full file system drops records, never kills the program: the file's space is
 *    allocated (fallocate) a MiB ahead of the records stored into it (a store to a page of
 *    a sparse file the file system has no room for raises SIGBUS), and only while that
 *    leaves HWS_OBJECTS_KEEP_FREE bytes (default 64 MiB) free there for hwsample's samples;
 *    once it cannot, the header says so (HWS_OBJFILE_F_NOSPACE) and later records count as
 *    dropped. Without room for the header the process records nothing.
 *  - The records' pages are written with zeros (pwrite) ahead of the records, 64 KiB and then
 *    doubling to a MiB at a time, by one thread while the others wait: stores to pages the
 *    page cache has fault without reading the sparse file around them.
 *  - Frees go four to a record (HWS_OBJREC_FREES, each published by the record's count),
 *    heap blocks two to a record (HWS_OBJREC_ALLOCS) with the number of their call chain:
 *    each thread keeps the chains it has seen in a small direct-mapped cache (SITES) and
 *    writes a HWS_OBJREC_SITE record (numbered process-wide) for each chain it misses on.
 *  - The cost of an allocation under the threshold is one compare and a jump to the real
 *    allocator (a tail call); of a free, one read of the block's size word (glibc's chunk
 *    header, as malloc_usable_size reads it).
 *  - Times (x86-64): rdtsc ticks; the file header pairs the first tick with CLOCK_MONOTONIC
 *    and a HWS_OBJREC_CLOCK record pairs another each millisecond of ticks that has
 *    records (and at exit), so the reader converts exactly between pairs. Elsewhere:
 *    clock_gettime(CLOCK_MONOTONIC) nanoseconds.
 *  - Blocks smaller than the threshold are not recorded; a free is recorded when the block's
 *    size reaches the threshold (a superset of the recorded blocks; the reader ignores
 *    frees of blocks it does not know).
 *  - Call chains: the allocator's return address, then saved frame pointers, each frame
 *    checked to lie above the previous one and inside the thread's stack (recorded once per
 *    thread as a HWS_OBJREC_STACK record): a program without frame pointers gives fewer or
 *    wrong outer frames, never a crash.
 *  - fork(): the child opens its own file; exec(): the new image opens a new one.
 *  - Thread-local storage: each thread's block of every module with a PT_TLS segment
 *    (dl_iterate_phdr's dlpi_tls_data: the static TLS of the program and the libraries it
 *    started with) is recorded when the thread starts (pthread_create is wrapped; the main
 *    thread at load) and freed when its start routine returns.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <hwsample/objects.h>

#define EXPORT	   __attribute__((visibility("default")))
#define CAPACITY   (1ULL << 30) /* sparse: only written pages take space */
#define CHUNK_RECS 64		/* records a thread reserves at once */
#define SPACE_STEP (1ULL << 20) /* bytes of the file given room at once (fallocate) */
#define FILL_MIN   (1ULL << 16) /* the first zeros written ahead of the records */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);
extern void *__libc_stack_end;
size_t malloc_usable_size(void *);
/* not in the headers any more (cfree) or not with _GNU_SOURCE alone */
void cfree(void *);
void *memalign(size_t, size_t);
void *pvalloc(size_t);

enum { ST_NONE, ST_INIT, ST_ON, ST_OFF };

static int state;
static struct hws_objfile *hdr;
static uint8_t *recs;
/* the file stays open to allocate its space and write its pages ahead of the records
 * (space_for()): a store to a page the file system has no room for would kill the program
 * with SIGBUS */
static int rec_fd = -1;
static uint64_t room_end; /* bytes of records the file system has given room for */
/* bytes of records whose pages are in the page cache, written with zeros (space_for()): a
 * store to them faults without reading the file (read-around) */
static uint64_t space_end;
static uint64_t fill_step; /* zeros written at once next: FILL_MIN, doubling to SPACE_STEP */
static int fill_lock;	   /* held by the thread extending space_end */
static uint64_t keep_free = HWS_OBJECTS_KEEP_FREE_DEFAULT; /* bytes left free on it */
static int nospace; /* it had no room for more: later records are dropped */
static uint64_t min_size = 1024;
/* free()'s test on x86-64: the smallest glibc chunk size word (the header's 8 bytes and the
 * low flag bits included) of a block of min_size bytes, a multiple of 8 */
static uint64_t free_min = 1032;
static unsigned int depth = HWS_OBJ_FRAMES;
static pid_t my_pid;
static uint64_t tsc_hz, clock_every, last_clock; /* ticks; 0: times are nanoseconds */

#define TLS __thread __attribute__((tls_model("initial-exec")))
static TLS int in_hook;
static TLS pid_t my_tid;
static TLS uintptr_t stack_lo, stack_hi;	 /* 1: unknown */
static TLS struct hws_objrec *chunk, *chunk_end; /* this thread's records to fill */
static TLS struct hws_objrec *frees;		 /* this thread's FREES record being filled */
static TLS struct hws_objrec *allocs;		 /* this thread's ALLOCS record being filled */

#define FREES_MAX  4 /* (time, addr) pairs in a FREES record */
#define ALLOCS_MAX 2 /* (time, addr, size, fn << 32 | site) in an ALLOCS record */
#define SITES	   256

/* a call chain this thread has written a SITE record for (id 0: none) */
struct site {
	uint64_t frames[HWS_OBJ_FRAMES];
	uint32_t n, id;
};

static TLS struct site sites[SITES];
static uint32_t last_site; /* SITE numbers of this process */

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
#define HAVE_TSC 1
static inline uint64_t ticks(void)
{
	return __builtin_ia32_rdtsc();
}
#else
#define HAVE_TSC 0
static inline uint64_t ticks(void)
{
	return 0;
}
#endif

static struct hws_objrec *reserve(void);
static void publish(struct hws_objrec *r, uint8_t type);

/* a tick and the CLOCK_MONOTONIC time at it: the clock read between two ticks, the tightest
 * of three tries (a read can take microseconds: a forked child's first one faults in the
 * vDSO's data page) */
static void tick_pair(uint64_t *tick, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 3; i++) {
		uint64_t t0 = ticks(), n = mono(), t1 = ticks();

		if (t1 - t0 < best) {
			best = t1 - t0;
			*tick = t0 + best / 2;
			*ns = n;
		}
	}
}

/* a CLOCK record: a tick paired with CLOCK_MONOTONIC (from @t on, the next is due a
 * millisecond of ticks later) */
static void clock_pair(uint64_t t)
{
	struct hws_objrec *r;

	__atomic_store_n(&last_clock, t, __ATOMIC_RELAXED);
	r = reserve();
	if (!r)
		return;
	r->tid = (uint32_t)my_tid;
	tick_pair(&r->addr, &r->time);
	publish(r, HWS_OBJREC_CLOCK);
}

/* a record's time: ticks (with a CLOCK pair each millisecond of them) or nanoseconds */
static inline uint64_t now(void)
{
	uint64_t t;

	if (!tsc_hz)
		return mono();
	t = ticks();
	if (__builtin_expect(t - __atomic_load_n(&last_clock, __ATOMIC_RELAXED) > clock_every, 0))
		clock_pair(t);
	return t;
}

/* the tick rate over about 50 microseconds (the reader needs it only past the last pair) */
static void tsc_init(void)
{
	uint64_t t0, n0, t1, n1;

	if (!HAVE_TSC || getenv("HWS_OBJECTS_NO_TSC"))
		return;
	n0 = mono();
	t0 = ticks();
	do {
		n1 = mono();
		t1 = ticks();
	} while (n1 - n0 < 50000);
	if (t1 <= t0)
		return;
	tsc_hz = (uint64_t)((double)(t1 - t0) * 1e9 / (double)(n1 - n0));
	clock_every = tsc_hz / 1000;
	if (!clock_every)
		tsc_hz = 0;
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	uint64_t n = 0;

	if (!v || !*v)
		return dflt;
	for (; *v >= '0' && *v <= '9'; v++)
		n = n * 10 + (uint64_t)(*v - '0');
	return *v ? dflt : n;
}

static void fmt_uint(char *p, uint64_t v)
{
	char t[24];
	int n = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*p++ = t[--n];
	*p = 0;
}

/* the file of this process: DIR/PID.N.objs, N the first free */
static int open_file(void)
{
	const char *dir = getenv("HWS_OBJECTS_DIR");
	char path[4096];
	size_t dl;
	int fd = -1;
	void *m;

	if (!dir || !*dir || (dl = strlen(dir)) > sizeof(path) - 64)
		return -1;
	for (unsigned int n = 0; n < 1000 && fd < 0; n++) {
		char *p = path;

		memcpy(p, dir, dl);
		p += dl;
		*p++ = '/';
		fmt_uint(p, (uint64_t)my_pid);
		p += strlen(p);
		*p++ = '.';
		fmt_uint(p, n);
		p += strlen(p);
		memcpy(p, ".objs", 6);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)(sizeof(*hdr) + CAPACITY))) {
		close(fd);
		return -1;
	}
	m = mmap(NULL, sizeof(*hdr) + CAPACITY, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
		 fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return -1;
	}
	/* room for the header now, or no recording: without it the program's first store could
	 * meet a full file system (SIGBUS); a file system without fallocate (EOPNOTSUPP) is
	 * written as before, unguarded */
	room_end = space_end = 0; /* the records' room comes with the first (space_for()) */
	fill_step = FILL_MIN;
	nospace = 0;
	if (fallocate(fd, 0, 0, (off_t)sizeof(*hdr))) {
		if (errno != EOPNOTSUPP && errno != ENOSYS) {
			syscall(SYS_munmap, m, sizeof(*hdr) + CAPACITY);
			unlink(path);
			close(fd);
			return -1;
		}
		room_end = UINT64_MAX;
	}
	rec_fd = fd;
	/* no read-around: a store past the zeros written ahead (none is) would read the sparse
	 * file around it (read_ahead_kb: 8 MiB here, zeroed in the program's time) */
	madvise(m, sizeof(*hdr) + CAPACITY, MADV_RANDOM);
	hdr = m;
	recs = (uint8_t *)m + sizeof(*hdr);
	hdr->version = HWS_OBJFILE_VERSION;
	hdr->rec_size = sizeof(struct hws_objrec);
	hdr->pid = (uint32_t)my_pid;
	hdr->ppid = (uint32_t)getppid();
	if (tsc_hz)
		tick_pair(&hdr->tsc0, &hdr->start_time);
	else
		hdr->start_time = mono();
	hdr->tsc_hz = tsc_hz;
	last_clock = hdr->tsc0;
	hdr->min_size = min_size;
	hdr->capacity = CAPACITY;
	hdr->clockid = CLOCK_MONOTONIC;
	hdr->depth = depth;
	__atomic_store_n(&hdr->used, 0, __ATOMIC_RELAXED);
	memcpy(hdr->magic, HWS_OBJFILE_MAGIC, 8); /* last: a reader takes whole headers */
	return 0;
}

/* room for the records before @to (bytes of records), SPACE_STEP at a time, leaving
 * keep_free bytes free there for what else is written (hwsample's samples); unguarded
 * (room_end UINT64_MAX) on a file system without fallocate */
static bool room_for(uint64_t to)
{
	uint64_t have = room_end;
	struct statfs st;

	if (to <= have)
		return true;
	to = (to + SPACE_STEP - 1) & ~(SPACE_STEP - 1);
	if ((keep_free && (fstatfs(rec_fd, &st) ||
			   (uint64_t)st.f_bavail * (uint64_t)st.f_bsize < to - have + keep_free)) ||
	    fallocate(rec_fd, 0, (off_t)(sizeof(*hdr) + have), (off_t)(to - have)))
		return false;
	room_end = to;
	return true;
}

/* zeros written to [@have, @to) (bytes of records) through the page cache: the records' stores
 * then fault on pages that are there, not reading the sparse file page by page (a fault each:
 * 1.2 MB of records took 5 ms this way, 0.6 ms with zeros written ahead, 256 KiB at a time) */
static bool fill(uint64_t have, uint64_t to)
{
	static char zeros[1 << 16];

	while (have < to) {
		size_t n = to - have < sizeof(zeros) ? (size_t)(to - have) : sizeof(zeros);
		ssize_t w = pwrite(rec_fd, zeros, n, (off_t)(sizeof(*hdr) + have));

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		have += (uint64_t)w;
	}
	return true;
}

/* whether the records before @end (bytes of records) have room on the file system and their
 * pages written with zeros, fill_step more at a time; once the file system has no room, or
 * writing fails, HWS_OBJFILE_F_NOSPACE and no more records. One thread at a time extends
 * space_end; a thread whose chunk is past it waits for it: zeros written over a chunk handed
 * out would erase its records. */
static bool space_for(uint64_t end)
{
	uint64_t have, to;
	int e = errno; /* the program's, which a successful malloc() leaves alone */
	bool ok = true;

	if (end <= __atomic_load_n(&space_end, __ATOMIC_ACQUIRE))
		return true;
	if (__atomic_load_n(&nospace, __ATOMIC_RELAXED))
		return false;
	while (__atomic_exchange_n(&fill_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	have = __atomic_load_n(&space_end, __ATOMIC_RELAXED);
	if (end > have) {
		to = have + fill_step > end ? have + fill_step : end;
		if (to > CAPACITY)
			to = CAPACITY;
		if (fill_step < SPACE_STEP)
			fill_step *= 2;
		ok = !__atomic_load_n(&nospace, __ATOMIC_RELAXED) && room_for(to) && fill(have, to);
		if (ok) {
			__atomic_store_n(&space_end, to, __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&nospace, 1, __ATOMIC_RELAXED);
			__atomic_fetch_or(&hdr->flags, HWS_OBJFILE_F_NOSPACE, __ATOMIC_RELAXED);
		}
	}
	__atomic_store_n(&fill_lock, 0, __ATOMIC_RELEASE);
	errno = e;
	return ok;
}

static struct hws_objrec *reserve(void)
{
	uint64_t off;

	if (__builtin_expect(chunk != chunk_end, 1))
		return chunk++;
	if (__atomic_load_n(&nospace, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&hdr->dropped, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	off = __atomic_fetch_add(&hdr->used, CHUNK_RECS * sizeof(struct hws_objrec),
				 __ATOMIC_RELAXED);
	if (off + CHUNK_RECS * sizeof(struct hws_objrec) > hdr->capacity ||
	    !space_for(off + CHUNK_RECS * sizeof(struct hws_objrec))) {
		__atomic_fetch_add(&hdr->dropped, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	chunk = (struct hws_objrec *)(recs + off);
	chunk_end = chunk + CHUNK_RECS;
	return chunk++;
}

static void publish(struct hws_objrec *r, uint8_t type)
{
	__atomic_store_n(&r->type, type, __ATOMIC_RELEASE);
}

/* the main thread's stack from /proc/self/maps (no allocation: a fixed buffer) */
static void main_stack(void)
{
	static char buf[8192];
	size_t have = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	stack_lo = stack_hi = 1;
	if (fd < 0)
		return;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = 0;
		while ((nl = strchr(line, '\n'))) {
			*nl = 0;
			if (strstr(line, "[stack]")) {
				char *e;

				stack_lo = (uintptr_t)strtoull(line, &e, 16);
				stack_hi = (uintptr_t)strtoull(e + 1, NULL, 16);
				close(fd);
				return;
			}
			line = nl + 1;
		}
		have = strlen(line);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0; /* a line longer than the buffer */
	}
	close(fd);
}

/* this thread's id and stack, once (and a STACK record) */
static void thread_init(void)
{
	struct hws_objrec *r;

	my_tid = (pid_t)syscall(SYS_gettid);
	if (my_tid == my_pid) {
		main_stack();
	} else {
		pthread_attr_t a;
		void *lo;
		size_t sz;

		stack_lo = stack_hi = 1;
		if (!pthread_getattr_np(pthread_self(), &a)) {
			if (!pthread_attr_getstack(&a, &lo, &sz)) {
				stack_lo = (uintptr_t)lo;
				stack_hi = (uintptr_t)lo + sz;
			}
			pthread_attr_destroy(&a);
		}
	}
	if (stack_hi <= 1 || !(r = reserve()))
		return;
	r->tid = (uint32_t)my_tid;
	r->time = now();
	r->addr = stack_lo;
	r->size = stack_hi - stack_lo;
	publish(r, HWS_OBJREC_STACK);
}

/* one module's TLS block of this thread (dl_iterate_phdr callback); @data: the record type */
static int tls_module(struct dl_phdr_info *info, size_t size, void *data)
{
	uint8_t type = (uint8_t)(uintptr_t)data;

	if (size < offsetof(struct dl_phdr_info, dlpi_tls_data) + sizeof(void *) ||
	    !info->dlpi_tls_data)
		return 0;
	for (unsigned int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		struct hws_objrec *r;

		if (ph->p_type != PT_TLS || !ph->p_memsz || !(r = reserve()))
			continue;
		r->flags = (uint16_t)info->dlpi_tls_modid;
		r->tid = (uint32_t)my_tid;
		r->time = now();
		r->addr = (uint64_t)(uintptr_t)info->dlpi_tls_data;
		r->size = ph->p_memsz;
		r->old = (uint64_t)(info->dlpi_addr + ph->p_vaddr);
		publish(r, type);
	}
	return 0;
}

/* this thread's TLS blocks: a TLS record each (@type HWS_OBJREC_TLS) or their end (FREE) */
static void tls_blocks(uint8_t type)
{
	dl_iterate_phdr(tls_module, (void *)(uintptr_t)type);
}

static void child_after_fork(void);

static void init(void)
{
	int expect = ST_NONE;

	if (!__atomic_compare_exchange_n(&state, &expect, ST_INIT, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	min_size = env_u64("HWS_OBJECTS_MIN", 1024);
	keep_free = env_u64("HWS_OBJECTS_KEEP_FREE", HWS_OBJECTS_KEEP_FREE_DEFAULT);
	free_min = min_size > UINT64_MAX / 2 ? UINT64_MAX : (min_size + sizeof(size_t) + 7) & ~7ULL;
	depth = (unsigned int)env_u64("HWS_OBJECTS_DEPTH", HWS_OBJ_FRAMES);
	if (depth < 1 || depth > HWS_OBJ_FRAMES)
		depth = HWS_OBJ_FRAMES;
	my_pid = getpid();
	tsc_init();
	if (open_file()) {
		__atomic_store_n(&state, ST_OFF, __ATOMIC_RELEASE);
		return;
	}
	pthread_atfork(NULL, NULL, child_after_fork);
	__atomic_store_n(&state, ST_ON, __ATOMIC_RELEASE);
}

static void child_after_fork(void)
{
	if (state != ST_ON)
		return;
	/* the parent's mapping came along: leave it, start this process's own file; the hooks
	 * pass through meanwhile (munmap's and mmap's would record into the parent's file or
	 * none: the raw call here, ST_INIT for open_file's mmap) */
	state = ST_INIT;
	syscall(SYS_munmap, hdr, sizeof(*hdr) + CAPACITY);
	hdr = NULL;
	if (rec_fd >= 0)
		close(rec_fd);
	rec_fd = -1;
	fill_lock = 0; /* another thread of the parent may have held it */
	my_pid = getpid();
	my_tid = 0;
	stack_lo = stack_hi = 0;
	chunk = chunk_end = NULL;
	frees = allocs = NULL;
	memset(sites, 0, sizeof(sites));
	last_site = 0;
	state = open_file() ? ST_OFF : ST_ON;
}

static inline bool enter(void);
static inline void leave(void);

static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

__attribute__((constructor)) static void ctor(void)
{
	in_hook++;
	init();
	real_pthread_create = dlsym(RTLD_NEXT, "pthread_create");
	in_hook--;
	if (enter()) { /* the main thread's stack and TLS */
		tls_blocks(HWS_OBJREC_TLS);
		leave();
	}
}

/* a last CLOCK pair: the reader converts the last ticks between pairs, not past them */
__attribute__((destructor)) static void dtor(void)
{
	if (state == ST_ON && tsc_hz && !in_hook) {
		in_hook++;
		clock_pair(ticks());
		in_hook--;
	}
}

/* entry of a hook: whether to record (and then in_hook is raised) */
static inline bool enter(void)
{
	if (in_hook)
		return false;
	if (__builtin_expect(state != ST_ON, 0)) {
		if (state != ST_NONE)
			return false;
		in_hook++;
		init();
		in_hook--;
		if (state != ST_ON)
			return false;
	}
	in_hook++;
	if (__builtin_expect(!my_tid, 0))
		thread_init();
	return true;
}

static inline void leave(void)
{
	in_hook--;
}

/* the call chain: @ra (the allocator's return address), then the saved frame pointers from
 * @fp (the hook's own frame) while they stay inside this thread's stack */
static inline __attribute__((always_inline)) unsigned int chain(uint64_t *f, void *ra, void *fp)
{
	uintptr_t cur, prev;
	unsigned int n = 0;

	f[n++] = (uint64_t)(uintptr_t)ra;
	if (depth < 2 || stack_hi <= 1)
		return n;
	prev = (uintptr_t)fp;
	if (prev < stack_lo || prev > stack_hi - 16)
		return n;
	cur = ((uintptr_t *)prev)[0]; /* the caller's frame */
	while (n < depth) {
		uintptr_t ret;

		if (cur <= prev || cur > stack_hi - 16 || (cur & 7))
			break;
		ret = ((uintptr_t *)cur)[1];
		if (ret < 4096)
			break;
		f[n++] = ret;
		prev = cur;
		cur = ((uintptr_t *)cur)[0];
	}
	return n;
}

static inline __attribute__((always_inline)) void
rec_block(uint8_t type, uint16_t fn, void *p, size_t size, void *old, void *ra, void *fp)
{
	struct hws_objrec *r = reserve();

	if (!r)
		return;
	r->flags = fn;
	r->tid = (uint32_t)my_tid;
	r->time = now();
	r->addr = (uint64_t)(uintptr_t)p;
	r->size = size;
	r->old = (uint64_t)(uintptr_t)old;
	r->nframes = (uint8_t)chain(r->frames, ra, fp);
	publish(r, type);
}

/* the SITE number of chain @f (@n frames): this thread's cached one, or a new SITE record
 * (0: none, the file is full) */
static inline uint32_t site_of(const uint64_t *f, unsigned int n)
{
	uint64_t h = n;
	struct site *s;
	struct hws_objrec *r;

	for (unsigned int i = 0; i < n; i++)
		h = (h ^ f[i]) * 0x9e3779b97f4a7c15ULL;
	s = &sites[h >> 56];
	if (__builtin_expect(s->id && s->n == n, 1)) {
		unsigned int i = 0;

		while (i < n && s->frames[i] == f[i]) /* not memcmp: a call */
			i++;
		if (i == n)
			return s->id;
	}
	if (!(r = reserve()))
		return 0;
	s->id = __atomic_add_fetch(&last_site, 1, __ATOMIC_RELAXED);
	s->n = n;
	memcpy(s->frames, f, n * sizeof(*f));
	r->tid = (uint32_t)my_tid;
	r->addr = s->id;
	r->nframes = (uint8_t)n;
	memcpy(r->frames, f, n * sizeof(*f));
	publish(r, HWS_OBJREC_SITE);
	return s->id;
}

/* a heap block: the next entry of this thread's ALLOCS record, published by its count
 * (release), or a new ALLOCS record */
static inline __attribute__((always_inline)) void rec_alloc(uint16_t fn, void *p, size_t size,
							    void *ra, void *fp)
{
	struct hws_objrec *r = allocs;
	uint64_t f[HWS_OBJ_FRAMES], *w;
	uint64_t fs = (uint64_t)fn << 32 | site_of(f, chain(f, ra, fp)), t = now();
	unsigned int n = 0;

	/* the next entry of this thread's ALLOCS record, or the first of a new one */
	if (r && r->nframes < ALLOCS_MAX) {
		n = r->nframes;
	} else {
		if (!(r = reserve()))
			return;
		r->tid = (uint32_t)my_tid;
	}
	w = (uint64_t *)((uint8_t *)r + offsetof(struct hws_objrec, time)) + 4 * n;
	w[0] = t;
	w[1] = (uint64_t)(uintptr_t)p;
	w[2] = size;
	w[3] = fs;
	if (n) {
		__atomic_store_n(&r->nframes, (uint8_t)(n + 1), __ATOMIC_RELEASE);
		return;
	}
	r->nframes = 1;
	publish(r, HWS_OBJREC_ALLOCS);
	allocs = r;
}

/* whether @p's block may have been recorded: its size reaches the threshold (glibc: the
 * chunk size word before the block, the header included, as malloc_usable_size reads it;
 * no memory tagging on x86-64). The word's flag bits (its low 3) need no mask: against a
 * multiple of 8, word >= free_min exactly when (word & ~7) >= free_min. */
static inline bool maybe_recorded(void *p)
{
#if defined(__x86_64__)
	return ((const size_t *)p)[-1] >= free_min;
#else
	return malloc_usable_size(p) >= min_size;
#endif
}

/* a free: the next (time, addr) pair of this thread's FREES record, published by its count
 * (release), or a new FREES record */
static inline void rec_free(void *p)
{
	struct hws_objrec *r = frees;
	uint64_t t = now(), a = (uint64_t)(uintptr_t)p;

	if (r && r->nframes < FREES_MAX) {
		uint8_t *w = (uint8_t *)r + offsetof(struct hws_objrec, time) + 16 * r->nframes;

		memcpy(w, &t, 8);
		memcpy(w + 8, &a, 8);
		__atomic_store_n(&r->nframes, (uint8_t)(r->nframes + 1), __ATOMIC_RELEASE);
		return;
	}
	if (!(r = reserve()))
		return;
	r->tid = (uint32_t)my_tid;
	r->time = t;
	r->addr = a;
	r->nframes = 1;
	publish(r, HWS_OBJREC_FREES);
	frees = r;
}

#define RA __builtin_return_address(0)
#define FP __builtin_frame_address(0)

/*
 * The hot hooks: a compare and a jump to glibc (no frame of their own), else a call of the
 * recording half, which they jump to (the library is built -O2, so these are tail calls):
 * its own frame's saved frame pointer is then the caller's, as the chain wants.
 */
#if defined(__clang__) /* no optimize attribute: it pops its frame before the jump */
#define FAST
#else
#define FAST __attribute__((optimize("omit-frame-pointer")))
#endif
#define SLOW __attribute__((noinline))

static SLOW void *malloc_rec(size_t size, void *ra)
{
	void *p = __libc_malloc(size);

	if (p && enter()) {
		rec_alloc(HWS_OBJFN_MALLOC, p, size, ra, FP);
		leave();
	}
	return p;
}

EXPORT FAST void *malloc(size_t size)
{
	if (__builtin_expect(size < min_size, 1))
		return __libc_malloc(size);
	return malloc_rec(size, RA);
}

static SLOW void *calloc_rec(size_t n, size_t size, void *ra)
{
	void *p = __libc_calloc(n, size);

	if (p && enter()) { /* no overflow: checked */
		rec_alloc(HWS_OBJFN_CALLOC, p, n * size, ra, FP);
		leave();
	}
	return p;
}

EXPORT FAST void *calloc(size_t n, size_t size)
{
	size_t b;

	if (__builtin_mul_overflow(n, size, &b) || __builtin_expect(b < min_size, 1))
		return __libc_calloc(n, size);
	return calloc_rec(n, size, RA);
}

static SLOW void free_rec(void *p)
{
	if (enter()) {
		rec_free(p);
		leave();
	}
	__libc_free(p);
}

EXPORT FAST void free(void *p)
{
	if (__builtin_expect(p != NULL, 1) && __builtin_expect(maybe_recorded(p), 0)) {
		free_rec(p);
		return;
	}
	__libc_free(p);
}

EXPORT void cfree(void *p)
{
	free(p);
}

EXPORT void *realloc(void *old, size_t size)
{
	size_t old_size = 0;
	bool rec = false;
	void *p;

	if (old && size && enter()) { /* the old block's size before it goes */
		old_size = malloc_usable_size(old);
		rec = true;
		leave();
	}
	p = __libc_realloc(old, size);
	if (!old && p && size >= min_size && enter()) {
		rec_alloc(HWS_OBJFN_REALLOC, p, size, RA, FP);
		leave();
	} else if (old && !size) { /* realloc(p, 0) frees p */
		if (enter()) {
			struct hws_objrec *r = reserve();

			if (r) {
				r->tid = (uint32_t)my_tid;
				r->time = now();
				r->addr = (uint64_t)(uintptr_t)old;
				publish(r, HWS_OBJREC_FREE);
			}
			leave();
		}
	} else if (rec && p && (size >= min_size || old_size >= min_size) && enter()) {
		rec_block(HWS_OBJREC_REALLOC, HWS_OBJFN_REALLOC, p, size, old, RA, FP);
		leave();
	}
	return p;
}

EXPORT void *reallocarray(void *old, size_t n, size_t size)
{
	size_t b;

	if (__builtin_mul_overflow(n, size, &b)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(old, b);
}

static inline __attribute__((always_inline)) void *aligned(size_t align, size_t size, void *ra,
							   void *fp)
{
	void *p = __libc_memalign(align, size);

	if (p && size >= min_size && enter()) {
		rec_alloc(HWS_OBJFN_MEMALIGN, p, size, ra, fp);
		leave();
	}
	return p;
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;
	int e = errno;

	if (!align || (align & (align - 1)) || align % sizeof(void *))
		return EINVAL;
	p = aligned(align, size, RA, FP);
	if (!p)
		return ENOMEM;
	errno = e;
	*out = p;
	return 0;
}

EXPORT void *aligned_alloc(size_t align, size_t size)
{
	if (!align || (align & (align - 1))) {
		errno = EINVAL;
		return NULL;
	}
	return aligned(align, size, RA, FP);
}

EXPORT void *memalign(size_t align, size_t size)
{
	return aligned(align, size, RA, FP);
}

EXPORT void *valloc(size_t size)
{
	void *p = __libc_valloc(size);

	if (p && size >= min_size && enter()) {
		rec_alloc(HWS_OBJFN_MEMALIGN, p, size, RA, FP);
		leave();
	}
	return p;
}

EXPORT void *pvalloc(size_t size)
{
	void *p = __libc_pvalloc(size);

	if (p && size >= min_size && enter()) {
		rec_alloc(HWS_OBJFN_MEMALIGN, p, size, RA, FP);
		leave();
	}
	return p;
}

struct start {
	void *(*fn)(void *);
	void *arg;
};

/* a new thread: its stack and TLS blocks recorded, then its start routine */
static void *thread_start(void *a)
{
	struct start s = *(struct start *)a;
	void *ret;

	__libc_free(a);
	if (enter()) {
		tls_blocks(HWS_OBJREC_TLS);
		leave();
	}
	ret = s.fn(s.arg);
	if (enter()) {
		tls_blocks(HWS_OBJREC_FREE);
		leave();
	}
	return ret;
}

EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	struct start *s;
	int ret;

	if (!real_pthread_create) /* a thread made before this library's constructor ran */
		real_pthread_create = dlsym(RTLD_NEXT, "pthread_create");
	if (!real_pthread_create)
		return EAGAIN; /* no pthread_create after this library: nothing to call */
	if (state != ST_ON || !(s = __libc_malloc(sizeof(*s))))
		return real_pthread_create(t, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	ret = real_pthread_create(t, attr, thread_start, s);
	if (ret)
		__libc_free(s);
	return ret;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);

	if (p != MAP_FAILED && len >= min_size && enter()) {
		rec_block(HWS_OBJREC_MMAP, (uint16_t)prot, p, len,
			  (void *)(uintptr_t)((uint64_t)(uint32_t)flags << 32 | (uint32_t)fd), RA,
			  FP);
		leave();
	}
	return p;
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
    __attribute__((alias("mmap")));

EXPORT int munmap(void *addr, size_t len)
{
	int ret = (int)syscall(SYS_munmap, addr, len);

	if (!ret && enter()) {
		struct hws_objrec *r = reserve();

		if (r) {
			r->tid = (uint32_t)my_tid;
			r->time = now();
			r->addr = (uint64_t)(uintptr_t)addr;
			r->size = len;
			publish(r, HWS_OBJREC_MUNMAP);
		}
		leave();
	}
	return ret;
}
