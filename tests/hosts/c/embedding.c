/* The embedding calls of issue 16: globals, calling Sense functions, agent
 * members, agents inside arrays, holds that keep agents alive, host
 * functions that learn their caller, and pause reasons read without
 * allocating. */
#include "harness.h"

#include <stdint.h>

// ANCHOR: set_global_and_call
static int test_set_global_and_call(void) {
    HARNESS_RUNTIME(rt, out);
    sense_value *three = sense_value_new_int(3);
    CHECK_OK(sense_runtime_set_global(rt, "limit", 5, three, NULL));
    CHECK_OK(harness_run(rt, "def area(w, h):\n    return w * h * limit\n", NULL));

    sense_value *w = sense_value_new_int(6);
    sense_value *h = sense_value_new_int(7);
    const sense_value *args[2] = {w, h};
    sense_value *result = NULL;
    CHECK_OK(sense_runtime_call(rt, "area", 4, args, 2, &result, NULL));
    int64_t n = 0;
    CHECK_OK(sense_value_as_int(result, &n, NULL));
    CHECK(n == 126);
    sense_value_free(result);

    /* NULL global value is nil; NULL argument is nil. */
    CHECK_OK(sense_runtime_set_global(rt, "nothing", 7, NULL, NULL));
    CHECK_PRINTS(rt, out, "print(nothing)\n", "nil\n");
    CHECK_OK(harness_run(rt, "def show(x):\n    return str(x)\n", NULL));
    const sense_value *nil_arg[1] = {NULL};
    CHECK_OK(sense_runtime_call(rt, "show", 4, nil_arg, 1, &result, NULL));
    sense_str s;
    CHECK_OK(sense_value_as_string(result, &s, NULL));
    CHECK_STR(s, "nil");
    sense_value_free(result);

    /* Errors: missing function, error inside (located), bad arity, bad name. */
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_runtime_call(rt, "nope", 4, NULL, 0, &result, &err), SENSE_STATUS_NOT_FOUND, err);
    sense_error_free(err);
    err = NULL;
    CHECK_OK(harness_run(rt, "def fail(x):\n    return x / 0\n", NULL));
    const sense_value *one_arg[1] = {w};
    CHECK_STATUS_ERR(sense_runtime_call(rt, "fail", 4, one_arg, 1, &result, &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK_CONTAINS(sense_error_message(err), "division by zero");
    CHECK(sense_error_line(err) == 2);
    sense_error_free(err);
    err = NULL;
    CHECK_STATUS_ERR(sense_runtime_call(rt, "area", 4, one_arg, 1, &result, &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    sense_error_free(err);
    CHECK_STATUS(sense_runtime_set_global(rt, "no good", 7, three, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_call(rt, "area", 4, NULL, 2, &result, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_call(rt, "area", 4, args, 2, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    FREE_VALUES(three, w, h);
    sense_runtime_free(rt);
    return 0;
}
// ANCHOR_END: set_global_and_call

// ANCHOR: members_and_agents
static int test_members_and_agents_in_arrays(void) {
    HARNESS_PROGRAM(rt, out,
                    "agent acc:\n"
                    "    total = 0\n"
                    "    while true:\n"
                    "        total = total + pause(\"more?\")\n"
                    "agent helper:\n"
                    "    n = 0\n"
                    "team = [acc, [helper]]\n");
    sense_agent acc, helper;
    size_t path[2] = {1, 0};
    CHECK_OK(sense_agent_lookup_path(rt, "team", 4, path, 2, &helper, NULL));
    sense_agent by_name;
    CHECK_OK(harness_agent(rt, "helper", &by_name));
    CHECK(helper.serial == by_name.serial && helper.index == by_name.index);
    CHECK_OK(sense_agent_lookup_path(rt, "acc", 3, NULL, 0, &acc, NULL));
    size_t bad[1] = {7};
    CHECK_STATUS(sense_agent_lookup_path(rt, "team", 4, bad, 1, &helper, NULL), SENSE_STATUS_NOT_FOUND);
    size_t first[1] = {1};
    CHECK_STATUS(sense_agent_lookup_path(rt, "team", 4, first, 1, &helper, NULL), SENSE_STATUS_NOT_FOUND);

    CHECK_OK(sense_agent_start(rt, acc, NULL, NULL));
    sense_value *ten = sense_value_new_int(10);
    CHECK_OK(sense_agent_resume(rt, acc, ten, NULL, NULL));
    sense_value_free(ten);
    sense_value *total = NULL;
    CHECK_OK(sense_agent_member(rt, acc, "total", 5, &total, NULL));
    int64_t n = 0;
    CHECK_OK(sense_value_as_int(total, &n, NULL));
    CHECK(n == 10);
    sense_value_free(total);
    sense_value *status = NULL;
    sense_str s;
    CHECK_OK(sense_agent_member(rt, acc, "status", 6, &status, NULL));
    CHECK_OK(sense_value_as_string(status, &s, NULL));
    CHECK_STR(s, "paused");
    sense_value_free(status);
    sense_error *err = NULL;
    CHECK_ERROR_HAS(sense_agent_member(rt, acc, "missing", 7, &total, &err), SENSE_STATUS_NOT_FOUND,
                    err, "no member 'missing'");
    sense_runtime_free(rt);
    return 0;
}
// ANCHOR_END: members_and_agents

static int test_agents_kept_by_agents(void) {
    HARNESS_PROGRAM(rt, out,
                    "agent boss:\n"
                    "    agent helper:\n"
                    "        print(\"helping\")\n"
                    "    crew = [[helper]]\n"
                    "    pause()\n");
    sense_agent boss, helper;
    CHECK_OK(harness_agent(rt, "boss", &boss));
    CHECK_OK(sense_agent_start(rt, boss, NULL, NULL));
    size_t path[2] = {0, 0};
    CHECK_OK(sense_agent_member_agent(rt, boss, "crew", 4, path, 2, &helper, NULL));
    sense_agent_status st;
    CHECK_OK(sense_agent_start(rt, helper, &st, NULL));
    CHECK(st == SENSE_AGENT_STATUS_COMPLETED);
    CHECK_STR(text_buf_view(&out), "helping\n");
    CHECK_STATUS(sense_agent_member_agent(rt, boss, "crew", 4, path, 1, &helper, NULL),
                 SENSE_STATUS_NOT_FOUND);
    CHECK_STATUS(sense_agent_member_agent(rt, boss, "nope", 4, NULL, 0, &helper, NULL),
                 SENSE_STATUS_NOT_FOUND);
    CHECK_STATUS(sense_agent_member_agent(rt, boss, "crew", 4, NULL, 2, &helper, NULL),
                 SENSE_STATUS_INVALID_ARGUMENT);
    sense_runtime_free(rt);
    return 0;
}

static int test_retain_keeps_an_agent_alive(void) {
    HARNESS_AGENT(rt, out, "agent a:\n    x = pause()\n    print(\"back\", x)\n", a, "a");
    CHECK_OK(sense_agent_start(rt, a, NULL, NULL));
    CHECK_OK(sense_agent_retain(rt, a, NULL));
    CHECK_OK(sense_agent_retain(rt, a, NULL));
    /* No Sense variable refers to it any more; lots of garbage follows. */
    CHECK_OK(harness_run(rt, "a = nil\nfor i in range(300000):\n    s = str(i)\n", NULL));
    CHECK_OK(sense_agent_release(rt, a, NULL));
    CHECK_OK(harness_run(rt, "for i in range(300000):\n    s = str(i)\n", NULL));
    CHECK(harness_resume(rt, a, sense_value_new_int(1), SENSE_AGENT_STATUS_COMPLETED) == 0);
    CHECK_STR(text_buf_view(&out), "back 1\n");
    CHECK_OK(sense_agent_release(rt, a, NULL));
    CHECK_STATUS(sense_agent_release(rt, a, NULL), SENSE_STATUS_WRONG_STATE);
    /* Without holds the agent goes with the garbage. */
    CHECK_OK(harness_run(rt, "for i in range(300000):\n    s = str(i)\n", NULL));
    CHECK_STATUS(sense_agent_retain(rt, a, NULL), SENSE_STATUS_NOT_FOUND);
    sense_runtime_free(rt);
    return 0;
}

static sense_agent seen_agent;
static int seen_status = -1;

static void whoami(void *user_data, sense_call *call) {
    (void)user_data;
    seen_status = (int)sense_call_agent(call, &seen_agent, NULL);
}

static int test_host_function_learns_its_caller(void) {
    HARNESS_RUNTIME(rt, out);
    CHECK_OK(sense_runtime_register_fn(rt, "whoami", 6, 0, whoami, NULL, NULL, NULL));
    CHECK_OK(harness_run(rt, "agent worker:\n    whoami()\nwhoami()\n", NULL));
    CHECK(seen_status == SENSE_STATUS_NOT_FOUND);
    sense_agent worker;
    CHECK_OK(harness_agent(rt, "worker", &worker));
    CHECK_OK(sense_agent_start(rt, worker, NULL, NULL));
    CHECK(seen_status == SENSE_STATUS_OK);
    CHECK(seen_agent.serial == worker.serial && seen_agent.index == worker.index);
    CHECK_STATUS(sense_call_agent(NULL, &seen_agent, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    sense_runtime_free(rt);
    return 0;
}

static int test_pause_reason_views(void) {
    HARNESS_AGENT(rt, out,
                  "agent a:\n"
                  "    pause(41)\n"
                  "    pause(2.5)\n"
                  "    pause(true)\n"
                  "    pause(\"why?\")\n"
                  "    pause([1])\n",
                  a, "a");
    CHECK_OK(sense_agent_start(rt, a, NULL, NULL));
    int64_t i = 0;
    double f = 0;
    bool b = false;
    sense_str s;
    CHECK_OK(sense_agent_pause_reason_int(rt, a, &i, NULL));
    CHECK(i == 41);
    CHECK_STATUS(sense_agent_pause_reason_float(rt, a, &f, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_OK(sense_agent_resume(rt, a, NULL, NULL, NULL));
    CHECK_OK(sense_agent_pause_reason_float(rt, a, &f, NULL));
    CHECK(f == 2.5);
    CHECK_OK(sense_agent_resume(rt, a, NULL, NULL, NULL));
    CHECK_OK(sense_agent_pause_reason_bool(rt, a, &b, NULL));
    CHECK(b);
    CHECK_STATUS(sense_agent_pause_reason_string(rt, a, &s, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_OK(sense_agent_resume(rt, a, NULL, NULL, NULL));
    CHECK_OK(sense_agent_pause_reason_string(rt, a, &s, NULL));
    CHECK_STR(s, "why?");
    CHECK_OK(sense_agent_resume(rt, a, NULL, NULL, NULL));
    CHECK_STATUS(sense_agent_pause_reason_int(rt, a, &i, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK(i == 41);
    sense_agent forged = a;
    forged.serial += 1000;
    CHECK_STATUS(sense_agent_pause_reason_int(rt, forged, &i, NULL), SENSE_STATUS_NOT_FOUND);
    CHECK_STATUS(sense_agent_pause_reason_int(rt, a, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_set_global_and_call), TEST(test_members_and_agents_in_arrays),
             TEST(test_agents_kept_by_agents), TEST(test_retain_keeps_an_agent_alive),
             TEST(test_host_function_learns_its_caller), TEST(test_pause_reason_views))
