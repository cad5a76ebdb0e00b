/* gap-use.c — the unit classes that decide which gaps are usable (see gap-use.h). */
#include "plan/gap-use.h"

void gap_use_init(GapUse *g, const GArray *units)
{
    g->count = 0;
    g->smallest_any = units && units->len ? G_MAXUINT64 : 0;
    for (guint u = 0; units && u < units->len; u++) {
        const PlaceUnit *unit = &g_array_index(units, PlaceUnit, u);
        guint k = 0;
        while (k < g->count && g->align[k] != unit->align)
            k++;
        if (k == GAP_USE_CLASSES) { /* more alignments than a trace allows (powers of two below 2^57) */
            g->smallest_any = 0;
            g->count = 1;
            g->align[0] = 1;
            g->smallest[0] = 0;
            return;
        }
        if (k == g->count) {
            g->align[k] = unit->align;
            g->smallest[k] = G_MAXUINT64;
            g->count++;
        }
        g->smallest[k] = MIN(g->smallest[k], unit->size);
        g->smallest_any = MIN(g->smallest_any, unit->size);
    }
}
