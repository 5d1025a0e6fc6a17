// SPDX-License-Identifier: GPL-2.0
/*
 * isocam USB bridge driver: the usb_driver, probe and disconnect, the
 * device's lifetime and its debugfs counters.
 *
 * Lifetime: the isocam_dev lives as long as its v4l2_device. Probe holds
 * one reference, dropped by disconnect; every registered video_device
 * holds one until its last file handle is closed. So an application that
 * keeps the node open across an unplug only ever sees -ENODEV.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/usb.h>
#include <media/v4l2-subdev.h>

#include <isocam/ic1280_regs.h>
#include <isocam/usb.h>

#include "isocam.h"

/* Where unplug leaves the work that may wait on userspace. */
static struct workqueue_struct *isocam_wq;

static const struct usb_device_id isocam_id_table[] = {
	{ USB_DEVICE_AND_INTERFACE_INFO(ISOCAM_USB_VID, ISOCAM_USB_PID,
					ISOCAM_USB_IFACE_CLASS,
					ISOCAM_USB_IFACE_SUBCLASS,
					ISOCAM_USB_IFACE_PROTOCOL) },
	{ }
};
MODULE_DEVICE_TABLE(usb, isocam_id_table);

/*
 * The transport the descriptors say: an interface of alt 0 alone that has
 * endpoints is the bulk personality (isocam-bulk.c checks it); anything
 * else must be the isochronous one (isocam-iso.c).
 */
static int isocam_parse_transport(struct isocam_dev *dev)
{
	struct usb_interface *intf = dev->intf;
	struct usb_host_interface *alt0 = usb_altnum_to_altsetting(intf, 0);

	if (intf->num_altsetting == 1 && alt0 && alt0->desc.bNumEndpoints)
		return isocam_bulk_parse(dev);
	return isocam_iso_parse(dev);
}

static int isocam_stats_show(struct seq_file *s, void *unused)
{
	struct isocam_dev *dev = s->private;
	struct isocam_clock_stats cs;
	struct isocam_asm_stats as;
	struct isocam_stats st;
	unsigned long flags;
	u32 alt, pbytes;
	bool hw_ts;

	spin_lock_irqsave(&dev->slock, flags);
	isocam_asm_totals(dev, &as);
	st = dev->stats;
	cs = dev->clock_snap;
	hw_ts = dev->hw_ts;
	alt = dev->alt;
	pbytes = dev->packet_bytes;
	spin_unlock_irqrestore(&dev->slock, flags);

	seq_printf(s, "transport:        %s\n", dev->tp->name);
	seq_printf(s, "alt:              %u\n", alt);
	seq_printf(s, "packet_bytes:     %u\n", pbytes);
	seq_printf(s, "urbs_in_flight:   %u\n", dev->num_urbs);
	seq_printf(s, "packets_per_urb:  %u\n", dev->num_packets);
	seq_printf(s, "streams:          %u\n", st.streams);
	seq_printf(s, "frames:           %u\n", as.frames);
	seq_printf(s, "error_frames:     %u\n", as.error_frames);
	seq_printf(s, "dropped_frames:   %u\n", as.dropped_frames);
	seq_printf(s, "stopped_frames:   %u\n", as.stopped_frames);
	seq_printf(s, "short_frames:     %u\n", as.short_frames);
	seq_printf(s, "overflows:        %u\n", as.overflows);
	seq_printf(s, "err_bit_packets:  %u\n", as.err_bit);
	seq_printf(s, "out_of_sync:      %u\n", as.out_of_sync);
	seq_printf(s, "bus_errors:       %u\n", as.bus_errors);
	seq_printf(s, "bad_packets:      %llu\n", as.bad_packets);
	seq_printf(s, "packets:          %llu\n", as.packets);
	seq_printf(s, "empty_packets:    %llu\n", as.empty_packets);
	seq_printf(s, "bytes:            %llu\n", as.bytes);
	seq_printf(s, "urbs:             %llu\n", st.urbs);
	seq_printf(s, "urb_ns:           %llu\n", st.urb_ns);
	seq_printf(s, "urb_ns_max:       %u\n", st.urb_ns_max);
	seq_printf(s, "urbs_irqs_off:    %u\n", st.urbs_irqs_off);
	seq_printf(s, "urb_errors:       %u\n", st.urb_errors);
	seq_printf(s, "packet_errors:    %u\n", st.packet_errors);
	seq_printf(s, "resubmit_errors:  %u\n", st.resubmit_errors);
	seq_printf(s, "enospc_fallbacks: %u\n", st.enospc_fallbacks);
	seq_printf(s, "bad_urbs:         %u\n", st.bad_urbs);
	seq_printf(s, "bulk_halts:       %u\n", st.bulk_halts);
	seq_printf(s, "bad_descs:        %u\n", st.bad_descs);
	seq_printf(s, "stream_failures:  %u\n", st.stream_failures);
	seq_printf(s, "timestamps:       %s\n",
		   hw_ts ? "camera clock" : "arrival");
	seq_printf(s, "clock_samples:    %u\n", cs.samples);
	seq_printf(s, "clock_late:       %u\n", cs.late);
	seq_printf(s, "clock_resets:     %u\n", cs.resets);
	seq_printf(s, "ts_clamped:       %u\n", st.ts_clamped);
	seq_printf(s, "i2c_transfers:    %u\n", READ_ONCE(dev->i2c_transfers));
	seq_printf(s, "i2c_errors:       %u\n", READ_ONCE(dev->i2c_errors));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(isocam_stats);

static int isocam_alts_show(struct seq_file *s, void *unused)
{
	struct isocam_dev *dev = s->private;
	unsigned int i;

	for (i = 0; i < dev->num_alts; i++)
		seq_printf(s, "%u %u\n", i, dev->alt_bytes[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(isocam_alts);

static void isocam_debugfs_init(struct isocam_dev *dev)
{
	char name[32];

	snprintf(name, sizeof(name), "isocam-%s", dev_name(&dev->intf->dev));
	dev->debugfs = debugfs_create_dir(name, usb_debug_root);
	debugfs_create_file("stats", 0444, dev->debugfs, dev,
			    &isocam_stats_fops);
	debugfs_create_file("alts", 0444, dev->debugfs, dev,
			    &isocam_alts_fops);
	debugfs_create_u32("sim_max_alt", 0644, dev->debugfs,
			   &dev->sim_max_alt);
	debugfs_create_bool("sim_enospc_submit", 0644, dev->debugfs,
			    &dev->sim_enospc_submit);
	debugfs_create_u32("sim_submit_fail_at", 0644, dev->debugfs,
			   &dev->sim_submit_fail_at);
}

/* The last reference is gone: nothing can reach the device any more. */
static void isocam_release(struct v4l2_device *v4l2_dev)
{
	struct isocam_dev *dev = to_isocam(v4l2_dev);

	v4l2_ctrl_handler_free(&dev->ctrl_handler);
	v4l2_device_unregister(&dev->v4l2_dev);
	isocam_media_cleanup(dev);
	mutex_destroy(&dev->lock);
	usb_put_intf(dev->intf);
	usb_put_dev(dev->udev);
	kfree(dev);
}

/*
 * Take the sensor and our i2c adapter down: the v4l2 side (which
 * unregisters the sensor's i2c client), then the adapter. Our handler
 * keeps referring to the sensor's controls, and video handles may still
 * be subscribed to them: the sensor lives on until the video node's
 * release (isocam-media.c holds its subdev node until then). Called with
 * dev->lock held so no ioctl runs in between.
 */
static void isocam_sensor_teardown(struct isocam_dev *dev)
{
	dev->sd = NULL;
	v4l2_device_unregister(&dev->v4l2_dev);
}

/*
 * Unplug, or a probe that fails once the video node is public: no new
 * opens, ioctls on open handles fail with -ENODEV, the stream stops, the
 * sensor and the i2c adapter go. The v4l2 release frees the rest when the
 * last handle closes. A device still present (a failed probe) is told
 * that the stream is off before it is marked gone.
 */
static void isocam_unpublish(struct isocam_dev *dev, bool present)
{
	video_unregister_device(&dev->vdev);
	isocam_media_unregister(dev);
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;

	mutex_lock(&dev->lock);
	if (present)
		isocam_stream_stop(dev);
	WRITE_ONCE(dev->disconnected, true);
	/*
	 * Kill the URBs and hand every buffer back with an error; the vb2
	 * queue stays in streaming state until its owner closes, and
	 * stop_streaming then finds nothing left to do.
	 */
	isocam_stream_stop(dev);
	vb2_queue_error(&dev->queue);
	isocam_sensor_teardown(dev);
	mutex_unlock(&dev->lock);

	/* Transfers now fail with -ENODEV; the adapter goes when it can. */
	isocam_i2c_unregister_async(dev, isocam_wq);
}

static int isocam_probe(struct usb_interface *intf,
			const struct usb_device_id *id)
{
	struct i2c_board_info info = {
		I2C_BOARD_INFO(IC1280_NAME, IC1280_I2C_ADDR),
	};
	struct isocam_dev *dev;
	char what[32];
	int ret;

	dev = kzalloc_obj(*dev, GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	mutex_init(&dev->lock);
	isocam_stream_init(dev);
	/*
	 * Held as long as dev: the i2c adapter's parent and every message's
	 * device, still used by /dev/i2c-N and video handles after unplug.
	 */
	dev->intf = usb_get_intf(intf);
	dev->udev = usb_get_dev(interface_to_usbdev(intf));
	dev->ifnum = intf->cur_altsetting->desc.bInterfaceNumber;

	ret = isocam_parse_transport(dev);
	if (ret)
		goto err_free;

	/* Start from zero bandwidth whatever a previous driver left. */
	ret = usb_set_interface(dev->udev, dev->ifnum, 0);
	if (ret) {
		dev_err(&intf->dev, "cannot select alt 0: %d\n", ret);
		goto err_free;
	}

	usb_set_intfdata(intf, dev);
	isocam_media_init(dev);
	dev->v4l2_dev.release = isocam_release;
	ret = v4l2_device_register(&intf->dev, &dev->v4l2_dev);
	if (ret) {
		dev_err(&intf->dev, "v4l2_device_register failed: %d\n", ret);
		isocam_media_cleanup(dev);
		goto err_free;
	}
	/* From here on the release callback frees dev. */

	ret = v4l2_ctrl_handler_init(&dev->ctrl_handler, 20);
	if (ret)
		goto err_put;
	dev->v4l2_dev.ctrl_handler = &dev->ctrl_handler;

	ret = isocam_i2c_register(dev);
	if (ret)
		goto err_put;

	dev->sd = v4l2_i2c_new_subdev_board(&dev->v4l2_dev, &dev->adapter,
					    &info, NULL);
	if (!dev->sd) {
		dev_err(&intf->dev, "sensor %s did not bind at i2c 0x%02x on %s; is the ic1280 module available?\n",
			IC1280_NAME, IC1280_I2C_ADDR, dev->adapter.name);
		ret = -ENODEV;
		goto err_i2c;
	}

	/* Registering the subdev added its controls to our handler. */
	ret = isocam_codec_probe(dev);
	if (ret)
		goto err_sensor;

	ret = isocam_v4l2_init(dev);
	if (ret)
		goto err_sensor;

	isocam_debugfs_init(dev);

	ret = isocam_video_register(dev);
	if (ret)
		goto err_debugfs;
	ret = isocam_media_register(dev);
	if (ret)
		goto err_video;

	dev->tp->describe(dev, what, sizeof(what));
	dev_info(&intf->dev, "%s: %s, %s, i2c %s, video %s\n",
		 ISOCAM_USB_PRODUCT, dev->sd->name, what,
		 dev_name(&dev->adapter.dev),
		 video_device_node_name(&dev->vdev));
	return 0;

err_video:
	/* The video node was public: a handle may be open, even streaming. */
	isocam_unpublish(dev, true);
	usb_set_intfdata(intf, NULL);
	v4l2_device_put(&dev->v4l2_dev);
	return ret;
err_debugfs:
	debugfs_remove_recursive(dev->debugfs);
err_sensor:
	mutex_lock(&dev->lock);
	/* No handle was ever opened: nothing refers to the sensor's controls. */
	v4l2_ctrl_handler_free(&dev->ctrl_handler);
	isocam_sensor_teardown(dev);
	mutex_unlock(&dev->lock);
err_i2c:
	isocam_i2c_unregister(dev);
err_put:
	usb_set_intfdata(intf, NULL);
	v4l2_device_put(&dev->v4l2_dev);
	return ret;

err_free:
	usb_set_intfdata(intf, NULL);
	usb_put_intf(dev->intf);
	usb_put_dev(dev->udev);
	kfree(dev);
	return ret;
}

static void isocam_disconnect(struct usb_interface *intf)
{
	struct isocam_dev *dev = usb_get_intfdata(intf);

	if (!dev)
		return;
	dev_dbg(&intf->dev, "disconnect\n");

	/*
	 * Unplugged, or unbound from a device still there (sysfs unbind, or
	 * the USB core ahead of a reset or a sleep): that one is told that
	 * the stream is off, and stops sending.
	 */
	isocam_unpublish(dev, dev->udev->state != USB_STATE_NOTATTACHED);

	usb_set_intfdata(intf, NULL);
	v4l2_device_put(&dev->v4l2_dev);
}

static struct usb_driver isocam_driver = {
	.name = ISOCAM_DRIVER_NAME,
	.probe = isocam_probe,
	.disconnect = isocam_disconnect,
	.pre_reset = isocam_pre_reset,
	.post_reset = isocam_post_reset,
	.suspend = isocam_suspend,
	.resume = isocam_resume,
	.reset_resume = isocam_reset_resume,
	.supports_autosuspend = 1,
	.id_table = isocam_id_table,
};

static int __init isocam_init(void)
{
	int ret;

	isocam_ctrl_init();
	isocam_wq = alloc_workqueue("isocam", WQ_UNBOUND, 0);
	if (!isocam_wq)
		return -ENOMEM;
	ret = usb_register(&isocam_driver);
	if (ret)
		destroy_workqueue(isocam_wq);
	return ret;
}

static void __exit isocam_exit(void)
{
	usb_deregister(&isocam_driver);
	/* Waits for adapters still held open at unplug to go. */
	destroy_workqueue(isocam_wq);
	isocam_ctrl_exit();
}

module_init(isocam_init);
module_exit(isocam_exit);

MODULE_DESCRIPTION("isocam USB camera bridge");
MODULE_AUTHOR("isocam project");
MODULE_LICENSE("GPL");
MODULE_SOFTDEP("pre: ic1280");
