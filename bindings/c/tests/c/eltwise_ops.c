/* bcast_eltwise: every op of the op table by its code, any operand count, against values
 * written here from each op's definition (ONNX's and OpenVINO's operator specs): Sum, Mean,
 * Max and Min over 1 to 16 operands against a naive numpy-rule loop; FakeQuantize's formula
 * per channel; ONNX Pow with an exponent of another type; the bitwise and shift ops, PRelu's
 * two rules, ONNX Mod/Div, Select. Values are small integers or exact binary fractions, so
 * every comparison is bit for bit. Then bcast_eltwise_shape_n, and the errors, each a
 * status. */
#include <math.h>

#include "ref.h"

#define MAXN 16
#define R 4

/* The output shape of `n` shapes under the numpy rule (right-aligned, per axis equal or 1),
 * 0 when they clash. */
static int numpy_shape(size_t n, const size_t (*shapes)[R], const size_t *ranks, size_t *out,
                       size_t *rout) {
    size_t r = 0;
    for (size_t i = 0; i < n; i++) r = ranks[i] > r ? ranks[i] : r;
    for (size_t k = 0; k < r; k++) out[k] = 1;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < ranks[i]; j++) {
            size_t k = r - ranks[i] + j, d = shapes[i][j];
            if (d == 1) continue;
            if (out[k] != 1 && out[k] != d) return 0;
            out[k] = d;
        }
    *rout = r;
    return 1;
}

/* The flat index into an operand of shape s (rank rs) that output index `flat` of shape o
 * (rank ro) reads under the numpy rule. */
static size_t numpy_index(size_t flat, const size_t *o, size_t ro, const size_t *s, size_t rs) {
    size_t idx[R], src = 0;
    for (size_t k = ro; k-- > 0;) {
        idx[k] = flat % o[k];
        flat /= o[k];
    }
    for (size_t j = 0; j < rs; j++) src = src * s[j] + (s[j] == 1 ? 0 : idx[ro - rs + j]);
    return src;
}

static void shape_ptrs(size_t n, const size_t (*shapes)[R], const size_t **ptrs) {
    for (size_t i = 0; i < n; i++) ptrs[i] = shapes[i];
}

/* Sum, Mean, Max, Min of n = 1..16 random f64 operands of random compatible shapes. */
static void variadic(void) {
    const int ops[4] = {BCAST_OP_SUM, BCAST_OP_MEAN, BCAST_OP_MAX, BCAST_OP_MIN};
    for (int round = 0; round < 64; round++) {
        size_t n = 1 + (size_t)round % MAXN;
        int op = ops[round % 4];
        size_t r = rnd_below(R + 1), full[R];
        for (size_t k = 0; k < r; k++) full[k] = 1 + rnd_below(3);
        size_t shapes[MAXN][R], ranks[MAXN];
        double data[MAXN][81];
        const void *inputs[MAXN];
        const size_t *sp[MAXN];
        bcast_dtype dtypes[MAXN];
        for (size_t i = 0; i < n; i++) {
            ranks[i] = rnd_below(r + 1);
            for (size_t j = 0; j < ranks[i]; j++)
                shapes[i][j] = rnd_below(3) ? full[r - ranks[i] + j] : 1;
            size_t len = ref_count(shapes[i], ranks[i]);
            /* small integers: every sum is exact; the mean of n is exact when n divides
             * it, so Mean's operands are multiples of n */
            for (size_t e = 0; e < len; e++)
                data[i][e] = (double)((int)rnd_below(41) - 20) * (op == BCAST_OP_MEAN ? (double)n : 1.0);
            inputs[i] = data[i];
            dtypes[i] = BCAST_DTYPE_F64;
        }
        shape_ptrs(n, (const size_t(*)[R])shapes, sp);
        size_t out_shape[R], rout = 0;
        CHECK(numpy_shape(n, (const size_t(*)[R])shapes, ranks, out_shape, &rout), "shapes");
        size_t len = ref_count(out_shape, rout);
        double out[81], want[81];
        for (size_t e = 0; e < len; e++) {
            double acc = data[0][numpy_index(e, out_shape, rout, shapes[0], ranks[0])];
            for (size_t i = 1; i < n; i++) {
                double x = data[i][numpy_index(e, out_shape, rout, shapes[i], ranks[i])];
                if (op == BCAST_OP_SUM || op == BCAST_OP_MEAN) acc += x;
                else if (op == BCAST_OP_MAX) acc = x > acc ? x : acc;
                else acc = x < acc ? x : acc;
            }
            want[e] = op == BCAST_OP_MEAN ? acc / (double)n : acc;
            out[e] = -12345.0;
        }
        size_t got_shape[R], got_rank = 99;
        int st = bcast_eltwise_shape_n((bcast_eltwise_op)op, n, sp, ranks, BCAST_AB_NUMPY, -1,
                                       got_shape, R, &got_rank);
        CHECK(st == BCAST_OK && got_rank == rout &&
                  memcmp(got_shape, out_shape, rout * sizeof(size_t)) == 0,
              "shape_n: status %d rank %zu (%s)", st, got_rank, bcast_last_error_message());
        st = bcast_eltwise((bcast_eltwise_op)op, n, dtypes, inputs, sp, ranks, BCAST_AB_NUMPY,
                           -1, 0, out, 81, 1);
        CHECK(st == BCAST_OK, "op %d of %zu: status %d (%s)", op, n, st,
              bcast_last_error_message());
        for (size_t e = 0; e < len; e++)
            CHECK(out[e] == want[e], "op %d of %zu operands, element %zu: %g, want %g", op, n,
                  e, out[e], want[e]);
    }
}

/* OpenVINO FakeQuantize: x <= min(il, ih): ol; x > max(il, ih): oh; else
 * round((x - il) / (ih - il) * (levels - 1)) / (levels - 1) * (oh - ol) + ol. Per channel
 * (axis 1 of [1,2,3]): limits of shape [1,2,1]. */
static void fake_quantize(void) {
    const float x[6] = {-1.0f, 1.0f, 2.25f, 0.5f, 3.5f, 9.0f};
    const float il[2] = {0.0f, 0.0f}, ih[2] = {4.0f, 8.0f}, ol[2] = {0.0f, -1.0f},
                oh[2] = {8.0f, 1.0f};
    const size_t xs[3] = {1, 2, 3}, ls[3] = {1, 2, 1};
    const size_t *shapes[5] = {xs, ls, ls, ls, ls};
    const size_t ranks[5] = {3, 3, 3, 3, 3};
    const void *inputs[5] = {x, il, ih, ol, oh};
    const bcast_dtype dtypes[5] = {BCAST_DTYPE_F32, BCAST_DTYPE_F32, BCAST_DTYPE_F32,
                                   BCAST_DTYPE_F32, BCAST_DTYPE_F32};
    const int64_t levels = 5;
    float out[6], want[6];
    for (int e = 0; e < 6; e++) {
        int c = e / 3;
        float lo = il[c], hi = ih[c];
        if (x[e] <= lo) want[e] = ol[c];
        else if (x[e] > hi) want[e] = oh[c];
        else
            want[e] = roundf((x[e] - lo) / (hi - lo) * (float)(levels - 1)) / (float)(levels - 1) *
                          (oh[c] - ol[c]) + ol[c];
    }
    int st = bcast_eltwise(BCAST_OP_FAKE_QUANTIZE, 5, dtypes, inputs, shapes, ranks,
                           BCAST_AB_NUMPY, -1, levels, out, 6, 0);
    CHECK(st == BCAST_OK, "fake_quantize: %d (%s)", st, bcast_last_error_message());
    for (int e = 0; e < 6; e++)
        CHECK(out[e] == want[e], "fake_quantize[%d] = %g, want %g", e, out[e], want[e]);
    /* levels is FakeQuantize's alone, and 2 or more */
    st = bcast_eltwise(BCAST_OP_FAKE_QUANTIZE, 5, dtypes, inputs, shapes, ranks, BCAST_AB_NUMPY,
                       -1, 1, out, 6, 0);
    CHECK(st == BCAST_ERR_INVALID, "levels 1: %d", st);
    st = bcast_eltwise(BCAST_OP_FAKE_QUANTIZE, 5, dtypes, inputs, shapes, ranks, BCAST_AB_NUMPY,
                       -1, -7, out, 6, 0);
    CHECK(st == BCAST_ERR_INVALID, "levels -7: %d", st);
    /* under numpy the limits stretch onto x, never x onto a limit */
    const size_t big[3] = {2, 2, 3};
    const size_t *grown[5] = {xs, big, ls, ls, ls};
    st = bcast_eltwise(BCAST_OP_FAKE_QUANTIZE, 5, dtypes, inputs, grown, ranks, BCAST_AB_NUMPY,
                       -1, levels, out, 6, 0);
    CHECK(st == BCAST_ERR_SHAPE, "a limit growing x: %d", st);
}

/* Two-operand ops through bcast_eltwise, each against its definition. */
static void binary_ops(void) {
    /* ONNX Pow, base f32 [2,3], exponent i64 [3]: base ** exponent, base's type out. */
    {
        const float base[6] = {2.0f, -3.0f, 0.5f, 4.0f, 1.5f, -2.0f};
        const int64_t expo[3] = {3, 2, -1};
        const size_t bs[2] = {2, 3}, es[1] = {3};
        const size_t *shapes[2] = {bs, es};
        const size_t ranks[2] = {2, 1};
        const void *inputs[2] = {base, expo};
        const bcast_dtype dtypes[2] = {BCAST_DTYPE_F32, BCAST_DTYPE_I64};
        float out[6];
        int st = bcast_eltwise(BCAST_OP_ONNX_POW, 2, dtypes, inputs, shapes, ranks,
                               BCAST_AB_NUMPY, -1, 0, out, 6, 1);
        CHECK(st == BCAST_OK, "onnx_pow f32 ** i64: %d (%s)", st, bcast_last_error_message());
        for (int e = 0; e < 6; e++) {
            float want = powf(base[e], (float)expo[e % 3]);
            CHECK(out[e] == want, "onnx_pow[%d] = %g, want %g", e, out[e], want);
        }
    }
    /* ONNX Pow, base i32, exponent u8 */
    {
        const int32_t base[4] = {2, -3, 7, 0};
        const uint8_t expo[1] = {3};
        const size_t bs[1] = {4}, es[1] = {1};
        const size_t *shapes[2] = {bs, es};
        const size_t ranks[2] = {1, 1};
        const void *inputs[2] = {base, expo};
        const bcast_dtype dtypes[2] = {BCAST_DTYPE_I32, BCAST_DTYPE_U8};
        int32_t out[4];
        int st = bcast_eltwise(BCAST_OP_ONNX_POW, 2, dtypes, inputs, shapes, ranks,
                               BCAST_AB_NUMPY, -1, 0, out, 4, 1);
        CHECK(st == BCAST_OK, "onnx_pow i32 ** u8: %d (%s)", st, bcast_last_error_message());
        for (int e = 0; e < 4; e++)
            CHECK(out[e] == base[e] * base[e] * base[e], "onnx_pow i32[%d] = %d", e, out[e]);
    }
    /* Integer ops on i32 [2,3] with [3]: each code, the formula beside it. */
    const int32_t a[6] = {-7, 7, 12, -12, 5, -1};
    const int32_t b[3] = {2, -2, 5};
    const size_t as[2] = {2, 3}, bs[1] = {3};
    const size_t *shapes[2] = {as, bs};
    const size_t ranks[2] = {2, 1};
    const void *inputs[2] = {a, b};
    const bcast_dtype dtypes[2] = {BCAST_DTYPE_I32, BCAST_DTYPE_I32};
    int32_t out[6];
    const int codes[7] = {BCAST_OP_BITWISE_AND,  BCAST_OP_BITWISE_OR, BCAST_OP_BITWISE_XOR,
                          BCAST_OP_ONNX_MOD,     BCAST_OP_ONNX_FMOD,  BCAST_OP_ONNX_DIV,
                          BCAST_OP_PRELU};
    for (int c = 0; c < 7; c++) {
        int st = bcast_eltwise((bcast_eltwise_op)codes[c], 2, dtypes, inputs, shapes, ranks,
                               BCAST_AB_NUMPY, -1, 0, out, 6, 1);
        CHECK(st == BCAST_OK, "code %d: %d (%s)", codes[c], st, bcast_last_error_message());
        for (int e = 0; e < 6; e++) {
            int32_t x = a[e], y = b[e % 3], want = 0;
            switch (codes[c]) {
            case BCAST_OP_BITWISE_AND: want = x & y; break;
            case BCAST_OP_BITWISE_OR: want = x | y; break;
            case BCAST_OP_BITWISE_XOR: want = x ^ y; break;
            case BCAST_OP_ONNX_MOD: /* fmod = 0: the sign of the divisor */
                want = x % y;
                if (want != 0 && ((want < 0) != (y < 0))) want += y;
                break;
            case BCAST_OP_ONNX_FMOD: want = x % y; break; /* the sign of the dividend */
            case BCAST_OP_ONNX_DIV: want = x / y; break;  /* truncated */
            case BCAST_OP_PRELU: want = x < 0 ? x * y : x; break;
            }
            CHECK(out[e] == want, "code %d: f(%d, %d) = %d, want %d", codes[c], x, y, out[e],
                  want);
        }
    }
    /* Shifts on u16: OpenVINO's and ONNX's, by amounts inside the width. */
    {
        const uint16_t x[4] = {1, 0x8001, 0x00f0, 0xffff};
        const uint16_t s[2] = {3, 4};
        const size_t xs[2] = {2, 2}, ss[1] = {2};
        const size_t *sh[2] = {xs, ss};
        const size_t rk[2] = {2, 1};
        const void *in[2] = {x, s};
        const bcast_dtype dt[2] = {BCAST_DTYPE_U16, BCAST_DTYPE_U16};
        const int shifts[4] = {BCAST_OP_BITWISE_LEFT_SHIFT, BCAST_OP_BITWISE_RIGHT_SHIFT,
                               BCAST_OP_BIT_SHIFT, BCAST_OP_BIT_SHIFT_RIGHT};
        for (int c = 0; c < 4; c++) {
            uint16_t o[4];
            int st = bcast_eltwise((bcast_eltwise_op)shifts[c], 2, dt, in, sh, rk,
                                   BCAST_AB_NUMPY, -1, 0, o, 4, 1);
            CHECK(st == BCAST_OK, "shift %d: %d (%s)", shifts[c], st, bcast_last_error_message());
            for (int e = 0; e < 4; e++) {
                int left = shifts[c] == BCAST_OP_BITWISE_LEFT_SHIFT || shifts[c] == BCAST_OP_BIT_SHIFT;
                uint16_t want = left ? (uint16_t)(x[e] << s[e % 2]) : (uint16_t)(x[e] >> s[e % 2]);
                CHECK(o[e] == want, "shift %d [%d] = %u, want %u", shifts[c], e, o[e], want);
            }
        }
    }
    /* PRelu's two rules, x f32 [2,3,2]: OpenVINO puts a slope of 3 = x's axis 1 on axis 1;
     * ONNX stretches a slope [2] onto x's last axis. */
    {
        float x[12], out12[12];
        for (int e = 0; e < 12; e++) x[e] = (float)(e - 6);
        const float slope3[3] = {0.5f, 2.0f, -1.0f}, slope2[2] = {0.25f, 4.0f};
        const size_t xs[3] = {2, 3, 2}, s3[1] = {3}, s2[1] = {2};
        const size_t rk[2] = {3, 1};
        const bcast_dtype dt[2] = {BCAST_DTYPE_F32, BCAST_DTYPE_F32};
        const size_t *sh_ov[2] = {xs, s3}, *sh_onnx[2] = {xs, s2};
        const void *in_ov[2] = {x, slope3}, *in_onnx[2] = {x, slope2};
        int st = bcast_eltwise(BCAST_OP_PRELU, 2, dt, in_ov, sh_ov, rk, BCAST_AB_NUMPY, -1, 0,
                               out12, 12, 1);
        CHECK(st == BCAST_OK, "prelu: %d (%s)", st, bcast_last_error_message());
        for (int e = 0; e < 12; e++) {
            float s = slope3[(e / 2) % 3];
            float want = x[e] < 0 ? x[e] * s : x[e];
            CHECK(out12[e] == want, "prelu[%d] = %g, want %g", e, out12[e], want);
        }
        st = bcast_eltwise(BCAST_OP_ONNX_PRELU, 2, dt, in_onnx, sh_onnx, rk, BCAST_AB_NUMPY, -1,
                           0, out12, 12, 1);
        CHECK(st == BCAST_OK, "onnx_prelu: %d (%s)", st, bcast_last_error_message());
        for (int e = 0; e < 12; e++) {
            float s = slope2[e % 2];
            float want = x[e] < 0 ? x[e] * s : x[e];
            CHECK(out12[e] == want, "onnx_prelu[%d] = %g, want %g", e, out12[e], want);
        }
        /* the ONNX rule does not put a slope of 3 on axis 1 */
        st = bcast_eltwise(BCAST_OP_ONNX_PRELU, 2, dt, in_ov, sh_ov, rk, BCAST_AB_NUMPY, -1, 0,
                           out12, 12, 1);
        CHECK(st == BCAST_ERR_SHAPE, "onnx_prelu with a channel slope: %d", st);
        size_t shape[R], rank = 0;
        st = bcast_eltwise_shape_n(BCAST_OP_PRELU, 2, sh_ov, rk, BCAST_AB_NUMPY, -1, shape, R,
                                   &rank);
        CHECK(st == BCAST_OK && rank == 3 && shape[0] == 2 && shape[1] == 3 && shape[2] == 2,
              "prelu shape: %d rank %zu", st, rank);
    }
}

/* Select through bcast_eltwise: operands cond (BOOL), then, else. */
static void select_op(void) {
    const uint8_t cond[2] = {1, 0};
    const int16_t then_[6] = {1, 2, 3, 4, 5, 6};
    const int16_t else_[3] = {-1, -2, -3};
    const size_t cs[2] = {2, 1}, ts[2] = {2, 3}, es[1] = {3};
    const size_t *shapes[3] = {cs, ts, es};
    const size_t ranks[3] = {2, 2, 1};
    const void *inputs[3] = {cond, then_, else_};
    const bcast_dtype dtypes[3] = {BCAST_DTYPE_BOOL, BCAST_DTYPE_I16, BCAST_DTYPE_I16};
    int16_t out[6];
    int st = bcast_eltwise(BCAST_OP_SELECT, 3, dtypes, inputs, shapes, ranks, BCAST_AB_NUMPY, -1,
                           0, out, 6, 1);
    CHECK(st == BCAST_OK, "select: %d (%s)", st, bcast_last_error_message());
    for (int e = 0; e < 6; e++) {
        int16_t want = cond[e / 3] ? then_[e] : else_[e % 3];
        CHECK(out[e] == want, "select[%d] = %d, want %d", e, out[e], want);
    }
}

/* Every bad argument is a status. */
static void errors(void) {
    const float a[2] = {1.0f, 2.0f};
    const double d[2] = {1.0, 2.0};
    const size_t s2[1] = {2}, s3[1] = {3};
    const size_t *shapes[3] = {s2, s2, s2};
    const size_t ranks[3] = {1, 1, 1};
    const void *inputs[3] = {a, a, a};
    const bcast_dtype f32s[3] = {BCAST_DTYPE_F32, BCAST_DTYPE_F32, BCAST_DTYPE_F32};
    float out[2];
    size_t shape[R], rank;
#define EXPECT(status, call)                                                                  \
    do {                                                                                      \
        int st_ = (call);                                                                     \
        CHECK(st_ == (status), "%s: %d, want %d (%s)", #call, st_, (status),                  \
              bcast_last_error_message());                                                    \
        CHECK(st_ == BCAST_OK || strlen(bcast_last_error_message()) > 0, "no message");      \
    } while (0)
    /* unknown codes */
    EXPECT(BCAST_ERR_INVALID, bcast_eltwise((bcast_eltwise_op)1000, 2, f32s, inputs, shapes,
                                            ranks, BCAST_AB_NUMPY, -1, 0, out, 2, 1));
    EXPECT(BCAST_ERR_INVALID, bcast_eltwise(BCAST_OP_ADD, 2, f32s, inputs, shapes, ranks,
                                            (bcast_auto_broadcast)7, -1, 0, out, 2, 1));
    const bcast_dtype bad_dtype[2] = {(bcast_dtype)99, BCAST_DTYPE_F32};
    EXPECT(BCAST_ERR_INVALID, bcast_eltwise(BCAST_OP_ADD, 2, bad_dtype, inputs, shapes, ranks,
                                            BCAST_AB_NUMPY, -1, 0, out, 2, 1));
    /* operand counts */
    EXPECT(BCAST_ERR_INVALID, bcast_eltwise(BCAST_OP_ADD, 3, f32s, inputs, shapes, ranks,
                                            BCAST_AB_NUMPY, -1, 0, out, 2, 1));
    EXPECT(BCAST_ERR_INVALID, bcast_eltwise(BCAST_OP_SUM, 0, NULL, NULL, NULL, NULL,
                                            BCAST_AB_NUMPY, -1, 0, out, 2, 1));
    EXPECT(BCAST_ERR_INVALID, bcast_eltwise(BCAST_OP_FAKE_QUANTIZE, 3, f32s, inputs, shapes,
                                            ranks, BCAST_AB_NUMPY, -1, 256, out, 2, 1));
    EXPECT(BCAST_ERR_INVALID, bcast_binary(BCAST_OP_SELECT, BCAST_DTYPE_F32, a, s2, 1, a, s2, 1,
                                           BCAST_AB_NUMPY, -1, out, 2, 1));
    EXPECT(BCAST_ERR_INVALID, bcast_eltwise_shape_n(BCAST_OP_SELECT, 2, shapes, ranks,
                                                    BCAST_AB_NUMPY, -1, shape, R, &rank));
    /* levels given to an op without it */
    EXPECT(BCAST_ERR_INVALID, bcast_eltwise(BCAST_OP_ADD, 2, f32s, inputs, shapes, ranks,
                                            BCAST_AB_NUMPY, -1, 5, out, 2, 1));
    /* NULL arrays with operands */
    EXPECT(BCAST_ERR_NULL, bcast_eltwise(BCAST_OP_ADD, 2, NULL, inputs, shapes, ranks,
                                         BCAST_AB_NUMPY, -1, 0, out, 2, 1));
    EXPECT(BCAST_ERR_NULL, bcast_eltwise(BCAST_OP_ADD, 2, f32s, NULL, shapes, ranks,
                                         BCAST_AB_NUMPY, -1, 0, out, 2, 1));
    EXPECT(BCAST_ERR_NULL, bcast_eltwise(BCAST_OP_ADD, 2, f32s, inputs, NULL, ranks,
                                         BCAST_AB_NUMPY, -1, 0, out, 2, 1));
    EXPECT(BCAST_ERR_NULL, bcast_eltwise(BCAST_OP_ADD, 2, f32s, inputs, shapes, NULL,
                                         BCAST_AB_NUMPY, -1, 0, out, 2, 1));
    EXPECT(BCAST_ERR_NULL, bcast_eltwise_shape_n(BCAST_OP_ADD, 2, NULL, ranks, BCAST_AB_NUMPY,
                                                 -1, shape, R, &rank));
    const void *null_input[2] = {a, NULL};
    EXPECT(BCAST_ERR_NULL, bcast_eltwise(BCAST_OP_ADD, 2, f32s, null_input, shapes, ranks,
                                         BCAST_AB_NUMPY, -1, 0, out, 2, 1));
    EXPECT(BCAST_ERR_NULL, bcast_eltwise(BCAST_OP_ADD, 2, f32s, inputs, shapes, ranks,
                                         BCAST_AB_NUMPY, -1, 0, NULL, 2, 1));
    /* types refused: different operand types, a type the op has no definition for */
    const void *mixed[2] = {a, d};
    const bcast_dtype f32_f64[2] = {BCAST_DTYPE_F32, BCAST_DTYPE_F64};
    EXPECT(BCAST_ERR_DTYPE, bcast_eltwise(BCAST_OP_SUM, 2, f32_f64, mixed, shapes, ranks,
                                          BCAST_AB_NUMPY, -1, 0, out, 2, 1));
    EXPECT(BCAST_ERR_DTYPE, bcast_eltwise(BCAST_OP_BIT_SHIFT, 2, f32s, inputs, shapes, ranks,
                                          BCAST_AB_NUMPY, -1, 0, out, 2, 1));
    EXPECT(BCAST_ERR_DTYPE, bcast_eltwise(BCAST_OP_SELECT, 3, f32s, inputs, shapes, ranks,
                                          BCAST_AB_NUMPY, -1, 0, out, 2, 1));
    /* pdpd for an op that broadcasts by the numpy rule */
    EXPECT(BCAST_ERR_INVALID, bcast_eltwise(BCAST_OP_ONNX_DIV, 2, f32s, inputs, shapes, ranks,
                                            BCAST_AB_PDPD, -1, 0, out, 2, 1));
    EXPECT(BCAST_ERR_INVALID, bcast_eltwise_shape_n(BCAST_OP_MAX, 2, shapes, ranks,
                                                    BCAST_AB_PDPD, -1, shape, R, &rank));
    /* shapes, capacity, a bool byte, an integer division by zero */
    const size_t *clash[2] = {s2, s3};
    const float three[3] = {1, 2, 3};
    const void *clash_in[2] = {a, three};
    EXPECT(BCAST_ERR_SHAPE, bcast_eltwise(BCAST_OP_MEAN, 2, f32s, clash_in, clash, ranks,
                                          BCAST_AB_NUMPY, -1, 0, out, 2, 1));
    EXPECT(BCAST_ERR_SHAPE, bcast_eltwise_shape_n(BCAST_OP_MEAN, 2, clash, ranks,
                                                  BCAST_AB_NUMPY, -1, shape, R, &rank));
    EXPECT(BCAST_ERR_CAPACITY, bcast_eltwise(BCAST_OP_ADD, 2, f32s, inputs, shapes, ranks,
                                             BCAST_AB_NUMPY, -1, 0, out, 1, 1));
    const uint8_t two[2] = {2, 0};
    const void *bools[2] = {two, two};
    const bcast_dtype b2[2] = {BCAST_DTYPE_BOOL, BCAST_DTYPE_BOOL};
    uint8_t bout[2];
    EXPECT(BCAST_ERR_INVALID, bcast_eltwise(BCAST_OP_BITWISE_AND, 2, b2, bools, shapes, ranks,
                                            BCAST_AB_NUMPY, -1, 0, bout, 2, 1));
    const int32_t num[2] = {1, 2}, zero[2] = {1, 0};
    const void *div_in[2] = {num, zero};
    const bcast_dtype i32s[2] = {BCAST_DTYPE_I32, BCAST_DTYPE_I32};
    int32_t iout[2] = {77, 77};
    EXPECT(BCAST_ERR_DIV_ZERO, bcast_eltwise(BCAST_OP_ONNX_DIV, 2, i32s, div_in, shapes, ranks,
                                             BCAST_AB_NUMPY, -1, 0, iout, 2, 1));
    CHECK(iout[0] == 77 && iout[1] == 77, "nothing written on a division by zero");
    /* an output overlapping an operand */
    float same[2] = {1, 2};
    const void *over[2] = {same, a};
    EXPECT(BCAST_ERR_INVALID, bcast_eltwise(BCAST_OP_ADD, 2, f32s, over, shapes, ranks,
                                            BCAST_AB_NUMPY, -1, 0, same, 2, 1));
#undef EXPECT
}

int main(void) {
    variadic();
    fake_quantize();
    binary_ops();
    select_op();
    errors();
    return finish("eltwise_ops");
}
