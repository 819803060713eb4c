/*
 * A tiny test harness for the libsense C host tests (no framework):
 * each test is `static int test_x(void)` returning 0 on success; CHECK*
 * macros print file:line and return 1 on failure; RUN() runs one test and
 * HARNESS_END() prints the "N passed, N failed" line and the exit status.
 */
#ifndef SENSE_TEST_HARNESS_H
#define SENSE_TEST_HARNESS_H

#include "sense.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,     \
                    #cond);                                                      \
            return 1;                                                            \
        }                                                                        \
    } while (0)

/* Checks a sense_status; on mismatch prints the error, if one was stored. */
#define CHECK_STATUS_ERR(call, expected, err)                                    \
    do {                                                                         \
        sense_status got_ = (call);                                              \
        if (got_ != (expected)) {                                                \
            sense_str msg_ = sense_error_rendered(err);                          \
            fprintf(stderr, "%s:%d: %s\n  returned %d, expected %s (%d)\n  %.*s\n", \
                    __FILE__, __LINE__, #call, (int)got_, #expected,             \
                    (int)(expected), (int)msg_.len, msg_.len ? msg_.ptr : "");   \
            return 1;                                                            \
        }                                                                        \
    } while (0)

#define CHECK_STATUS(call, expected) CHECK_STATUS_ERR(call, expected, NULL)
#define CHECK_OK(call) CHECK_STATUS(call, SENSE_STATUS_OK)

/* Compares a sense_str with a NUL-terminated literal. */
#define CHECK_STR(view, literal)                                                 \
    do {                                                                         \
        sense_str v_ = (view);                                                   \
        const char *e_ = (literal);                                              \
        if (!harness_str_eq(v_, e_)) {                                           \
            fprintf(stderr, "%s:%d: %s\n  is   \"%.*s\"\n  want \"%s\"\n",       \
                    __FILE__, __LINE__, #view, (int)v_.len, v_.len ? v_.ptr : "", \
                    e_);                                                         \
            return 1;                                                            \
        }                                                                        \
    } while (0)

/* Checks that a sense_str contains a NUL-terminated literal. */
#define CHECK_CONTAINS(view, literal)                                            \
    do {                                                                         \
        sense_str v_ = (view);                                                   \
        const char *e_ = (literal);                                              \
        if (!harness_str_contains(v_, e_)) {                                     \
            fprintf(stderr, "%s:%d: %s\n  is   \"%.*s\"\n  lacks \"%s\"\n",      \
                    __FILE__, __LINE__, #view, (int)v_.len, v_.len ? v_.ptr : "", \
                    e_);                                                         \
            return 1;                                                            \
        }                                                                        \
    } while (0)

#define RUN(test)                                                                \
    do {                                                                         \
        if (test() == 0) {                                                       \
            printf("ok     %s\n", #test);                                        \
            harness_passed++;                                                    \
        } else {                                                                 \
            printf("FAILED %s\n", #test);                                        \
            harness_failed++;                                                    \
        }                                                                        \
        fflush(stdout);                                                          \
    } while (0)

#define HARNESS_START()                                                          \
    int harness_passed = 0;                                                      \
    int harness_failed = 0

#define HARNESS_END()                                                            \
    do {                                                                         \
        printf("%d passed, %d failed\n", harness_passed, harness_failed);        \
        return harness_failed == 0 ? 0 : 1;                                      \
    } while (0)

static inline int harness_str_eq(sense_str s, const char *lit) {
    size_t n = strlen(lit);
    return s.len == n && (n == 0 || memcmp(s.ptr, lit, n) == 0);
}

static inline int harness_str_contains(sense_str s, const char *lit) {
    size_t n = strlen(lit);
    if (n == 0) return 1;
    for (size_t i = 0; i + n <= s.len; i++) {
        if (memcmp(s.ptr + i, lit, n) == 0) return 1;
    }
    return 0;
}

/* A sense_str over a NUL-terminated string. */
static inline sense_str harness_str(const char *s) {
    sense_str v;
    v.ptr = s;
    v.len = strlen(s);
    return v;
}

/* Collected text, for output callbacks. */
typedef struct text_buf {
    char data[16384];
    size_t len;
} text_buf;

static inline void text_buf_append(void *user_data, sense_str text) {
    text_buf *b = (text_buf *)user_data;
    size_t room = sizeof b->data - 1 - b->len;
    size_t n = text.len < room ? text.len : room;
    if (n) memcpy(b->data + b->len, text.ptr, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static inline sense_str text_buf_view(const text_buf *b) {
    sense_str v;
    v.ptr = b->data;
    v.len = b->len;
    return v;
}

/* A runtime whose output goes to `out` (which must outlive it). */
static inline sense_runtime *harness_runtime(text_buf *out) {
    sense_runtime *rt = NULL;
    if (sense_runtime_new(&rt, NULL) != SENSE_STATUS_OK) return NULL;
    out->len = 0;
    out->data[0] = '\0';
    if (sense_runtime_set_output(rt, text_buf_append, out, NULL, NULL) != SENSE_STATUS_OK) {
        sense_runtime_free(rt);
        return NULL;
    }
    return rt;
}

/* Runs NUL-terminated source text named "test.sns". */
static inline sense_status harness_run(sense_runtime *rt, const char *src, sense_error **err) {
    return sense_runtime_run_source(rt, "test.sns", 8, src, strlen(src), err);
}

/* Looks up an agent by a NUL-terminated name. */
static inline sense_status harness_agent(sense_runtime *rt, const char *name, sense_agent *out) {
    return sense_agent_lookup(rt, name, strlen(name), out, NULL);
}

/* A new String value from a NUL-terminated string (NULL on failure). */
static inline sense_value *harness_string(const char *s) {
    sense_value *v = NULL;
    if (sense_value_new_string(s, strlen(s), &v, NULL) != SENSE_STATUS_OK) return NULL;
    return v;
}

#endif /* SENSE_TEST_HARNESS_H */
