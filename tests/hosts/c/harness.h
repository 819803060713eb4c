/*
 * A tiny test harness for the libsense C host tests (no framework):
 * each test is `static int test_x(void)` returning 0 on success; CHECK*
 * macros print file:line and return 1 on failure; HARNESS_MAIN(TEST(a),
 * TEST(b), ...) is a main() that runs them and prints each one's result
 * and the "N passed, N failed" line.
 * The harness_* helpers below hold the setup every host repeats: a
 * runtime printing into a buffer, a program run, an agent started or
 * resumed to a status, a pause checked, a global read.
 */
#ifndef SENSE_TEST_HARNESS_H
#define SENSE_TEST_HARNESS_H

#include "sense.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Checks: on failure each prints file:line and what it saw, and returns 1
 * from the test. */

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

/* Checks `pred(view, literal)` for a sense_str and a NUL-terminated
 * literal; on failure prints both, `what` naming the relation wanted. */
#define CHECK_STR_BY(pred, what, view, literal)                                  \
    do {                                                                         \
        sense_str v_ = (view);                                                   \
        const char *e_ = (literal);                                              \
        if (!pred(v_, e_)) {                                                     \
            fprintf(stderr, "%s:%d: %s\n  is   \"%.*s\"\n  %s \"%s\"\n",         \
                    __FILE__, __LINE__, #view, (int)v_.len, v_.len ? v_.ptr : "", \
                    what, e_);                                                   \
            return 1;                                                            \
        }                                                                        \
    } while (0)

/* Compares a sense_str with a NUL-terminated literal. */
#define CHECK_STR(view, literal) CHECK_STR_BY(harness_str_eq, "want", view, literal)

/* Checks that a sense_str contains a NUL-terminated literal. */
#define CHECK_CONTAINS(view, literal) CHECK_STR_BY(harness_str_contains, "lacks", view, literal)

/* Checks that `call`, which stores its error in `err`, returns `expected`
 * with a message that passes `check` (CHECK_STR or CHECK_CONTAINS) against
 * `text`; frees the error and clears `err`. */
#define CHECK_ERROR_BY(check, call, expected, err, text)                         \
    do {                                                                         \
        CHECK_STATUS_ERR(call, expected, err);                                   \
        check(sense_error_message(err), text);                                   \
        sense_error_free(err);                                                   \
        (err) = NULL;                                                            \
    } while (0)

/* The error's message is `msg`. */
#define CHECK_ERROR(call, expected, err, msg) CHECK_ERROR_BY(CHECK_STR, call, expected, err, msg)

/* The error's message contains `part`. */
#define CHECK_ERROR_HAS(call, expected, err, part)                               \
    CHECK_ERROR_BY(CHECK_CONTAINS, call, expected, err, part)

/* Checks that `fn(value, out, NULL)` refuses a NULL `value` and a NULL
 * `out` with INVALID_ARGUMENT (the shape of every value accessor). */
#define CHECK_REFUSES_NULLS(fn, value, out)                                      \
    do {                                                                         \
        CHECK_STATUS(fn(NULL, out, NULL), SENSE_STATUS_INVALID_ARGUMENT);        \
        CHECK_STATUS(fn(value, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);      \
    } while (0)

/* ---- The runner. */

/* One test: its name (for the report) and its function. */
typedef struct harness_test {
    const char *name;
    int (*run)(void);
} harness_test;

#define TEST(fn) {#fn, fn}

/* Runs `n` tests, prints "ok" or "FAILED" and the name of each, then the
 * "N passed, N failed" line; returns the exit status for main. */
static inline int harness_run_tests(const harness_test *tests, size_t n) {
    int passed = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        int ok = tests[i].run() == 0;
        printf("%s %s\n", ok ? "ok    " : "FAILED", tests[i].name);
        fflush(stdout);
        if (ok) {
            passed++;
        } else {
            failed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

/* main(): runs the TEST(...) entries given, in order. */
#define HARNESS_MAIN(...)                                                        \
    int main(void) {                                                             \
        static const harness_test tests_[] = {__VA_ARGS__};                      \
        return harness_run_tests(tests_, sizeof tests_ / sizeof tests_[0]);      \
    }

/* ---- Strings and the output buffer. */

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

/* ---- Runtimes: made, configured, running programs. */

/* A runtime made with `config` (the defaults when NULL) whose output goes
 * to `out` (which must outlive it); NULL on failure. */
static inline sense_runtime *harness_runtime_config(text_buf *out, const sense_config *config) {
    sense_runtime *rt = NULL;
    sense_status st = config ? sense_runtime_new_with_config(config, &rt, NULL)
                             : sense_runtime_new(&rt, NULL);
    if (st != SENSE_STATUS_OK) return NULL;
    out->len = 0;
    out->data[0] = '\0';
    if (sense_runtime_set_output(rt, text_buf_append, out, NULL, NULL) != SENSE_STATUS_OK) {
        sense_runtime_free(rt);
        return NULL;
    }
    return rt;
}

/* The limits of harness_limited_runtime: each one left 0 keeps its
 * default (steps: unlimited); `dry_run` as in sense_config_set_dry_run. */
typedef struct harness_limits {
    size_t max_depth;
    uint64_t max_steps;
    size_t max_string_len;
    size_t max_array_len;
    size_t max_heap;
    size_t max_source_len;
    bool dry_run;
} harness_limits;

/* A runtime with the limits `lim`, printing into `out`; NULL on failure. */
static inline sense_runtime *harness_limited_runtime(text_buf *out, harness_limits lim) {
    sense_config *c = NULL;
    if (sense_config_new(&c, NULL) != SENSE_STATUS_OK) return NULL;
    int bad = 0;
    if (lim.max_depth) bad |= sense_config_set_max_depth(c, lim.max_depth, NULL);
    if (lim.max_steps) bad |= sense_config_set_max_steps(c, lim.max_steps, NULL);
    if (lim.max_string_len) bad |= sense_config_set_max_string_len(c, lim.max_string_len, NULL);
    if (lim.max_array_len) bad |= sense_config_set_max_array_len(c, lim.max_array_len, NULL);
    if (lim.max_heap) bad |= sense_config_set_max_heap(c, lim.max_heap, NULL);
    if (lim.max_source_len) bad |= sense_config_set_max_source_len(c, lim.max_source_len, NULL);
    bad |= sense_config_set_dry_run(c, lim.dry_run, NULL);
    sense_runtime *rt = bad ? NULL : harness_runtime_config(out, c);
    sense_config_free(c);
    return rt;
}

/* A runtime with the default configuration whose output goes to `out`. */
static inline sense_runtime *harness_runtime(text_buf *out) {
    return harness_runtime_config(out, NULL);
}

/* Runs NUL-terminated source text named "test.sns". */
static inline sense_status harness_run(sense_runtime *rt, const char *src, sense_error **err) {
    return sense_runtime_run_source(rt, "test.sns", 8, src, strlen(src), err);
}

/* A runtime printing into `out` that has run `src`; NULL (with the error
 * on stderr) when either fails. */
static inline sense_runtime *harness_program(text_buf *out, const char *src) {
    sense_runtime *rt = harness_runtime(out);
    if (rt == NULL) return NULL;
    sense_error *err = NULL;
    if (harness_run(rt, src, &err) != SENSE_STATUS_OK) {
        sense_str msg = sense_error_rendered(err);
        fprintf(stderr, "the program failed: %.*s\n", (int)msg.len, msg.len ? msg.ptr : "");
        sense_error_free(err);
        sense_runtime_free(rt);
        return NULL;
    }
    return rt;
}

/* Restores the snapshot `bytes` into `rt` (see sense_runtime_restore). */
static inline sense_status harness_restore(sense_runtime *rt, const sense_bytes *bytes,
                                           sense_error **err) {
    return sense_runtime_restore(rt, sense_bytes_data(bytes), sense_bytes_len(bytes), err);
}

/* Registers the host function `name` on `rt` (NULL is passed through);
 * returns `rt`, or NULL after freeing it when registering fails, so that
 * a runtime with its functions is built in one expression. */
static inline sense_runtime *harness_with_fn(sense_runtime *rt, const char *name, int32_t arity,
                                             sense_host_fn fn, void *user_data,
                                             sense_free_fn free_user_data) {
    if (rt == NULL) return NULL;
    if (sense_runtime_register_fn(rt, name, strlen(name), arity, fn, user_data, free_user_data,
                                  NULL) != SENSE_STATUS_OK) {
        sense_runtime_free(rt);
        return NULL;
    }
    return rt;
}

/* The setup most tests start with: declares `text_buf out` and
 * `sense_runtime *rt` printing into it, and fails the test when the
 * runtime cannot be made. */
#define HARNESS_RUNTIME(rt, out)                                                 \
    text_buf out;                                                                \
    sense_runtime *rt = harness_runtime(&out);                                   \
    CHECK(rt != NULL)

/* As HARNESS_RUNTIME, for a runtime with the limits given as designated
 * initializers of a harness_limits (`.max_heap = 8u << 20`). */
#define HARNESS_LIMITED(rt, out, ...)                                            \
    text_buf out;                                                                \
    sense_runtime *rt = harness_limited_runtime(&out, (harness_limits){__VA_ARGS__}); \
    CHECK(rt != NULL)

/* As HARNESS_RUNTIME, for a runtime that has run the program `src`. */
#define HARNESS_PROGRAM(rt, out, src)                                            \
    text_buf out;                                                                \
    sense_runtime *rt = harness_program(&out, src);                              \
    CHECK(rt != NULL)

/* Runs `src` on `rt`, which must succeed, and checks that all `out` (the
 * runtime's text_buf) holds is `want`. */
#define CHECK_PRINTS(rt, out, src, want)                                         \
    do {                                                                         \
        sense_error *run_err_ = NULL;                                            \
        CHECK_STATUS_ERR(harness_run(rt, src, &run_err_), SENSE_STATUS_OK, run_err_); \
        CHECK_STR(text_buf_view(&(out)), want);                                  \
    } while (0)

/* ---- Values. */

/* A new String value from a NUL-terminated string (NULL on failure). */
static inline sense_value *harness_string(const char *s) {
    sense_value *v = NULL;
    if (sense_value_new_string(s, strlen(s), &v, NULL) != SENSE_STATUS_OK) return NULL;
    return v;
}

/* Item `i` of the List `list` (borrowed), or NULL. */
static inline const sense_value *harness_item(const sense_value *list, size_t i) {
    const sense_value *v = NULL;
    return sense_value_list_get(list, i, &v, NULL) == SENSE_STATUS_OK ? v : NULL;
}

/* Checks the kind of `v` and, unless `type_name` is NULL, its type name. */
static inline int harness_check_kind(const sense_value *v, sense_value_kind kind,
                                     const char *type_name) {
    sense_value_kind got;
    CHECK_OK(sense_value_get_kind(v, &got, NULL));
    CHECK(got == kind);
    if (type_name == NULL) return 0;
    sense_str s;
    CHECK_OK(sense_value_type_name(v, &s, NULL));
    CHECK_STR(s, type_name);
    return 0;
}

/* Checks that `v` is an Int equal to `want`. */
static inline int harness_check_int(const sense_value *v, int64_t want) {
    int64_t got = 0;
    CHECK_OK(sense_value_as_int(v, &got, NULL));
    CHECK(got == want);
    return 0;
}

/* Checks that `v` is a Bool equal to `want`. */
static inline int harness_check_bool(const sense_value *v, bool want) {
    bool got = !want;
    CHECK_OK(sense_value_as_bool(v, &got, NULL));
    CHECK(got == want);
    return 0;
}

/* Checks that `v` is a String equal to `want`. */
static inline int harness_check_string(const sense_value *v, const char *want) {
    sense_str s;
    CHECK_OK(sense_value_as_string(v, &s, NULL));
    CHECK_STR(s, want);
    return 0;
}

/* Checks that the global `name` is a String equal to `want`. */
static inline int harness_check_global_string(sense_runtime *rt, const char *name,
                                              const char *want) {
    sense_value *v = NULL;
    CHECK_OK(sense_runtime_global(rt, name, strlen(name), &v, NULL));
    int failed = harness_check_string(v, want);
    sense_value_free(v);
    return failed;
}

/* Reads the global `name` of `rt` with the accessor `read`
 * (sense_value_as_int, sense_value_list_len...) into `*out`. */
#define CHECK_GLOBAL(rt, name, read, out)                                        \
    do {                                                                         \
        sense_value *g_ = NULL;                                                  \
        CHECK_OK(sense_runtime_global(rt, name, strlen(name), &g_, NULL));       \
        sense_status read_ = read(g_, out, NULL);                                \
        sense_value_free(g_);                                                    \
        CHECK_OK(read_);                                                         \
    } while (0)

/* Frees each of the values given (sense_value_free). */
#define FREE_VALUES(...)                                                         \
    harness_free_values((sense_value *[]){__VA_ARGS__},                          \
                        sizeof((sense_value *[]){__VA_ARGS__}) / sizeof(sense_value *))

static inline void harness_free_values(sense_value **values, size_t n) {
    for (size_t i = 0; i < n; i++) sense_value_free(values[i]);
}

/* ---- Agents. */

/* Looks up an agent by a NUL-terminated name. */
static inline sense_status harness_agent(sense_runtime *rt, const char *name, sense_agent *out) {
    return sense_agent_lookup(rt, name, strlen(name), out, NULL);
}

/* Looks up agent `name`, starts it and checks the status it reaches. */
static inline int harness_start(sense_runtime *rt, const char *name, sense_agent *agent,
                                sense_agent_status want) {
    CHECK_OK(harness_agent(rt, name, agent));
    sense_agent_status status = SENSE_AGENT_STATUS_FAILED;
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_agent_start(rt, *agent, &status, &err), SENSE_STATUS_OK, err);
    CHECK(status == want);
    return 0;
}

/* Resumes `a` with `v` (freed here; NULL is nil) and checks the status it
 * reaches. */
static inline int harness_resume(sense_runtime *rt, sense_agent a, sense_value *v,
                                 sense_agent_status want) {
    sense_agent_status status = SENSE_AGENT_STATUS_FAILED;
    sense_error *err = NULL;
    sense_status st = sense_agent_resume(rt, a, v, &status, &err);
    sense_value_free(v);
    CHECK_STATUS_ERR(st, SENSE_STATUS_OK, err);
    CHECK(status == want);
    return 0;
}

/* Checks that `a` is paused for `kind` and, unless `reason` is NULL, that
 * its pause reason is that String. */
static inline int harness_check_pause(sense_runtime *rt, sense_agent a, sense_pause_kind kind,
                                      const char *reason) {
    sense_pause_kind got = SENSE_PAUSE_KIND_NONE;
    CHECK_OK(sense_agent_pause_kind(rt, a, &got, NULL));
    CHECK(got == kind);
    if (reason == NULL) return 0;
    sense_value *v = NULL;
    CHECK_OK(sense_agent_pause_reason(rt, a, &v, NULL));
    int failed = harness_check_string(v, reason);
    sense_value_free(v);
    return failed;
}

/* As HARNESS_PROGRAM, then declares `sense_agent agent` and looks up the
 * program's agent `name` into it. */
#define HARNESS_AGENT(rt, out, src, agent, name)                                 \
    HARNESS_PROGRAM(rt, out, src);                                               \
    sense_agent agent;                                                           \
    CHECK_OK(harness_agent(rt, name, &agent))

/* As HARNESS_AGENT, with the agent started: it must pause. */
#define HARNESS_PAUSED(rt, out, src, agent, name)                                \
    HARNESS_PROGRAM(rt, out, src);                                               \
    sense_agent agent;                                                           \
    CHECK(harness_start(rt, name, &agent, SENSE_AGENT_STATUS_PAUSED) == 0)

/* ---- Host functions. */

/* A host function answering the Int its user data points to. */
static inline void harness_answer_int(void *user_data, sense_call *call) {
    sense_value *v = sense_value_new_int(*(const int64_t *)user_data);
    sense_call_return(call, v, NULL);
    sense_value_free(v);
}

/* A host function's calls and the frees of its user data, counted. */
typedef struct harness_calls {
    int calls;
    int freed;
} harness_calls;

/* The free_user_data callback for a harness_calls. */
static inline void harness_calls_free(void *user_data) {
    ((harness_calls *)user_data)->freed++;
}

/* approve(what): suspends the calling agent with "approve <what>?",
 * counting the call when its user data is a harness_calls (or NULL). */
static inline void harness_approve(void *user_data, sense_call *call) {
    if (user_data) ((harness_calls *)user_data)->calls++;
    const sense_value *what = NULL;
    sense_str s = {NULL, 0};
    sense_call_arg(call, 0, &what, NULL);
    sense_value_as_string(what, &s, NULL);
    char buf[128];
    int len = snprintf(buf, sizeof buf, "approve %.*s?", (int)s.len, s.ptr);
    sense_value *reason = NULL;
    sense_value_new_string(buf, (size_t)len, &reason, NULL);
    sense_call_suspend(call, reason, NULL);
    sense_value_free(reason);
}

#endif /* SENSE_TEST_HARNESS_H */
