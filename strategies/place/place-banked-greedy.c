/* place-banked-greedy.c — ExecuTorch's memory planner rebuilt as a baseline: its `greedy` (exir's
 * memory_planning.py) on one arena, and with tiers its `banked_greedy` (ExecuTorch PR 21821, "a capacity-aware
 * memory planner over a target memory map"), from their descriptions and acceptance cases:
 *
 * - Buffers go largest first (the size as given, before alignment; ties: the later buffer first, as a sorted
 *   insert then a reversal orders them), each into a *shared object*: the first object (in creation order) at
 *   least its size none of whose buffers overlaps it in time, at offset 0; else the first object where it fits
 *   above every buffer there that overlaps it (at the highest end among them) within the object's size; else a
 *   new object of its size. Objects never grow; they are laid out one after another in creation order.
 * - With tiers (banks, fastest first, each with a capacity): buffers held to one tier first, then the rest, each
 *   in order into the first tier it may use where it fits: joining an existing object costs nothing, a new
 *   object must keep the tier's objects within its capacity. A buffer that fits nowhere fails the plan, naming
 *   it and the tiers. With one tier the plan is greedy's, offset for offset.
 *
 * Sizes are rounded up to each buffer's alignment (ExecuTorch has one global alignment), an object starts at a
 * multiple of the largest alignment of all, and a buffer above others in an object at a multiple of its
 * own. Pinned offsets, which ExecuTorch's planner has none of, are kept, and their
 * bank's objects laid out above the highest of them (as exir reserves a submodule's bytes). Each buffer scans
 * every object and its members (exir: "TODO: do better than linear scan"; an object whose span of steps misses the
 * buffer is passed over without its members), so it grows as n^2: a baseline for models, refused above
 * BANKED_GREEDY_MAX units (200,000 random buffers took 30 s). */
#include "plan/place.h"
#include "base/error.h"
#include "trace/trace-tiers.h"

#include <stdlib.h>
#include <string.h>

#define BANKED_GREEDY_MAX 100000u

typedef struct {
    guint unit;
    guint64 offset; /* within its object */
} Member;

typedef struct {
    guint64 size, start; /* start: where materialisation put it */
    guint first, last;   /* the steps its members span (exir's first_used_index, last_used_index) */
    GArray *members;     /* Member */
} SharedObject;

typedef struct {
    GPtrArray *objects; /* SharedObject*, in creation order */
    guint64 total;      /* the objects laid out one after another */
    guint64 align;      /* every object starts at a multiple of the problem's largest alignment */
} Bank;

static void object_free(gpointer data)
{
    SharedObject *o = data;
    g_array_unref(o->members);
    g_free(o);
}

static guint64 aligned_size(const PlaceUnit *u) { return round_up(u->size, u->align); }

/* exir's pick_shared_obj without changing anything: the object (index) and offset the unit would take, or -1
 * for a new object. */
static gint pick(const PlaceProblem *p, const Bank *bank, guint unit, guint64 *offset)
{
    const PlaceUnit *u = &g_array_index(p->units, PlaceUnit, unit);
    guint64 size = aligned_size(u);
    for (guint k = 0; k < bank->objects->len; k++) {
        const SharedObject *o = bank->objects->pdata[k];
        gboolean free_of_it = o->size >= size; /* largest first, every object fits it; a pin placed first may not */
        gboolean apart = u->last < o->first || o->last < u->first; /* outside its span: no member to meet */
        for (guint m = 0; free_of_it && !apart && m < o->members->len; m++) {
            guint member = g_array_index(o->members, Member, m).unit;
            free_of_it = !place_units_meet(u, &g_array_index(p->units, PlaceUnit, member));
        }
        if (free_of_it) {
            *offset = 0;
            return (gint)k;
        }
    }
    for (guint k = 0; k < bank->objects->len; k++) {
        const SharedObject *o = bank->objects->pdata[k];
        guint64 top = 0;
        if (u->last < o->first || o->last < u->first || o->size < size)
            continue; /* nothing there meets it (top 0), or it cannot fit above anything */
        for (guint m = 0; m < o->members->len; m++) {
            const Member *x = &g_array_index(o->members, Member, m);
            const PlaceUnit *xu = &g_array_index(p->units, PlaceUnit, x->unit);
            if (place_units_meet(u, xu))
                top = MAX(top, x->offset + aligned_size(xu));
        }
        top = round_up(top, u->align);
        if (top > 0 && top + size <= o->size) {
            *offset = top;
            return (gint)k;
        }
    }
    return -1;
}

/* Where a new object of the unit would leave the bank's total. */
static guint64 grown_total(const Bank *bank, const PlaceUnit *u)
{
    return round_up(bank->total, bank->align) + aligned_size(u);
}

static void take(const PlaceProblem *p, Bank *bank, guint unit, gint object, guint64 offset)
{
    const PlaceUnit *u = &g_array_index(p->units, PlaceUnit, unit);
    SharedObject *o;
    if (object < 0) {
        o = g_new0(SharedObject, 1);
        o->size = aligned_size(u);
        o->members = g_array_new(FALSE, FALSE, sizeof(Member));
        o->first = u->first;
        o->last = u->last;
        o->start = round_up(bank->total, bank->align);
        bank->total = o->start + o->size;
        g_ptr_array_add(bank->objects, o);
    } else {
        o = bank->objects->pdata[object];
        o->first = MIN(o->first, u->first);
        o->last = MAX(o->last, u->last);
    }
    Member m = {unit, offset};
    g_array_append_val(o->members, m);
}

/* exir's order: a sorted insert by size, ascending, then reversed: largest first, ties the later unit first. */
static int by_size(const void *x, const void *y, void *data)
{
    const PlaceProblem *p = data;
    guint a = *(const guint *)x, b = *(const guint *)y;
    guint64 sa = g_array_index(p->units, PlaceUnit, a).size, sb = g_array_index(p->units, PlaceUnit, b).size;
    return sa > sb ? -1 : sa < sb ? 1 : (a < b) - (a > b);
}

static const char *tier_name(const PlaceProblem *p, guint k)
{
    return p->tiers ? trace_tier(p->tiers->tiers, k)->name : "arena";
}

static guint64 tier_capacity(const PlaceProblem *p, guint k)
{
    return p->tiers ? trace_tier(p->tiers->tiers, k)->capacity : G_MAXUINT64;
}

/* The plan over `count` banks (1 without tiers): tiers[u] and offsets[u] written. */
static gboolean banked(const PlaceProblem *p, guint count, guint *tiers, guint64 *offsets, GError **error)
{
    guint n = p->units->len;
    if (n > BANKED_GREEDY_MAX) {
        g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "banked-greedy: %u units: ExecuTorch's planner scans "
                    "every shared object's buffers for each buffer (n^2); rebuilt here for up to %u", n,
                    BANKED_GREEDY_MAX);
        return FALSE;
    }
    guint *order = g_new(guint, n + 1), placing = 0;
    Bank *banks = g_new0(Bank, count);
    guint64 align = 1;
    for (guint u = 0; u < n; u++)
        align = MAX(align, g_array_index(p->units, PlaceUnit, u).align);
    for (guint k = 0; k < count; k++) {
        banks[k].objects = g_ptr_array_new_with_free_func(object_free);
        banks[k].align = align;
    }
    /* pinned offsets (ExecuTorch has none): kept, and the bank's objects laid out above them, as exir lays out a
     * bank above the bytes a control-flow submodule reserved (input_mem_buffer_sizes) */
    for (guint u = 0; u < n; u++) {
        const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
        if (unit->fixed == TRACE_NONE) {
            order[placing++] = u;
            continue;
        }
        guint k = p->tiers ? MIN(tiers[u], count - 1) : 0;
        banks[k].total = MAX(banks[k].total, (guint64)unit->fixed + unit->size);
        offsets[u] = (guint64)unit->fixed;
    }
    g_qsort_with_data(order, (gint)placing, sizeof(guint), by_size, (gpointer)p);
    gboolean ok = TRUE;
    /* units held to one tier first (ExecuTorch's pins: a mem_id a pass assigned), then the rest */
    for (guint pass = 0; ok && pass < 2; pass++)
        for (guint i = 0; ok && i < placing; i++) {
            guint u = order[i];
            guint32 allowed = p->tiers ? p->tiers->allowed[u] : 1u;
            gboolean pinned = !(allowed & (allowed - 1));
            if (pinned != (pass == 0))
                continue;
            const PlaceUnit *unit = &g_array_index(p->units, PlaceUnit, u);
            gboolean placed = FALSE;
            for (guint k = 0; !placed && k < count; k++) {
                if (!(allowed & (1u << k)))
                    continue;
                guint64 offset = 0;
                gint object = pick(p, &banks[k], u, &offset);
                if (object < 0 && grown_total(&banks[k], unit) > tier_capacity(p, k))
                    continue;
                take(p, &banks[k], u, object, offset);
                tiers[u] = k;
                placed = TRUE;
            }
            if (!placed) {
                GString *where = g_string_new(NULL);
                for (guint k = 0; k < count; k++)
                    if (allowed & (1u << k))
                        g_string_append_printf(where, "%s%s (%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                                               " bytes taken)", where->len ? ", " : "", tier_name(p, k),
                                               banks[k].total, tier_capacity(p, k));
                g_set_error(error, SIM_ERROR, SIM_ERROR_UNSUPPORTED, "banked-greedy: unit %u of %" G_GUINT64_FORMAT
                            " bytes fits in no tier it may use%s: %s", u, aligned_size(unit),
                            pinned && count > 1 ? " (pinned to one tier, no fallback tier)" : "", where->str);
                g_string_free(where, TRUE);
                ok = FALSE;
            }
        }
    for (guint k = 0; ok && k < count; k++)
        for (guint o = 0; o < banks[k].objects->len; o++) {
            const SharedObject *obj = banks[k].objects->pdata[o];
            for (guint m = 0; m < obj->members->len; m++) {
                const Member *x = &g_array_index(obj->members, Member, m);
                offsets[x->unit] = obj->start + x->offset;
            }
        }
    for (guint k = 0; k < count; k++)
        g_ptr_array_unref(banks[k].objects);
    g_free(banks);
    g_free(order);
    return ok;
}

static gboolean banked_plan(const PlaceProblem *p, guint64 *offsets, char **detail, GError **error)
{
    (void)detail;
    guint *tiers = g_new0(guint, p->units->len + 1);
    gboolean ok = banked(p, 1, tiers, offsets, error);
    g_free(tiers);
    return ok;
}

static gboolean banked_plan_tiers(const PlaceProblem *p, guint *tiers, guint64 *offsets, char **detail, GError **error)
{
    (void)detail;
    return banked(p, p->tiers->count, tiers, offsets, error);
}

const PlaceStrategy place_banked_greedy = {
    .name = "banked-greedy",
    .summary = "ExecuTorch's greedy (largest first into shared objects); with --tiers its banked_greedy: the fastest "
               "tier that holds a buffer, spilling down",
    .kind = PLACE_OFFLINE,
    .role = ROLE_RUNTIME,
    .plan = banked_plan,
    .plan_tiers = banked_plan_tiers,
};
