/* html-view.c — the self-contained HTML view of plans (see html-view.h). */
#include "report/html-view.h"
#include "base/files.h"
#include "base/units.h"
#include "plan/profile.h"

#include <string.h>

/* text as HTML text or attribute value: valid UTF-8, control characters as spaces, & < > " ' escaped. */
static void append_escaped(GString *s, const char *text)
{
    char *valid = g_utf8_make_valid(text ? text : "", -1);
    for (const guchar *c = (const guchar *)valid; *c; c++) {
        switch (*c) {
        case '&': g_string_append(s, "&amp;"); break;
        case '<': g_string_append(s, "&lt;"); break;
        case '>': g_string_append(s, "&gt;"); break;
        case '"': g_string_append(s, "&quot;"); break;
        case '\'': g_string_append(s, "&#39;"); break;
        default: g_string_append_c(s, *c < 0x20 || *c == 0x7f ? ' ' : (char)*c);
        }
    }
    g_free(valid);
}

static const char *const style =
    "body{font-family:sans-serif;margin:16px;color:#222}h1{font-size:18px}h2{font-size:15px;margin:4px 0}"
    ".plans{display:flex;flex-wrap:wrap;gap:16px}.plan{flex:1 1 520px;min-width:420px}"
    "svg{width:100%;background:#fafafa;border:1px solid #ccc;display:block}svg.layout{height:420px;cursor:grab}"
    "svg.live{height:120px;margin-top:4px}rect.buffer{stroke:#333;stroke-width:0.5px;vector-effect:non-scaling-stroke}"
    "rect.buffer:hover{stroke:#000;stroke-width:2px}#tip{position:fixed;pointer-events:none;background:#fff;"
    "border:1px solid #888;padding:4px 6px;font-size:12px;display:none;white-space:pre}.note{color:#555;font-size:13px}";

/* Pan and zoom the steps of every layout (and its live curve) with the wheel and a drag, reset on a double
 * click; the tooltip reads the hovered buffer's data attributes as text. */
static const char *const script =
    "(function(){var tip=document.getElementById('tip');"
    "document.querySelectorAll('section.plan').forEach(function(sec){"
    "var svgs=sec.querySelectorAll('svg');var full=svgs[0].viewBox.baseVal;var x0=full.x,w0=full.width;"
    "var view={x:x0,w:w0};function apply(){svgs.forEach(function(s){var b=s.viewBox.baseVal;b.x=view.x;b.width=view.w;});}"
    "svgs[0].addEventListener('wheel',function(e){e.preventDefault();var r=svgs[0].getBoundingClientRect();"
    "var at=view.x+view.w*(e.clientX-r.left)/r.width;var k=e.deltaY<0?0.8:1.25;var w=Math.min(w0,Math.max(w0/10000,view.w*k));"
    "view.x=Math.max(x0,Math.min(x0+w0-w,at-(at-view.x)*w/view.w));view.w=w;apply();},{passive:false});"
    "var drag=null;svgs[0].addEventListener('mousedown',function(e){drag={x:e.clientX,vx:view.x};});"
    "window.addEventListener('mouseup',function(){drag=null;});"
    "window.addEventListener('mousemove',function(e){if(!drag)return;var r=svgs[0].getBoundingClientRect();"
    "view.x=Math.max(x0,Math.min(x0+w0-view.w,drag.vx-(e.clientX-drag.x)*view.w/r.width));apply();});"
    "svgs[0].addEventListener('dblclick',function(){view={x:x0,w:w0};apply();});});"
    "document.querySelectorAll('rect.buffer').forEach(function(r){"
    "r.addEventListener('mousemove',function(e){var d=r.dataset;tip.textContent=d.name+'\\n'+d.size+' B at offset '+d.offset+"
    "'\\nsteps '+d.first+' to '+d.last+(d.bin!=='0'?'\\nbin '+d.bin:'')+(d.about?'\\n'+d.about:'');tip.style.display='block';"
    "tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px';});"
    "r.addEventListener('mouseleave',function(){tip.style.display='none';});});})();";

/* One plan's section: its buffers in `order` (the largest first, from profile_by_area; the same
 * for every plan of the trace), the first HTML_VIEW_MAX_BUFFERS of them drawn. */
static void append_plan(GString *s, const Trace *t, const Plan *plan, guint64 top, const char *const *about,
                        const guint *order)
{
    guint n = trace_count(t), steps = MAX(t->steps, 1);
    guint64 *base = profile_bin_bases(plan); /* each bin stacked on the ones below it */
    char *arena = sim_format_bytes(plan->arena), *bound = sim_format_bytes(plan->lower_bound);
    g_string_append(s, "<section class=\"plan\" data-strategy=\"");
    append_escaped(s, plan->strategy->name);
    g_string_append(s, "\"><h2>");
    append_escaped(s, plan->strategy->name);
    g_string_append_printf(s, ": arena %s (lower bound %s)", arena, bound);
    g_string_append(s, "</h2>\n");
    g_free(arena);
    g_free(bound);
    guint shown = MIN(n, HTML_VIEW_MAX_BUFFERS);
    if (shown < n)
        g_string_append_printf(s, "<p class=\"note\">%u of %u buffers drawn: the largest (bytes × steps).</p>\n", shown, n);
    g_string_append_printf(s, "<svg class=\"layout\" viewBox=\"0 0 %u %" G_GUINT64_FORMAT "\" preserveAspectRatio=\"none\">\n",
                           steps, MAX(top, 1));
    for (guint k = 0; k < shown; k++) {
        guint id = order[k];
        const TraceBuffer *b = trace_buffer(t, id);
        guint64 y = base[b->bin] + plan->offsets[id];
        guint hue = g_str_hash(b->name) % 360;
        g_string_append_printf(s, "<rect class=\"buffer\" x=\"%u\" y=\"%" G_GUINT64_FORMAT "\" width=\"%u\" height=\"%"
                               G_GUINT64_FORMAT "\" fill=\"hsl(%u,55%%,70%%)\" data-name=\"", b->first,
                               top - MIN(top, y + b->size), b->last - b->first + 1, b->size, hue);
        append_escaped(s, b->name);
        g_string_append_printf(s, "\" data-size=\"%" G_GUINT64_FORMAT "\" data-offset=\"%" G_GUINT64_FORMAT "\" data-first=\"%u\""
                               " data-last=\"%u\" data-bin=\"%u\"", b->size, plan->offsets[id], b->first, b->last, b->bin);
        if (about && about[id]) {
            g_string_append(s, " data-about=\"");
            append_escaped(s, about[id]);
            g_string_append_c(s, '"');
        }
        g_string_append(s, "><title>");
        append_escaped(s, b->name);
        g_string_append_printf(s, ": %" G_GUINT64_FORMAT " B at %" G_GUINT64_FORMAT ", steps %u-%u</title></rect>\n",
                               b->size, plan->offsets[id], b->first, b->last);
    }
    g_string_append(s, "</svg>\n");
    /* live (black) and spanned (blue) bytes per step, on the layout's scale */
    MemoryProfile profile;
    profile_compute(t, plan, &profile);
    GString *live = g_string_new(NULL), *spanned = g_string_new(NULL);
    for (guint k = 0; k < profile.steps; k++) {
        g_string_append_printf(live, "%u,%" G_GUINT64_FORMAT " %u,%" G_GUINT64_FORMAT " ", k, top - MIN(top, profile.live[k]),
                               k + 1, top - MIN(top, profile.live[k]));
        g_string_append_printf(spanned, "%u,%" G_GUINT64_FORMAT " %u,%" G_GUINT64_FORMAT " ", k,
                               top - MIN(top, profile.spanned[k]), k + 1, top - MIN(top, profile.spanned[k]));
    }
    g_string_append_printf(s, "<svg class=\"live\" viewBox=\"0 0 %u %" G_GUINT64_FORMAT "\" preserveAspectRatio=\"none\">"
                           "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" vector-effect=\"non-scaling-stroke\" "
                           "points=\"%s\"/><polyline class=\"live-bytes\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\" "
                           "vector-effect=\"non-scaling-stroke\" points=\"%s\"/></svg>\n",
                           steps, MAX(top, 1), spanned->str, live->str);
    g_string_free(live, TRUE);
    g_string_free(spanned, TRUE);
    profile_clear(&profile);
    g_string_append(s, "</section>\n");
    g_free(base);
}

char *html_view_page(const char *title, const Trace *t, const Plan *const *plans, guint count,
                     const char *const *about)
{
    guint64 top = 0; /* one address scale for every plan: the largest arena */
    for (guint k = 0; k < count; k++)
        top = MAX(top, plans[k]->arena);
    GString *s = g_string_new("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
    append_escaped(s, title);
    g_string_append_printf(s, "</title><style>%s</style></head><body>\n<h1>", style);
    append_escaped(s, title);
    g_string_append_printf(s, "</h1>\n<p class=\"note\">%u buffers, %u steps. Each rectangle is a buffer: its steps across, its"
                              " bytes up. Hover for details; the wheel zooms the steps, a drag pans, a double click resets."
                              " Below each plan: the bytes live (black) and the bytes it spans (blue) per step.</p>\n"
                              "<div class=\"plans\">\n", trace_count(t), t->steps);
    guint *order = profile_by_area(t);
    for (guint k = 0; k < count; k++)
        append_plan(s, t, plans[k], top, about, order);
    g_free(order);
    g_string_append_printf(s, "</div>\n<div id=\"tip\"></div>\n<script>%s</script>\n</body></html>\n", script);
    return g_string_free(s, FALSE);
}

gboolean html_view_write(const char *path, const char *title, const Trace *t, const Plan *const *plans, guint count,
                         const char *const *about, GError **error)
{
    char *page = html_view_page(title, t, plans, count, about);
    gboolean ok = sim_write_file(path, page, strlen(page), error);
    g_free(page);
    return ok;
}
