#define _POSIX_C_SOURCE 200809L
/* Many host threads at once: 8 pthreads x 300 calls each, sharing one plan, making their
 * own, using every `threads` value (0, 1, 2, 4: the cached pools are shared by all), with
 * each thread's own error message checked to be its own. Results against the reference.
 *
 * The cached teams: bcast_release_pools() stops them (their workers, named bcast-team-<i>,
 * N - 1 for a team of N, are counted in /proc/self/task), a later call starts a new one, and releasing while the
 * host threads run calls on the pools changes none of their results. */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

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

/* The live threads of bcast's pools (-1 where /proc cannot tell). */
static int pool_threads(void) {
#ifdef __linux__
    DIR *dir = opendir("/proc/self/task");
    if (!dir) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[300], comm[32] = {0};
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue; /* a thread that has just exited */
        if (fgets(comm, sizeof comm, f) && strncmp(comm, "bcast-", 6) == 0) n++;
        fclose(f);
    }
    closedir(dir);
    return n;
#else
    return -1;
#endif
}

/* The pool threads once `want` of them run: a new thread takes its name when it starts,
 * which may be after the call that started its pool returned (gives up after 5 s). */
static int pool_threads_settled(int want) {
    const struct timespec ms = {0, 1000000};
    int n = pool_threads();
    for (int i = 0; i < 5000 && n != want; i++) {
        nanosleep(&ms, NULL);
        n = pool_threads();
    }
    return n;
}

/* The pool threads still listed once the joined ones have left /proc. pthread_join returns
 * when the kernel clears the thread's id (CLONE_CHILD_CLEARTID), a step of the thread's exit
 * that comes before its entry leaves /proc/self/task: for a moment after a join the thread
 * may still be listed. A joined thread is gone within that moment; a thread that was not
 * stopped stays listed for the whole 100 ms. */
static int pool_threads_after_join(void) {
    const struct timespec ms = {0, 1000000};
    int n = pool_threads();
    for (int i = 0; i < 100 && n > 0; i++) {
        nanosleep(&ms, NULL);
        n = pool_threads();
    }
    return n;
}

/* One run of the shared plan on `threads`, checked against the reference. */
static int run_shared_ok(size_t threads) {
    uint32_t *out = calloc(g_n_out, sizeof *out);
    int ok = out && bcast_plan_run(g_shared, g_src, out, 4, threads) == BCAST_OK &&
             memcmp(out, g_want, g_n_out * sizeof *out) == 0;
    free(out);
    return ok;
}

/* Releases the pools every millisecond while the host threads run. */
static atomic_int g_hosts_done;
static void *release_loop(void *arg) {
    long *releases = arg;
    const struct timespec ms = {0, 1000000};
    while (!atomic_load(&g_hosts_done)) {
        if (bcast_release_pools() != BCAST_OK) return (void *)1;
        (*releases)++;
        nanosleep(&ms, NULL);
    }
    return NULL;
}

static void pools_are_released(void) {
    int have_proc = pool_threads() >= 0;
    CHECK(bcast_release_pools() == BCAST_OK, "release with no pools: %s",
          bcast_last_error_message());
    if (have_proc) CHECK(pool_threads() == 0, "no pool threads before any pool");
    CHECK(run_shared_ok(2) && run_shared_ok(3), "runs on pools of 2 and 3");
    if (have_proc)
        CHECK(pool_threads_settled(3) == 3, "teams of 2 and 3: %d workers", pool_threads());
    CHECK(run_shared_ok(2), "the pool of 2 again");
    if (have_proc) CHECK(pool_threads() == 3, "the team of 2 reused: %d workers", pool_threads());
    CHECK(bcast_release_pools() == BCAST_OK, "release: %s", bcast_last_error_message());
    if (have_proc)
        CHECK(pool_threads_after_join() == 0,
              "the threads have exited when release returns: %d left", pool_threads());
    CHECK(run_shared_ok(2), "a new pool of 2 after the release");
    if (have_proc)
        CHECK(pool_threads_settled(1) == 1, "a new team of 2: %d workers", pool_threads());
    /* A success clears the thread's last error message, as every call does. */
    CHECK(bcast_release_pools() == BCAST_OK && bcast_last_error_message()[0] == '\0',
          "release again");
    if (have_proc) CHECK(pool_threads_after_join() == 0, "released again: %d", pool_threads());
    printf("threads: pools released%s\n", have_proc ? " (threads counted)" : "");
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
    pools_are_released();
    pthread_t tid[HOST_THREADS], releaser;
    worker w[HOST_THREADS];
    for (int i = 0; i < HOST_THREADS; i++) {
        w[i] = (worker){i, 0, 0};
        CHECK(pthread_create(&tid[i], NULL, work, &w[i]) == 0, "pthread_create");
    }
    long releases = 0;
    void *release_failed = NULL;
    CHECK(pthread_create(&releaser, NULL, release_loop, &releases) == 0, "pthread_create");
    long calls = 0;
    for (int i = 0; i < HOST_THREADS; i++) {
        pthread_join(tid[i], NULL);
        CHECK(w[i].failures == 0, "thread %d: %ld failures", i, w[i].failures);
        calls += w[i].calls;
    }
    atomic_store(&g_hosts_done, 1);
    pthread_join(releaser, &release_failed);
    CHECK(release_failed == NULL, "bcast_release_pools failed while the hosts ran");
    CHECK(bcast_release_pools() == BCAST_OK, "final release");
    CHECK(pool_threads_after_join() <= 0, "no pool thread left: %d", pool_threads());
    printf("threads: %d host threads, %ld calls, %ld pool releases meanwhile\n", HOST_THREADS,
           calls, releases);
    bcast_plan_free(g_shared);
    free(g_want);
    return finish("threads");
}
