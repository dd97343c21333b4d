/* The gradient, every dtype: bcast_reduce_to_input and bcast_plan_reduce against a naive
 * sum written from the rule (every output element adds its gradient to the data element
 * it was copied from). Integers wrap in their type; float values are small integers, so
 * every sum is exact in any order and the comparison is bit for bit. */
#include "ref.h"

/* float -> IEEE half / bfloat16 bits, for values exactly representable (small integers). */
static uint16_t f16_bits(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    if ((x & 0x7fffffffu) == 0) return (uint16_t)sign;
    int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
    return (uint16_t)(sign | ((uint32_t)exp << 10) | ((x >> 13) & 0x3ffu));
}
static uint16_t bf16_bits(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    return (uint16_t)(x >> 16);
}

static const struct {
    int code;
    size_t size;
    int kind; /* 0 int, 1 f16, 2 bf16, 3 f32, 4 f64 */
    const char *name;
} DTYPES[] = {
    {BCAST_DTYPE_I8, 1, 0, "i8"},    {BCAST_DTYPE_I16, 2, 0, "i16"},
    {BCAST_DTYPE_I32, 4, 0, "i32"},  {BCAST_DTYPE_I64, 8, 0, "i64"},
    {BCAST_DTYPE_U8, 1, 0, "u8"},    {BCAST_DTYPE_U16, 2, 0, "u16"},
    {BCAST_DTYPE_U32, 4, 0, "u32"},  {BCAST_DTYPE_U64, 8, 0, "u64"},
    {BCAST_DTYPE_F16, 2, 1, "f16"},  {BCAST_DTYPE_BF16, 2, 2, "bf16"},
    {BCAST_DTYPE_F32, 4, 3, "f32"},  {BCAST_DTYPE_F64, 8, 4, "f64"},
};

/* Stores v (an integer: wrapped to the width for ints, exact for floats) as element i. */
static void store(void *buf, size_t i, int kind, size_t size, int64_t v) {
    unsigned char *p = (unsigned char *)buf + i * size;
    switch (kind) {
    case 0: { /* two's complement truncation is the wrap of every int type */
        uint64_t u = (uint64_t)v;
        memcpy(p, &u, size); /* little-endian: the low bytes */
        break;
    }
    case 1: { uint16_t h = f16_bits((float)v); memcpy(p, &h, 2); break; }
    case 2: { uint16_t h = bf16_bits((float)v); memcpy(p, &h, 2); break; }
    case 3: { float f = (float)v; memcpy(p, &f, 4); break; }
    default: { double d = (double)v; memcpy(p, &d, 8); break; }
    }
}

static int check_reduce(const ref_case *c, int t, int use_plan) {
    ref_plan p;
    if (ref_plan_make(c, &p) != BCAST_OK) return 0;
    size_t size = DTYPES[t].size;
    int kind = DTYPES[t].kind;
    size_t n_out = ref_count(p.out, p.out_rank), n_in = ref_count(c->data, c->data_rank);
    int64_t *gv = malloc((n_out + 1) * sizeof *gv), *sum = calloc(n_in + 1, sizeof *sum);
    void *grad = malloc(n_out * size + 8), *want = malloc(n_in * size + 8);
    void *got = malloc(n_in * size + 8);
    for (size_t i = 0; i < n_out; i++) {
        /* ints: any value (sums wrap); floats: small integers (sums exact) */
        gv[i] = kind == 0 ? (int64_t)rnd() : (int64_t)rnd_below(kind == 2 ? 5 : 9) - (kind == 2 ? 2 : 4);
        store(grad, i, kind, size, gv[i]);
        /* unsigned 64-bit addition wraps; truncated to the width it is the type's wrap */
        size_t s = ref_source_index(c, &p, i);
        sum[s] = (int64_t)((uint64_t)sum[s] + (uint64_t)gv[i]);
    }
    for (size_t i = 0; i < n_in; i++) store(want, i, kind, size, sum[i]);
    memset(got, 0xAB, n_in * size + 8);
    size_t threads = (size_t[]){0, 1, 2}[rnd_below(3)];
    int st;
    if (use_plan) {
        bcast_plan *plan = NULL;
        st = bcast_plan_create(c->mode, c->data, c->data_rank, c->target, c->target_rank, c->args,
                               c->n_args, &plan);
        CHECK(st == BCAST_OK, "plan: %s", bcast_last_error_message());
        st = bcast_plan_reduce(plan, DTYPES[t].code, grad, got, threads);
        bcast_plan_free(plan);
    } else {
        st = bcast_reduce_to_input(c->mode, c->data, c->data_rank, c->target, c->target_rank,
                                   c->args, c->n_args, DTYPES[t].code, grad, got, threads);
    }
    CHECK(st == BCAST_OK, "%s reduce: %s", DTYPES[t].name, bcast_last_error_message());
    int same = memcmp(got, want, n_in * size) == 0;
    CHECK(same, "%s reduce differs", DTYPES[t].name);
    if (!same) {
        print_case(stderr, c);
        fprintf(stderr, "\n");
    }
    free(gv);
    free(sum);
    free(grad);
    free(want);
    free(got);
    return 1;
}

int main(void) {
    long done = 0;
    for (size_t t = 0; t < sizeof DTYPES / sizeof *DTYPES; t++) {
        /* A bias over a batch, fixed. */
        ref_case bias = {BCAST_MODE_NUMPY, {3}, 1, {4, 3}, 2, {0}, 0};
        done += check_reduce(&bias, (int)t, 0);
        /* An empty gradient sums to zeros. */
        ref_case empty = {BCAST_MODE_NUMPY, {3}, 1, {0, 3}, 2, {0}, 0};
        done += check_reduce(&empty, (int)t, 1);
        /* A large one, so that the threaded path runs (2^16 and more gradient elements). */
        ref_case big = {BCAST_MODE_EXPLICIT, {32}, 1, {40, 32, 60}, 3, {1}, 1};
        done += check_reduce(&big, (int)t, (int)(t & 1));
        for (int mode = 0; mode < 5; mode++) {
            for (int i = 0; i < 40; i++) {
                ref_case c;
                random_case(mode, &c);
                done += check_reduce(&c, (int)t, i & 1);
            }
        }
    }
    printf("reduce: %ld reductions\n", done);
    CHECK(done > 1000, "enough valid cases: %ld", done);
    return finish("reduce");
}
