/* Model providers as callbacks: answers, confidence, failures, default
 * model, capabilities, and the sense_completion NULL paths. */
#include "harness.h"

#include <math.h>

typedef struct provider_log {
    char last_model[64];
    char last_prompt[256];
    int calls;
    int freed;
} provider_log;

static void log_free(void *user_data) {
    ((provider_log *)user_data)->freed++;
}

static void acme_complete(void *user_data, sense_str model_id, sense_str prompt,
                          sense_completion *completion) {
    provider_log *log = (provider_log *)user_data;
    log->calls++;
    snprintf(log->last_model, sizeof log->last_model, "%.*s", (int)model_id.len, model_id.ptr);
    snprintf(log->last_prompt, sizeof log->last_prompt, "%.*s", (int)prompt.len, prompt.ptr);
    if (harness_str_contains(prompt, "fail")) {
        const char *msg = "acme is down";
        sense_completion_fail(completion, msg, strlen(msg), NULL);
        return;
    }
    char buf[300];
    int n = snprintf(buf, sizeof buf, "echo %.*s", (int)prompt.len, prompt.ptr);
    sense_completion_set_text(completion, buf, (size_t)n, NULL);
    sense_completion_set_confidence(completion, 0.75, NULL);
}

static int completion_checks_failed = 0;
static void probe_complete(void *user_data, sense_str model_id, sense_str prompt,
                           sense_completion *completion) {
    (void)user_data;
    (void)model_id;
    (void)prompt;
    int bad = 0;
    bad |= sense_completion_set_text(NULL, "x", 1, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_completion_set_text(completion, NULL, 1, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_completion_set_text(completion, "\xff", 1, NULL) != SENSE_STATUS_INVALID_UTF8;
    bad |= sense_completion_set_confidence(NULL, 0.5, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_completion_set_confidence(completion, NAN, NULL) !=
           SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_completion_fail(NULL, "x", 1, NULL) != SENSE_STATUS_INVALID_ARGUMENT;
    bad |= sense_completion_fail(completion, "\xff", 1, NULL) != SENSE_STATUS_INVALID_UTF8;
    completion_checks_failed = bad;
    /* No answer at all: empty text, no confidence. */
}

static int test_provider_answers(void) {
    HARNESS_RUNTIME(rt, out);
    provider_log log;
    memset(&log, 0, sizeof log);
    CHECK_OK(sense_runtime_register_provider(rt, "acme", 4, NULL, 0, "acme-1", 6, acme_complete,
                                             &log, log_free, NULL));
    CHECK_PRINTS(rt, out,
                 "model m = inference(\"acme\")\n"
                 "a = m.ask(\"hello\")\n"
                 "print(a)\n"
                 "print(a.value, a.confidence)\n"
                 "model big = inference(\"acme\", \"acme-2\")\n"
                 "print(big.ask(\"hi\").value)\n",
                 "answer<0.75>(echo hello)\necho hello 0.75\necho hi\n");
    CHECK(log.calls == 2);
    CHECK(strcmp(log.last_model, "acme-2") == 0);
    CHECK(strcmp(log.last_prompt, "hi") == 0);

    sense_error *err = NULL;
    CHECK_ERROR_HAS(harness_run(rt, "m.ask(\"please fail\")\n", &err), SENSE_STATUS_RUNTIME_ERROR,
                    err, "acme is down");
    CHECK(strcmp(log.last_model, "acme-1") == 0);

    sense_runtime_free(rt);
    CHECK(log.freed == 1);
    return 0;
}

static int test_provider_capability_is_gated(void) {
    HARNESS_RUNTIME(rt, out);
    provider_log log;
    memset(&log, 0, sizeof log);
    CHECK_OK(sense_runtime_register_provider(rt, "acme", 4, "model.acme", 10, "acme-1", 6,
                                             acme_complete, &log, NULL, NULL));
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt,
                                 "model m = inference(\"acme\")\n"
                                 "policy: deny model.acme\n"
                                 "m.ask(\"x\")\n",
                                 &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK_STR(sense_error_class(err), "SensePolicyError");
    CHECK_CONTAINS(sense_error_message(err), "requires capability 'model.acme'");
    sense_error_free(err);
    CHECK(log.calls == 0); /* never asked */
    sense_runtime_free(rt);
    return 0;
}

static int test_completion_paths(void) {
    HARNESS_RUNTIME(rt, out);
    CHECK_OK(sense_runtime_register_provider(rt, "probe", 5, NULL, 0, "p", 1, probe_complete, NULL,
                                             NULL, NULL));
    CHECK_OK(harness_run(rt, "model m = inference(\"probe\")\nprint(m.ask(\"x\"))\n", NULL));
    CHECK(completion_checks_failed == 0);
    CHECK_STR(text_buf_view(&out), "answer<?>()\n");
    sense_runtime_free(rt);
    return 0;
}

static int test_register_provider_errors(void) {
    sense_runtime *rt = NULL;
    CHECK_OK(sense_runtime_new(&rt, NULL));
    provider_log log;
    memset(&log, 0, sizeof log);
    CHECK_STATUS(sense_runtime_register_provider(NULL, "a", 1, NULL, 0, "m", 1, acme_complete,
                                                 &log, log_free, NULL),
                 SENSE_STATUS_INVALID_ARGUMENT);
    CHECK(log.freed == 1);
    CHECK_STATUS(sense_runtime_register_provider(rt, "a", 1, NULL, 0, "m", 1, NULL, &log, log_free,
                                                 NULL),
                 SENSE_STATUS_INVALID_ARGUMENT);
    CHECK(log.freed == 2);
    CHECK_STATUS(sense_runtime_register_provider(rt, NULL, 1, NULL, 0, "m", 1, acme_complete,
                                                 NULL, NULL, NULL),
                 SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_register_provider(rt, "a", 1, NULL, 3, "m", 1, acme_complete, NULL,
                                                 NULL, NULL),
                 SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_register_provider(rt, "a", 1, NULL, 0, "\xff", 1, acme_complete,
                                                 NULL, NULL, NULL),
                 SENSE_STATUS_INVALID_UTF8);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_provider_answers), TEST(test_provider_capability_is_gated),
             TEST(test_completion_paths), TEST(test_register_provider_errors))
