/* sense_runtime and sense_config: creation, limits (depth, step budget),
 * dry run, running source, the version, and the NULL paths. */
#include "harness.h"

static int test_version_matches_header(void) {
    sense_str v = sense_version();
    CHECK_STR(v, SENSE_VERSION_STRING);
    CHECK(v.ptr[v.len] == '\0');
    char buf[32];
    snprintf(buf, sizeof buf, "%d.%d.%d", SENSE_VERSION_MAJOR, SENSE_VERSION_MINOR,
             SENSE_VERSION_PATCH);
    CHECK_STR(v, buf);
    return 0;
}

static int test_new_and_free(void) {
    sense_runtime *rt = NULL;
    CHECK_OK(sense_runtime_new(&rt, NULL));
    CHECK(rt != NULL);
    sense_runtime_free(rt);
    sense_runtime_free(NULL);
    CHECK_STATUS(sense_runtime_new(NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);

    sense_config *config = NULL;
    CHECK_OK(sense_config_new(&config, NULL));
    CHECK_STATUS(sense_config_new(NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_new_with_config(NULL, &rt, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_new_with_config(config, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_OK(sense_runtime_new_with_config(config, &rt, NULL));
    sense_config_free(config);
    sense_config_free(NULL);
    sense_runtime_free(rt);
    return 0;
}

static int test_config_setters(void) {
    sense_config *config = NULL;
    CHECK_OK(sense_config_new(&config, NULL));
    sense_error *err = NULL;
    CHECK_ERROR(sense_config_set_max_depth(config, 0, &err), SENSE_STATUS_INVALID_ARGUMENT, err,
                "max_depth must be at least 1");
    CHECK_STATUS(sense_config_set_max_depth(NULL, 10, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_config_set_max_steps(NULL, 10, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_config_set_dry_run(NULL, true, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_OK(sense_config_set_max_depth(config, 50, NULL));
    CHECK_OK(sense_config_set_max_steps(config, 0, NULL)); /* unlimited */
    CHECK_OK(sense_config_set_dry_run(config, false, NULL));
    sense_config_free(config);
    return 0;
}

static int test_max_depth(void) {
    HARNESS_LIMITED(rt, out, .max_depth = 50);
    CHECK_OK(harness_run(rt, "def down(n):\n    if n == 0:\n        return 0\n    return down(n - 1)\n", NULL));
    CHECK_OK(harness_run(rt, "print(down(20))\n", NULL));
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt, "down(100)\n", &err), SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK_STR(sense_error_class(err), "SenseRuntimeError");
    CHECK_CONTAINS(sense_error_message(err), "recursion");
    sense_error_free(err);
    sense_runtime_free(rt);
    return 0;
}

static int test_step_budget(void) {
    HARNESS_LIMITED(rt, out, .max_steps = 1000);
    /* Top-level code that runs out fails. */
    sense_error *err = NULL;
    CHECK_ERROR_HAS(harness_run(rt, "i = 0\nwhile true:\n    i = i + 1\n", &err),
                    SENSE_STATUS_RUNTIME_ERROR, err, "step budget exhausted (1000 steps)");

    /* An agent that runs out pauses with BUDGET and resumes with a fresh one. */
    CHECK_OK(harness_run(rt,
                         "agent worker:\n"
                         "    n = 0\n"
                         "    for k in range(0, 2500):\n"
                         "        n = n + 1\n"
                         "    print(\"done\", n)\n",
                         NULL));
    sense_agent worker;
    CHECK_OK(harness_agent(rt, "worker", &worker));
    sense_agent_status status;
    CHECK_OK(sense_agent_start(rt, worker, &status, NULL));
    int pauses = 0;
    while (status == SENSE_AGENT_STATUS_PAUSED && pauses < 10) {
        CHECK(harness_check_pause(rt, worker, SENSE_PAUSE_KIND_BUDGET, NULL) == 0);
        pauses++;
        CHECK_OK(sense_agent_resume(rt, worker, NULL, &status, NULL));
    }
    CHECK(status == SENSE_AGENT_STATUS_COMPLETED);
    CHECK(pauses >= 2);
    CHECK_STR(text_buf_view(&out), "done 2500\n");
    sense_runtime_free(rt);
    return 0;
}

static int test_dry_run(void) {
    const char *src =
        "irreversible action compute():\n"
        "    print(\"computing\")\n"
        "    return 42\n"
        "c = compute()\n"
        "c.verify()\n"
        "r = c.commit()\n"
        "print(r, c.state)\n";
    HARNESS_LIMITED(rt, out, .dry_run = true);
    CHECK_PRINTS(rt, out, src, "nil committed\n");
    sense_runtime_free(rt);

    rt = harness_limited_runtime(&out, (harness_limits){.dry_run = false});
    CHECK(rt != NULL);
    CHECK_PRINTS(rt, out, src, "computing\n42 committed\n");
    sense_runtime_free(rt);
    return 0;
}

static int test_run_source_arguments(void) {
    HARNESS_RUNTIME(rt, out);
    /* An empty name is fine (diagnostics say <string>); sources share a scope. */
    CHECK_OK(sense_runtime_run_source(rt, NULL, 0, "x = 41", 6, NULL));
    CHECK_OK(sense_runtime_run_source(rt, "", 0, "print(x + 1)", 12, NULL));
    CHECK_STR(text_buf_view(&out), "42\n");
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_runtime_run_source(rt, NULL, 0, "1 / 0", 5, &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK_CONTAINS(sense_error_rendered(err), "<string>:1:");
    sense_error_free(err);
    /* An empty program does nothing. */
    CHECK_OK(sense_runtime_run_source(rt, "e.sns", 5, NULL, 0, NULL));

    CHECK_STATUS(sense_runtime_run_source(NULL, "a", 1, "x", 1, NULL),
                 SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_run_source(rt, NULL, 1, "x", 1, NULL),
                 SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_run_source(rt, "a", 1, NULL, 1, NULL),
                 SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_run_source(rt, "\xff", 1, "x", 1, NULL),
                 SENSE_STATUS_INVALID_UTF8);
    err = NULL;
    CHECK_ERROR(sense_runtime_run_source(rt, "a", 1, "x = \"\xff\"", 7, &err),
                SENSE_STATUS_INVALID_UTF8, err, "argument `source` is not valid UTF-8");
    sense_runtime_free(rt);
    return 0;
}

/* Freeing a runtime from inside its own callback is refused. */
static sense_runtime *self_rt = NULL;
static void host_free_self(void *user_data, sense_call *call) {
    (void)user_data;
    sense_runtime_free(self_rt); /* ignored: the runtime is busy */
    sense_call_return(call, NULL, NULL);
}

static int test_free_inside_callback_is_refused(void) {
    text_buf out;
    self_rt = harness_runtime(&out);
    CHECK(self_rt != NULL);
    CHECK_OK(sense_runtime_register_fn(self_rt, "free_self", 9, 0, host_free_self, NULL, NULL,
                                       NULL));
    CHECK_PRINTS(self_rt, out, "free_self()\nprint(\"still alive\")\n", "still alive\n");
    sense_runtime_free(self_rt);
    return 0;
}

HARNESS_MAIN(TEST(test_version_matches_header), TEST(test_new_and_free), TEST(test_config_setters),
             TEST(test_max_depth), TEST(test_step_budget), TEST(test_dry_run),
             TEST(test_run_source_arguments), TEST(test_free_inside_callback_is_refused))
