/* bcast_broadcast with src_strides: a runtime's non-contiguous tensor (transposed, sliced,
 * reversed, a broadcast view with zero strides) read in logical order. Expected: gather the
 * elements by their strides (naively), then the reference broadcast. */
#include "ref.h"

static const size_t SIZES[4] = {1, 2, 4, 8};

/* Runs case `c` with data laid out by `strides` from `base` (element (0,...,0)). */
static void check_strided(const ref_case *c, const void *base, const int64_t *strides,
                          size_t size) {
    ref_plan p;
    if (ref_plan_make(c, &p) != BCAST_OK) return;
    size_t n_in = ref_count(c->data, c->data_rank), n_out = ref_count(p.out, p.out_rank);
    unsigned char *dense = malloc(n_in * size + 8), *want = malloc(n_out * size + 8);
    unsigned char *got = malloc(n_out * size + 8);
    /* gather: element i of the row-major order */
    for (size_t i = 0; i < n_in; i++) {
        size_t rest = i;
        int64_t off = 0;
        for (size_t k = c->data_rank; k-- > 0;) {
            off += (int64_t)(rest % c->data[k]) * strides[k];
            rest /= c->data[k];
        }
        memcpy(dense + i * size, (const unsigned char *)base + off * (int64_t)size, size);
    }
    ref_broadcast(c, &p, dense, want, size);
    memset(got, 0x5A, n_out * size + 8);
    size_t threads = (size_t[]){0, 1, 4}[rnd_below(3)];
    int st = bcast_broadcast(c->mode, c->data, c->data_rank, c->target, c->target_rank, c->args,
                             c->n_args, base, strides, got, size, threads);
    CHECK(st == BCAST_OK, "strided: %s", bcast_last_error_message());
    int same = memcmp(got, want, n_out * size) == 0;
    CHECK(same, "strided output differs (elem %zu)", size);
    if (!same) {
        print_case(stderr, c);
        fprintf(stderr, " strides [");
        for (size_t k = 0; k < c->data_rank; k++) fprintf(stderr, " %lld", (long long)strides[k]);
        fprintf(stderr, " ]\n");
    }
    free(dense);
    free(want);
    free(got);
}

/* A random layout of the data: axes in a random memory order, padded, some reversed. */
static void random_layout(const ref_case *c, size_t size) {
    size_t rank = c->data_rank;
    size_t order[REF_MAX_RANK], padded[REF_MAX_RANK];
    int64_t strides[REF_MAX_RANK];
    for (size_t k = 0; k < rank; k++) order[k] = k;
    for (size_t k = rank; k > 1; k--) {
        size_t j = rnd_below(k), tmp = order[k - 1];
        order[k - 1] = order[j];
        order[j] = tmp;
    }
    size_t total = 1;
    for (size_t k = rank; k-- > 0;) { /* order[rank-1] is innermost in memory */
        size_t axis = order[k];
        padded[axis] = c->data[axis] + rnd_below(2);
        strides[axis] = (int64_t)total;
        total *= padded[axis] ? padded[axis] : 1;
    }
    int64_t start = 0;
    for (size_t k = 0; k < rank; k++) {
        if (c->data[k] > 1 && rnd_below(3) == 0) { /* reversed axis */
            start += strides[k] * (int64_t)(c->data[k] - 1);
            strides[k] = -strides[k];
        } else if (c->data[k] > 1 && rnd_below(6) == 0) { /* a broadcast view: stride 0 */
            strides[k] = 0;
        }
    }
    unsigned char *buf = malloc(total * size + 8);
    for (size_t i = 0; i < total * size; i++) buf[i] = (unsigned char)(rnd() >> 56);
    check_strided(c, buf + start * (int64_t)size, strides, size);
    free(buf);
}

int main(void) {
    /* Fixed: a [3,4] transpose of a row-major [4,3] buffer, broadcast to [2,3,4]. */
    {
        float t43[12];
        for (int i = 0; i < 12; i++) t43[i] = (float)i;
        ref_case c = {BCAST_MODE_NUMPY, {3, 4}, 2, {2, 3, 4}, 3, {0}, 0};
        const int64_t transposed[] = {1, 3};
        check_strided(&c, t43, transposed, 4);
        /* rows reversed: element (0,0) is the last row's first */
        ref_case r = {BCAST_MODE_NUMPY, {4, 3}, 2, {2, 4, 3}, 3, {0}, 0};
        const int64_t reversed[] = {-3, 1};
        check_strided(&r, t43 + 9, reversed, 4);
        /* every other column of a [3,4]: a [3,2] slice */
        ref_case s = {BCAST_MODE_EXPLICIT, {3, 2}, 2, {3, 5, 2}, 3, {0, 2}, 2};
        const int64_t sliced[] = {4, 2};
        check_strided(&s, t43, sliced, 4);
        /* a broadcast view as input: stride 0 */
        ref_case z = {BCAST_MODE_BIDIRECTIONAL, {3, 4}, 2, {2, 1, 1}, 3, {0}, 0};
        const int64_t zero[] = {0, 1};
        check_strided(&z, t43, zero, 4);
        /* the strides of a row-major tensor take the direct path */
        const int64_t rowmajor[] = {4, 1};
        check_strided(&c, t43, rowmajor, 4);
        /* a scalar with strides (none to read) */
        ref_case sc = {BCAST_MODE_NUMPY, {0}, 0, {2, 2}, 2, {0}, 0};
        check_strided(&sc, t43 + 5, rowmajor, 4);
    }
    for (int mode = 0; mode < 5; mode++) {
        for (int i = 0; i < 120; i++) {
            ref_case c;
            random_case(mode, &c);
            random_layout(&c, SIZES[i % 4]);
        }
    }
    return finish("strides");
}
