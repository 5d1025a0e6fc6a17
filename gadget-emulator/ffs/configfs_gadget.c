// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * configfs_gadget.h. Everything made is written down in an undo list as it
 * is made, so that a failure halfway and the normal teardown both remove
 * exactly that, newest first.
 */
#include "configfs_gadget.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"

#define PATH_LEN	512
/* the most the tree needs: dirs, attribute files, strings, the link */
#define UNDO_MAX	40

enum undo_kind { UNDO_DIR, UNDO_FILE, UNDO_LINK };

struct configfs_gadget {
	char dir[PATH_LEN];		/* root/name */
	char func[PATH_LEN];		/* root/name/functions/ffs.<instance> */
	char instance[64];
	char udc_file[PATH_LEN];
	bool bound;
	char mnt[PATH_LEN];		/* functionfs; "" when not mounted */
	struct {
		enum undo_kind kind;
		char path[PATH_LEN];
	} undo[UNDO_MAX];
	unsigned int n_undo;
};

extern char **environ;

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int remember(struct configfs_gadget *g, enum undo_kind kind,
		    const char *path, char *err, size_t errlen)
{
	if (g->n_undo == UNDO_MAX) {
		set_err(err, errlen, "%s: too many configfs entries", path);
		return -1;
	}
	g->undo[g->n_undo].kind = kind;
	snprintf(g->undo[g->n_undo].path, PATH_LEN, "%s", path);
	g->n_undo++;
	return 0;
}

static int join(char *out, const char *a, const char *b, char *err,
		size_t errlen)
{
	if ((size_t)snprintf(out, PATH_LEN, "%s/%s", a, b) >= PATH_LEN) {
		set_err(err, errlen, "%s/%s: path too long", a, b);
		return -1;
	}
	return 0;
}

/*
 * mkdir base/rel. exist_ok: a default group configfs makes with its
 * parent (kept, not ours to remove); else it must be new.
 */
static int mk(struct configfs_gadget *g, const char *base, const char *rel,
	      bool exist_ok, char *err, size_t errlen)
{
	char p[PATH_LEN];

	if (join(p, base, rel, err, errlen) < 0)
		return -1;
	if (mkdir(p, 0755) == 0)
		return remember(g, UNDO_DIR, p, err, errlen);
	if (errno == EEXIST && exist_ok)
		return 0;
	set_err(err, errlen, "mkdir %s: %s", p, strerror(errno));
	return -1;
}

/* Write val to base/rel: an attribute in configfs, a new file in tests. */
static int put(struct configfs_gadget *g, const char *base, const char *rel,
	       const char *val, char *err, size_t errlen)
{
	char p[PATH_LEN];
	size_t len = strlen(val);
	bool created;
	ssize_t n;
	int fd, e;

	if (join(p, base, rel, err, errlen) < 0)
		return -1;
	created = access(p, F_OK) != 0;
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		set_err(err, errlen, "open %s: %s", p, strerror(errno));
		return -1;
	}
	if (created && remember(g, UNDO_FILE, p, err, errlen) < 0) {
		close(fd);
		return -1;
	}
	n = write(fd, val, len);
	e = n < 0 ? errno : EIO;
	if (n != (ssize_t)len) {
		close(fd);
		set_err(err, errlen, "write '%s' to %s: %s", val, p,
			strerror(e));
		errno = e;	/* for the caller's hints */
		return -1;
	}
	if (close(fd) < 0) {
		e = errno;
		set_err(err, errlen, "write '%s' to %s: %s", val, p,
			strerror(e));
		errno = e;
		return -1;
	}
	return 0;
}

static int put_hex(struct configfs_gadget *g, const char *base,
		   const char *rel, unsigned int v, char *err, size_t errlen)
{
	char s[16];

	snprintf(s, sizeof(s), "0x%04x", v);
	return put(g, base, rel, s, err, errlen);
}

static void undo_all(struct configfs_gadget *g)
{
	while (g->n_undo) {
		const char *p = g->undo[--g->n_undo].path;
		int r;

		switch (g->undo[g->n_undo].kind) {
		case UNDO_DIR:
			r = rmdir(p);
			break;
		case UNDO_LINK:
			r = unlink(p);
			break;
		default:
			/* configfs attributes go with their directory */
			r = unlink(p);
			if (r < 0 && (errno == EPERM || errno == ENOENT))
				r = 0;
			break;
		}
		if (r < 0 && errno != ENOENT)
			emu_log("ffs: cannot remove %s: %s", p, strerror(errno));
	}
}

static int build(struct configfs_gadget *g, const char *root,
		 const struct configfs_gadget_spec *s, char *err,
		 size_t errlen)
{
	char strings[PATH_LEN], str[PATH_LEN], cfgs[PATH_LEN], cfg[PATH_LEN];
	char funcs[PATH_LEN], link[PATH_LEN], lang[8], v[32];
	const char *d = g->dir;

	if (mk(g, root, s->name, false, err, errlen) < 0 ||
	    put_hex(g, d, "bcdUSB", s->bcd_usb, err, errlen) < 0 ||
	    put_hex(g, d, "bDeviceClass", s->device_class, err, errlen) < 0 ||
	    put_hex(g, d, "bDeviceSubClass", s->device_subclass, err,
		    errlen) < 0 ||
	    put_hex(g, d, "bDeviceProtocol", s->device_protocol, err,
		    errlen) < 0 ||
	    put_hex(g, d, "bMaxPacketSize0", s->max_packet0, err, errlen) < 0 ||
	    put_hex(g, d, "idVendor", s->vendor, err, errlen) < 0 ||
	    put_hex(g, d, "idProduct", s->product, err, errlen) < 0 ||
	    put_hex(g, d, "bcdDevice", s->bcd_device, err, errlen) < 0)
		return -1;

	snprintf(lang, sizeof(lang), "0x%x", s->langid);
	if (mk(g, d, "strings", true, err, errlen) < 0 ||
	    join(strings, d, "strings", err, errlen) < 0 ||
	    mk(g, strings, lang, false, err, errlen) < 0 ||
	    join(str, strings, lang, err, errlen) < 0 ||
	    put(g, str, "manufacturer", s->manufacturer, err, errlen) < 0 ||
	    put(g, str, "product", s->product_name, err, errlen) < 0 ||
	    put(g, str, "serialnumber", s->serial, err, errlen) < 0)
		return -1;

	/* no configuration string: iConfiguration 0, as over USB/IP */
	if (mk(g, d, "configs", true, err, errlen) < 0 ||
	    join(cfgs, d, "configs", err, errlen) < 0 ||
	    mk(g, cfgs, "c.1", false, err, errlen) < 0 ||
	    join(cfg, cfgs, "c.1", err, errlen) < 0)
		return -1;
	snprintf(v, sizeof(v), "0x%02x", s->config_attributes);
	if (put(g, cfg, "bmAttributes", v, err, errlen) < 0)
		return -1;
	snprintf(v, sizeof(v), "%u", s->max_power_ma);
	if (put(g, cfg, "MaxPower", v, err, errlen) < 0)
		return -1;

	snprintf(v, sizeof(v), "ffs.%s", s->instance);
	if (mk(g, d, "functions", true, err, errlen) < 0 ||
	    join(funcs, d, "functions", err, errlen) < 0 ||
	    mk(g, funcs, v, false, err, errlen) < 0 ||
	    join(g->func, funcs, v, err, errlen) < 0 ||
	    join(link, cfg, v, err, errlen) < 0)
		return -1;
	if (symlink(g->func, link) < 0) {
		set_err(err, errlen, "symlink %s -> %s: %s", link, g->func,
			strerror(errno));
		return -1;
	}
	return remember(g, UNDO_LINK, link, err, errlen);
}

struct configfs_gadget *configfs_gadget_create(const char *root,
		const struct configfs_gadget_spec *spec, char *err,
		size_t errlen)
{
	struct configfs_gadget *g = calloc(1, sizeof(*g));

	if (!g) {
		set_err(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(g->instance, sizeof(g->instance), "%s", spec->instance);
	if (join(g->dir, root, spec->name, err, errlen) < 0 ||
	    join(g->udc_file, g->dir, "UDC", err, errlen) < 0 ||
	    build(g, root, spec, err, errlen) < 0) {
		undo_all(g);
		free(g);
		return NULL;
	}
	return g;
}

const char *configfs_gadget_dir(const struct configfs_gadget *g)
{
	return g->dir;
}

const char *configfs_gadget_mount_ffs(struct configfs_gadget *g,
				      const char *dir_parent, char *err,
				      size_t errlen)
{
	char tmpl[PATH_LEN];

	if (join(tmpl, dir_parent, "isocam-ffs.XXXXXX", err, errlen) < 0)
		return NULL;
	if (!mkdtemp(tmpl)) {
		set_err(err, errlen, "mkdtemp %s: %s", tmpl, strerror(errno));
		return NULL;
	}
	if (mount(g->instance, tmpl, "functionfs", MS_NOSUID | MS_NODEV |
		  MS_NOEXEC, NULL) < 0) {
		set_err(err, errlen, "mount -t functionfs %s %s: %s%s",
			g->instance, tmpl, strerror(errno), errno == ENODEV ?
			" (no functionfs: usb_f_fs, CONFIG_USB_F_FS)" : "");
		rmdir(tmpl);
		return NULL;
	}
	snprintf(g->mnt, sizeof(g->mnt), "%s", tmpl);
	return g->mnt;
}

int configfs_gadget_default_udc(const char *class_dir, char *out,
				size_t outlen, char *err, size_t errlen)
{
	struct dirent **names;
	int n, i, found = -1;

	n = scandir(class_dir, &names, NULL, alphasort);
	if (n < 0) {
		set_err(err, errlen, "no USB device controller (%s: %s); load one (e.g. modprobe dummy_hcd) or name it with --udc",
			class_dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (found < 0 && names[i]->d_name[0] != '.') {
			snprintf(out, outlen, "%s", names[i]->d_name);
			found = i;
		}
		free(names[i]);
	}
	free(names);
	if (found < 0) {
		set_err(err, errlen, "no USB device controller in %s; load one (e.g. modprobe dummy_hcd) or name it with --udc",
			class_dir);
		return -1;
	}
	return 0;
}

static int write_udc(struct configfs_gadget *g, const char *val)
{
	int fd = open(g->udc_file, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

int configfs_gadget_bind(struct configfs_gadget *g, const char *udc,
			 char *err, size_t errlen)
{
	size_t n;

	if (put(g, g->dir, "UDC", udc, err, errlen) < 0) {
		n = strlen(err);
		set_err(err + n, errlen - n, "%s",
			errno == EBUSY ? " (another gadget holds that UDC?)" :
			errno == ENODEV || errno == ENOENT ?
			" (no such UDC? see " CONFIGFS_UDC_CLASS ")" : "");
		return -1;
	}
	g->bound = true;
	return 0;
}

void configfs_gadget_unbind(struct configfs_gadget *g)
{
	if (!g->bound)
		return;
	g->bound = false;
	/* ENODEV: f_fs unbound it already (ep0 closed) */
	if (write_udc(g, "\n") < 0 && errno != ENODEV)
		emu_log("ffs: unbinding %s: %s", g->udc_file, strerror(errno));
}

void configfs_gadget_destroy(struct configfs_gadget *g)
{
	if (!g)
		return;
	configfs_gadget_unbind(g);
	if (g->mnt[0]) {
		if (umount(g->mnt) < 0) {
			emu_log("ffs: umount %s: %s; detaching it", g->mnt,
				strerror(errno));
			umount2(g->mnt, MNT_DETACH);
		}
		if (rmdir(g->mnt) < 0)
			emu_log("ffs: rmdir %s: %s", g->mnt, strerror(errno));
		g->mnt[0] = 0;
	}
	undo_all(g);
	free(g);
}

static bool has_filesystem(const char *fs)
{
	FILE *f = fopen("/proc/filesystems", "re");
	char line[128];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *t = strrchr(line, '\t');

		line[strcspn(line, "\n")] = 0;
		found = !strcmp(t ? t + 1 : line, fs);
	}
	fclose(f);
	return found;
}

static bool is_mounted(const char *dir, const char *fstype)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char src[256], mnt[256], type[64];
	bool found = false;

	if (!f)
		return false;
	while (!found && fscanf(f, "%255s %255s %63s %*[^\n]", src, mnt,
				type) == 3)
		found = !strcmp(mnt, dir) && !strcmp(type, fstype);
	fclose(f);
	return found;
}

static int modprobe(char *err, size_t errlen)
{
	char *argv[] = { "modprobe", "-a", "libcomposite", "usb_f_fs", NULL };
	pid_t pid;
	int st, r;

	r = posix_spawnp(&pid, "modprobe", NULL, NULL, argv, environ);
	if (r) {
		set_err(err, errlen, "cannot run modprobe: %s", strerror(r));
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			set_err(err, errlen, "waitpid modprobe: %s",
				strerror(errno));
			return -1;
		}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		set_err(err, errlen, "modprobe -a libcomposite usb_f_fs failed");
		return -1;
	}
	return 0;
}

int configfs_gadget_prepare(bool *mounted, char *err, size_t errlen)
{
	struct stat st;

	*mounted = false;
	/*
	 * configfs itself may be a module (Debian's is); libcomposite needs
	 * it, so loading that brings /sys/kernel/config too. (functionfs
	 * appears in /proc/filesystems only with the first ffs instance.)
	 */
	if (stat("/sys/module/usb_f_fs", &st) < 0 ||
	    !has_filesystem("configfs") || stat(CONFIGFS_MOUNT, &st) < 0) {
		if (modprobe(err, errlen) < 0) {
			size_t n = strlen(err);

			set_err(err + n, errlen - n,
				": the kernel needs configfs, libcomposite and usb_f_fs (CONFIG_CONFIGFS_FS, CONFIG_USB_LIBCOMPOSITE, CONFIG_USB_F_FS)");
			return -1;
		}
		emu_log("ffs: loaded libcomposite and usb_f_fs");
	}
	if (!is_mounted(CONFIGFS_MOUNT, "configfs")) {
		if (mount("none", CONFIGFS_MOUNT, "configfs", 0, NULL) < 0) {
			set_err(err, errlen, "mount -t configfs none %s: %s%s",
				CONFIGFS_MOUNT, strerror(errno),
				errno == EPERM ? " (run as root)" :
				errno == ENODEV || errno == ENOENT ?
				" (no configfs in this kernel: CONFIG_CONFIGFS_FS)" : "");
			return -1;
		}
		*mounted = true;
		emu_log("ffs: mounted configfs at %s", CONFIGFS_MOUNT);
	}
	/* usb_f_fs needs libcomposite: both are there, or modprobe failed */
	if (stat(CONFIGFS_GADGET_ROOT, &st) < 0) {
		set_err(err, errlen, "%s: %s (libcomposite not loaded?)",
			CONFIGFS_GADGET_ROOT, strerror(errno));
		return -1;
	}
	return 0;
}

void configfs_gadget_unprepare(bool mounted)
{
	/* someone else may have started using it meanwhile: then it stays */
	if (mounted && umount(CONFIGFS_MOUNT) < 0)
		emu_log("ffs: leaving configfs mounted at %s: %s",
			CONFIGFS_MOUNT, strerror(errno));
}
