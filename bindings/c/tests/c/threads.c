#define _POSIX_C_SOURCE 200809L
/* Many host threads at once: 8 pthreads x 300 calls each, sharing one plan, making their
 * own, using every `threads` value (0, 1, 2, 4: the cached pools are shared by all), with
 * each thread's own error message checked to be its own. Results against the reference. */
#include <pthread.h>

#include "ref.h"

#define HOST_THREADS 8
#define ROUNDS 300

static bcast_plan *g_shared;
static const ref_case g_case = {BCAST_MODE_EXPLICIT, {64, 1}, 2, {3, 64, 512}, 3, {1, 2}, 2};
static ref_plan g_ref;
static uint32_t g_src[64];
static uint32_t *g_want;
static size_t g_n_out;

typedef struct {
    int id;
    long failures;
    long calls;
} worker;

static void *work(void *arg) {
    worker *w = arg;
    uint32_t *out = malloc(g_n_out * sizeof *out);
    for (int round = 0; round < ROUNDS; round++) {
        size_t threads = (size_t[]){0, 1, 2, 4}[(round + w->id) % 4];
        /* the shared plan */
        memset(out, 0, g_n_out * sizeof *out);
        w->calls++;
        if (bcast_plan_run(g_shared, g_src, out, 4, threads) != BCAST_OK ||
            memcmp(out, g_want, g_n_out * sizeof *out) != 0)
            w->failures++;
        /* a plan of its own, and a small one-shot */
        bcast_plan *mine = NULL;
        size_t d[] = {(size_t)w->id + 1}, t[] = {3, (size_t)w->id + 1};
        w->calls++;
        if (bcast_plan_create(BCAST_MODE_NUMPY, d, 1, t, 2, NULL, 0, &mine) != BCAST_OK)
            w->failures++;
        uint64_t src[8], dst[24];
        for (int i = 0; i < w->id + 1; i++) src[i] = ((uint64_t)w->id << 32) | (uint64_t)i;
        w->calls++;
        if (bcast_plan_run(mine, src, dst, 8, threads) != BCAST_OK) w->failures++;
        for (int r = 0; r < 3; r++)
            for (int i = 0; i < w->id + 1; i++)
                if (dst[r * (w->id + 1) + i] != src[i]) w->failures++;
        bcast_plan_free(mine);
        /* an error whose message names this thread's shapes; another thread's error in
         * between must not change it */
        size_t bad_d[] = {(size_t)w->id + 2}, bad_t[] = {(size_t)w->id + 100};
        w->calls++;
        if (bcast_plan_create(BCAST_MODE_NUMPY, bad_d, 1, bad_t, 1, NULL, 0, &mine) !=
            BCAST_ERR_SHAPE)
            w->failures++;
        char want_msg[200];
        snprintf(want_msg, sizeof want_msg,
                 "numpy broadcast: data dim %d at axis 0 cannot become %d (must be 1 or %d); "
                 "data shape [%d], target shape [%d]",
                 w->id + 2, w->id + 100, w->id + 100, w->id + 2, w->id + 100);
        if (round % 8 == 0) sched_yield();
        if (strcmp(bcast_last_error_message(), want_msg) != 0) {
            fprintf(stderr, "thread %d: message '%s'\n", w->id, bcast_last_error_message());
            w->failures++;
        }
    }
    free(out);
    return NULL;
}

int main(void) {
    for (int i = 0; i < 64; i++) g_src[i] = 0x3F800000u + (uint32_t)i * 77u;
    CHECK(ref_plan_make(&g_case, &g_ref) == BCAST_OK, "reference plan");
    g_n_out = ref_count(g_ref.out, g_ref.out_rank);
    g_want = malloc(g_n_out * sizeof *g_want);
    ref_broadcast(&g_case, &g_ref, g_src, g_want, 4);
    CHECK(bcast_plan_create(g_case.mode, g_case.data, g_case.data_rank, g_case.target,
                            g_case.target_rank, g_case.args, g_case.n_args, &g_shared) == BCAST_OK,
          "shared plan");
    pthread_t tid[HOST_THREADS];
    worker w[HOST_THREADS];
    for (int i = 0; i < HOST_THREADS; i++) {
        w[i] = (worker){i, 0, 0};
        CHECK(pthread_create(&tid[i], NULL, work, &w[i]) == 0, "pthread_create");
    }
    long calls = 0;
    for (int i = 0; i < HOST_THREADS; i++) {
        pthread_join(tid[i], NULL);
        CHECK(w[i].failures == 0, "thread %d: %ld failures", i, w[i].failures);
        calls += w[i].calls;
    }
    printf("threads: %d host threads, %ld calls\n", HOST_THREADS, calls);
    bcast_plan_free(g_shared);
    free(g_want);
    return finish("threads");
}
