/* The strings bcast hands out: its version (function, header macros and the Cargo package
 * version the test harness passes in as BCAST_TEST_CARGO_VERSION agree) and a text for
 * every status code, and for codes that are none. */
#include "ref.h"

#ifndef BCAST_TEST_CARGO_VERSION
#error "the harness passes -DBCAST_TEST_CARGO_VERSION=\"<Cargo.toml's version>\""
#endif

int main(void) {
    /* The version. */
    const char *v = bcast_version();
    CHECK(v != NULL, "bcast_version() is not NULL");
    if (v) {
        CHECK(strcmp(v, BCAST_TEST_CARGO_VERSION) == 0, "bcast_version() '%s', Cargo '%s'", v,
              BCAST_TEST_CARGO_VERSION);
        CHECK(strcmp(v, BCAST_VERSION_STRING) == 0, "bcast_version() '%s', header '%s'", v,
              BCAST_VERSION_STRING);
    }
    char parts[64];
    snprintf(parts, sizeof parts, "%d.%d.%d", BCAST_VERSION_MAJOR, BCAST_VERSION_MINOR,
             BCAST_VERSION_PATCH);
    /* The numeric macros are the string's first three parts (a pre-release suffix may
     * follow them). */
    CHECK(strncmp(BCAST_TEST_CARGO_VERSION, parts, strlen(parts)) == 0 &&
              (BCAST_TEST_CARGO_VERSION[strlen(parts)] == '\0' ||
               BCAST_TEST_CARGO_VERSION[strlen(parts)] == '-'),
          "macros %s, Cargo '%s'", parts, BCAST_TEST_CARGO_VERSION);
#if !(BCAST_VERSION_MAJOR >= 0 && BCAST_VERSION_MINOR >= 0 && BCAST_VERSION_PATCH >= 0)
#error "the version macros are usable in #if"
#endif

    /* Every status has its own text; the texts are the C guide's table. */
    static const struct {
        int status;
        const char *text;
    } table[] = {
        {BCAST_OK, "success"},
        {BCAST_ERR_NULL, "a required pointer is NULL"},
        {BCAST_ERR_SHAPE, "the shapes break the broadcast rule"},
        {BCAST_ERR_OVERFLOW, "an element count or a byte size overflows"},
        {BCAST_ERR_ELEM_SIZE, "elem_size is not 1, 2, 4 or 8"},
        {BCAST_ERR_ALLOC, "memory could not be allocated"},
        {BCAST_ERR_PANIC, "internal error in bcast (a bug, please report it)"},
        {BCAST_ERR_INVALID, "an argument is invalid"},
        {BCAST_ERR_RANK, "a rank is above BCAST_MAX_RANK"},
        {BCAST_ERR_CAPACITY, "a buffer sized by the caller is too small"},
        {BCAST_ERR_DTYPE, "the operation is not defined for this element type"},
        {BCAST_ERR_ALIGN, "a buffer is not aligned to its element size"},
        {BCAST_ERR_THREADS, "threads is above BCAST_MAX_THREADS or its pool cannot start"},
        {BCAST_ERR_DIV_ZERO, "integer division by zero"},
        {BCAST_ERR_OTHER, "an error this version of the C binding does not name"},
    };
    const size_t n = sizeof table / sizeof table[0];
    for (size_t i = 0; i < n; i++) {
        const char *s = bcast_status_string(table[i].status);
        CHECK(s != NULL && strcmp(s, table[i].text) == 0, "status %d: '%s', expected '%s'",
              table[i].status, s ? s : "(null)", table[i].text);
        CHECK(s == bcast_status_string(table[i].status), "status %d: one static string",
              table[i].status);
    }
    /* Codes that are no status: one text, never NULL. */
    const int unknown[] = {-1, 14, 15, 50, 98, 100, 1000, -2147483647 - 1, 2147483647};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *s = bcast_status_string(unknown[i]);
        CHECK(s != NULL && strcmp(s, "unknown bcast status") == 0, "code %d: '%s'", unknown[i],
              s ? s : "(null)");
    }

    /* Neither string function touches the last error message. */
    size_t bad_d[] = {3}, bad_t[] = {4}, shape[4], rank;
    int st = bcast_output_shape(BCAST_MODE_NUMPY, bad_d, 1, bad_t, 1, NULL, 0, shape, 4, &rank);
    CHECK(st == BCAST_ERR_SHAPE, "a broken rule: %d", st);
    char before[256];
    snprintf(before, sizeof before, "%s", bcast_last_error_message());
    CHECK(strcmp(bcast_status_string(st), "the shapes break the broadcast rule") == 0,
          "the text of the status returned");
    (void)bcast_version();
    CHECK(before[0] != '\0' && strcmp(before, bcast_last_error_message()) == 0,
          "the message is kept: '%s' then '%s'", before, bcast_last_error_message());

    printf("strings: version %s, %zu statuses\n", v ? v : "(null)", n);
    return finish("strings");
}
