/* qconv.c — the 8-bit 2-D convolution on AVX-512 VNNI (qconv.h). The input is read from one padded,
 * channel-blocked image: the tensor itself where it is blocked, unsigned and without padding, else a copy in the
 * work memory with x's zero point in the padding and its bytes flipped to unsigned where x is int8 (x + 128, its
 * zero point too: the differences, and so the sums, are the same); the copy of an input of 8 channels or fewer
 * holds 4 or 8 a position. Output positions are taken 6 at a time in row-major order (a block may cross a row:
 * each position keeps its own offset), so a row's width costs no tail. A depthwise convolution reads the same
 * image, each block of 16 channels against its own 16 channels' taps. */
#include "exec/kernels/qconv.h"

#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

enum { QC_LANES = 16, QC_BLOCKS = 4, QC_TILE = 6 }; /* channels a block; blocks a group; positions a tile */

struct KernelQconv {
    gint8 *w;      /* per group of QC_BLOCKS output blocks (nb of them): [cb][kh][kw][quad][nb][lane][4 bytes] */
    gint32 *dw;    /* depthwise (one channel a group): per block of 16 channels, [kh][kw][lane], or NULL */
    gint64 *wsum;  /* per output channel (whole blocks): the sum of its weights */
    gint64 m, c, kh, kw, cb, mb; /* output and input channels, the window, input and output blocks */
    gint64 ps;     /* input channels a block: 16, or 4 or 8 for an input of so few (an image's 3 colours: the
                      padding to 16 would be 5 times the work) */
};

gboolean kernel_qconv_supported(void)
{
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vnni");
#else
    return FALSE;
#endif
}

/* The bytes of one output channel's packed weights (the dense form). */
static gint64 channel_bytes(const KernelQconv *q)
{
    return q->cb * q->ps * q->kh * q->kw;
}

/* The depthwise form: each channel's taps as int32, 16 channels side by side. */
static KernelQconv *pack_depthwise(KernelQconv *q, const gint8 *w)
{
    gint64 taps = q->kh * q->kw;
    q->dw = g_try_new0(gint32, q->mb * taps * QC_LANES + 1);
    q->wsum = g_try_new0(gint64, q->mb * QC_LANES + 1);
    if (!q->dw || !q->wsum) {
        kernel_qconv_free(q);
        return NULL;
    }
    for (gint64 ch = 0; ch < q->m; ch++)
        for (gint64 t = 0; t < taps; t++) {
            q->dw[((ch / QC_LANES) * taps + t) * QC_LANES + ch % QC_LANES] = w[ch * taps + t];
            q->wsum[ch] += w[ch * taps + t];
        }
    return q;
}

KernelQconv *kernel_qconv_pack(const gint8 *w, gint64 m, gint64 c, gint64 group, gint64 kh, gint64 kw)
{
    KernelQconv *q = g_new0(KernelQconv, 1);
    if (group > 1) { /* depthwise: w is [m, 1, kh, kw], one channel a group */
        *q = (KernelQconv){.m = m, .c = m, .kh = kh, .kw = kw, .cb = (m + QC_LANES - 1) / QC_LANES,
                           .mb = (m + QC_LANES - 1) / QC_LANES, .ps = QC_LANES};
        return pack_depthwise(q, w);
    }
    gint64 ps = c <= 4 ? 4 : c <= 8 ? 8 : QC_LANES;
    *q = (KernelQconv){.m = m, .c = c, .kh = kh, .kw = kw, .cb = (c + ps - 1) / ps,
                       .mb = (m + QC_LANES - 1) / QC_LANES, .ps = ps};
    gint64 per = channel_bytes(q), taps = kh * kw;
    q->w = g_try_malloc0((gsize)(q->mb * QC_LANES * per) + 1);
    q->wsum = g_try_new0(gint64, q->mb * QC_LANES + 1);
    if (!q->w || !q->wsum) {
        kernel_qconv_free(q);
        return NULL;
    }
    for (gint64 g = 0; g * QC_BLOCKS < q->mb; g++) {
        gint64 nb = MIN(QC_BLOCKS, q->mb - g * QC_BLOCKS);
        gint8 *to = q->w + g * QC_BLOCKS * QC_LANES * per;
        for (gint64 b = 0; b < q->cb; b++)
            for (gint64 t = 0; t < taps; t++)
                for (gint64 quad = 0; quad < ps / 4; quad++)
                    for (gint64 j = 0; j < nb; j++)
                        for (gint64 lane = 0; lane < QC_LANES; lane++)
                            for (gint64 k = 0; k < 4; k++, to++) {
                                gint64 oc = (g * QC_BLOCKS + j) * QC_LANES + lane, ic = b * ps + quad * 4 + k;
                                *to = oc < m && ic < c ? w[(oc * c + ic) * taps + t] : 0;
                                q->wsum[oc] += *to;
                            }
    }
    return q;
}

void kernel_qconv_free(void *p)
{
    KernelQconv *q = p;
    if (!q)
        return;
    g_free(q->w);
    g_free(q->dw);
    g_free(q->wsum);
    g_free(q);
}

guint64 kernel_qconv_bytes(const KernelQconv *q)
{
    if (q->dw)
        return (guint64)(q->mb * q->kh * q->kw * QC_LANES) * sizeof(gint32) +
               (guint64)(q->mb * QC_LANES) * sizeof(gint64);
    return (guint64)(q->mb * QC_LANES * channel_bytes(q)) + (guint64)(q->mb * QC_LANES) * sizeof(gint64);
}

/* The work memory's parts, from a call and the packed weights. */
typedef struct {
    gint64 hp, wp;           /* the padded image read: rows and columns */
    gboolean copy;           /* x is copied (else read where it lies) */
    gsize image, out, table; /* bytes: the padded copy, the blocked output (y not blocked), the positions' offsets */
    gsize params;            /* per output channel (whole blocks): the sum's offset, int32, and the multiplier */
} Parts;

/* x's zero point as the kernel reads x: unsigned (an int8 x's bytes are flipped, x + 128). */
static gint64 zero_unsigned(const KernelQconvCall *call)
{
    return call->x_signed ? call->zx + 128 : call->zx;
}

static gsize up64(gsize n)
{
    return (n + 63) / 64 * 64;
}

static Parts parts_of(const KernelQconv *q, const KernelQconvCall *call)
{
    const Window *w = call->win;
    Parts p = {.hp = (w->oh - 1) * w->sh + (w->kh - 1) * w->dh + 1,
               .wp = (w->ow - 1) * w->sw + (w->kw - 1) * w->dw + 1};
    p.copy = !call->x_blocked || call->x_signed || w->pt || w->pl || p.hp > w->h || p.wp > w->w;
    if (!p.copy) { /* the tensor's own rows and columns */
        p.hp = w->h;
        p.wp = w->w;
    }
    p.image = p.copy ? up64((gsize)(q->cb * p.hp * p.wp * q->ps)) : 0;
    p.out = call->y_blocked ? 0 : up64((gsize)(q->mb * w->oh * w->ow * QC_LANES));
    p.table = up64((gsize)(w->oh * w->ow) * sizeof(gint64));
    p.params = up64((gsize)(q->mb * QC_LANES) * (sizeof(gint32) + sizeof(float)));
    return p;
}

gsize kernel_qconv_work_bytes(const KernelQconv *q, const KernelQconvCall *call)
{
    const Window *w = call->win;
    gint64 terms = (q->dw ? 1 : q->c) * q->kh * q->kw, zxu = zero_unsigned(call);
    if (w->c != q->c || w->kh != q->kh || w->kw != q->kw || w->oh < 1 || w->ow < 1 || w->n < 1 || terms > 33025 ||
        zxu < 0 || zxu > 255 || (call->x_blocked && q->c % QC_LANES) || (call->y_blocked && q->m % QC_LANES))
        return 0;
    gint64 room = G_MAXINT32 - (gint64)255 * 128 * terms; /* what the offsets may add to the raw sums */
    for (gint64 m = 0; m < q->m; m++) {
        gint64 off = (gint64)call->bias[m] - zxu * q->wsum[m];
        if (off > room || -off > room)
            return 0;
    }
    Parts p = parts_of(q, call);
    return p.image + p.out + p.table + p.params;
}

/* The shared state of a run's tiles. */
typedef struct {
    const KernelQconv *q;
    const KernelQconvCall *call;
    const guint8 *image;     /* the current image, padded and blocked: position stride q->ps */
    gint64 row, block;       /* its row and block strides (bytes) */
    const gint64 *table;     /* per output position: its window's first byte in the image */
    const gint32 *offset;    /* per output channel: the bias less x's zero point times the weights' sum */
    const float *multiplier; /* per output channel, whole blocks */
    guint8 *out;             /* the blocked output of the current image: block stride positions * 16 */
    gint64 positions;
} Run;

#if defined(__x86_64__)
#define QC_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))

/* The sums of block ob at position p, requantized (quantize_value in quantize.c, 16 at a time) and stored. */
static inline __attribute__((always_inline)) QC_TARGET void store(const Run *r, __m512i sums, gint64 ob, gint64 p)
{
    const KernelQconvCall *call = r->call;
    __m512 lo = _mm512_set1_ps(call->lo), hi = _mm512_set1_ps(call->hi), zero = _mm512_set1_ps(call->zero);
    __m512 magic = _mm512_set1_ps(0x1.8p23f);
    __m512i off = _mm512_loadu_si512((const void *)(r->offset + ob * QC_LANES));
    __m512 mul = _mm512_loadu_ps(r->multiplier + ob * QC_LANES);
    __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(sums, off)), mul);
    f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
    f = _mm512_add_ps(_mm512_sub_ps(_mm512_add_ps(f, magic), magic), zero);
    __m512i v = _mm512_cvtps_epi32(f);
    __m128i bytes = call->y_signed ? _mm512_cvtsepi32_epi8(v) : _mm512_cvtusepi32_epi8(v);
    _mm_storeu_si128((__m128i *)(void *)(r->out + (ob * r->positions + p) * QC_LANES), bytes);
}

/* t positions from position p0 by nb blocks of group g: the sums in registers (t * nb of them), then requantized. */
static inline __attribute__((always_inline)) QC_TARGET void tile(const Run *r, gint64 g, gint64 p0, int t, int nb)
{
    const KernelQconv *q = r->q;
    const gint8 *w = q->w + g * QC_BLOCKS * QC_LANES * channel_bytes(q);
    const Window *win = r->call->win;
    __m512i acc[QC_TILE][QC_BLOCKS];
    const guint8 *at[QC_TILE];
#pragma GCC unroll 8
    for (int i = 0; i < t; i++) {
        at[i] = r->image + r->table[p0 + i];
#pragma GCC unroll 8
        for (int j = 0; j < nb; j++)
            acc[i][j] = _mm512_setzero_si512();
    }
    for (gint64 b = 0; b < q->cb; b++)
        for (gint64 y = 0; y < q->kh; y++)
            for (gint64 x = 0; x < q->kw; x++) {
                gint64 tap = b * r->block + y * win->dh * r->row + x * win->dw * q->ps;
                for (int quad = 0; quad < q->ps / 4; quad++, w += nb * 64) {
                    __m512i wv[QC_BLOCKS];
#pragma GCC unroll 8
                    for (int j = 0; j < nb; j++)
                        wv[j] = _mm512_loadu_si512((const void *)(w + j * 64));
#pragma GCC unroll 8
                    for (int i = 0; i < t; i++) {
                        gint32 four;
                        memcpy(&four, at[i] + tap + quad * 4, 4);
                        __m512i xv = _mm512_set1_epi32(four);
#pragma GCC unroll 8
                        for (int j = 0; j < nb; j++)
                            acc[i][j] = _mm512_dpbusd_epi32(acc[i][j], xv, wv[j]);
                    }
                }
            }
#pragma GCC unroll 8
    for (int j = 0; j < nb; j++)
#pragma GCC unroll 8
        for (int i = 0; i < t; i++)
            store(r, acc[i][j], g * QC_BLOCKS + j, p0 + i);
}

/* Depthwise: t positions from p0 of block b, each channel's taps by int32 products (one channel a group: no
 * quad of channels to sum), then requantized. */
static inline __attribute__((always_inline)) QC_TARGET void tile_depthwise(const Run *r, gint64 b, gint64 p0, int t)
{
    const KernelQconv *q = r->q;
    const Window *win = r->call->win;
    const gint32 *w = q->dw + b * q->kh * q->kw * QC_LANES;
    const guint8 *at[QC_TILE];
    __m512i acc[QC_TILE];
#pragma GCC unroll 8
    for (int i = 0; i < t; i++) {
        at[i] = r->image + r->table[p0 + i] + b * r->block;
        acc[i] = _mm512_setzero_si512();
    }
    for (gint64 y = 0; y < q->kh; y++)
        for (gint64 x = 0; x < q->kw; x++, w += QC_LANES) {
            gint64 tap = y * win->dh * r->row + x * win->dw * QC_LANES;
            __m512i wv = _mm512_loadu_si512((const void *)w);
#pragma GCC unroll 8
            for (int i = 0; i < t; i++) {
                __m512i xv = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(at[i] + tap)));
                acc[i] = _mm512_add_epi32(acc[i], _mm512_mullo_epi32(xv, wv));
            }
        }
#pragma GCC unroll 8
    for (int i = 0; i < t; i++)
        store(r, acc[i], b, p0 + i);
}

/* tile() for t and nb known at compile time (each form keeps its sums in registers). */
#define QC_CASE(t, nb)                                                                                             \
    case (t) * 8 + (nb):                                                                                           \
        tile(r, g, p0, t, nb);                                                                                     \
        break;
#define QC_CASES(t) QC_CASE(t, 1) QC_CASE(t, 2) QC_CASE(t, 3) QC_CASE(t, 4)

static QC_TARGET void tile_of(const Run *r, gint64 g, gint64 p0, int t, int nb)
{
    if (r->q->dw) { /* (g: the block) */
        switch (t) {
        case 6: tile_depthwise(r, g, p0, 6); break;
        case 5: tile_depthwise(r, g, p0, 5); break;
        case 4: tile_depthwise(r, g, p0, 4); break;
        case 3: tile_depthwise(r, g, p0, 3); break;
        case 2: tile_depthwise(r, g, p0, 2); break;
        default: tile_depthwise(r, g, p0, 1); break;
        }
        return;
    }
    switch (t * 8 + nb) {
        QC_CASES(1) QC_CASES(2) QC_CASES(3) QC_CASES(4) QC_CASES(5) QC_CASES(6)
    default:
        break;
    }
}
#else
static void tile_of(const Run *r, gint64 g, gint64 p0, int t, int nb)
{
    (void)r, (void)g, (void)p0, (void)t, (void)nb;
}
#endif

/* kernel_parallel's part: tiles [begin, end) of every group of output blocks (depthwise: of every block). */
static void tiles(void *data, gint64 begin, gint64 end, guint part)
{
    (void)part;
    const Run *r = data;
    gint64 step = r->q->dw ? 1 : QC_BLOCKS;
    for (gint64 g = 0; g * step < r->q->mb; g++)
        for (gint64 k = begin; k < end; k++) {
            gint64 p0 = k * QC_TILE;
            tile_of(r, g, p0, (int)MIN(QC_TILE, r->positions - p0), (int)MIN(step, r->q->mb - g * step));
        }
}

/* 16 rows of 16 bytes (row r at from + r * stride, each byte xor flip) transposed into 16 rows at to (row c at
 * to + c * to_stride holds byte c of every row): four rounds of interleaving row i with row i + 8 (the perfect
 * shuffle; SSE2, the baseline). The layouts' changes of a row-major tensor go through it 256 bytes at a time. */
static void transpose_block(const guint8 *from, gsize stride, guint8 *to, gsize to_stride, guint8 flip)
{
#if defined(__x86_64__)
    __m128i m[16], t[16], f = _mm_set1_epi8((char)flip);
    for (int r = 0; r < 16; r++)
        m[r] = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(from + r * stride)), f);
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 8; i++) {
            t[2 * i] = _mm_unpacklo_epi8(m[i], m[i + 8]);
            t[2 * i + 1] = _mm_unpackhi_epi8(m[i], m[i + 8]);
        }
        memcpy(m, t, sizeof m);
    }
    for (int c = 0; c < 16; c++)
        _mm_storeu_si128((__m128i *)(void *)(to + c * to_stride), m[c]);
#else
    for (gsize r = 0; r < 16; r++)
        for (gsize c = 0; c < 16; c++)
            to[c * to_stride + r] = from[r * stride + c] ^ flip;
#endif
}

/* Image n of x into the padded, blocked copy: x's zero point (as unsigned) everywhere the image does not reach. */
static void copy_image(const KernelQconv *q, const KernelQconvCall *call, const Parts *p, gint64 n, guint8 *image)
{
    const Window *w = call->win;
    guint8 flip = call->x_signed ? 0x80 : 0, pad = (guint8)zero_unsigned(call);
    memset(image, pad, (gsize)(q->cb * p->hp * p->wp * q->ps));
    gint64 r0 = MAX(w->pt, 0), r1 = MIN(w->pt + w->h, p->hp), c0 = MAX(w->pl, 0), c1 = MIN(w->pl + w->w, p->wp);
    if (call->x_blocked) {
        const guint8 *x = (const guint8 *)call->x + n * q->cb * w->h * w->w * QC_LANES;
        for (gint64 b = 0; b < q->cb; b++)
            for (gint64 r = r0; r < r1; r++) {
                const guint8 *from = x + ((b * w->h + r - w->pt) * w->w + c0 - w->pl) * QC_LANES;
                guint8 *to = image + ((b * p->hp + r) * p->wp + c0) * QC_LANES;
                for (gint64 k = 0; k < (c1 - c0) * QC_LANES; k++)
                    to[k] = from[k] ^ flip;
            }
        return;
    }
    const guint8 *x = (const guint8 *)call->x + n * w->c * w->h * w->w;
    gint64 whole = q->ps == QC_LANES ? w->c / QC_LANES * QC_LANES : 0; /* channels in whole blocks of 16 */
    for (gint64 ch = 0; ch < whole; ch += QC_LANES) /* 16 channels by 16 columns at a time, transposed */
        for (gint64 r = r0; r < r1; r++) {
            const guint8 *from = x + (ch * w->h + r - w->pt) * w->w - w->pl;
            guint8 *to = image + ((ch / QC_LANES * p->hp + r) * p->wp) * QC_LANES;
            gint64 col = c0;
            for (; col + QC_LANES <= c1; col += QC_LANES)
                transpose_block(from + col, (gsize)(w->h * w->w), to + col * QC_LANES, QC_LANES, flip);
            for (; col < c1; col++)
                for (gint64 lane = 0; lane < QC_LANES; lane++)
                    to[col * QC_LANES + lane] = from[lane * w->h * w->w + col] ^ flip;
        }
    for (gint64 ch = whole; ch < w->c; ch++)
        for (gint64 r = r0; r < r1; r++) {
            const guint8 *from = x + (ch * w->h + r - w->pt) * w->w - w->pl;
            guint8 *to = image + ((ch / q->ps * p->hp + r) * p->wp) * q->ps + ch % q->ps;
            for (gint64 col = c0; col < c1; col++)
                to[col * q->ps] = from[col] ^ flip;
        }
}

void kernel_qconv_run(const KernelQconv *q, const KernelQconvCall *call, void *work)
{
    const Window *w = call->win;
    Parts p = parts_of(q, call);
    guint8 *image = work, *out = image + p.image;
    gint64 *table = (gint64 *)(void *)(out + p.out);
    gint32 *offset = (gint32 *)(void *)((guint8 *)table + p.table);
    float *multiplier = (float *)(offset + q->mb * QC_LANES);
    gint64 zxu = zero_unsigned(call), positions = w->oh * w->ow;
    for (gint64 m = 0; m < q->mb * QC_LANES; m++) {
        offset[m] = m < q->m ? (gint32)((gint64)call->bias[m] - zxu * q->wsum[m]) : 0;
        multiplier[m] = m < q->m ? call->multiplier[m] : 0;
    }
    gint64 row = p.wp * q->ps, block = p.hp * row;
    for (gint64 oh = 0, k = 0; oh < w->oh; oh++)
        for (gint64 ow = 0; ow < w->ow; ow++, k++)
            table[k] = oh * w->sh * row + ow * w->sw * q->ps;
    Run r = {.q = q, .call = call, .row = row, .block = block, .table = table, .offset = offset,
             .multiplier = multiplier, .positions = positions};
    for (gint64 n = 0; n < w->n; n++) {
        if (p.copy) {
            copy_image(q, call, &p, n, image);
            r.image = image;
        } else {
            r.image = (const guint8 *)call->x + n * q->cb * block;
        }
        guint8 *y = (guint8 *)call->y + n * q->m * positions;
        r.out = call->y_blocked ? y : out;
        kernel_parallel((positions + QC_TILE - 1) / QC_TILE, 8, tiles, &r);
        if (call->y_blocked)
            continue;
        for (gint64 m0 = 0; m0 < q->m; m0 += QC_LANES) { /* the blocked output, row-major */
            const guint8 *from = out + m0 * positions;
            gint64 k = 0;
            for (; m0 + QC_LANES <= q->m && k + QC_LANES <= positions; k += QC_LANES) /* 16 by 16, transposed */
                transpose_block(from + k * QC_LANES, QC_LANES, y + m0 * positions + k, (gsize)positions, 0);
            for (gint64 m = m0; m < MIN(m0 + QC_LANES, q->m); m++)
                for (gint64 j = m0 + QC_LANES <= q->m ? k : 0; j < positions; j++)
                    y[m * positions + j] = from[j * QC_LANES + m - m0];
        }
    }
}
