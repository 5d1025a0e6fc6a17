/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The plumbing of a Linux USB gadget made of one FunctionFS function
 * (isocam-emu --gadget=ffs): configfs mounted and libcomposite/usb_f_fs
 * loaded, the gadget's directory tree under configfs, functionfs mounted
 * for its instance in a private directory, and the binding to a UDC.
 * All of it is undone by configfs_gadget_destroy(), in reverse order.
 *
 * The configfs root is a parameter: tests build the tree in a temporary
 * directory. There mkdir of the gadget does not create its default
 * groups (strings, configs, functions) and attribute files do not exist
 * yet, so both are created when missing and removed again; in configfs
 * they come with the gadget's directory and go with it (an attribute
 * file cannot be unlinked there: EPERM, ignored).
 */
#ifndef ISOCAM_EMU_CONFIGFS_GADGET_H
#define ISOCAM_EMU_CONFIGFS_GADGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONFIGFS_MOUNT		"/sys/kernel/config"
#define CONFIGFS_GADGET_ROOT	CONFIGFS_MOUNT "/usb_gadget"
#define CONFIGFS_UDC_CLASS	"/sys/class/udc"

/* What the gadget says about itself: the device descriptor's fields. */
struct configfs_gadget_spec {
	const char *name;	/* the gadget's directory, e.g. isocam-1234 */
	const char *instance;	/* functions/ffs.<instance>, the mount's source */
	uint16_t bcd_usb;
	uint8_t device_class, device_subclass, device_protocol;
	uint8_t max_packet0;
	uint16_t vendor, product, bcd_device;
	uint16_t langid;
	const char *manufacturer, *product_name, *serial;
	uint8_t config_attributes;	/* bmAttributes */
	unsigned int max_power_ma;
};

struct configfs_gadget;

/*
 * Make sure configfs is mounted at CONFIGFS_MOUNT and the kernel has
 * libcomposite (CONFIGFS_GADGET_ROOT) and usb_f_fs (the functionfs file
 * system), mounting and running modprobe as needed; *mounted says
 * whether configfs was mounted here. -1 with the reason (what is
 * missing) in err. The modules stay loaded.
 */
int configfs_gadget_prepare(bool *mounted, char *err, size_t errlen);
/* Unmount configfs if configfs_gadget_prepare() mounted it. */
void configfs_gadget_unprepare(bool mounted);

/*
 * Create the gadget spec describes under root (CONFIGFS_GADGET_ROOT, or
 * a test's directory): its attributes and strings, configuration c.1 and
 * the function ffs.<instance> linked into it. NULL with the reason in
 * err; whatever was created by then is removed again.
 */
struct configfs_gadget *configfs_gadget_create(const char *root,
		const struct configfs_gadget_spec *spec, char *err,
		size_t errlen);

/* root/name: the gadget's directory. */
const char *configfs_gadget_dir(const struct configfs_gadget *g);

/*
 * Mount functionfs for the instance on a new private directory (mkdtemp
 * under dir_parent, e.g. "/tmp"): its path, or NULL with the reason.
 */
const char *configfs_gadget_mount_ffs(struct configfs_gadget *g,
				      const char *dir_parent, char *err,
				      size_t errlen);

/*
 * The first (sorted by name) UDC in class_dir (CONFIGFS_UDC_CLASS), into
 * out. -1 with the reason in err when there is none.
 */
int configfs_gadget_default_udc(const char *class_dir, char *out,
				size_t outlen, char *err, size_t errlen);

/* Bind to udc (write its name to UDC); -1 with the reason in err. */
int configfs_gadget_bind(struct configfs_gadget *g, const char *udc,
			 char *err, size_t errlen);
/* Unbind from the UDC if bound (the host sees an unplug). */
void configfs_gadget_unbind(struct configfs_gadget *g);

/*
 * Unbind, unmount functionfs (its files must be closed by then) and
 * remove its directory, then everything created under root, newest
 * first; errors are logged. g may be NULL.
 */
void configfs_gadget_destroy(struct configfs_gadget *g);

#endif /* ISOCAM_EMU_CONFIGFS_GADGET_H */
