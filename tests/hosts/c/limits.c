/* Limits in sense_config: maximum string and array sizes, the heap ceiling
 * (issue 18, item 3), and their argument checks. */
#include "harness.h"

static int test_zero_limits_are_invalid(void) {
    sense_config *cfg = NULL;
    CHECK_OK(sense_config_new(&cfg, NULL));
    CHECK_STATUS(sense_config_set_max_heap(cfg, 0, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_config_set_max_string_len(cfg, 0, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_config_set_max_array_len(cfg, 0, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_config_set_max_source_len(cfg, 0, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_config_set_max_heap(NULL, 1, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    sense_config_free(cfg);
    return 0;
}

static int test_string_and_array_limits(void) {
    HARNESS_LIMITED(rt, out, .max_string_len = 100, .max_array_len = 50);
    sense_error *err = NULL;
    CHECK_ERROR_HAS(harness_run(rt, "s = \"x\"\nwhile true:\n    s = s + s\n", &err),
                    SENSE_STATUS_RUNTIME_ERROR, err,
                    "string too large (128 bytes; the limit is 100)");
    CHECK_ERROR_HAS(harness_run(rt, "r = range(51)\n", &err), SENSE_STATUS_RUNTIME_ERROR, err,
                    "array too large (51 elements; the limit is 50)");
    CHECK_PRINTS(rt, out, "r = range(50)\nprint(len(r))\n", "50\n");
    sense_runtime_free(rt);
    return 0;
}

static int test_heap_ceiling(void) {
    HARNESS_LIMITED(rt, out, .max_heap = 8u << 20);
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt, "rows = []\nwhile true:\n    push(rows, range(1000))\n", &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK_STR(sense_error_class(err), "SenseRuntimeError");
    CHECK_CONTAINS(sense_error_message(err), "out of memory");
    CHECK_CONTAINS(sense_error_message(err), "heap limit of 8"); /* 8 MiB or 8192 KiB */
    CHECK(!harness_str_contains(sense_error_message(err), "--max-heap")); /* no CLI flag for a C host */
    CHECK(sense_error_line(err) == 3);
    sense_error_free(err);
    /* The runtime stays usable; the garbage goes once unreachable. */
    CHECK_PRINTS(rt, out,
                 "rows = nil\nrows = []\nfor i in range(100):\n"
                 "    push(rows, range(1000))\nprint(len(rows))\n",
                 "100\n");
    sense_runtime_free(rt);
    return 0;
}

/* Issue 27: the source limit counts every source a runtime compiles. */
static int test_source_limit_counts_every_source(void) {
    HARNESS_LIMITED(rt, out, .max_source_len = 40);
    for (int i = 0; i < 6; i++) {
        CHECK_OK(harness_run(rt, "a = 1\n", NULL)); /* 6 bytes each, 36 in all */
    }
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt, "b = 22\n", &err), SENSE_STATUS_SYNTAX_ERROR, err);
    CHECK_CONTAINS(sense_error_message(err), "after 36 bytes of sources already compiled in this run");
    CHECK_CONTAINS(sense_error_message(err), "the limit for all the sources of a run together is 40 bytes");
    sense_error_free(err);
    sense_runtime_free(rt);
    return 0;
}

/* Issue 27: values a host adds are held to the heap ceiling with a status,
   not a process abort; the message names no CLI flag. */
static int test_host_values_count_towards_the_ceiling(void) {
    HARNESS_LIMITED(rt, out, .max_heap = 4u << 20);
    CHECK_OK(harness_run(rt, "agent sink:\n    pause(\"never\")\n", NULL));
    static char chunk[256 * 1024];
    memset(chunk, 'x', sizeof chunk);
    sense_value *v = NULL;
    CHECK_OK(sense_value_new_string(chunk, sizeof chunk, &v, NULL));
    sense_status st = SENSE_STATUS_OK;
    sense_error *err = NULL;
    char name[16];
    for (int i = 0; i < 64 && st == SENSE_STATUS_OK; i++) {
        snprintf(name, sizeof name, "g%d", i);
        st = sense_runtime_set_global(rt, name, strlen(name), v, &err);
    }
    CHECK_STATUS_ERR(st, SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK_CONTAINS(sense_error_message(err), "out of memory");
    CHECK(!harness_str_contains(sense_error_message(err), "--max-heap"));
    sense_error_free(err);
    err = NULL;
    sense_agent sink;
    CHECK_OK(sense_agent_lookup(rt, "sink", 4, &sink, NULL));
    st = sense_agent_send(rt, sink, v, &err);
    CHECK_STATUS_ERR(st, SENSE_STATUS_RUNTIME_ERROR, err);
    sense_error_free(err);
    sense_value_free(v);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_zero_limits_are_invalid), TEST(test_string_and_array_limits),
             TEST(test_source_limit_counts_every_source),
             TEST(test_host_values_count_towards_the_ceiling), TEST(test_heap_ceiling))
