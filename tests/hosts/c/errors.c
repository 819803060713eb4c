/* sense_error: syntax errors with line and column, runtime error classes,
 * rendered diagnostics, file errors, and the accessors' NULL paths. */
#include "harness.h"

static int test_syntax_error_has_line_and_column(void) {
    HARNESS_RUNTIME(rt, out);
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt, "x = 1\nif x == 1\n    print(x)\n", &err),
                     SENSE_STATUS_SYNTAX_ERROR, err);
    CHECK(sense_error_status(err) == SENSE_STATUS_SYNTAX_ERROR);
    CHECK_STR(sense_error_class(err), "SenseSyntaxError");
    CHECK_STR(sense_error_message(err), "[line 2] expected ':' to start a block (got NEWLINE '')");
    CHECK(sense_error_line(err) == 2);
    CHECK(sense_error_column(err) == 10);
    sense_str rendered = sense_error_rendered(err);
    CHECK_CONTAINS(rendered, "SenseSyntaxError: [line 2] expected ':'");
    CHECK_CONTAINS(rendered, " --> test.sns:2:10");
    CHECK_CONTAINS(rendered, "2 | if x == 1");
    /* Error strings are NUL-terminated for printf's sake. */
    CHECK(rendered.ptr[rendered.len] == '\0');
    CHECK(sense_error_class(err).ptr[sense_error_class(err).len] == '\0');
    CHECK(sense_error_message(err).ptr[sense_error_message(err).len] == '\0');
    sense_error_free(err);
    /* Nothing ran. */
    CHECK(out.len == 0);
    sense_runtime_free(rt);
    return 0;
}

static int test_runtime_error_classes(void) {
    HARNESS_RUNTIME(rt, out);
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt, "print(\"before\")\ny = 1 / 0\n", &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK_STR(sense_error_class(err), "SenseRuntimeError");
    CHECK_STR(sense_error_message(err), "[line 2] division by zero");
    CHECK(sense_error_line(err) == 2);
    CHECK(sense_error_column(err) == 5);
    CHECK_CONTAINS(sense_error_rendered(err), "SenseRuntimeError: [line 2] division by zero\n");
    sense_error_free(err);
    CHECK_STR(text_buf_view(&out), "before\n");

    err = NULL;
    CHECK_STATUS_ERR(harness_run(rt,
                                 "def f(a):\n"
                                 "    return a + undefined_thing\n"
                                 "print(f(1))\n",
                                 &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK_STR(sense_error_class(err), "SenseNameError");
    CHECK_STR(sense_error_message(err), "[line 2] undefined variable 'undefined_thing'");
    CHECK(sense_error_line(err) == 2 && sense_error_column(err) == 16);
    sense_error_free(err);

    /* Errors may be ignored entirely: NULL error pointer. */
    CHECK_STATUS(harness_run(rt, "nope(", NULL), SENSE_STATUS_SYNTAX_ERROR);
    sense_runtime_free(rt);
    return 0;
}

static int test_agent_body_error_fails_the_agent(void) {
    HARNESS_PAUSED(rt, out, "agent b:\n    pause()\n    x = 1 / 0\n", b, "b");
    sense_agent_status status;
    sense_error *err = NULL;
    status = SENSE_AGENT_STATUS_CREATED;
    CHECK_STATUS_ERR(sense_agent_resume(rt, b, NULL, &status, &err), SENSE_STATUS_RUNTIME_ERROR,
                     err);
    CHECK(status == SENSE_AGENT_STATUS_CREATED); /* untouched on failure */
    CHECK_STR(sense_error_message(err), "[line 3] division by zero");
    CHECK_CONTAINS(sense_error_rendered(err), "x = 1 / 0");
    sense_error_free(err);
    CHECK_OK(sense_agent_get_status(rt, b, &status, NULL));
    CHECK(status == SENSE_AGENT_STATUS_FAILED);
    sense_runtime_free(rt);
    return 0;
}

static int test_run_file(void) {
    HARNESS_RUNTIME(rt, out);
    const char *path = "fixtures/hello.sns";
    CHECK_OK(sense_runtime_run_file(rt, path, strlen(path), NULL));
    CHECK_STR(text_buf_view(&out), "from a file\n");
    sense_agent filed;
    CHECK_OK(harness_agent(rt, "filed", &filed));

    sense_error *err = NULL;
    path = "fixtures/missing.sns";
    CHECK_STATUS_ERR(sense_runtime_run_file(rt, path, strlen(path), &err), SENSE_STATUS_NOT_FOUND,
                     err);
    CHECK_STR(sense_error_class(err), "SenseError");
    CHECK_CONTAINS(sense_error_message(err), "no such file or directory: fixtures/missing.sns");
    sense_error_free(err);

    err = NULL;
    path = "fixtures/not_utf8.sns";
    CHECK_ERROR_HAS(sense_runtime_run_file(rt, path, strlen(path), &err), SENSE_STATUS_INVALID_UTF8,
                    err, "is not valid UTF-8 text");

    /* A directory cannot be read as a file: a host-side runtime error. */
    err = NULL;
    path = "fixtures";
    CHECK_STATUS_ERR(sense_runtime_run_file(rt, path, strlen(path), &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    sense_error_free(err);

    CHECK_STATUS(sense_runtime_run_file(rt, "\xff", 1, NULL), SENSE_STATUS_INVALID_UTF8);
    CHECK_STATUS(sense_runtime_run_file(NULL, "x", 1, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_run_file(rt, NULL, 1, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    sense_runtime_free(rt);
    return 0;
}

static int test_accessors_accept_null(void) {
    CHECK(sense_error_status(NULL) == SENSE_STATUS_INVALID_ARGUMENT);
    CHECK(sense_error_class(NULL).len == 0);
    CHECK(sense_error_message(NULL).len == 0);
    CHECK(sense_error_rendered(NULL).len == 0);
    CHECK(sense_error_line(NULL) == 0);
    CHECK(sense_error_column(NULL) == 0);
    sense_error_free(NULL);
    return 0;
}

/* Static errors (argument checks) may be freed any number of ways. */
static int test_static_errors_need_no_freeing(void) {
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_runtime_new(NULL, &err), SENSE_STATUS_INVALID_ARGUMENT, err);
    CHECK_STR(sense_error_message(err), "argument `out` is NULL");
    sense_error *again = NULL;
    CHECK_STATUS(sense_runtime_new(NULL, &again), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK(again == err); /* the same static, no allocation */
    sense_error_free(err);
    sense_error_free(again);
    return 0;
}

HARNESS_MAIN(TEST(test_syntax_error_has_line_and_column), TEST(test_runtime_error_classes),
             TEST(test_agent_body_error_fails_the_agent), TEST(test_run_file),
             TEST(test_accessors_accept_null), TEST(test_static_errors_need_no_freeing))
