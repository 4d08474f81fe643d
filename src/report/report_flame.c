/* SPDX-License-Identifier: MIT */
/*
 * psym flame: the SVG of a flame graph layout (flame_layout.c): frames,
 * tooltips in the sample's unit, click to zoom and search by script, and
 * readable without scripts.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

static void xml_text(FILE *out, const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			if (*c >= 0x20 && *c != 0x7f)
				putc(*c, out);
		}
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
 * A frame's fill. As flamegraph.pl does, each name gets its own shade of
 * its kind's palette (user: red to yellow, kernel: orange, JIT: green,
 * unknown: grey), so neighbours differ. With a diff base: red for growth,
 * blue for a decrease, stronger the larger the change (white: none).
 */
static void frame_fill(char *buf, size_t sz, const struct psym_flame *fl,
		       const struct psym_flame_frame *f, int64_t maxd)
{
	uint32_t h = name_hash(f->name);
	double a = (double)(h & 0xff) / 255.0, b = (double)((h >> 8) & 0xff) / 255.0,
	       c = (double)((h >> 16) & 0xff) / 255.0;
	int r, g, bl;

	if (fl->diff) {
		double ratio = maxd ? (double)abs64(f->delta) / (double)maxd : 0;
		int v = (int)(235 - 190 * ratio);

		r = f->delta > 0 ? 255 : v;
		bl = f->delta < 0 ? 255 : v;
		g = v;
		if (!f->delta)
			r = g = bl = 245;
	} else {
		switch (f->kind) {
		case PSYM_FLAME_KERNEL:
			r = 190 + (int)(65 * b);
			g = 90 + (int)(65 * a);
			bl = 0;
			break;
		case PSYM_FLAME_JIT:
			r = 50 + (int)(60 * a);
			g = 180 + (int)(60 * b);
			bl = 50 + (int)(60 * c);
			break;
		case PSYM_FLAME_UNKNOWN: r = g = bl = 160 + (int)(60 * a); break;
		default:
			r = 205 + (int)(50 * c);
			g = (int)(230 * a);
			bl = (int)(55 * b);
			break;
		}
	}
	snprintf(buf, sz, "#%02x%02x%02x", r, g, bl);
}

static const char *const kind_name[] = { "user", "kernel", "JIT", "unknown" };

/* One frame of the layout. */
static void flame_frame(FILE *out, const struct psym_flame *fl, const struct psym_flame_frame *f,
			int64_t maxd, double W, double H, double pad, double y0)
{
	const char *nm = f->name;
	double fw = (double)f->value / (double)fl->total;
	double px = (double)f->x / (double)fl->total;
	double rw = fw * (W - 2 * pad), y = y0 + (double)f->depth * H;
	size_t c = (size_t)(rw / 7);
	char v[64], pct[32], fill[16];

	frame_fill(fill, sizeof(fill), fl, f, maxd);
	psym_report_value(v, sizeof(v), f->value, fl->unit);
	psym_rpt_percentage(pct, sizeof(pct), f->value, fl->total);
	fprintf(out,
		"<g class=\"f\"%s data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%zu\" data-k=\"%s\">"
		"<title>",
		f->inl ? " data-i=\"1\"" : "", px, fw, f->depth, kind_name[f->kind & 3]);
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
		100 * (pad + px * (W - 2 * pad)) / W, y, 100 * fw * (W - 2 * pad) / W, H - 1, fill,
		100 * (pad + px * (W - 2 * pad)) / W, y + 12);
	xml_text(out, nm);
	fprintf(out, "\">");
	if (c >= 3) {
		char buf[512];

		snprintf(buf, sizeof(buf), "%s", nm);
		if (strlen(buf) > c)
			strcpy(buf + c - 2, "..");
		xml_text(out, buf);
	}
	fprintf(out, "</text></g>\n");
}

int psym_flame_write_svg(const struct psym_flame *fl, const char *title, FILE *out,
			 struct psym_err *e)
{
	/* Legend colours: the middle of each kind's palette; for a diff, grew and shrank. */
	static const char *const fill[] = { "#e6733b", "#dec920", "#6ed26e", "#bebebe" };
	static const char *const dfill[] = { "#ff6e6e", "#6e6eff" };
	static const char *const dname[] = { "grew", "shrank" };
	/*
	 * Geometry in a 1,200-pixel drawing: what the text is cut for before a
	 * script runs. Horizontal positions are percentages of the window
	 * (the script re-cuts the text to the window's width).
	 */
	const double W = 1200.0, H = 17.0, pad = 10.0;
	double y0 = pad + 2.5 * H, height = y0 + (double)(fl->maxdepth + 1) * H + pad;
	char tv[64];
	int64_t maxd = 0;
	int nleg = fl->diff ? 2 : 4;

	(void)e;
	for (size_t i = 0; i < fl->n; i++)
		if (abs64(fl->frame[i].delta) > maxd)
			maxd = abs64(fl->frame[i].delta);
	fprintf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"100%%\" height=\"%.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\">\n",
		height);
	fprintf(out,
		"<style>text{font-family:monospace;font-size:12px} .f:hover rect{stroke:#000}"
		" .hl rect{fill:#e040fb !important}"
		" [data-i] rect{stroke:#333;stroke-opacity:.5;stroke-width:.8;stroke-dasharray:2 1}"
		" [data-i] text{font-style:italic}</style>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n"
		"var frames=[],pp=%.6f,z=null;\n"
		"function init(evt){frames=Array.prototype.slice.call(document.querySelectorAll('g.f'));"
		"frames.forEach(function(g){g.onclick=function(){zoom(g)};});"
		"document.getElementById('search').onclick=search;"
		"document.getElementById('reset').onclick=function(){zoom(null)};"
		"window.onresize=function(){zoom(z)};zoom(null);}\n"
		"function zoom(t){z=t;"
		"var px=document.documentElement.getBoundingClientRect().width*(1-2*pp/100);"
		"var x0=t?+t.dataset.x:0,w0=t?+t.dataset.w:1,d0=t?+t.dataset.d:-1;"
		"frames.forEach(function(g){var x=+g.dataset.x,w=+g.dataset.w,d=+g.dataset.d,"
		"r=g.querySelector('rect'),tx=g.querySelector('text');"
		"var inside=x>=x0-1e-9&&x+w<=x0+w0+1e-9;var nx=(x-x0)/w0,nw=w/w0;"
		"if(!t){nx=x;nw=w;inside=true;}"
		"if(d<d0&&t){inside=x<=x0+1e-9&&x+w>=x0+w0-1e-9;nx=0;nw=1;}"
		"g.style.display=inside?'':'none';r.setAttribute('x',(pp+nx*(100-2*pp))+'%%');"
		"r.setAttribute('width',Math.max(0,nw*(100-2*pp))+'%%');"
		"tx.setAttribute('x',(pp+nx*(100-2*pp))+'%%');var n=tx.dataset.n,c=Math.floor(nw*px/7);"
		"tx.textContent=c>=3?(n.length>c?n.slice(0,c-2)+'..':n):'';});}\n"
		"function search(){var q=prompt('Search (regular expression):');if(q===null)return;"
		"var re;try{re=new RegExp(q);}catch(e){return;}"
		"frames.forEach(function(g){var n=g.querySelector('text').dataset.n;"
		"g.classList.toggle('hl',q!==''&&re.test(n));});}\n"
		"]]></script>\n",
		100 * pad / W);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"%.0f\" fill=\"#fdf6e3\"/>\n",
		height);
	fprintf(out, "<text x=\"50%%\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"16\">",
		pad + 12);
	xml_text(out, title ? title : "Flame graph");
	psym_report_value(tv, sizeof(tv), fl->total, fl->unit);
	fprintf(out, "</text>\n<text id=\"total\" x=\"50%%\" y=\"%.0f\" text-anchor=\"middle\">",
		pad + 12 + H);
	xml_text(out, fl->type);
	fprintf(out, ": %s total", tv);
	if (fl->diff) {
		psym_report_value(tv, sizeof(tv), fl->total_delta, fl->unit);
		fprintf(out, ", change %s%s from the base", fl->total_delta > 0 ? "+" : "", tv);
	}
	fprintf(out, "</text>\n");
	fprintf(out,
		"<text id=\"search\" x=\"100%%\" dx=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" "
		"style=\"cursor:pointer\">Search</text>\n",
		-pad, pad + 12);
	fprintf(out,
		"<text id=\"reset\" x=\"%.0f\" y=\"%.0f\" style=\"cursor:pointer\">Reset zoom"
		"</text>\n",
		pad, pad + 12);
	/* The legend right of the centre, in pixels from there. */
	fprintf(out, "<svg id=\"legend\" x=\"50%%\" y=\"0\" overflow=\"visible\">");
	for (int k = 0; k < nleg; k++)
		fprintf(out,
			"<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%.0f\" y=\"%.0f\">%s</text>",
			100 + k * 80.0, pad + 3, fl->diff ? dfill[k] : fill[k], 114 + k * 80.0,
			pad + 12, fl->diff ? dname[k] : kind_name[k]);
	fprintf(out,
		"<g data-i=\"1\"><rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" "
		"fill=\"none\"/><text x=\"%.0f\" y=\"%.0f\">inline</text></g></svg>\n",
		100 + nleg * 80.0, pad + 3, 114 + nleg * 80.0, pad + 12);
	for (size_t i = 0; i < fl->n && !ferror(out); i++)
		flame_frame(out, fl, &fl->frame[i], maxd, W, H, pad, y0);
	if (fl->omitted)
		fprintf(out,
			"<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">%zu frames too narrow to "
			"draw</text>\n",
			pad, height - 3, fl->omitted);
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
