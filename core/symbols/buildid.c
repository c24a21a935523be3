// SPDX-License-Identifier: MIT
/*
 * Kernel build-ids and perf's build-id cache, for kernel symbols that outlive the boot.
 * The kernel's build-id is the GNU note of <sysfs>/kernel/notes, a module's the one of
 * <sysfs>/module/<name>/notes/.note.gnu.build-id (where perf reads them).
 *
 * perf record keeps a copy of /proc/kallsyms per kernel build-id in its build-id cache
 * (<dir>/[kernel.kallsyms]/<build-id>/kallsyms, with <dir>/.build-id/<2>/<rest> linking to
 * it; <dir> is $PERF_BUILDID_DIR or ~/.debug) and names the kernel's build-id in the
 * file's HEADER_BUILD_ID section; perf report reads the copy when the running kernel is
 * another. hwsample writes and reads the same layout, so either tool symbolizes the
 * other's recordings after a reboot or on another machine.
 *
 * Invariants: nothing here follows a path into the cache that was not built from a
 * build-id of hex digits only; a copy is written to a fresh temporary name made with O_EXCL
 * (mkostemp: no planted symlink is ever followed) and renamed into place, so a reader never
 * sees a partial copy; a copy whose addresses are all zero
 * (kptr_restrict) is never written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <hwsample/symbols.h>
#include <hwsample/pmu.h>

#include "util/internal.h"

#define NT_GNU_BUILD_ID_TYPE 3

static bool all_hex(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

/* the GNU build-id note of the ELF notes file @path (a sysfs notes file) as hex */
static int notes_build_id(const char *path, char *hex, size_t len)
{
	uint8_t buf[4096];
	size_t off = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -EIO;
	/* ELF notes: u32 namesz, descsz, type; name and desc each padded to 4 bytes */
	while (off + 12 <= (size_t)n) {
		uint32_t nsz, dsz, type;
		size_t name_at = off + 12, desc_at;

		memcpy(&nsz, buf + off, 4);
		memcpy(&dsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		if (nsz > (size_t)n || dsz > (size_t)n)
			break;
		desc_at = name_at + ((nsz + 3u) & ~3u);
		if (desc_at + dsz > (size_t)n)
			break;
		if (type == NT_GNU_BUILD_ID_TYPE && nsz == 4 && !memcmp(buf + name_at, "GNU", 4) &&
		    dsz && dsz <= 20) {
			if (len < dsz * 2 + 1)
				return -ENOSPC;
			for (uint32_t i = 0; i < dsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", buf[desc_at + i]);
			return (int)dsz * 2;
		}
		off = desc_at + ((dsz + 3u) & ~3u);
	}
	return -ENOENT;
}

int hws__kernel_build_id(char *hex, size_t len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/kernel/notes", hws_sysfs_root());
	return notes_build_id(path, hex, len);
}

int hws__module_build_id(const char *mod, char *hex, size_t len)
{
	char path[4096];

	if (!*mod || strchr(mod, '/') || !strcmp(mod, ".") || !strcmp(mod, ".."))
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/module/%s/notes/.note.gnu.build-id", hws_sysfs_root(),
		     mod) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return notes_build_id(path, hex, len);
}

int hws__buildid_dir(char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char pbuf[4096];
	int n;

	/* the library reads no environment: the user's home from the password database
	 * (the CLI passes $PERF_BUILDID_DIR, else $HOME/.debug, as perf finds it) */
	if (getpwuid_r(getuid(), &pw, pbuf, sizeof(pbuf), &res) || !res || !res->pw_dir ||
	    !*res->pw_dir)
		return -ENOENT;
	n = snprintf(buf, len, "%s/.debug", res->pw_dir);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int hws__buildid_kallsyms_path(const char *dir, const char *bid, char *buf, size_t len)
{
	struct stat st;
	int n;

	if (!all_hex(bid))
		return -EINVAL;
	n = snprintf(buf, len, "%s/[kernel.kallsyms]/%s/kallsyms", dir, bid);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	if (!stat(buf, &st) && S_ISREG(st.st_mode))
		return 0;
	/* perf's older layout: the copy is the build-id entry itself */
	snprintf(buf, len, "%s/[kernel.kallsyms]/%s", dir, bid);
	if (!stat(buf, &st) && S_ISREG(st.st_mode))
		return 0;
	return -ENOENT;
}

/* mkdir -p @path (mode 0755) */
static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			int err = -errno;

			*p = '/';
			return err;
		}
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

/* copy all of @from (a /proc file: size unknown) to @fd; whether any line showed a
 * non-zero address in its first field */
static int copy_text(int from, int fd, bool *nonzero)
{
	static const char zeros[] = "0000000000000000 ";
	char buf[1 << 16];
	bool line_start = true;
	ssize_t n;

	*nonzero = false;
	while ((n = read(from, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (ssize_t i = 0; i < n && !*nonzero; i++) {
			/* a line whose address field is not all zeros */
			if (line_start && (size_t)(n - i) > 17 && memcmp(buf + i, zeros, 8))
				*nonzero = true;
			line_start = buf[i] == '\n';
		}
		for (ssize_t o = 0; o < n;) {
			ssize_t w = write(fd, buf + o, (size_t)(n - o));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0)
				return -errno;
			o += w;
		}
	}
	return 0;
}

int hws_buildid_cache__add_kernel(const char *dir)
{
	char bid[48], dbuf[4096];
	int err = hws__kernel_build_id(bid, sizeof(bid));

	if (err < 0)
		return err;
	if (!dir) {
		err = hws__buildid_dir(dbuf, sizeof(dbuf));
		if (err)
			return err;
		dir = dbuf;
	}
	return hws__buildid_cache_kallsyms(dir, bid, "/proc/kallsyms");
}

int hws__buildid_cache_kallsyms(const char *dir, const char *bid, const char *kallsyms)
{
	char path[4096], tmp[4200], link[4096], target[4200];
	bool nonzero;
	int from, fd, err, n;

	if (!all_hex(bid))
		return -EINVAL;
	if (!hws__buildid_kallsyms_path(dir, bid, path, sizeof(path)))
		return 0; /* there already (perf never replaces a copy either) */
	n = snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s", dir, bid);
	if (n < 0 || (size_t)n >= sizeof(path) - 16)
		return -ENAMETOOLONG;
	err = mkdirs(path);
	if (err)
		return err;
	from = open(kallsyms, O_RDONLY | O_CLOEXEC);
	if (from < 0)
		return -errno;
	/*
	 * A fresh name, created with O_EXCL (mkostemp): whatever was planted in the cache
	 * directory (a symlink at a guessable name) is never opened, let alone written through.
	 */
	snprintf(tmp, sizeof(tmp), "%s/.kallsyms.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0644)) {
		err = -errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		close(from);
		return err;
	}
	err = copy_text(from, fd, &nonzero);
	close(from);
	if (close(fd) && !err)
		err = -errno;
	if (!err && !nonzero)
		err = -EPERM; /* kptr_restrict: a copy without addresses helps nobody */
	snprintf(path + n, sizeof(path) - (size_t)n, "/kallsyms");
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	/* <dir>/.build-id/ab/cdef... -> ../../[kernel.kallsyms]/abcdef..., as perf links it */
	n = snprintf(link, sizeof(link), "%s/.build-id/%.2s", dir, bid);
	if (n > 0 && (size_t)n < sizeof(link) - 64 && !mkdirs(link)) {
		snprintf(link + n, sizeof(link) - (size_t)n, "/%s", bid + 2);
		snprintf(target, sizeof(target), "../../[kernel.kallsyms]/%s", bid);
		if (symlink(target, link) && errno != EEXIST)
			pr_debug("buildid: %s: %s\n", link, strerror(errno));
	}
	return 0;
}

/*
 * Files and the vDSO: <dir><path>/<bid>/elf (a copy of the file) and <dir>/[vdso]/<bid>/vdso
 * (the image dumped from memory), each with <dir>/.build-id/<2>/<rest> linking to its
 * directory, as perf's build-id cache keeps them. A name from a recording never leads out
 * of <dir>: it is [vdso] or an absolute path without "." or ".." components.
 */
static bool cache_name_ok(const char *name)
{
	if (!strcmp(name, "[vdso]"))
		return true;
	if (name[0] != '/')
		return false;
	for (const char *p = name; *p; p++) {
		if (p[0] != '/')
			continue;
		if (p[1] == '/' || (p[1] == '.' && (!p[2] || p[2] == '/')) ||
		    (p[1] == '.' && p[2] == '.' && (!p[3] || p[3] == '/')))
			return false;
	}
	return true;
}

/* <dir>/<name>/<bid> (the entry's directory) into @buf; its leaf ("elf" / "vdso") */
static int cache_entry_dir(const char *dir, const char *name, const char *bid, char *buf,
			   size_t len, const char **leaf)
{
	bool vdso = !strcmp(name, "[vdso]");
	int n;

	if (!all_hex(bid) || !cache_name_ok(name))
		return -EINVAL;
	n = snprintf(buf, len, vdso ? "%s/%s/%s" : "%s%s/%s", dir, name, bid);
	if (n < 0 || (size_t)n >= len - 16)
		return -ENAMETOOLONG;
	*leaf = vdso ? "vdso" : "elf";
	return n;
}

int hws__buildid_cache_path(const char *dir, const char *name, const char *bid, char *buf,
			    size_t len)
{
	const char *leaf;
	struct stat st;
	int n = cache_entry_dir(dir, name, bid, buf, len, &leaf);

	if (n < 0)
		return n;
	snprintf(buf + n, len - (size_t)n, "/%s", leaf);
	return !stat(buf, &st) && S_ISREG(st.st_mode) ? 0 : -ENOENT;
}

static int write_all(int fd, const void *buf, size_t len)
{
	for (size_t o = 0; o < len;) {
		ssize_t w = write(fd, (const char *)buf + o, len - o);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		o += (size_t)w;
	}
	return 0;
}

/* all of regular file @path into @fd */
static int copy_file(const char *path, int fd)
{
	char buf[1 << 16];
	int from = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), err = 0;
	struct stat st;
	ssize_t n;

	if (from < 0)
		return -errno;
	if (fstat(from, &st) || !S_ISREG(st.st_mode)) {
		close(from);
		return -EINVAL;
	}
	while (!err && (n = read(from, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		err = n < 0 ? -errno : write_all(fd, buf, (size_t)n);
	}
	close(from);
	return err;
}

int hws__buildid_cache_dso(const char *dir, const char *name, const char *bid, const void *mem,
			   size_t len)
{
	char path[4096], tmp[4200], link[4096], target[4200];
	const char *leaf;
	int n, fd, err;

	n = cache_entry_dir(dir, name, bid, path, sizeof(path), &leaf);
	if (n < 0)
		return n;
	if (!hws__buildid_cache_path(dir, name, bid, tmp, sizeof(tmp)))
		return 0; /* there already (perf never replaces a copy either) */
	err = mkdirs(path);
	if (err)
		return err;
	/* a fresh O_EXCL name, renamed into place: see the invariants */
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", path, leaf);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = fchmod(fd, mem ? 0644 : 0755) ? -errno : 0;
	if (!err)
		err = mem ? write_all(fd, mem, len) : copy_file(name, fd);
	if (close(fd) && !err)
		err = -errno;
	snprintf(path + n, sizeof(path) - (size_t)n, "/%s", leaf);
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	/* <dir>/.build-id/ab/cdef... -> ../..<name>/abcdef..., as perf links it */
	n = snprintf(link, sizeof(link), "%s/.build-id/%.2s", dir, bid);
	if (n > 0 && (size_t)n < sizeof(link) - 64 && !mkdirs(link)) {
		snprintf(link + n, sizeof(link) - (size_t)n, "/%s", bid + 2);
		snprintf(target, sizeof(target), name[0] == '/' ? "../..%s/%s" : "../../%s/%s",
			 name, bid);
		if (symlink(target, link) && errno != EEXIST)
			pr_debug("buildid: %s: %s\n", link, strerror(errno));
	}
	return 0;
}

int hws__vdso_image(void **buf, size_t *len)
{
	char line[512];
	unsigned long start, end;
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		size_t l = strlen(line);

		if (l > 7 && !strcmp(line + l - 7, "[vdso]\n") &&
		    sscanf(line, "%lx-%lx", &start, &end) == 2 && end > start)
			found = true;
	}
	fclose(f);
	if (!found || end - start > (64u << 20))
		return -ENOENT;
	*buf = malloc(end - start);
	if (!*buf)
		return -ENOMEM;
	memcpy(*buf, (const void *)start, end - start);
	*len = end - start;
	return 0;
}
