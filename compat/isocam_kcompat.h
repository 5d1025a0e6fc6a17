/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel versions isocam supports, 6.1 to 7.2, in one place.
 *
 * The drivers are written against the newest kernel's API; this header
 * gives older kernels that API, and is the only place that looks at
 * LINUX_VERSION_CODE. Each difference is a named switch (ISOCAM_HAVE_*)
 * or a shim under the newer kernel's own name, with the release that
 * changed it.
 */
#ifndef ISOCAM_KCOMPAT_H
#define ISOCAM_KCOMPAT_H

#include <linux/version.h>

/* 6.12 moved <asm/unaligned.h> to <linux/unaligned.h>. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#include <linux/i2c.h>
#include <linux/slab.h>
#include <media/v4l2-subdev.h>
#include <media/videobuf2-core.h>
#include <media/videobuf2-v4l2.h>

/* 7.0: typed allocation; isocam always names the GFP flags. */
#ifndef kzalloc_obj
#define kzalloc_obj(P, gfp)	kzalloc(sizeof(P), gfp)
#endif
#ifndef kmalloc_obj
#define kmalloc_obj(P, gfp)	kmalloc(sizeof(P), gfp)
#endif

/* 6.3: i2c_driver.probe takes the client alone; probe_new went in 6.6. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define ISOCAM_I2C_PROBE(fn)	.probe = (fn),
#else
#define ISOCAM_I2C_PROBE(fn)	.probe_new = (fn),
#endif

/*
 * 6.8: frame intervals are pad ops called with the subdev state locked
 * (get/set_frame_interval); before, video ops that lock for themselves.
 * init_cfg became internal_ops.init_state; v4l2_subdev_get_pad_format()
 * became v4l2_subdev_state_get_format(); vb2_queue.min_buffers_needed
 * became min_queued_buffers and num_buffers is read through
 * vb2_get_num_buffers().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
#define ISOCAM_HAVE_PAD_FRAME_INTERVAL	1
#else
#define ISOCAM_HAVE_PAD_FRAME_INTERVAL	0
#endif

#if ISOCAM_HAVE_PAD_FRAME_INTERVAL
/*
 * Initializers of the ops tables, each with its comma (none when there is
 * nothing to set): in v4l2_subdev_pad_ops, the locked pad ops themselves.
 */
#define ISOCAM_SUBDEV_PAD_FRAME_INTERVAL(get, set)		\
	.get_frame_interval = (get),				\
	.set_frame_interval = (set),
/* In a v4l2_subdev_video_ops: nothing. */
#define ISOCAM_SUBDEV_VIDEO_FRAME_INTERVAL(g, s)
#define ISOCAM_DEFINE_VIDEO_FRAME_INTERVAL(g, s, get, set)
#define ISOCAM_SUBDEV_PAD_INIT_CFG(fn)
#define ISOCAM_SUBDEV_INIT_STATE(fn)	.init_state = (fn),

/* A bridge asks the sensor for its active interval. */
static inline int
isocam_subdev_g_frame_interval(struct v4l2_subdev *sd,
			       struct v4l2_subdev_frame_interval *fi)
{
	fi->which = V4L2_SUBDEV_FORMAT_ACTIVE;
	return v4l2_subdev_call_state_active(sd, pad, get_frame_interval, fi);
}

static inline int
isocam_subdev_s_frame_interval(struct v4l2_subdev *sd,
			       struct v4l2_subdev_frame_interval *fi)
{
	fi->which = V4L2_SUBDEV_FORMAT_ACTIVE;
	return v4l2_subdev_call_state_active(sd, pad, set_frame_interval, fi);
}

/* The state's interval of a pad (its TRY interval in a try state). */
static inline struct v4l2_fract *
isocam_subdev_state_interval(struct v4l2_subdev_state *state, unsigned int pad)
{
	return v4l2_subdev_state_get_interval(state, pad);
}

/* Where a TRY interval is kept; NULL for the active one. */
static inline struct v4l2_fract *
isocam_subdev_try_interval(struct v4l2_subdev_state *state,
			   const struct v4l2_subdev_frame_interval *fi)
{
	if (fi->which != V4L2_SUBDEV_FORMAT_TRY)
		return NULL;
	return v4l2_subdev_state_get_interval(state, fi->pad);
}

static inline void isocam_vb2_set_min_queued(struct vb2_queue *q,
					     unsigned int n)
{
	q->min_queued_buffers = n;
}
#else
#define ISOCAM_SUBDEV_PAD_FRAME_INTERVAL(get, set)
#define ISOCAM_SUBDEV_VIDEO_FRAME_INTERVAL(g, s)		\
	.g_frame_interval = (g),				\
	.s_frame_interval = (s),
/*
 * The video ops of old kernels, around the locked pad ops: they take the
 * active state's lock that 6.8's core takes for the pad ops.
 */
#define ISOCAM_DEFINE_VIDEO_FRAME_INTERVAL(g, s, get, set)		\
static int g(struct v4l2_subdev *sd,					\
	     struct v4l2_subdev_frame_interval *fi)			\
{									\
	struct v4l2_subdev_state *state;				\
	int ret;							\
									\
	state = v4l2_subdev_lock_and_get_active_state(sd);		\
	ret = get(sd, state, fi);					\
	v4l2_subdev_unlock_state(state);				\
	return ret;							\
}									\
									\
static int s(struct v4l2_subdev *sd,					\
	     struct v4l2_subdev_frame_interval *fi)			\
{									\
	struct v4l2_subdev_state *state;				\
	int ret;							\
									\
	state = v4l2_subdev_lock_and_get_active_state(sd);		\
	ret = set(sd, state, fi);					\
	v4l2_subdev_unlock_state(state);				\
	return ret;							\
}

#define ISOCAM_SUBDEV_PAD_INIT_CFG(fn)	.init_cfg = (fn),
#define ISOCAM_SUBDEV_INIT_STATE(fn)

static inline int
isocam_subdev_g_frame_interval(struct v4l2_subdev *sd,
			       struct v4l2_subdev_frame_interval *fi)
{
	return v4l2_subdev_call(sd, video, g_frame_interval, fi);
}

static inline int
isocam_subdev_s_frame_interval(struct v4l2_subdev *sd,
			       struct v4l2_subdev_frame_interval *fi)
{
	return v4l2_subdev_call(sd, video, s_frame_interval, fi);
}

static inline struct v4l2_mbus_framefmt *
v4l2_subdev_state_get_format(struct v4l2_subdev_state *state,
			     unsigned int pad)
{
	return &state->pads[pad].try_fmt;
}

/* Before 6.8 frame intervals had no TRY and the state had none. */
static inline struct v4l2_fract *
isocam_subdev_state_interval(struct v4l2_subdev_state *state, unsigned int pad)
{
	return NULL;
}

static inline struct v4l2_fract *
isocam_subdev_try_interval(struct v4l2_subdev_state *state,
			   const struct v4l2_subdev_frame_interval *fi)
{
	return NULL;
}

static inline unsigned int vb2_get_num_buffers(struct vb2_queue *q)
{
	return q->num_buffers;
}

static inline void isocam_vb2_set_min_queued(struct vb2_queue *q,
					     unsigned int n)
{
	q->min_buffers_needed = n;
}
#endif

/*
 * 6.13: with no wait_prepare/wait_finish the vb2 core drops and retakes
 * q->lock itself around a blocking wait; the ops went away later.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define ISOCAM_VB2_WAIT_OPS
#else
#define ISOCAM_VB2_WAIT_OPS					\
	.wait_prepare = vb2_ops_wait_prepare,			\
	.wait_finish = vb2_ops_wait_finish,
#endif

#endif /* ISOCAM_KCOMPAT_H */
