// SPDX-License-Identifier: GPL-2.0
/*
 * isocam USB bridge driver: the bridge's i2c master as an i2c_adapter.
 *
 * Each i2c message becomes one vendor control request (include/isocam/
 * usb.h): I2C_WRITE with the bytes to send, I2C_READ for the bytes to
 * receive. When the bus transfer fails the bridge STALLs the request and
 * GET_STATUS says why, which becomes the errno the i2c core documents
 * (Documentation/i2c/fault-codes.rst).
 */
#include <linux/i2c.h>
#include <linux/jiffies.h>
#include <linux/usb.h>

#include <isocam/usb.h>

#include "isocam.h"

/* Bounds of one request's timeout, whatever I2C_TIMEOUT asked for. */
#define ISOCAM_I2C_TIMEOUT_MIN_MS	10U
#define ISOCAM_I2C_TIMEOUT_MAX_MS	5000U

static int isocam_i2c_ctrl(struct isocam_dev *dev, u8 request, bool in,
			   u16 addr, void *buf, u16 len)
{
	/*
	 * I2C_TIMEOUT from userspace sets adapter.timeout, 0 included (which
	 * usb_control_msg() took as forever): keep it within bounds.
	 */
	unsigned int timeout = clamp(jiffies_to_msecs(READ_ONCE(dev->adapter.timeout)),
				     ISOCAM_I2C_TIMEOUT_MIN_MS,
				     ISOCAM_I2C_TIMEOUT_MAX_MS);

	return isocam_ctrl_msg(dev, request, in, addr, buf, len, timeout);
}

/* After a STALL: ask the bridge what happened on the bus. */
static int isocam_i2c_stall_errno(struct isocam_dev *dev, u16 addr)
{
	struct isocam_bridge_status *st;
	int ret;

	st = kmalloc_obj(*st, GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	ret = isocam_i2c_ctrl(dev, ISOCAM_REQ_GET_STATUS, true, 0, st,
			      ISOCAM_BRIDGE_STATUS_LEN);
	if (ret != ISOCAM_BRIDGE_STATUS_LEN) {
		dev_dbg(&dev->intf->dev, "i2c 0x%02x: GET_STATUS failed: %d\n",
			addr, ret);
		kfree(st);
		return -EIO;
	}
	switch (st->last_i2c_result) {
	case ISOCAM_I2C_NAK_ADDR:
		ret = -ENXIO;
		break;
	case ISOCAM_I2C_NAK_DATA:
		ret = -EREMOTEIO;
		break;
	case ISOCAM_I2C_TIMEOUT:
		ret = -ETIMEDOUT;
		break;
	default:
		ret = -EIO;
		break;
	}
	dev_dbg(&dev->intf->dev, "i2c 0x%02x: bus result %u -> %d\n", addr,
		st->last_i2c_result, ret);
	kfree(st);
	return ret;
}

static int isocam_i2c_msg(struct isocam_dev *dev, struct i2c_msg *msg)
{
	u16 addr = msg->addr & ISOCAM_I2C_ADDR_MASK;
	bool rd = msg->flags & I2C_M_RD;
	int ret;

	if (msg->flags & I2C_M_TEN)
		return -EOPNOTSUPP;
	/* The quirks make the i2c core refuse longer messages first. */
	if (msg->len > ISOCAM_I2C_MAX_XFER)
		return -EOPNOTSUPP;

	/*
	 * A zero-length message only probes the address (SMBus quick, as
	 * i2cdetect sends): a zero-length write does that for both
	 * directions, so a quick read is sent as one too.
	 */
	if (!msg->len)
		rd = false;

	/* isocam_ctrl_msg() bounces through DMA-able memory of its own. */
	ret = isocam_i2c_ctrl(dev, rd ? ISOCAM_REQ_I2C_READ :
					ISOCAM_REQ_I2C_WRITE,
			      rd, addr, msg->buf, msg->len);
	if (ret == -EPIPE)
		return isocam_i2c_stall_errno(dev, addr);
	if (ret < 0)
		return ret;
	if (ret != msg->len) {
		dev_dbg(&dev->intf->dev, "i2c 0x%02x: short %s, %d of %u\n",
			addr, rd ? "read" : "write", ret, msg->len);
		return -EIO;
	}
	return 0;
}

static int isocam_i2c_xfer(struct i2c_adapter *adap, struct i2c_msg *msgs,
			   int num)
{
	struct isocam_dev *dev = i2c_get_adapdata(adap);
	int i, ret;

	if (READ_ONCE(dev->disconnected))
		return -ENODEV;
	/* A transfer wakes an autosuspended camera for its duration. */
	ret = usb_autopm_get_interface(dev->intf);
	if (ret)
		return ret;

	for (i = 0; i < num; i++) {
		ret = isocam_i2c_msg(dev, &msgs[i]);
		dev->i2c_transfers++;
		if (ret) {
			dev->i2c_errors++;
			break;
		}
	}
	usb_autopm_put_interface(dev->intf);
	return ret ? ret : num;
}

static u32 isocam_i2c_functionality(struct i2c_adapter *adap)
{
	return I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL;
}

static const struct i2c_algorithm isocam_i2c_algo = {
	.master_xfer = isocam_i2c_xfer,
	.functionality = isocam_i2c_functionality,
};

static const struct i2c_adapter_quirks isocam_i2c_quirks = {
	.max_read_len = ISOCAM_I2C_MAX_XFER,
	.max_write_len = ISOCAM_I2C_MAX_XFER,
};

/* The adapter's device is out of sysfs (i2c_del_adapter may still wait). */
static int isocam_i2c_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct isocam_dev *dev = container_of(nb, struct isocam_dev, i2c_nb);

	if (action == BUS_NOTIFY_REMOVED_DEVICE && data == &dev->adapter.dev)
		complete(&dev->i2c_gone);
	return NOTIFY_DONE;
}

int isocam_i2c_register(struct isocam_dev *dev)
{
	struct i2c_adapter *adap = &dev->adapter;
	char path[32];
	int ret;

	init_completion(&dev->i2c_gone);
	dev->i2c_nb.notifier_call = isocam_i2c_notify;
	ret = bus_register_notifier(&i2c_bus_type, &dev->i2c_nb);
	if (ret)
		return ret;

	usb_make_path(dev->udev, path, sizeof(path));
	adap->owner = THIS_MODULE;
	adap->algo = &isocam_i2c_algo;
	adap->quirks = &isocam_i2c_quirks;
	/* USB/IP under emulation is slow: allow one second per request. */
	adap->timeout = HZ;
	adap->dev.parent = &dev->intf->dev;
	snprintf(adap->name, sizeof(adap->name), "isocam i2c %s", path);
	i2c_set_adapdata(adap, dev);

	ret = i2c_add_adapter(adap);
	if (ret) {
		dev_err(&dev->intf->dev, "cannot register i2c adapter: %d\n",
			ret);
		bus_unregister_notifier(&i2c_bus_type, &dev->i2c_nb);
		return ret;
	}
	dev->adapter_registered = true;
	return 0;
}

/* Returns once every /dev/i2c-N holder has closed. */
void isocam_i2c_unregister(struct isocam_dev *dev)
{
	if (!dev->adapter_registered)
		return;
	i2c_del_adapter(&dev->adapter);
	bus_unregister_notifier(&i2c_bus_type, &dev->i2c_nb);
	dev->adapter_registered = false;
}

static void isocam_i2c_del_work(struct work_struct *work)
{
	struct isocam_dev *dev = container_of(work, struct isocam_dev,
					      i2c_del_work);

	isocam_i2c_unregister(dev);
	v4l2_device_put(&dev->v4l2_dev);
}

/*
 * For unplug: i2c_del_adapter() waits until every process that holds
 * /dev/i2c-N open has closed it, and unplug must not wait for userspace.
 * So the adapter goes from wq, holding a reference on the isocam_dev that
 * contains it, and this waits only until it has left sysfs: after the
 * return the USB core removes our interface, the adapter's parent, which
 * the isocam_dev keeps in memory (usb_get_intf) for the transfers of
 * those holders: i2c_transfer() reads the parent to know the bus depth.
 */
void isocam_i2c_unregister_async(struct isocam_dev *dev,
				 struct workqueue_struct *wq)
{
	if (!dev->adapter_registered)
		return;
	INIT_WORK(&dev->i2c_del_work, isocam_i2c_del_work);
	v4l2_device_get(&dev->v4l2_dev);
	queue_work(wq, &dev->i2c_del_work);
	if (!wait_for_completion_timeout(&dev->i2c_gone, 10 * HZ))
		dev_warn(&dev->intf->dev, "i2c adapter %s is still in sysfs after 10 s\n",
			 dev_name(&dev->adapter.dev));
}
