// SPDX-License-Identifier: GPL-2.0
/*
 * isocam_usbsleep: a system sleep for one USB device, for the VM suite.
 * Writing "BUSID [MS]" to /sys/kernel/debug/isocam_usbsleep/sleep runs
 * the USB core's own system-sleep callbacks for that device and its root
 * hub (prepare, suspend, resume, complete: usb_dev_suspend() ->
 * usb_suspend(PMSG_SUSPEND) and back), in the order and under the locks
 * dpm_suspend() and dpm_resume() use, MS milliseconds apart (default
 * 300).
 *
 * Why not /sys/power/state: the guest's root is virtio-9p, which has no
 * freeze/restore, so after a real sleep the guest never reads its root
 * again; and vhci_hcd's devices are syscore, skipped by a real sleep.
 * This leaves every other device awake and no task frozen, as when the
 * camera is another machine.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/pm_runtime.h>
#include <linux/usb.h>

#define SLEEP_MS_DEFAULT 300
#define SLEEP_MS_MAX 60000

struct usbsleep_find {
	const char *name;
	struct usb_device *udev;
};

static int usbsleep_match(struct usb_device *udev, void *data)
{
	struct usbsleep_find *f = data;

	if (strcmp(dev_name(&udev->dev), f->name))
		return 0;
	f->udev = usb_get_dev(udev);
	return 1;
}

/* One phase of the PM core's: the callback under the device lock. */
static int usbsleep_call(struct device *dev, int (*cb)(struct device *))
{
	int ret;

	if (!cb)
		return 0;
	device_lock(dev);
	ret = cb(dev);
	device_unlock(dev);
	return ret;
}

static void usbsleep_complete(struct device *dev)
{
	const struct dev_pm_ops *pm = dev->type->pm;

	if (pm->complete) {
		device_lock(dev);
		pm->complete(dev);
		device_unlock(dev);
	}
	pm_runtime_put(dev);
}

/*
 * device_prepare() and device_suspend() for one device: runtime suspend
 * held off until complete, then the system-sleep callbacks.
 */
static int usbsleep_suspend(struct device *dev)
{
	const struct dev_pm_ops *pm = dev->type->pm;
	int ret;

	pm_runtime_get_noresume(dev);
	ret = usbsleep_call(dev, pm->prepare);
	if (!ret)
		ret = usbsleep_call(dev, pm->suspend);
	if (ret) {
		dev_warn(dev, "isocam_usbsleep: suspend failed: %d\n", ret);
		usbsleep_complete(dev);
	}
	return ret;
}

static int usbsleep_resume(struct device *dev)
{
	int ret = usbsleep_call(dev, dev->type->pm->resume);

	if (ret)
		dev_warn(dev, "isocam_usbsleep: resume failed: %d\n", ret);
	usbsleep_complete(dev);
	return ret;
}

/*
 * The camera's device, and its root hub when it hangs on one: a USB 2
 * device goes to sleep when its bus does (the USB core leaves its port
 * alone for a system sleep, usb_port_suspend()), so the bus suspends
 * too, after its child, and resumes first.
 */
static int usbsleep_one(struct usb_device *udev, unsigned int ms)
{
	struct device *devs[2] = { &udev->dev };
	int n = 1, i, ret, err;

	if (!udev->parent)
		return -EINVAL;
	if (!udev->parent->parent)
		devs[n++] = &udev->parent->dev;
	for (i = 0; i < n; i++)
		if (!devs[i]->type || !devs[i]->type->pm ||
		    !devs[i]->type->pm->suspend || !devs[i]->type->pm->resume)
			return -EOPNOTSUPP;
	/* Awake to start with, as a running system is. */
	ret = pm_runtime_resume_and_get(&udev->parent->dev);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		ret = usbsleep_suspend(devs[i]);
		if (ret)
			break;
	}
	if (!ret) {
		dev_info(&udev->dev, "isocam_usbsleep: asleep for %u ms\n", ms);
		msleep(ms);
	}
	while (i-- > 0) {
		err = usbsleep_resume(devs[i]);
		ret = ret ?: err;
	}
	if (!ret)
		dev_info(&udev->dev, "isocam_usbsleep: awake\n");
	pm_runtime_put(&udev->parent->dev);
	return ret;
}

static ssize_t usbsleep_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct usbsleep_find f = {};
	unsigned int ms = SLEEP_MS_DEFAULT;
	char buf[64], *p, *name;
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	p = strim(buf);
	name = strsep(&p, " ");
	if (p && (kstrtouint(skip_spaces(p), 0, &ms) || ms > SLEEP_MS_MAX))
		return -EINVAL;
	f.name = name;
	usb_for_each_dev(&f, usbsleep_match);
	if (!f.udev)
		return -ENODEV;
	ret = usbsleep_one(f.udev, ms);
	usb_put_dev(f.udev);
	return ret ? ret : count;
}

static const struct file_operations usbsleep_fops = {
	.owner = THIS_MODULE,
	.write = usbsleep_write,
};

static struct dentry *usbsleep_dir;

static int __init usbsleep_init(void)
{
	usbsleep_dir = debugfs_create_dir("isocam_usbsleep", NULL);
	debugfs_create_file("sleep", 0200, usbsleep_dir, NULL, &usbsleep_fops);
	return 0;
}

static void __exit usbsleep_exit(void)
{
	debugfs_remove_recursive(usbsleep_dir);
}

module_init(usbsleep_init);
module_exit(usbsleep_exit);
MODULE_DESCRIPTION("isocam VM suite: a system sleep for one USB device");
MODULE_LICENSE("GPL");
