/* Expressions of element-wise ops: bcast_expr_eval (nodes of op codes and operand indices)
 * and bcast_expr_text_eval (the same as text), with their shape and type queries, against
 * naive loops written here from each chain's formula: BatchNorm at inference (NCHW,
 * y = x * s[c] + b[c]), the tail of LayerNorm ([N,D], y = (x - m[n]) * r[n] * g[d] + b[d]),
 * bias and ReLU, a select, integer floor division. The float data is random; the reference
 * rounds every op to float as C does with one op per statement (C11, no contraction), so
 * the comparison is bit for bit. Then the errors, each a status. */
#include <math.h>

#include "ref.h"

static float rnd_float(void) { return (float)((double)(rnd() % 2000001) / 1000000.0 - 1.0); }

static void fill(float *v, size_t n) {
    for (size_t i = 0; i < n; i++) v[i] = rnd_float();
}

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

static const bcast_dtype F32S[8] = {BCAST_DTYPE_F32, BCAST_DTYPE_F32, BCAST_DTYPE_F32,
                                    BCAST_DTYPE_F32, BCAST_DTYPE_F32, BCAST_DTYPE_F32,
                                    BCAST_DTYPE_F32, BCAST_DTYPE_F32};

#define N 2
#define C 3
#define H 4
#define W 5
#define NCHW (N * C * H * W)

/* BatchNorm at inference: x [N,C,H,W], s and b [C,1,1]; nodes and text, 1 to 3 threads. */
static void batch_norm(void) {
    static float x[NCHW], s[C], b[C], want[NCHW], got[NCHW];
    fill(x, NCHW);
    fill(s, C);
    fill(b, C);
    for (size_t n = 0; n < N; n++)
        for (size_t c = 0; c < C; c++)
            for (size_t hw = 0; hw < H * W; hw++) {
                size_t i = (n * C + c) * H * W + hw;
                float scaled = x[i] * s[c];
                want[i] = scaled + b[c];
            }
    const size_t xs[4] = {N, C, H, W}, cs[3] = {C, 1, 1};
    const size_t *shapes[3] = {xs, cs, cs};
    const size_t ranks[3] = {4, 3, 3};
    const void *inputs[3] = {x, s, b};
    /* inputs x, s, b are 0, 1, 2; node 0 is operand 3 */
    const size_t mul_args[2] = {0, 1}, add_args[2] = {3, 2};
    const bcast_expr_node nodes[2] = {{BCAST_OP_MULTIPLY, 0, 2, mul_args},
                                      {BCAST_OP_ADD, 0, 2, add_args}};
    size_t shape[8], rank = 99;
    int st = bcast_expr_shape(nodes, 2, 3, shapes, ranks, BCAST_AB_NUMPY, -1, shape, 8, &rank);
    CHECK(st == BCAST_OK && rank == 4 && shape[0] == N && shape[1] == C && shape[2] == H &&
              shape[3] == W,
          "batch norm shape: %d rank %zu (%s)", st, rank, bcast_last_error_message());
    bcast_dtype dt = BCAST_DTYPE_BOOL;
    st = bcast_expr_dtype(nodes, 2, 3, F32S, &dt);
    CHECK(st == BCAST_OK && dt == BCAST_DTYPE_F32, "batch norm dtype: %d %d", st, (int)dt);
    for (size_t threads = 1; threads <= 3; threads++) {
        for (int text = 0; text < 2; text++) {
            memset(got, 0, sizeof got);
            st = text ? bcast_expr_text_eval("x * s + b", 3, F32S, inputs, shapes, ranks,
                                             BCAST_AB_NUMPY, -1, got, NCHW, threads)
                      : bcast_expr_eval(nodes, 2, 3, F32S, inputs, shapes, ranks,
                                        BCAST_AB_NUMPY, -1, got, NCHW, threads);
            CHECK(st == BCAST_OK, "batch norm (text %d, threads %zu): %d %s", text, threads,
                  st, bcast_last_error_message());
            size_t bad = 0;
            for (size_t i = 0; i < NCHW; i++) bad += !same_bits(got[i], want[i]);
            CHECK(bad == 0, "batch norm (text %d, threads %zu): %zu of %d differ", text,
                  threads, bad, NCHW);
        }
    }
    /* PDPD: s and b laid on x's axis 1 from axis 1, given as [C]. */
    const size_t c1[1] = {C};
    const size_t *pdpd_shapes[3] = {xs, c1, c1};
    const size_t pdpd_ranks[3] = {4, 1, 1};
    memset(got, 0, sizeof got);
    st = bcast_expr_eval(nodes, 2, 3, F32S, inputs, pdpd_shapes, pdpd_ranks, BCAST_AB_PDPD, 1,
                         got, NCHW, 0);
    CHECK(st == BCAST_OK && memcmp(got, want, sizeof got) == 0, "batch norm pdpd: %d %s", st,
          bcast_last_error_message());
}

#define LN_N 3
#define LN_D 7

/* The tail of LayerNorm: x [N,D], m and r [N,1], g and b [D]. */
static void layer_norm_tail(void) {
    static float x[LN_N * LN_D], m[LN_N], r[LN_N], g[LN_D], b[LN_D], want[LN_N * LN_D],
        got[LN_N * LN_D];
    fill(x, LN_N * LN_D);
    fill(m, LN_N);
    fill(r, LN_N);
    fill(g, LN_D);
    fill(b, LN_D);
    for (size_t n = 0; n < LN_N; n++)
        for (size_t d = 0; d < LN_D; d++) {
            float centred = x[n * LN_D + d] - m[n];
            float scaled = centred * r[n];
            float gained = scaled * g[d];
            want[n * LN_D + d] = gained + b[d];
        }
    const size_t xs[2] = {LN_N, LN_D}, ns[2] = {LN_N, 1}, ds[1] = {LN_D};
    const size_t *shapes[5] = {xs, ns, ns, ds, ds};
    const size_t ranks[5] = {2, 2, 2, 1, 1};
    const void *inputs[5] = {x, m, r, g, b};
    /* x m r g b are 0..4; nodes 0..3 are operands 5..8 */
    const size_t a0[2] = {0, 1}, a1[2] = {5, 2}, a2[2] = {6, 3}, a3[2] = {7, 4};
    const bcast_expr_node nodes[4] = {{BCAST_OP_SUBTRACT, 0, 2, a0},
                                      {BCAST_OP_MULTIPLY, 0, 2, a1},
                                      {BCAST_OP_MULTIPLY, 0, 2, a2},
                                      {BCAST_OP_ADD, 0, 2, a3}};
    const char *text = "(x - m) * r * g + b";
    size_t shape[8], rank = 0;
    int st = bcast_expr_text_shape(text, 5, shapes, ranks, BCAST_AB_NUMPY, -1, shape, 8, &rank);
    CHECK(st == BCAST_OK && rank == 2 && shape[0] == LN_N && shape[1] == LN_D,
          "layer norm text shape: %d (%s)", st, bcast_last_error_message());
    bcast_dtype dt = BCAST_DTYPE_BOOL;
    st = bcast_expr_text_dtype(text, 5, F32S, &dt);
    CHECK(st == BCAST_OK && dt == BCAST_DTYPE_F32, "layer norm text dtype: %d", st);
    for (int form = 0; form < 2; form++) {
        memset(got, 0, sizeof got);
        st = form ? bcast_expr_text_eval(text, 5, F32S, inputs, shapes, ranks, BCAST_AB_NUMPY,
                                         -1, got, LN_N * LN_D, 1)
                  : bcast_expr_eval(nodes, 4, 5, F32S, inputs, shapes, ranks, BCAST_AB_NUMPY,
                                    -1, got, LN_N * LN_D, 1);
        CHECK(st == BCAST_OK, "layer norm (text %d): %d %s", form, st,
              bcast_last_error_message());
        size_t bad = 0;
        for (size_t i = 0; i < LN_N * LN_D; i++) bad += !same_bits(got[i], want[i]);
        CHECK(bad == 0, "layer norm (text %d): %zu of %d differ", form, bad, LN_N * LN_D);
    }
}

/* A node used twice, not by the next node only: t = a - b; y = t * c + t. */
static void shared_node(void) {
    float a[12], b[4], c[3], want[12], got[12];
    fill(a, 12);
    fill(b, 4);
    fill(c, 3);
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 4; j++) {
            float t = a[i * 4 + j] - b[j];
            float u = t * c[i];
            want[i * 4 + j] = u + t;
        }
    const size_t as[2] = {3, 4}, bs[1] = {4}, cs[2] = {3, 1};
    const size_t *shapes[3] = {as, bs, cs};
    const size_t ranks[3] = {2, 1, 2};
    const void *inputs[3] = {a, b, c};
    const size_t n0[2] = {0, 1}, n1[2] = {3, 2}, n2[2] = {4, 3};
    const bcast_expr_node nodes[3] = {{BCAST_OP_SUBTRACT, 0, 2, n0},
                                      {BCAST_OP_MULTIPLY, 0, 2, n1},
                                      {BCAST_OP_ADD, 0, 2, n2}};
    int st = bcast_expr_eval(nodes, 3, 3, F32S, inputs, shapes, ranks, BCAST_AB_NUMPY, -1, got,
                             12, 1);
    size_t bad = 0;
    for (size_t i = 0; i < 12; i++) bad += !same_bits(got[i], want[i]);
    CHECK(st == BCAST_OK && bad == 0, "shared node: %d, %zu differ (%s)", st, bad,
          bcast_last_error_message());
}

/* Constants: bias then ReLU, maximum(x + b, 0), with the 0 a rank-0 input (nodes) or a
 * number (text); a select whose condition is a node; a comparison's BOOL result. */
static void constants_and_select(void) {
    float x[6], b[3], zero[1] = {0.0f}, want[6], got[6];
    fill(x, 6);
    fill(b, 3);
    for (size_t i = 0; i < 6; i++) {
        float t = x[i] + b[i % 3];
        want[i] = t < 0.0f ? 0.0f : t;
    }
    const size_t xs[2] = {2, 3}, bs[1] = {3};
    const size_t *shapes[3] = {xs, bs, NULL};
    const size_t ranks[3] = {2, 1, 0};
    const void *inputs[3] = {x, b, zero};
    const size_t add_args[2] = {0, 1}, max_args[2] = {3, 2};
    const bcast_expr_node relu[2] = {{BCAST_OP_ADD, 0, 2, add_args},
                                     {BCAST_OP_MAXIMUM, 0, 2, max_args}};
    int st = bcast_expr_eval(relu, 2, 3, F32S, inputs, shapes, ranks, BCAST_AB_NUMPY, -1, got, 6,
                             1);
    CHECK(st == BCAST_OK && memcmp(got, want, sizeof got) == 0, "relu nodes: %d %s", st,
          bcast_last_error_message());
    memset(got, 0, sizeof got);
    st = bcast_expr_text_eval("maximum(x + b, 0)", 2, F32S, inputs, shapes, ranks,
                              BCAST_AB_NUMPY, -1, got, 6, 1);
    CHECK(st == BCAST_OK && memcmp(got, want, sizeof got) == 0, "relu text: %d %s", st,
          bcast_last_error_message());

    /* leaky ReLU: select(x > 0, x, x * 0.1), the 0.1 rounded once to float */
    for (size_t i = 0; i < 6; i++) {
        float leak = x[i] * 0.1f;
        want[i] = x[i] > 0.0f ? x[i] : leak;
    }
    memset(got, 0, sizeof got);
    st = bcast_expr_text_eval("select(x > 0, x, x * 0.1)", 1, F32S, inputs, shapes, ranks,
                              BCAST_AB_NUMPY, -1, got, 6, 1);
    CHECK(st == BCAST_OK && memcmp(got, want, sizeof got) == 0, "leaky relu text: %d %s", st,
          bcast_last_error_message());

    /* x > b: a BOOL result, one byte 0/1 */
    bcast_dtype dt = BCAST_DTYPE_F32;
    st = bcast_expr_text_dtype("x + 0 > b", 2, F32S, &dt);
    CHECK(st == BCAST_OK && dt == BCAST_DTYPE_BOOL, "comparison dtype: %d %d", st, (int)dt);
    uint8_t gt[6];
    st = bcast_expr_text_eval("x + 0 > b", 2, F32S, inputs, shapes, ranks, BCAST_AB_NUMPY, -1,
                              gt, 6, 1);
    size_t bad = 0;
    for (size_t i = 0; i < 6; i++) bad += gt[i] != (x[i] > b[i % 3]);
    CHECK(st == BCAST_OK && bad == 0, "comparison: %d, %zu differ (%s)", st, bad,
          bcast_last_error_message());
}

/* Integers: (a + c) / d floors (OpenVINO's pythondiv) and wraps, as numpy's //. */
static void integers(void) {
    int32_t a[8], c[1] = {INT32_MAX}, d[4] = {3, -3, 7, -1}, want[8], got[8];
    for (size_t i = 0; i < 8; i++) a[i] = (int32_t)(rnd() % 201) - 100;
    for (size_t i = 0; i < 8; i++) {
        /* a + INT32_MAX wraps in two's complement */
        int32_t sum = (int32_t)(uint32_t)((uint32_t)a[i] + (uint32_t)c[0]);
        int32_t q = sum / d[i % 4], rem = sum % d[i % 4];
        if (rem != 0 && ((rem < 0) != (d[i % 4] < 0))) q -= 1;
        want[i] = q;
    }
    const size_t as[2] = {2, 4}, ds[1] = {4};
    const size_t *shapes[3] = {as, NULL, ds};
    const size_t ranks[3] = {2, 0, 1};
    const void *inputs[3] = {a, c, d};
    const bcast_dtype i32s[3] = {BCAST_DTYPE_I32, BCAST_DTYPE_I32, BCAST_DTYPE_I32};
    int st = bcast_expr_text_eval("(a + c) / d", 3, i32s, inputs, shapes, ranks, BCAST_AB_NUMPY,
                                  -1, got, 8, 1);
    CHECK(st == BCAST_OK && memcmp(got, want, sizeof got) == 0, "int floor div: %d %s", st,
          bcast_last_error_message());
    const size_t add_args[2] = {0, 1}, div_args[2] = {3, 2};
    const bcast_expr_node nodes[2] = {{BCAST_OP_ADD, 0, 2, add_args},
                                      {BCAST_OP_DIVIDE, 0, 2, div_args}};
    memset(got, 0, sizeof got);
    st = bcast_expr_eval(nodes, 2, 3, i32s, inputs, shapes, ranks, BCAST_AB_NUMPY, -1, got, 8, 1);
    CHECK(st == BCAST_OK && memcmp(got, want, sizeof got) == 0, "int floor div nodes: %d %s",
          st, bcast_last_error_message());
}

#define EXPECT(status, call)                                                                  \
    do {                                                                                      \
        int st_ = (call);                                                                     \
        CHECK(st_ == (status), "%s: %d, want %d (%s)", #call, st_, (status),                  \
              bcast_last_error_message());                                                    \
        CHECK(st_ == BCAST_OK || strlen(bcast_last_error_message()) > 0, "no message");      \
    } while (0)

#define EXPECT_MSG(status, needle, call)                                                      \
    do {                                                                                      \
        EXPECT(status, call);                                                                 \
        CHECK(strstr(bcast_last_error_message(), needle) != NULL,                             \
              "message '%s' lacks '%s'", bcast_last_error_message(), needle);                 \
    } while (0)

/* Every bad argument is a status, and nothing is written. */
static void errors(void) {
    float a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, out[3] = {77, 77, 77};
    const size_t s3[1] = {3}, s4[1] = {4};
    const size_t *shapes[2] = {s3, s3};
    const size_t ranks[2] = {1, 1};
    const void *inputs[2] = {a, b};
    size_t shape[8], rank = 0;
    const size_t ab01[2] = {0, 1}, ab012[3] = {0, 1, 2};
    const bcast_expr_node add = {BCAST_OP_ADD, 0, 2, ab01};

    /* an unknown op code, in the second node */
    const size_t next[2] = {2, 1};
    const bcast_expr_node bad_op[2] = {add, {(bcast_eltwise_op)999, 0, 2, next}};
    EXPECT_MSG(BCAST_ERR_INVALID, "nodes[1]: unknown bcast_eltwise_op 999",
               bcast_expr_eval(bad_op, 2, 2, F32S, inputs, shapes, ranks, BCAST_AB_NUMPY, -1,
                               out, 3, 1));
    EXPECT(BCAST_ERR_INVALID,
           bcast_expr_shape(bad_op, 2, 2, shapes, ranks, BCAST_AB_NUMPY, -1, shape, 8, &rank));
    /* a forward reference (node 0 naming node 1), and a node naming itself */
    const size_t fwd[2] = {0, 3};
    const bcast_expr_node forward[2] = {{BCAST_OP_ADD, 0, 2, fwd}, add};
    EXPECT_MSG(BCAST_ERR_INVALID, "nodes[0]: args[1] is 3",
               bcast_expr_eval(forward, 2, 2, F32S, inputs, shapes, ranks, BCAST_AB_NUMPY, -1,
                               out, 3, 1));
    const size_t self[2] = {0, 2};
    const bcast_expr_node itself[1] = {{BCAST_OP_ADD, 0, 2, self}};
    EXPECT(BCAST_ERR_INVALID, bcast_expr_eval(itself, 1, 2, F32S, inputs, shapes, ranks,
                                              BCAST_AB_NUMPY, -1, out, 3, 1));
    EXPECT(BCAST_ERR_INVALID, bcast_expr_dtype(itself, 1, 2, F32S, &(bcast_dtype){0}));
    /* wrong arity: ADD of three, SELECT of two; levels on an op without it; FakeQuantize's
     * levels below 2 */
    const bcast_expr_node add3[1] = {{BCAST_OP_ADD, 0, 3, ab012}};
    EXPECT_MSG(BCAST_ERR_INVALID, "add takes 2 operands, got 3",
               bcast_expr_eval(add3, 1, 3, F32S, (const void *[3]){a, b, a},
                               (const size_t *[3]){s3, s3, s3}, (const size_t[3]){1, 1, 1},
                               BCAST_AB_NUMPY, -1, out, 3, 1));
    const bcast_expr_node select2[1] = {{BCAST_OP_SELECT, 0, 2, ab01}};
    EXPECT(BCAST_ERR_INVALID, bcast_expr_eval(select2, 1, 2, F32S, inputs, shapes, ranks,
                                              BCAST_AB_NUMPY, -1, out, 3, 1));
    const bcast_expr_node levels[1] = {{BCAST_OP_ADD, 5, 2, ab01}};
    EXPECT(BCAST_ERR_INVALID, bcast_expr_eval(levels, 1, 2, F32S, inputs, shapes, ranks,
                                              BCAST_AB_NUMPY, -1, out, 3, 1));
    /* no nodes; NULL nodes or args with a count */
    EXPECT(BCAST_ERR_INVALID, bcast_expr_eval(NULL, 0, 2, F32S, inputs, shapes, ranks,
                                              BCAST_AB_NUMPY, -1, out, 3, 1));
    EXPECT(BCAST_ERR_NULL, bcast_expr_eval(NULL, 1, 2, F32S, inputs, shapes, ranks,
                                           BCAST_AB_NUMPY, -1, out, 3, 1));
    const bcast_expr_node null_args[1] = {{BCAST_OP_ADD, 0, 2, NULL}};
    EXPECT(BCAST_ERR_NULL, bcast_expr_eval(null_args, 1, 2, F32S, inputs, shapes, ranks,
                                           BCAST_AB_NUMPY, -1, out, 3, 1));
    EXPECT(BCAST_ERR_NULL, bcast_expr_eval(&add, 1, 2, F32S, inputs, shapes, ranks,
                                           BCAST_AB_NUMPY, -1, NULL, 3, 1));
    EXPECT(BCAST_ERR_NULL, bcast_expr_dtype(&add, 1, 2, F32S, NULL));
    /* an unknown rule or dtype */
    EXPECT(BCAST_ERR_INVALID, bcast_expr_eval(&add, 1, 2, F32S, inputs, shapes, ranks,
                                              (bcast_auto_broadcast)9, -1, out, 3, 1));
    const bcast_dtype bad_dtype[2] = {BCAST_DTYPE_F32, (bcast_dtype)77};
    EXPECT(BCAST_ERR_INVALID, bcast_expr_eval(&add, 1, 2, bad_dtype, inputs, shapes, ranks,
                                              BCAST_AB_NUMPY, -1, out, 3, 1));
    /* operand types that differ */
    const bcast_dtype f32_i32[2] = {BCAST_DTYPE_F32, BCAST_DTYPE_I32};
    EXPECT(BCAST_ERR_DTYPE, bcast_expr_eval(&add, 1, 2, f32_i32, inputs, shapes, ranks,
                                            BCAST_AB_NUMPY, -1, out, 3, 1));
    EXPECT(BCAST_ERR_DTYPE, bcast_expr_dtype(&add, 1, 2, f32_i32, &(bcast_dtype){0}));
    /* a shape mismatch: [3] + [4] */
    float four[4] = {0};
    const size_t *clash[2] = {s3, s4};
    EXPECT(BCAST_ERR_SHAPE, bcast_expr_eval(&add, 1, 2, F32S, (const void *[2]){a, four}, clash,
                                            ranks, BCAST_AB_NUMPY, -1, out, 4, 1));
    EXPECT(BCAST_ERR_SHAPE,
           bcast_expr_shape(&add, 1, 2, clash, ranks, BCAST_AB_NUMPY, -1, shape, 8, &rank));
    /* ... in the second node only: (a + b) * c with c [4] */
    const size_t mul_args[2] = {2, 3};
    const bcast_expr_node chain[2] = {{BCAST_OP_ADD, 0, 2, ab01},
                                      {BCAST_OP_MULTIPLY, 0, 2, mul_args}};
    EXPECT(BCAST_ERR_SHAPE, bcast_expr_eval(chain, 2, 3, F32S, (const void *[3]){a, b, four},
                                            (const size_t *[3]){s3, s3, s4},
                                            (const size_t[3]){1, 1, 1}, BCAST_AB_NUMPY, -1, out,
                                            4, 1));
    /* too small an out, and a too small shape buffer (rank_out says what is needed) */
    EXPECT(BCAST_ERR_CAPACITY, bcast_expr_eval(&add, 1, 2, F32S, inputs, shapes, ranks,
                                               BCAST_AB_NUMPY, -1, out, 2, 1));
    CHECK(out[0] == 77 && out[1] == 77 && out[2] == 77, "nothing written on a capacity error");
    EXPECT(BCAST_ERR_CAPACITY,
           bcast_expr_shape(&add, 1, 2, shapes, ranks, BCAST_AB_NUMPY, -1, shape, 0, &rank));
    CHECK(rank == 1, "rank_out holds the rank needed: %zu", rank);
    EXPECT(BCAST_ERR_NULL,
           bcast_expr_shape(&add, 1, 2, shapes, ranks, BCAST_AB_NUMPY, -1, shape, 8, NULL));
    /* an out overlapping an input */
    EXPECT(BCAST_ERR_INVALID, bcast_expr_eval(&add, 1, 2, F32S, inputs, shapes, ranks,
                                              BCAST_AB_NUMPY, -1, b, 3, 1));
    /* PDPD for an ONNX op, which broadcasts by the numpy rule only */
    const bcast_expr_node onnx_div[1] = {{BCAST_OP_ONNX_DIV, 0, 2, ab01}};
    EXPECT(BCAST_ERR_INVALID, bcast_expr_eval(onnx_div, 1, 2, F32S, inputs, shapes, ranks,
                                              BCAST_AB_PDPD, -1, out, 3, 1));
    /* integer division by zero, in the middle node of three */
    int32_t n[3] = {1, 2, 3}, dz[3] = {1, 0, 1}, iout[3] = {77, 77, 77};
    const bcast_dtype i32s[2] = {BCAST_DTYPE_I32, BCAST_DTYPE_I32};
    const size_t div_args[2] = {2, 1}, last_args[2] = {3, 0};
    const bcast_expr_node divs[3] = {{BCAST_OP_ADD, 0, 2, ab01},
                                     {BCAST_OP_DIVIDE, 0, 2, div_args},
                                     {BCAST_OP_ADD, 0, 2, last_args}};
    EXPECT(BCAST_ERR_DIV_ZERO, bcast_expr_eval(divs, 3, 2, i32s, (const void *[2]){n, dz},
                                               shapes, ranks, BCAST_AB_NUMPY, -1, iout, 3, 1));
    EXPECT(BCAST_ERR_DIV_ZERO,
           bcast_expr_text_eval("a % b", 2, i32s, (const void *[2]){n, dz}, shapes, ranks,
                                BCAST_AB_NUMPY, -1, iout, 3, 1));
    /* text: a parse error names the character; the input count names the inputs; a number
     * the type cannot hold; NULL text */
    EXPECT_MSG(BCAST_ERR_INVALID, "character 4",
               bcast_expr_text_eval("a + * b", 2, F32S, inputs, shapes, ranks, BCAST_AB_NUMPY,
                                    -1, out, 3, 1));
    EXPECT_MSG(BCAST_ERR_INVALID, "unknown op 'frobnicate'",
               bcast_expr_text_shape("frobnicate(a, b)", 2, shapes, ranks, BCAST_AB_NUMPY, -1,
                                     shape, 8, &rank));
    EXPECT_MSG(BCAST_ERR_INVALID, "(a, b, c)",
               bcast_expr_text_eval("a + b + c", 2, F32S, inputs, shapes, ranks, BCAST_AB_NUMPY,
                                    -1, out, 3, 1));
    EXPECT_MSG(BCAST_ERR_INVALID, "0.5",
               bcast_expr_text_eval("a * 0.5 + b", 2, i32s, (const void *[2]){n, dz}, shapes,
                                    ranks, BCAST_AB_NUMPY, -1, iout, 3, 1));
    EXPECT(BCAST_ERR_INVALID, bcast_expr_text_dtype("a * 0.5", 1, i32s, &(bcast_dtype){0}));
    EXPECT(BCAST_ERR_NULL, bcast_expr_text_eval(NULL, 2, F32S, inputs, shapes, ranks,
                                                BCAST_AB_NUMPY, -1, out, 3, 1));
    EXPECT(BCAST_ERR_INVALID, bcast_expr_text_eval("\xff + a", 1, F32S, inputs, shapes, ranks,
                                                   BCAST_AB_NUMPY, -1, out, 3, 1));
    CHECK(out[0] == 77 && out[1] == 77 && out[2] == 77, "nothing written by the failed calls");
    CHECK(strcmp(bcast_status_string(BCAST_ERR_INVALID), "an argument is invalid") == 0,
          "status text");
}

int main(void) {
    batch_norm();
    layer_norm_tail();
    shared_node();
    constants_and_select();
    integers();
    errors();
    return finish("expr");
}
