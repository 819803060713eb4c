/* Maps across the C ABI (issue 23, "Hosts"): SENSE_VALUE_KIND_MAP, its
 * entries read in insertion order by index or by key, maps built by the
 * host and passed into Sense (globals, call arguments, host function
 * results, resume values), and maps inside lists and maps. */
#include "harness.h"

/* A String key made from a NUL-terminated string (NULL on failure). */
static sense_value *key(const char *s) { return harness_string(s); }

/* Sets m[k] = v, taking ownership of k and v. */
static sense_status put(sense_value *m, sense_value *k, sense_value *v) {
    sense_status st = sense_value_map_set(m, k, v, NULL);
    sense_value_free(k);
    sense_value_free(v);
    return st;
}

/* The key and the value of entry `i` of the Map `m` (borrowed), or NULL. */
static const sense_value *entry_key(const sense_value *m, size_t i) {
    const sense_value *k = NULL;
    return sense_value_map_key(m, i, &k, NULL) == SENSE_STATUS_OK ? k : NULL;
}

static const sense_value *entry_value(const sense_value *m, size_t i) {
    const sense_value *v = NULL;
    return sense_value_map_value(m, i, &v, NULL) == SENSE_STATUS_OK ? v : NULL;
}

static int test_sense_maps_come_out_in_order(void) {
    HARNESS_PROGRAM(rt, out,
                    "m = {\"b\": 1, \"a\": [2, \"x\"], 3: true, false: {}}\nm[\"b\"] = 5\n");
    sense_value *m = NULL;
    CHECK_OK(sense_runtime_global(rt, "m", 1, &m, NULL));
    CHECK(harness_check_kind(m, SENSE_VALUE_KIND_MAP, "Map") == 0);
    size_t n = 0;
    CHECK_OK(sense_value_map_len(m, &n, NULL));
    CHECK(n == 4);

    /* Insertion order; replacing "b" kept its place. */
    CHECK(harness_check_string(entry_key(m, 0), "b") == 0);
    CHECK(harness_check_int(entry_value(m, 0), 5) == 0);
    CHECK(harness_check_string(entry_key(m, 1), "a") == 0);
    CHECK(harness_check_kind(entry_value(m, 1), SENSE_VALUE_KIND_LIST, NULL) == 0);
    CHECK(harness_check_int(entry_key(m, 2), 3) == 0);
    CHECK(harness_check_bool(entry_key(m, 3), false) == 0);
    CHECK(harness_check_kind(entry_value(m, 3), SENSE_VALUE_KIND_MAP, NULL) == 0);
    const sense_value *k = NULL, *v = NULL;
    CHECK_STATUS(sense_value_map_key(m, 4, &k, NULL), SENSE_STATUS_NOT_FOUND);
    CHECK_STATUS(sense_value_map_value(m, 4, &v, NULL), SENSE_STATUS_NOT_FOUND);

    /* By key: Int 3 and Bool true are different keys. */
    sense_value *three = sense_value_new_int(3);
    sense_value *yes = sense_value_new_bool(true);
    CHECK_OK(sense_value_map_get(m, three, &v, NULL));
    CHECK(harness_check_bool(v, true) == 0);
    CHECK_STATUS(sense_value_map_get(m, yes, &v, NULL), SENSE_STATUS_NOT_FOUND);
    sense_value *a = key("a");
    CHECK_OK(sense_value_map_get(m, a, &v, NULL));
    size_t len = 0;
    CHECK_OK(sense_value_list_len(v, &len, NULL));
    CHECK(len == 2);
    FREE_VALUES(a, three, yes);

    /* Wrong kinds. */
    CHECK_STATUS(sense_value_list_len(m, &len, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    sense_value *l = sense_value_new_list();
    sense_error *err = NULL;
    CHECK_ERROR(sense_value_map_len(l, &n, &err), SENSE_STATUS_INVALID_ARGUMENT, err,
                "the value is not a Map");
    sense_value_free(l);
    CHECK_STATUS(sense_value_map_len(NULL, &n, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_value_map_get(m, NULL, &v, NULL), SENSE_STATUS_INVALID_ARGUMENT);

    /* A copy is deep and independent. */
    sense_value *copy = NULL;
    CHECK_OK(sense_value_clone(m, &copy, NULL));
    sense_value_free(m);
    CHECK_OK(sense_value_map_len(copy, &n, NULL));
    CHECK(n == 4);
    sense_value_free(copy);
    sense_runtime_free(rt);
    return 0;
}

static void echo_map(void *user_data, sense_call *call) {
    (void)user_data;
    const sense_value *arg = NULL;
    sense_call_arg(call, 0, &arg, NULL);
    sense_value *m = NULL;
    sense_value_clone(arg, &m, NULL);
    sense_value *k = harness_string("seen");
    sense_value *v = sense_value_new_bool(true);
    sense_value_map_set(m, k, v, NULL);
    sense_value_free(k);
    sense_value_free(v);
    sense_call_return(call, m, NULL);
    sense_value_free(m);
}

static int test_host_maps_go_in(void) {
    HARNESS_RUNTIME(rt, out);
    sense_value *m = sense_value_new_map();
    CHECK(m != NULL);
    CHECK_OK(put(m, key("name"), harness_string("ada")));
    CHECK_OK(put(m, sense_value_new_int(7), sense_value_new_float(1.5)));
    CHECK_OK(put(m, key("tags"), sense_value_new_list()));
    CHECK_OK(put(m, key("name"), harness_string("grace"))); /* replaced in place */
    CHECK_OK(put(m, sense_value_new_bool(true), sense_value_new_map()));

    /* Keys other than String, Int or Bool are refused. */
    sense_value *fk = sense_value_new_float(1.0);
    sense_error *err = NULL;
    CHECK_ERROR_HAS(sense_value_map_set(m, fk, NULL, &err), SENSE_STATUS_INVALID_ARGUMENT, err,
                    "String, an Int or a Bool");
    sense_value_free(fk);
    sense_value *l = sense_value_new_list();
    sense_value *k = key("k");
    CHECK_STATUS(sense_value_map_set(l, k, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_value_map_set(NULL, k, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    sense_value_free(k);
    sense_value_free(l);

    CHECK_OK(sense_runtime_set_global(rt, "person", 6, m, NULL));
    CHECK_PRINTS(
        rt, out,
        "print(type_of(person), len(person), person[\"name\"], person[7])\n"
        "print(person)\n"
        "for k in person:\n"
        "    print(k)\n",
        "Map 4 grace 1.5\n{name: grace, 7: 1.5, tags: [], true: {}}\nname\n7\ntags\ntrue\n");

    /* Through a host function, both ways, and as a call argument. */
    CHECK_OK(sense_runtime_register_fn(rt, "echo", 4, 1, echo_map, NULL, NULL, NULL));
    CHECK_OK(harness_run(rt, "def size(x):\n    return len(echo(x))\n", NULL));
    sense_value *got = NULL;
    const sense_value *args[1] = {m};
    CHECK_OK(sense_runtime_call(rt, "size", 4, args, 1, &got, NULL));
    int64_t n = 0;
    CHECK_OK(sense_value_as_int(got, &n, NULL));
    CHECK(n == 5);
    sense_value_free(got);
    sense_value_free(m);
    sense_runtime_free(rt);
    return 0;
}

// ANCHOR: maps
static int test_maps_as_pause_reasons_and_resume_values(void) {
    HARNESS_PAUSED(rt, out,
                   "agent a:\n"
                   "    answer = pause({\"question\": \"deploy?\", \"hosts\": [{\"id\": 1}]})\n"
                   "    print(answer[\"ok\"], len(answer), answer)\n",
                   a, "a");
    sense_agent_status st;
    sense_value *reason = NULL;
    CHECK_OK(sense_agent_pause_reason(rt, a, &reason, NULL));
    sense_value *hosts_key = key("hosts");
    const sense_value *hosts = NULL, *id = NULL;
    CHECK_OK(sense_value_map_get(reason, hosts_key, &hosts, NULL));
    sense_value *id_key = key("id");
    CHECK_OK(sense_value_map_get(harness_item(hosts, 0), id_key, &id, NULL));
    CHECK(harness_check_int(id, 1) == 0);
    FREE_VALUES(hosts_key, id_key, reason);

    sense_value *answer = sense_value_new_map();
    CHECK_OK(put(answer, key("ok"), sense_value_new_bool(true)));
    CHECK_OK(put(answer, key("by"), harness_string("ops")));
    CHECK_OK(sense_agent_resume(rt, a, answer, &st, NULL));
    sense_value_free(answer);
    CHECK(st == SENSE_AGENT_STATUS_COMPLETED);
    CHECK_STR(text_buf_view(&out), "true 2 {ok: true, by: ops}\n");
    sense_runtime_free(rt);
    return 0;
}
// ANCHOR_END: maps

HARNESS_MAIN(TEST(test_sense_maps_come_out_in_order), TEST(test_host_maps_go_in),
             TEST(test_maps_as_pause_reasons_and_resume_values))
