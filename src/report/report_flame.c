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

/* One frame of the layout. */
static void flame_frame(FILE *out, const struct psym_flame *fl, const struct psym_flame_frame *f,
			double W, double H, double pad, double y0)
{
	static const char *const fill[] = { "#f4a261", "#e76f51", "#2a9d8f", "#b0b0b0" };
	const char *nm = f->name;
	double fw = (double)f->value / (double)fl->total;
	double px = (double)f->x / (double)fl->total;
	double rw = fw * (W - 2 * pad), y = y0 + (double)f->depth * H;
	size_t c = (size_t)(rw / 7);
	char v[64], pct[32];

	psym_report_value(v, sizeof(v), f->value, fl->unit);
	psym_rpt_percentage(pct, sizeof(pct), f->value, fl->total);
	fprintf(out, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%zu\"><title>", px,
		fw, f->depth);
	xml_text(out, nm);
	fprintf(out,
		" (%s, %s)</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
		"fill=\"%s\" rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\" data-n=\"",
		v, pct + strspn(pct, " "), pad + px * (W - 2 * pad), y, rw > 0.5 ? rw - 0.5 : rw,
		H - 1, fill[f->kind & 3], pad + px * (W - 2 * pad) + 3, y + 12);
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
	static const char *const fill[] = { "#f4a261", "#e76f51", "#2a9d8f", "#b0b0b0" };
	const double W = 1200.0, H = 17.0, pad = 10.0;
	/* Root at the top, under the title: what a viewer sees first. */
	double y0 = pad + 2.5 * H, height = y0 + (double)(fl->maxdepth + 1) * H + pad;
	char tv[64];
	const char *unit = fl->unit;

	(void)e;

	fprintf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\">\n",
		W, height, W, height);
	fprintf(out,
		"<style>text{font-family:monospace;font-size:12px} .f:hover rect{stroke:#000}"
		" .hl rect{fill:#e040fb !important}</style>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n"
		"var frames=[],W=%.0f,pad=%.0f;\n"
		"function init(evt){frames=Array.prototype.slice.call(document.querySelectorAll('g.f'));"
		"frames.forEach(function(g){g.onclick=function(){zoom(g)};});"
		"document.getElementById('search').onclick=search;"
		"document.getElementById('reset').onclick=function(){zoom(null)};}\n"
		"function zoom(t){var x0=t?+t.dataset.x:0,w0=t?+t.dataset.w:1,d0=t?+t.dataset.d:-1;"
		"frames.forEach(function(g){var x=+g.dataset.x,w=+g.dataset.w,d=+g.dataset.d,"
		"r=g.querySelector('rect'),tx=g.querySelector('text');"
		"var inside=x>=x0-1e-9&&x+w<=x0+w0+1e-9;var nx=(x-x0)/w0,nw=w/w0;"
		"if(!t){nx=x;nw=w;inside=true;}"
		"if(d<d0&&t){inside=x<=x0+1e-9&&x+w>=x0+w0-1e-9;nx=0;nw=1;}"
		"g.style.display=inside?'':'none';r.setAttribute('x',pad+nx*(W-2*pad));"
		"r.setAttribute('width',Math.max(0,nw*(W-2*pad)-0.5));"
		"tx.setAttribute('x',pad+nx*(W-2*pad)+3);var n=tx.dataset.n,c=Math.floor(nw*(W-2*pad)/7);"
		"tx.textContent=c>=3?(n.length>c?n.slice(0,c-2)+'..':n):'';});}\n"
		"function search(){var q=prompt('Search (regular expression):');if(q===null)return;"
		"var re;try{re=new RegExp(q);}catch(e){return;}"
		"frames.forEach(function(g){var n=g.querySelector('text').dataset.n;"
		"g.classList.toggle('hl',q!==''&&re.test(n));});}\n"
		"]]></script>\n",
		W, pad);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fdf6e3\"/>\n", W,
		height);
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"16\">", W / 2,
		pad + 12);
	xml_text(out, title ? title : "Flame graph");
	psym_report_value(tv, sizeof(tv), fl->total, unit);
	fprintf(out, "</text>\n<text id=\"total\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">",
		W / 2, pad + 12 + H);
	xml_text(out, fl->type);
	fprintf(out, ": %s total</text>\n", tv);
	fprintf(out,
		"<text id=\"search\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" "
		"style=\"cursor:pointer\">Search</text>\n",
		W - pad, pad + 12);
	fprintf(out,
		"<text id=\"reset\" x=\"%.0f\" y=\"%.0f\" style=\"cursor:pointer\">Reset zoom"
		"</text>\n",
		pad, pad + 12);
	fprintf(out, "<g id=\"legend\">");
	{
		static const char *const kname[] = { "user", "kernel", "JIT", "unknown" };

		for (int k = 0; k < 4; k++)
			fprintf(out,
				"<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
				"<text x=\"%.0f\" y=\"%.0f\">%s</text>",
				W / 2 + 180 + k * 80.0, pad + 3, fill[k], W / 2 + 194 + k * 80.0,
				pad + 12, kname[k]);
	}
	fprintf(out, "</g>\n");
	for (size_t i = 0; i < fl->n && !ferror(out); i++)
		flame_frame(out, fl, &fl->frame[i], W, H, pad, y0);
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
