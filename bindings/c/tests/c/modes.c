/* Every mode, every element size: bcast's output shape and every output byte against the
 * naive reference in ref.h, on fixed cases from the specs and on random cases (about a
 * third of them breaking the rule, where bcast must refuse with the rule's message). */
#include "ref.h"

static const size_t SIZES[4] = {1, 2, 4, 8};

/* Fills n elements of `size` bytes with distinct, awkward bit patterns (NaN payloads,
 * -0.0, all-ones included). */
static void fill(void *buf, size_t n, size_t size) {
    unsigned char *b = buf;
    for (size_t i = 0; i < n * size; i++) b[i] = (unsigned char)(rnd() >> 56);
}

/* Runs one case through every entry point and compares with the reference. */
static void check_case(const ref_case *c) {
    ref_plan p;
    int want = ref_plan_make(c, &p);
    size_t shape[BCAST_MAX_RANK];
    size_t rank = 99;
    int st = bcast_output_shape(c->mode, c->data, c->data_rank, c->target, c->target_rank,
                                c->args, c->n_args, shape, BCAST_MAX_RANK, &rank);
    if (st != want) {
        fprintf(stderr, "case: ");
        print_case(stderr, c);
        fprintf(stderr, "\n");
    }
    CHECK(st == want, "bcast_output_shape returned %d, reference %d: %s", st, want,
          bcast_last_error_message());
    bcast_plan *plan = (bcast_plan *)1;
    int st2 = bcast_plan_create(c->mode, c->data, c->data_rank, c->target, c->target_rank,
                                c->args, c->n_args, &plan);
    CHECK(st2 == want, "bcast_plan_create returned %d, reference %d", st2, want);
    if (want != BCAST_OK) {
        CHECK(plan == NULL, "a failed create stores NULL");
        const char *msg = bcast_last_error_message();
        CHECK(msg[0] != '\0', "a failure has a message");
        if (want == BCAST_ERR_SHAPE) {
            char prefix[64];
            snprintf(prefix, sizeof prefix, "%s broadcast: ", mode_name(c->mode));
            CHECK(starts_with(msg, prefix), "message '%s' names the rule '%s'", msg, prefix);
        }
        return;
    }
    if (st != BCAST_OK || st2 != BCAST_OK) return;
    CHECK(rank == p.out_rank, "rank %zu, reference %zu", rank, p.out_rank);
    CHECK(memcmp(shape, p.out, rank * sizeof *shape) == 0, "output shape differs");
    size_t prank = 0, pshape[BCAST_MAX_RANK], plen = 0;
    CHECK(bcast_plan_output_shape(plan, pshape, BCAST_MAX_RANK, &prank) == BCAST_OK, "shape");
    CHECK(prank == p.out_rank && memcmp(pshape, p.out, prank * sizeof *pshape) == 0,
          "plan output shape differs");
    CHECK(bcast_plan_output_len(plan, &plen) == BCAST_OK, "len");
    size_t n_out = ref_count(p.out, p.out_rank), n_in = ref_count(c->data, c->data_rank);
    CHECK(plen == n_out, "output len %zu, reference %zu", plen, n_out);

    for (int s = 0; s < 4; s++) {
        size_t size = SIZES[s];
        /* +1: malloc(0) may return NULL, which is fine for bcast but not for memcmp */
        uint64_t *src = malloc(n_in * size + 8), *want_out = malloc(n_out * size + 8);
        uint64_t *got = malloc(n_out * size + 8), *got1 = malloc(n_out * size + 8);
        fill(src, n_in, size);
        fill(got, n_out, size);
        fill(got1, n_out, size);
        ref_broadcast(c, &p, src, want_out, size);
        size_t threads = (size_t[]){0, 1, 3}[rnd_below(3)];
        int r = bcast_plan_run(plan, src, got, size, threads);
        CHECK(r == BCAST_OK, "bcast_plan_run: %s", bcast_last_error_message());
        CHECK(memcmp(got, want_out, n_out * size) == 0, "plan output differs, elem %zu", size);
        r = bcast_broadcast(c->mode, c->data, c->data_rank, c->target, c->target_rank,
                            c->args, c->n_args, src, NULL, got1, size, threads);
        CHECK(r == BCAST_OK, "bcast_broadcast: %s", bcast_last_error_message());
        CHECK(memcmp(got1, want_out, n_out * size) == 0, "one-shot output differs, elem %zu",
              size);
        if (g_failures) {
            fprintf(stderr, "case: ");
            print_case(stderr, c);
            fprintf(stderr, " elem %zu\n", size);
        }
        free(src);
        free(want_out);
        free(got);
        free(got1);
    }
    CHECK(bcast_last_error_message()[0] == '\0', "no message after a success");
    bcast_plan_free(plan);
}


int main(void) {
    /* Fixed cases: the specs' examples and the edges (rank 0, zero-size axes). */
    static const ref_case fixed[] = {
        /* numpy */
        {BCAST_MODE_NUMPY, {3}, 1, {2, 3}, 2, {0}, 0},
        {BCAST_MODE_NUMPY, {16, 1, 1}, 3, {1, 16, 50, 50}, 4, {0}, 0},
        {BCAST_MODE_NUMPY, {0}, 0, {2, 2}, 2, {0}, 0},
        {BCAST_MODE_NUMPY, {3, 1}, 2, {3, 0}, 2, {0}, 0},
        {BCAST_MODE_NUMPY, {2, 1, 4}, 3, {5, 2, 3, 4}, 4, {0}, 0},
        {BCAST_MODE_NUMPY, {0}, 0, {0}, 0, {0}, 0},
        {BCAST_MODE_NUMPY, {3}, 1, {4}, 1, {0}, 0},
        /* bidirectional (ONNX Expand) */
        {BCAST_MODE_BIDIRECTIONAL, {3, 1}, 2, {2, 1, 6}, 3, {0}, 0},
        {BCAST_MODE_BIDIRECTIONAL, {16, 1, 1}, 3, {1, 1, 50, 50}, 4, {0}, 0},
        {BCAST_MODE_BIDIRECTIONAL, {1}, 1, {0}, 1, {0}, 0},
        {BCAST_MODE_BIDIRECTIONAL, {2, 3, 4}, 3, {1}, 1, {0}, 0},
        {BCAST_MODE_BIDIRECTIONAL, {2, 3}, 2, {3, 2}, 2, {0}, 0},
        /* explicit */
        {BCAST_MODE_EXPLICIT, {16}, 1, {1, 16, 50, 50}, 4, {1}, 1},
        {BCAST_MODE_EXPLICIT, {3, 1}, 2, {2, 3, 6}, 3, {1, 2}, 2},
        {BCAST_MODE_EXPLICIT, {0}, 0, {2, 3}, 2, {0}, 0},
        {BCAST_MODE_EXPLICIT, {3, 4}, 2, {3, 5, 4}, 3, {2, 0}, 2},
        /* pdpd */
        {BCAST_MODE_PDPD, {5, 1}, 2, {2, 3, 4, 5}, 4, {3}, 1},
        {BCAST_MODE_PDPD, {3, 4}, 2, {2, 3, 4, 5}, 4, {1}, 1},
        {BCAST_MODE_PDPD, {4, 5}, 2, {2, 3, 4, 5}, 4, {-1}, 1},
        {BCAST_MODE_PDPD, {4, 5}, 2, {2, 3, 4, 5}, 4, {0}, 0},
        {BCAST_MODE_PDPD, {8, 1, 6, 1}, 4, {7, 1, 5}, 3, {1}, 1},
        /* axes (nGraph v0) */
        {BCAST_MODE_AXES, {3}, 1, {2, 3}, 2, {0}, 1},
        {BCAST_MODE_AXES, {3}, 1, {3, 2}, 2, {1}, 1},
        {BCAST_MODE_AXES, {2, 3}, 2, {4, 2, 5, 3}, 4, {2, 0}, 2},
        {BCAST_MODE_AXES, {2, 3}, 2, {2, 3}, 2, {0}, 0},
        {BCAST_MODE_AXES, {3}, 1, {2, 3}, 2, {0, 0}, 2},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) check_case(&fixed[i]);

    /* A large one, so that threads 0 and 3 really split the work. */
    ref_case big = {BCAST_MODE_EXPLICIT, {64}, 1, {7, 64, 300}, 3, {1}, 1};
    check_case(&big);

    /* Random cases, 400 per mode. */
    long valid[5] = {0}, total[5] = {0};
    for (int mode = 0; mode < 5; mode++) {
        for (int i = 0; i < 400; i++) {
            ref_case c;
            ref_plan p;
            random_case(mode, &c);
            total[mode]++;
            valid[mode] += ref_plan_make(&c, &p) == BCAST_OK;
            check_case(&c);
        }
    }
    for (int mode = 0; mode < 5; mode++) {
        printf("%s: %ld of %ld random cases valid\n", mode_name(mode), valid[mode], total[mode]);
        CHECK(valid[mode] > total[mode] / 3 && valid[mode] < total[mode],
              "random cases cover both outcomes");
    }
    return finish("modes");
}
