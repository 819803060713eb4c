/* Host functions: user data and its destructor, arguments, return values,
 * errors, arity, suspending the calling agent, replacing a registration,
 * re-entry, and the sense_call NULL paths. */
#include "harness.h"

/* add(a, b): Int + Int, counting calls in user data. */
static void host_add(void *user_data, sense_call *call) {
    harness_calls *c = (harness_calls *)user_data;
    c->calls++;
    const sense_value *a = NULL;
    const sense_value *b = NULL;
    int64_t x = 0, y = 0;
    if (sense_call_arg(call, 0, &a, NULL) != SENSE_STATUS_OK ||
        sense_call_arg(call, 1, &b, NULL) != SENSE_STATUS_OK ||
        sense_value_as_int(a, &x, NULL) != SENSE_STATUS_OK ||
        sense_value_as_int(b, &y, NULL) != SENSE_STATUS_OK) {
        const char *msg = "add() expects two Ints";
        sense_call_fail(call, msg, strlen(msg), NULL);
        return;
    }
    sense_value *sum = sense_value_new_int(x + y);
    sense_call_return(call, sum, NULL);
    sense_value_free(sum);
}

/* describe(...): any arity; returns "<name>/<count>". */
static void host_describe(void *user_data, sense_call *call) {
    (void)user_data;
    sense_str name;
    size_t n = 0;
    sense_call_name(call, &name, NULL);
    sense_call_arg_count(call, &n, NULL);
    char buf[64];
    int len = snprintf(buf, sizeof buf, "%.*s/%zu", (int)name.len, name.ptr, n);
    sense_value *v = NULL;
    sense_value_new_string(buf, (size_t)len, &v, NULL);
    sense_call_return(call, v, NULL);
    sense_value_free(v);
}

/* nothing(): answers nothing, which is nil. */
static void host_nothing(void *user_data, sense_call *call) {
    (void)user_data;
    (void)call;
}

/* Every sense_call function's NULL and error paths, from inside a call. */
static int call_checks_failed = 0;
static void host_probe(void *user_data, sense_call *call) {
    (void)user_data;
    sense_str s;
    size_t n;
    const sense_value *v = NULL;
    sense_error *err = NULL;
    int bad = 0;
    bad |= sense_call_name(NULL, &s, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_call_name(call, NULL, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_call_arg_count(NULL, &n, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_call_arg_count(call, NULL, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_call_arg(NULL, 0, &v, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_call_arg(call, 0, NULL, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_call_arg(call, 5, &v, &err) != SENSE_STATUS_NOT_FOUND;
    bad |= !harness_str_eq(sense_error_message(err), "argument index out of range");
    sense_error_free(err);
    bad |= sense_call_return(NULL, NULL, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_call_suspend(NULL, NULL, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_call_fail(NULL, "x", 1, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_call_fail(call, NULL, 1, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    /* Not UTF-8: accepted, the bad byte becomes U+FFFD (issue 28). */
    bad |= sense_call_fail(call, "\xff", 1, NULL) != SENSE_STATUS_OK;
    /* fail then return: the last answer wins. */
    bad |= sense_call_fail(call, "oops", 4, NULL) != SENSE_STATUS_OK;
    bad |= sense_call_return(call, NULL, NULL) != SENSE_STATUS_OK; /* nil */
    call_checks_failed = bad;
}

/* Calling back into the runtime from a callback is refused. */
static sense_runtime *reentry_rt = NULL;
static sense_status reentry_status = SENSE_STATUS_OK;
static void host_reenter(void *user_data, sense_call *call) {
    (void)user_data;
    reentry_status = harness_run(reentry_rt, "print(1)", NULL);
    sense_call_return(call, NULL, NULL);
}

static int test_values_errors_and_user_data(void) {
    text_buf out;
    harness_calls c = {0, 0};
    sense_runtime *rt = harness_runtime(&out);
    CHECK(rt != NULL);
    CHECK_OK(sense_runtime_register_fn(rt, "add", 3, 2, host_add, &c, harness_calls_free, NULL));
    CHECK_OK(sense_runtime_register_fn(rt, "describe", 8, -1, host_describe, NULL, NULL, NULL));
    CHECK_OK(sense_runtime_register_fn(rt, "nothing", 7, 0, host_nothing, NULL, NULL, NULL));
    CHECK_PRINTS(rt, out,
                 "print(add(40, 2), type_of(add))\n"
                 "print(describe(), describe(1, \"a\", [2]))\n"
                 "print(nothing())\n",
                 "42 Function\ndescribe/0 describe/3\nnil\n");
    CHECK(c.calls == 1);

    /* A failing host function raises a SenseRuntimeError in Sense. */
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt, "x = 1\nadd(1, \"two\")\n", &err), SENSE_STATUS_RUNTIME_ERROR,
                     err);
    CHECK_STR(sense_error_class(err), "SenseRuntimeError");
    CHECK_CONTAINS(sense_error_message(err), "add() expects two Ints");
    sense_error_free(err);

    /* Arity is checked by the runtime before the callback runs. */
    err = NULL;
    CHECK_ERROR(harness_run(rt, "add(1)\n", &err), SENSE_STATUS_RUNTIME_ERROR, err,
                "[line 1] 'add' expects 2 argument(s), got 1");
    CHECK(c.calls == 2);

    /* Replacing a registration frees the old user data at once. */
    CHECK(c.freed == 0);
    harness_calls c2 = {0, 0};
    CHECK_OK(sense_runtime_register_fn(rt, "add", 3, 2, host_add, &c2, harness_calls_free, NULL));
    CHECK(c.freed == 1);
    CHECK_OK(harness_run(rt, "print(add(1, 2))\n", NULL));
    CHECK(c2.calls == 1);

    sense_runtime_free(rt);
    CHECK(c.freed == 1);
    CHECK(c2.freed == 1); /* freed with the runtime */
    return 0;
}

static int test_suspending_host_function(void) {
    HARNESS_RUNTIME(rt, out);
    CHECK_OK(sense_runtime_register_fn(rt, "approve", 7, 1, harness_approve, NULL, NULL, NULL));
    CHECK_OK(harness_run(rt,
                         "def step(x):\n"
                         "    return approve(x)\n"
                         "agent a:\n"
                         "    answer = step(\"deploy\")\n"
                         "    print(\"answer:\", answer)\n",
                         NULL));
    sense_agent a;
    CHECK(harness_start(rt, "a", &a, SENSE_AGENT_STATUS_PAUSED) == 0);
    CHECK(harness_check_pause(rt, a, SENSE_PAUSE_KIND_HOST_FUNCTION, "approve deploy?") == 0);

    /* The resume value becomes approve()'s result. */
    CHECK(harness_resume(rt, a, sense_value_new_bool(true), SENSE_AGENT_STATUS_COMPLETED) == 0);
    CHECK_STR(text_buf_view(&out), "answer: true\n");

    /* Outside an agent, suspending is an error. */
    sense_error *err = NULL;
    CHECK_ERROR_HAS(harness_run(rt, "approve(\"x\")\n", &err), SENSE_STATUS_RUNTIME_ERROR, err,
                    "not called from inside a running agent");
    sense_runtime_free(rt);
    return 0;
}

static int test_call_context_paths(void) {
    HARNESS_RUNTIME(rt, out);
    CHECK_OK(sense_runtime_register_fn(rt, "probe", 5, 1, host_probe, NULL, NULL, NULL));
    CHECK_OK(harness_run(rt, "print(probe(1))\n", NULL));
    CHECK(call_checks_failed == 0);
    CHECK_STR(text_buf_view(&out), "nil\n");

    reentry_rt = rt;
    CHECK_OK(sense_runtime_register_fn(rt, "reenter", 7, 0, host_reenter, NULL, NULL, NULL));
    CHECK_OK(harness_run(rt, "reenter()\n", NULL));
    CHECK(reentry_status == SENSE_STATUS_WRONG_STATE);
    sense_runtime_free(rt);
    return 0;
}

static int test_register_errors_free_user_data(void) {
    sense_runtime *rt = NULL;
    CHECK_OK(sense_runtime_new(&rt, NULL));
    harness_calls c = {0, 0};
    sense_error *err = NULL;
    CHECK_ERROR(
        sense_runtime_register_fn(rt, "f", 1, 256, host_nothing, &c, harness_calls_free, &err),
        SENSE_STATUS_INVALID_ARGUMENT, err, "argument `arity` must be -1 (any) or 0..=255");
    CHECK(c.freed == 1);
    CHECK_STATUS(
        sense_runtime_register_fn(rt, "f", 1, -2, host_nothing, &c, harness_calls_free, NULL),
        SENSE_STATUS_INVALID_ARGUMENT);
    CHECK(c.freed == 2);
    CHECK_STATUS(sense_runtime_register_fn(rt, "f", 1, 0, NULL, &c, harness_calls_free, NULL),
                 SENSE_STATUS_INVALID_ARGUMENT);
    CHECK(c.freed == 3);
    CHECK_STATUS(
        sense_runtime_register_fn(NULL, "f", 1, 0, host_nothing, &c, harness_calls_free, NULL),
        SENSE_STATUS_INVALID_ARGUMENT);
    CHECK(c.freed == 4);
    CHECK_STATUS(sense_runtime_register_fn(rt, NULL, 1, 0, host_nothing, NULL, NULL, NULL),
                 SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_register_fn(rt, "\xc3", 1, 0, host_nothing, NULL, NULL, NULL),
                 SENSE_STATUS_INVALID_UTF8);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_values_errors_and_user_data), TEST(test_suspending_host_function),
             TEST(test_call_context_paths), TEST(test_register_errors_free_user_data))
