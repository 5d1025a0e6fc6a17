// SPDX-License-Identifier: GPL-2.0
/*
 * isocam's media graph: a media device for the camera, with the sensor's
 * entity linked to the video node's by an enabled, immutable link, and a
 * /dev/v4l-subdevN node for the sensor. The video node configures the
 * sensor (the camera is video-node centric), so the subdev node is read
 * only: formats and intervals can be read there, controls also set. The
 * media device lives in isocam_dev: unregistered at unplug, cleaned up in
 * the v4l2 release.
 */
#include <linux/error-injection.h>
#include <linux/rcupdate.h>
#include <linux/usb.h>
#include <media/media-device.h>
#include <media/v4l2-subdev.h>

#include <isocam/usb.h>

#include "isocam.h"

/* Before v4l2_device_register: subdevs and the node join the graph. */
void isocam_media_init(struct isocam_dev *dev)
{
	media_device_usb_init(&dev->mdev, dev->udev, ISOCAM_USB_PRODUCT);
	dev->v4l2_dev.mdev = &dev->mdev;
}

/* Before video_register_device: the node's entity has one sink pad. */
int isocam_media_video_pad(struct isocam_dev *dev)
{
	dev->vdev_pad.flags = MEDIA_PAD_FL_SINK | MEDIA_PAD_FL_MUST_CONNECT;
	return media_entity_pads_init(&dev->vdev.entity, 1, &dev->vdev_pad);
}

/*
 * The subdev node's release, which runs when its last user is gone (maybe
 * long after the unplug). v4l2 writes to the subdev after the sensor's
 * release callback (6.1's v4l2_subdev_release); the sensor frees itself
 * an RCU grace period after its last reference, so this read-side section
 * keeps that from happening before v4l2 is done with it.
 */
static void isocam_subdev_node_release(struct video_device *vdev)
{
	struct isocam_dev *dev = to_isocam(vdev->v4l2_dev);

	rcu_read_lock();
	dev->subdev_node_release(vdev);
	rcu_read_unlock();
}

/* After the video node: link, subdev node, then the graph goes public. */
int isocam_media_register(struct isocam_dev *dev)
{
	struct device *d = &dev->intf->dev;
	int ret;

	ret = media_create_pad_link(&dev->sd->entity, 0, &dev->vdev.entity, 0,
				    MEDIA_LNK_FL_ENABLED |
				    MEDIA_LNK_FL_IMMUTABLE);
	if (ret) {
		dev_err(d, "cannot link the sensor to the video node: %d\n", ret);
		return ret;
	}
	ret = v4l2_device_register_ro_subdev_nodes(&dev->v4l2_dev);
	if (ret) {
		dev_err(d, "cannot register the sensor's subdev node: %d\n", ret);
		return ret;
	}
	/* Nothing releases it before video_unregister_device(). */
	if (dev->sd->devnode) {
		dev->subdev_node_release = dev->sd->devnode->release;
		dev->sd->devnode->release = isocam_subdev_node_release;
		/*
		 * The sensor's reference is its subdev node's: holding the node
		 * until the video node is released keeps the sensor's controls,
		 * which video handles may be subscribed to, alive as long as
		 * any video handle is open.
		 */
		dev->sd_node = dev->sd->devnode;
		get_device(&dev->sd_node->dev);
	}
	ret = media_device_register(&dev->mdev);
	if (ret)
		dev_err(d, "cannot register the media device: %d\n", ret);
	return ret;
}

/* The suite fails it (fail_function) to walk probe's unpublish path. */
ALLOW_ERROR_INJECTION(isocam_media_register, ERRNO);

/*
 * The video node's last user is gone: no video handle refers to the
 * sensor's controls any more. Our handler goes first, then our hold on
 * the sensor.
 */
void isocam_media_video_released(struct isocam_dev *dev)
{
	v4l2_ctrl_handler_free(&dev->ctrl_handler);
	if (dev->sd_node) {
		put_device(&dev->sd_node->dev);
		dev->sd_node = NULL;
	}
}

/* Unplug: the graph is gone for new opens; open handles get errors. */
void isocam_media_unregister(struct isocam_dev *dev)
{
	media_device_unregister(&dev->mdev);
}

/* The last reference: nothing reaches the graph any more. */
void isocam_media_cleanup(struct isocam_dev *dev)
{
	media_device_cleanup(&dev->mdev);
}
