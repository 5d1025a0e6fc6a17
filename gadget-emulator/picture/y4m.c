// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "y4m.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC		"YUV4MPEG2"
/* a header or FRAME line longer than this is not one we can use */
#define LINE_MAX_LEN	4096

struct y4m {
	FILE *f;
	struct y4m_info info;
	long data_start;	/* the first FRAME's offset; -1: not seekable */
	char line[LINE_MAX_LEN + 1];
};

/* One line up to '\n' into y->line; -1 at EOF or if too long. */
static int read_line(struct y4m *y, size_t *len)
{
	size_t n = 0;
	int c;

	while ((c = getc(y->f)) != EOF) {
		if (c == '\n') {
			y->line[n] = 0;
			*len = n;
			return 0;
		}
		if (n == LINE_MAX_LEN)
			return -1;
		y->line[n++] = (char)c;
	}
	*len = n;
	return -1;
}

static int parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno || end == s || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return (int)(end - s);
}

static int parse_chroma(const char *tag, enum y4m_chroma *c)
{
	static const struct {
		const char *tag;
		enum y4m_chroma chroma;
	} tags[] = {
		{ "420jpeg", Y4M_420 }, { "420paldv", Y4M_420 },
		{ "420mpeg2", Y4M_420 }, { "420", Y4M_420 },
		{ "422", Y4M_422 }, { "444", Y4M_444 }, { "mono", Y4M_MONO },
	};
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (!strcmp(tag, tags[i].tag)) {
			*c = tags[i].chroma;
			return 0;
		}
	}
	return -1;
}

/* The header's parameters, space separated after the magic. */
static int parse_header(struct y4m *y, char *err, size_t errlen)
{
	struct y4m_info *i = &y->info;
	char *p, *save = NULL;
	size_t len;
	int n;

	if (read_line(y, &len) < 0 || strncmp(y->line, MAGIC, strlen(MAGIC)) ||
	    (y->line[strlen(MAGIC)] && y->line[strlen(MAGIC)] != ' ')) {
		snprintf(err, errlen, "not a YUV4MPEG2 stream (no '%s' header line)",
			 MAGIC);
		return -1;
	}
	*i = (struct y4m_info){ .fps_num = 0, .chroma = Y4M_420 };
	for (p = strtok_r(y->line + strlen(MAGIC), " ", &save); p;
	     p = strtok_r(NULL, " ", &save)) {
		switch (p[0]) {
		case 'W':
			if (parse_u32(p + 1, &i->width) < 0)
				goto bad;
			break;
		case 'H':
			if (parse_u32(p + 1, &i->height) < 0)
				goto bad;
			break;
		case 'F':
			n = parse_u32(p + 1, &i->fps_num);
			if (n < 0 || p[1 + n] != ':' ||
			    parse_u32(p + 2 + n, &i->fps_den) < 0)
				goto bad;
			break;
		case 'I':
			if (p[1] != 'p' && p[1] != '?') {
				snprintf(err, errlen, "interlaced video ('%s'): only progressive frames can be shown",
					 p);
				return -1;
			}
			break;
		case 'C':
			if (parse_chroma(p + 1, &i->chroma) < 0) {
				snprintf(err, errlen, "chroma layout '%s': only 8-bit 420, 422, 444 and mono are read",
					 p + 1);
				return -1;
			}
			break;
		default:	/* A (aspect), X (comments) and the rest */
			break;
		}
	}
	if (!i->width || !i->height || i->width > Y4M_MAX_DIM ||
	    i->height > Y4M_MAX_DIM) {
		snprintf(err, errlen, "frame size %ux%u: must be 1..%u each way",
			 i->width, i->height, Y4M_MAX_DIM);
		return -1;
	}
	if (!i->fps_num || !i->fps_den) {
		snprintf(err, errlen, "no frame rate (an 'F' parameter) in the header");
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "header parameter '%s' is malformed", p);
	return -1;
}

struct y4m *y4m_open_fd(int fd, char *err, size_t errlen)
{
	struct y4m *y = calloc(1, sizeof(*y));

	if (!y) {
		snprintf(err, errlen, "out of memory");
		close(fd);
		return NULL;
	}
	y->f = fdopen(fd, "rb");
	if (!y->f) {
		snprintf(err, errlen, "fdopen: %s", strerror(errno));
		close(fd);
		free(y);
		return NULL;
	}
	if (parse_header(y, err, errlen) < 0) {
		y4m_close(y);
		return NULL;
	}
	y->data_start = ftell(y->f);	/* -1 for a pipe */
	return y;
}

struct y4m *y4m_open(const char *path, char *err, size_t errlen)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) :
				     dup(STDIN_FILENO);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	return y4m_open_fd(fd, err, errlen);
}

void y4m_close(struct y4m *y)
{
	if (!y)
		return;
	if (y->f)
		fclose(y->f);
	free(y);
}

const struct y4m_info *y4m_info(const struct y4m *y)
{
	return &y->info;
}

size_t y4m_frame_size(const struct y4m_info *i)
{
	size_t luma = (size_t)i->width * i->height;
	size_t cw = i->width, ch = i->height;

	switch (i->chroma) {
	case Y4M_420:
		cw = (i->width + 1) / 2;
		ch = (i->height + 1) / 2;
		break;
	case Y4M_422:
		cw = (i->width + 1) / 2;
		break;
	case Y4M_444:
		break;
	case Y4M_MONO:
		return luma;
	}
	return luma + 2 * cw * ch;
}

int y4m_read(struct y4m *y, uint8_t *buf, char *err, size_t errlen)
{
	size_t len, want = y4m_frame_size(&y->info), got;

	if (read_line(y, &len) < 0) {
		if (len == 0 && feof(y->f))
			return 0;
		snprintf(err, errlen, "a FRAME line is cut short or too long");
		return -1;
	}
	if (strncmp(y->line, "FRAME", 5) || (y->line[5] && y->line[5] != ' ')) {
		snprintf(err, errlen, "expected a FRAME line, found '%.16s'",
			 y->line);
		return -1;
	}
	got = fread(buf, 1, want, y->f);
	if (got != want) {
		snprintf(err, errlen, "a frame is cut short: %zu of %zu bytes",
			 got, want);
		return -1;
	}
	return 1;
}

int y4m_rewind(struct y4m *y)
{
	if (y->data_start < 0 || fseek(y->f, y->data_start, SEEK_SET) < 0)
		return -1;
	return 0;
}
