/* SPDX-License-Identifier: GPL-2.0 */
/*
 * isocam USB bridge driver: the state shared by its parts.
 *
 * isocam-codec.c  the bridge's JPEG encoder: discovery, quality, codec
 * isocam-core.c   usb_driver, probe/disconnect, lifetime, debugfs
 * isocam-ctrl.c   vendor control requests a silent device cannot block
 * isocam-i2c.c    the bridge's i2c master as an i2c_adapter
 * isocam-video.c  URB streaming into the frame assembler: start/stop, the
 *                 isochronous URBs and what both transports share
 * isocam-bulk.c   the bulk personality: its endpoint and bulk URBs
 * isocam-v4l2.c   the video node: vb2 queue, formats, ioctls
 */
#ifndef ISOCAM_H
#define ISOCAM_H

#include <linux/i2c.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/usb.h>
#include <linux/workqueue.h>
#include <media/media-device.h>
#include <media/v4l2-ctrls.h>
#include <media/v4l2-device.h>
#include <media/videobuf2-v4l2.h>

#include "isocam_asm.h"
#include "isocam_kcompat.h"
#include "isocam_clock.h"
#include "isocam_format.h"

#define ISOCAM_DRIVER_NAME	"isocam"

/* Alt settings the driver tracks; a device with more is refused. */
#define ISOCAM_MAX_ALTS		32
/* Pixel formats the driver can offer at most (core table size bound). */
#define ISOCAM_MAX_FORMATS	8
#define ISOCAM_MAX_URBS		64
#define ISOCAM_MAX_PACKETS	128
/*
 * isocam_dev.flags: the driver has reset (or queued a reset of) a bridge
 * that stopped answering (isocam-ctrl.c); that reset has yet to happen.
 */
#define ISOCAM_BRIDGE_RESET_DONE	0
#define ISOCAM_BRIDGE_RESET_PENDING	1

struct isocam_dev;

/*
 * How the camera sends its video (isocam-iso.c, isocam-bulk.c), chosen at
 * probe from the descriptors: what the stream engine (isocam-video.c)
 * asks of a transport. Called with dev->lock held, but for init_urb and
 * reset_urb, which also run in URB completion.
 */
struct isocam_transport {
	const char *name;	/* "iso" or "bulk", as debugfs says it */
	/* URBs to keep in flight; isochronous packets in each (bulk: 0) */
	unsigned int (*urb_count)(void);
	unsigned int (*urb_packets)(void);
	/* an allocated URB made the transport's; one made ready again */
	void (*init_urb)(struct isocam_dev *dev, struct urb *urb);
	void (*reset_urb)(struct isocam_dev *dev, struct urb *urb);
	/* how long a stop lets the URBs in flight come back by themselves */
	unsigned int (*drain_ms)(const struct isocam_dev *dev);
	/* may a format of sizeimage bytes stream at tpf? */
	bool (*fits)(struct isocam_dev *dev, u32 sizeimage,
		     const struct v4l2_fract *tpf);
	/* select alt before the sensor starts (NULL: nothing to select) */
	int (*select)(struct isocam_dev *dev, int alt);
	u32 (*packet_bytes)(const struct isocam_dev *dev, int alt);
	/* start a stream (through isocam_stream_try()); tell it is off */
	int (*start)(struct isocam_dev *dev);
	void (*idle)(struct isocam_dev *dev);
	/* the probe line's words, and LOG_STATUS's line */
	void (*describe)(struct isocam_dev *dev, char *buf, size_t len);
	void (*log_status)(struct isocam_dev *dev);
};

struct isocam_buffer {
	struct vb2_v4l2_buffer vb;	/* must be first */
	struct list_head list;
	enum vb2_buffer_state state;	/* while held during a start */
};

static inline struct isocam_buffer *to_isocam_buffer(struct vb2_buffer *vb)
{
	return container_of(to_vb2_v4l2_buffer(vb), struct isocam_buffer, vb);
}

/* Counters shown in debugfs; updated under isocam_dev.slock. */
struct isocam_stats {
	u64 urbs;		/* URB completions handled */
	u32 urb_errors;		/* URBs completed with an error status */
	u32 packet_errors;	/* iso packets with an error status */
	u32 resubmit_errors;	/* resubmissions that failed */
	u32 streams;		/* stream starts */
	u32 enospc_fallbacks;	/* alt settings the host refused */
	u32 bad_urbs;		/* URBs completed with an impossible count */
	u32 bulk_halts;		/* bulk URBs that found the endpoint halted */
	u32 bad_descs;		/* packets whose fields were not ours */
	u32 stream_failures;	/* streams ended for the application */
	u32 ts_clamped;		/* stamps raised to keep them increasing */
	/* The completion handler's packet work (parsing and copying). */
	u64 urb_ns;		/* its total time */
	u32 urb_ns_max;		/* its longest, one URB */
	u32 urbs_irqs_off;	/* URBs completed with interrupts off */
};

struct isocam_dev {
	struct v4l2_device v4l2_dev;
	struct media_device mdev;
	struct video_device vdev;
	struct media_pad vdev_pad;
	/* v4l2's release of the sensor's subdev node (isocam-media.c) */
	void (*subdev_node_release)(struct video_device *vdev);
	/* That node, held until the video node's release (isocam-media.c). */
	struct video_device *sd_node;
	struct v4l2_ctrl_handler ctrl_handler;
	struct vb2_queue queue;
	/* Serializes ioctls, the vb2 queue, stream start/stop, disconnect. */
	struct mutex lock;

	struct usb_device *udev;
	struct usb_interface *intf;
	u8 ifnum;
	/* Set once under lock by disconnect; read locklessly on hot paths. */
	bool disconnected;

	/* The bridge's i2c master. */
	struct i2c_adapter adapter;
	bool adapter_registered;
	/*
	 * Unplug removes the adapter from a work item, holding a v4l2
	 * reference, and waits only until it is out of sysfs (i2c_gone).
	 */
	struct work_struct i2c_del_work;
	struct notifier_block i2c_nb;
	struct completion i2c_gone;
	/* A request's cancel was never acknowledged: the bridge is silent. */
	bool ctrl_dead;
	u32 i2c_transfers;
	u32 i2c_errors;

	struct v4l2_subdev *sd;	/* the ic1280; NULL after disconnect */

	/* The bridge encodes JPEG (CAPS); its quality control, in ctrl_handler. */
	bool has_jpeg;
	struct v4l2_ctrl *jpeg_quality;

	const struct isocam_transport *tp;
	/* From the descriptors: payload bytes per microframe, by alt number. */
	u32 alt_bytes[ISOCAM_MAX_ALTS];
	unsigned int num_alts;	/* highest alt number + 1 */
	/* The video IN endpoint: iso, polled every microframe, or bulk. */
	u8 ep_num;
	/* debugfs knobs: pretend the host refuses alts above sim_max_alt */
	u32 sim_max_alt;	/* 0: off */
	bool sim_enospc_submit;	/* refuse at URB submit, as EHCI does */
	/* 0: off; N: the Nth URB submit of a stream start fails, -ENOMEM */
	u32 sim_submit_fail_at;

	/* Formats both the sensor and the core know, in ENUM_FMT order. */
	const struct isocam_format_info *formats[ISOCAM_MAX_FORMATS];
	unsigned int num_formats;

	/* Current settings; they persist across opens. */
	const struct isocam_format_info *fi;
	struct v4l2_pix_format pix;
	struct v4l2_fract timeperframe;
	/* The interval the stream runs at (longer after an alt fallback). */
	struct v4l2_fract stream_tpf;

	/*
	 * Streaming. The assembler runs only in URB completion, which the
	 * host controller serializes per endpoint, and in start/stop while
	 * no URB is in flight; slock covers what others touch too.
	 */
	spinlock_t slock;	/* queued list, asm_snap, stats */
	struct list_head queued;
	struct usb_anchor anchor;	/* URBs in flight */
	/* Completions resubmit only while this is set. */
	bool urbs_live;
	/* The stream cannot go on: vb2 was told, a dev_err said why. */
	bool stream_failed;
	struct delayed_work watchdog;
	u32 wd_progress;	/* frames counted at the last watchdog tick */
	unsigned int wd_idle;	/* watchdog ticks without a frame */
	struct urb *urbs[ISOCAM_MAX_URBS];
	unsigned int num_urbs;
	unsigned int num_packets;	/* per iso URB; 1 for bulk */
	u32 packet_bytes;	/* of the alt in use; bulk: bytes per URB */
	/* Bulk URBs completed with an error in a row (completion only). */
	unsigned int bulk_errors;
	/* The status that made them too many (isocam_watchdog()), or 0. */
	int bulk_last_error;
	unsigned int bulk_failed_ticks;	/* watchdog ticks since then */
	int alt;		/* alt in use, 0 when idle */
	bool streaming;
	u32 sequence;
	/*
	 * A stream paused for a USB reset (isocam-pm.c): when, whether it is
	 * to go on, and whether it is going on now (the sequence carries on).
	 */
	u64 paused_ns;
	bool resume_stream;
	bool resuming;
	unsigned long flags;	/* ISOCAM_BRIDGE_RESET_* */
	u64 pkt_ts;		/* estimated arrival of the packet being fed */
	/*
	 * Buffer timestamps: the camera's clock mapped to the host's, or
	 * (hw_ts false, module parameter hwtimestamps) the first packet's
	 * arrival. last_ts keeps them increasing. Completion context only,
	 * like the assembler; clock_snap is for other readers, under slock.
	 */
	bool hw_ts;
	struct isocam_clock clock;
	struct isocam_clock_stats clock_snap;
	u64 last_ts;
	/*
	 * While a start may still fail, finished buffers wait in held: vb2
	 * wants every buffer of a failed start back as QUEUED, none done.
	 */
	bool starting;
	struct list_head held;
	struct isocam_assembler assembler;
	/* The assembler's counters as of its last URB, for other readers. */
	struct isocam_asm_stats asm_snap;
	/* Assembler counters of the streams before the current one. */
	struct isocam_asm_stats asm_past;
	struct isocam_stats stats;

	struct dentry *debugfs;
};

static inline struct isocam_dev *to_isocam(struct v4l2_device *v4l2_dev)
{
	return container_of(v4l2_dev, struct isocam_dev, v4l2_dev);
}

/* One of dev->stats, by one: every counter is written under slock. */
static inline void isocam_count(struct isocam_dev *dev, u32 *counter)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->slock, flags);
	(*counter)++;
	spin_unlock_irqrestore(&dev->slock, flags);
}

/*
 * A completion status that means the URB is not to be resubmitted: killed
 * or unlinked by us, or the device or host controller gone.
 */
static inline bool isocam_urb_gone(int status)
{
	return status == -ENOENT || status == -ECONNRESET ||
	       status == -ESHUTDOWN || status == -ENODEV;
}

/* isocam-pm.c */
int isocam_pre_reset(struct usb_interface *intf);
int isocam_post_reset(struct usb_interface *intf);
int isocam_suspend(struct usb_interface *intf, pm_message_t message);
int isocam_resume(struct usb_interface *intf);
int isocam_reset_resume(struct usb_interface *intf);

/* isocam-bulk.c */
extern const struct isocam_transport isocam_bulk_transport;
int isocam_bulk_parse(struct isocam_dev *dev);

/* isocam-codec.c */
int isocam_codec_probe(struct isocam_dev *dev);
int isocam_codec_setup(struct isocam_dev *dev);
void isocam_codec_format_changed(struct isocam_dev *dev);

/* isocam-ctrl.c */
int isocam_std_msg_allowed(struct isocam_dev *dev);
int isocam_std_msg_done(struct isocam_dev *dev, const char *what, int ret);
int isocam_ctrl_msg(struct isocam_dev *dev, u8 request, bool in, u16 value,
		    void *buf, u16 len, unsigned int timeout_ms);
void isocam_ctrl_init(void);
void isocam_ctrl_exit(void);

/* isocam-i2c.c */
int isocam_i2c_register(struct isocam_dev *dev);
void isocam_i2c_unregister(struct isocam_dev *dev);
void isocam_i2c_unregister_async(struct isocam_dev *dev,
				 struct workqueue_struct *wq);

/* isocam-video.c */
extern const struct kernel_param_ops isocam_urbs_param_ops;
int isocam_sensor_setup(struct isocam_dev *dev);
int isocam_stream_try(struct isocam_dev *dev, int alt,
		      const struct v4l2_fract *tpf);
void isocam_stream_init(struct isocam_dev *dev);
int isocam_stream_start(struct isocam_dev *dev);
void isocam_stream_stop(struct isocam_dev *dev);
bool isocam_stream_pause(struct isocam_dev *dev);
int isocam_stream_resume(struct isocam_dev *dev, const char *after);
void isocam_return_buffers(struct isocam_dev *dev, enum vb2_buffer_state st);
bool isocam_interval_fits(struct isocam_dev *dev, u32 sizeimage,
			  const struct v4l2_fract *tpf);
void isocam_asm_totals(struct isocam_dev *dev, struct isocam_asm_stats *t);
u32 isocam_urb_bytes(const struct isocam_dev *dev);
bool isocam_stream_fail(struct isocam_dev *dev);
void isocam_urb_account(struct isocam_dev *dev, u64 start_ns, bool irqs_off,
			u32 bad_urbs, u32 bad_descs, u32 packet_errors);
void isocam_urb_error(struct isocam_dev *dev, int status);
void isocam_urb_resubmit(struct isocam_dev *dev, struct urb *urb);

/* isocam-iso.c */
extern const struct isocam_transport isocam_iso_transport;
int isocam_iso_parse(struct isocam_dev *dev);

/* isocam-media.c */
void isocam_media_init(struct isocam_dev *dev);
int isocam_media_video_pad(struct isocam_dev *dev);
int isocam_media_register(struct isocam_dev *dev);
void isocam_media_unregister(struct isocam_dev *dev);
void isocam_media_video_released(struct isocam_dev *dev);
void isocam_media_cleanup(struct isocam_dev *dev);

/* isocam-v4l2.c */
int isocam_v4l2_init(struct isocam_dev *dev);
int isocam_video_register(struct isocam_dev *dev);

#endif /* ISOCAM_H */
