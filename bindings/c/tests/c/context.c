#define _POSIX_C_SOURCE 200809L
/* Contexts and prepared ops from C: prepared f32 ops on model-shaped nodes against a naive
 * reference (numpy's rule written out here, not bcast's), on the calling thread, on teams
 * of bcast's own and on host pools (one that runs every task inline, one that runs them on
 * pthreads of its own), with the cost model's thread counts seen through the host; a call
 * from inside a host task; a forked child's first calls; and the statuses of bad calls. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ref.h"

/* ---- the reference: out = a op b, numpy's rule on 4-D shapes (a 1 stretches) ---- */
static float apply(int op, float x, float y) {
    switch (op) {
    case BCAST_OP_ADD: return x + y;
    case BCAST_OP_SUBTRACT: return x - y;
    default: return x * y;
    }
}

static void reference(int op, const float *a, const size_t *as, const float *b, const size_t *bs,
                      float *out, size_t *os) {
    for (int k = 0; k < 4; k++) os[k] = as[k] > bs[k] ? as[k] : bs[k];
    size_t n = 0;
    for (size_t i0 = 0; i0 < os[0]; i0++)
        for (size_t i1 = 0; i1 < os[1]; i1++)
            for (size_t i2 = 0; i2 < os[2]; i2++)
                for (size_t i3 = 0; i3 < os[3]; i3++) {
                    size_t ia = (((as[0] > 1 ? i0 : 0) * as[1] + (as[1] > 1 ? i1 : 0)) * as[2] +
                                 (as[2] > 1 ? i2 : 0)) * as[3] + (as[3] > 1 ? i3 : 0);
                    size_t ib = (((bs[0] > 1 ? i0 : 0) * bs[1] + (bs[1] > 1 ? i1 : 0)) * bs[2] +
                                 (bs[2] > 1 ? i2 : 0)) * bs[3] + (bs[3] > 1 ? i3 : 0);
                    out[n++] = apply(op, a[ia], b[ib]);
                }
}

typedef struct {
    const char *name;
    int op;
    size_t a[4], b[4];
} node;

/* Sizes across the cost model's line: 24 KiB to 3 MiB of output. */
static const node NODES[] = {
    {"llama decode residual", BCAST_OP_ADD, {1, 1, 1, 6144}, {1, 1, 1, 6144}},
    {"bert mask add s64", BCAST_OP_ADD, {1, 12, 64, 64}, {1, 1, 1, 64}},
    {"softmax max-subtract", BCAST_OP_SUBTRACT, {1, 12, 128, 128}, {1, 12, 128, 1}},
    {"resnet channel scale", BCAST_OP_MULTIPLY, {1, 64, 112, 112}, {1, 64, 1, 1}},
    {"vit position add", BCAST_OP_ADD, {1, 1, 197, 768}, {1, 1, 197, 768}},
};
#define N_NODES (sizeof NODES / sizeof NODES[0])

static float *random_floats(size_t n) {
    float *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = (float)((int)rnd_below(2001) - 1000) / 64.0f;
    return v;
}

static size_t count(const size_t *s) { return s[0] * s[1] * s[2] * s[3]; }

/* Runs every node through a prepared op in `ctx`, twice (the op reused), against the
 * reference. */
static void nodes_in(bcast_context *ctx, const char *where) {
    for (size_t k = 0; k < N_NODES; k++) {
        const node *nd = &NODES[k];
        size_t na = count(nd->a), nb = count(nd->b);
        float *a = random_floats(na), *b = random_floats(nb);
        size_t os[4];
        size_t no = (na > nb ? na : nb);
        float *want = malloc(no * sizeof *want), *got = malloc(no * sizeof *got);
        reference(nd->op, a, nd->a, b, nd->b, want, os);
        bcast_dtype dt[2] = {BCAST_DTYPE_F32, BCAST_DTYPE_F32};
        const size_t *shapes[2] = {nd->a, nd->b};
        size_t ranks[2] = {4, 4};
        bcast_op *op = NULL;
        int s = bcast_op_create(ctx, nd->op, 2, dt, shapes, ranks, BCAST_AB_NUMPY, 0, 0, &op);
        CHECK(s == BCAST_OK, "%s, %s: create: %s", where, nd->name, bcast_last_error_message());
        size_t shape[8], rank = 0;
        CHECK(bcast_op_output_shape(op, shape, 8, &rank) == BCAST_OK && rank == 4 &&
                  memcmp(shape, os, sizeof os) == 0,
              "%s, %s: output shape", where, nd->name);
        for (int round = 0; round < 2; round++) {
            memset(got, 0xff, no * sizeof *got);
            const void *in[2] = {a, b};
            s = bcast_op_run(op, in, got, no);
            CHECK(s == BCAST_OK, "%s, %s: run: %s", where, nd->name, bcast_last_error_message());
            CHECK(memcmp(got, want, no * sizeof *got) == 0, "%s, %s: round %d differs", where,
                  nd->name, round);
        }
        bcast_op_free(op);
        free(a), free(b), free(want), free(got);
    }
}

/* ---- host pools ---- */

/* Runs every task on the calling thread; counts its calls and the largest n. */
typedef struct {
    atomic_long calls;
    atomic_long tasks;
    size_t largest_n;
} inline_host;

static void inline_for(void *host_data, size_t n, bcast_task_fn task, void *task_data) {
    inline_host *h = host_data;
    atomic_fetch_add(&h->calls, 1);
    if (n > h->largest_n) h->largest_n = n;
    for (size_t i = n; i-- > 0;) { /* in reverse: any order is allowed */
        atomic_fetch_add(&h->tasks, 1);
        task(task_data, i);
    }
}

/* Runs task 0 on the calling thread and each other on a pthread of its own. */
typedef struct {
    bcast_task_fn task;
    void *task_data;
    size_t index;
} thread_task;

static void *run_thread_task(void *arg) {
    thread_task *t = arg;
    t->task(t->task_data, t->index);
    return NULL;
}

static void pthread_for(void *host_data, size_t n, bcast_task_fn task, void *task_data) {
    (void)host_data;
    pthread_t tid[16];
    thread_task tt[16];
    size_t spawned = 0;
    for (size_t i = 1; i < n && i < 16; i++) {
        tt[i] = (thread_task){task, task_data, i};
        if (pthread_create(&tid[i], NULL, run_thread_task, &tt[i]) == 0)
            spawned = i;
        else
            task(task_data, i);
    }
    for (size_t i = 16; i < n; i++) task(task_data, i);
    task(task_data, 0);
    for (size_t i = 1; i <= spawned; i++) pthread_join(tid[i], NULL);
}

/* A host whose parallel-for runs another prepared op (in the default context, on bcast's
 * team) before each of bcast's tasks, while bcast waits on it. (In the same host context it
 * would call itself without end: that is the host's recursion, not bcast's.) */
static bcast_op *g_inner_op;
static const float *g_inner_in[2];
static float *g_inner_out[64];
static atomic_long g_inner_failures;

static void reentrant_for(void *host_data, size_t n, bcast_task_fn task, void *task_data) {
    (void)host_data;
    for (size_t i = 0; i < n; i++) {
        const void *in[2] = {g_inner_in[0], g_inner_in[1]};
        if (i < 64 && bcast_op_run(g_inner_op, in, g_inner_out[i], 1 << 16) != BCAST_OK)
            atomic_fetch_add(&g_inner_failures, 1);
        task(task_data, i);
    }
}

/* The cost model seen through a host of `threads` threads: how many parts a `bytes`-byte
 * f32 add is cut into (0: parallel_for not called). */
static size_t parts_for(size_t bytes, size_t threads) {
    inline_host h = {0};
    bcast_context *ctx = NULL;
    CHECK(bcast_context_create_host(inline_for, &h, threads, 1000, &ctx) == BCAST_OK,
          "host context: %s", bcast_last_error_message());
    size_t n = bytes / 4;
    float *a = random_floats(n), *out = malloc(n * sizeof *out);
    bcast_dtype dt[2] = {BCAST_DTYPE_F32, BCAST_DTYPE_F32};
    size_t shape[1] = {n}, one[1] = {1};
    const size_t *shapes[2] = {shape, one};
    size_t ranks[2] = {1, 1};
    bcast_op *op = NULL;
    CHECK(bcast_op_create(ctx, BCAST_OP_ADD, 2, dt, shapes, ranks, BCAST_AB_NUMPY, 0, 0, &op) ==
              BCAST_OK,
          "create");
    float b = 0.5f;
    const void *in[2] = {a, &b};
    CHECK(bcast_op_run(op, in, out, n) == BCAST_OK, "run: %s", bcast_last_error_message());
    int right = 1;
    for (size_t i = 0; i < n; i++) right &= out[i] == a[i] + 0.5f;
    CHECK(right, "host add of %zu bytes", bytes);
    CHECK(atomic_load(&h.tasks) == (long)(atomic_load(&h.calls) ? h.largest_n : 0),
          "every part once");
    bcast_op_free(op);
    bcast_context_free(ctx);
    free(a), free(out);
    return atomic_load(&h.calls) ? h.largest_n : 0;
}

/* ---- fork ---- */

/* A child's first calls after a fork, on the default team and on a team context the parent
 * used: both run and are right (the parent's workers are not in the child). */
static void fork_child_works(bcast_context *team_ctx) {
    const node *nd = &NODES[3]; /* 3 MiB: parallel on any team */
    size_t na = count(nd->a), nb = count(nd->b), os[4];
    float *a = random_floats(na), *b = random_floats(nb);
    float *want = malloc(na * sizeof *want), *got = malloc(na * sizeof *got);
    reference(nd->op, a, nd->a, b, nd->b, want, os);
    /* The parent uses both first, so their workers exist before the fork. */
    CHECK(bcast_binary(nd->op, BCAST_DTYPE_F32, a, nd->a, 4, b, nd->b, 4, BCAST_AB_NUMPY, 0, got,
                       na, 0) == BCAST_OK,
          "parent, threads 0");
    bcast_dtype dt[2] = {BCAST_DTYPE_F32, BCAST_DTYPE_F32};
    const size_t *shapes[2] = {nd->a, nd->b};
    size_t ranks[2] = {4, 4};
    bcast_op *op = NULL;
    CHECK(bcast_op_create(team_ctx, nd->op, 2, dt, shapes, ranks, BCAST_AB_NUMPY, 0, 0, &op) ==
              BCAST_OK,
          "create");
    const void *in[2] = {a, b};
    CHECK(bcast_op_run(op, in, got, na) == BCAST_OK, "parent, team");
    fflush(stdout), fflush(stderr);
    pid_t child = fork();
    if (child == 0) {
        alarm(30); /* a hang ends the child with SIGALRM, which the parent reports */
        int ok = 1;
        memset(got, 0, na * sizeof *got);
        ok &= bcast_binary(nd->op, BCAST_DTYPE_F32, a, nd->a, 4, b, nd->b, 4, BCAST_AB_NUMPY, 0,
                           got, na, 0) == BCAST_OK;
        ok &= memcmp(got, want, na * sizeof *got) == 0;
        memset(got, 0, na * sizeof *got);
        ok &= bcast_op_run(op, in, got, na) == BCAST_OK;
        ok &= memcmp(got, want, na * sizeof *got) == 0;
        memset(got, 0, na * sizeof *got);
        ok &= bcast_binary(nd->op, BCAST_DTYPE_F32, a, nd->a, 4, b, nd->b, 4, BCAST_AB_NUMPY, 0,
                           got, na, 2) == BCAST_OK;
        ok &= memcmp(got, want, na * sizeof *got) == 0;
        _exit(ok ? 0 : 1);
    }
    CHECK(child > 0, "fork");
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child, "waitpid");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the forked child's calls: %s %d", WIFSIGNALED(status) ? "signal" : "exit",
          WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    bcast_op_free(op);
    free(a), free(b), free(want), free(got);
}

int main(void) {
    bcast_context *serial = NULL, *team2 = NULL, *parked = NULL, *deflt = NULL;
    CHECK(bcast_context_create(1, -1, &serial) == BCAST_OK, "serial context");
    CHECK(bcast_context_create(2, -1, &team2) == BCAST_OK, "team of 2");
    CHECK(bcast_context_create(3, 0, &parked) == BCAST_OK, "team of 3 that parks at once");
    CHECK(bcast_context_create(0, -1, &deflt) == BCAST_OK, "default context");
    nodes_in(serial, "serial");
    nodes_in(team2, "team of 2");
    nodes_in(parked, "parked team of 3");
    nodes_in(deflt, "default");
    nodes_in(NULL, "NULL context");

    /* Host pools: inline and on pthreads, results right. */
    inline_host h = {0};
    bcast_context *host = NULL, *threads_host = NULL;
    CHECK(bcast_context_create_host(inline_for, &h, 4, 0, &host) == BCAST_OK, "inline host");
    nodes_in(host, "inline host");
    CHECK(atomic_load(&h.calls) > 0, "the inline host was given work");
    CHECK(bcast_context_create_host(pthread_for, NULL, 4, 0, &threads_host) == BCAST_OK,
          "pthread host");
    nodes_in(threads_host, "pthread host");

    /* The cost model through a host of cheap dispatch (1 us): no call below 128 KiB, two
     * parts from 128 KiB, one part per 64 KiB up to the host's threads. */
    CHECK(parts_for(64 << 10, 4) == 0, "64 KiB: %zu parts", parts_for(64 << 10, 4));
    CHECK(parts_for(128 << 10, 4) == 2, "128 KiB: %zu parts", parts_for(128 << 10, 4));
    CHECK(parts_for(192 << 10, 4) == 3, "192 KiB: %zu parts", parts_for(192 << 10, 4));
    CHECK(parts_for(4 << 20, 4) == 4, "4 MiB: %zu parts", parts_for(4 << 20, 4));

    /* A host that calls bcast (on bcast's team) from its parallel-for while bcast waits. */
    {
        bcast_context *re = NULL;
        CHECK(bcast_context_create_host(reentrant_for, NULL, 4, 0, &re) == BCAST_OK, "re-entry");
        size_t n = 1 << 16, one = 1;
        float *a = random_floats(n), b = 2.0f;
        bcast_dtype dt[2] = {BCAST_DTYPE_F32, BCAST_DTYPE_F32};
        const size_t *shapes[2] = {&n, &one};
        size_t ranks[2] = {1, 1};
        CHECK(bcast_op_create(NULL, BCAST_OP_MULTIPLY, 2, dt, shapes, ranks, BCAST_AB_NUMPY, 0,
                              0, &g_inner_op) == BCAST_OK,
              "inner op");
        g_inner_in[0] = a, g_inner_in[1] = &b;
        for (int i = 0; i < 64; i++) g_inner_out[i] = malloc(n * sizeof(float));
        nodes_in(re, "re-entrant host");
        CHECK(atomic_load(&g_inner_failures) == 0, "inner runs failed");
        int right = 1;
        for (size_t i = 0; i < n; i++) right &= g_inner_out[0][i] == a[i] * 2.0f;
        CHECK(right, "the inner run's result");
        for (int i = 0; i < 64; i++) free(g_inner_out[i]);
        bcast_op_free(g_inner_op);
        bcast_context_free(re);
        free(a);
    }

    fork_child_works(team2);

    /* Bad calls. */
    bcast_context *none = (bcast_context *)1;
    CHECK(bcast_context_create(BCAST_MAX_THREADS + 1, -1, &none) == BCAST_ERR_THREADS && !none,
          "threads above the maximum");
    CHECK(bcast_context_create(2, -1, NULL) == BCAST_ERR_NULL, "NULL ctx_out");
    CHECK(bcast_context_create_host(NULL, NULL, 2, 0, &none) == BCAST_ERR_NULL, "NULL host fn");
    CHECK(bcast_context_create_host(inline_for, &h, 0, 0, &none) == BCAST_ERR_THREADS,
          "a host of 0 threads");
    {
        size_t a[2] = {3, 4}, b[2] = {5, 4}, c[1] = {4};
        bcast_dtype dt[2] = {BCAST_DTYPE_F32, BCAST_DTYPE_F32};
        bcast_dtype mixed[2] = {BCAST_DTYPE_F32, BCAST_DTYPE_I32};
        const size_t *bad[2] = {a, b}, *good[2] = {a, c};
        size_t ranks[2] = {2, 2}, good_ranks[2] = {2, 1};
        bcast_op *op = (bcast_op *)1;
        CHECK(bcast_op_create(NULL, BCAST_OP_ADD, 2, dt, bad, ranks, BCAST_AB_NUMPY, 0, 0, &op) ==
                      BCAST_ERR_SHAPE &&
                  op == NULL,
              "shapes that break the rule: %s", bcast_last_error_message());
        CHECK(bcast_op_create(NULL, BCAST_OP_ADD, 2, mixed, good, good_ranks, BCAST_AB_NUMPY, 0, 0,
                              &op) == BCAST_ERR_DTYPE,
              "two element types: %s", bcast_last_error_message());
        CHECK(bcast_op_create(NULL, 9999, 2, dt, good, good_ranks, BCAST_AB_NUMPY, 0, 0, &op) ==
                  BCAST_ERR_INVALID,
              "an unknown op");
        CHECK(bcast_op_create(NULL, BCAST_OP_ADD, 2, dt, good, good_ranks, BCAST_AB_NUMPY, 0, 0,
                              NULL) == BCAST_ERR_NULL,
              "NULL op_out");
        CHECK(bcast_op_create(NULL, BCAST_OP_ADD, 2, dt, good, good_ranks, BCAST_AB_NUMPY, 0, 0,
                              &op) == BCAST_OK,
              "a good op");
        float x[12] = {0}, y[4] = {0}, out[12];
        const void *in[2] = {x, y}, *in_null[2] = {x, NULL};
        CHECK(bcast_op_run(NULL, in, out, 12) == BCAST_ERR_NULL, "NULL op");
        CHECK(bcast_op_run(op, NULL, out, 12) == BCAST_ERR_NULL, "NULL inputs");
        CHECK(bcast_op_run(op, in_null, out, 12) == BCAST_ERR_NULL, "a NULL operand");
        CHECK(bcast_op_run(op, in, out, 11) == BCAST_ERR_CAPACITY, "a short output");
        CHECK(bcast_op_run(op, in, (void *)x, 12) == BCAST_ERR_INVALID, "out overlapping x");
        CHECK(bcast_op_output_shape(NULL, NULL, 0, NULL) == BCAST_ERR_NULL, "NULL op (shape)");
        bcast_op_free(op);
        bcast_op_free(NULL);
        bcast_context_free(NULL);
    }
    {
        /* Integer division by zero refused at run time, nothing written. */
        size_t s[1] = {4};
        bcast_dtype dt[2] = {BCAST_DTYPE_I32, BCAST_DTYPE_I32};
        const size_t *shapes[2] = {s, s};
        size_t ranks[2] = {1, 1};
        bcast_op *op = NULL;
        CHECK(bcast_op_create(serial, BCAST_OP_DIVIDE, 2, dt, shapes, ranks, BCAST_AB_NUMPY, 0, 0,
                              &op) == BCAST_OK,
              "i32 divide");
        int32_t n[4] = {-7, 7, 9, 1}, d[4] = {2, 2, 0, 1}, q[4] = {5, 5, 5, 5};
        const void *in[2] = {n, d};
        CHECK(bcast_op_run(op, in, q, 4) == BCAST_ERR_DIV_ZERO, "a zero divisor");
        CHECK(q[0] == 5 && q[3] == 5, "nothing written");
        d[2] = 3;
        CHECK(bcast_op_run(op, in, q, 4) == BCAST_OK && q[0] == -4 && q[1] == 3 && q[2] == 3,
              "pythondiv floors: %d %d %d", q[0], q[1], q[2]);
        bcast_op_free(op);
    }

    /* Contexts freed before or after their ops: both fine. */
    bcast_context_free(serial);
    bcast_context_free(parked);
    bcast_context_free(deflt);
    bcast_context_free(host);
    bcast_context_free(threads_host);
    bcast_context_free(team2);
    CHECK(bcast_release_pools() == BCAST_OK, "release");
    return finish("context");
}
