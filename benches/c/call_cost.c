/* What a call through the C ABI costs: a 16-element f32 add through bcast_binary (checked
 * and planned every call) and through a prepared op (bcast_op_run), on the calling thread;
 * nanoseconds per call, the median of interleaved rounds.
 *
 *   cc -O2 benches/c/call_cost.c -Ibindings/c/include -Ltarget/release -lbcast_c \
 *      -Wl,-rpath,$PWD/target/release -o /tmp/call_cost && /tmp/call_cost */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bcast.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define ROUNDS 9
#define CALLS 200000

int main(void) {
    float a[16], b[16], out[16];
    for (int i = 0; i < 16; i++) a[i] = (float)i, b[i] = 0.5f;
    size_t shape[1] = {16};
    const size_t *shapes[2] = {shape, shape};
    size_t ranks[2] = {1, 1};
    bcast_dtype dt[2] = {BCAST_DTYPE_F32, BCAST_DTYPE_F32};
    bcast_context *ctx = NULL;
    bcast_op *op = NULL;
    if (bcast_context_create(1, -1, &ctx) != BCAST_OK ||
        bcast_op_create(ctx, BCAST_OP_ADD, 2, dt, shapes, ranks, BCAST_AB_NUMPY, 0, 0, &op) !=
            BCAST_OK) {
        fprintf(stderr, "%s\n", bcast_last_error_message());
        return 1;
    }
    const void *in[2] = {a, b};
    double unprepared[ROUNDS], prepared[ROUNDS];
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        double t = now();
        for (int i = 0; i < CALLS; i++)
            bad |= bcast_binary(BCAST_OP_ADD, BCAST_DTYPE_F32, a, shape, 1, b, shape, 1,
                                BCAST_AB_NUMPY, 0, out, 16, 1);
        unprepared[r] = (now() - t) / CALLS;
        t = now();
        for (int i = 0; i < CALLS; i++) bad |= bcast_op_run(op, in, out, 16);
        prepared[r] = (now() - t) / CALLS;
    }
    qsort(unprepared, ROUNDS, sizeof(double), cmp);
    qsort(prepared, ROUNDS, sizeof(double), cmp);
    printf("c tiny_add_f32 unprepared (bcast_binary)\t1\t%.0f ns\n", unprepared[ROUNDS / 2] * 1e9);
    printf("c tiny_add_f32 prepared (bcast_op_run)\t1\t%.0f ns\n", prepared[ROUNDS / 2] * 1e9);
    bcast_op_free(op);
    bcast_context_free(ctx);
    return bad || out[3] != 3.5f;
}
