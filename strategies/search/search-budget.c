/* search-budget.c — the exact searches' budget (strategies/search/place-search.c, search-sections.c): the node
 * and time limits, the undo stacks' memory, a stop request (SIGINT), and the progress line printed about once
 * a second. */
#include "strategies/search/search.h"

/* One line of progress, at most once a second: the best arena so far, the bound it is chasing, the node
 * rate. */
static void progress(Search *s, gint64 now)
{
    const PlaceOptions *o = s->p->options;
    if (!o->progress || now < s->next_progress)
        return;
    double elapsed = (double)(now - s->start) / G_USEC_PER_SEC;
    double rate = (double)(s->nodes - s->nodes_at_last) / ((double)(now - s->next_progress) / G_USEC_PER_SEC + 1.0);
    char *line = g_strdup_printf("search: %.1f s, best %" G_GUINT64_FORMAT " B, lower bound %" G_GUINT64_FORMAT
                                 " B (gap %.2f%%), trying %" G_GUINT64_FORMAT " B, %" G_GUINT64_FORMAT " nodes, %.0f nodes/s",
                                 elapsed, s->best, s->bound,
                                 s->bound ? 100.0 * (double)(s->best - s->bound) / (double)s->bound : 0.0, s->target,
                                 s->nodes, rate);
    o->progress(line);
    g_free(line);
    s->nodes_at_last = s->nodes;
    s->next_progress = now + G_USEC_PER_SEC;
}

/* What the undo stacks hold, in bytes (their room, as allocated). */
static gsize stack_bytes(const Search *s)
{
    gsize bytes = (gsize)s->peak_undo_cap * sizeof(PeakChange) + (gsize)s->raises_cap * sizeof(Raise);
    if (s->candidates)
        bytes += g_array_get_element_size(s->candidates) * s->candidates->len +
                 g_array_get_element_size(s->moved) * s->moved->len + sizeof(guint64) * s->skyline_undo->len;
    return bytes;
}

gboolean search_budget_left(Search *s)
{
    if (s->max_nodes && s->nodes >= s->max_nodes)
        s->out_of_budget = TRUE;
    else if (G_UNLIKELY(stack_bytes(s) > search_stacks_max(s)))
        s->out_of_budget = s->stacks_full = TRUE;
    else if ((s->nodes & s->clock_mask) == 0) {
        gint64 now = g_get_monotonic_time();
        if (now > s->deadline)
            s->out_of_budget = TRUE;
        if (place_stop_requested(s->p->options))
            s->out_of_budget = s->interrupted = TRUE;
        progress(s, now);
    }
    return !s->out_of_budget;
}
