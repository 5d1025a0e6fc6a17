/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The bridge's i2c master: 7-bit addresses mapped to devices. A transfer
 * to an address nobody answers is NAKed on the address byte, as on a
 * real bus; a device that refuses a byte NAKs the data.
 */
#ifndef ISOCAM_EMU_I2C_BUS_H
#define ISOCAM_EMU_I2C_BUS_H

#include <stddef.h>
#include <stdint.h>

#define I2C_BUS_ADDRS	128

/* Device callbacks: 0 when every byte was acknowledged, -1 on NAK. */
struct i2c_dev_ops {
	int (*write)(void *dev, const uint8_t *buf, size_t len);
	int (*read)(void *dev, uint8_t *buf, size_t len);
};

struct i2c_bus {
	struct {
		const struct i2c_dev_ops *ops;
		void *dev;
	} slot[I2C_BUS_ADDRS];
};

void i2c_bus_init(struct i2c_bus *bus);
/* -1 when addr is not 7-bit or already taken. */
int i2c_bus_attach(struct i2c_bus *bus, uint8_t addr,
		   const struct i2c_dev_ops *ops, void *dev);

/*
 * Transfers; return an ISOCAM_I2C_* result. A zero-length write is an
 * address probe (the device's callbacks are not called).
 */
uint8_t i2c_bus_write(struct i2c_bus *bus, uint16_t addr, const uint8_t *buf,
		      size_t len);
uint8_t i2c_bus_read(struct i2c_bus *bus, uint16_t addr, uint8_t *buf,
		     size_t len);

#endif /* ISOCAM_EMU_I2C_BUS_H */
