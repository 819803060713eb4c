/* Listing a runtime's globals and live agents (issue 28, parity with
 * Lua's C API): sense_runtime_global_names and sense_runtime_agents. */
#include "harness.h"

static int test_globals_and_agents_are_listed(void) {
    HARNESS_RUNTIME(rt, out);
    sense_value *names = NULL;
    CHECK_OK(sense_runtime_global_names(rt, &names, NULL));
    size_t n = 99;
    CHECK_OK(sense_value_list_len(names, &n, NULL));
    CHECK(n == 0); /* nothing ran yet */
    sense_value_free(names);

    sense_value *k = sense_value_new_int(3);
    CHECK_OK(sense_runtime_set_global(rt, "limit", 5, k, NULL));
    sense_value_free(k);
    CHECK_OK(harness_run(rt,
                         "total = 0\n"
                         "def add(x):\n    return x\n"
                         "agent worker:\n    pause()\n"
                         "agent idle:\n    n = 1\n",
                         NULL));
    CHECK_OK(sense_runtime_global_names(rt, &names, NULL));
    CHECK_OK(sense_value_list_len(names, &n, NULL));
    const char *want[] = {"add", "idle", "limit", "total", "worker"};
    CHECK(n == sizeof want / sizeof want[0]);
    for (size_t i = 0; i < n; i++) {
        const sense_value *name = NULL;
        sense_str s;
        CHECK_OK(sense_value_list_get(names, i, &name, NULL));
        CHECK_OK(sense_value_as_string(name, &s, NULL));
        CHECK_STR(s, want[i]);
    }
    sense_value_free(names);

    sense_agent worker;
    CHECK_OK(harness_agent(rt, "worker", &worker));
    sense_agent_status st;
    CHECK_OK(sense_agent_start(rt, worker, &st, NULL));
    sense_value *agents = NULL;
    CHECK_OK(sense_runtime_agents(rt, &agents, NULL));
    CHECK_OK(sense_value_list_len(agents, &n, NULL));
    CHECK(n == 2);
    const sense_value *first = NULL;
    CHECK_OK(sense_value_list_get(agents, 0, &first, NULL));
    sense_agent a;
    CHECK_OK(sense_value_as_agent(first, &a, NULL));
    CHECK(a.serial == worker.serial && a.index == worker.index);
    CHECK_OK(sense_agent_get_status(rt, a, &st, NULL));
    CHECK(st == SENSE_AGENT_STATUS_PAUSED);
    sense_value_free(agents);

    CHECK_STATUS(sense_runtime_agents(NULL, &agents, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_global_names(rt, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_globals_and_agents_are_listed))
