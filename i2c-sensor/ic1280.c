// SPDX-License-Identifier: GPL-2.0
/*
 * IC1280 image sensor: the i2c client driver, a v4l2_subdev.
 *
 * The driver knows nothing of the bus behind its i2c adapter; any bridge
 * (the isocam USB bridge, a SoC) uses it through this contract:
 *
 * - Instantiate with v4l2_i2c_new_subdev_board(v4l2_dev, adapter, &info,
 *   NULL), info = { I2C_BOARD_INFO(IC1280_NAME, IC1280_I2C_ADDR) }. Probe
 *   fails with -ENODEV, and says why, unless CHIP_ID reads 0x1280.
 * - Pad 0 is the only (source) pad. enum_mbus_code, enum_frame_size,
 *   enum_frame_interval, get_fmt and set_fmt take which=ACTIVE with a NULL
 *   state (v4l2_subdev_call() then locks and passes the active state) or
 *   which=TRY with a state from v4l2_subdev_call_state_try(). set_fmt
 *   snaps to the nearest supported size and returns what it chose.
 * - video ops: s_stream(1) wakes the sensor and writes format, size, frame
 *   length and every control, then starts streaming; s_stream(0) puts it
 *   in standby. The frame interval (pad ops get/set_frame_interval since
 *   6.8, video ops g/s_frame_interval before; the compat header's
 *   isocam_subdev_[gs]_frame_interval() call either): setting it snaps to
 *   the nearest supported interval for the size. Changing the active
 *   format or interval while streaming returns -EBUSY.
 * - Controls: inherit them with v4l2_ctrl_add_handler(hdl, sd->ctrl_handler,
 *   NULL, true). Their values are kept while the sensor is in standby and
 *   written at stream start; while streaming they reach the sensor at once.
 * - log_status (v4l2_device_call_all(..., core, log_status)) prints the
 *   sensor's state and controls.
 * - Lifetime: the sensor and its controls live until the i2c client is
 *   removed and the subdev's node (if registered) is released. A bridge
 *   whose video handles may stay subscribed to these controls after an
 *   unplug holds the subdev node (get_device()) until those are closed.
 *
 * Nothing here wakes the sensor except s_stream(1): opening a video node
 * or setting a control or format while idle never touches the hardware.
 */

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/i2c.h>
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pm.h>
#include <linux/pm_runtime.h>
#include <linux/regmap.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <media/media-entity.h>
#include <media/v4l2-common.h>
#include <media/v4l2-ctrls.h>
#include <media/v4l2-device.h>
#include <media/v4l2-event.h>
#include <media/v4l2-mediabus.h>
#include <media/v4l2-subdev.h>

#include <isocam/ic1280_regs.h>

#include "isocam_kcompat.h"

/* Idle time after the last stream before the sensor is runtime suspended. */
#define IC1280_AUTOSUSPEND_MS		1000

struct ic1280_format {
	u32 code;
	u8 reg;		/* IC1280_FMT_* */
	const char *name;
};

static const struct ic1280_format ic1280_formats[] = {
	{ MEDIA_BUS_FMT_YUYV8_2X8, IC1280_FMT_YUYV, "YUYV8_2X8" },
	{ MEDIA_BUS_FMT_RGB565_2X8_LE, IC1280_FMT_RGB565, "RGB565_2X8_LE" },
	{ MEDIA_BUS_FMT_Y8_1X8, IC1280_FMT_GREY, "Y8_1X8" },
};

static_assert(ARRAY_SIZE(ic1280_formats) == IC1280_FMT_COUNT);

struct ic1280_size {
	u32 width;
	u32 height;
};

/* Largest first: the full array, then 2x, 4x and 8x binning. */
static const struct ic1280_size ic1280_sizes[] = IC1280_SIZES_INIT;
static_assert(ARRAY_SIZE(ic1280_sizes) == IC1280_NUM_SIZES);

/* Frame rates offered, fastest first; each must fit a size's FLL range. */
static const unsigned int ic1280_rates[] = { 60, 30, 25, 20, 15, 10, 5 };
#define IC1280_DEFAULT_FPS \
	(IC1280_PIXEL_RATE / (IC1280_LINE_LENGTH_PCK * IC1280_FLL_DEFAULT))
/*
 * The default rate suits every size, the full array's too: the intervals
 * probe and init_state start with are valid whatever the format.
 */
static_assert(IC1280_FLL_FOR_FPS(IC1280_DEFAULT_FPS) >= IC1280_FLL_MIN_FULL &&
	      IC1280_FLL_FOR_FPS(IC1280_DEFAULT_FPS) <= IC1280_FLL_MAX);

static const char * const ic1280_test_pattern_menu[] = {
	[IC1280_TP_OFF] = "Disabled",
	[IC1280_TP_COLOR_BARS] = "Color Bars",
	[IC1280_TP_GRADIENT] = "Gradient",
	[IC1280_TP_CHECKERBOARD] = "Checkerboard",
	[IC1280_TP_SOLID_WHITE] = "Solid White",
};

static_assert(ARRAY_SIZE(ic1280_test_pattern_menu) == IC1280_TP_COUNT);

struct ic1280 {
	struct v4l2_subdev sd;
	struct media_pad pad;
	struct regmap *regmap;
	/*
	 * Held by the bound i2c client and by the registered subdev until
	 * its last user is gone: an open /dev/v4l-subdevN (or a control
	 * event subscription on it) may outlive the unplug.
	 */
	struct kref ref;
	struct rcu_work free_work;

	/*
	 * Serialises everything: it is the control handler's lock and the
	 * subdev state lock, so pad ops, s_ctrl and s_stream never race.
	 */
	struct mutex lock;
	struct v4l2_ctrl_handler ctrls;
	struct {	/* auto cluster */
		struct v4l2_ctrl *exposure_auto;
		struct v4l2_ctrl *exposure;
	};
	struct {	/* auto cluster */
		struct v4l2_ctrl *awb;
		struct v4l2_ctrl *red_balance;
		struct v4l2_ctrl *blue_balance;
	};
	struct {	/* one register */
		struct v4l2_ctrl *hflip;
		struct v4l2_ctrl *vflip;
	};

	/*
	 * Unbound (unplug): the regmap and the i2c client are gone with the
	 * binding, while the object lives on behind open handles. Set under
	 * the lock, so a register access in flight ends before remove
	 * returns and none starts after.
	 */
	bool removed;
	unsigned int fps;	/* active frame rate, one of ic1280_rates */
	bool streaming;		/* the sensor is on: controls go straight to it */
	/*
	 * The last MODE_SELECT write that reached the chip was standby. Only
	 * runtime suspend reads it without the lock: it cannot run while a
	 * stream holds a runtime PM reference.
	 */
	bool in_standby;
};

static inline struct ic1280 *to_ic1280(struct v4l2_subdev *sd)
{
	return container_of(sd, struct ic1280, sd);
}

/* --- register access ------------------------------------------------- */

static const struct regmap_range ic1280_wr_ranges[] = {
	regmap_reg_range(IC1280_REG_MODE_SELECT, IC1280_REG_MODE_SELECT),
	regmap_reg_range(IC1280_REG_SOFTWARE_RESET, IC1280_REG_SOFTWARE_RESET),
	regmap_reg_range(IC1280_REG_OUTPUT_FORMAT, IC1280_REG_OUTPUT_FORMAT),
	regmap_reg_range(IC1280_REG_X_OUTPUT_SIZE_H, IC1280_REG_Y_OUTPUT_SIZE_L),
	regmap_reg_range(IC1280_REG_FRAME_LENGTH_H, IC1280_REG_FRAME_LENGTH_L),
	regmap_reg_range(IC1280_REG_AWB_ENABLE, IC1280_REG_BLUE_GAIN),
	regmap_reg_range(IC1280_REG_EXPOSURE_H, IC1280_REG_EXPOSURE_L),
	regmap_reg_range(IC1280_REG_AEC_ENABLE, IC1280_REG_AEC_ENABLE),
	regmap_reg_range(IC1280_REG_ANALOG_GAIN, IC1280_REG_ANALOG_GAIN),
	regmap_reg_range(IC1280_REG_FLIP, IC1280_REG_FLIP),
	regmap_reg_range(IC1280_REG_PLF, IC1280_REG_PLF),
	regmap_reg_range(IC1280_REG_BRIGHTNESS, IC1280_REG_SATURATION),
	regmap_reg_range(IC1280_REG_HUE_H, IC1280_REG_HUE_L),
	regmap_reg_range(IC1280_REG_TEST_PATTERN, IC1280_REG_TEST_PATTERN),
};

static const struct regmap_access_table ic1280_wr_table = {
	.yes_ranges = ic1280_wr_ranges,
	.n_yes_ranges = ARRAY_SIZE(ic1280_wr_ranges),
};

/* Read-only registers; every writable one reads back too. */
static const struct regmap_range ic1280_ro_ranges[] = {
	regmap_reg_range(IC1280_REG_CHIP_ID_H, IC1280_REG_REVISION),
	regmap_reg_range(IC1280_REG_LINE_LENGTH_H, IC1280_REG_LINE_LENGTH_L),
};

static bool ic1280_readable_reg(struct device *dev, unsigned int reg)
{
	return regmap_reg_in_ranges(reg, ic1280_ro_ranges,
				    ARRAY_SIZE(ic1280_ro_ranges)) ||
	       regmap_reg_in_ranges(reg, ic1280_wr_ranges,
				    ARRAY_SIZE(ic1280_wr_ranges));
}

/* No cache: the sensor is the truth, and every write must reach it. */
static const struct regmap_config ic1280_regmap_config = {
	.reg_bits = 16,
	.val_bits = 8,
	.max_register = IC1280_REG_MAX,
	.wr_table = &ic1280_wr_table,
	.readable_reg = ic1280_readable_reg,
	.cache_type = REGCACHE_NONE,
};

static void ic1280_report_write_error(struct ic1280 *sensor,
				      unsigned int reg, int ret)
{
	/* A vanished bridge (unplug) is not worth a line per register. */
	if (ret == -ENODEV)
		dev_dbg(sensor->sd.dev, "reg 0x%04x: device gone\n", reg);
	else
		dev_err_ratelimited(sensor->sd.dev,
				    "writing reg 0x%04x failed: %d\n", reg, ret);
}

static int ic1280_write(struct ic1280 *sensor, unsigned int reg, u8 val)
{
	int ret;

	if (sensor->removed)
		return -ENODEV;
	ret = regmap_write(sensor->regmap, reg, val);
	if (ret)
		ic1280_report_write_error(sensor, reg, ret);
	return ret;
}

/* A big endian pair, in one auto-incrementing transfer so both bytes agree. */
static int ic1280_write16(struct ic1280 *sensor, unsigned int reg, u16 val)
{
	u8 buf[2] = { val >> 8, val & 0xff };
	int ret;

	if (sensor->removed)
		return -ENODEV;
	ret = regmap_bulk_write(sensor->regmap, reg, buf, sizeof(buf));
	if (ret)
		ic1280_report_write_error(sensor, reg, ret);
	return ret;
}

static int ic1280_set_mode(struct ic1280 *sensor, u8 mode)
{
	int ret;

	ret = ic1280_write(sensor, IC1280_REG_MODE_SELECT, mode);
	if (!ret)
		sensor->in_standby = mode == IC1280_MODE_STANDBY;
	return ret;
}

/* --- formats, sizes and rates ---------------------------------------- */

static const struct ic1280_format *ic1280_find_format(u32 code)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ic1280_formats); i++)
		if (ic1280_formats[i].code == code)
			return &ic1280_formats[i];
	return NULL;
}

static const struct ic1280_size *ic1280_find_size(u32 width, u32 height)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ic1280_sizes); i++)
		if (ic1280_sizes[i].width == width &&
		    ic1280_sizes[i].height == height)
			return &ic1280_sizes[i];
	return NULL;
}

static bool ic1280_rate_fits(u32 width, u32 height, unsigned int fps)
{
	/* The full array reads out every line: it cannot go as fast. */
	bool full = width == ic1280_sizes[0].width &&
		    height == ic1280_sizes[0].height;
	unsigned int fll = IC1280_FLL_FOR_FPS(fps);

	return fll >= (full ? IC1280_FLL_MIN_FULL : IC1280_FLL_MIN_BINNED) &&
	       fll <= IC1280_FLL_MAX;
}

static unsigned int ic1280_max_rate(u32 width, u32 height)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ic1280_rates); i++)
		if (ic1280_rate_fits(width, height, ic1280_rates[i]))
			return ic1280_rates[i];
	return ic1280_rates[ARRAY_SIZE(ic1280_rates) - 1];
}

/* fps if the size can keep it, else the fastest rate the size allows. */
static unsigned int ic1280_fit_rate(const struct ic1280_size *size,
				    unsigned int fps)
{
	if (ic1280_rate_fits(size->width, size->height, fps))
		return fps;
	return ic1280_max_rate(size->width, size->height);
}

/* The supported rate whose frame interval is nearest to num/den seconds. */
static unsigned int ic1280_nearest_rate(u32 width, u32 height,
					u32 num, u32 den)
{
	u64 want = div_u64((u64)num * NSEC_PER_SEC, den);
	unsigned int i, best = 0;
	u64 best_diff = U64_MAX;

	for (i = 0; i < ARRAY_SIZE(ic1280_rates); i++) {
		u64 ns = NSEC_PER_SEC / ic1280_rates[i];
		u64 diff = ns > want ? ns - want : want - ns;

		if (!ic1280_rate_fits(width, height, ic1280_rates[i]))
			continue;
		if (diff < best_diff) {
			best_diff = diff;
			best = ic1280_rates[i];
		}
	}
	return best;
}

static void ic1280_fill_fmt(struct v4l2_mbus_framefmt *fmt, u32 code,
			    const struct ic1280_size *size)
{
	bool is_rgb = code == MEDIA_BUS_FMT_RGB565_2X8_LE;

	memset(fmt, 0, sizeof(*fmt));
	fmt->code = code;
	fmt->width = size->width;
	fmt->height = size->height;
	fmt->field = V4L2_FIELD_NONE;
	fmt->colorspace = V4L2_COLORSPACE_SRGB;
	fmt->ycbcr_enc = V4L2_MAP_YCBCR_ENC_DEFAULT(fmt->colorspace);
	fmt->quantization = V4L2_MAP_QUANTIZATION_DEFAULT(is_rgb,
							  fmt->colorspace,
							  fmt->ycbcr_enc);
	fmt->xfer_func = V4L2_MAP_XFER_FUNC_DEFAULT(fmt->colorspace);
}

/* --- controls ---------------------------------------------------------- */

static int ic1280_set_exposure(struct ic1280 *sensor)
{
	bool manual = sensor->exposure_auto->val == V4L2_EXPOSURE_MANUAL;
	int ret = 0;

	if (manual)
		ret = ic1280_write16(sensor, IC1280_REG_EXPOSURE_H,
				     sensor->exposure->val);
	return ret ?: ic1280_write(sensor, IC1280_REG_AEC_ENABLE, !manual);
}

static int ic1280_set_white_balance(struct ic1280 *sensor)
{
	bool manual = !sensor->awb->val;
	int ret = 0;

	if (manual) {
		ret = ic1280_write(sensor, IC1280_REG_RED_GAIN,
				   sensor->red_balance->val);
		ret = ret ?: ic1280_write(sensor, IC1280_REG_BLUE_GAIN,
					  sensor->blue_balance->val);
	}
	return ret ?: ic1280_write(sensor, IC1280_REG_AWB_ENABLE, !manual);
}

static u8 ic1280_plf_to_reg(s32 val)
{
	switch (val) {
	case V4L2_CID_POWER_LINE_FREQUENCY_50HZ:
		return IC1280_PLF_50HZ;
	case V4L2_CID_POWER_LINE_FREQUENCY_60HZ:
		return IC1280_PLF_60HZ;
	default:
		return IC1280_PLF_DISABLED;
	}
}

static s32 ic1280_plf_from_reg(u8 reg)
{
	switch (reg) {
	case IC1280_PLF_50HZ:
		return V4L2_CID_POWER_LINE_FREQUENCY_50HZ;
	case IC1280_PLF_60HZ:
		return V4L2_CID_POWER_LINE_FREQUENCY_60HZ;
	default:
		return V4L2_CID_POWER_LINE_FREQUENCY_DISABLED;
	}
}

static int ic1280_s_ctrl(struct v4l2_ctrl *ctrl)
{
	struct ic1280 *sensor = container_of(ctrl->handler, struct ic1280,
					     ctrls);
	u8 flip;

	/*
	 * In standby the value is only kept; s_stream(1) writes them all.
	 * sensor->lock is held, so this cannot race with a stream start.
	 */
	if (!sensor->streaming)
		return 0;

	switch (ctrl->id) {
	case V4L2_CID_EXPOSURE_AUTO:
		return ic1280_set_exposure(sensor);
	case V4L2_CID_AUTO_WHITE_BALANCE:
		return ic1280_set_white_balance(sensor);
	case V4L2_CID_ANALOGUE_GAIN:
		return ic1280_write(sensor, IC1280_REG_ANALOG_GAIN, ctrl->val);
	case V4L2_CID_BRIGHTNESS:
		return ic1280_write(sensor, IC1280_REG_BRIGHTNESS,
				    (u8)(s8)ctrl->val);
	case V4L2_CID_CONTRAST:
		return ic1280_write(sensor, IC1280_REG_CONTRAST, ctrl->val);
	case V4L2_CID_SATURATION:
		return ic1280_write(sensor, IC1280_REG_SATURATION, ctrl->val);
	case V4L2_CID_HUE:
		return ic1280_write16(sensor, IC1280_REG_HUE_H,
				      (u16)(s16)ctrl->val);
	case V4L2_CID_HFLIP:
		flip = (sensor->hflip->val ? IC1280_FLIP_H : 0) |
		       (sensor->vflip->val ? IC1280_FLIP_V : 0);
		return ic1280_write(sensor, IC1280_REG_FLIP, flip);
	case V4L2_CID_POWER_LINE_FREQUENCY:
		return ic1280_write(sensor, IC1280_REG_PLF,
				    ic1280_plf_to_reg(ctrl->val));
	case V4L2_CID_TEST_PATTERN:
		return ic1280_write(sensor, IC1280_REG_TEST_PATTERN, ctrl->val);
	default:
		return -EINVAL;
	}
}

static const struct v4l2_ctrl_ops ic1280_ctrl_ops = {
	.s_ctrl = ic1280_s_ctrl,
};

static int ic1280_init_controls(struct ic1280 *sensor)
{
	const struct v4l2_ctrl_ops *ops = &ic1280_ctrl_ops;
	struct v4l2_ctrl_handler *hdl = &sensor->ctrls;
	int ret;

	ret = v4l2_ctrl_handler_init(hdl, 14);
	if (ret)
		return ret;
	hdl->lock = &sensor->lock;

	sensor->exposure_auto =
		v4l2_ctrl_new_std_menu(hdl, ops, V4L2_CID_EXPOSURE_AUTO,
				       V4L2_EXPOSURE_APERTURE_PRIORITY,
				       ~(BIT(V4L2_EXPOSURE_MANUAL) |
					 BIT(V4L2_EXPOSURE_APERTURE_PRIORITY)),
				       IC1280_AEC_DEFAULT ?
				       V4L2_EXPOSURE_APERTURE_PRIORITY :
				       V4L2_EXPOSURE_MANUAL);
	sensor->exposure =
		v4l2_ctrl_new_std(hdl, ops, V4L2_CID_EXPOSURE_ABSOLUTE,
				  IC1280_EXPOSURE_MIN, IC1280_EXPOSURE_MAX, 1,
				  IC1280_EXPOSURE_DEFAULT);
	v4l2_ctrl_new_std(hdl, ops, V4L2_CID_ANALOGUE_GAIN, IC1280_GAIN_MIN,
			  IC1280_GAIN_MAX, 1, IC1280_GAIN_DEFAULT);
	v4l2_ctrl_new_std(hdl, ops, V4L2_CID_BRIGHTNESS, IC1280_BRIGHTNESS_MIN,
			  IC1280_BRIGHTNESS_MAX, 1, IC1280_BRIGHTNESS_DEFAULT);
	v4l2_ctrl_new_std(hdl, ops, V4L2_CID_CONTRAST, IC1280_CONTRAST_MIN,
			  IC1280_CONTRAST_MAX, 1, IC1280_CONTRAST_DEFAULT);
	v4l2_ctrl_new_std(hdl, ops, V4L2_CID_SATURATION, IC1280_SATURATION_MIN,
			  IC1280_SATURATION_MAX, 1, IC1280_SATURATION_DEFAULT);
	v4l2_ctrl_new_std(hdl, ops, V4L2_CID_HUE, IC1280_HUE_MIN,
			  IC1280_HUE_MAX, 1, IC1280_HUE_DEFAULT);
	sensor->awb = v4l2_ctrl_new_std(hdl, ops, V4L2_CID_AUTO_WHITE_BALANCE,
					0, 1, 1, IC1280_AWB_DEFAULT);
	sensor->red_balance =
		v4l2_ctrl_new_std(hdl, ops, V4L2_CID_RED_BALANCE,
				  IC1280_WB_GAIN_MIN, IC1280_WB_GAIN_MAX, 1,
				  IC1280_WB_GAIN_DEFAULT);
	sensor->blue_balance =
		v4l2_ctrl_new_std(hdl, ops, V4L2_CID_BLUE_BALANCE,
				  IC1280_WB_GAIN_MIN, IC1280_WB_GAIN_MAX, 1,
				  IC1280_WB_GAIN_DEFAULT);
	sensor->hflip = v4l2_ctrl_new_std(hdl, ops, V4L2_CID_HFLIP, 0, 1, 1, 0);
	sensor->vflip = v4l2_ctrl_new_std(hdl, ops, V4L2_CID_VFLIP, 0, 1, 1, 0);
	v4l2_ctrl_new_std_menu(hdl, ops, V4L2_CID_POWER_LINE_FREQUENCY,
			       V4L2_CID_POWER_LINE_FREQUENCY_60HZ, 0,
			       ic1280_plf_from_reg(IC1280_PLF_DEFAULT));
	v4l2_ctrl_new_std_menu_items(hdl, ops, V4L2_CID_TEST_PATTERN,
				     ARRAY_SIZE(ic1280_test_pattern_menu) - 1,
				     0, IC1280_TP_OFF,
				     ic1280_test_pattern_menu);

	if (hdl->error) {
		ret = hdl->error;
		v4l2_ctrl_handler_free(hdl);
		return ret;
	}

	/* The manual values stay settable while auto is on (not volatile). */
	v4l2_ctrl_auto_cluster(2, &sensor->exposure_auto, V4L2_EXPOSURE_MANUAL,
			       false);
	v4l2_ctrl_auto_cluster(3, &sensor->awb, 0, false);
	v4l2_ctrl_cluster(2, &sensor->hflip);

	sensor->sd.ctrl_handler = hdl;
	return 0;
}

/* --- streaming ---------------------------------------------------------- */

static int ic1280_write_mode(struct ic1280 *sensor,
			     const struct v4l2_mbus_framefmt *fmt)
{
	const struct ic1280_format *f = ic1280_find_format(fmt->code);
	int ret;

	ret = ic1280_write(sensor, IC1280_REG_OUTPUT_FORMAT, f->reg);
	ret = ret ?: ic1280_write16(sensor, IC1280_REG_X_OUTPUT_SIZE_H,
				    fmt->width);
	ret = ret ?: ic1280_write16(sensor, IC1280_REG_Y_OUTPUT_SIZE_H,
				    fmt->height);
	return ret ?: ic1280_write16(sensor, IC1280_REG_FRAME_LENGTH_H,
				     IC1280_FLL_FOR_FPS(sensor->fps));
}

/* Everything the picture depends on, then go. sensor->lock is held. */
static int ic1280_program(struct ic1280 *sensor,
			  struct v4l2_subdev_state *state)
{
	int ret;

	ret = ic1280_write_mode(sensor,
				v4l2_subdev_state_get_format(state, 0));
	ret = ret ?: __v4l2_ctrl_handler_setup(&sensor->ctrls);
	return ret ?: ic1280_set_mode(sensor, IC1280_MODE_STREAMING);
}

static int ic1280_start_streaming(struct ic1280 *sensor,
				  struct v4l2_subdev_state *state)
{
	struct device *dev = sensor->sd.dev;
	int ret;

	ret = pm_runtime_resume_and_get(dev);
	if (ret < 0)
		return ret;

	/* From here s_ctrl writes through, so the setup in program() works. */
	sensor->streaming = true;
	ret = ic1280_program(sensor, state);
	if (ret) {
		dev_err(dev, "failed to start streaming: %d\n", ret);
		ic1280_set_mode(sensor, IC1280_MODE_STANDBY);
		sensor->streaming = false;
		pm_runtime_put(dev);
	}
	return ret;
}

static int ic1280_stop_streaming(struct ic1280 *sensor)
{
	struct device *dev = sensor->sd.dev;
	int ret;

	ret = ic1280_set_mode(sensor, IC1280_MODE_STANDBY);
	sensor->streaming = false;
	pm_runtime_mark_last_busy(dev);
	pm_runtime_put_autosuspend(dev);
	return ret;
}

static int ic1280_s_stream(struct v4l2_subdev *sd, int enable)
{
	struct ic1280 *sensor = to_ic1280(sd);
	struct v4l2_subdev_state *state;
	int ret = 0;

	state = v4l2_subdev_lock_and_get_active_state(sd);
	if (sensor->streaming != !!enable) {
		if (enable)
			ret = ic1280_start_streaming(sensor, state);
		else
			ret = ic1280_stop_streaming(sensor);
	}
	v4l2_subdev_unlock_state(state);
	return ret;
}

/*
 * Pad ops called with the state locked (sensor->lock): by the core since
 * 6.8, by the compat header's video ops before. A TRY interval lives in
 * the try state; the active one is sensor->fps.
 */
static int ic1280_get_frame_interval(struct v4l2_subdev *sd,
				     struct v4l2_subdev_state *state,
				     struct v4l2_subdev_frame_interval *fi)
{
	struct v4l2_fract *try = isocam_subdev_try_interval(state, fi);

	if (try) {
		fi->interval = *try;
		return 0;
	}
	fi->interval.numerator = 1;
	fi->interval.denominator = to_ic1280(sd)->fps;
	return 0;
}

static int ic1280_set_frame_interval(struct v4l2_subdev *sd,
				     struct v4l2_subdev_state *state,
				     struct v4l2_subdev_frame_interval *fi)
{
	struct v4l2_fract *try = isocam_subdev_try_interval(state, fi);
	const struct v4l2_mbus_framefmt *fmt;
	struct ic1280 *sensor = to_ic1280(sd);
	unsigned int fps;

	fmt = v4l2_subdev_state_get_format(state, 0);
	fps = try ? try->denominator : sensor->fps;
	/* A zero interval asks for nothing: keep the current one. */
	if (fi->interval.numerator && fi->interval.denominator)
		fps = ic1280_nearest_rate(fmt->width, fmt->height,
					  fi->interval.numerator,
					  fi->interval.denominator);
	if (!try && sensor->streaming) {
		fi->interval = (struct v4l2_fract){ 1, sensor->fps };
		return -EBUSY;
	}
	if (try)
		*try = (struct v4l2_fract){ 1, fps };
	else
		sensor->fps = fps;
	fi->interval = (struct v4l2_fract){ 1, fps };
	return 0;
}

ISOCAM_DEFINE_VIDEO_FRAME_INTERVAL(ic1280_g_frame_interval,
				   ic1280_s_frame_interval,
				   ic1280_get_frame_interval,
				   ic1280_set_frame_interval)

/* --- pad ops ---------------------------------------------------------------- */

static int ic1280_init_state(struct v4l2_subdev *sd,
			     struct v4l2_subdev_state *state)
{
	const struct ic1280_size *size =
		ic1280_find_size(IC1280_DEFAULT_WIDTH, IC1280_DEFAULT_HEIGHT);
	struct v4l2_fract *interval = isocam_subdev_state_interval(state, 0);

	ic1280_fill_fmt(v4l2_subdev_state_get_format(state, 0),
			ic1280_formats[0].code, size);
	if (interval)
		*interval = (struct v4l2_fract){ 1, IC1280_DEFAULT_FPS };
	return 0;
}

static int ic1280_enum_mbus_code(struct v4l2_subdev *sd,
				 struct v4l2_subdev_state *state,
				 struct v4l2_subdev_mbus_code_enum *code)
{
	if (code->index >= ARRAY_SIZE(ic1280_formats))
		return -EINVAL;
	code->code = ic1280_formats[code->index].code;
	return 0;
}

static int ic1280_enum_frame_size(struct v4l2_subdev *sd,
				  struct v4l2_subdev_state *state,
				  struct v4l2_subdev_frame_size_enum *fse)
{
	if (fse->index >= ARRAY_SIZE(ic1280_sizes) ||
	    !ic1280_find_format(fse->code))
		return -EINVAL;
	fse->min_width = ic1280_sizes[fse->index].width;
	fse->max_width = fse->min_width;
	fse->min_height = ic1280_sizes[fse->index].height;
	fse->max_height = fse->min_height;
	return 0;
}

static int ic1280_enum_frame_interval(struct v4l2_subdev *sd,
				      struct v4l2_subdev_state *state,
				      struct v4l2_subdev_frame_interval_enum *fie)
{
	unsigned int i, n = 0;

	if (!ic1280_find_format(fie->code) ||
	    !ic1280_find_size(fie->width, fie->height))
		return -EINVAL;

	for (i = 0; i < ARRAY_SIZE(ic1280_rates); i++) {
		if (!ic1280_rate_fits(fie->width, fie->height, ic1280_rates[i]))
			continue;
		if (n++ == fie->index) {
			fie->interval.numerator = 1;
			fie->interval.denominator = ic1280_rates[i];
			return 0;
		}
	}
	return -EINVAL;
}

static int ic1280_get_fmt(struct v4l2_subdev *sd,
			  struct v4l2_subdev_state *state,
			  struct v4l2_subdev_format *fmt)
{
	fmt->format = *v4l2_subdev_state_get_format(state, fmt->pad);
	return 0;
}

static int ic1280_set_fmt(struct v4l2_subdev *sd,
			  struct v4l2_subdev_state *state,
			  struct v4l2_subdev_format *fmt)
{
	struct ic1280 *sensor = to_ic1280(sd);
	const struct ic1280_size *size;
	struct v4l2_fract *interval;
	u32 code = fmt->format.code;

	if (!ic1280_find_format(code))
		code = ic1280_formats[0].code;
	size = v4l2_find_nearest_size(ic1280_sizes, ARRAY_SIZE(ic1280_sizes),
				      width, height, fmt->format.width,
				      fmt->format.height);
	ic1280_fill_fmt(&fmt->format, code, size);

	/*
	 * The full array cannot keep a binned size's fastest rate: the
	 * interval that goes with the format (sensor->fps for ACTIVE, the
	 * try state's for TRY, where it has one) follows it down.
	 */
	if (fmt->which == V4L2_SUBDEV_FORMAT_ACTIVE) {
		if (sensor->streaming)
			return -EBUSY;
		sensor->fps = ic1280_fit_rate(size, sensor->fps);
	} else {
		interval = isocam_subdev_state_interval(state, fmt->pad);
		if (interval)
			*interval = (struct v4l2_fract){
				1, ic1280_fit_rate(size, interval->denominator)
			};
	}
	*v4l2_subdev_state_get_format(state, fmt->pad) = fmt->format;
	return 0;
}

/* --- core ops --------------------------------------------------------- */

static int ic1280_log_status(struct v4l2_subdev *sd)
{
	struct ic1280 *sensor = to_ic1280(sd);
	struct v4l2_subdev_state *state;
	struct v4l2_mbus_framefmt fmt;
	unsigned int fps;
	bool streaming;

	state = v4l2_subdev_lock_and_get_active_state(sd);
	fmt = *v4l2_subdev_state_get_format(state, 0);
	fps = sensor->fps;
	streaming = sensor->streaming;
	v4l2_subdev_unlock_state(state);

	v4l2_info(sd, "mode: %s, power: %s\n",
		  streaming ? "streaming" : "standby",
		  pm_runtime_suspended(sd->dev) ? "suspended" : "on");
	v4l2_info(sd, "format: %s %ux%u, colorspace %u\n",
		  ic1280_find_format(fmt.code)->name, fmt.width, fmt.height,
		  fmt.colorspace);
	v4l2_info(sd, "frame rate: %u fps (frame length %u lines)\n",
		  fps, IC1280_FLL_FOR_FPS(fps));
	/* Takes the handler lock, which is sensor->lock: not held here. */
	return v4l2_ctrl_subdev_log_status(sd);
}

#ifdef CONFIG_VIDEO_ADV_DEBUG
static int ic1280_g_register(struct v4l2_subdev *sd,
			     struct v4l2_dbg_register *reg)
{
	struct ic1280 *sensor = to_ic1280(sd);
	unsigned int val;
	int ret;

	if (reg->reg > IC1280_REG_MAX)
		return -EINVAL;
	/* The subdev core calls this without a lock of its own. */
	mutex_lock(&sensor->lock);
	if (sensor->removed)
		ret = -ENODEV;
	else
		ret = regmap_read(sensor->regmap, reg->reg, &val);
	mutex_unlock(&sensor->lock);
	if (ret)
		return ret;
	reg->val = val;
	reg->size = 1;
	return 0;
}

static int ic1280_s_register(struct v4l2_subdev *sd,
			     const struct v4l2_dbg_register *reg)
{
	struct ic1280 *sensor = to_ic1280(sd);
	int ret;

	if (reg->reg > IC1280_REG_MAX || reg->val > 0xff)
		return -EINVAL;
	mutex_lock(&sensor->lock);
	if (sensor->removed)
		ret = -ENODEV;
	else
		ret = regmap_write(sensor->regmap, reg->reg, reg->val);
	mutex_unlock(&sensor->lock);
	return ret;
}
#endif

static const struct v4l2_subdev_core_ops ic1280_core_ops = {
	.log_status = ic1280_log_status,
	.subscribe_event = v4l2_ctrl_subdev_subscribe_event,
	.unsubscribe_event = v4l2_event_subdev_unsubscribe,
#ifdef CONFIG_VIDEO_ADV_DEBUG
	.g_register = ic1280_g_register,
	.s_register = ic1280_s_register,
#endif
};

static const struct v4l2_subdev_video_ops ic1280_video_ops = {
	.s_stream = ic1280_s_stream,
	ISOCAM_SUBDEV_VIDEO_FRAME_INTERVAL(ic1280_g_frame_interval,
					   ic1280_s_frame_interval)
};

static const struct v4l2_subdev_pad_ops ic1280_pad_ops = {
	ISOCAM_SUBDEV_PAD_INIT_CFG(ic1280_init_state)
	.enum_mbus_code = ic1280_enum_mbus_code,
	.enum_frame_size = ic1280_enum_frame_size,
	.enum_frame_interval = ic1280_enum_frame_interval,
	.get_fmt = ic1280_get_fmt,
	.set_fmt = ic1280_set_fmt,
	ISOCAM_SUBDEV_PAD_FRAME_INTERVAL(ic1280_get_frame_interval,
					 ic1280_set_frame_interval)
};

static const struct v4l2_subdev_ops ic1280_subdev_ops = {
	.core = &ic1280_core_ops,
	.video = &ic1280_video_ops,
	.pad = &ic1280_pad_ops,
};

static struct workqueue_struct *ic1280_wq;

static void ic1280_free_work(struct work_struct *work)
{
	struct ic1280 *sensor = container_of(to_rcu_work(work), struct ic1280,
					     free_work);

	v4l2_subdev_cleanup(&sensor->sd);
	media_entity_cleanup(&sensor->sd.entity);
	v4l2_ctrl_handler_free(&sensor->ctrls);
	mutex_destroy(&sensor->lock);
	kfree(sensor);
}

/*
 * The last reference may go in v4l2's subdev release, which still writes
 * to the subdev after calling ours (6.1's v4l2_subdev_release), and may
 * not sleep there: free after an RCU grace period, from process context.
 * The bridge calls that release inside an RCU read-side section.
 */
static void ic1280_free(struct kref *ref)
{
	struct ic1280 *sensor = container_of(ref, struct ic1280, ref);

	INIT_RCU_WORK(&sensor->free_work, ic1280_free_work);
	queue_rcu_work(ic1280_wq, &sensor->free_work);
}

/* Registration holds a reference until v4l2 releases the subdev. */
static int ic1280_registered(struct v4l2_subdev *sd)
{
	kref_get(&to_ic1280(sd)->ref);
	return 0;
}

static void ic1280_release(struct v4l2_subdev *sd)
{
	kref_put(&to_ic1280(sd)->ref, ic1280_free);
}

static const struct v4l2_subdev_internal_ops ic1280_internal_ops = {
	ISOCAM_SUBDEV_INIT_STATE(ic1280_init_state)
	.registered = ic1280_registered,
	.release = ic1280_release,
};

/* --- power ------------------------------------------------------------- */

/*
 * The chip has no supplies or clocks of its own: "off" is standby. It is
 * normally there already since s_stream(0); this catches a stop whose
 * standby write failed. Mode and controls are written at stream start,
 * not on resume, as autosuspend may keep the sensor on between streams.
 */
static int ic1280_runtime_suspend(struct device *dev)
{
	struct ic1280 *sensor = to_ic1280(dev_get_drvdata(dev));

	if (!sensor->in_standby)
		ic1280_set_mode(sensor, IC1280_MODE_STANDBY);
	return 0;
}

static int ic1280_runtime_resume(struct device *dev)
{
	return 0;
}

/* System sleep: stop a running stream and pick it up again on resume. */
static int __maybe_unused ic1280_suspend(struct device *dev)
{
	struct ic1280 *sensor = to_ic1280(dev_get_drvdata(dev));
	int ret = 0;

	mutex_lock(&sensor->lock);
	if (sensor->streaming)
		ret = ic1280_set_mode(sensor, IC1280_MODE_STANDBY);
	mutex_unlock(&sensor->lock);
	return ret;
}

static int __maybe_unused ic1280_resume(struct device *dev)
{
	struct ic1280 *sensor = to_ic1280(dev_get_drvdata(dev));
	struct v4l2_subdev_state *state;
	int ret = 0;

	state = v4l2_subdev_lock_and_get_active_state(&sensor->sd);
	if (sensor->streaming) {
		ret = ic1280_program(sensor, state);
		if (ret)
			dev_err(dev, "failed to resume streaming: %d\n", ret);
	}
	v4l2_subdev_unlock_state(state);
	return ret;
}

static const struct dev_pm_ops ic1280_pm_ops = {
	SET_SYSTEM_SLEEP_PM_OPS(ic1280_suspend, ic1280_resume)
	SET_RUNTIME_PM_OPS(ic1280_runtime_suspend, ic1280_runtime_resume, NULL)
};

/* --- probe ---------------------------------------------------------------- */

static int ic1280_identify(struct ic1280 *sensor, struct i2c_client *client)
{
	struct device *dev = &client->dev;
	u8 id[3];
	u16 chip;
	int ret;

	ret = regmap_bulk_read(sensor->regmap, IC1280_REG_CHIP_ID_H, id,
			       sizeof(id));
	if (ret)
		return dev_err_probe(dev, -ENODEV,
				     "no sensor answers at 0x%02x on %s: reading CHIP_ID failed: %d\n",
				     client->addr, client->adapter->name, ret);

	chip = id[0] << 8 | id[1];
	if (chip != IC1280_CHIP_ID)
		return dev_err_probe(dev, -ENODEV,
				     "CHIP_ID at 0x%02x on %s reads 0x%04x, expected 0x%04x: not an IC1280\n",
				     client->addr, client->adapter->name, chip,
				     IC1280_CHIP_ID);

	if (id[2] != IC1280_REVISION)
		dev_warn(dev, "unknown revision 0x%02x, driving it as 0x%02x\n",
			 id[2], IC1280_REVISION);
	dev_info(dev, "IC1280 rev 0x%02x at 0x%02x on %s\n", id[2],
		 client->addr, client->adapter->name);
	return 0;
}

static int ic1280_probe(struct i2c_client *client)
{
	struct device *dev = &client->dev;
	struct ic1280 *sensor;
	struct v4l2_subdev *sd;
	int ret;

	/* Not devm: it may outlive the client (see ref). */
	sensor = kzalloc_obj(*sensor, GFP_KERNEL);
	if (!sensor)
		return -ENOMEM;
	kref_init(&sensor->ref);
	sd = &sensor->sd;
	v4l2_i2c_subdev_init(sd, client, &ic1280_subdev_ops);
	sd->internal_ops = &ic1280_internal_ops;

	sensor->regmap = devm_regmap_init_i2c(client, &ic1280_regmap_config);
	if (IS_ERR(sensor->regmap)) {
		ret = dev_err_probe(dev, PTR_ERR(sensor->regmap),
				    "cannot set up register access\n");
		goto err_free;
	}

	ret = ic1280_identify(sensor, client);
	if (ret)
		goto err_free;

	/* Whatever a previous owner left running: the power-on state. */
	ret = ic1280_set_mode(sensor, IC1280_MODE_STANDBY);
	if (ret) {
		dev_err_probe(dev, ret, "cannot enter standby\n");
		goto err_free;
	}

	mutex_init(&sensor->lock);
	sensor->fps = IC1280_DEFAULT_FPS;

	ret = ic1280_init_controls(sensor);
	if (ret) {
		dev_err_probe(dev, ret, "cannot create controls\n");
		goto err_mutex;
	}

	sd->flags |= V4L2_SUBDEV_FL_HAS_DEVNODE | V4L2_SUBDEV_FL_HAS_EVENTS;
	sd->entity.function = MEDIA_ENT_F_CAM_SENSOR;
	sensor->pad.flags = MEDIA_PAD_FL_SOURCE;
	ret = media_entity_pads_init(&sd->entity, 1, &sensor->pad);
	if (ret) {
		dev_err_probe(dev, ret, "cannot init media pad\n");
		goto err_ctrls;
	}

	sd->state_lock = &sensor->lock;
	ret = v4l2_subdev_init_finalize(sd);
	if (ret) {
		dev_err_probe(dev, ret, "cannot allocate the subdev state\n");
		goto err_entity;
	}

	/* The sensor is on (in standby): idle it after the delay. */
	pm_runtime_set_active(dev);
	pm_runtime_set_autosuspend_delay(dev, IC1280_AUTOSUSPEND_MS);
	pm_runtime_use_autosuspend(dev);
	pm_runtime_mark_last_busy(dev);
	pm_runtime_enable(dev);
	pm_runtime_idle(dev);
	return 0;

err_entity:
	media_entity_cleanup(&sd->entity);
err_ctrls:
	v4l2_ctrl_handler_free(&sensor->ctrls);
err_mutex:
	mutex_destroy(&sensor->lock);
err_free:
	kfree(sensor);
	return ret;
}

static void ic1280_remove(struct i2c_client *client)
{
	struct v4l2_subdev *sd = i2c_get_clientdata(client);
	struct ic1280 *sensor = to_ic1280(sd);
	struct device *dev = &client->dev;

	v4l2_device_unregister_subdev(sd);
	pm_runtime_disable(dev);
	if (!pm_runtime_status_suspended(dev))
		ic1280_runtime_suspend(dev);
	pm_runtime_set_suspended(dev);
	pm_runtime_dont_use_autosuspend(dev);

	/* The devm regmap goes when this returns: no access after. */
	mutex_lock(&sensor->lock);
	sensor->removed = true;
	mutex_unlock(&sensor->lock);

	kref_put(&sensor->ref, ic1280_free);
}

static const struct i2c_device_id ic1280_id[] = {
	{ IC1280_NAME, 0 },
	{ }
};
MODULE_DEVICE_TABLE(i2c, ic1280_id);

static struct i2c_driver ic1280_driver = {
	.driver = {
		.name = IC1280_NAME,
		.pm = &ic1280_pm_ops,
		/*
		 * The bridge's control handler refers to our controls: an
		 * unbind through sysfs would free them under it.
		 */
		.suppress_bind_attrs = true,
	},
	ISOCAM_I2C_PROBE(ic1280_probe)
	.remove = ic1280_remove,
	.id_table = ic1280_id,
};

static int __init ic1280_init(void)
{
	int ret;

	ic1280_wq = alloc_workqueue("ic1280", WQ_UNBOUND, 0);
	if (!ic1280_wq)
		return -ENOMEM;
	ret = i2c_add_driver(&ic1280_driver);
	if (ret)
		destroy_workqueue(ic1280_wq);
	return ret;
}

static void __exit ic1280_exit(void)
{
	i2c_del_driver(&ic1280_driver);
	/* Sensors whose last user left just now are freed first. */
	rcu_barrier();
	destroy_workqueue(ic1280_wq);
}

module_init(ic1280_init);
module_exit(ic1280_exit);

MODULE_DESCRIPTION("IC1280 image sensor driver");
MODULE_LICENSE("GPL");
