// SPDX-License-Identifier: GPL-2.0
/* IC1280 sensor driver: skeleton */
#include <linux/i2c.h>
#include <linux/module.h>
#include <isocam/ic1280_regs.h>

static int ic1280_probe(struct i2c_client *client)
{
	return -ENODEV;
}

static const struct i2c_device_id ic1280_id[] = {
	{ IC1280_NAME, 0 },
	{ }
};
MODULE_DEVICE_TABLE(i2c, ic1280_id);

static struct i2c_driver ic1280_driver = {
	.driver = { .name = IC1280_NAME },
	.probe_new = ic1280_probe,
	.id_table = ic1280_id,
};
module_i2c_driver(ic1280_driver);

MODULE_DESCRIPTION("IC1280 image sensor");
MODULE_LICENSE("GPL");
