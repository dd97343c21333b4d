/* Element-wise ops: bcast_binary, bcast_select and bcast_eltwise_shape against a naive
 * reference written from the auto-broadcast rules (numpy: right-aligned, a dim of 1 reads
 * index 0; pdpd: b, trailing 1s dropped, laid on a's axes from `axis`; none: equal shapes)
 * and from each op's definition (integers wrap; Divide floors or truncates; comparisons
 * give one byte 0/1). Float values are small integers or halves, so every result is exact
 * and the comparison is bit for bit. Then the errors, each a status. */
#include <math.h>

#include "ref.h"

#define R 5 /* the most axes used here */

typedef struct {
    size_t a[R], b[R], c[R], out[R];
    size_t ra, rb, rc, rout;
    int ab;
    int64_t axis;
} ecase;

static size_t count(const size_t *s, size_t r) { return ref_count(s, r); }

/* The index into an operand of shape s (rank r) that the output's multi-index idx reads:
 * numpy right-aligned (a dim of 1 reads 0); pdpd: s (trailing 1s dropped) from `start`. */
static size_t src_index(const size_t *idx, size_t rout, const size_t *s, size_t r, int pdpd,
                        size_t start) {
    size_t flat = 0;
    if (pdpd) {
        while (r > 0 && s[r - 1] == 1) r--;
        for (size_t j = 0; j < r; j++) flat = flat * s[j] + (s[j] == 1 ? 0 : idx[start + j]);
        return flat;
    }
    for (size_t j = 0; j < r; j++) {
        size_t o = rout - r + j;
        flat = flat * s[j] + (s[j] == 1 ? 0 : idx[o]);
    }
    return flat;
}

static void unflat(size_t i, const size_t *s, size_t r, size_t *idx) {
    for (size_t k = r; k-- > 0;) {
        idx[k] = i % s[k];
        i /= s[k];
    }
}

/* pdpd start axis of b within a: axis, or -1: rank(a) - rank(b) (b's full rank; SIZE_MAX
 * when negative, which is an error). */
static size_t pdpd_start(const size_t *a, size_t ra, const size_t *b, size_t rb, int64_t axis) {
    (void)a;
    (void)b;
    if (axis != -1) return (size_t)axis;
    return rb > ra ? SIZE_MAX : ra - rb;
}

/* A random valid case of rule ab (with a third shape c for select, placed like b). */
static void random_ecase(int ab, ecase *e) {
    memset(e, 0, sizeof *e);
    e->ab = ab;
    e->axis = -1;
    if (ab == BCAST_AB_NUMPY) {
        size_t r = rnd_below(R);
        size_t full[R];
        for (size_t k = 0; k < r; k++) full[k] = 1 + rnd_below(3);
        size_t *ops[3] = {e->a, e->b, e->c};
        size_t *rk[3] = {&e->ra, &e->rb, &e->rc};
        for (int o = 0; o < 3; o++) {
            *rk[o] = rnd_below(r + 1);
            for (size_t j = 0; j < *rk[o]; j++)
                ops[o][j] = rnd_below(3) ? full[r - *rk[o] + j] : 1;
        }
        /* output: per right-aligned axis the max of the three (1 where all are 1) */
        e->rout = r;
        for (size_t k = 0; k < r; k++) e->out[k] = 1;
        for (int o = 0; o < 3; o++)
            for (size_t j = 0; j < *rk[o]; j++) {
                size_t k = r - *rk[o] + j;
                if (ops[o][j] != 1) e->out[k] = ops[o][j];
            }
        return;
    }
    e->ra = 1 + rnd_below(R - 1);
    for (size_t k = 0; k < e->ra; k++) e->a[k] = 1 + rnd_below(3);
    e->rout = e->ra;
    memcpy(e->out, e->a, sizeof e->a);
    if (ab == BCAST_AB_NONE) {
        e->rb = e->rc = e->ra;
        memcpy(e->b, e->a, sizeof e->a);
        memcpy(e->c, e->a, sizeof e->a);
        return;
    }
    /* pdpd: b and c on a's axes [start, start + len), each dim a's or 1, maybe trailing 1s */
    size_t start = rnd_below(e->ra + 1), len = rnd_below(e->ra - start + 1);
    size_t *ops[2] = {e->b, e->c};
    size_t *rk[2] = {&e->rb, &e->rc};
    for (int o = 0; o < 2; o++) {
        for (size_t j = 0; j < len; j++) ops[o][j] = rnd_below(3) ? e->a[start + j] : 1;
        *rk[o] = len;
        if (start + len < e->ra && rnd_below(3) == 0) ops[o][(*rk[o])++] = 1; /* rank(b) <= rank(a) */
    }
    /* -1 only where it means the same start for both b and c */
    size_t sb = pdpd_start(e->a, e->ra, e->b, e->rb, -1);
    size_t sc = pdpd_start(e->a, e->ra, e->c, e->rc, -1);
    e->axis = (sb == start && sc == start && rnd_below(2)) ? -1 : (int64_t)start;
}

/* ---- values: every dtype tested stored from / compared as int64 or double ---- */
enum kind { K_INT, K_UINT, K_F32, K_F64, K_BOOL };
typedef struct {
    int code;
    size_t size;
    enum kind kind;
    const char *name;
} dt;
static const dt DT[] = {
    {BCAST_DTYPE_I8, 1, K_INT, "i8"},    {BCAST_DTYPE_I32, 4, K_INT, "i32"},
    {BCAST_DTYPE_I64, 8, K_INT, "i64"},  {BCAST_DTYPE_U8, 1, K_UINT, "u8"},
    {BCAST_DTYPE_U32, 4, K_UINT, "u32"}, {BCAST_DTYPE_F32, 4, K_F32, "f32"},
    {BCAST_DTYPE_F64, 8, K_F64, "f64"},
};
static const dt DT_BOOL = {BCAST_DTYPE_BOOL, 1, K_BOOL, "bool"};

/* Element i of buf as int64 (ints sign- or zero-extended) or double. */
static int64_t get_i(const void *buf, size_t i, const dt *t) {
    const unsigned char *p = (const unsigned char *)buf + i * t->size;
    switch (t->size) {
    case 1: return t->kind == K_INT ? (int64_t) * (const int8_t *)p : (int64_t) * (const uint8_t *)p;
    case 2: return t->kind == K_INT ? (int64_t) * (const int16_t *)p : (int64_t) * (const uint16_t *)p;
    case 4: return t->kind == K_INT ? (int64_t) * (const int32_t *)p : (int64_t) * (const uint32_t *)p;
    default: return *(const int64_t *)p;
    }
}
static double get_f(const void *buf, size_t i, const dt *t) {
    return t->kind == K_F32 ? (double)((const float *)buf)[i] : ((const double *)buf)[i];
}
/* Stores an int64 (truncated to the width: the type's wrap) or a double. */
static void put(void *buf, size_t i, const dt *t, int64_t v, double f) {
    unsigned char *p = (unsigned char *)buf + i * t->size;
    if (t->kind == K_F32) { float x = (float)f; memcpy(p, &x, 4); }
    else if (t->kind == K_F64) memcpy(p, &f, 8);
    else { uint64_t u = (uint64_t)v; memcpy(p, &u, t->size); }
}
/* The width's wrap of v, read back with the type's sign. */
static int64_t wrap(int64_t v, const dt *t) {
    unsigned char tmp[8];
    put(tmp, 0, t, v, 0);
    return get_i(tmp, 0, t);
}

static void fill(void *buf, size_t n, const dt *t, int nonzero) {
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        double f;
        do {
            v = t->kind == K_INT ? (int64_t)rnd_below(41) - 20 : (int64_t)rnd_below(41);
            if (t->kind == K_INT && rnd_below(8) == 0) v = (int64_t)rnd(); /* wraps */
            if (t->kind == K_UINT && rnd_below(8) == 0) v = (int64_t)rnd();
            f = (double)((int64_t)rnd_below(33) - 16) / 2.0;
            if (t->kind == K_BOOL) v = (int64_t)rnd_below(2);
        } while (nonzero && (t->kind <= K_UINT ? wrap(v, t) == 0 : f == 0.0));
        put(buf, i, t, v, f);
    }
}

/* ---- the ops' reference ---- */
typedef struct { int op; const char *name; int out_bool; int divides; } opdef;
static const opdef OPS[] = {
    {BCAST_OP_ADD, "add", 0, 0},           {BCAST_OP_SUBTRACT, "subtract", 0, 0},
    {BCAST_OP_MULTIPLY, "multiply", 0, 0}, {BCAST_OP_DIVIDE, "divide", 0, 1},
    {BCAST_OP_DIVIDE_TRUNC, "divide_trunc", 0, 1},
    {BCAST_OP_MAXIMUM, "maximum", 0, 0},   {BCAST_OP_MINIMUM, "minimum", 0, 0},
    {BCAST_OP_SQUARED_DIFFERENCE, "squared_difference", 0, 0},
    {BCAST_OP_FLOOR_MOD, "floor_mod", 0, 1}, {BCAST_OP_MOD, "mod", 0, 1},
    {BCAST_OP_EQUAL, "equal", 1, 0},       {BCAST_OP_NOT_EQUAL, "not_equal", 1, 0},
    {BCAST_OP_LESS, "less", 1, 0},         {BCAST_OP_LESS_EQUAL, "less_equal", 1, 0},
    {BCAST_OP_GREATER, "greater", 1, 0},   {BCAST_OP_GREATER_EQUAL, "greater_equal", 1, 0},
};

/* int op in the type (x, y already in range); unsigned 64-bit arithmetic is the wrap. */
static int64_t int_op(int op, int64_t x, int64_t y, const dt *t) {
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
    int neg = t->kind == K_INT;
    switch (op) {
    case BCAST_OP_ADD: return wrap((int64_t)(ux + uy), t);
    case BCAST_OP_SUBTRACT: return wrap((int64_t)(ux - uy), t);
    case BCAST_OP_MULTIPLY: return wrap((int64_t)(ux * uy), t);
    case BCAST_OP_SQUARED_DIFFERENCE: { uint64_t d = (uint64_t)wrap((int64_t)(ux - uy), t); return wrap((int64_t)(d * d), t); }
    case BCAST_OP_MAXIMUM: return x < y ? y : x;
    case BCAST_OP_MINIMUM: return y < x ? y : x;
    default: break;
    }
    /* division: in the type's own signedness (u64 values above INT64_MAX not used here) */
    if (neg && t->size == 8 && x == INT64_MIN && y == -1)
        return op == BCAST_OP_DIVIDE || op == BCAST_OP_DIVIDE_TRUNC ? INT64_MIN : 0;
    int64_t q = x / y, r = x % y;
    switch (op) {
    case BCAST_OP_DIVIDE_TRUNC: return wrap(q, t);
    case BCAST_OP_DIVIDE: return wrap((r != 0 && ((x < 0) != (y < 0))) ? q - 1 : q, t);
    case BCAST_OP_MOD: return r;
    default: return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r; /* floor_mod */
    }
}
static double float_op(int op, double x, double y, int is_f32) {
    double r;
    switch (op) {
    case BCAST_OP_ADD: r = x + y; break;
    case BCAST_OP_SUBTRACT: r = x - y; break;
    case BCAST_OP_MULTIPLY: r = x * y; break;
    case BCAST_OP_DIVIDE: case BCAST_OP_DIVIDE_TRUNC:
        r = is_f32 ? (double)((float)x / (float)y) : x / y; break;
    case BCAST_OP_SQUARED_DIFFERENCE: r = (x - y) * (x - y); break;
    case BCAST_OP_MAXIMUM: r = x < y ? y : x; break;
    case BCAST_OP_MINIMUM: r = y < x ? y : x; break;
    case BCAST_OP_MOD: r = fmod(x, y); break;
    default: r = x - y * floor(x / y); break; /* floor_mod */
    }
    return r;
}
static int cmp_op(int op, double x, double y) {
    switch (op) {
    case BCAST_OP_EQUAL: return x == y;
    case BCAST_OP_NOT_EQUAL: return x != y;
    case BCAST_OP_LESS: return x < y;
    case BCAST_OP_LESS_EQUAL: return x <= y;
    case BCAST_OP_GREATER: return x > y;
    default: return x >= y;
    }
}

/* Output multi-index i's source indices in a and b (and c unless ic is NULL) under the
 * case's rule. */
static void sources(const ecase *e, size_t i, size_t *ia, size_t *ib, size_t *ic) {
    size_t idx[R];
    unflat(i, e->out, e->rout, idx);
    int pdpd = e->ab == BCAST_AB_PDPD;
    *ia = src_index(idx, e->rout, e->a, e->ra, 0, 0);
    *ib = src_index(idx, e->rout, e->b, e->rb, pdpd, pdpd ? pdpd_start(e->a, e->ra, e->b, e->rb, e->axis) : 0);
    if (ic) *ic = src_index(idx, e->rout, e->c, e->rc, pdpd, pdpd ? pdpd_start(e->a, e->ra, e->c, e->rc, e->axis) : 0);
}

static void print_ecase(const ecase *e) {
    fprintf(stderr, "  ab %d axis %lld a[", e->ab, (long long)e->axis);
    for (size_t k = 0; k < e->ra; k++) fprintf(stderr, "%zu,", e->a[k]);
    fprintf(stderr, "] b[");
    for (size_t k = 0; k < e->rb; k++) fprintf(stderr, "%zu,", e->b[k]);
    fprintf(stderr, "] c[");
    for (size_t k = 0; k < e->rc; k++) fprintf(stderr, "%zu,", e->c[k]);
    fprintf(stderr, "]\n");
}

static long check_shape(const ecase *e) {
    size_t shape[BCAST_MAX_RANK], rank = 99;
    int st = bcast_eltwise_shape(e->a, e->ra, e->b, e->rb, (bcast_auto_broadcast)e->ab, e->axis,
                                 shape, BCAST_MAX_RANK, &rank);
    CHECK(st == BCAST_OK, "eltwise_shape: %s", bcast_last_error_message());
    if (st != BCAST_OK) { print_ecase(e); return 0; }
    /* numpy: a with b alone may be smaller than the case's output (which includes c) */
    if (e->ab != BCAST_AB_NUMPY) {
        CHECK(rank == e->rout && memcmp(shape, e->out, rank * sizeof *shape) == 0, "shape");
    }
    return 1;
}

static long check_binary(const ecase *e0, const opdef *o, const dt *t) {
    /* the binary output is a with b: drop c from the case (c = a's copy) */
    ecase e = *e0;
    memcpy(e.c, e.a, sizeof e.a);
    e.rc = e.ra;
    if (e.ab == BCAST_AB_NUMPY) { /* recompute the output without c's dims */
        e.rout = e.ra > e.rb ? e.ra : e.rb;
        for (size_t k = 0; k < e.rout; k++) e.out[k] = 1;
        for (size_t j = 0; j < e.ra; j++) if (e.a[j] != 1) e.out[e.rout - e.ra + j] = e.a[j];
        for (size_t j = 0; j < e.rb; j++) if (e.b[j] != 1) e.out[e.rout - e.rb + j] = e.b[j];
    }
    size_t na = count(e.a, e.ra), nb = count(e.b, e.rb), n = count(e.out, e.rout);
    const dt *ot = o->out_bool ? &DT_BOOL : t;
    void *a = malloc(na * t->size + 8), *b = malloc(nb * t->size + 8);
    void *got = malloc(n * ot->size + 8), *want = malloc(n * ot->size + 8);
    fill(a, na, t, 0);
    fill(b, nb, t, o->divides);
    int is_float = t->kind == K_F32 || t->kind == K_F64;
    for (size_t i = 0; i < n; i++) {
        size_t ia, ib;
        sources(&e, i, &ia, &ib, NULL);
        if (o->out_bool) {
            double x = is_float ? get_f(a, ia, t) : (double)get_i(a, ia, t);
            double y = is_float ? get_f(b, ib, t) : (double)get_i(b, ib, t);
            if (!is_float) { /* exact compare of int64 */
                int64_t xi = get_i(a, ia, t), yi = get_i(b, ib, t);
                x = xi < yi ? 0 : (xi == yi ? 1 : 2);
                y = 1;
            }
            ((unsigned char *)want)[i] = (unsigned char)cmp_op(o->op, x, y);
        } else if (is_float) {
            put(want, i, t, 0, float_op(o->op, get_f(a, ia, t), get_f(b, ib, t), t->kind == K_F32));
        } else {
            put(want, i, t, int_op(o->op, get_i(a, ia, t), get_i(b, ib, t), t), 0);
        }
    }
    memset(got, 0xAB, n * ot->size + 8);
    size_t threads = (size_t[]){0, 1, 3}[rnd_below(3)];
    int st = bcast_binary((bcast_binary_op)o->op, (bcast_dtype)t->code, a, e.a, e.ra, b, e.b, e.rb,
                          (bcast_auto_broadcast)e.ab, e.axis, got, n, threads);
    CHECK(st == BCAST_OK, "%s %s: %s", o->name, t->name, bcast_last_error_message());
    int same = memcmp(got, want, n * ot->size) == 0;
    CHECK(same, "%s %s: differs from the reference", o->name, t->name);
    CHECK(((unsigned char *)got)[n * ot->size] == 0xAB, "%s %s: wrote past the output", o->name, t->name);
    if (st != BCAST_OK || !same) print_ecase(&e);
    free(a); free(b); free(got); free(want);
    return 1;
}

static long check_logical(const ecase *e0, int op) {
    ecase e = *e0;
    memcpy(e.c, e.a, sizeof e.a); /* c is not an operand here */
    e.rc = e.ra;
    if (e.ab == BCAST_AB_NUMPY) {
        e.rout = e.ra > e.rb ? e.ra : e.rb;
        for (size_t k = 0; k < e.rout; k++) e.out[k] = 1;
        for (size_t j = 0; j < e.ra; j++) if (e.a[j] != 1) e.out[e.rout - e.ra + j] = e.a[j];
        for (size_t j = 0; j < e.rb; j++) if (e.b[j] != 1) e.out[e.rout - e.rb + j] = e.b[j];
    }
    size_t na = count(e.a, e.ra), nb = count(e.b, e.rb), n = count(e.out, e.rout);
    unsigned char *a = malloc(na + 1), *b = malloc(nb + 1), *got = malloc(n + 1), *want = malloc(n + 1);
    for (size_t i = 0; i < na; i++) a[i] = (unsigned char)rnd_below(2);
    for (size_t i = 0; i < nb; i++) b[i] = (unsigned char)rnd_below(2);
    for (size_t i = 0; i < n; i++) {
        size_t ia, ib;
        sources(&e, i, &ia, &ib, NULL);
        want[i] = (unsigned char)(op == BCAST_OP_LOGICAL_AND ? (a[ia] & b[ib])
                                  : op == BCAST_OP_LOGICAL_OR ? (a[ia] | b[ib])
                                                              : (a[ia] ^ b[ib]));
    }
    int st = bcast_binary((bcast_binary_op)op, BCAST_DTYPE_BOOL, a, e.a, e.ra, b, e.b, e.rb,
                          (bcast_auto_broadcast)e.ab, e.axis, got, n, 0);
    CHECK(st == BCAST_OK && memcmp(got, want, n) == 0, "logical %d: %s", op, bcast_last_error_message());
    free(a); free(b); free(got); free(want);
    return 1;
}

/* select: then is a, else is b, cond is c (pdpd: cond and else onto then). */
static long check_select(const ecase *e, const dt *t) {
    size_t nt = count(e->a, e->ra), ne = count(e->b, e->rb), nc = count(e->c, e->rc);
    size_t n = count(e->out, e->rout);
    void *th = malloc(nt * t->size + 8), *el = malloc(ne * t->size + 8);
    unsigned char *cond = malloc(nc + 1);
    void *got = malloc(n * t->size + 8), *want = malloc(n * t->size + 8);
    fill(th, nt, t, 0);
    fill(el, ne, t, 0);
    for (size_t i = 0; i < nc; i++) cond[i] = (unsigned char)rnd_below(2);
    for (size_t i = 0; i < n; i++) {
        size_t it, ie, ic;
        sources(e, i, &it, &ie, &ic);
        memcpy((char *)want + i * t->size,
               cond[ic] ? (char *)th + it * t->size : (char *)el + ie * t->size, t->size);
    }
    int st = bcast_select((bcast_dtype)t->code, cond, e->c, e->rc, th, e->a, e->ra, el, e->b, e->rb,
                          (bcast_auto_broadcast)e->ab, e->axis, got, n, (size_t[]){0, 1, 2}[rnd_below(3)]);
    CHECK(st == BCAST_OK, "select %s: %s", t->name, bcast_last_error_message());
    int same = memcmp(got, want, n * t->size) == 0;
    CHECK(same, "select %s differs", t->name);
    if (st != BCAST_OK || !same) print_ecase(e);
    free(th); free(el); free(cond); free(got); free(want);
    return 1;
}

static void fixed_cases(void) {
    /* -7 / 2: floor -4, trunc -3; floor_mod 1, mod -1 (i32) */
    int32_t a[2] = {-7, 7}, b[1] = {2}, out[2];
    size_t sa[1] = {2}, sb[1] = {1};
    CHECK(bcast_binary(BCAST_OP_DIVIDE, BCAST_DTYPE_I32, a, sa, 1, b, sb, 1, BCAST_AB_NUMPY, -1, out, 2, 1) == 0 &&
              out[0] == -4 && out[1] == 3, "floor divide");
    CHECK(bcast_binary(BCAST_OP_DIVIDE_TRUNC, BCAST_DTYPE_I32, a, sa, 1, b, sb, 1, BCAST_AB_NUMPY, -1, out, 2, 1) == 0 &&
              out[0] == -3 && out[1] == 3, "trunc divide");
    CHECK(bcast_binary(BCAST_OP_FLOOR_MOD, BCAST_DTYPE_I32, a, sa, 1, b, sb, 1, BCAST_AB_NUMPY, -1, out, 2, 1) == 0 &&
              out[0] == 1 && out[1] == 1, "floor_mod");
    CHECK(bcast_binary(BCAST_OP_MOD, BCAST_DTYPE_I32, a, sa, 1, b, sb, 1, BCAST_AB_NUMPY, -1, out, 2, 1) == 0 &&
              out[0] == -1 && out[1] == 1, "mod");
    /* u8 wrap: 200 + 100 = 44 */
    uint8_t x[1] = {200}, y[1] = {100}, z[1];
    CHECK(bcast_binary(BCAST_OP_ADD, BCAST_DTYPE_U8, x, sb, 1, y, sb, 1, BCAST_AB_NONE, 0, z, 1, 0) == 0 && z[0] == 44, "u8 wrap");
    /* a large one (threads) */
    size_t big_a[2] = {300, 400}, big_b[1] = {400};
    float *fa = malloc(300 * 400 * sizeof *fa), fb[400], *fo = malloc(300 * 400 * sizeof *fo);
    for (size_t i = 0; i < 300 * 400; i++) fa[i] = (float)(i % 97);
    for (size_t i = 0; i < 400; i++) fb[i] = (float)i;
    int st = bcast_binary(BCAST_OP_MULTIPLY, BCAST_DTYPE_F32, fa, big_a, 2, fb, big_b, 1, BCAST_AB_NUMPY, -1, fo,
                          300 * 400, 4);
    int ok = st == 0;
    for (size_t i = 0; ok && i < 300 * 400; i++) ok = fo[i] == fa[i] * fb[i % 400];
    CHECK(ok, "large multiply: %s", bcast_last_error_message());
    free(fa); free(fo);
}

static void errors(void) {
    int32_t a[12] = {0}, b[4] = {1, 2, 0, 4}, out[12];
    size_t s3[1] = {3}, s4[1] = {4}, s23[2] = {2, 3}, s34[2] = {3, 4};
    int st;
    st = bcast_binary(BCAST_OP_ADD, BCAST_DTYPE_I32, a, s3, 1, b, s4, 1, BCAST_AB_NUMPY, -1, out, 12, 0);
    CHECK(st == BCAST_ERR_SHAPE && strstr(bcast_last_error_message(), "numpy"), "numpy mismatch: %d %s", st,
          bcast_last_error_message());
    st = bcast_binary(BCAST_OP_ADD, BCAST_DTYPE_I32, a, s23, 2, b, s3, 1, BCAST_AB_NONE, 0, out, 12, 0);
    CHECK(st == BCAST_ERR_SHAPE, "none mismatch: %d %s", st, bcast_last_error_message());
    st = bcast_binary(BCAST_OP_ADD, BCAST_DTYPE_I32, a, s23, 2, b, s4, 1, BCAST_AB_PDPD, -1, out, 12, 0);
    CHECK(st == BCAST_ERR_SHAPE, "pdpd mismatch: %d %s", st, bcast_last_error_message());
    st = bcast_binary(BCAST_OP_DIVIDE, BCAST_DTYPE_I32, a, s34, 2, b, s4, 1, BCAST_AB_NUMPY, -1, out, 12, 0);
    CHECK(st == BCAST_ERR_DIV_ZERO && strstr(bcast_last_error_message(), "division by zero"), "div zero: %d %s", st,
          bcast_last_error_message());
    st = bcast_binary(BCAST_OP_MOD, BCAST_DTYPE_I32, a, s34, 2, b, s4, 1, BCAST_AB_NUMPY, -1, out, 12, 0);
    CHECK(st == BCAST_ERR_DIV_ZERO, "mod zero: %d", st);
    float fa[4] = {1, 2, 3, 4}, fz[4] = {0, 0, 0, 0}, fo[4];
    st = bcast_binary(BCAST_OP_DIVIDE, BCAST_DTYPE_F32, fa, s4, 1, fz, s4, 1, BCAST_AB_NUMPY, -1, fo, 4, 0);
    CHECK(st == BCAST_OK && isinf(fo[0]), "float division by zero is IEEE: %d", st);
    st = bcast_binary(BCAST_OP_LOGICAL_AND, BCAST_DTYPE_I32, a, s4, 1, b, s4, 1, BCAST_AB_NUMPY, -1, out, 12, 0);
    CHECK(st == BCAST_ERR_DTYPE, "logical on i32: %d %s", st, bcast_last_error_message());
    unsigned char ba[4] = {0, 1, 1, 0}, bo[4];
    st = bcast_binary(BCAST_OP_ADD, BCAST_DTYPE_BOOL, ba, s4, 1, ba + 0, s4, 1, BCAST_AB_NUMPY, -1, bo, 4, 0);
    CHECK(st == BCAST_ERR_DTYPE, "add on bool: %d %s", st, bcast_last_error_message());
    st = bcast_binary(BCAST_OP_ADD, BCAST_DTYPE_I32, a, s34, 2, b, s4, 1, BCAST_AB_NUMPY, -1, out, 11, 0);
    CHECK(st == BCAST_ERR_CAPACITY, "capacity: %d %s", st, bcast_last_error_message());
    st = bcast_binary((bcast_binary_op)20, BCAST_DTYPE_I32, a, s4, 1, b, s4, 1, BCAST_AB_NUMPY, -1, out, 12, 0);
    CHECK(st == BCAST_ERR_INVALID, "bad op: %d", st);
    st = bcast_binary(BCAST_OP_ADD, BCAST_DTYPE_I32, a, s4, 1, b, s4, 1, (bcast_auto_broadcast)3, -1, out, 12, 0);
    CHECK(st == BCAST_ERR_INVALID, "bad ab: %d", st);
    st = bcast_binary(BCAST_OP_ADD, BCAST_DTYPE_I32, NULL, s4, 1, b, s4, 1, BCAST_AB_NUMPY, -1, out, 12, 0);
    CHECK(st == BCAST_ERR_NULL, "null a: %d", st);
    st = bcast_binary(BCAST_OP_ADD, BCAST_DTYPE_I32, a, s4, 1, b, s4, 1, BCAST_AB_NUMPY, -1, a + 2, 4, 0);
    CHECK(st == BCAST_ERR_INVALID, "out overlaps a: %d %s", st, bcast_last_error_message());
    unsigned char bad[4] = {0, 2, 1, 0};
    st = bcast_binary(BCAST_OP_LOGICAL_OR, BCAST_DTYPE_BOOL, bad, s4, 1, ba, s4, 1, BCAST_AB_NUMPY, -1, bo, 4, 0);
    CHECK(st == BCAST_ERR_INVALID, "bool byte 2: %d", st);
    st = bcast_select(BCAST_DTYPE_F32, bad, s4, 1, fa, s4, 1, fz, s4, 1, BCAST_AB_NUMPY, -1, fo, 4, 0);
    CHECK(st == BCAST_ERR_INVALID && strstr(bcast_last_error_message(), "cond"), "cond byte 2: %d", st);
    st = bcast_select(BCAST_DTYPE_F32, ba, s3, 1, fa, s4, 1, fz, s4, 1, BCAST_AB_NUMPY, -1, fo, 4, 0);
    CHECK(st == BCAST_ERR_SHAPE, "select shapes: %d %s", st, bcast_last_error_message());
    st = bcast_select(BCAST_DTYPE_F32, ba, s4, 1, fa, s4, 1, fz, s4, 1, BCAST_AB_NUMPY, -1, fo, 3, 0);
    CHECK(st == BCAST_ERR_CAPACITY, "select capacity: %d", st);
    size_t shape[1], rank = 0;
    st = bcast_eltwise_shape(s34, 2, s4, 1, BCAST_AB_NUMPY, -1, shape, 1, &rank);
    CHECK(st == BCAST_ERR_CAPACITY && rank == 2, "shape capacity: %d %zu", st, rank);
    st = bcast_eltwise_shape(s34, 2, s3, 1, BCAST_AB_NUMPY, -1, shape, 1, &rank);
    CHECK(st == BCAST_ERR_SHAPE, "shape mismatch: %d", st);
    /* empty output: nothing read or written, NULL buffers allowed */
    size_t s0[1] = {0};
    st = bcast_binary(BCAST_OP_DIVIDE, BCAST_DTYPE_I32, NULL, s0, 1, b, s4 - 0, 0, BCAST_AB_NUMPY, -1, NULL, 0, 0);
    CHECK(st == BCAST_OK, "empty: %d %s", st, bcast_last_error_message());
}

int main(void) {
    long done = 0;
    for (int ab = 0; ab < 3; ab++) {
        for (int i = 0; i < 60; i++) {
            ecase e;
            random_ecase(ab, &e);
            done += check_shape(&e);
            for (size_t t = 0; t < sizeof DT / sizeof *DT; t++) {
                const opdef *o = &OPS[rnd_below(sizeof OPS / sizeof *OPS)];
                done += check_binary(&e, o, &DT[t]);
                done += check_select(&e, &DT[t]);
            }
            done += check_logical(&e, BCAST_OP_LOGICAL_AND + (int)rnd_below(3));
            done += check_select(&e, &DT_BOOL);
        }
    }
    fixed_cases();
    errors();
    printf("eltwise: %ld cases\n", done);
    return finish("eltwise");
}
