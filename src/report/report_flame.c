/* SPDX-License-Identifier: MIT */
/*
 * psym flame: the SVG of a flame graph layout (flame_layout.c): frames,
 * tooltips in the sample's unit, click to zoom and search by script, and
 * readable without scripts.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "textesc.h"

/* Length of the well-formed UTF-8 character at s (XML's characters only), or 0. */
static size_t utf8_char(const unsigned char *s)
{
	size_t bad, n = psym_utf8_len(s, strnlen((const char *)s, 4), &bad);

	/* U+FFFE and U+FFFF are not XML characters. */
	if (n == 3 && s[0] == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
		return 0;
	return n;
}

/*
 * s as XML character data: specials escaped, control characters dropped,
 * bytes that are not UTF-8 as U+FFFD (a profile's names are untrusted, and
 * one bad byte would make the whole SVG unreadable).
 */
static void xml_text(FILE *out, const char *s)
{
	const unsigned char *c = (const unsigned char *)s;

	while (*c) {
		size_t n;

		switch (*c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			if (*c < 0x80) {
				if (*c >= 0x20 && *c != 0x7f)
					putc(*c, out);
				break;
			}
			n = utf8_char(c);
			if (!n) {
				fputs("\xef\xbf\xbd", out);
				break;
			}
			fwrite(c, 1, n, out);
			c += n;
			continue;
		}
		c++;
	}
}

/* FNV-1a of a name: the same colour for the same function in every graph. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/*
 * The colour families, one per kind of frame, each a hue range of its own:
 * user code red to orange, inlined user code yellow, JIT code green, the
 * kernel blue, unknown (unsymbolized) code grey. Frames and the legend
 * both take their colours from here; the legend shows each family's middle.
 */
static const struct family {
	const char *name;
	double h0, h1; /* hue, degrees */
	double s0, s1; /* saturation, 0..1 */
	double l0, l1; /* lightness, 0..1 */
} family[PSYM_FLAME_NKINDS] = {
	[PSYM_FLAME_USER] = { "user", 0, 28, .75, .95, .55, .68 },
	[PSYM_FLAME_INLINED] = { "inlined", 46, 60, .75, .95, .52, .64 },
	[PSYM_FLAME_JIT] = { "JIT", 95, 135, .45, .70, .48, .62 },
	[PSYM_FLAME_KERNEL] = { "kernel", 195, 220, .55, .80, .58, .72 },
	[PSYM_FLAME_UNKNOWN] = { "unknown", 0, 0, 0, 0, .66, .82 },
};

/* The order of the legend. */
static const enum psym_flame_kind legend_order[] = {
	PSYM_FLAME_USER, PSYM_FLAME_INLINED, PSYM_FLAME_JIT, PSYM_FLAME_KERNEL, PSYM_FLAME_UNKNOWN,
};

/* "#rrggbb" of hue h (degrees, 0..360), saturation s and lightness l (0..1). */
static void hsl_hex(char *buf, size_t sz, double h, double s, double l)
{
	/* Per sixth of the hue circle: which of red, green, blue get c (2) and x (1). */
	static const unsigned char part[6][3] = {
		{ 2, 1, 0 }, { 1, 2, 0 }, { 0, 2, 1 }, { 0, 1, 2 }, { 1, 0, 2 }, { 2, 0, 1 },
	};
	double c = (1 - fabs(2 * l - 1)) * s, hp = fmod(h, 360) / 60;
	double v[3] = { 0, c * (1 - fabs(fmod(hp, 2) - 1)), c }, m = l - c / 2;
	const unsigned char *p = part[(int)hp % 6];

	snprintf(buf, sz, "#%02x%02x%02x", (int)lround(255 * (v[p[0]] + m)),
		 (int)lround(255 * (v[p[1]] + m)), (int)lround(255 * (v[p[2]] + m)));
}

/* A shade of family k: t0, t1, t2 in 0..1 place hue, saturation, lightness. */
static void family_shade(char *buf, size_t sz, enum psym_flame_kind k, double t0, double t1,
			 double t2)
{
	const struct family *f = &family[k < PSYM_FLAME_NKINDS ? k : PSYM_FLAME_UNKNOWN];

	hsl_hex(buf, sz, f->h0 + (f->h1 - f->h0) * t0, f->s0 + (f->s1 - f->s0) * t1,
		f->l0 + (f->l1 - f->l0) * t2);
}

/*
 * A frame's fill. As flamegraph.pl does, each name gets its own shade of
 * its kind's family, so neighbours differ. With a diff base: red for
 * growth, blue for a decrease, stronger the larger the change (white: none).
 */
static void frame_fill(char *buf, size_t sz, const struct psym_flame *fl,
		       const struct psym_flame_frame *f, int64_t maxd)
{
	uint32_t h = name_hash(f->name);

	if (fl->diff) {
		double ratio = maxd ? (double)abs64(f->delta) / (double)maxd : 0;
		int v = (int)(235 - 190 * ratio);

		if (!f->delta)
			snprintf(buf, sz, "#f5f5f5");
		else
			snprintf(buf, sz, "#%02x%02x%02x", f->delta > 0 ? 255 : v, v,
				 f->delta < 0 ? 255 : v);
		return;
	}
	family_shade(buf, sz, f->kind, (double)(h & 0xff) / 255.0,
		     (double)((h >> 8) & 0xff) / 255.0, (double)((h >> 16) & 0xff) / 255.0);
}

/* Geometry of the default 1,200-pixel drawing, before a script runs. */
#define FW 1200.0	      /* width */
#define FH 17.0		      /* a frame's height */
#define FPAD 10.0	      /* margins */
#define FY0 (FPAD + 2.5 * FH) /* the roots' top: below two lines of title and legend */
/* Width of a label's character (monospace, 12 px) and the text's margins. */
#define CHAR_W 7.2
#define TEXT_PAD 6.0

/* Length of the first at most max bytes of s that end at a UTF-8 character's end. */
static size_t utf8_cut(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return n;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

/* The label of name nm in a frame rw pixels wide: whole, cut with "..", or none. */
static void frame_label(FILE *out, const char *nm, double rw)
{
	double fit = (rw - TEXT_PAD) / CHAR_W;
	size_t c = fit > 0 ? (size_t)fit : 0, chars = 0;
	char buf[512];

	/* Characters, not bytes (the script counts them too). */
	for (const unsigned char *p = (const unsigned char *)nm; *p; p++)
		chars += (*p & 0xc0) != 0x80;
	if (chars <= c) {
		xml_text(out, nm);
		return;
	}
	if (c < 3)
		return;
	/* c - 2 characters, then "..". */
	chars = 0;
	for (size_t i = 0;; i++) {
		if (((unsigned char)nm[i] & 0xc0) != 0x80 && chars++ == c - 2) {
			size_t n = utf8_cut(nm, i < sizeof(buf) - 3 ? i : sizeof(buf) - 3);

			memcpy(buf, nm, n);
			memcpy(buf + n, "..", 3);
			break;
		}
	}
	xml_text(out, buf);
}

/* One frame of the layout. */
static void flame_frame(FILE *out, const struct psym_flame *fl, const struct psym_flame_frame *f,
			int64_t maxd)
{
	const char *nm = f->name;
	double fw = (double)f->value / (double)fl->total;
	double px = (double)f->x / (double)fl->total;
	double y = FY0 + (double)f->depth * FH, left = 100 * (FPAD + px * (FW - 2 * FPAD)) / FW;
	char v[64], pct[32], fill[16];

	frame_fill(fill, sizeof(fill), fl, f, maxd);
	psym_report_value(v, sizeof(v), f->value, fl->unit);
	psym_rpt_percentage(pct, sizeof(pct), f->value, fl->total);
	fprintf(out,
		"<g class=\"f\"%s data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%zu\" data-k=\"%s\">"
		"<title>",
		f->inl ? " data-i=\"1\"" : "", px, fw, f->depth,
		family[f->kind < PSYM_FLAME_NKINDS ? f->kind : PSYM_FLAME_UNKNOWN].name);
	xml_text(out, nm);
	if (fl->diff) {
		char dv[64];

		psym_report_value(dv, sizeof(dv), f->delta, fl->unit);
		fprintf(out, "%s (%s, %s, change %s%s)</title>", f->inl ? " (inline)" : "", v,
			pct + strspn(pct, " "), f->delta > 0 ? "+" : "", dv);
	} else {
		fprintf(out, "%s (%s, %s)</title>", f->inl ? " (inline)" : "", v,
			pct + strspn(pct, " "));
	}
	/* Percentages of the window; the pixels of the default drawing cut the text. */
	fprintf(out,
		"<rect x=\"%.4f%%\" y=\"%.1f\" width=\"%.4f%%\" height=\"%.1f\" "
		"fill=\"%s\" rx=\"2\"/><text x=\"%.4f%%\" dx=\"3\" y=\"%.1f\" data-n=\"",
		left, y, 100 * fw * (FW - 2 * FPAD) / FW, FH - 1, fill, left, y + 12);
	xml_text(out, nm);
	fprintf(out, "\">");
	frame_label(out, nm, fw * (FW - 2 * FPAD));
	fprintf(out, "</text></g>\n");
}

/* The legend, left on the second line: one swatch per colour family (or grew, shrank). */
static void flame_legend(FILE *out, const struct psym_flame *fl)
{
	static const char *const dfill[] = { "#ff6e6e", "#6e6eff" };
	static const char *const dname[] = { "grew", "shrank" };
	size_t n = fl->diff ? 2 : sizeof(legend_order) / sizeof(legend_order[0]);
	double y = FPAD + FH;

	fprintf(out, "<g id=\"legend\">");
	for (size_t i = 0; i < n; i++) {
		enum psym_flame_kind k = legend_order[i];
		char fill[16];

		if (fl->diff)
			snprintf(fill, sizeof(fill), "%s", dfill[i]);
		else
			family_shade(fill, sizeof(fill), k, .5, .5, .5);
		fprintf(out,
			"<g class=\"key\"%s data-k=\"%s\"><rect x=\"%.0f\" y=\"%.0f\" width=\"10\" "
			"height=\"10\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">%s</text></g>",
			!fl->diff && k == PSYM_FLAME_INLINED ? " data-i=\"1\"" : "",
			fl->diff ? dname[i] : family[k].name, FPAD + (double)i * 80, y + 3, fill,
			FPAD + 14 + (double)i * 80, y + 12, fl->diff ? dname[i] : family[k].name);
	}
	if (fl->diff)
		fprintf(out,
			"<g data-i=\"1\"><rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" "
			"fill=\"none\"/><text x=\"%.0f\" y=\"%.0f\">inlined</text></g>",
			FPAD + (double)n * 80, y + 3, FPAD + 14 + (double)n * 80, y + 12);
	fprintf(out, "</g>\n");
}

/* Title, controls, total and legend above the frames; the search's and tooltip's line below. */
static void flame_header(FILE *out, const struct psym_flame *fl, const char *title, double height)
{
	char tv[64];

	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"%.0f\" fill=\"#fdf6e3\"/>\n",
		height);
	fprintf(out,
		"<text id=\"reset\" x=\"%.0f\" y=\"%.0f\" style=\"cursor:pointer\">Reset zoom"
		"</text>\n",
		FPAD, FPAD + 12);
	fprintf(out,
		"<text id=\"title\" x=\"50%%\" y=\"%.0f\" text-anchor=\"middle\" "
		"font-size=\"16\">",
		FPAD + 12);
	xml_text(out, title ? title : "Flame graph");
	fprintf(out,
		"</text>\n<text id=\"search\" x=\"100%%\" dx=\"%.0f\" y=\"%.0f\" "
		"text-anchor=\"end\" style=\"cursor:pointer\">Search</text>\n",
		-FPAD, FPAD + 12);
	flame_legend(out, fl);
	psym_report_value(tv, sizeof(tv), fl->total, fl->unit);
	fprintf(out, "<text id=\"total\" x=\"100%%\" dx=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">",
		-FPAD, FPAD + FH + 12);
	xml_text(out, fl->type);
	fprintf(out, ": %s total", tv);
	if (fl->diff) {
		psym_report_value(tv, sizeof(tv), fl->total_delta, fl->unit);
		fprintf(out, ", change %s%s from the base", fl->total_delta > 0 ? "+" : "", tv);
	}
	if (fl->omitted)
		fprintf(out, " (%zu frames too narrow to draw)", fl->omitted);
	fprintf(out, "</text>\n");
	fprintf(out,
		"<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n"
		"<text id=\"matched\" x=\"100%%\" dx=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"> "
		"</text>\n",
		FPAD, height - FPAD - 4, -FPAD, height - FPAD - 4);
}

int psym_flame_write_svg(const struct psym_flame *fl, const char *title, FILE *out,
			 struct psym_err *e)
{
	/* Below the frames, a line for the search's and the tooltip's text. */
	double height = FY0 + (double)(fl->maxdepth + 1) * FH + FPAD;
	int64_t maxd = 0;

	(void)e;
	for (size_t i = 0; i < fl->n; i++)
		if (abs64(fl->frame[i].delta) > maxd)
			maxd = abs64(fl->frame[i].delta);
	fprintf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"100%%\" height=\"%.0f\" data-pad=\"%.6f\" "
		"xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\">\n",
		height, 100 * FPAD / FW);
	fprintf(out,
		"<style>text{font-family:monospace;font-size:12px} .f:hover rect{stroke:#000}"
		" .hl rect{fill:#e040fb !important}"
		" [data-i] rect{stroke:#333;stroke-opacity:.5;stroke-width:.8;stroke-dasharray:2 1}"
		" [data-i] text{font-style:italic}</style>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
		psym_flame_script);
	flame_header(out, fl, title, height);
	for (size_t i = 0; i < fl->n && !ferror(out); i++)
		flame_frame(out, fl, &fl->frame[i], maxd);
	fprintf(out, "</svg>\n");
	return ferror(out) ? PSYM_EIO : 0;
}

int psym_report_flame(const struct psym_profile *p, const struct psym_report_opts *o,
		      const char *title, FILE *out, struct psym_err *e)
{
	struct psym_flame *fl;
	int ret = psym_flame_layout(p, o, &fl, e);

	if (ret)
		return ret;
	ret = psym_flame_write_svg(fl, title, out, e);
	psym_flame_free(fl);
	return ret;
}
