/* Errors: each bad input is a status and a message (the Rust library's words for a broken
 * rule), never a crash; the message is per thread and cleared by the next call. */
#include "ref.h"

#define EXPECT_STATUS(call, status, msg_prefix)                                        \
    do {                                                                               \
        int st_ = (call);                                                              \
        CHECK(st_ == (status), "%s returned %d, expected %d (%s): %s", #call, st_,     \
              (int)(status), #status, bcast_last_error_message());                     \
        CHECK(starts_with(bcast_last_error_message(), msg_prefix),                     \
              "message '%s' does not start with '%s'", bcast_last_error_message(),     \
              msg_prefix);                                                             \
    } while (0)

int main(void) {
    const size_t d3[] = {3}, t4[] = {1, 4, 2, 2}, t3[] = {1, 3, 2, 2};
    const int64_t ax1[] = {1};
    bcast_plan *plan = NULL;
    float src[64] = {0}, dst[256] = {0};

    /* No error yet: an empty message, never NULL. */
    CHECK(bcast_last_error_message() != NULL && bcast_last_error_message()[0] == '\0',
          "empty before any call");

    /* A broken rule: the Rust error's Display, exactly (README's example). */
    EXPECT_STATUS(bcast_plan_create(BCAST_MODE_EXPLICIT, d3, 1, t4, 4, ax1, 1, &plan),
                  BCAST_ERR_SHAPE,
                  "explicit broadcast: data dim 3 at axis 0 cannot become 4 (must be 1 or 4); "
                  "data shape [3], target shape [1,4,2,2]");
    CHECK(strcmp(bcast_last_error_message(),
                 "explicit broadcast: data dim 3 at axis 0 cannot become 4 (must be 1 or 4); "
                 "data shape [3], target shape [1,4,2,2]") == 0,
          "exact text: %s", bcast_last_error_message());
    CHECK(plan == NULL, "failed create stores NULL");
    {
        const size_t a[] = {2, 3}, b[] = {4, 3};
        size_t shape[8], rank;
        EXPECT_STATUS(bcast_output_shape(BCAST_MODE_BIDIRECTIONAL, a, 2, b, 2, NULL, 0, shape,
                                         8, &rank),
                      BCAST_ERR_SHAPE,
                      "bidirectional broadcast: dims 2 and 4 at output axis 0 are incompatible "
                      "(must be equal or one of them 1); shapes [2,3] and [4,3]");
        const size_t big[] = {2, 3, 4};
        EXPECT_STATUS(bcast_output_shape(BCAST_MODE_NUMPY, big, 3, a, 2, NULL, 0, shape, 8,
                                         &rank),
                      BCAST_ERR_SHAPE,
                      "numpy broadcast: target rank 2 is smaller than data rank 3; data shape "
                      "[2,3,4], target shape [2,3]");
        const int64_t axes[] = {0};
        EXPECT_STATUS(bcast_output_shape(BCAST_MODE_AXES, a, 2, b, 2, axes, 1, shape, 8, &rank),
                      BCAST_ERR_SHAPE, "axes broadcast: target shape [4,3] without broadcast_axes");
        const int64_t axis5[] = {5};
        EXPECT_STATUS(bcast_output_shape(BCAST_MODE_PDPD, a, 2, b, 2, axis5, 1, shape, 8, &rank),
                      BCAST_ERR_SHAPE, "pdpd broadcast: axis 5 is invalid");
        /* The message stays until the next call on this thread... */
        const char *msg = bcast_last_error_message();
        CHECK(strcmp(msg, bcast_last_error_message()) == 0, "stable between reads");
        /* ...and a success clears it. */
        CHECK(bcast_output_shape(BCAST_MODE_NUMPY, d3, 1, t3 + 1, 1, NULL, 0, shape, 8, &rank) ==
                  BCAST_OK,
              "ok");
        CHECK(bcast_last_error_message()[0] == '\0', "cleared by a success");
    }

    /* Arguments a mode does not take, negative axes, unknown codes. */
    EXPECT_STATUS(bcast_plan_create(BCAST_MODE_NUMPY, d3, 1, t3, 4, ax1, 1, &plan),
                  BCAST_ERR_INVALID, "bcast_plan_create: numpy mode takes no mode_args, got 1");
    {
        const int64_t neg[] = {-1};
        EXPECT_STATUS(bcast_plan_create(BCAST_MODE_EXPLICIT, d3, 1, t3, 4, neg, 1, &plan),
                      BCAST_ERR_INVALID, "axes value -1 at index 0 is negative");
        const int64_t two[] = {0, 1};
        EXPECT_STATUS(bcast_plan_create(BCAST_MODE_PDPD, d3, 1, t3, 4, two, 2, &plan),
                      BCAST_ERR_INVALID, "bcast_plan_create: pdpd mode takes at most one");
        EXPECT_STATUS(bcast_plan_create((bcast_mode)7, d3, 1, t3, 4, NULL, 0, &plan),
                      BCAST_ERR_INVALID, "bcast_plan_create: unknown bcast_mode 7");
    }

    /* NULL pointers. */
    EXPECT_STATUS(bcast_plan_create(BCAST_MODE_NUMPY, d3, 1, t3, 4, NULL, 0, NULL),
                  BCAST_ERR_NULL, "bcast_plan_create: plan_out is NULL");
    EXPECT_STATUS(bcast_plan_create(BCAST_MODE_NUMPY, NULL, 1, t3, 4, NULL, 0, &plan),
                  BCAST_ERR_NULL, "bcast_plan_create: data_shape is NULL but has 1 elements");
    EXPECT_STATUS(bcast_plan_create(BCAST_MODE_NUMPY, d3, 1, NULL, 4, NULL, 0, &plan),
                  BCAST_ERR_NULL, "bcast_plan_create: target_shape is NULL");
    EXPECT_STATUS(bcast_plan_create(BCAST_MODE_EXPLICIT, d3, 1, t3, 4, NULL, 1, &plan),
                  BCAST_ERR_NULL, "bcast_plan_create: mode_args is NULL");
    EXPECT_STATUS(bcast_plan_run(NULL, src, dst, 4, 1), BCAST_ERR_NULL,
                  "bcast_plan_run: plan is NULL");
    {
        size_t shape[8], rank, len;
        EXPECT_STATUS(bcast_plan_output_shape(NULL, shape, 8, &rank), BCAST_ERR_NULL,
                      "bcast_plan_output_shape: plan is NULL");
        EXPECT_STATUS(bcast_plan_output_len(NULL, &len), BCAST_ERR_NULL,
                      "bcast_plan_output_len: plan is NULL");
    }
    bcast_plan_free(NULL); /* allowed */

    /* A NULL shape is fine for rank 0 (a scalar), and NULL buffers for empty tensors. */
    CHECK(bcast_plan_create(BCAST_MODE_NUMPY, NULL, 0, t3, 4, NULL, 0, &plan) == BCAST_OK,
          "scalar: %s", bcast_last_error_message());
    {
        size_t shape[8], rank = 0, len = 0;
        /* capacity too small: the rank comes back */
        EXPECT_STATUS(bcast_plan_output_shape(plan, shape, 2, &rank), BCAST_ERR_CAPACITY,
                      "bcast_plan_output_shape: the output shape has rank 4 but capacity is 2");
        CHECK(rank == 4, "rank_out is set on BCAST_ERR_CAPACITY: %zu", rank);
        EXPECT_STATUS(bcast_plan_output_shape(plan, NULL, 0, &rank), BCAST_ERR_CAPACITY, "");
        EXPECT_STATUS(bcast_plan_output_shape(plan, NULL, 8, &rank), BCAST_ERR_NULL,
                      "bcast_plan_output_shape: shape is NULL");
        EXPECT_STATUS(bcast_plan_output_shape(plan, shape, 8, NULL), BCAST_ERR_NULL,
                      "bcast_plan_output_shape: rank_out is NULL");
        EXPECT_STATUS(bcast_plan_output_len(plan, NULL), BCAST_ERR_NULL,
                      "bcast_plan_output_len: len_out is NULL");
        CHECK(bcast_plan_output_len(plan, &len) == BCAST_OK && len == 12, "len %zu", len);
    }
    /* Buffers. */
    EXPECT_STATUS(bcast_plan_run(plan, NULL, dst, 4, 1), BCAST_ERR_NULL,
                  "bcast_plan_run: src is NULL but has 1 elements");
    EXPECT_STATUS(bcast_plan_run(plan, src, NULL, 4, 1), BCAST_ERR_NULL,
                  "bcast_plan_run: dst is NULL but has 12 elements");
    EXPECT_STATUS(bcast_plan_run(plan, src, dst, 3, 1), BCAST_ERR_ELEM_SIZE,
                  "bcast_plan_run: elem_size 3 is not 1, 2, 4 or 8");
    EXPECT_STATUS(bcast_plan_run(plan, src, dst, 16, 1), BCAST_ERR_ELEM_SIZE, "bcast_plan_run");
    EXPECT_STATUS(bcast_plan_run(plan, src, dst, 0, 1), BCAST_ERR_ELEM_SIZE, "bcast_plan_run");
    EXPECT_STATUS(bcast_plan_run(plan, src, (char *)dst + 1, 4, 1), BCAST_ERR_ALIGN,
                  "bcast_plan_run: dst is not aligned to 4 bytes");
    EXPECT_STATUS(bcast_plan_run(plan, (const char *)src + 2, dst, 4, 1), BCAST_ERR_ALIGN,
                  "bcast_plan_run: src is not aligned to 4 bytes");
    EXPECT_STATUS(bcast_plan_run(plan, dst + 5, dst, 4, 1), BCAST_ERR_INVALID,
                  "bcast_plan_run: dst overlaps the source buffer");
    EXPECT_STATUS(bcast_plan_run(plan, src, dst, 4, 100000), BCAST_ERR_THREADS,
                  "bcast_plan_run: threads 100000 is above BCAST_MAX_THREADS (1024)");
    src[0] = 2.5f;
    CHECK(bcast_plan_run(plan, src, dst, 4, 2) == BCAST_OK, "run: %s", bcast_last_error_message());
    for (int i = 0; i < 12; i++) CHECK(dst[i] == 2.5f, "dst[%d] = %g", i, dst[i]);
    bcast_plan_free(plan);
    plan = NULL;
    {
        const size_t zero[] = {2, 0, 3}, one[] = {1};
        CHECK(bcast_plan_create(BCAST_MODE_NUMPY, one, 1, zero, 3, NULL, 0, &plan) == BCAST_OK,
              "empty output");
        CHECK(bcast_plan_run(plan, src, NULL, 8, 0) == BCAST_OK, "empty dst may be NULL: %s",
              bcast_last_error_message());
        bcast_plan_free(plan);
        const size_t dz[] = {0, 3};
        CHECK(bcast_broadcast(BCAST_MODE_NUMPY, dz, 2, zero, 3, NULL, 0, NULL, NULL, NULL, 2, 1) ==
                  BCAST_OK,
              "empty src and dst may be NULL: %s", bcast_last_error_message());
    }

    /* Too large: element counts and byte sizes that overflow, ranks above the limit. */
    {
        const size_t one[] = {1}, huge[] = {(size_t)1 << 40, (size_t)1 << 40};
        EXPECT_STATUS(bcast_plan_create(BCAST_MODE_NUMPY, one, 1, huge, 2, NULL, 0, &plan),
                      BCAST_ERR_OVERFLOW,
                      "shape [1099511627776,1099511627776] is too large: the product of its "
                      "non-zero dims exceeds isize::MAX");
        const size_t max[] = {SIZE_MAX, 0, 2};
        EXPECT_STATUS(bcast_plan_create(BCAST_MODE_NUMPY, one, 1, max, 3, NULL, 0, &plan),
                      BCAST_ERR_OVERFLOW, "shape [");
        /* 2^62 elements are a valid shape, but not of 8-byte elements: refused before
         * anything is written. */
        const size_t e62[] = {(size_t)1 << 62};
        CHECK(bcast_plan_create(BCAST_MODE_NUMPY, one, 1, e62, 1, NULL, 0, &plan) == BCAST_OK,
              "2^62 elements plan");
        EXPECT_STATUS(bcast_plan_run(plan, src, dst, 8, 1), BCAST_ERR_OVERFLOW,
                      "bcast_plan_run: dst of 4611686018427387904 elements of 8 bytes exceeds "
                      "isize::MAX bytes");
        bcast_plan_free(plan);
        plan = NULL;
        size_t deep[BCAST_MAX_RANK + 1];
        for (size_t i = 0; i <= BCAST_MAX_RANK; i++) deep[i] = 1;
        EXPECT_STATUS(bcast_plan_create(BCAST_MODE_NUMPY, deep, BCAST_MAX_RANK + 1, deep,
                                        BCAST_MAX_RANK + 1, NULL, 0, &plan),
                      BCAST_ERR_RANK,
                      "bcast_plan_create: data_shape has 65 entries, more than BCAST_MAX_RANK (64)");
        EXPECT_STATUS(bcast_plan_create(BCAST_MODE_NUMPY, deep, 2, deep, SIZE_MAX, NULL, 0, &plan),
                      BCAST_ERR_RANK, "bcast_plan_create: target_shape has");
        CHECK(bcast_plan_create(BCAST_MODE_NUMPY, deep, BCAST_MAX_RANK, deep, BCAST_MAX_RANK, NULL,
                                0, &plan) == BCAST_OK,
              "rank 64 is fine: %s", bcast_last_error_message());
        size_t shape[BCAST_MAX_RANK], rank;
        CHECK(bcast_plan_output_shape(plan, shape, BCAST_MAX_RANK, &rank) == BCAST_OK &&
                  rank == BCAST_MAX_RANK,
              "rank 64 shape");
        bcast_plan_free(plan);
    }

    /* Reduce: dtype codes. */
    {
        const size_t a[] = {2, 3}, b[] = {3};
        float grad[6] = {1, 2, 3, 4, 5, 6}, out[3];
        EXPECT_STATUS(bcast_reduce_to_input(BCAST_MODE_NUMPY, b, 1, a, 2, NULL, 0,
                                            BCAST_DTYPE_BOOL, grad, out, 1),
                      BCAST_ERR_DTYPE, "reduce is not defined for element type boolean");
        EXPECT_STATUS(bcast_reduce_to_input(BCAST_MODE_NUMPY, b, 1, a, 2, NULL, 0, (bcast_dtype)99,
                                            grad, out, 1),
                      BCAST_ERR_INVALID, "bcast_reduce_to_input: unknown bcast_dtype 99");
        EXPECT_STATUS(bcast_reduce_to_input(BCAST_MODE_NUMPY, b, 1, a, 2, NULL, 0, BCAST_DTYPE_F32,
                                            NULL, out, 1),
                      BCAST_ERR_NULL, "bcast_reduce_to_input: grad is NULL");
        EXPECT_STATUS(bcast_reduce_to_input(BCAST_MODE_NUMPY, b, 1, a, 2, NULL, 0, BCAST_DTYPE_F32,
                                            grad, grad, 1),
                      BCAST_ERR_INVALID, "bcast_reduce_to_input: out overlaps");
        EXPECT_STATUS(bcast_reduce_to_input(BCAST_MODE_NUMPY, a, 2, b, 1, NULL, 0, BCAST_DTYPE_F32,
                                            grad, out, 1),
                      BCAST_ERR_SHAPE, "numpy broadcast: target rank 1 is smaller");
        EXPECT_STATUS(bcast_plan_reduce(NULL, BCAST_DTYPE_F32, grad, out, 1), BCAST_ERR_NULL,
                      "bcast_plan_reduce: plan is NULL");
        CHECK(bcast_reduce_to_input(BCAST_MODE_NUMPY, b, 1, a, 2, NULL, 0, BCAST_DTYPE_F32, grad,
                                    out, 1) == BCAST_OK,
              "reduce ok");
        CHECK(out[0] == 5 && out[1] == 7 && out[2] == 9, "sums %g %g %g", out[0], out[1], out[2]);
    }

    /* Strided one-shot: strides that reach past isize::MAX are refused. */
    {
        const size_t d[] = {3, 2}, t[] = {3, 2};
        const int64_t strides[] = {INT64_MAX / 2, 1};
        EXPECT_STATUS(bcast_broadcast(BCAST_MODE_NUMPY, d, 2, t, 2, NULL, 0, src, strides, dst, 4,
                                      1),
                      BCAST_ERR_OVERFLOW, "bcast_broadcast: src_strides");
    }
    /* A bool operand's bytes must be 0 or 1: the first other byte is named, wherever it lies
     * (here past the first 4 KiB block the check reads at a time, and in the block's last
     * byte). */
    {
        static uint8_t cond[10000];
        static float then[10000], out[10000];
        const float zero = 0.0f;
        const size_t n[] = {10000};
        for (size_t i = 0; i < 10000; i++) cond[i] = (uint8_t)(i % 3 == 0);
        CHECK(bcast_select(BCAST_DTYPE_F32, cond, n, 1, then, n, 1, &zero, NULL, 0,
                           BCAST_AB_NUMPY, 0, out, 10000, 1) == BCAST_OK,
              "a valid condition: %s", bcast_last_error_message());
        cond[8191] = 2;
        cond[9000] = 7;
        EXPECT_STATUS(bcast_select(BCAST_DTYPE_F32, cond, n, 1, then, n, 1, &zero, NULL, 0,
                                   BCAST_AB_NUMPY, 0, out, 10000, 1),
                      BCAST_ERR_INVALID, "bcast_select: cond[8191] is 2, but a bool must be 0 or 1");
    }
    return finish("errors");
}
