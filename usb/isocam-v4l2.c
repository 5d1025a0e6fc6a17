// SPDX-License-Identifier: GPL-2.0
/*
 * isocam USB bridge driver: the video node.
 *
 * Formats, sizes and frame intervals come from the sensor subdev; sizes
 * and intervals the USB link cannot carry are not offered. Settings live
 * in the driver (and the sensor) across opens: open() never changes them,
 * and only closing the handle that streams stops the stream.
 */
#include <linux/usb.h>
#include <media/v4l2-event.h>
#include <media/v4l2-fh.h>
#include <media/v4l2-ioctl.h>
#include <media/v4l2-subdev.h>
#include <media/videobuf2-vmalloc.h>

#include <isocam/usb.h>

#include "isocam.h"

/* Buffers the driver needs before streaming starts (one fills, one waits). */
#define ISOCAM_MIN_BUFFERS	2
/*
 * REQBUFS (and read()) get at least this many: one fills, one is with the
 * application and two absorb its scheduling delays, so an application
 * late by up to two frame intervals loses no frame. With the two that
 * many ask for (v4l2-compliance does), one interval late drops a frame.
 * CREATE_BUFS gets what it asks for.
 */
#define ISOCAM_MIN_ALLOC	4

/* ---- formats, sizes and intervals from the sensor ---- */

static const struct isocam_format_info *
isocam_find_format(struct isocam_dev *dev, u32 fourcc)
{
	unsigned int i;

	for (i = 0; i < dev->num_formats; i++)
		if (dev->formats[i]->fourcc == fourcc)
			return dev->formats[i];
	return NULL;
}

static int isocam_sensor_size(struct isocam_dev *dev,
			      const struct isocam_format_info *fi,
			      unsigned int index, u32 *w, u32 *h)
{
	struct v4l2_subdev_frame_size_enum fse = {
		.which = V4L2_SUBDEV_FORMAT_ACTIVE,
		.index = index,
		.code = fi->mbus_code,
	};
	int ret;

	ret = v4l2_subdev_call_state_active(dev->sd, pad, enum_frame_size,
					    &fse);
	if (ret)
		return ret;
	/* ic1280 sizes are discrete; a range is offered at its largest. */
	*w = fse.max_width;
	*h = fse.max_height;
	return 0;
}

/*
 * The index-th sensor interval for this format and size that the link
 * carries; -EINVAL past the end.
 */
static int isocam_fitting_interval(struct isocam_dev *dev,
				   const struct isocam_format_info *fi,
				   u32 w, u32 h, unsigned int index,
				   struct v4l2_fract *tpf)
{
	struct v4l2_subdev_frame_interval_enum fie = {
		.which = V4L2_SUBDEV_FORMAT_ACTIVE,
		.code = fi->mbus_code,
		.width = w,
		.height = h,
	};
	u32 sizeimage = isocam_sizeimage(fi, w, h);

	while (!v4l2_subdev_call_state_active(dev->sd, pad,
					      enum_frame_interval, &fie)) {
		fie.index++;
		if (!fie.interval.numerator || !fie.interval.denominator)
			continue;
		if (!isocam_interval_fits(dev, sizeimage, &fie.interval))
			continue;
		if (!index--) {
			*tpf = fie.interval;
			return 0;
		}
	}
	return -EINVAL;
}

/* The index-th sensor size with at least one interval the link carries. */
static int isocam_fitting_size(struct isocam_dev *dev,
			       const struct isocam_format_info *fi,
			       unsigned int index, u32 *w, u32 *h)
{
	struct v4l2_fract tpf;
	unsigned int i;

	for (i = 0; !isocam_sensor_size(dev, fi, i, w, h); i++) {
		if (isocam_fitting_interval(dev, fi, *w, *h, 0, &tpf))
			continue;
		if (!index--)
			return 0;
	}
	return -EINVAL;
}

static u64 isocam_tpf_100ns(const struct v4l2_fract *f)
{
	return div_u64((u64)f->numerator * 10000000, f->denominator);
}

/* The fitting interval nearest to want (any fitting one if want is 0). */
static int isocam_nearest_interval(struct isocam_dev *dev,
				   const struct isocam_format_info *fi,
				   u32 w, u32 h, const struct v4l2_fract *want,
				   struct v4l2_fract *out)
{
	u64 target = 0, best_diff = U64_MAX;
	struct v4l2_fract f;
	unsigned int i;

	if (want->numerator && want->denominator)
		target = isocam_tpf_100ns(want);
	for (i = 0; !isocam_fitting_interval(dev, fi, w, h, i, &f); i++) {
		u64 v = isocam_tpf_100ns(&f);
		u64 diff = v > target ? v - target : target - v;

		if (diff < best_diff) {
			best_diff = diff;
			*out = f;
		}
	}
	return best_diff == U64_MAX ? -EINVAL : 0;
}

static void isocam_fill_pix(const struct isocam_format_info *fi, u32 w, u32 h,
			    struct v4l2_pix_format *pix)
{
	memset(pix, 0, sizeof(*pix));
	pix->pixelformat = fi->fourcc;
	pix->width = w;
	pix->height = h;
	pix->field = V4L2_FIELD_NONE;
	pix->bytesperline = isocam_bytesperline(fi, w);
	pix->sizeimage = isocam_sizeimage(fi, w, h);
	pix->colorspace = fi->colorspace;
	pix->ycbcr_enc = V4L2_YCBCR_ENC_DEFAULT;
	pix->quantization = V4L2_QUANTIZATION_DEFAULT;
	pix->xfer_func = V4L2_XFER_FUNC_DEFAULT;
}

/* Snap a requested format to what the sensor and the link support. */
static const struct isocam_format_info *
isocam_try_pix(struct isocam_dev *dev, struct v4l2_pix_format *pix)
{
	const struct isocam_format_info *fi;
	u32 w, h, best_w = 0, best_h = 0;
	u64 best = U64_MAX;
	unsigned int i;

	fi = isocam_find_format(dev, pix->pixelformat);
	if (!fi)
		fi = dev->fi;

	for (i = 0; !isocam_fitting_size(dev, fi, i, &w, &h); i++) {
		u64 d = abs((s64)w - pix->width) + abs((s64)h - pix->height);

		if (d < best) {
			best = d;
			best_w = w;
			best_h = h;
		}
	}
	if (best == U64_MAX) {
		/* The sensor offers nothing for it: keep what works now. */
		fi = dev->fi;
		best_w = dev->pix.width;
		best_h = dev->pix.height;
	}
	isocam_fill_pix(fi, best_w, best_h, pix);
	return fi;
}

/* ---- vb2 queue ---- */

static int isocam_queue_setup(struct vb2_queue *q, unsigned int *nbuffers,
			      unsigned int *nplanes, unsigned int sizes[],
			      struct device *alloc_devs[])
{
	struct isocam_dev *dev = vb2_get_drv_priv(q);

	if (!*nplanes && vb2_get_num_buffers(q) + *nbuffers < ISOCAM_MIN_ALLOC)
		*nbuffers = ISOCAM_MIN_ALLOC - vb2_get_num_buffers(q);
	if (*nplanes)
		return sizes[0] < dev->pix.sizeimage ? -EINVAL : 0;
	*nplanes = 1;
	sizes[0] = dev->pix.sizeimage;
	return 0;
}

static int isocam_buf_prepare(struct vb2_buffer *vb)
{
	struct isocam_dev *dev = vb2_get_drv_priv(vb->vb2_queue);

	if (vb2_plane_size(vb, 0) < dev->pix.sizeimage)
		return -EINVAL;
	vb2_set_plane_payload(vb, 0, dev->pix.sizeimage);
	return 0;
}

static void isocam_buf_queue(struct vb2_buffer *vb)
{
	struct isocam_dev *dev = vb2_get_drv_priv(vb->vb2_queue);
	struct isocam_buffer *buf = to_isocam_buffer(vb);
	unsigned long flags;

	spin_lock_irqsave(&dev->slock, flags);
	if (READ_ONCE(dev->disconnected)) {
		spin_unlock_irqrestore(&dev->slock, flags);
		vb2_buffer_done(vb, VB2_BUF_STATE_ERROR);
		return;
	}
	list_add_tail(&buf->list, &dev->queued);
	spin_unlock_irqrestore(&dev->slock, flags);
}

static int isocam_start_streaming(struct vb2_queue *q, unsigned int count)
{
	struct isocam_dev *dev = vb2_get_drv_priv(q);
	int ret;

	ret = isocam_stream_start(dev);
	if (ret)
		isocam_return_buffers(dev, VB2_BUF_STATE_QUEUED);
	return ret;
}

static void isocam_stop_streaming(struct vb2_queue *q)
{
	isocam_stream_stop(vb2_get_drv_priv(q));
}

static const struct vb2_ops isocam_vb2_ops = {
	.queue_setup = isocam_queue_setup,
	.buf_prepare = isocam_buf_prepare,
	.buf_queue = isocam_buf_queue,
	.start_streaming = isocam_start_streaming,
	.stop_streaming = isocam_stop_streaming,
	ISOCAM_VB2_WAIT_OPS
};

/* ---- ioctls ---- */

static int isocam_querycap(struct file *file, void *fh,
			   struct v4l2_capability *cap)
{
	struct isocam_dev *dev = video_drvdata(file);

	strscpy(cap->driver, ISOCAM_DRIVER_NAME, sizeof(cap->driver));
	strscpy(cap->card, dev->udev->product ? dev->udev->product :
		ISOCAM_USB_PRODUCT, sizeof(cap->card));
	usb_make_path(dev->udev, cap->bus_info, sizeof(cap->bus_info));
	return 0;
}

static int isocam_enum_fmt(struct file *file, void *fh,
			   struct v4l2_fmtdesc *f)
{
	struct isocam_dev *dev = video_drvdata(file);

	if (f->index >= dev->num_formats)
		return -EINVAL;
	/* The V4L2 core fills in the description. */
	f->pixelformat = dev->formats[f->index]->fourcc;
	return 0;
}

static int isocam_g_fmt(struct file *file, void *fh, struct v4l2_format *f)
{
	struct isocam_dev *dev = video_drvdata(file);

	f->fmt.pix = dev->pix;
	return 0;
}

static int isocam_try_fmt(struct file *file, void *fh, struct v4l2_format *f)
{
	isocam_try_pix(video_drvdata(file), &f->fmt.pix);
	return 0;
}

static int isocam_s_fmt(struct file *file, void *fh, struct v4l2_format *f)
{
	struct isocam_dev *dev = video_drvdata(file);
	const struct isocam_format_info *fi;
	struct v4l2_fract tpf;
	int ret;

	if (vb2_is_busy(&dev->queue))
		return -EBUSY;
	fi = isocam_try_pix(dev, &f->fmt.pix);
	/* Keep the frame rate if the new format still carries it. */
	ret = isocam_nearest_interval(dev, fi, f->fmt.pix.width,
				      f->fmt.pix.height, &dev->timeperframe,
				      &tpf);
	if (ret)
		return ret;
	dev->fi = fi;
	dev->pix = f->fmt.pix;
	dev->timeperframe = tpf;
	isocam_codec_format_changed(dev);
	return isocam_sensor_setup(dev);
}

static int isocam_enum_framesizes(struct file *file, void *fh,
				  struct v4l2_frmsizeenum *fsize)
{
	struct isocam_dev *dev = video_drvdata(file);
	const struct isocam_format_info *fi;
	u32 w, h;

	fi = isocam_find_format(dev, fsize->pixel_format);
	if (!fi || isocam_fitting_size(dev, fi, fsize->index, &w, &h))
		return -EINVAL;
	fsize->type = V4L2_FRMSIZE_TYPE_DISCRETE;
	fsize->discrete.width = w;
	fsize->discrete.height = h;
	return 0;
}

static int isocam_enum_frameintervals(struct file *file, void *fh,
				      struct v4l2_frmivalenum *fival)
{
	struct isocam_dev *dev = video_drvdata(file);
	const struct isocam_format_info *fi;
	struct v4l2_fract tpf;
	unsigned int i;
	u32 w, h;

	fi = isocam_find_format(dev, fival->pixel_format);
	if (!fi)
		return -EINVAL;
	/* Only the sizes ENUM_FRAMESIZES offers. */
	for (i = 0; !isocam_fitting_size(dev, fi, i, &w, &h); i++)
		if (w == fival->width && h == fival->height)
			break;
	if (w != fival->width || h != fival->height)
		return -EINVAL;
	if (isocam_fitting_interval(dev, fi, w, h, fival->index, &tpf))
		return -EINVAL;
	fival->type = V4L2_FRMIVAL_TYPE_DISCRETE;
	fival->discrete = tpf;
	return 0;
}

static int isocam_g_parm(struct file *file, void *fh,
			 struct v4l2_streamparm *parm)
{
	struct isocam_dev *dev = video_drvdata(file);
	struct v4l2_captureparm *cp = &parm->parm.capture;

	if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	memset(cp, 0, sizeof(*cp));
	cp->capability = V4L2_CAP_TIMEPERFRAME;
	/* A stream that fell back to a smaller alt runs slower than set. */
	cp->timeperframe = dev->streaming ? dev->stream_tpf :
					    dev->timeperframe;
	cp->readbuffers = ISOCAM_MIN_ALLOC;
	return 0;
}

static int isocam_s_parm(struct file *file, void *fh,
			 struct v4l2_streamparm *parm)
{
	struct isocam_dev *dev = video_drvdata(file);
	struct v4l2_fract tpf;
	int ret;

	if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	if (vb2_is_streaming(&dev->queue))
		return -EBUSY;
	ret = isocam_nearest_interval(dev, dev->fi, dev->pix.width,
				      dev->pix.height,
				      &parm->parm.capture.timeperframe, &tpf);
	if (ret)
		return ret;
	dev->timeperframe = tpf;
	ret = isocam_sensor_setup(dev);
	if (ret)
		return ret;
	return isocam_g_parm(file, fh, parm);
}

static int isocam_enum_input(struct file *file, void *fh,
			     struct v4l2_input *inp)
{
	if (inp->index)
		return -EINVAL;
	strscpy(inp->name, "Camera", sizeof(inp->name));
	inp->type = V4L2_INPUT_TYPE_CAMERA;
	return 0;
}

static int isocam_g_input(struct file *file, void *fh, unsigned int *i)
{
	*i = 0;
	return 0;
}

static int isocam_s_input(struct file *file, void *fh, unsigned int i)
{
	return i ? -EINVAL : 0;
}

static int isocam_log_status(struct file *file, void *fh)
{
	struct isocam_dev *dev = video_drvdata(file);
	struct isocam_asm_stats as;
	unsigned long flags;

	spin_lock_irqsave(&dev->slock, flags);
	isocam_asm_totals(dev, &as);
	spin_unlock_irqrestore(&dev->slock, flags);

	v4l2_info(&dev->v4l2_dev, "format: %ux%u %p4cc, %u/%u s per frame\n",
		  dev->pix.width, dev->pix.height, &dev->pix.pixelformat,
		  dev->timeperframe.numerator, dev->timeperframe.denominator);
	dev->tp->log_status(dev);
	v4l2_info(&dev->v4l2_dev, "frames %u, errors %u, dropped %u, cut by a stop %u, bytes %llu\n",
		  as.frames, as.error_frames, as.dropped_frames,
		  as.stopped_frames, as.bytes);
	/* The bridge's own control; the sensor logs its own below. */
	if (dev->jpeg_quality)
		v4l2_info(&dev->v4l2_dev, "JPEG quality: %d%s\n",
			  v4l2_ctrl_g_ctrl(dev->jpeg_quality),
			  dev->jpeg_quality->flags & V4L2_CTRL_FLAG_INACTIVE ?
			  " (inactive: raw format)" : "");
	v4l2_device_call_all(&dev->v4l2_dev, 0, core, log_status);
	return 0;
}

#ifdef CONFIG_VIDEO_ADV_DEBUG
/*
 * The camera's register file is the sensor's: the bridge has none of its
 * own beyond GET_STATUS. So the video node's registers (the "bridge" of
 * VIDIOC_DBG_G_REGISTER, address 0) are the sensor's, reached through its
 * subdev, which also answers as subdev 0. Called under dev->lock, which
 * disconnect holds while it clears dev->sd.
 */
static int isocam_g_register(struct file *file, void *fh,
			     struct v4l2_dbg_register *reg)
{
	struct isocam_dev *dev = video_drvdata(file);

	if (!dev->sd)
		return -ENODEV;
	return v4l2_subdev_call(dev->sd, core, g_register, reg);
}

static int isocam_s_register(struct file *file, void *fh,
			     const struct v4l2_dbg_register *reg)
{
	struct isocam_dev *dev = video_drvdata(file);

	if (!dev->sd)
		return -ENODEV;
	return v4l2_subdev_call(dev->sd, core, s_register, reg);
}
#endif

static const struct v4l2_ioctl_ops isocam_ioctl_ops = {
	.vidioc_querycap = isocam_querycap,
	.vidioc_enum_fmt_vid_cap = isocam_enum_fmt,
	.vidioc_g_fmt_vid_cap = isocam_g_fmt,
	.vidioc_try_fmt_vid_cap = isocam_try_fmt,
	.vidioc_s_fmt_vid_cap = isocam_s_fmt,
	.vidioc_enum_framesizes = isocam_enum_framesizes,
	.vidioc_enum_frameintervals = isocam_enum_frameintervals,
	.vidioc_g_parm = isocam_g_parm,
	.vidioc_s_parm = isocam_s_parm,
	.vidioc_enum_input = isocam_enum_input,
	.vidioc_g_input = isocam_g_input,
	.vidioc_s_input = isocam_s_input,

	.vidioc_reqbufs = vb2_ioctl_reqbufs,
	.vidioc_create_bufs = vb2_ioctl_create_bufs,
	.vidioc_prepare_buf = vb2_ioctl_prepare_buf,
	.vidioc_querybuf = vb2_ioctl_querybuf,
	.vidioc_qbuf = vb2_ioctl_qbuf,
	.vidioc_dqbuf = vb2_ioctl_dqbuf,
	.vidioc_expbuf = vb2_ioctl_expbuf,
	.vidioc_streamon = vb2_ioctl_streamon,
	.vidioc_streamoff = vb2_ioctl_streamoff,

	.vidioc_log_status = isocam_log_status,
	.vidioc_subscribe_event = v4l2_ctrl_subscribe_event,
	.vidioc_unsubscribe_event = v4l2_event_unsubscribe,
#ifdef CONFIG_VIDEO_ADV_DEBUG
	.vidioc_g_register = isocam_g_register,
	.vidioc_s_register = isocam_s_register,
#endif
};

/*
 * An open camera stays awake; one that nobody has open may autosuspend
 * (uvcvideo's rule; the USB core allows it once power/control is auto).
 */
static int isocam_open(struct file *file)
{
	struct isocam_dev *dev = video_drvdata(file);
	int ret;

	ret = v4l2_fh_open(file);
	if (ret)
		return ret;
	ret = usb_autopm_get_interface(dev->intf);
	if (ret) {
		v4l2_fh_release(file);
		return ret;
	}
	return 0;
}

/* dev lives on until v4l2's release of the node, after this returns. */
static int isocam_file_release(struct file *file)
{
	struct isocam_dev *dev = video_drvdata(file);
	int ret = vb2_fop_release(file);

	usb_autopm_put_interface(dev->intf);
	return ret;
}

static const struct v4l2_file_operations isocam_fops = {
	.owner = THIS_MODULE,
	.open = isocam_open,
	.release = isocam_file_release,
	.read = vb2_fop_read,
	.poll = vb2_fop_poll,
	.mmap = vb2_fop_mmap,
	.unlocked_ioctl = video_ioctl2,
};

/* ---- setup ---- */

/* The last video handle is closed (the node itself is in isocam_dev). */
static void isocam_video_release(struct video_device *vdev)
{
	isocam_media_video_released(video_get_drvdata(vdev));
}

static int isocam_init_formats(struct isocam_dev *dev)
{
	struct v4l2_subdev_mbus_code_enum mce = {
		.which = V4L2_SUBDEV_FORMAT_ACTIVE,
	};
	const struct isocam_format_info *fi, *raw;
	struct device *d = &dev->intf->dev;
	unsigned int i;

	for (; !v4l2_subdev_call_state_active(dev->sd, pad, enum_mbus_code,
					      &mce); mce.index++) {
		fi = isocam_format_by_mbus(mce.code);
		if (!fi) {
			dev_dbg(d, "sensor code 0x%04x has no pixel format\n",
				mce.code);
			continue;
		}
		if (dev->num_formats == ISOCAM_MAX_FORMATS)
			break;
		dev->formats[dev->num_formats++] = fi;
	}
	if (!dev->num_formats) {
		dev_err(d, "the sensor offers no format the bridge can carry\n");
		return -ENODEV;
	}
	/* After the raw ones: what the encoder makes of a sensor format. */
	for (i = 0; dev->has_jpeg && (fi = isocam_format_by_index(i)); i++) {
		raw = isocam_format_by_mbus(fi->mbus_code);
		if (fi->codec != ISOCAM_CODEC_JPEG || !raw ||
		    !isocam_find_format(dev, raw->fourcc))
			continue;
		if (dev->num_formats == ISOCAM_MAX_FORMATS)
			break;
		dev->formats[dev->num_formats++] = fi;
	}
	return 0;
}

/* Start from what the sensor is set to, snapped to what the link carries. */
static int isocam_init_settings(struct isocam_dev *dev)
{
	struct v4l2_subdev_format fmt = {
		.which = V4L2_SUBDEV_FORMAT_ACTIVE,
	};
	struct v4l2_subdev_frame_interval ival = { };
	struct v4l2_pix_format pix = { };
	int ret;

	dev->fi = dev->formats[0];
	if (!v4l2_subdev_call_state_active(dev->sd, pad, get_fmt, &fmt)) {
		const struct isocam_format_info *fi =
			isocam_format_by_mbus(fmt.format.code);

		if (fi && isocam_find_format(dev, fi->fourcc))
			dev->fi = fi;
		pix.width = fmt.format.width;
		pix.height = fmt.format.height;
	}
	pix.pixelformat = dev->fi->fourcc;
	dev->pix.width = pix.width;
	dev->pix.height = pix.height;
	dev->fi = isocam_try_pix(dev, &pix);
	dev->pix = pix;

	if (isocam_subdev_g_frame_interval(dev->sd, &ival))
		ival.interval = (struct v4l2_fract){ 0, 0 };
	ret = isocam_nearest_interval(dev, dev->fi, pix.width, pix.height,
				      &ival.interval, &dev->timeperframe);
	if (ret) {
		dev_err(&dev->intf->dev, "no frame interval of the sensor fits the USB link\n");
		return ret;
	}
	return 0;
}

int isocam_v4l2_init(struct isocam_dev *dev)
{
	struct vb2_queue *q = &dev->queue;
	struct video_device *vdev = &dev->vdev;
	int ret;

	ret = isocam_init_formats(dev);
	if (ret)
		return ret;
	ret = isocam_init_settings(dev);
	if (ret)
		return ret;
	isocam_codec_format_changed(dev);

	q->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	q->io_modes = VB2_MMAP | VB2_USERPTR | VB2_DMABUF | VB2_READ;
	q->drv_priv = dev;
	q->buf_struct_size = sizeof(struct isocam_buffer);
	q->ops = &isocam_vb2_ops;
	q->mem_ops = &vb2_vmalloc_memops;
	q->timestamp_flags = V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC |
			     V4L2_BUF_FLAG_TSTAMP_SRC_SOE;
	isocam_vb2_set_min_queued(q, ISOCAM_MIN_BUFFERS);
	q->lock = &dev->lock;
	q->dev = &dev->intf->dev;
	ret = vb2_queue_init(q);
	if (ret) {
		dev_err(&dev->intf->dev, "vb2_queue_init failed: %d\n", ret);
		return ret;
	}

	strscpy(vdev->name, ISOCAM_DRIVER_NAME, sizeof(vdev->name));
	vdev->v4l2_dev = &dev->v4l2_dev;
	vdev->fops = &isocam_fops;
	vdev->ioctl_ops = &isocam_ioctl_ops;
	vdev->release = isocam_video_release;
	vdev->lock = &dev->lock;
	vdev->queue = q;
	vdev->vfl_dir = VFL_DIR_RX;
	vdev->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING |
			    V4L2_CAP_READWRITE;
	video_set_drvdata(vdev, dev);
	return 0;
}

int isocam_video_register(struct isocam_dev *dev)
{
	int ret;

	ret = isocam_media_video_pad(dev);
	if (ret)
		return ret;
	ret = video_register_device(&dev->vdev, VFL_TYPE_VIDEO, -1);
	if (ret)
		dev_err(&dev->intf->dev, "cannot register video device: %d\n",
			ret);
	return ret;
}
