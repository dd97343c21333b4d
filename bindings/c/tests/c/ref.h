/* Shared by the C tests: checks, a small random generator, and a naive reference
 * broadcast written from the rules of each mode (README's table, the planners' doc
 * comments), independent of bcast. Each test includes it once. */
#ifndef BCAST_TEST_REF_H
#define BCAST_TEST_REF_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcast.h"

static long g_checks = 0;
static long g_failures = 0;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        g_checks++;                                                            \
        if (!(cond)) {                                                         \
            g_failures++;                                                      \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__,   \
                    #cond);                                                    \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
            if (g_failures > 20) exit(1);                                      \
        }                                                                      \
    } while (0)

/* Exit status and the closing line the Rust harness reads. */
static inline int finish(const char *name) {
    printf("%s: %ld passed, %ld failed\n", name, g_checks - g_failures, g_failures);
    return g_failures == 0 ? 0 : 1;
}

/* xorshift64*: reproducible data and cases. */
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static inline uint64_t rnd(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 0x2545F4914F6CDD1Dull;
}
static inline size_t rnd_below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

#define REF_MAX_RANK 8

/* A broadcast case: mode, shapes, mode arguments. */
typedef struct {
    int mode;
    size_t data[REF_MAX_RANK];
    size_t data_rank;
    size_t target[REF_MAX_RANK];
    size_t target_rank;
    int64_t args[REF_MAX_RANK];
    size_t n_args;
} ref_case;

/* The reference plan: output shape, and for each output axis the data axis it walks
 * (-1: none, the data is repeated along it). */
typedef struct {
    size_t out[REF_MAX_RANK];
    size_t out_rank;
    long data_axis[REF_MAX_RANK];
} ref_plan;

/* Returns BCAST_OK and fills `p` when the shapes obey the mode's rule; otherwise the
 * status bcast must return (BCAST_ERR_SHAPE, or BCAST_ERR_INVALID for a negative axis or
 * arguments the mode does not take). */
static inline int ref_plan_make(const ref_case *c, ref_plan *p) {
    const size_t *d = c->data, *t = c->target;
    size_t dr = c->data_rank, tr = c->target_rank;
    memset(p, 0, sizeof *p);
    for (size_t k = 0; k < REF_MAX_RANK; k++) p->data_axis[k] = -1;
    switch (c->mode) {
    case BCAST_MODE_NUMPY: /* right-aligned; each data dim equals the target's or is 1 */
        if (c->n_args) return BCAST_ERR_INVALID;
        if (dr > tr) return BCAST_ERR_SHAPE;
        for (size_t i = 0; i < dr; i++) {
            size_t k = tr - dr + i;
            if (d[i] != t[k] && d[i] != 1) return BCAST_ERR_SHAPE;
            p->data_axis[k] = (long)i;
        }
        memcpy(p->out, t, tr * sizeof *t);
        p->out_rank = tr;
        return BCAST_OK;
    case BCAST_MODE_BIDIRECTIONAL: { /* both left-padded; equal, or one is 1 */
        if (c->n_args) return BCAST_ERR_INVALID;
        size_t r = dr > tr ? dr : tr;
        for (size_t k = 0; k < r; k++) {
            size_t a = k < r - dr ? 1 : d[k - (r - dr)];
            size_t b = k < r - tr ? 1 : t[k - (r - tr)];
            if (a == b) p->out[k] = a;
            else if (a == 1) p->out[k] = b;
            else if (b == 1) p->out[k] = a;
            else return BCAST_ERR_SHAPE;
            if (k >= r - dr) p->data_axis[k] = (long)(k - (r - dr));
        }
        p->out_rank = r;
        return BCAST_OK;
    }
    case BCAST_MODE_EXPLICIT: /* axes_mapping[i]: data axis i's output axis, increasing */
        for (size_t i = 0; i < c->n_args; i++)
            if (c->args[i] < 0) return BCAST_ERR_INVALID;
        if (c->n_args != dr) return BCAST_ERR_SHAPE;
        for (size_t i = 0; i < dr; i++) {
            int64_t m = c->args[i];
            if (i > 0 && m <= c->args[i - 1]) return BCAST_ERR_SHAPE;
            if ((size_t)m >= tr) return BCAST_ERR_SHAPE;
            if (d[i] != t[m] && d[i] != 1) return BCAST_ERR_SHAPE;
            p->data_axis[m] = (long)i;
        }
        memcpy(p->out, t, tr * sizeof *t);
        p->out_rank = tr;
        return BCAST_OK;
    case BCAST_MODE_PDPD: { /* data, trailing 1s dropped, on the target from `axis` */
        if (c->n_args > 1) return BCAST_ERR_INVALID;
        int64_t axis = c->n_args ? c->args[0] : -1;
        size_t start;
        if (axis == -1) {
            if (dr > tr) return BCAST_ERR_SHAPE;
            start = tr - dr;
        } else if (axis < -1) {
            return BCAST_ERR_SHAPE;
        } else {
            start = (size_t)axis;
        }
        size_t kept = dr;
        while (kept > 0 && d[kept - 1] == 1) kept--;
        if (start > tr || kept > tr - start) return BCAST_ERR_SHAPE;
        for (size_t i = 0; i < kept; i++) {
            if (d[i] != t[start + i] && d[i] != 1) return BCAST_ERR_SHAPE;
            p->data_axis[start + i] = (long)i;
        }
        memcpy(p->out, t, tr * sizeof *t);
        p->out_rank = tr;
        return BCAST_OK;
    }
    case BCAST_MODE_AXES: { /* broadcast_axes are new; the rest equal the data exactly */
        int is_new[REF_MAX_RANK] = {0};
        for (size_t i = 0; i < c->n_args; i++)
            if (c->args[i] < 0) return BCAST_ERR_INVALID;
        for (size_t i = 0; i < c->n_args; i++) {
            if ((size_t)c->args[i] >= tr) return BCAST_ERR_SHAPE;
            if (is_new[c->args[i]]) return BCAST_ERR_SHAPE;
            is_new[c->args[i]] = 1;
        }
        size_t i = 0;
        for (size_t k = 0; k < tr; k++) {
            if (is_new[k]) continue;
            if (i >= dr || d[i] != t[k]) return BCAST_ERR_SHAPE;
            p->data_axis[k] = (long)i++;
        }
        if (i != dr) return BCAST_ERR_SHAPE;
        memcpy(p->out, t, tr * sizeof *t);
        p->out_rank = tr;
        return BCAST_OK;
    }
    default:
        return BCAST_ERR_INVALID;
    }
}

static inline size_t ref_count(const size_t *shape, size_t rank) {
    size_t n = 1;
    for (size_t i = 0; i < rank; i++) n *= shape[i];
    return n;
}

/* The data element (row-major offset) that output element `flat` reads. */
static inline size_t ref_source_index(const ref_case *c, const ref_plan *p, size_t flat) {
    size_t stride[REF_MAX_RANK];
    size_t s = 1;
    for (size_t i = c->data_rank; i-- > 0;) {
        stride[i] = s;
        s *= c->data[i];
    }
    size_t src = 0;
    for (size_t k = p->out_rank; k-- > 0;) {
        size_t idx = flat % p->out[k];
        flat /= p->out[k];
        long a = p->data_axis[k];
        if (a >= 0 && c->data[a] != 1) src += idx * stride[a];
    }
    return src;
}

/* dst[i] = src[ref_source_index(i)], for elements of `size` bytes. */
static inline void ref_broadcast(const ref_case *c, const ref_plan *p, const void *src, void *dst,
                          size_t size) {
    size_t n = ref_count(p->out, p->out_rank);
    for (size_t i = 0; i < n; i++)
        memcpy((char *)dst + i * size, (const char *)src + ref_source_index(c, p, i) * size,
               size);
}

static inline const char *mode_name(int mode) {
    switch (mode) {
    case BCAST_MODE_NUMPY: return "numpy";
    case BCAST_MODE_BIDIRECTIONAL: return "bidirectional";
    case BCAST_MODE_EXPLICIT: return "explicit";
    case BCAST_MODE_PDPD: return "pdpd";
    case BCAST_MODE_AXES: return "axes";
    default: return "?";
    }
}

static inline int starts_with(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A random case of `mode`: mostly one that obeys the rule, sometimes one bent to break
 * it. Dims are 0..3 (0 rarely), ranks 0..4. */
static inline void random_case(int mode, ref_case *c) {
    memset(c, 0, sizeof *c);
    c->mode = mode;
    c->target_rank = rnd_below(5);
    for (size_t k = 0; k < c->target_rank; k++)
        c->target[k] = rnd_below(12) == 0 ? 0 : 1 + rnd_below(3);
    size_t tr = c->target_rank;
    switch (mode) {
    case BCAST_MODE_NUMPY:
    case BCAST_MODE_BIDIRECTIONAL: {
        int bidi = mode == BCAST_MODE_BIDIRECTIONAL;
        size_t dr = rnd_below(tr + (bidi ? 3 : 1));
        c->data_rank = dr;
        for (size_t i = 0; i < dr; i++) {
            /* right-aligned: data axis i meets target axis tr - dr + i, if there is one */
            long k = (long)tr - (long)dr + (long)i;
            size_t t = k >= 0 ? c->target[k] : 1 + rnd_below(3);
            c->data[i] = rnd_below(3) == 0 ? 1 : t;
        }
        /* bidirectional: a target 1 takes the data's dim */
        if (bidi && tr && rnd_below(3) == 0) c->target[rnd_below(tr)] = 1;
        break;
    }
    case BCAST_MODE_EXPLICIT: {
        size_t dr = rnd_below(tr + 1);
        c->data_rank = dr;
        c->n_args = dr;
        /* dr increasing axes out of tr */
        size_t chosen = 0;
        for (size_t k = 0; k < tr && chosen < dr; k++) {
            if (tr - k == dr - chosen || rnd_below(2)) {
                c->args[chosen] = (int64_t)k;
                c->data[chosen] = rnd_below(3) == 0 ? 1 : c->target[k];
                chosen++;
            }
        }
        break;
    }
    case BCAST_MODE_PDPD: {
        size_t kept = rnd_below(tr + 1);
        size_t start = rnd_below(tr - kept + 1);
        size_t ones = rnd_below(2);
        c->data_rank = kept + ones;
        for (size_t i = 0; i < kept; i++)
            c->data[i] = rnd_below(3) == 0 ? 1 : c->target[start + i];
        for (size_t i = kept; i < kept + ones; i++) c->data[i] = 1;
        if (rnd_below(3)) {
            c->n_args = 1;
            c->args[0] = (int64_t)start;
        } else if (start + kept + ones != tr) {
            c->n_args = 1;
            c->args[0] = (int64_t)start;
        }
        break;
    }
    case BCAST_MODE_AXES: {
        size_t dr = 0;
        for (size_t k = 0; k < tr; k++) {
            if (rnd_below(2)) c->args[c->n_args++] = (int64_t)k;
            else c->data[dr++] = c->target[k];
        }
        c->data_rank = dr;
        /* nGraph's AxisSet is a set: any order */
        if (c->n_args > 1 && rnd_below(2)) {
            int64_t tmp = c->args[0];
            c->args[0] = c->args[c->n_args - 1];
            c->args[c->n_args - 1] = tmp;
        }
        break;
    }
    }
    /* Bend it now and then: a dim, an argument, or a rank. */
    switch (rnd_below(7)) {
    case 0:
        if (c->data_rank) c->data[rnd_below(c->data_rank)] = 1 + rnd_below(4);
        break;
    case 1:
        if (c->n_args) c->args[rnd_below(c->n_args)] = (int64_t)rnd_below(6) - 2;
        break;
    case 2:
        if (c->data_rank < REF_MAX_RANK - 2) c->data[c->data_rank++] = 1 + rnd_below(3);
        break;
    case 3:
        if (c->target_rank) c->target[rnd_below(c->target_rank)] = rnd_below(4);
        break;
    default:
        break;
    }
}

static inline void print_case(FILE *f, const ref_case *c) {
    fprintf(f, "%s data [", mode_name(c->mode));
    for (size_t i = 0; i < c->data_rank; i++) fprintf(f, "%s%zu", i ? "," : "", c->data[i]);
    fprintf(f, "] target [");
    for (size_t i = 0; i < c->target_rank; i++) fprintf(f, "%s%zu", i ? "," : "", c->target[i]);
    fprintf(f, "] args [");
    for (size_t i = 0; i < c->n_args; i++) fprintf(f, "%s%lld", i ? "," : "", (long long)c->args[i]);
    fprintf(f, "]");
}

#endif
