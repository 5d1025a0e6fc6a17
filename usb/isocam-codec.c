// SPDX-License-Identifier: GPL-2.0
/*
 * isocam USB bridge driver: the bridge's JPEG encoder.
 *
 * Firmware 1.1 bridges have registers (BRIDGE_READ/BRIDGE_WRITE) and may
 * encode the sensor's YUYV as JPEG; firmware 1.0 STALLs those requests.
 * Probe reads CAPS once: with the encoder the video node offers MJPEG
 * and a JPEG quality control, without it neither. The codec register is
 * written at every stream start (the format may have changed since), the
 * quality whenever the control changes and again at stream start.
 */
#include <linux/usb.h>
#include <media/v4l2-ctrls.h>

#include <isocam/usb.h>

#include "isocam.h"

/* A register request either answers at once or the bridge is unwell. */
#define ISOCAM_BREG_TIMEOUT_MS	500

static int isocam_breg_read(struct isocam_dev *dev, u8 reg, u8 *val)
{
	int ret;

	ret = isocam_ctrl_msg(dev, ISOCAM_REQ_BRIDGE_READ, true, reg, val, 1,
			      ISOCAM_BREG_TIMEOUT_MS);
	if (ret < 0)
		return ret;
	return ret == 1 ? 0 : -EPROTO;
}

static int isocam_breg_write(struct isocam_dev *dev, u8 reg, u8 val)
{
	int ret;

	ret = isocam_ctrl_msg(dev, ISOCAM_REQ_BRIDGE_WRITE, false, reg, &val, 1,
			      ISOCAM_BREG_TIMEOUT_MS);
	if (ret < 0) {
		dev_err(&dev->intf->dev, "bridge register 0x%02x: writing 0x%02x failed: %d\n",
			reg, val, ret);
		return ret;
	}
	return 0;
}

static int isocam_codec_s_ctrl(struct v4l2_ctrl *ctrl)
{
	struct isocam_dev *dev = container_of(ctrl->handler, struct isocam_dev,
					      ctrl_handler);

	switch (ctrl->id) {
	case V4L2_CID_JPEG_COMPRESSION_QUALITY:
		/* Also written at stream start; a gone camera takes none. */
		if (READ_ONCE(dev->disconnected))
			return 0;
		return isocam_breg_write(dev, ISOCAM_BREG_JPEG_QUALITY,
					 ctrl->val);
	}
	return -EINVAL;
}

static const struct v4l2_ctrl_ops isocam_codec_ctrl_ops = {
	.s_ctrl = isocam_codec_s_ctrl,
};

/*
 * Whether the bridge has the encoder, and if so its quality control.
 * Only a failure to create the control fails the probe: a bridge that
 * cannot say what it has is used for raw formats, and says so.
 */
int isocam_codec_probe(struct isocam_dev *dev)
{
	struct device *d = &dev->intf->dev;
	u8 caps;
	int ret;

	ret = isocam_breg_read(dev, ISOCAM_BREG_CAPS, &caps);
	if (ret == -EPIPE) {
		dev_info(d, "bridge has no registers (firmware 1.0): raw formats only\n");
		return 0;
	}
	if (ret) {
		dev_warn(d, "cannot read the bridge's capabilities: %d; raw formats only\n",
			 ret);
		return 0;
	}
	dev_dbg(d, "bridge capabilities 0x%02x\n", caps);
	if (!(caps & ISOCAM_BCAP_JPEG))
		return 0;

	dev->jpeg_quality =
		v4l2_ctrl_new_std(&dev->ctrl_handler, &isocam_codec_ctrl_ops,
				  V4L2_CID_JPEG_COMPRESSION_QUALITY,
				  ISOCAM_JPEG_QUALITY_MIN,
				  ISOCAM_JPEG_QUALITY_MAX, 1,
				  ISOCAM_JPEG_QUALITY_DEFAULT);
	if (dev->ctrl_handler.error) {
		ret = dev->ctrl_handler.error;
		dev_err(d, "cannot add the JPEG quality control: %d\n", ret);
		return ret;
	}
	dev->has_jpeg = true;
	return 0;
}

/* The quality applies to JPEG alone: inactive while a raw format is set. */
void isocam_codec_format_changed(struct isocam_dev *dev)
{
	if (dev->jpeg_quality)
		v4l2_ctrl_activate(dev->jpeg_quality,
				   dev->fi->codec == ISOCAM_CODEC_JPEG);
}

/* Tell the bridge what to send for the current format. */
int isocam_codec_setup(struct isocam_dev *dev)
{
	u8 codec = dev->fi->codec;
	int ret;

	if (!dev->has_jpeg)
		return codec == ISOCAM_CODEC_RAW ? 0 : -EINVAL;
	if (codec == ISOCAM_CODEC_JPEG) {
		ret = isocam_breg_write(dev, ISOCAM_BREG_JPEG_QUALITY,
					v4l2_ctrl_g_ctrl(dev->jpeg_quality));
		if (ret)
			return ret;
	}
	return isocam_breg_write(dev, ISOCAM_BREG_CODEC, codec);
}
