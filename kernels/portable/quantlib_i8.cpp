// QuantLib's integer operators (tessera/kernels_quantlib.h): the elementwise ones,
// iRMSNorm, RoPE as a matrix and the attention's passes.
#include "kernel_checks.h"
#include "tessera/kernels_quantlib.h"

namespace {

bool within_i8(const tsr_rqs_params *r) { return r && tsr_rqs_valid(r) && r->lo >= -128 && r->hi <= 127; }

} // namespace

tsr_kernel_status tsr_requant_i8(const int8_t *x, int8_t *y, uint32_t count, const tsr_rqs_params *r, uint32_t core_id,
                                 uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(x && y && count && within_i8(r));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(count, core_id, core_count, &begin, &end);
    const tsr_rqs_prepared p = tsr_rqs_prepare(r);
    for (uint32_t i = begin; i < end; ++i) y[i] = (int8_t)tsr_rqs_apply(&p, x[i]);
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_add_i8_rqs(const tsr_add_i8_rqs_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(a && a->a && a->b && a->y && a->count && within_i8(a->rqs_a) && within_i8(a->rqs_b) &&
                       within_i8(a->rqs_y));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    const tsr_rqs_prepared pa = tsr_rqs_prepare(a->rqs_a), pb = tsr_rqs_prepare(a->rqs_b);
    const tsr_rqs_prepared py = tsr_rqs_prepare(a->rqs_y);
    for (uint32_t i = begin; i < end; ++i)
        a->y[i] = (int8_t)tsr_rqs_apply(&py, tsr_rqs_apply(&pa, a->a[i]) + tsr_rqs_apply(&pb, a->b[i]));
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_hardswish_i8(const tsr_hardswish_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(a && a->gate && a->up && a->y && a->count && within_i8(a->rqs_act) && within_i8(a->rqs_y));
    TSR_KERNEL_REQUIRE(a->three >= 0 && a->three <= 32768 && a->six >= 0 && a->six <= 32768 && a->one_over_six >= 0 &&
                       a->one_over_six <= 32768);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    uint32_t begin, end;
    tsr_core_range(a->count, core_id, core_count, &begin, &end);
    // |h| <= 128 six one_over_six (<= 2^37): in 32 bits where that bound allows.
    const bool narrow = (int64_t)128 * a->six * a->one_over_six < ((int64_t)1 << 31);
    const tsr_rqs_prepared act = tsr_rqs_prepare(a->rqs_act), out = tsr_rqs_prepare(a->rqs_y);
    for (uint32_t i = begin; i < end; ++i) {
        const int32_t g = a->gate[i], c = g + a->three;
        const int32_t gate = c < 0 ? 0 : c > a->six ? a->six : c;
        const int32_t h = narrow ? tsr_rqs_apply(&act, g * (gate * a->one_over_six))
                                 : tsr_rqs((int64_t)g * (gate * a->one_over_six), a->rqs_act); // gate x one_over_six <= 2^30
        a->y[i] = (int8_t)tsr_rqs_apply(&out, h * a->up[i]);
    }
    return TSR_KERNEL_OK;
}

uint32_t tsr_isqrt_u32(uint32_t v)
{
    uint32_t root = 0, bit = 1u << 30;
    while (bit > v) bit >>= 2;
    while (bit) {
        if (v >= root + bit) {
            v -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    return root;
}

tsr_kernel_status tsr_irmsnorm_i8(const tsr_irmsnorm_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(a && a->x && a->w && a->y && a->rows && a->dim && a->dim <= 16384u && a->log2_d >= 0 &&
                       a->log2_d <= 31 && a->lo <= a->hi && a->lo >= -128 && a->hi <= 127);
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    for (uint32_t i = 0; i < a->dim; ++i) TSR_KERNEL_REQUIRE(a->w[i] > -(1 << 24) && a->w[i] < (1 << 24));
    uint32_t begin, end;
    tsr_core_range(a->rows, core_id, core_count, &begin, &end);
    for (uint32_t r = begin; r < end; ++r) {
        const int8_t *x = a->x + (size_t)r * a->dim;
        int8_t *y = a->y + (size_t)r * a->dim;
        uint32_t sum = 0; // <= 16384 x 128^2 = 2^28
        for (uint32_t i = 0; i < a->dim; ++i) sum += (uint32_t)(x[i] * x[i]);
        const int32_t std = (int32_t)tsr_isqrt_u32(sum / a->dim + 1u); // >= 1
        for (uint32_t i = 0; i < a->dim; ++i) {
            const int32_t q = x[i] * a->w[i] / std; // |x w| < 2^31; C's division truncates
            const int32_t v = q >> a->log2_d;       // arithmetic: floor
            y[i] = (int8_t)(v < a->lo ? a->lo : v > a->hi ? a->hi : v);
        }
    }
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_rope_matrix_i8(const tsr_rope_matrix_i8_args *a, uint32_t core_id, uint32_t core_count)
{
    TSR_KERNEL_REQUIRE(a && a->q && a->k && a->rotation && a->rows && a->head_size && a->head_size <= 64u &&
                       a->dim % a->head_size == 0u && a->kv_dim % a->head_size == 0u && a->dim && a->kv_dim &&
                       within_i8(a->rqs_q) && within_i8(a->rqs_k));
    TSR_KERNEL_REQUIRE_CORE(core_id, core_count);
    const uint32_t hs = a->head_size, qh = a->dim / hs, heads = qh + a->kv_dim / hs;
    uint32_t begin, end;
    tsr_core_range(a->rows * heads, core_id, core_count, &begin, &end);
    const tsr_rqs_prepared pq = tsr_rqs_prepare(a->rqs_q), pk = tsr_rqs_prepare(a->rqs_k);
    for (uint32_t item = begin; item < end; ++item) {
        const uint32_t r = item / heads, h = item % heads;
        const bool in_q = h < qh;
        int8_t *x = in_q ? a->q + (size_t)r * a->dim + (size_t)h * hs : a->k + (size_t)r * a->kv_dim + (size_t)(h - qh) * hs;
        const int8_t *m = a->rotation + (size_t)r * hs * hs;
        int32_t in[64];
        for (uint32_t i = 0; i < hs; ++i) in[i] = x[i];
        for (uint32_t j = 0; j < hs; ++j) {
            int32_t s = 0;
            for (uint32_t i = 0; i < hs; ++i) s += in[i] * m[i * hs + j];
            x[j] = (int8_t)tsr_rqs_apply(in_q ? &pq : &pk, s);
        }
    }
    return TSR_KERNEL_OK;
}

tsr_quantlib_attention_layout tsr_quantlib_attention_scratch_layout(uint32_t context, uint32_t head_size)
{
    tsr_quantlib_attention_layout l;
    const uint32_t row = (context + 3u) & ~3u;
    l.probs = row;
    l.exps = 2u * row;
    l.acc = l.exps + 4u * context;
    l.bytes = l.acc + 4u * head_size;
    return l;
}

bool tsr_quantlib_attention_valid(const tsr_quantlib_attention *t, uint32_t context)
{
    if (!t || !within_i8(&t->scores) || !within_i8(&t->out) || t->levels < 1 || t->levels > 255 || !context ||
        context > TSR_QUANTLIB_MAX_CONTEXT || t->exp[0] <= 0) // the row's maximum always counts: the sum is positive
        return false;
    for (uint32_t i = 0; i < 256u; ++i)
        if (t->exp[i] < 0 || t->exp[i] > TSR_QUANTLIB_MAX_EXP) return false;
    return true;
}

namespace {

// u[j] for positions [0, visible) through the visible table, the rest through the masked
// one. The usual head sizes (HS) keep q in registers (u may alias it, as far as the
// compiler knows); HS 0 loops over head_size.
template <uint32_t HS>
void scores(const int8_t *q, const int8_t *keys, int8_t *u, uint32_t count, uint32_t head_size, uint32_t visible,
            const tsr_rqs_prepared &r, const tsr_quantlib_attention *t)
{
    const int8_t *table = t->visible + 128; // indexed by the int8 score: -128..127
    const uint32_t hs = HS ? HS : head_size;
    int32_t qv[HS ? HS : 1];
    for (uint32_t i = 0; i < HS; ++i) qv[i] = q[i];
    for (uint32_t j = 0; j < count; ++j, keys += hs) {
        if (j == visible) table = t->masked + 128;
        int32_t dot = 0;
        if (HS) {
#pragma GCC unroll 16
            for (uint32_t i = 0; i < HS; ++i) dot += qv[i] * keys[i];
        } else {
            for (uint32_t i = 0; i < head_size; ++i) dot += q[i] * keys[i];
        }
        u[j] = table[tsr_rqs_apply(&r, dot)];
    }
}

// acc[i] += sum_j probs[j] values[j][i]: the head's sums in registers for the usual head
// sizes; a position whose probability is 0 (mostly the masked ones) adds nothing.
template <uint32_t HS>
void accumulate(const int8_t *probs, const int8_t *values, int32_t *acc, uint32_t count)
{
    int32_t a[HS];
    for (uint32_t i = 0; i < HS; ++i) a[i] = acc[i];
    for (uint32_t j = 0; j < count; ++j, values += HS) {
        const int32_t p = probs[j];
        if (!p) continue;
#pragma GCC unroll 16
        for (uint32_t i = 0; i < HS; ++i) a[i] += p * values[i];
    }
    for (uint32_t i = 0; i < HS; ++i) acc[i] = a[i];
}

void accumulate_any(const int8_t *probs, const int8_t *values, int32_t *acc, uint32_t count, uint32_t head_size)
{
    for (uint32_t j = 0; j < count; ++j, values += head_size) {
        const int32_t p = probs[j];
        if (!p) continue;
        for (uint32_t i = 0; i < head_size; ++i) acc[i] += p * values[i];
    }
}

} // namespace

tsr_kernel_status tsr_quantlib_scores(const int8_t *q, const int8_t *keys, int8_t *u, uint32_t count, uint32_t head_size,
                                      uint32_t first, uint32_t row_pos, const tsr_quantlib_attention *t)
{
    TSR_KERNEL_REQUIRE(q && keys && u && t && head_size && within_i8(&t->scores));
    // The scores lie within int8 (within_i8): the tables' range.
    const tsr_rqs_prepared r = tsr_rqs_prepare(&t->scores);
    const uint32_t visible = row_pos < first ? 0u : row_pos - first + 1u < count ? row_pos - first + 1u : count;
    if (head_size == 4u) scores<4>(q, keys, u, count, head_size, visible, r, t);
    else if (head_size == 8u) scores<8>(q, keys, u, count, head_size, visible, r, t);
    else scores<0>(q, keys, u, count, head_size, visible, r, t);
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_quantlib_softmax(const int8_t *u, int8_t *probs, int32_t *exps, uint32_t n,
                                       const tsr_quantlib_attention *t)
{
    TSR_KERNEL_REQUIRE(u && probs && exps && n && n <= TSR_QUANTLIB_MAX_CONTEXT && t && t->levels >= 1 &&
                       t->levels <= 255 && t->exp[0] > 0);
    int32_t max = u[0];
    for (uint32_t j = 1; j < n; ++j) max = u[j] > max ? u[j] : max;
    uint32_t sum = 0; // n x 2^20 <= 2^31
    for (uint32_t j = 0; j < n; ++j) {
        const int32_t e = t->exp[max - u[j]]; // 0..255
        TSR_KERNEL_REQUIRE((uint32_t)e <= (uint32_t)TSR_QUANTLIB_MAX_EXP); // the table is data
        sum += (uint32_t)(exps[j] = e);
    }
    // sum >= exp[0] > 0 (the maximum's own), and e <= sum: the index is at most levels.
    const uint32_t levels = (uint32_t)t->levels;
    for (uint32_t j = 0; j < n; ++j) probs[j] = t->prob[(uint32_t)exps[j] * levels / sum];
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_quantlib_accumulate(const int8_t *probs, const int8_t *values, int32_t *acc, uint32_t count,
                                          uint32_t head_size)
{
    TSR_KERNEL_REQUIRE(probs && values && acc && head_size);
    if (head_size == 4u) accumulate<4>(probs, values, acc, count);
    else if (head_size == 8u) accumulate<8>(probs, values, acc, count);
    else accumulate_any(probs, values, acc, count, head_size);
    return TSR_KERNEL_OK;
}

tsr_kernel_status tsr_quantlib_output(const int32_t *acc, int8_t *y, uint32_t head_size, const tsr_quantlib_attention *t)
{
    TSR_KERNEL_REQUIRE(acc && y && head_size && t && within_i8(&t->out));
    const tsr_rqs_prepared r = tsr_rqs_prepare(&t->out);
    for (uint32_t i = 0; i < head_size; ++i) y[i] = (int8_t)tsr_rqs_apply(&r, acc[i]);
    return TSR_KERNEL_OK;
}

namespace {

// tsr_quantlib_rows over keys and values `stride` bytes apart (a head's column of several
// heads' rows), a row at a time as the kernels above (the scores, the softmax over them,
// the weighted sum from zero, the output); the one-after-the-other case never comes here.
tsr_kernel_status rows_strided(const tsr_quantlib_rows_args *a, uint32_t stride)
{
    const tsr_quantlib_attention *t = a->t;
    TSR_KERNEL_REQUIRE(a->q && a->y && a->scratch && ((uintptr_t)a->scratch & 3u) == 0u && a->rows && a->n &&
                       a->n <= TSR_QUANTLIB_MAX_CONTEXT && stride >= a->head_size && a->keys && a->values && t &&
                       a->head_size && within_i8(&t->scores));
    const tsr_rqs_prepared rs = tsr_rqs_prepare(&t->scores);
    const uint32_t n = a->n, hs = a->head_size;
    const tsr_quantlib_attention_layout l = tsr_quantlib_attention_scratch_layout(n, hs);
    int8_t *const u = (int8_t *)a->scratch, *const probs = (int8_t *)(a->scratch + l.probs);
    int32_t *const exps = (int32_t *)(void *)(a->scratch + l.exps), *const acc = (int32_t *)(void *)(a->scratch + l.acc);
    for (uint32_t r = 0; r < a->rows; ++r) {
        const int8_t *q = a->q + (size_t)r * a->q_stride;
        const uint32_t row_pos = a->row_pos + r * a->pos_step;
        for (uint32_t j = 0; j < n; ++j) {
            const int8_t *k = a->keys + (size_t)j * stride;
            int32_t dot = 0;
            for (uint32_t i = 0; i < hs; ++i) dot += q[i] * k[i];
            u[j] = (j <= row_pos ? t->visible : t->masked)[128 + tsr_rqs_apply(&rs, dot)];
        }
        tsr_kernel_status st = tsr_quantlib_softmax(u, probs, exps, n, t);
        for (uint32_t i = 0; i < hs; ++i) acc[i] = 0;
        for (uint32_t j = 0; st == TSR_KERNEL_OK && j < n; ++j) {
            const int8_t *v = a->values + (size_t)j * stride;
            for (uint32_t i = 0; i < hs; ++i) acc[i] += probs[j] * v[i];
        }
        if (st == TSR_KERNEL_OK) st = tsr_quantlib_output(acc, a->y + (size_t)r * a->y_stride, hs, t);
        if (st != TSR_KERNEL_OK) return st;
    }
    return TSR_KERNEL_OK;
}

} // namespace

tsr_kernel_status tsr_quantlib_rows(const tsr_quantlib_rows_args *a)
{
    if (a && a->kv_stride && a->kv_stride != a->head_size) return rows_strided(a, a->kv_stride);
    TSR_KERNEL_REQUIRE(a && a->q && a->y && a->scratch && ((uintptr_t)a->scratch & 3u) == 0u && a->rows && a->n &&
                       a->n <= TSR_QUANTLIB_MAX_CONTEXT);
    const tsr_quantlib_attention_layout l = tsr_quantlib_attention_scratch_layout(a->n, a->head_size);
    int8_t *const u = (int8_t *)a->scratch, *const probs = (int8_t *)(a->scratch + l.probs);
    int32_t *const exps = (int32_t *)(void *)(a->scratch + l.exps), *const acc = (int32_t *)(void *)(a->scratch + l.acc);
    for (uint32_t r = 0; r < a->rows; ++r) {
        tsr_kernel_status st = tsr_quantlib_scores(a->q + (size_t)r * a->q_stride, a->keys, u, a->n, a->head_size, 0u,
                                                   a->row_pos + r * a->pos_step, a->t);
        if (st == TSR_KERNEL_OK) st = tsr_quantlib_softmax(u, probs, exps, a->n, a->t);
        for (uint32_t i = 0; i < a->head_size; ++i) acc[i] = 0;
        if (st == TSR_KERNEL_OK) st = tsr_quantlib_accumulate(probs, a->values, acc, a->n, a->head_size);
        if (st == TSR_KERNEL_OK) st = tsr_quantlib_output(acc, a->y + (size_t)r * a->y_stride, a->head_size, a->t);
        if (st != TSR_KERNEL_OK) return st;
    }
    return TSR_KERNEL_OK;
}
