// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "i2c_bus.h"

#include <string.h>

#include <isocam/usb.h>

void i2c_bus_init(struct i2c_bus *bus)
{
	memset(bus, 0, sizeof(*bus));
}

int i2c_bus_attach(struct i2c_bus *bus, uint8_t addr,
		   const struct i2c_dev_ops *ops, void *dev)
{
	if (addr >= I2C_BUS_ADDRS || bus->slot[addr].ops)
		return -1;
	bus->slot[addr].ops = ops;
	bus->slot[addr].dev = dev;
	return 0;
}

uint8_t i2c_bus_write(struct i2c_bus *bus, uint16_t addr, const uint8_t *buf,
		      size_t len)
{
	if (addr >= I2C_BUS_ADDRS || !bus->slot[addr].ops)
		return ISOCAM_I2C_NAK_ADDR;
	if (len == 0)
		return ISOCAM_I2C_OK;
	if (bus->slot[addr].ops->write(bus->slot[addr].dev, buf, len) < 0)
		return ISOCAM_I2C_NAK_DATA;
	return ISOCAM_I2C_OK;
}

uint8_t i2c_bus_read(struct i2c_bus *bus, uint16_t addr, uint8_t *buf,
		     size_t len)
{
	if (addr >= I2C_BUS_ADDRS || !bus->slot[addr].ops)
		return ISOCAM_I2C_NAK_ADDR;
	if (len == 0)
		return ISOCAM_I2C_OK;
	if (bus->slot[addr].ops->read(bus->slot[addr].dev, buf, len) < 0)
		return ISOCAM_I2C_NAK_DATA;
	return ISOCAM_I2C_OK;
}
