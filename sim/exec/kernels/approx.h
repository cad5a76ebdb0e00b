/* approx.h — exp and erf in float for the kernels' hot loops: branch-free inline code the compiler
 * vectorises (glibc's expf and erff are calls, one element at a time). Used by Softmax, Exp, Sigmoid, Tanh,
 * and Erf. Accuracy (tests/test-exec.c, /exec/approx, against double exp and erf): exp relative error
 * below 1e-7 over [-87, 88.5] (Cephes' polynomial after reducing by ln 2 in two parts); erf absolute
 * error below 4e-7 and relative below 1e-6 over [-10, 10] (a series near 0, Abramowitz & Stegun 7.1.26
 * beyond |x| = 0.5). NaN
 * gives NaN; exp of -inf or below -87.3 is 0, of +inf or above 88.7 is +inf. No undefined behaviour on any
 * input: the power of two is built from a float's bits, never by converting a float to an int. */
#ifndef SIM_KERNEL_APPROX_H
#define SIM_KERNEL_APPROX_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* exp of c, clamped to [-87.3365, 88.7228] (NaN passes through), as p times 2^n: p returned, n and 2^n (when
 * n <= 127) in *n and *scale. */
static inline float approx_exp_parts(float c, float *n_out, float *scale_out)
{
    /* n = round(c / ln 2) through the 1.5 * 2^23 trick: m's low mantissa bits hold n */
    float m = c * 1.44269504088896341f + 12582912.0f;
    float n = m - 12582912.0f;
    float r = c - n * 0.693359375f - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    uint32_t bits;
    memcpy(&bits, &m, 4);
    uint32_t scale_bits = (bits - 0x4B400000u + 127u) << 23; /* 2^n; n in [-126, 128] after the clamp */
    memcpy(scale_out, &scale_bits, 4);
    *n_out = n;
    return p;
}

static inline float approx_exp(float x)
{
    const float hi = 88.7228f, lo = -87.3365f;
    float n, scale, p = approx_exp_parts(x > hi ? hi : x < lo ? lo : x, &n, &scale);
    float y = n > 127.5f ? p * 2.0f * 1.70141183e38f : p * scale; /* 2^128 overflows the exponent: two steps */
    y = x < lo ? 0.0f : y;
    return x > hi ? INFINITY : y;
}

/* approx_exp for x <= 0 (or NaN): Softmax's differences from the row's maximum. The steps that only matter
 * above 0 (the upper clamp, the two-step power of two past 2^127, +inf) are left out; for every such x the
 * others compute what approx_exp computes, bit for bit. */
static inline float approx_exp_nonpositive(float x)
{
    const float lo = -87.3365f;
    float n, scale, p = approx_exp_parts(x < lo ? lo : x, &n, &scale);
    (void)n;
    return x < lo ? 0.0f : p * scale;
}

static inline float approx_erf(float x)
{
    float a = fabsf(x);
    /* near 0: 2/sqrt(pi) (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320) */
    float x2 = x * x;
    float series = x * (1.1283791671f + x2 * (-0.3761263890f + x2 * (0.1128379167f + x2 * (-0.0268661706f +
                   x2 * (0.0052239776f + x2 * -0.0008548327f)))));
    /* beyond: 1 - (a1 t + ... + a5 t^5) e^(-x^2), t = 1 / (1 + p |x|) */
    float t = 1.0f / (1.0f + 0.3275911f * a);
    float poly = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
    float tail = 1.0f - poly * approx_exp(-x2);
    tail = x < 0.0f ? -tail : tail;
    /* NaN gives x itself: the NaN the arithmetic makes of it has a sign that depends on which operand order the
     * compiler chose, which differs between this form and a vectorised one (AVX2 gave -nan). The choices are
     * selects one after the other, not one chain of ternaries: GCC compiled the chain into branches and left the
     * array loop scalar (27,648 elements took 0.29 ms, twenty times exp's 0.015). */
    float sign = x > 0.0f ? 1.0f : -1.0f;
    float r = a > 9.0f ? sign : tail;
    r = a < 0.5f ? series : r;
    return x != x ? x : r;
}

/* The same two, four lanes at a time (GCC's vector extensions, SSE2 on x86-64), for arrays: the same
 * operations in the same order as above, so each element gets the scalar form's value to the bit whichever
 * path computes it. Selects are masks, as the scalar ternaries are comparisons (false for NaN). */
typedef float approx_v4 __attribute__((vector_size(16)));
typedef int32_t approx_m4 __attribute__((vector_size(16)));
typedef uint32_t approx_u4 __attribute__((vector_size(16)));

static inline approx_v4 approx_select(approx_m4 mask, approx_v4 yes, approx_v4 no)
{
    return (approx_v4)((mask & (approx_m4)yes) | (~mask & (approx_m4)no));
}

static inline approx_v4 approx_exp_v4(approx_v4 x)
{
    const approx_v4 hi = {88.7228f, 88.7228f, 88.7228f, 88.7228f}, lo = {-87.3365f, -87.3365f, -87.3365f, -87.3365f};
    approx_m4 over = x > hi, under = x < lo;
    approx_v4 c = approx_select(over, hi, approx_select(under, lo, x));
    approx_v4 m = c * 1.44269504088896341f + 12582912.0f;
    approx_v4 n = m - 12582912.0f;
    approx_v4 r = c - n * 0.693359375f - n * -2.12194440e-4f;
    approx_v4 p = r * 1.9875691500e-4f + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    approx_u4 scale_bits = (((approx_u4)m - 0x4B400000u) + 127u) << 23;
    approx_v4 y = approx_select(n > 127.5f, p * 2.0f * 1.70141183e38f, p * (approx_v4)scale_bits);
    const approx_v4 zero = {0, 0, 0, 0}, inf = {INFINITY, INFINITY, INFINITY, INFINITY};
    y = approx_select(under, zero, y);
    return approx_select(over, inf, y);
}

static inline approx_v4 approx_erf_v4(approx_v4 x)
{
    approx_v4 a = (approx_v4)((approx_m4)x & 0x7fffffff);
    approx_v4 x2 = x * x;
    approx_v4 series = x * (1.1283791671f + x2 * (-0.3761263890f + x2 * (0.1128379167f + x2 * (-0.0268661706f +
                       x2 * (0.0052239776f + x2 * -0.0008548327f)))));
    approx_m4 small = a < 0.5f;
    if (small[0] && small[1] && small[2] && small[3]) /* all four near 0 (common in activations): the series alone */
        return series;
    approx_m4 nan = x != x;
    approx_v4 t = 1.0f / (1.0f + 0.3275911f * a);
    approx_v4 poly = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
    approx_v4 tail = 1.0f - poly * approx_exp_v4(-x2);
    const approx_v4 zero = {0, 0, 0, 0}, one = {1, 1, 1, 1};
    tail = approx_select(x < zero, -tail, tail);
    approx_v4 sign = approx_select(x > zero, one, -one);
    return approx_select(nan, x, approx_select(a < 0.5f, series, approx_select(a > 9.0f, sign, tail)));
}

/* out[k] = f(in[k]) over an array (in and out may be the same): `vec` four lanes at a time, `scalar` for
 * the rest — a vector form and its scalar form above, so every element gets the same bits either way. */
static inline void approx_map(const float *in, float *out, size_t n, approx_v4 (*vec)(approx_v4), float (*scalar)(float))
{
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        approx_v4 v;
        memcpy(&v, in + k, sizeof v);
        v = vec(v);
        memcpy(out + k, &v, sizeof v);
    }
    for (; k < n; k++)
        out[k] = scalar(in[k]);
}

#endif
