// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target for the USB/IP decoder: the input is a byte stream
 * as a client would send it after import, parsed command by command the
 * way the session does; then the op-message and reply decoders on the
 * same bytes. Besides ASan/UBSan, the invariants the server relies on
 * are checked explicitly.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "usbip_proto.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static void parse_stream(const uint8_t *data, size_t size, uint32_t mask)
{
	while (size) {
		struct usbip_cmd cmd;
		size_t need = 0;
		char err[160];
		long n = usbip_parse_cmd(data, size, mask, &cmd, &need, err,
					 sizeof(err));
		uint32_t i;

		if (n == USBIP_PARSE_ERROR) {
			CHECK(err[0] != 0);
			return;
		}
		if (n == USBIP_PARSE_NEED_MORE) {
			CHECK(need > size);
			CHECK(need <= USBIP_HEADER_LEN + USBIP_MAX_TRANSFER +
			      USBIP_MAX_ISO_PACKETS * USBIP_ISO_DESC_LEN);
			return;
		}
		CHECK((size_t)n <= size && n >= USBIP_HEADER_LEN);
		CHECK(cmd.data_len <= (size_t)n);
		if (cmd.hdr.command == USBIP_CMD_SUBMIT) {
			int32_t tbl = cmd.hdr.u.cmd_submit.transfer_buffer_length;

			CHECK(tbl >= 0 && (uint32_t)tbl <= USBIP_MAX_TRANSFER);
			CHECK(cmd.num_iso <= USBIP_MAX_ISO_PACKETS);
			for (i = 0; i < cmd.num_iso; i++) {
				struct usbip_iso_desc d;

				usbip_cmd_iso_desc(&cmd, i, &d);
				CHECK((uint64_t)d.offset + d.length <=
				      (uint64_t)tbl);
			}
		} else {
			CHECK(cmd.hdr.command == USBIP_CMD_UNLINK);
		}
		data += n;
		size -= (size_t)n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usbip_op_common op;
	struct usbip_usb_device d;
	struct usbip_ret ret;
	char busid[USBIP_BUSID_LEN];
	char err[160];
	long n;

	parse_stream(data, size, 1u << 1);
	parse_stream(data, size, 0xffff);

	if (usbip_op_common_decode(data, size, &op) == 0)
		CHECK(op.version == USBIP_VERSION);
	if (usbip_import_req_decode(data, size, busid) == 0)
		CHECK(memchr(busid, 0, sizeof(busid)));
	if (size >= USBIP_OP_COMMON_LEN &&
	    usbip_device_decode(data + USBIP_OP_COMMON_LEN,
				size - USBIP_OP_COMMON_LEN, &d) == 0)
		CHECK(memchr(d.busid, 0, sizeof(d.busid)) &&
		      memchr(d.path, 0, sizeof(d.path)));

	n = usbip_parse_ret(data, size, true, true, 64, &ret, err, sizeof(err));
	if (n > 0)
		CHECK((size_t)n <= size && ret.num_iso <= 64);
	n = usbip_parse_ret(data, size, false, false, 0, &ret, err, sizeof(err));
	if (n > 0)
		CHECK((size_t)n <= size);
	return 0;
}
