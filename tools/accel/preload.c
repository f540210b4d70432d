/*
 * The interposer: open/openat of /dev/accel/accel0 gives a descriptor (a real one, on
 * /dev/null, so the number is the process's own) that this library answers for: ioctl
 * (VERSION, BO_INIT, BO_FREE, GEM_CLOSE, SUBMIT), mmap of BOs, fstat as a character device,
 * dup/dup2/dup3/fcntl(F_DUPFD*) sharing the same open device, close. Every other call and every
 * other descriptor goes to the real libc (dlsym RTLD_NEXT). docs/asahi.md.
 *
 * A BO is a memfd: the client's mappings and the submission's view share its pages, as the
 * kernel's GEM pages are shared, also with a child after fork.
 */
#include "tools/accel/accel.h"
#include "tools/link/link.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define ACC_PATH "/dev/accel/accel0"
#define ACC_MAX_FDS 4096
#define ACC_PAGE 4096ull
#define ACC_ACCEL_MAJOR 261 /* Linux's accel character-device major */
#define ACC_OFFSET_BASE 0x100000000ull /* fake offsets: handle << 32, page-aligned, never reused */

struct bo {
	uint32_t handle;
	int memfd;
	uint64_t size;
	uint8_t *view; /* the library's own mapping (submissions read and write through it) */
};

/* One open device (DRM's drm_file): shared by every descriptor dup'd from it. */
struct dev {
	unsigned refs;
	uint32_t next_handle;
	uint64_t total;
	unsigned nbos;
	struct bo *bos; /* ACC_MAX_BOS slots */
};

static struct dev *fds[ACC_MAX_FDS];
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct acc_backend backend;
static int backend_bad;

#define REAL(ret, name, ...)                                                                    \
	static ret (*real_##name)(__VA_ARGS__);                                                 \
	if (!real_##name)                                                                       \
		real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name)

static void fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void fork_release(void)
{
	pthread_mutex_unlock(&lock);
}

/* the child's only thread did not lock it (the owner is the parent's thread): a fresh lock */
static void fork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	lock = fresh;
}

__attribute__((constructor)) static void acc_init(void)
{
	/* a fork while another thread is in the device must not leave the child's lock held */
	pthread_atfork(fork_prepare, fork_release, fork_child);
	const char *l = getenv("ANEFW_ACCEL_LOG");
	acc_log_level = l && *l ? (atoi(l) >= 2 ? 2 : 1) : 0;
	backend_bad = acc_backend_parse(getenv("ANEFW_ACCEL_BACKEND"), &backend) != 0;
	if (backend_bad)
		acc_log("ANEFW_ACCEL_BACKEND='%s': expected local or tcp:HOST:PORT, PORT a number 1 "
			"to 65535; every submit fails with EINVAL", getenv("ANEFW_ACCEL_BACKEND"));
	else if (acc_timeout_parse(getenv("ANEFW_ACCEL_TIMEOUT"), &backend)) {
		backend_bad = 1;
		acc_log("ANEFW_ACCEL_TIMEOUT='%s': expected seconds 1..%u; every submit fails with "
			"EINVAL", getenv("ANEFW_ACCEL_TIMEOUT"), LINK_ANSWER_MAX_S);
	}
}

static struct dev *dev_of(int fd)
{
	return fd >= 0 && fd < ACC_MAX_FDS ? fds[fd] : NULL;
}

/* (not inlined: the interposed calls' paths are declared nonnull, and a client may still pass
 * NULL, which the real call answers with EFAULT) */
__attribute__((noinline)) static int is_accel_path(const char *p)
{
	return p && !strcmp(p, ACC_PATH);
}

__attribute__((noinline)) static int is_empty_path(const char *p)
{
	return p && !*p;
}

static int set_errno(int e)
{
	errno = e;
	return -1;
}

static void bo_release(struct bo *b)
{
	REAL(int, munmap, void *, size_t);
	REAL(int, close, int);
	if (b->view)
		real_munmap(b->view, (size_t)b->size);
	if (b->memfd >= 0)
		real_close(b->memfd);
	memset(b, 0, sizeof *b);
	b->memfd = -1;
}

static void dev_put(struct dev *d)
{
	if (--d->refs)
		return;
	for (unsigned i = 0; i < d->nbos; i++)
		if (d->bos[i].handle)
			bo_release(&d->bos[i]);
	free(d->bos);
	free(d);
}

/* Binds fd to d (a reference), dropping whatever fd was bound to. */
static void bind_fd(int fd, struct dev *d)
{
	if (fd < 0 || fd >= ACC_MAX_FDS)
		return;
	if (fds[fd])
		dev_put(fds[fd]);
	fds[fd] = d;
	if (d)
		d->refs++;
}

static int open_device(int flags)
{
	REAL(int, open, const char *, int, ...);
	REAL(int, close, int);
	if ((flags & O_ACCMODE) != O_RDWR)
		acc_log("open %s: not O_RDWR (the driver needs read and write)", ACC_PATH);
	struct dev *d = calloc(1, sizeof *d);
	struct bo *bos = d ? calloc(ACC_MAX_BOS, sizeof *bos) : NULL;
	if (!bos) {
		free(d);
		return set_errno(ENOMEM);
	}
	d->bos = bos;
	d->next_handle = 1;
	int fd = real_open("/dev/null", O_RDWR | (flags & O_CLOEXEC));
	if (fd < 0) {
		free(bos);
		free(d);
		return -1;
	}
	if (fd >= ACC_MAX_FDS) {
		real_close(fd);
		free(bos);
		free(d);
		acc_log("open %s: descriptor %d over the library's table (%d)", ACC_PATH, fd,
			ACC_MAX_FDS);
		return set_errno(EMFILE);
	}
	pthread_mutex_lock(&lock);
	bind_fd(fd, d);
	pthread_mutex_unlock(&lock);
	return fd;
}

/* ---- user memory: read and written checked, so a bad pointer is EFAULT, never a crash ---- */
static int copy_in(void *dst, const void *src, size_t n)
{
	struct iovec l = {dst, n}, r = {(void *)src, n};
	ssize_t got = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
	if (got == (ssize_t)n)
		return 0;
	if (got < 0 && (errno == ENOSYS || errno == EPERM)) {
		if (!src)
			return -1;
		memcpy(dst, src, n); /* no cross-memory calls here: trust a non-null pointer */
		return 0;
	}
	return -1;
}

static int copy_out(void *dst, const void *src, size_t n)
{
	struct iovec l = {(void *)src, n}, r = {dst, n};
	ssize_t got = process_vm_writev(getpid(), &l, 1, &r, 1, 0);
	if (got == (ssize_t)n)
		return 0;
	if (got < 0 && (errno == ENOSYS || errno == EPERM)) {
		if (!dst)
			return -1;
		memcpy(dst, src, n);
		return 0;
	}
	return -1;
}

static struct bo *bo_lookup(struct dev *d, uint32_t h)
{
	for (unsigned i = 0; h && i < d->nbos; i++)
		if (d->bos[i].handle == h)
			return &d->bos[i];
	return NULL;
}

/* ---- the ioctls ---- */
static int put_str(char *user, uint64_t cap, const char *s, uint64_t *len_out)
{
	size_t n = strlen(s);
	if (user && cap && copy_out(user, s, (size_t)(cap < n ? cap : n)))
		return -1;
	*len_out = n;
	return 0;
}

static int do_version(void *arg)
{
	struct acc_drm_version v;
	if (copy_in(&v, arg, sizeof v))
		return set_errno(EFAULT);
	v.version_major = 1;
	v.version_minor = 0;
	v.version_patchlevel = 0;
	if (put_str(v.name, v.name_len, ACC_DRM_NAME, &v.name_len) ||
	    put_str(v.date, v.date_len, ACC_DRM_DATE, &v.date_len) ||
	    put_str(v.desc, v.desc_len, ACC_DRM_DESC, &v.desc_len)) {
		acc_log("VERSION: a name, date or desc buffer is not writable");
		return set_errno(EFAULT);
	}
	return copy_out(arg, &v, sizeof v) ? set_errno(EFAULT) : 0;
}

static int do_bo_init(struct dev *d, void *arg)
{
	REAL(void *, mmap, void *, size_t, int, int, int, off_t);
	REAL(int, close, int);
	struct acc_bo_init a;
	if (copy_in(&a, arg, sizeof a)) {
		acc_log("BO_INIT: the argument is not readable");
		return set_errno(EFAULT);
	}
	if (a.pad) {
		acc_log("BO_INIT: pad is 0x%x, expected 0", a.pad);
		return set_errno(EINVAL);
	}
	if (!a.size) {
		acc_log("BO_INIT: size 0");
		return set_errno(EINVAL);
	}
	if (a.size > ACC_MAX_BO_BYTES) {
		acc_log("BO_INIT: size 0x%llx over the device's 0x%llx per BO",
			(unsigned long long)a.size, ACC_MAX_BO_BYTES);
		return set_errno(ENOMEM);
	}
	uint64_t size = (a.size + ACC_PAGE - 1) & ~(ACC_PAGE - 1);
	if (d->total + size > ACC_MAX_TOTAL_BYTES) {
		acc_log("BO_INIT: 0x%llx more bytes would pass the device's address space (0x%llx, "
			"0x%llx in use)", (unsigned long long)size, ACC_MAX_TOTAL_BYTES,
			(unsigned long long)d->total);
		return set_errno(ENOMEM);
	}
	unsigned slot = d->nbos;
	for (unsigned i = 0; i < d->nbos; i++)
		if (!d->bos[i].handle) {
			slot = i;
			break;
		}
	if (slot >= ACC_MAX_BOS || d->next_handle == UINT32_MAX) {
		acc_log("BO_INIT: %u BOs open, the most this device keeps", ACC_MAX_BOS);
		return set_errno(ENOMEM);
	}
	int mfd = memfd_create("anefw-bo", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, (off_t)size)) {
		if (mfd >= 0)
			real_close(mfd);
		acc_log("BO_INIT: no memory for 0x%llx bytes", (unsigned long long)size);
		return set_errno(ENOMEM);
	}
	void *view = real_mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (view == MAP_FAILED) {
		real_close(mfd);
		acc_log("BO_INIT: cannot map 0x%llx bytes", (unsigned long long)size);
		return set_errno(ENOMEM);
	}
	struct bo *b = &d->bos[slot];
	b->handle = d->next_handle++;
	b->memfd = mfd;
	b->size = size;
	b->view = view;
	a.handle = b->handle;
	a.offset = (uint64_t)b->handle * ACC_OFFSET_BASE;
	if (copy_out(arg, &a, sizeof a)) {
		bo_release(b);
		acc_log("BO_INIT: the argument is not writable");
		return set_errno(EFAULT);
	}
	if (slot == d->nbos)
		d->nbos++;
	d->total += size;
	return 0;
}

static int do_bo_free(struct dev *d, void *arg, const char *what)
{
	struct acc_bo_free a;
	if (copy_in(&a, arg, sizeof a)) {
		acc_log("%s: the argument is not readable", what);
		return set_errno(EFAULT);
	}
	if (a.pad) {
		acc_log("%s: pad is 0x%x, expected 0", what, a.pad);
		return set_errno(EINVAL);
	}
	struct bo *b = bo_lookup(d, a.handle);
	if (!b) {
		acc_log("%s: no BO with handle %u (never made, or freed already)", what, a.handle);
		return set_errno(ENOENT);
	}
	d->total -= b->size;
	bo_release(b); /* pages a client still maps stay until it unmaps them, as GEM's do */
	return 0;
}

static int do_submit(struct dev *d, void *arg)
{
	struct acc_submit a;
	if (copy_in(&a, arg, sizeof a)) {
		acc_log("SUBMIT: the argument is not readable");
		return set_errno(EFAULT);
	}
	if (a.pad) {
		acc_log("SUBMIT: pad is 0x%x, expected 0", a.pad);
		return set_errno(EINVAL);
	}
	if (backend_bad) {
		acc_log("SUBMIT: ANEFW_ACCEL_BACKEND is malformed");
		return set_errno(EINVAL);
	}
	struct acc_job j;
	memset(&j, 0, sizeof j);
	j.tsk_size = a.tsk_size;
	j.td_count = a.td_count;
	j.td_size = a.td_size;
	for (unsigned b = 0; b < ACC_TILE_COUNT; b++) {
		if (!a.handles[b])
			continue;
		struct bo *bo = bo_lookup(d, a.handles[b]);
		if (!bo) {
			acc_log("SUBMIT: BAR %u names handle %u: no such BO (never made, or freed)", b,
				a.handles[b]);
			return set_errno(ENOENT);
		}
		j.bar[b].p = bo->view;
		j.bar[b].size = bo->size;
	}
	if (!a.btsp_handle) {
		acc_log("SUBMIT: no bootstrap BO (btsp_handle 0)");
		return set_errno(EINVAL);
	}
	struct bo *bt = bo_lookup(d, a.btsp_handle);
	if (!bt) {
		acc_log("SUBMIT: bootstrap handle %u: no such BO (never made, or freed)", a.btsp_handle);
		return set_errno(ENOENT);
	}
	j.btsp = bt->view;
	j.btsp_size = bt->size;
	char why[256];
	int e = acc_run(&j, &backend, why, sizeof why);
	if (e) {
		acc_log("SUBMIT: %s", why);
		return set_errno(e);
	}
	return 0;
}

static int dev_ioctl(struct dev *d, unsigned long req, void *arg)
{
	switch (req) {
	case ACC_IOCTL_VERSION:
		return do_version(arg);
	case ACC_IOCTL_BO_INIT:
		return do_bo_init(d, arg);
	case ACC_IOCTL_BO_FREE:
		return do_bo_free(d, arg, "BO_FREE");
	case ACC_IOCTL_GEM_CLOSE:
		return do_bo_free(d, arg, "GEM_CLOSE");
	case ACC_IOCTL_SUBMIT:
		return do_submit(d, arg);
	default:
		break;
	}
	/* one of the five by its number, with another argument size or direction: said so (it
	 * read "not one of ..." of BO_INIT itself). The kernel's drm_ioctl would copy the smaller
	 * of the two sizes and zero the rest; refused here (docs/asahi.md, "How it differs") */
	static const struct {
		unsigned long req;
		const char *name;
	} known[] = {{ACC_IOCTL_VERSION, "VERSION"},   {ACC_IOCTL_BO_INIT, "BO_INIT"},
		     {ACC_IOCTL_BO_FREE, "BO_FREE"},   {ACC_IOCTL_GEM_CLOSE, "GEM_CLOSE"},
		     {ACC_IOCTL_SUBMIT, "SUBMIT"}};
	static const char *const dir[4] = {"none", "write", "read", "read-write"};
	for (unsigned i = 0; i < sizeof known / sizeof known[0]; i++)
		if ((known[i].req & 0xffffu) == (req & 0xffffu)) {
			acc_log("ioctl 0x%lx: %s (nr 0x%02lx) with a %lu-byte argument (%s); the Asahi "
				"driver's is 0x%lx, %lu bytes (%s): refused", req, known[i].name,
				req & 0xffu, (req >> 16) & 0x3fffu, dir[(req >> 30) & 3u], known[i].req,
				(known[i].req >> 16) & 0x3fffu, dir[(known[i].req >> 30) & 3u]);
			return set_errno(EINVAL);
		}
	acc_log("ioctl 0x%lx: not one of VERSION, BO_INIT, BO_FREE, GEM_CLOSE, SUBMIT", req);
	return set_errno(EINVAL);
}

/* ---- the interposed calls ---- */
static int open_common(const char *path, int flags, mode_t mode, int dirfd, int at,
		       const char *which)
{
	if (is_accel_path(path))
		return open_device(flags);
	if (at) {
		REAL(int, openat, int, const char *, int, ...);
		(void)which;
		return real_openat(dirfd, path, flags, mode);
	}
	REAL(int, open, const char *, int, ...);
	return real_open(path, flags, mode);
}

#define MODE_ARG(flags)                                                                         \
	mode_t mode = 0;                                                                        \
	if ((flags) & (O_CREAT | O_TMPFILE)) {                                                  \
		va_list ap;                                                                     \
		va_start(ap, flags);                                                            \
		mode = va_arg(ap, mode_t);                                                      \
		va_end(ap);                                                                     \
	}

EXPORT int open(const char *path, int flags, ...)
{
	MODE_ARG(flags);
	return open_common(path, flags, mode, 0, 0, "open");
}

EXPORT int open64(const char *path, int flags, ...)
{
	MODE_ARG(flags);
	return open_common(path, flags, mode, 0, 0, "open64");
}

EXPORT int __open_2(const char *path, int flags)
{
	return open_common(path, flags, 0, 0, 0, "__open_2");
}

EXPORT int __open64_2(const char *path, int flags)
{
	return open_common(path, flags, 0, 0, 0, "__open64_2");
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	MODE_ARG(flags);
	return open_common(path, flags, mode, dirfd, 1, "openat");
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	MODE_ARG(flags);
	return open_common(path, flags, mode, dirfd, 1, "openat64");
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return open_common(path, flags, 0, dirfd, 1, "__openat_2");
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	return open_common(path, flags, 0, dirfd, 1, "__openat64_2");
}

EXPORT int close(int fd)
{
	REAL(int, close, int);
	pthread_mutex_lock(&lock);
	if (dev_of(fd))
		bind_fd(fd, NULL);
	pthread_mutex_unlock(&lock);
	return real_close(fd);
}

EXPORT int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	pthread_mutex_lock(&lock);
	struct dev *d = dev_of(fd);
	if (d) {
		int r = dev_ioctl(d, req, arg);
		int e = errno;
		pthread_mutex_unlock(&lock);
		errno = e;
		return r;
	}
	pthread_mutex_unlock(&lock);
	REAL(int, ioctl, int, unsigned long, ...);
	return real_ioctl(fd, req, arg);
}

static void *dev_mmap(struct dev *d, void *addr, size_t len, int prot, int flags, off_t off)
{
	REAL(void *, mmap, void *, size_t, int, int, int, off_t);
	uint64_t o = (uint64_t)off;
	struct bo *b = o % ACC_OFFSET_BASE ? NULL : bo_lookup(d, (uint32_t)(o / ACC_OFFSET_BASE));
	if (!b || o / ACC_OFFSET_BASE > UINT32_MAX) {
		acc_log("mmap: offset 0x%llx is no BO's (BO_INIT's offset of a live BO, exactly)",
			(unsigned long long)o);
		errno = EINVAL;
		return MAP_FAILED;
	}
	if (!len || len > b->size) {
		acc_log("mmap: length 0x%zx for BO %u of 0x%llx bytes (expected 1..0x%llx)", len,
			b->handle, (unsigned long long)b->size, (unsigned long long)b->size);
		errno = EINVAL;
		return MAP_FAILED;
	}
	if (!(flags & MAP_SHARED)) {
		acc_log("mmap: BO %u mapped without MAP_SHARED: its bytes would not reach the device",
			b->handle);
		errno = EINVAL;
		return MAP_FAILED;
	}
	return real_mmap(addr, len, prot, flags, b->memfd, 0);
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	pthread_mutex_lock(&lock);
	struct dev *d = (flags & MAP_ANONYMOUS) ? NULL : dev_of(fd);
	if (d) {
		void *r = dev_mmap(d, addr, len, prot, flags, off);
		int e = errno;
		pthread_mutex_unlock(&lock);
		errno = e;
		return r;
	}
	pthread_mutex_unlock(&lock);
	REAL(void *, mmap, void *, size_t, int, int, int, off_t);
	return real_mmap(addr, len, prot, flags, fd, off);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

static void fake_stat(struct stat *st)
{
	memset(st, 0, sizeof *st);
	st->st_mode = S_IFCHR | 0666;
	st->st_rdev = makedev(ACC_ACCEL_MAJOR, 0);
	st->st_dev = makedev(0, 5);
	st->st_nlink = 1;
	st->st_blksize = 4096;
}

EXPORT int fstat(int fd, struct stat *st)
{
	pthread_mutex_lock(&lock);
	int ours = dev_of(fd) != NULL;
	pthread_mutex_unlock(&lock);
	if (ours) {
		fake_stat(st);
		return 0;
	}
	REAL(int, fstat, int, struct stat *);
	return real_fstat(fd, st);
}

/* the 64-bit variants: struct stat64 is struct stat on LP64 Linux */
_Static_assert(sizeof(struct stat64) == sizeof(struct stat), "stat64 is stat");

EXPORT int fstat64(int fd, struct stat64 *st)
{
	return fstat(fd, (struct stat *)st);
}

EXPORT int stat(const char *path, struct stat *st)
{
	if (is_accel_path(path)) {
		fake_stat(st);
		return 0;
	}
	REAL(int, stat, const char *, struct stat *);
	return real_stat(path, st);
}

EXPORT int stat64(const char *restrict path, struct stat64 *restrict st)
{
	return stat(path, (struct stat *)st);
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	int ours = 0;
	if (is_accel_path(path)) {
		ours = 1;
	} else if (is_empty_path(path) && (flags & AT_EMPTY_PATH)) {
		pthread_mutex_lock(&lock);
		ours = dev_of(dirfd) != NULL;
		pthread_mutex_unlock(&lock);
	}
	if (ours) {
		fake_stat(st);
		return 0;
	}
	REAL(int, fstatat, int, const char *, struct stat *, int);
	return real_fstatat(dirfd, path, st, flags);
}

EXPORT int fstatat64(int dirfd, const char *restrict path, struct stat64 *restrict st, int flags)
{
	return fstatat(dirfd, path, (struct stat *)st, flags);
}

/* A new descriptor for the same open device (after the real call made it). */
static int dup_result(int oldfd, int newfd)
{
	if (newfd < 0)
		return newfd;
	pthread_mutex_lock(&lock);
	struct dev *d = dev_of(oldfd);
	if (newfd != oldfd)
		bind_fd(newfd, d);
	pthread_mutex_unlock(&lock);
	return newfd;
}

EXPORT int dup(int fd)
{
	REAL(int, dup, int);
	return dup_result(fd, real_dup(fd));
}

EXPORT int dup2(int fd, int fd2)
{
	REAL(int, dup2, int, int);
	return dup_result(fd, real_dup2(fd, fd2));
}

EXPORT int dup3(int fd, int fd2, int flags)
{
	REAL(int, dup3, int, int, int);
	return dup_result(fd, real_dup3(fd, fd2, flags));
}

static int fcntl_common(int fd, int cmd, va_list ap, int is64)
{
	/* every fcntl command takes at most one argument, an int or a pointer */
	void *arg = va_arg(ap, void *);
	int r;
	if (is64) {
		REAL(int, fcntl64, int, int, ...);
		r = real_fcntl64(fd, cmd, arg);
	} else {
		REAL(int, fcntl, int, int, ...);
		r = real_fcntl(fd, cmd, arg);
	}
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		return dup_result(fd, r);
	return r;
}

EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	int r = fcntl_common(fd, cmd, ap, 0);
	va_end(ap);
	return r;
}

EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	int r = fcntl_common(fd, cmd, ap, 1);
	va_end(ap);
	return r;
}
