/* html-view.c — the self-contained HTML view of plans (see html-view.h). */
#include "report/html-view.h"
#include "trace/trace-tiers.h"
#include "base/files.h"
#include "base/units.h"
#include "plan/profile.h"
#include "report/peak.h"

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
    ".plans{display:flex;flex-wrap:wrap;gap:16px}.plan{flex:1 1 520px;min-width:420px;padding-left:72px}"
    ".frame{position:relative;margin-bottom:24px}svg{width:100%;background:#fafafa;border:1px solid #ccc;display:block;"
    "box-sizing:border-box}svg.layout{height:420px;cursor:grab}svg.live{height:120px}"
    ".yaxis{position:absolute;top:0;bottom:0;left:-72px;width:66px}"
    ".xaxis{position:absolute;left:0;right:0;bottom:-20px;"
    "height:18px}.tick{position:absolute;font-size:11px;color:#444;white-space:nowrap}.yaxis .tick{right:0;"
    "transform:translateY(-50%)}.xaxis .tick{top:2px;transform:translateX(-50%)}"
    "rect.buffer{stroke:#333;stroke-width:0.5px;vector-effect:non-scaling-stroke}rect.at-peak{stroke:#d62728;"
    "stroke-width:1.5px}rect.buffer:hover{stroke:#000;stroke-width:2px}rect.peak{fill:rgba(214,39,40,0.18)}"
    "#tip{position:fixed;pointer-events:none;background:#fff;border:1px solid #888;padding:4px 6px;font-size:12px;"
    "display:none;white-space:pre}.note{color:#555;font-size:13px}";

/* Per plan: its own byte scale (or, with the checkbox, the largest arena's for all), axes with ticks at round
 * values as many as fit (recomputed as the view moves), the wheel zooming the steps and shift+wheel the bytes
 * around the cursor, a drag panning both, a double click resetting; the tooltip reads the hovered buffer's data
 * attributes as text. With #check in the address the page measures its own tick labels once drawn, and again
 * on the shared scale, and says in body's data-check how many overlap another or leave their plan's box. */
static const char *const script =
    "(function(){var tip=document.getElementById('tip'),shared=document.getElementById('shared');"
    "var sharedTop=+document.body.dataset.top;var plans=[];"
    "function nice(range,n){var raw=range/Math.max(n,1),p=Math.pow(10,Math.floor(Math.log10(raw))),m=raw/p;"
    "return (m<=1?1:m<=2?2:m<=5?5:10)*p;}"
    "function ticks(box,lo,hi,px,vertical,label){box.textContent='';if(hi<=lo)return;"
    "var n=Math.max(2,Math.floor(px/(vertical?32:70))),u=1;"
    "if(vertical)while((hi-lo)/u>=4096&&u<1099511627776)u*=1024;"  /* round in the unit shown: 256 KiB, not 250,000 B */
    "var step=nice((hi-lo)/u,n)*u;if(!vertical)step=Math.max(1,Math.round(step));else label=function(v){"
    "var k=Math.round(Math.log(u)/Math.log(1024));return +(v/u).toFixed(2)+' '+['B','KiB','MiB','GiB','TiB'][k];};"
    "for(var v=Math.ceil(lo/step)*step;v<=hi+step*1e-9;v+=step){var f=(v-lo)/(hi-lo);"
    "var t=document.createElement('span');"
    "t.className='tick';t.textContent=label(v);if(vertical)t.style.top=((1-f)*100)+'%';else t.style.left=(f*100)+'%';"
    "box.appendChild(t);}}"
    "document.querySelectorAll('section.plan').forEach(function(sec){"
    "var lay=sec.querySelector('svg.layout'),live=sec.querySelector('svg.live'),ya=sec.querySelector('.yaxis'),"
    "xa=sec.querySelector('.xaxis');var steps=+sec.dataset.steps,own=+sec.dataset.top;var P={top:own};"
    "function reset(){P.top=shared.checked?sharedTop:own;P.v={x:0,w:steps,y:-P.top,h:P.top};apply();}"
    "function apply(){var v=P.v;[lay,live].forEach(function(s){var b=s.viewBox.baseVal;b.x=v.x;b.width=v.w;"
    "b.y=v.y;b.height=v.h;});var r=lay.getBoundingClientRect();"
    "ticks(ya,-(v.y+v.h),-v.y,r.height,true,null);ticks(xa,v.x,v.x+v.w,r.width,false,function(s){return ''+s;});}"
    "P.reset=reset;P.sec=sec;plans.push(P);"
    "lay.addEventListener('wheel',function(e){e.preventDefault();var v=P.v,r=lay.getBoundingClientRect(),"
    "k=e.deltaY<0?0.8:1.25;if(e.shiftKey){var at=v.y+v.h*(e.clientY-r.top)/r.height,"
    "h=Math.min(P.top,Math.max(P.top/1e6,v.h*k));v.y=Math.max(-P.top,Math.min(-h,at-(at-v.y)*h/v.h));v.h=h;}"
    "else{var ax=v.x+v.w*(e.clientX-r.left)/r.width,w=Math.min(steps,Math.max(steps/10000,v.w*k));"
    "v.x=Math.max(0,Math.min(steps-w,ax-(ax-v.x)*w/v.w));v.w=w;}apply();},{passive:false});"
    "var drag=null;lay.addEventListener('mousedown',function(e){drag={x:e.clientX,y:e.clientY,vx:P.v.x,vy:P.v.y};});"
    "window.addEventListener('mouseup',function(){drag=null;});"
    "window.addEventListener('mousemove',function(e){if(!drag)return;var v=P.v,r=lay.getBoundingClientRect();"
    "v.x=Math.max(0,Math.min(steps-v.w,drag.vx-(e.clientX-drag.x)*v.w/r.width));"
    "v.y=Math.max(-P.top,Math.min(-v.h,drag.vy-(e.clientY-drag.y)*v.h/r.height));apply();});"
    "lay.addEventListener('dblclick',reset);reset();});"
    "shared.addEventListener('change',function(){plans.forEach(function(P){P.reset();});});"
    "window.addEventListener('resize',function(){plans.forEach(function(P){P.reset();});});"
    "document.querySelectorAll('rect.buffer').forEach(function(r){"
    "r.addEventListener('mousemove',function(e){var d=r.dataset;tip.textContent=d.name+'\\n'+d.size+' B at offset '+d.offset+"
    "'\\nsteps '+d.first+' to '+d.last+(d.tier?'\\ntier '+d.tier:d.bin!=='0'?'\\nbin '+d.bin:'')+"
    "(d.about?'\\n'+d.about:'')+"
    "(r.classList.contains('at-peak')?'\\nlive at the peak':'');tip.style.display='block';"
    "tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px';});"
    "r.addEventListener('mouseleave',function(){tip.style.display='none';});});"
    "function check(){var bad=0,out=0,n=0;plans.forEach(function(P){var box=P.sec.getBoundingClientRect();"
    "P.sec.querySelectorAll('.yaxis,.xaxis').forEach(function(a){var prev=null;"
    "a.querySelectorAll('.tick').forEach(function(t){var r=t.getBoundingClientRect();n++;"
    "if(r.left<box.left-1||r.right>box.right+1||r.top<box.top-1||r.bottom>box.bottom+1)out++;"
    "if(prev&&!(r.left>=prev.right||r.right<=prev.left||r.top>=prev.bottom||r.bottom<=prev.top))bad++;prev=r;});});});"
    "return 'ticks='+n+' overlaps='+bad+' outside='+out;}"
    "if(location.hash==='#check'){var own=check();shared.checked=true;plans.forEach(function(P){P.reset();});"
    "document.body.dataset.check=own+'; shared '+check();}})();";

/* One plan's section: its buffers in `order` (the largest first, from profile_by_area; the same for every plan
 * of the trace), the first HTML_VIEW_MAX_BUFFERS of them drawn, address up (y = -address: the view box runs
 * from -top to 0), the peak's step as a band and the buffers live there outlined. */
static void append_plan(GString *s, const Trace *t, const Plan *plan, guint64 page_top, const char *const *about,
                        const guint *order, const PeakWitness *peak)
{
    guint n = trace_count(t), steps = MAX(t->steps, 1);
    guint64 top = MAX(plan->arena, 1);
    guint64 *base = profile_bin_bases(plan); /* each bin stacked on the ones below it */
    char *arena = sim_format_bytes(plan->arena), *bound = sim_format_bytes(plan->lower_bound);
    g_string_append(s, "<section class=\"plan\" data-strategy=\"");
    append_escaped(s, plan->strategy->name);
    g_string_append_printf(s, "\" data-top=\"%" G_GUINT64_FORMAT "\" data-steps=\"%u\"><h2>", top, steps);
    append_escaped(s, plan->strategy->name);
    g_string_append_printf(s, ": arena %s (lower bound %s)", arena, bound);
    g_string_append(s, "</h2>\n");
    g_free(arena);
    g_free(bound);
    guint shown = MIN(n, HTML_VIEW_MAX_BUFFERS);
    if (shown < n)
        g_string_append_printf(s, "<p class=\"note\">%u of %u buffers drawn: the largest (bytes × steps).</p>\n", shown, n);
    g_string_append_printf(s, "<div class=\"frame\"><div class=\"yaxis\"></div><svg class=\"layout\" viewBox=\"0 -%"
                           G_GUINT64_FORMAT " %u %" G_GUINT64_FORMAT "\" preserveAspectRatio=\"none\">\n", top, steps,
                           top);
    GHashTable *at_peak = g_hash_table_new(NULL, NULL);
    for (guint k = 0; peak && k < peak->bins->len; k++) {
        const PeakBin *p = &g_array_index(peak->bins, PeakBin, k);
        g_string_append_printf(s, "<rect class=\"peak\" data-step=\"%u\" data-bin=\"%u\" x=\"%u\" y=\"-%"
                               G_GUINT64_FORMAT
                               "\" width=\"1\" height=\"%" G_GUINT64_FORMAT "\"><title>the peak: %" G_GUINT64_FORMAT
                               " B live at step %u (the lower bound)</title></rect>\n", p->step, p->bin, p->step,
                               MAX(page_top, 1), MAX(page_top, 1), p->live, p->step);
        for (guint j = 0; j < p->buffers->len; j++)
            g_hash_table_add(at_peak, GUINT_TO_POINTER(g_array_index(p->buffers, PeakBuffer, j).buffer + 1));
    }
    for (guint k = 0; k < shown; k++) {
        guint id = order[k];
        const TraceBuffer *b = trace_buffer(t, id);
        guint64 y = base[b->bin] + plan->offsets[id];
        guint hue = g_str_hash(b->name) % 360;
        g_string_append_printf(s, "<rect class=\"buffer%s\" x=\"%u\" y=\"-%" G_GUINT64_FORMAT "\" width=\"%u\" height=\"%"
                               G_GUINT64_FORMAT "\" fill=\"hsl(%u,55%%,70%%)\" data-name=\"",
                               g_hash_table_contains(at_peak, GUINT_TO_POINTER(id + 1)) ? " at-peak" : "", b->first,
                               y + b->size, b->last - b->first + 1, b->size, hue);
        append_escaped(s, b->name);
        g_string_append_printf(s, "\" data-size=\"%" G_GUINT64_FORMAT "\" data-offset=\"%" G_GUINT64_FORMAT "\" data-first=\"%u\""
                               " data-last=\"%u\" data-bin=\"%u\"", b->size, plan->offsets[id], b->first, b->last, b->bin);
        if (t->tiers && b->bin < t->tiers->len) { /* a tier's lane: named (escaped, as every text here) */
            g_string_append(s, " data-tier=\"");
            append_escaped(s, trace_tier(t->tiers, b->bin)->name);
            g_string_append_c(s, '"');
        }
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
    g_hash_table_unref(at_peak);
    g_string_append(s, "</svg><div class=\"xaxis\"></div></div>\n");
    /* live (black) and spanned (blue) bytes per step, on the layout's scale */
    MemoryProfile profile;
    profile_compute(t, plan, &profile);
    GString *live = g_string_new(NULL), *spanned = g_string_new(NULL);
    for (guint k = 0; k < profile.steps; k++) {
        g_string_append_printf(live, "%u,-%" G_GUINT64_FORMAT " %u,-%" G_GUINT64_FORMAT " ", k, profile.live[k], k + 1,
                               profile.live[k]);
        g_string_append_printf(spanned, "%u,-%" G_GUINT64_FORMAT " %u,-%" G_GUINT64_FORMAT " ", k, profile.spanned[k],
                               k + 1, profile.spanned[k]);
    }
    g_string_append_printf(s, "<svg class=\"live\" viewBox=\"0 -%" G_GUINT64_FORMAT " %u %" G_GUINT64_FORMAT
                           "\" preserveAspectRatio=\"none\">"
                           "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" vector-effect=\"non-scaling-stroke\" "
                           "points=\"%s\"/><polyline class=\"live-bytes\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\" "
                           "vector-effect=\"non-scaling-stroke\" points=\"%s\"/></svg>\n",
                           top, steps, top, spanned->str, live->str);
    g_string_free(live, TRUE);
    g_string_free(spanned, TRUE);
    profile_clear(&profile);
    g_string_append(s, "</section>\n");
    g_free(base);
}

char *html_view_page(const char *title, const Trace *t, const Plan *const *plans, guint count,
                     const char *const *about)
{
    guint64 top = 0; /* the shared byte scale, when asked: the largest arena */
    for (guint k = 0; k < count; k++)
        top = MAX(top, plans[k]->arena);
    PeakWitness *peak = peak_witness_new(t, NULL, NULL, NULL);
    GString *s = g_string_new("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
    append_escaped(s, title);
    g_string_append_printf(s, "</title><style>%s</style></head><body data-top=\"%" G_GUINT64_FORMAT "\">\n<h1>", style,
                           MAX(top, 1));
    append_escaped(s, title);
    g_string_append_printf(s, "</h1>\n<p class=\"note\">%u buffers, %u steps. Each rectangle is a buffer: its steps"
                              " across, its"
                              " bytes up, each plan on its own byte scale. Hover for details; the wheel zooms the steps,"
                              " shift and the wheel the bytes, a drag pans, a double click resets. The red band is the"
                              " peak: the step where the most bytes are live (the lower bound), its buffers outlined in"
                              " red. Below each plan: the bytes live (black) and the bytes it spans (blue) per"
                              " step.</p>\n"
                              "<p class=\"note\"><label><input type=\"checkbox\" id=\"shared\"> one byte scale for"
                              " every plan (the largest arena)</label></p>\n<div class=\"plans\">\n", trace_count(t),
                           t->steps);
    guint *order = profile_by_area(t);
    for (guint k = 0; k < count; k++)
        append_plan(s, t, plans[k], top, about, order, peak);
    g_free(order);
    peak_witness_free(peak);
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
