/*
 * The model group of `bcast bench` through bcast's C library: each case is one call of
 * bcast_binary (bcast_select for Select) into one reused output that has already been
 * written, timed as `bcast bench --group model` times it: batches of at least 2 ms, a case's
 * batches one after another (one untimed call first), about --budget-ms of batches per case,
 * the median over a case's batches. One JSON line per case:
 *
 *   {"who": "bcast_c", "case": ..., "threads": N, "us_per_call": ..., "batch": ...,
 *    "batches": ..., "bytes": ...}
 *
 * The cases come on standard input, one a line, as benches/compare_models.py writes them
 * from `bcast bench --group model --list` (the one table of the shapes):
 *
 *   NAME OP_CODE DTYPE RULE AXIS N_OPERANDS SHAPE...
 *
 * with OP_CODE a bcast_eltwise_op value, DTYPE a bcast dtype name (f32, f16, ...), RULE
 * none, numpy or pdpd, and each SHAPE its dims joined by commas ("-" for a scalar). Select's
 * operands are cond (bool), then, else.
 *
 * compare_models.py builds it against target/release/libbcast_c.so, which asks to be loaded
 * by its SONAME (libbcast_c.so.0.1), a name only `make install` makes: so the script links
 * through a folder of its own, target/release/model_bench_c.lib/, holding that name as a
 * link to target/release/libbcast_c.so, and records the folder as the program's rpath.
 *
 * `--threads N` is the C ABI's threads argument: 1 is the calling thread, N > 1 a pool of N
 * kept between calls (0, rayon's global pool, is refused here: a count is always named).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bcast.h"

#define MAX_CASES 512
#define MAX_OPERANDS 3
/* As bench_model.rs: the least time of a timed batch, the fewest and most batches. */
#define BATCH_SECONDS 2e-3
#define MIN_BATCHES 5
#define MAX_BATCHES 201

struct operand {
    size_t shape[BCAST_MAX_RANK];
    size_t rank;
    void *data;
};

struct model_case {
    char name[128];
    int op;
    bcast_dtype dtype;
    size_t elem;
    bcast_auto_broadcast ab;
    int64_t axis;
    size_t n;
    struct operand in[MAX_OPERANDS];
    void *out;
    size_t out_len;
    size_t out_elem;
    size_t batch;
    size_t batches;
    double *samples;
    size_t taken;
    int failed;
};

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The bits of an f16 holding `v`, rounded to nearest even (the operands' values are small
 * multiples of 0.5, exact in f16, but any normal value converts). */
static uint16_t f16_bits(float v) {
    uint32_t x;
    memcpy(&x, &v, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u;
    int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = x & 0x7fffffu;
    if (exp <= 0)
        return (uint16_t)sign; /* below f16's normal range: not made here */
    if (exp >= 31)
        return (uint16_t)(sign | 0x7c00u);
    uint32_t half = (uint32_t)exp << 10 | mant >> 13;
    uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        half++;
    return (uint16_t)(sign | half);
}

static const struct {
    const char *name;
    bcast_dtype dtype;
    size_t size;
} DTYPES[] = {
    {"boolean", BCAST_DTYPE_BOOL, 1}, {"i8", BCAST_DTYPE_I8, 1},
    {"i16", BCAST_DTYPE_I16, 2},      {"i32", BCAST_DTYPE_I32, 4},
    {"i64", BCAST_DTYPE_I64, 8},      {"u8", BCAST_DTYPE_U8, 1},
    {"u16", BCAST_DTYPE_U16, 2},      {"u32", BCAST_DTYPE_U32, 4},
    {"u64", BCAST_DTYPE_U64, 8},      {"f16", BCAST_DTYPE_F16, 2},
    {"bf16", BCAST_DTYPE_BF16, 2},    {"f32", BCAST_DTYPE_F32, 4},
    {"f64", BCAST_DTYPE_F64, 8},
};

/* Non-zero values that differ along the operand, as bench_eltwise.rs's `operand` makes them
 * (bool: alternating, so that Select takes both branches). */
static void *make_operand(size_t len, bcast_dtype dtype, size_t salt) {
    size_t size = 1;
    for (size_t k = 0; k < sizeof DTYPES / sizeof DTYPES[0]; k++)
        if (DTYPES[k].dtype == dtype)
            size = DTYPES[k].size;
    unsigned char *p = malloc((len ? len : 1) * size);
    if (!p)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        unsigned v = (unsigned)((i * 7 + salt) % 251 + 1);
        switch (dtype) {
        case BCAST_DTYPE_BOOL:
            p[i] = v % 2 == 0;
            break;
        case BCAST_DTYPE_F32: {
            float f = (float)v * 0.5f;
            memcpy(p + i * 4, &f, 4);
            break;
        }
        case BCAST_DTYPE_F64: {
            double d = (double)v * 0.5;
            memcpy(p + i * 8, &d, 8);
            break;
        }
        case BCAST_DTYPE_F16: {
            uint16_t h = f16_bits((float)v * 0.5f);
            memcpy(p + i * 2, &h, 2);
            break;
        }
        default:
            /* Integers: the value in the low byte, the rest zero. */
            memset(p + i * size, 0, size);
            p[i * size] = (unsigned char)v;
        }
    }
    return p;
}

static int parse_shape(const char *text, struct operand *o) {
    o->rank = 0;
    if (strcmp(text, "-") == 0)
        return 0;
    const char *s = text;
    while (*s) {
        char *end;
        unsigned long long d = strtoull(s, &end, 10);
        if (end == s || o->rank == BCAST_MAX_RANK)
            return -1;
        o->shape[o->rank++] = (size_t)d;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return 0;
}

static size_t shape_len(const size_t *shape, size_t rank) {
    size_t n = 1;
    for (size_t k = 0; k < rank; k++)
        n *= shape[k];
    return n;
}

static int call(struct model_case *c, size_t threads) {
    if (c->op == BCAST_OP_SELECT)
        return bcast_select(c->dtype, c->in[0].data, c->in[0].shape, c->in[0].rank, c->in[1].data,
                            c->in[1].shape, c->in[1].rank, c->in[2].data, c->in[2].shape,
                            c->in[2].rank, c->ab, c->axis, c->out, c->out_len, threads);
    return bcast_binary((bcast_binary_op)c->op, c->dtype, c->in[0].data, c->in[0].shape,
                        c->in[0].rank, c->in[1].data, c->in[1].shape, c->in[1].rank, c->ab,
                        c->axis, c->out, c->out_len, threads);
}

static double time_calls(struct model_case *c, size_t calls, size_t threads, int *status) {
    double start = now();
    for (size_t i = 0; i < calls; i++) {
        *status = call(c, threads);
        if (*status != BCAST_OK)
            return 0.0;
    }
    return (now() - start) / (double)(calls ? calls : 1);
}

static void json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

static void report_error(const char *name, size_t threads, const char *what) {
    printf("{\"who\": \"bcast_c\", \"case\": ");
    json_string(name);
    printf(", \"threads\": %zu, \"error\": ", threads);
    json_string(what);
    printf("}\n");
    fflush(stdout);
}

/* Reads one case line into `c`; 1 when read, 0 at the end, -1 for a line it cannot read. */
static int read_case(FILE *in, struct model_case *c, char *err, size_t err_len) {
    char line[8192];
    if (!fgets(line, sizeof line, in))
        return 0;
    memset(c, 0, sizeof *c);
    char dtype[32], rule[32];
    long long axis;
    int op;
    size_t n;
    int used = 0;
    if (sscanf(line, "%127s %d %31s %31s %lld %zu %n", c->name, &op, dtype, rule, &axis, &n,
               &used) != 6 ||
        n == 0 || n > MAX_OPERANDS) {
        snprintf(err, err_len, "cannot read the case line: %.400s", line);
        return -1;
    }
    c->op = op;
    c->axis = axis;
    c->n = n;
    c->elem = 0;
    for (size_t k = 0; k < sizeof DTYPES / sizeof DTYPES[0]; k++)
        if (strcmp(DTYPES[k].name, dtype) == 0) {
            c->dtype = DTYPES[k].dtype;
            c->elem = DTYPES[k].size;
        }
    if (!c->elem) {
        snprintf(err, err_len, "%s: unknown dtype %s", c->name, dtype);
        return -1;
    }
    if (strcmp(rule, "none") == 0)
        c->ab = BCAST_AB_NONE;
    else if (strcmp(rule, "numpy") == 0)
        c->ab = BCAST_AB_NUMPY;
    else if (strcmp(rule, "pdpd") == 0)
        c->ab = BCAST_AB_PDPD;
    else {
        snprintf(err, err_len, "%s: unknown rule %s", c->name, rule);
        return -1;
    }
    const char *rest = line + used;
    for (size_t j = 0; j < n; j++) {
        char shape[4096];
        int took = 0;
        if (sscanf(rest, "%4095s %n", shape, &took) != 1 || parse_shape(shape, &c->in[j]) != 0) {
            snprintf(err, err_len, "%s: cannot read operand %zu's shape", c->name, j);
            return -1;
        }
        rest += took;
    }
    return 1;
}

/* Operands, the output's shape and a written output for `c`; 0 on success. */
static int prepare(struct model_case *c, size_t threads, char *err, size_t err_len) {
    const size_t *shapes[MAX_OPERANDS];
    size_t ranks[MAX_OPERANDS];
    for (size_t j = 0; j < c->n; j++) {
        shapes[j] = c->in[j].shape;
        ranks[j] = c->in[j].rank;
    }
    size_t out_shape[BCAST_MAX_RANK], out_rank = 0;
    int st = bcast_eltwise_shape_n((bcast_eltwise_op)c->op, c->n, shapes, ranks, c->ab, c->axis,
                                   out_shape, BCAST_MAX_RANK, &out_rank);
    if (st != BCAST_OK) {
        snprintf(err, err_len, "output shape: %s", bcast_last_error_message());
        return -1;
    }
    c->out_len = shape_len(out_shape, out_rank);
    /* Comparisons and logical ops write bool. */
    c->out_elem = (c->op >= BCAST_OP_EQUAL && c->op <= BCAST_OP_LOGICAL_XOR) ? 1 : c->elem;
    for (size_t j = 0; j < c->n; j++) {
        bcast_dtype dt = (c->op == BCAST_OP_SELECT && j == 0) ? BCAST_DTYPE_BOOL : c->dtype;
        c->in[j].data = make_operand(shape_len(c->in[j].shape, c->in[j].rank), dt, 3 * j);
        if (!c->in[j].data) {
            snprintf(err, err_len, "out of memory");
            return -1;
        }
    }
    c->out = calloc(c->out_len ? c->out_len : 1, c->out_elem);
    if (!c->out) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    st = call(c, threads);
    if (st != BCAST_OK) {
        snprintf(err, err_len, "%s: %s", bcast_status_string(st), bcast_last_error_message());
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    size_t threads = 1;
    double budget = 1.5;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--budget-ms") == 0 && i + 1 < argc)
            budget = strtod(argv[++i], NULL) / 1000.0;
        else {
            fprintf(stderr,
                    "usage: model_bench_c [--threads N] [--budget-ms MS] < cases\n"
                    "(cases: NAME OP_CODE DTYPE RULE AXIS N_OPERANDS SHAPE..., one a line)\n");
            return 2;
        }
    }
    if (threads == 0) {
        fprintf(stderr, "model_bench_c: --threads must be at least 1\n");
        return 2;
    }
    static struct model_case cases[MAX_CASES];
    size_t n_cases = 0;
    char err[512];
    for (;;) {
        if (n_cases == MAX_CASES) {
            fprintf(stderr, "model_bench_c: more than %d cases\n", MAX_CASES);
            return 2;
        }
        struct model_case *c = &cases[n_cases];
        int got = read_case(stdin, c, err, sizeof err);
        if (got == 0)
            break;
        if (got < 0) {
            fprintf(stderr, "model_bench_c: %s\n", err);
            return 2;
        }
        if (prepare(c, threads, err, sizeof err) != 0) {
            report_error(c->name, threads, err);
            c->failed = 1;
        }
        n_cases++;
    }
    /* Batches sized from one call, then from the fastest of three runs of about a batch's
     * time of calls, as bench_model.rs sizes them. */
    for (size_t i = 0; i < n_cases; i++) {
        struct model_case *c = &cases[i];
        if (c->failed)
            continue;
        int st = BCAST_OK;
        double one = time_calls(c, 1, threads, &st);
        size_t calls = (size_t)(BATCH_SECONDS / (one > 1e-9 ? one : 1e-9)) + 1;
        if (calls > 1000000)
            calls = 1000000;
        /* The fastest of three, so that calls slowed by another process do not shrink the
         * batch. */
        for (int k = 0; k < 3 && st == BCAST_OK; k++) {
            double t = time_calls(c, calls, threads, &st);
            if (k == 0 || t < one)
                one = t;
        }
        if (st != BCAST_OK) {
            snprintf(err, sizeof err, "%s: %s", bcast_status_string(st),
                     bcast_last_error_message());
            report_error(c->name, threads, err);
            c->failed = 1;
            continue;
        }
        if (one < 1e-9)
            one = 1e-9;
        double b = BATCH_SECONDS / one;
        c->batch = b < 1.0 ? 1 : (size_t)(b + 0.999999);
        double batches = budget / (one * (double)c->batch);
        if (batches < MIN_BATCHES)
            batches = MIN_BATCHES;
        if (batches > MAX_BATCHES)
            batches = MAX_BATCHES;
        c->batches = (size_t)batches | 1;
        c->samples = malloc(c->batches * sizeof(double));
        if (!c->samples) {
            fprintf(stderr, "model_bench_c: out of memory\n");
            return 1;
        }
    }
    for (size_t i = 0; i < n_cases; i++) {
        struct model_case *c = &cases[i];
        if (c->failed)
            continue;
        /* One untimed call first: the case measured before this one left its data in the
         * caches. */
        int st = call(c, threads);
        for (size_t r = 0; r < c->batches && st == BCAST_OK; r++) {
            double t = time_calls(c, c->batch, threads, &st);
            if (st == BCAST_OK)
                c->samples[c->taken++] = t;
        }
        if (st != BCAST_OK) {
            snprintf(err, sizeof err, "%s: %s", bcast_status_string(st),
                     bcast_last_error_message());
            report_error(c->name, threads, err);
            c->failed = 1;
        }
    }
    for (size_t i = 0; i < n_cases; i++) {
        struct model_case *c = &cases[i];
        if (c->failed)
            continue;
        qsort(c->samples, c->taken, sizeof(double), cmp_double);
        double median = c->samples[c->taken / 2];
        printf("{\"who\": \"bcast_c\", \"case\": ");
        json_string(c->name);
        printf(", \"threads\": %zu, \"us_per_call\": %.4f, \"batch\": %zu, \"batches\": %zu, "
               "\"bytes\": %zu, \"version\": ",
               threads, median * 1e6, c->batch, c->taken, c->out_len * c->out_elem);
        json_string(bcast_version());
        printf("}\n");
    }
    fflush(stdout);
    bcast_release_pools();
    return 0;
}
