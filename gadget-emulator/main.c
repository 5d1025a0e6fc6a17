// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * isocam-emu: the emulated isocam camera, served over USB/IP, or as a
 * Linux USB gadget through FunctionFS (--gadget=ffs).
 * Signals arrive through a signalfd, so no handler touches shared state.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <isocam/ic1280_regs.h>
#include <isocam/usb.h>

#include "ffs_gadget.h"
#include "hostile.h"
#include "log.h"
#include "usbip_server.h"

#define STATUS_INTERVAL_S	5

static void usage(FILE *f)
{
	fprintf(f,
"usage: isocam-emu [OPTION]...\n"
"The isocam IC1280 USB camera (%04x:%04x), emulated and served over USB/IP.\n"
"Plug it into a Linux host with:\n"
"  modprobe vhci-hcd; usbip list -r HOST; usbip attach -r HOST -b 1-1\n"
"\n"
"  --bind=ADDR      IPv4 address to listen on (default %s)\n"
"  --port=PORT      TCP port (default %u, the USB/IP port)\n"
"  --count=N        serve N independent cameras, bus ids 1-1..1-N\n"
"                   (default 1, at most %u); each has its own sensor,\n"
"                   stream and fault state\n"
"  --chip-id=0xNNNN what the sensor's CHIP_ID registers read (default\n"
"                   0x%04x); another value fakes a wrong sensor\n"
"  --fault=SPEC     inject faults: comma-separated KIND=1/N (fires on one\n"
"                   opportunity in every N) or KIND=after:N (lets N pass,\n"
"                   fires once). KINDs:\n"
"                     drop     an iso packet is sent empty, a bulk payload\n"
"                              transfer lost (per packet)\n"
"                     corrupt  garbage payload header (per packet)\n"
"                     err      payload header ERR bit set (per packet)\n"
"                     short    a frame ends early (per frame)\n"
"                     long     a frame carries extra bytes (per frame)\n"
"                     nak      an i2c transfer is NAKed (per i2c request)\n"
"                     stall    a vendor request STALLs (per request)\n"
"                     vanish   the connection drops, like an unplug\n"
"                              (per frame sent)\n"
"                   e.g. --fault=drop=1/50,vanish=after:300\n"
"  --seed=N         fault seed: where in each 1/N period faults fire\n"
"                   (camera i uses N+i; default 1)\n"
"  --hostile=LIST   lie in the same way every time: comma-separated\n"
"                   modes, listed below; each camera logs \"camN: hostile\n"
"                   LIST active\" at startup\n"
"  --hostile-on=WHEN\n"
"                   start (default): active from the start; signal:\n"
"                   dormant until SIGUSR2 arms them in every camera, which\n"
"                   then logs \"camN: hostile LIST armed\". Descriptor\n"
"                   modes are read at enumeration: they apply from start\n"
"                   either way\n"
"  --late-tolerance=MS\n"
"                   when the host lets the iso queue run dry, a real\n"
"                   camera drops the frames it cannot send; over USB/IP\n"
"                   (and in a slow VM) gaps up to MS are transport delay\n"
"                   and pause the camera's bus clock instead (default\n"
"                   %u; 0: drop as hardware would)\n"
"  --status=SECS    status line interval (default %u; 0: only on SIGUSR1)\n"
"  --max-clients=N  connections served at once, each on its own thread\n"
"                   (default %u, or --count + 8 if more); any more are\n"
"                   accepted and closed at once\n"
"  --request-timeout=SECS\n"
"                   a new connection must send its whole request (device\n"
"                   list or import) within SECS (default %u)\n"
"  --first-urb-timeout=SECS\n"
"                   a client that imported a camera but sends no URB\n"
"                   within SECS is dropped and the camera freed (default\n"
"                   %u; 0: never). Once URBs came, an idle camera is\n"
"                   normal and never timed out\n"
"  --transport=KIND iso (default): alts 1..7 with an isochronous IN\n"
"                   endpoint, paced in 125 us microframes; bulk: alt 0\n"
"                   only, with one bulk IN endpoint (0x%02x, %u-byte\n"
"                   packets): each bulk URB waits for frame data and gets\n"
"                   one payload transfer (header + data, at most %u\n"
"                   bytes), as UVC bulk cameras send. Hostile descriptor\n"
"                   modes need iso\n"
"  --free-run       a test personality for transport benchmarks: each\n"
"                   frame is captured as soon as the one before it is\n"
"                   sent, whatever the frame rate set, so every\n"
"                   microframe carries a full packet\n"
"  --gadget=KIND    usbip (default): serve over USB/IP as above; ffs: be\n"
"                   a real USB gadget instead, through configfs and\n"
"                   FunctionFS, with the bulk personality (as\n"
"                   --transport=bulk); needs root, libcomposite and\n"
"                   usb_f_fs. Creates usb_gadget/isocam-PID under\n"
"                   configfs, mounts functionfs in a private directory,\n"
"                   binds the UDC and undoes all of it on exit. The\n"
"                   USB/IP options (--bind, --port, --count, limits,\n"
"                   iso) and the USB/IP-only faults and hostile modes\n"
"                   are refused with it\n"
"  --udc=NAME       with --gadget=ffs: the USB device controller to bind\n"
"                   (default: the first in /sys/class/udc)\n"
"  -v, --verbose    log every i2c register write (\"cam0: i2c 0x3c write\n"
"                   reg 0x5000 = 0x20\", while streaming \" (next frame N)\":\n"
"                   the first frame that shows it), STALL, alt change and\n"
"                   unlink\n"
"  -h, --help       this text\n"
"\n"
"A status line per camera (frames sent/dropped, MB/s, client) is logged\n"
"every SECS seconds and on SIGUSR1. SIGUSR2 arms --hostile-on=signal modes.\n"
"SIGINT/SIGTERM shut down cleanly.\n",
		ISOCAM_USB_VID, ISOCAM_USB_PID, USBIP_SERVER_DEFAULT_BIND,
		USBIP_SERVER_DEFAULT_PORT, USBIP_SERVER_MAX_CAMERAS,
		IC1280_CHIP_ID, USBIP_DEFAULT_LATE_TOLERANCE_MS,
		STATUS_INTERVAL_S, USBIP_SERVER_DEFAULT_MAX_CLIENTS,
		USBIP_DEFAULT_REQUEST_TIMEOUT_MS / 1000,
		USBIP_DEFAULT_FIRST_URB_TIMEOUT_MS / 1000,
		ISOCAM_USB_BULK_EP_ADDR, ISOCAM_USB_BULK_MAXP,
		ISOCAM_USB_BULK_MAX_PAYLOAD);
	fprintf(f, "\nHostile modes (--hostile=NAME[,NAME...]):\n");
	hostile_usage(f, 2);
}

static int check_hostile(const char *spec, enum usb_transport transport)
{
	char err[1024];
	struct hostile *h = hostile_new(spec, true, 0, err, sizeof(err));
	enum hostile_mode m;

	if (!h) {
		fprintf(stderr, "isocam-emu: --hostile=%s: %s\n", spec, err);
		return -1;
	}
	m = hostile_first_of(h, HOSTILE_GROUP_BULK);
	hostile_free(h);
	if (m != HOSTILE_MODE_COUNT && transport != USB_TRANSPORT_BULK) {
		fprintf(stderr, "isocam-emu: --hostile=%s: a bulk reply mode; it needs --transport=bulk\n",
			hostile_mode_name(m));
		return -1;
	}
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int parse_ulong(const char *opt, const char *s, unsigned long max,
		       unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || *v > max) {
		fprintf(stderr, "isocam-emu: %s=%s: expected a number up to %lu\n",
			opt, s, max);
		return -1;
	}
	return 0;
}

/* As parse_ulong, and 0 is refused too. */
static int parse_nonzero(const char *opt, const char *s, unsigned long max,
			 unsigned long *v)
{
	if (parse_ulong(opt, s, max, v) < 0)
		return -1;
	if (!*v) {
		fprintf(stderr, "isocam-emu: %s must be 1..%lu\n", opt, max);
		return -1;
	}
	return 0;
}

/*
 * Signals, the status line and the end of serving, as for USB/IP; the
 * gadget serves on its own thread. 0 after a signal, 1 on a failure.
 */
static int run_ffs(const struct ffs_gadget_config *fcfg, int sfd,
		   unsigned long status_s)
{
	struct ffs_gadget *g = ffs_gadget_start(fcfg);
	uint64_t next_status;
	bool run = true;
	int ret = 0;

	if (!g)
		return 1;
	if (fcfg->camera.chip_id != IC1280_CHIP_ID)
		emu_log("faking a wrong sensor: CHIP_ID reads 0x%04x",
			fcfg->camera.chip_id);
	if (fcfg->camera.fault_spec && *fcfg->camera.fault_spec)
		emu_log("fault injection: %s (seed %u)", fcfg->camera.fault_spec,
			fcfg->camera.seed);
	next_status = now_ms() + status_s * 1000;
	while (run) {
		struct pollfd pfd[2] = {
			{ .fd = ffs_gadget_done_fd(g), .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		int64_t wait = (int64_t)(next_status - now_ms());
		int r = poll(pfd, 2, !status_s ? -1 : wait > 0 ? (int)wait : 0);

		if (r < 0 && errno != EINTR) {
			emu_log("poll: %s", strerror(errno));
			ret = 1;
			break;
		}
		if (status_s && now_ms() >= next_status) {
			ffs_gadget_status(g);
			next_status = now_ms() + status_s * 1000;
		}
		if (r <= 0)
			continue;
		if (pfd[0].revents & POLLIN) {
			emu_log("the gadget stopped serving; shutting down");
			ret = 1;
			break;
		}
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo == SIGUSR1) {
				ffs_gadget_status(g);
			} else if (si.ssi_signo == SIGUSR2) {
				if (!ffs_gadget_arm_hostile(g))
					emu_log("SIGUSR2: no dormant hostile mode to arm");
			} else if (si.ssi_signo != SIGPIPE) {
				emu_log("%s: shutting down",
					strsignal((int)si.ssi_signo));
				run = false;
			}
		}
	}
	ffs_gadget_status(g);
	if (ffs_gadget_stop(g) < 0)
		ret = 1;
	emu_log("stopped");
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bind", required_argument, NULL, 'b' },
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'n' },
		{ "chip-id", required_argument, NULL, 'c' },
		{ "fault", required_argument, NULL, 'f' },
		{ "seed", required_argument, NULL, 's' },
		{ "hostile", required_argument, NULL, 'H' },
		{ "hostile-on", required_argument, NULL, 'A' },
		{ "status", required_argument, NULL, 'S' },
		{ "late-tolerance", required_argument, NULL, 'L' },
		{ "max-clients", required_argument, NULL, 'C' },
		{ "request-timeout", required_argument, NULL, 'R' },
		{ "first-urb-timeout", required_argument, NULL, 'U' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "free-run", no_argument, NULL, 'F' },
		{ "transport", required_argument, NULL, 'T' },
		{ "gadget", required_argument, NULL, 'G' },
		{ "udc", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct usbip_server_config cfg = {
		.bind = USBIP_SERVER_DEFAULT_BIND,
		.port = USBIP_SERVER_DEFAULT_PORT,
		.count = 1,
		.camera = {
			.chip_id = IC1280_CHIP_ID,
			.seed = 1,
		},
		.late_tolerance_ms = USBIP_DEFAULT_LATE_TOLERANCE_MS,
	};
	unsigned long v, status_s = STATUS_INTERVAL_S;
	/* USB/IP-only options given, for --gadget=ffs to refuse */
	const char *usbip_only = NULL;
	const char *udc = NULL;
	bool ffs = false;
	uint64_t next_status;
	struct ffs_gadget_config fcfg;
	struct usbip_server *srv;
	sigset_t mask;
	int sfd, c;
	bool run = true;

	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			usbip_only = "--bind";
			cfg.bind = optarg;
			break;
		case 'p':
			usbip_only = "--port";
			if (parse_ulong("--port", optarg, 65535, &v) < 0)
				return 2;
			cfg.port = (uint16_t)v;
			break;
		case 'n':
			if (parse_nonzero("--count", optarg,
					  USBIP_SERVER_MAX_CAMERAS, &v) < 0)
				return 2;
			cfg.count = (unsigned int)v;
			if (v > 1)
				usbip_only = "--count above 1";
			break;
		case 'c':
			if (parse_ulong("--chip-id", optarg, 0xffff, &v) < 0)
				return 2;
			cfg.camera.chip_id = (uint16_t)v;
			break;
		case 'f':
			cfg.camera.fault_spec = optarg;
			break;
		case 'H':
			cfg.camera.hostile_spec = optarg;
			break;
		case 'A':
			if (strcmp(optarg, "start") && strcmp(optarg, "signal")) {
				fprintf(stderr, "isocam-emu: --hostile-on=%s: expected start or signal\n",
					optarg);
				return 2;
			}
			cfg.camera.hostile_on_signal = !strcmp(optarg, "signal");
			break;
		case 's':
			if (parse_ulong("--seed", optarg, UINT_MAX, &v) < 0)
				return 2;
			cfg.camera.seed = (unsigned int)v;
			break;
		case 'S':
			if (parse_ulong("--status", optarg, 3600, &status_s) < 0)
				return 2;
			break;
		case 'L':
			usbip_only = "--late-tolerance";
			if (parse_ulong("--late-tolerance", optarg, 60000, &v) < 0)
				return 2;
			cfg.late_tolerance_ms = (unsigned int)v;
			break;
		case 'C':
			usbip_only = "--max-clients";
			if (parse_nonzero("--max-clients", optarg, 1024, &v) < 0)
				return 2;
			cfg.max_clients = (unsigned int)v;
			break;
		case 'R':
			usbip_only = "--request-timeout";
			if (parse_nonzero("--request-timeout", optarg, 3600,
					  &v) < 0)
				return 2;
			cfg.request_timeout_ms = (unsigned int)v * 1000;
			break;
		case 'U':
			usbip_only = "--first-urb-timeout";
			if (parse_ulong("--first-urb-timeout", optarg, 86400, &v) < 0)
				return 2;
			cfg.first_urb_timeout_ms = v ? (unsigned int)v * 1000 :
					       USBIP_TIMEOUT_NEVER;
			break;
		case 'v':
			cfg.camera.verbose = true;
			break;
		case 'F':
			cfg.camera.free_run = true;
			break;
		case 'T':
			if (strcmp(optarg, "iso") && strcmp(optarg, "bulk")) {
				fprintf(stderr, "isocam-emu: --transport=%s: expected iso or bulk\n",
					optarg);
				return 2;
			}
			cfg.camera.transport = !strcmp(optarg, "bulk") ?
					USB_TRANSPORT_BULK : USB_TRANSPORT_ISO;
			if (cfg.camera.transport == USB_TRANSPORT_ISO)
				usbip_only = "--transport=iso";
			break;
		case 'G':
			if (strcmp(optarg, "usbip") && strcmp(optarg, "ffs")) {
				fprintf(stderr, "isocam-emu: --gadget=%s: expected usbip or ffs\n",
					optarg);
				return 2;
			}
			ffs = !strcmp(optarg, "ffs");
			break;
		case 'D':
			udc = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "isocam-emu: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}

	/*
	 * Here, so that the whole list of valid names reaches the user. A
	 * gadget is bulk; ffs_gadget_check_config() says what it refuses.
	 */
	if (check_hostile(cfg.camera.hostile_spec,
			  ffs ? USB_TRANSPORT_BULK : cfg.camera.transport) < 0)
		return 2;
	if (ffs && usbip_only) {
		fprintf(stderr, "isocam-emu: %s is for USB/IP; --gadget=ffs is one bulk camera on a USB device controller\n",
			usbip_only);
		return 2;
	}
	if (!ffs && udc) {
		fprintf(stderr, "isocam-emu: --udc needs --gadget=ffs\n");
		return 2;
	}
	fcfg = (struct ffs_gadget_config){
		.udc = udc,
		.camera = cfg.camera,
	};
	if (ffs && ffs_gadget_check_config(&fcfg) < 0)
		return 2;

	/* block before any thread starts, so every thread inherits it */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGPIPE);
	if (pthread_sigmask(SIG_BLOCK, &mask, NULL)) {
		fprintf(stderr, "isocam-emu: cannot block signals\n");
		return 1;
	}
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		fprintf(stderr, "isocam-emu: signalfd: %s\n", strerror(errno));
		return 1;
	}

	if (ffs) {
		int ret = run_ffs(&fcfg, sfd, status_s);

		close(sfd);
		return ret;
	}

	srv = usbip_server_new(&cfg);
	if (!srv)
		return 1;
	if (usbip_server_listen(srv) < 0) {
		usbip_server_free(srv);
		return 1;
	}
	if (cfg.camera.chip_id != IC1280_CHIP_ID)
		emu_log("faking a wrong sensor: CHIP_ID reads 0x%04x", cfg.camera.chip_id);
	if (cfg.camera.fault_spec && *cfg.camera.fault_spec)
		emu_log("fault injection: %s (seed %u)", cfg.camera.fault_spec, cfg.camera.seed);

	next_status = now_ms() + status_s * 1000;
	while (run) {
		struct pollfd pfd[2] = {
			{ .fd = usbip_server_listen_fd(srv), .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		int64_t wait = (int64_t)(next_status - now_ms());
		int r = poll(pfd, 2, !status_s ? -1 : wait > 0 ? (int)wait : 0);

		if (r < 0 && errno != EINTR) {
			emu_log("poll: %s", strerror(errno));
			break;
		}
		if (status_s && now_ms() >= next_status) {
			usbip_server_status(srv);
			next_status = now_ms() + status_s * 1000;
		}
		if (r <= 0)
			continue;
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGUSR1) {
					usbip_server_status(srv);
				} else if (si.ssi_signo == SIGUSR2) {
					if (!usbip_server_arm_hostile(srv))
						emu_log("SIGUSR2: no dormant hostile mode to arm");
				} else if (si.ssi_signo != SIGPIPE) {
					emu_log("%s: shutting down",
						strsignal((int)si.ssi_signo));
					run = false;
				}
			}
		}
		if (run && (pfd[0].revents & POLLIN))
			usbip_server_accept(srv);
	}
	usbip_server_status(srv);
	usbip_server_free(srv);
	close(sfd);
	emu_log("stopped");
	return 0;
}
