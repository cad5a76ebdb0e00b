/* search-memo.c — the exact search's memo of failed states: keys of (range, skyline, units still to
 * place) in an open-addressing table. */
#include "strategies/search/search.h"

static inline guint64 rotl64(guint64 x, guint r) { return (x << r) | (x >> (64 - r)); }

guint64 search_mix64(guint64 x) /* splitmix64's finaliser */
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Transposition memo: the state of a range — its steps, their skyline, the units still to place there —
 * decides whether it can be completed (the candidate order only changes how fast), so a state that failed
 * once (searched to the end, not stopped by the budget) is not searched again: the same state is reached
 * again whenever two placements can be made in either order (a stack of two units in one column, two
 * regions filled in turn). Keys are 64-bit hashes: a collision would hide a placement (never make a wrong
 * one: every plan is verified) and could make an exhaustive proof claim too much; with at most 1.5M keys
 * stored and a few million looked up per search the odds are below one in a million. Failures found with
 * coarse raises are keyed apart: they prove nothing. */
guint64 search_state_key(const Search *s, guint lo, guint hi)
{
    /* The skyline in four independent lanes (so the multiplies overlap), each step an XXH64-style round
     * (add times a prime, rotate, times a prime), the lanes folded through search_mix64. */
    const guint64 p1 = 0x9e3779b185ebca87ULL, p2 = 0xc2b2ae3d27d4eb4fULL;
    guint64 lane[4] = {search_mix64(((guint64)lo << 32) | hi), p1, p2, s->exact_raises ? 0x5bd1e9955bd1e995ULL : 1};
    const guint64 *h = s->h;
    /* With it, in the same pass, the unplaced units living in the range: those starting in it (a range is a part,
     * or a piece cut where no unplaced unit crosses, so none of them ends past it), kept per step by
     * search_count_unplaced */
    const guint64 *starting = s->start_keys;
    guint64 units = 0;
    guint t = lo;
    for (; t + 4 <= hi; t += 4)
        for (guint k = 0; k < 4; k++) {
            lane[k] = rotl64(lane[k] + h[t + k] * p2, 31) * p1;
            units ^= starting[t + k];
        }
    for (; t < hi; t++) {
        lane[0] = rotl64(lane[0] + h[t] * p2, 31) * p1;
        units ^= starting[t];
    }
    guint64 key = search_mix64(search_mix64(search_mix64(lane[0] ^ lane[1]) ^ lane[2]) ^ lane[3]) ^ units;
    return key ? key : 1;
}

gboolean search_failed_before(const Search *s, guint64 key)
{
    if (!s->failed)
        return FALSE;
    for (guint i = (guint)key & (s->failed_slots - 1); s->failed[i]; i = (i + 1) & (s->failed_slots - 1))
        if (s->failed[i] == key)
            return TRUE;
    return FALSE;
}

void search_remember_failed(Search *s, guint64 key)
{
    if (s->failed_count >= s->failed_slots / 4 * 3)
        return;
    if (!s->failed)
        s->failed = g_new0(guint64, s->failed_slots);
    guint i = (guint)key & (s->failed_slots - 1);
    while (s->failed[i] && s->failed[i] != key)
        i = (i + 1) & (s->failed_slots - 1);
    if (!s->failed[i]) {
        s->failed[i] = key;
        s->failed_count++;
    }
}
